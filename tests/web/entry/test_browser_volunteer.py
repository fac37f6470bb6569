"""A volunteer's evening in a real browser: log in, type a paper record sheet (a typo is
refused at its field and nothing is stored), fix it, save, read both players' log pages,
then back-date a game and see the later rows of the log page change."""

import re
from datetime import date

import pytest
from playwright.sync_api import Page, expect

from players.models import Game, Player
from players.services.games import game_correct, record_sheet_submit
from ratings.models import RecomputeState
from ratings.recompute import dirty
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.conftest import TEST_OUTPUT
from tests.web import browser_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "black stones on the 4-4 point"


@pytest.fixture
def players():
    return {
        "alice": factories.player("alice", "5k", full_name="Alice Moyo"),
        "bob": factories.player("bob", "8k", full_name="Bob Smit"),
        "carol": factories.player("carol", "12k", full_name="Carol Naidoo"),
    }


def log_in(page: Page, base: str) -> None:
    factories.volunteer_with_password("vera", PASSWORD)
    browser_session.log_in(page, base, "vera", PASSWORD)


def type_row(page: Page, index: int, day: str, white: str, black: str, winner: str) -> None:
    prefix = f"#id_form-{index}-"
    page.fill(prefix + "date", day)
    page.fill(prefix + "white", white)
    page.fill(prefix + "black", black)
    page.select_option(prefix + "winner", winner)


def sheet_rows(page: Page) -> list[str]:
    """The texts of the log page's record sheet rows, newest first (without the rows that
    unfold to show how a change was computed)."""
    return [row.inner_text() for row in page.locator("table tbody tr:not(.how-row)").all()]


def test_it_enters_a_sheet_fixes_a_typo_and_back_dates_a_game(live_server, browser_page, players):
    page = browser_page
    base = live_server.url
    log_in(page, base)

    page.click("text=Enter sheet")
    page.wait_for_url(f"{base}/sheets/new/")
    expect(page.locator("#id_form-0-white")).to_be_focused()
    type_row(page, 0, "2024-03-01", "alice", "bob", "W")
    type_row(page, 1, "2024-03-08", "alice", "bbo", "W")  # the typo
    type_row(page, 2, "2024-03-15", "alice", "carol", "B")

    # Enter in the last row adds a row (with the same date) instead of submitting.
    page.press("#id_form-2-black", "Enter")
    expect(page.locator("#id_form-3-white")).to_be_focused()
    expect(page.locator("#id_form-3-date")).to_have_value("2024-03-15")
    assert page.input_value("input[name=form-TOTAL_FORMS]") == "4"
    # The komi follows the handicap; the untouched new row is then left blank.
    page.fill("#id_form-3-handicap", "3")
    expect(page.locator("#id_form-3-komi")).to_have_value("0.5")
    page.fill("#id_form-3-handicap", "0")
    expect(page.locator("#id_form-3-komi")).to_have_value("6.5")
    page.screenshot(path=TEST_OUTPUT / "volunteer_sheet_form.png", full_page=True)

    page.click("text=Save the sheet")
    black = page.locator("#id_form-1-black")
    expect(black).to_have_class(re.compile(r"\bis-invalid\b"))
    expect(page.locator("#div_id_form-1-black .invalid-feedback")).to_have_text(
        "no player 'bbo' — did you mean bob (Bob Smit)? If not, add them first"
    )
    expect(page.locator("#sheet-errors")).to_contain_text("Nothing was stored.")
    assert Game.objects.count() == 0
    expect(page.locator("#id_form-2-white")).to_have_value("alice")
    page.screenshot(path=TEST_OUTPUT / "volunteer_sheet_form_refused.png", full_page=True)

    black.fill("bob")
    page.click("text=Save the sheet")
    page.wait_for_url(re.compile(r"/sheets/\d+/$"))
    expect(page.locator(".alert-success")).to_contain_text("saved: 3 games")
    expect(page.locator("tr[data-game]")).to_have_count(3)
    expect(page.locator("#recompute-done")).to_be_visible()
    assert Game.objects.count() == 3

    page.goto(f"{base}/players/bob/")
    bob_rows = sheet_rows(page)
    assert len(bob_rows) == 2
    assert all("Alice Moyo" in row for row in bob_rows)
    page.goto(f"{base}/players/alice/")
    before = sheet_rows(page)
    assert len(before) == 3
    assert "Carol Naidoo" in before[0] and "2024-03-15" in before[0]
    assert "Bob Smit" in before[2] and "2024-03-01" in before[2]
    page.screenshot(path=TEST_OUTPUT / "volunteer_log_page.png", full_page=True)

    # Back-date the loss to carol to before the games against bob.
    loss = Game.objects.get(black=players["carol"])
    page.goto(f"{base}/games/{loss.pk}/")
    page.click("text=Correct or back-date")
    page.fill("#id_date", "2024-02-20")
    page.click("text=Save the correction")
    page.wait_for_url(f"{base}/games/{loss.pk}/")
    expect(page.locator(".alert-success")).to_contain_text("corrected")

    page.goto(f"{base}/players/alice/")
    after = sheet_rows(page)
    assert "Carol Naidoo" in after[2] and "2024-02-20" in after[2]
    # The games against bob now follow a loss: their rows show other numbers.
    against_bob = [row for row in after if "Bob Smit" in row]
    assert len(against_bob) == 2
    assert against_bob != [row for row in before if "Bob Smit" in row]
    page.screenshot(path=TEST_OUTPUT / "volunteer_log_page_after_back_dating.png", full_page=True)


def test_it_adds_a_missing_player_from_the_sheet_without_losing_the_rows(
    live_server, browser_page, players
):
    page = browser_page
    base = live_server.url
    log_in(page, base)
    page.goto(f"{base}/sheets/new/")
    # Player fields suggest usernames from the lookup as the volunteer types.
    page.locator("#id_form-0-black").press_sequentially("naid")
    expect(page.locator("#player-options option[value=carol]")).to_have_attribute(
        "label", "Carol Naidoo (12k)"
    )
    type_row(page, 0, "2024-03-01", "alice", "bob", "W")
    page.fill("#id_form-0-comment", "first game")
    type_row(page, 1, "2024-03-01", "dave", "carol", "B")

    # The refused sheet loaded whole: its "Add" button opens the dialog through Bootstrap's
    # script, the last thing on the page, and a click before it has run is lost.
    with page.expect_navigation():
        page.click("text=Save the sheet")
    expect(page.locator("#div_id_form-1-white .invalid-feedback")).to_have_text(
        "no player 'dave' — add them first"
    )
    page.click("text=Add “dave”…")
    dialog = page.locator("#new-player")
    expect(dialog).to_be_visible()
    expect(dialog.locator("#id_username")).to_have_value("dave")
    # Typed once the dialog is shown (it focuses the name then), as a volunteer types:
    # filled while it still faded in, under load the fields came back empty.
    expect(dialog.locator("#id_full_name")).to_be_focused()
    dialog.locator("#id_full_name").fill("Dave Botha")
    dialog.locator("#id_national_rank").fill("40x")
    dialog.locator("text=Add the player").click()
    expect(dialog.locator(".invalid-feedback")).to_contain_text("'40x' is not a rank")
    dialog.locator("#id_national_rank").fill("40k")
    dialog.locator("text=Add the player").click()
    expect(dialog).to_be_hidden()

    assert Player.objects.get(username="dave").entry_rank == factories.parse_rank("40k")
    expect(page.locator("#id_form-1-white")).to_have_value("dave")
    expect(page.locator("#id_form-1-white")).not_to_have_class(re.compile(r"\bis-invalid\b"))
    expect(page.locator("#id_form-0-comment")).to_have_value("first game")

    page.click("text=Save the sheet")
    page.wait_for_url(re.compile(r"/sheets/\d+/$"))
    assert sorted(Game.objects.values_list("white__username", flat=True)) == ["alice", "dave"]


def test_a_date_is_typed_short_and_today_is_one_key_away(live_server, browser_page, players):
    page = browser_page
    base = live_server.url
    log_in(page, base)
    page.goto(f"{base}/sheets/new/")
    today = page.locator("#id_form-0-date").get_attribute("data-today")

    page.fill("#id_form-0-date", "")
    page.type("#id_form-0-date", "t")
    expect(page.locator("#id_form-0-date")).to_have_value(today)
    page.fill("#id_form-1-date", "1/3/2024")
    page.fill("#id_form-2-date", "")
    page.locator("#id_form-2-date ~ button.date-today").click()
    expect(page.locator("#id_form-2-date")).to_have_value(today)
    page.fill("#id_form-2-date", "")  # the third row stays blank: it is skipped
    # "Today" is no tab stop: Tab goes from the date to White.
    page.focus("#id_form-0-date")
    page.keyboard.press("Tab")
    expect(page.locator("#id_form-0-white")).to_be_focused()
    type_row(page, 0, today, "alice", "bob", "W")
    page.select_option("#id_form-1-winner", "B")
    page.fill("#id_form-1-white", "Moyo Alice")  # a name in the other order finds alice
    page.fill("#id_form-1-black", "carol")
    page.click("button[type=submit]:has-text('Save the sheet')")
    page.wait_for_url(re.compile(r"/sheets/\d+/$"))

    games = list(Game.objects.order_by("seq").values_list("date", "white__username"))
    assert [(str(day), white) for day, white in games] == [
        (today, "alice"),
        ("2024-03-01", "alice"),
    ]


def test_rows_removed_with_the_cross_are_not_sent_and_the_rest_is_saved(
    live_server, browser_page, players
):
    page = browser_page
    base = live_server.url
    log_in(page, base)
    page.goto(f"{base}/sheets/new/")
    type_row(page, 0, "2024-03-01", "alice", "bob", "W")
    type_row(page, 1, "2024-03-01", "alice", "carol", "B")
    rows = page.locator("[data-row]")
    expect(rows).to_have_count(3)

    rows.nth(2).locator("[data-remove-row]").click()  # the empty third row
    rows.nth(1).locator("[data-remove-row]").click()  # a typed row, changed mind
    expect(rows).to_have_count(1)
    assert page.input_value("input[name=form-TOTAL_FORMS]") == "1"
    page.click("[data-add-row]")
    expect(page.locator("#id_form-1-white")).to_be_focused()
    type_row(page, 1, "2024-03-01", "bob", "carol", "W")
    expect(page.locator("[data-row-number]")).to_have_text(["1", "2"])

    page.click("text=Save the sheet")
    page.wait_for_url(re.compile(r"/sheets/\d+/$"))
    expect(page.locator(".alert-success")).to_contain_text("saved: 2 games")
    saved = Game.objects.order_by("pk").values_list("white__username", "black__username")
    assert list(saved) == [("alice", "bob"), ("bob", "carol")]


def test_a_removed_row_in_the_middle_leaves_the_rows_after_it_as_typed(
    live_server, browser_page, players
):
    page = browser_page
    base = live_server.url
    log_in(page, base)
    page.goto(f"{base}/sheets/new/")
    type_row(page, 0, "2024-03-01", "alice", "bob", "W")
    type_row(page, 2, "2024-03-08", "bob", "carol", "B")

    page.locator("[data-row]").nth(1).locator("[data-remove-row]").click()

    assert page.input_value("input[name=form-TOTAL_FORMS]") == "2"
    expect(page.locator("#id_form-1-white")).to_have_value("bob")
    expect(page.locator("label[for=id_form-1-white]")).to_have_count(1)
    page.click("text=Save the sheet")
    page.wait_for_url(re.compile(r"/sheets/\d+/$"))
    assert Game.objects.filter(black=players["carol"], winner="B").count() == 1
    assert Game.objects.count() == 2


def test_the_log_page_updates_itself_once_a_correction_is_recomputed(
    live_server, browser_page, players, monkeypatch
):
    alice, bob = players["alice"], players["bob"]
    vera = factories.volunteer_with_password("vera", PASSWORD)
    result = record_sheet_submit(
        user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 1))]
    )  # rated at once (tasks run in-process)
    game = result.games[0]
    # The correction is saved; its recompute waits for the worker.
    with monkeypatch.context() as patched:
        patched.setattr(dirty, "queue_recompute", lambda algorithm: None)
        game_correct(
            user=vera,
            game_id=game.pk,
            version=game.version,
            changes=factories.game(alice, bob, "B", game.date),  # Black won, not White
        )
    page = browser_page
    page.goto(f"{live_server.url}/players/alice/")
    expect(page.locator("#recompute-notice")).to_contain_text("This page updates itself")
    value_before = page.locator("#player-value").inner_text()

    recompute_pending()  # the worker's run

    expect(page.locator("#recompute-notice")).to_have_count(0, timeout=15_000)
    assert page.locator("#player-value").inner_text() != value_before


def test_a_page_waiting_for_a_recompute_does_not_reload_under_someone_typing(
    live_server, browser_page, players
):
    record_sheet_submit(
        user=factories.volunteer_with_password("vera", PASSWORD),
        games=[factories.game(players["alice"], players["bob"], "W", date(2024, 3, 1))],
    )
    RecomputeState.objects.filter(algorithm="sagc").update(dirty_from=date(2024, 3, 1))
    page = browser_page
    page.goto(f"{live_server.url}/")
    expect(page.locator("#recompute-notice")).to_be_visible()

    page.locator("#id_search").press_sequentially("Car", delay=100)
    page.wait_for_timeout(7_000)  # past the 5 s of the notice's reload

    expect(page.locator("#id_search")).to_have_value("Car")


def test_the_new_player_dialog_offers_add_them_anyway_only_with_similar_names(
    live_server, browser_page, players
):
    page = browser_page
    log_in(page, live_server.url)
    page.goto(f"{live_server.url}/sheets/new/")
    page.get_by_role("button", name="New player…").click()
    dialog = page.locator("#new-player")
    expect(dialog).to_be_visible()
    anyway = dialog.locator("#id_someone_else")
    expect(anyway).to_be_hidden()
    # Typed once the dialog is shown (it focuses the empty username then), as a
    # volunteer types: filled while it faded in, under load a field came back empty.
    expect(dialog.locator("#id_username")).to_be_focused()

    dialog.locator("#id_username").fill("bobby")
    dialog.locator("#id_full_name").fill("Bob Smit")  # bob is on file
    dialog.locator("#id_national_rank").fill("20k")
    dialog.locator("text=Add the player").click()
    expect(dialog.locator(".invalid-feedback")).to_contain_text("similar names on file: bob")
    expect(anyway).to_be_visible()
    anyway.check()
    dialog.locator("text=Add the player").click()

    expect(dialog).to_be_hidden()
    assert Player.objects.get(username="bobby").full_name == "Bob Smit"
