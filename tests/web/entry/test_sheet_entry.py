"""/sheets/new/, /sheets/<id>/, /sheets/ and the player lookup: a whole paper record sheet
at once, all or nothing."""

import re
from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from players.models import Game, RecordSheet, Tournament
from players.services.games import record_sheet_submit
from ratings.engine.ranks import parse_rank
from ratings.models import CurrentRating, RecomputeState
from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]
today = timezone.localdate

ROW_DEFAULTS = {
    "date": "2024-03-01",
    "white": "",
    "black": "",
    "handicap": "0",
    "komi": "6.5",
    "winner": "",
    "status": "normal",
    "comment": "",
    "tournament": "",
    "round": "0",
    "board_size": "19",
    "time_minutes": "",
}


def sheet_post(*rows: dict, blank_rows: int = 0, **sheet) -> dict:
    """The POST data of the sheet form: the given rows, then untouched rows."""
    rows = [*rows, *([{}] * blank_rows)]
    data = {
        "form-TOTAL_FORMS": str(len(rows)),
        "form-INITIAL_FORMS": "0",
        "form-MIN_NUM_FORMS": "0",
        "form-MAX_NUM_FORMS": "200",
        "sheet-received_on": sheet.pop("received_on", "2024-03-02"),
        "sheet-note": sheet.pop("note", ""),
    }
    data.update({f"sheet-{name}": value for name, value in sheet.items()})
    for index, row in enumerate(rows):
        # An untouched row comes back as rendered: today's date and the defaults.
        values = {**ROW_DEFAULTS, **row} if row else {**ROW_DEFAULTS, "date": str(today())}
        data.update({f"form-{index}-{name}": value for name, value in values.items()})
    return data


def field_block(html: str, field_id: str) -> str:
    """The markup crispy renders for one field (its input, help and errors)."""
    match = re.search(rf'<div id="div_{field_id}".*?</div>\s*</div>', html, re.S)
    assert match, f"no field {field_id}"
    return match.group(0)


@pytest.fixture
def alice():
    return factories.player("alice", "5k", full_name="Alice Moyo")


@pytest.fixture
def bob():
    return factories.player("bob", "8k", full_name="Bob Smit")


def test_it_offers_three_rows_with_todays_date_and_even_komi(client, vera):
    response = client.get("/sheets/new/")

    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="form-TOTAL_FORMS" value="3"' in html
    today = timezone.localdate().isoformat()
    assert re.search(rf'name="form-0-date" value="{today}"', html)
    assert re.search(r'name="form-2-komi" value="6.5"', html)
    assert re.search(
        r'<select name="form-0-status"[^>]*>.*?<option value="normal" selected>', html, re.S
    )
    assert re.search(r'name="form-0-white"[^>]*list="player-options"', html)
    assert '<datalist id="player-options">' in html
    assert '<template id="empty-row">' in html and "form-__prefix__-white" in html
    assert 'data-lookup-url="/players/lookup/"' in html
    assert "js/sheet.js" in html


def test_it_stores_the_sheet_and_shows_it_with_each_games_recompute_status(
    client, vera, alice, bob, django_capture_on_commit_callbacks
):
    # The recompute is queued on commit, and tasks run in-process: it runs right away.
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/sheets/new/",
            sheet_post(
                {"white": "alice", "black": "bob", "winner": "W"},
                {
                    "date": "2024-03-08",
                    "white": "bob",
                    "black": "alice",
                    "winner": "B",
                    "handicap": "3",
                    "komi": "",
                },
                blank_rows=2,
                note="Tuesday evening",
            ),
        )

    sheet = RecordSheet.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/sheets/{sheet.pk}/"
    assert sheet.entered_by == vera
    assert sheet.received_on == date(2024, 3, 2)
    assert sheet.note == "Tuesday evening"
    games = list(sheet.games.order_by("seq"))
    assert [(g.white.username, g.black.username, g.winner) for g in games] == [
        ("alice", "bob", "W"),
        ("bob", "alice", "B"),
    ]
    assert games[1].komi == Decimal("0.5"), "an empty komi is the default for the handicap"
    assert games[0].komi == Decimal("6.5")

    page = client.get(response["Location"])
    html = page.content.decode()
    assert f"Sheet {sheet.pk} saved: 2 games." in html
    assert f'href="/games/{games[0].pk}/"' in html
    assert html.count('data-algorithm="sagc" data-status="done"') == 2
    assert "pending" not in html and "running" not in html
    assert 'id="recompute-done"' in html


def test_it_stores_nothing_when_one_row_names_an_unknown_player(client, vera, alice, bob):
    response = client.post(
        "/sheets/new/",
        sheet_post(
            {"white": "alice", "black": "bob", "winner": "W", "comment": "first"},
            {"white": "alcie", "black": "bob", "winner": "B"},
        ),
    )

    assert response.status_code == 200
    assert Game.objects.count() == 0
    assert RecordSheet.objects.count() == 0
    html = response.content.decode()
    block = field_block(html, "id_form-1-white")
    assert "no player &#x27;alcie&#x27; — did you mean alice" in block
    assert "If not, add them first" in block
    assert "is-invalid" in block
    assert 'data-new-player-for="id_form-1-white"' in html
    assert "The sheet has 1 problem" in html and "Nothing was stored." in html
    # What was typed is still there.
    assert 'name="form-0-comment" value="first"' in html
    assert 'name="form-1-white" value="alcie"' in html
    assert "no player" not in field_block(html, "id_form-0-white")


def test_it_puts_the_services_errors_on_their_row_and_field(client, vera, alice, bob):
    tomorrow = (timezone.localdate() + timedelta(days=1)).isoformat()

    response = client.post(
        "/sheets/new/",
        sheet_post(
            {"white": "alice", "black": "bob", "winner": "W"},
            {"white": "bob", "black": "bob", "winner": "W"},
            {"date": tomorrow, "white": "alice", "black": "bob", "winner": "B"},
        ),
    )

    assert response.status_code == 200
    assert Game.objects.count() == 0
    html = response.content.decode()
    assert "a player cannot play themselves" in field_block(html, "id_form-1-black")
    assert f"{tomorrow} is in the future" in field_block(html, "id_form-2-date")


def test_it_numbers_service_errors_by_the_filled_rows_only(client, vera, alice, bob):
    response = client.post(
        "/sheets/new/",
        sheet_post(
            {},
            {"white": "alice", "black": "alice", "winner": "W"},
        ),
    )

    html = response.content.decode()
    assert "a player cannot play themselves" in field_block(html, "id_form-1-black")


def test_it_shows_each_bad_field_at_the_field(client, vera, alice, bob):
    response = client.post(
        "/sheets/new/",
        sheet_post(
            {
                "white": "alice",
                "black": "",
                "winner": "",
                "handicap": "12",
                "komi": "6.3",
                "board_size": "17",
                "time_minutes": "0",
                "tournament": "nope",
            },
        ),
    )

    html = response.content.decode()
    assert "This field is required." in field_block(html, "id_form-0-black")
    assert "This field is required." in field_block(html, "id_form-0-winner")
    assert "less than or equal to 9" in field_block(html, "id_form-0-handicap")
    assert "6.3 is not a komi" in field_block(html, "id_form-0-komi")
    assert "17 is not one of the available choices" in field_block(html, "id_form-0-board_size")
    assert "greater than or equal to 1" in field_block(html, "id_form-0-time_minutes")
    assert "no tournament with the code &#x27;nope&#x27;" in field_block(
        html, "id_form-0-tournament"
    )
    # A row with errors in its "more" fields shows them unfolded.
    assert re.search(r'class="row g-1 collapse show sheet-more" id="more-form-0"', html)
    assert Game.objects.count() == 0


def test_it_refuses_a_sheet_without_games(client, vera):
    response = client.post("/sheets/new/", sheet_post(blank_rows=3))

    assert response.status_code == 200
    assert "Enter at least one game." in response.content.decode()
    assert RecordSheet.objects.count() == 0


def test_it_keeps_a_komi_typed_by_hand_and_the_more_fields(client, vera, alice, bob):
    Tournament.objects.create(code="spring", name="Spring Open")
    client.post(
        "/sheets/new/",
        sheet_post(
            {
                "white": "alice",
                "black": "bob",
                "winner": "D",
                "handicap": "2",
                "komi": "-3",
                "status": "tournament",
                "tournament": "spring",
                "round": "2",
                "board_size": "13",
                "time_minutes": "45",
            },
        ),
    )

    game = Game.objects.get()
    assert (game.handicap, game.komi, game.winner) == (2, Decimal("-3"), "D")
    assert (game.status, game.tournament.code, game.round) == ("tournament", "spring", 2)
    assert (game.board_size, game.time_minutes) == (13, 45)


def test_it_finds_players_whatever_the_case_of_the_username(client, vera, alice, bob):
    client.post("/sheets/new/", sheet_post({"white": " Alice", "black": "BOB ", "winner": "W"}))

    game = Game.objects.get()
    assert (game.white, game.black) == (alice, bob)


def test_it_warns_of_a_duplicate_and_stores_it_once_confirmed(client, vera, alice, bob):
    record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 1))])
    row = {"white": "alice", "black": "bob", "winner": "W"}

    warned = client.post("/sheets/new/", sheet_post(row))

    assert warned.status_code == 200
    html = warned.content.decode()
    assert 'id="duplicate-warning"' in html
    assert "is already on file as game" in html
    assert "I have checked these games: save anyway" in html
    assert Game.objects.count() == 1
    fingerprint = re.search(r'name="sheet-duplicates_seen" value="(\w+)"', html).group(1)

    saved = client.post(
        "/sheets/new/",
        sheet_post(row, save_duplicates="on", duplicates_seen=fingerprint),
    )

    assert saved.status_code == 302
    assert Game.objects.count() == 2


def test_it_asks_again_when_the_duplicates_are_not_the_ones_confirmed(client, vera, alice, bob):
    record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 1))])
    row = {"white": "alice", "black": "bob", "winner": "W"}

    response = client.post(
        "/sheets/new/",
        sheet_post(row, row, save_duplicates="on", duplicates_seen="0123456789abcdef"),
    )

    assert response.status_code == 200
    assert "game 2 is the same as game 1" in response.content.decode()
    assert Game.objects.count() == 1


def test_it_shows_the_services_warnings_after_saving(client, vera, bob):
    club = factories.club("New Club", founded=date(2024, 6, 1))
    carol = factories.player("carol", "3k", club=club)

    response = client.post(
        "/sheets/new/",
        sheet_post({"white": "carol", "black": "bob", "winner": "W"}),
        follow=True,
    )

    html = response.content.decode()
    assert "alert-warning" in html
    assert "game 1: 2024-03-01 is before New Club was founded (2024-06-01)" in html
    assert Game.objects.get().white == carol


def test_it_shows_a_game_as_pending_until_its_algorithm_has_replayed_its_date(
    client, vera, alice, bob
):
    result = record_sheet_submit(
        user=vera,
        games=[
            factories.game(alice, bob, "W", date(2024, 3, 1)),
            factories.game(alice, bob, "B", date(2024, 3, 8)),
        ],
    )
    # As if every algorithm had caught up, and then a game of 5 March was entered for SAGC.
    RecomputeState.objects.update(dirty_from=None)
    RecomputeState.objects.filter(algorithm="sagc").update(dirty_from=date(2024, 3, 5))

    html = client.get(f"/sheets/{result.sheet.pk}/").content.decode()

    rows = re.findall(r"<tr [^>]*data-game=.*?</tr>", html, re.S)
    assert 'data-algorithm="sagc" data-status="done"' in rows[0]
    assert 'data-algorithm="sagc" data-status="pending"' in rows[1]
    assert 'data-algorithm="anchor" data-status="done"' in rows[1]
    assert 'data-auto-refresh="5"' in html
    assert "js/auto-refresh.js" in html

    RecomputeState.objects.filter(algorithm="sagc").update(running_since=timezone.now())
    html = client.get(f"/sheets/{result.sheet.pk}/").content.decode()
    assert html.count('data-algorithm="sagc" data-status="running"') == 2

    # Marked running by a process that stopped answering hours ago: it runs again later.
    RecomputeState.objects.filter(algorithm="sagc").update(
        running_since=timezone.now() - timedelta(hours=6), running_on="dead-host:4242"
    )
    html = client.get(f"/sheets/{result.sheet.pk}/").content.decode()
    assert 'data-status="running"' not in html
    assert 'data-algorithm="sagc" data-status="pending"' in html


def test_it_shows_a_sheet_with_a_bounded_number_of_queries(
    client, vera, alice, bob, django_assert_max_num_queries
):
    games = [factories.game(alice, bob, "W", date(2024, 1, day)) for day in range(1, 31)]
    result = record_sheet_submit(user=vera, games=games)

    with django_assert_max_num_queries(8):
        response = client.get(f"/sheets/{result.sheet.pk}/")

    assert response.content.decode().count("data-game=") == 30


def test_it_lists_recent_sheets_newest_first(client, vera, alice, bob):
    first = record_sheet_submit(
        user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 1))], note="first"
    )
    second = record_sheet_submit(
        user=vera,
        games=[factories.game(alice, bob, "B", date(2024, 3, 2)), factories.game(bob, alice, "W")],
        note="second",
    )

    html = client.get("/sheets/").content.decode()

    assert html.index(f'href="/sheets/{second.sheet.pk}/"') < html.index(
        f'href="/sheets/{first.sheet.pk}/"'
    )
    assert "second" in html


def test_it_suggests_up_to_twenty_players_by_username_or_name(client, vera, alice):
    for number in range(25):
        factories.player(f"al{number:02}", "10k")
    factories.player("zed", "10k", full_name="Zed Alison")

    by_username = client.get("/players/lookup/", {"q": "al"}).json()["players"]
    by_name = client.get("/players/lookup/", {"q": "moyo"}).json()["players"]

    assert len(by_username) == 20
    assert by_username[0] == {"username": "al00", "full_name": "Al00", "rank": "10k"}
    assert by_name == [{"username": "alice", "full_name": "Alice Moyo", "rank": "5k"}]
    assert client.get("/players/lookup/", {"q": " "}).json() == {"players": []}


def test_suggestions_show_the_club_rank_not_the_entry_rank(client, vera, alice):
    # alice entered at 5k; the club's list (SAGC) has her at 3k now
    CurrentRating.objects.create(
        algorithm="sagc", player=alice, rank=parse_rank("3k"), value=120, games=12
    )
    factories.player("alan", "12k", full_name="Alan Unrated")

    found = client.get("/players/lookup/", {"q": "al"}).json()["players"]

    assert [(player["username"], player["rank"]) for player in found] == [
        ("alan", "12k"),  # not rated yet: the rank they entered with
        ("alice", "3k"),
    ]
