"""The games search in Chromium as a visitor uses it: a filter, then First, Older,
Newer and Last by key (no game seen twice, the filter kept), and the CSV download of
the filtered search (all its games, not one page)."""

import csv
import re
from datetime import date

import pytest

from players.services.games import record_sheet_submit
from tests import factories

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def shown_ids(page) -> list[int]:
    rows = page.locator("#games tbody tr[data-game]")
    return [int(n) for n in rows.evaluate_all("rows => rows.map(row => row.dataset.game)")]


def follow(page, link) -> None:
    """Click a link and wait for the page it opens to load: reading the rows
    straight after the click could read the old page, or none mid-load."""
    with page.expect_navigation():
        link.click()


def test_a_visitor_pages_a_filtered_search_by_key_and_downloads_it(
    live_server, browser_page, vera, monkeypatch
):
    from players.public import games_pages

    monkeypatch.setattr(games_pages, "NUMBERED_PAGES", 1)  # 120 games: pages by key
    ann, ben, cat = (factories.player(name, "5k") for name in ("ann", "ben", "cat"))
    games = [
        factories.game(ann, ben, "W", date(2024, 1, 1 + n % 20), round=n % 2) for n in range(120)
    ]
    games += [factories.game(ben, cat, "B", date(2024, 1, 5))]  # not Ann's
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    page = browser_page
    nav = page.locator("#games-pages")

    page.goto(f"{live_server.url}/games/")
    page.fill("#id_player", "ann")
    follow(page, page.locator("#filters").get_by_role("button", name="Search"))
    first = shown_ids(page)
    seen = list(first)
    while nav.get_by_role("link", name="Older").count():
        follow(page, nav.get_by_role("link", name="Older"))
        assert "player=ann" in page.url
        seen += shown_ids(page)
    assert len(seen) == len(set(seen)) == 120
    assert page.locator("#games-count").inner_text() == "120 games"
    last_page = shown_ids(page)
    follow(page, nav.get_by_role("link", name="Newer"))
    assert shown_ids(page) == seen[50:100]
    follow(page, nav.get_by_role("link", name="Last"))
    assert shown_ids(page) == seen[-50:] and re.search(r"[?&]page=last", page.url)
    assert set(last_page) <= set(seen[-50:])
    follow(page, nav.get_by_role("link", name="First"))
    assert shown_ids(page) == first

    with page.expect_download() as download:
        page.locator("#csv-download").click()
    with open(download.value.path(), encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == 120 and all("ann" in (row["white"], row["black"]) for row in rows)
