"""Pages that read well at a phone's width (390 px) and a laptop's (1366 px): the log page's
record sheet stacks its rows with every column labelled, nothing scrolls sideways, the
algorithm tabs show that more are hidden, and the navigation stays on one line.
Screenshots go to test-output/."""

from datetime import date, timedelta

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from players.services.accounts import Role, account_create
from players.services.games import game_void, record_sheet_submit
from players.services.reports import report_create
from ratings.engine.formats.opengotha import read_opengotha
from tests import factories
from tests.conftest import TEST_OUTPUT
from tests.players.test_tournament_round_trip import EGC2013_XML, import_text
from tests.web.browser_session import sign_in_browser

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("role_groups"),
]


PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 800}


def sideways_overflow(page) -> int:
    return page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")


def test_on_a_phone_the_log_page_shows_all_twelve_columns_without_scrolling_sideways(
    live_server, browser_page, vera
):
    ann = factories.player("ann", "12k", full_name="Ann Smit")
    ben = factories.player("ben", "14k", full_name="Ben Botha")
    factories.play(
        vera,
        *(
            factories.game(
                ann,
                ben,
                "WB"[i % 2],
                date(2024, 1, 1) + timedelta(days=7 * i),
                comment="a long comment about the game that wraps on a narrow screen" * (i == 0),
            )
            for i in range(3)
        ),
    )
    page = browser_page
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/players/ben/")

    assert sideways_overflow(page) <= 0
    row = page.locator("#record-sheet tbody tr:not(.how-row)").first
    cells = row.locator("td")
    # the seed's twelve columns (test_player_log pins their names), each cell labelled
    headers = page.locator("#record-sheet thead th").all_text_contents()
    labels = cells.evaluate_all("cells => cells.map(cell => cell.dataset.label)")
    assert len(labels) == 12 and labels == [header.strip() for header in headers]
    for index, label in enumerate(labels):
        box = cells.nth(index).bounding_box()
        assert box is not None and box["width"] > 0 and box["height"] > 10, label
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], label
    # stacked: one cell a line, each led by its label
    assert cells.nth(1).bounding_box()["y"] > cells.nth(0).bounding_box()["y"]
    label = cells.nth(2).evaluate("cell => getComputedStyle(cell, '::before').content")
    assert label == '"Colour"'
    assert page.locator("#record-sheet thead").bounding_box()["height"] <= 1  # for screen readers

    tabs = page.locator("#algorithm-tabs")
    assert tabs.get_attribute("data-more") in ("end", "both")
    # The arrow fades in (a 0.15 s transition from the moment the script marks the strip):
    # read straight after the load it was seen at 0.11, 0.58, 0.97.
    page.wait_for_function(
        "() => getComputedStyle(document.querySelector('#algorithm-tabs'), '::after')"
        ".opacity === '1'"
    )
    page.screenshot(path=TEST_OUTPUT / "layout-log-page-phone.png", full_page=True)

    page.locator("#algorithm-tabs ul").evaluate("strip => strip.scrollTo(strip.scrollWidth, 0)")
    # A function, not an expression: Playwright polls an expression through eval(),
    # which the Content-Security-Policy refuses whenever the first poll is false.
    page.wait_for_function(
        "() => document.querySelector('#algorithm-tabs').dataset.more === 'start'"
    )

    page.set_viewport_size(LAPTOP)
    page.goto(f"{live_server.url}/players/ben/")
    assert page.locator("#record-sheet thead").bounding_box()["height"] > 10
    assert page.locator("#algorithm-tabs").get_attribute("data-more") is None
    page.screenshot(path=TEST_OUTPUT / "layout-log-page-laptop.png", full_page=True)


@pytest.mark.parametrize("who", ["committee", "superuser"])
def test_at_1366_px_the_committees_navigation_stays_on_one_line(live_server, browser_page, who):
    if who == "committee":
        account = factories.committee_member("connie-with-a-long-username")
    else:
        account = get_user_model().objects.create_superuser("root-with-a-long-username")
        account.groups.set(factories.committee_member("connie").groups.all())
    assert account.groups.count() == 2
    page = browser_page
    page.set_viewport_size(LAPTOP)
    sign_in_browser(page, account, live_server.url)
    page.goto(f"{live_server.url}/committee/recompute/")

    items = page.locator("#main-nav .nav-item")
    assert items.count() >= 9
    tops = items.evaluate_all(
        "items => items.map(item => Math.round(item.getBoundingClientRect().top))"
    )
    heights = page.locator("#main-nav .nav-link").evaluate_all(
        "links => links.map(link => Math.round(link.getBoundingClientRect().height))"
    )
    assert max(tops) - min(tops) <= 1, "every link on the first line"
    assert max(heights) == min(heights), "no label broken over two lines"
    assert page.locator("#main-nav").bounding_box()["height"] <= heights[0] + 1
    assert sideways_overflow(page) <= 0
    page.locator("#committee-menu").click()
    expect(page.get_by_role("link", name="Accounts")).to_be_visible()
    page.screenshot(path=TEST_OUTPUT / f"layout-navigation-{who}-1366.png")
    page.locator("#committee-menu").click()  # closed again
    # narrower screens get the collapsed menu (below 1200 px), never a sideways scroll
    for width in (1200, 1024, 768, 390):
        page.set_viewport_size({"width": width, "height": 800})
        assert sideways_overflow(page) <= 0, width
    page.set_viewport_size(LAPTOP)
    page.locator("#account-menu").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()


def test_on_a_phone_no_public_page_scrolls_sideways(live_server, browser_page, vera):
    ann = factories.player("ann", "12k", full_name="Ann Smit")
    ben = factories.player("ben", "14k", full_name="Ben Botha")
    factories.play(vera, factories.game(ann, ben, "W", date(2024, 3, 1)))
    page = browser_page
    page.set_viewport_size(PHONE)
    for path in ("/", "/players/ann/", "/tournaments/", "/clubs/", "/lab/", "/calculator/"):
        page.goto(live_server.url + path)
        assert sideways_overflow(page) <= 0, path


def test_a_word_longer_than_the_screen_in_user_text_breaks_instead_of_widening_pages(
    live_server, browser_page, vera, connie
):
    ann = factories.player("ann", "12k", full_name="Ann Smit")
    ben = factories.player("ben", "14k", full_name="Ben Botha")
    word = "x" * 1000  # the longest a report takes (a comment or reason: 500), no space
    kept, voided = record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", date(2024, 3, 1), comment=word[:500]),
            factories.game(ann, ben, "B", date(2024, 3, 2)),
        ],
    ).games
    game_void(user=vera, game_id=voided.pk, version=1, reason=word[:500])
    pat = account_create(
        user=connie, username="pat", password="x" * 12, role=Role.READER, player=ann
    )
    report = report_create(user=pat, player=ann, game_id=kept.pk, kind="other", text=word)
    page = browser_page
    sign_in_browser(page, connie, live_server.url)
    for size in (LAPTOP, PHONE):
        page.set_viewport_size(size)
        for path in (
            f"/reports/{report.pk}/",
            "/reports/",
            f"/games/{kept.pk}/",
            f"/games/{voided.pk}/",
            "/players/ann/",
        ):
            page.goto(live_server.url + path)
            assert sideways_overflow(page) <= 0, (size["width"], path)


def test_on_a_phone_the_head_to_head_page_shows_every_column_of_its_tables(
    live_server, browser_page, vera
):
    ann = factories.player("ann", "12k", full_name="Ann Smit")
    ben = factories.player("ben", "14k", full_name="Ben Botha")
    factories.play(
        vera,
        factories.game(ann, ben, "W", date(2024, 3, 1)),
        factories.game(ben, ann, "B", date(2024, 3, 8), handicap=2),
    )
    page = browser_page
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/players/ann/vs/ben/")

    assert sideways_overflow(page) <= 0
    last = page.locator("#head-to-head-score thead th").last
    assert last.bounding_box()["x"] + last.bounding_box()["width"] <= PHONE["width"]
    # the expected scores stack: each algorithm a block whose every value is on screen
    actual = page.locator("#head-to-head-expected tbody td[data-label='Actual']").first
    box = actual.bounding_box()
    assert box is not None and box["width"] > 0 and box["x"] + box["width"] <= PHONE["width"]
    assert actual.evaluate("cell => getComputedStyle(cell, '::before').content") == '"Actual"'
    page.screenshot(path=TEST_OUTPUT / "layout-head-to-head-phone.png", full_page=True)


def test_on_a_phone_the_club_night_sheet_stacks_its_tables_and_scrolls_only_the_games(
    live_server, browser_page
):
    club = factories.club("Durban Go Club")
    factories.player("thandi", "3k", club=club, full_name="Thandi Nkosi")
    page = browser_page
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/clubs/{club.pk}/sheet/")

    assert sideways_overflow(page) <= 0
    sheet = page.locator("#club-night-sheet").bounding_box()
    for table in ("#club-players", "#handicap-table"):
        box = page.locator(table).bounding_box()
        assert box["x"] + box["width"] <= sheet["x"] + sheet["width"], table
    players, handicaps = (
        page.locator(table).bounding_box() for table in ("#club-players", "#handicap-table")
    )
    assert handicaps["y"] >= players["y"] + players["height"], "one under the other"
    games = page.locator(".games-scroll")
    assert games.evaluate("box => box.scrollWidth > box.clientWidth"), "the games scroll"
    page.screenshot(path=TEST_OUTPUT / "layout-club-night-sheet-390.png", full_page=True)


@pytest.mark.skipif(
    not EGC2013_XML.is_file(),
    reason=f"{EGC2013_XML} not found: the real files stay in ../shared/data "
    "(set CLUBRATING_SHARED_DATA to read them elsewhere)",
)
def test_at_1366_px_egc_2013s_crosstable_fits_its_region(live_server, browser_page, settings):
    settings.RATINGS_ALGORITHMS = ["sagc", "egf-2021"]  # the page's default tab is EGF's
    import_text(EGC2013_XML.read_bytes(), read_opengotha, "egc2013.xml")
    page = browser_page
    page.set_viewport_size(LAPTOP)
    page.goto(f"{live_server.url}/tournaments/EGC2013/?algorithm=egf-2021")

    region = page.locator("#crosstable").locator("xpath=..")
    widths = region.evaluate("box => [box.scrollWidth, box.clientWidth]")
    assert widths[0] <= widths[1], "the last columns are past the edge of the region"
    assert sideways_overflow(page) <= 0
