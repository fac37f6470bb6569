"""/games/: every valid game, searched by player, opponent, dates, tournament, status
and handicap, paged by key with a capped count, and the same games as the SPEC's CSV."""

import csv
import io
import re
from datetime import date

import pytest

from players.selectors.games_search import COUNT_CAP
from players.services.games import game_void, record_sheet_submit
from ratings.engine.ranks import parse_rank
from ratings.engine.records import COLUMNS
from tests import factories

pytestmark = pytest.mark.django_db


def enter(vera, *games):
    return record_sheet_submit(user=vera, games=list(games), allow_duplicates=True).games


@pytest.fixture
def club_games(vera):
    ann = factories.player("ann", "5k")
    ben = factories.player("ben", "8k")
    cat = factories.player("cat", "12k")
    open_ = factories.tournament("club-open", "Club Open")
    games = enter(
        vera,
        factories.game(ann, ben, "W", date(2024, 1, 10), handicap=3, komi=0.5),
        factories.game(ben, cat, "B", date(2024, 2, 7), handicap=4, komi=0.5, status="free"),
        factories.game(cat, ann, "D", date(2024, 3, 6), komi=7, tournament=open_),
        factories.game(ann, ben, "B", date(2024, 4, 3), handicap=3, komi=0.5),
    )
    game_void(user=vera, game_id=games[3].pk, version=games[3].version, reason="twice")
    return games


def found_dates(client, query: str = "") -> list[str]:
    html = client.get(f"/games/{query}").content.decode()
    table = html[html.index('id="games"') :]
    body = table[table.index("<tbody") : table.index("</table>")]
    return re.findall(r"<td[^>]*>(\d{4}-\d\d-\d\d)</td>", body)


def test_it_lists_every_valid_game_newest_first_for_everyone(client, club_games):
    assert found_dates(client) == ["2024-03-06", "2024-02-07", "2024-01-10"]


@pytest.mark.parametrize(
    ("query", "dates"),
    [
        ("?player=ann", ["2024-03-06", "2024-01-10"]),
        ("?player=ann&opponent=ben", ["2024-01-10"]),
        ("?opponent=cat", ["2024-03-06", "2024-02-07"]),
        ("?since=2024-02-01&until=2024-02-29", ["2024-02-07"]),
        ("?tournament=club-open", ["2024-03-06"]),
        ("?status=free", ["2024-02-07"]),
        ("?handicap=3", ["2024-01-10"]),
        ("?handicap=0&player=cat", ["2024-03-06"]),
    ],
)
def test_each_filter_selects_its_games(client, club_games, query, dates):
    assert found_dates(client, query) == dates


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("?player=nobody", "no player &#x27;nobody&#x27;"),
        ("?since=2024-02-30", "&#x27;2024-02-30&#x27; is not a date (day 30, month 2)"),
        ("?since=99999-01-01", "&#x27;99999-01-01&#x27; is not a date (e.g. 2026-11-02"),
        ("?since=2024-03-01&until=2024-01-01", "is before the &#x27;From&#x27; date"),
        ("?handicap=12", "less than or equal to 9"),
        ("?handicap=-5", "greater than or equal to 0"),
        ("?status=won", "Select a valid choice"),
        ("?tournament=nope", "Select a valid choice"),
    ],
)
def test_a_bad_filter_is_a_message_at_its_field_and_lists_no_game_and_no_csv(
    client, club_games, query, message
):
    response = client.get(f"/games/{query}")

    assert response.status_code == 200
    html = response.content.decode()
    assert message in html
    assert found_dates(client, query) == []
    assert "No games listed: correct the " in html.split('id="games"')[1]
    assert "games</p>" not in html and 'id="csv-download"' not in html


def test_the_table_names_every_wrong_filter(client, club_games):
    html = client.get("/games/?player=Hui+Fan&status=bogus&handicap=3").content.decode()

    assert "No games listed: correct the Player, Status filters above." in html
    assert found_dates(client, "?player=Hui+Fan&status=bogus&handicap=3") == []


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("?player=nobody", "player: no player 'nobody'"),
        ("?status=bogus", "status: Select a valid choice"),
        ("?handicap=-5", "handicap: Ensure this value is greater than or equal to 0"),
    ],
)
def test_the_csv_of_a_bad_filter_is_a_400_saying_why_not_every_game(
    client, club_games, query, reason
):
    response = client.get(f"/games.csv{query}")

    assert response.status_code == 400
    assert reason in response.content.decode()


@pytest.mark.parametrize("typed", ["ann", "Ann Smith", "smith ann", "SMITH, Ann", "12345678"])
def test_a_player_is_found_by_username_name_in_either_order_or_egd_pin(client, club_games, typed):
    from players.models import Player

    Player.objects.filter(username="ann").update(full_name="Ann Smith", egd_pin="12345678")

    assert found_dates(client, f"?player={typed}") == ["2024-03-06", "2024-01-10"]
    assert found_dates(client, f"?player=ben&opponent={typed}") == ["2024-01-10"]


def test_a_name_several_players_share_is_a_message_naming_them(client, club_games):
    from players.models import Player

    Player.objects.filter(username__in=["ann", "ben"]).update(full_name="Lee Kim")

    html = client.get("/games/?player=Kim+Lee").content.decode()

    assert "fits 2 players: ann (Lee Kim), ben (Lee Kim); type the username" in html
    assert found_dates(client, "?player=Kim+Lee") == []


def test_a_small_search_has_numbered_pages_and_an_exact_count(client, vera):
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "8k")
    enter(vera, *[factories.game(ann, ben, "W", date(2024, 1, 1 + n % 28)) for n in range(60)])

    html = client.get("/games/").content.decode()

    assert len(re.findall(r"<tr data-game=", html)) == 50
    assert '<p class="mb-0" id="games-count">60 games</p>' in html
    assert page_links(html) == [("First", None), ("Newer", None), ("1", None), ("2", "?page=2"),
                                ("Older", "?page=2"), ("Last", "?page=2")]  # fmt: skip
    second = client.get("/games/?page=2").content.decode()
    assert len(found_dates(client, "?page=2")) == 10
    assert page_links(second)[:2] == [("First", "/games/"), ("Newer", "/games/")]


def page_links(html: str) -> list[tuple[str, str | None]]:
    """(label, href or None) of each link under the games; a query alone for the
    search's own address."""
    nav = html[
        html.index('id="games-pages"') : html.index("</nav>", html.index('id="games-pages"'))
    ]
    links = []
    for item in re.findall(r"<li class=\"page-item[^\"]*\">(.*?)</li>", nav, re.S):
        href = re.search(r'href="([^"]*)"', item)
        label = re.search(r">([^<]+)</(?:a|span)>", item)[1]
        url = href[1].replace("&amp;", "&") if href else None
        links.append((label, url.removeprefix("/games/") or "/games/" if url else None))
    return links


@pytest.fixture
def many_games(vera, monkeypatch):
    """130 games, several a day in several rounds, and a search past the numbered
    pages' size (two pages numbered at most)."""
    from players.public import games_pages

    monkeypatch.setattr(games_pages, "NUMBERED_PAGES", 2)
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "8k")
    return enter(
        vera,
        *[factories.game(ann, ben, "W", date(2024, 1, 1 + n % 9), round=n % 3) for n in range(130)],
    )


def walk(client, url: str, label: str) -> list[list[int]]:
    """The games' ids of each page from ``url``, following ``label`` to the end."""
    pages = []
    while url:
        html = client.get(url).content.decode()
        pages.append([int(n) for n in re.findall(r'data-game="(\d+)"', html)])
        url = dict(page_links(html)).get(label)
        url = url and ("/games/" + url if url.startswith("?") else url)
    return pages


def newest_first(games) -> list[int]:
    return [g.pk for g in sorted(games, key=lambda g: (g.date, g.round, g.seq), reverse=True)]


def test_a_big_search_pages_by_key_older_to_the_end_and_newer_back(client, many_games):
    html = client.get("/games/").content.decode()
    assert '<p class="mb-0" id="games-count">130 games</p>' in html
    assert [label for label, _url in page_links(html)] == ["First", "Newer", "Older", "Last"]

    older = walk(client, "/games/", "Older")
    assert [len(page) for page in older] == [50, 50, 30]
    assert [pk for page in older for pk in page] == newest_first(many_games)
    newer = walk(client, "/games/?page=last", "Newer")
    assert [len(page) for page in newer] == [50, 50, 30]
    assert [pk for page in reversed(newer) for pk in page] == newest_first(many_games)


def test_the_last_page_is_the_oldest_games_and_first_and_last_say_where_you_are(client, many_games):
    last = client.get("/games/?page=last").content.decode()
    first = client.get("/games/").content.decode()

    ids = [int(n) for n in re.findall(r'data-game="(\d+)"', last)]
    assert ids == newest_first(many_games)[-50:]
    assert dict(page_links(last))["Older"] is None and dict(page_links(last))["Last"] is None
    assert dict(page_links(first))["Newer"] is None and dict(page_links(first))["First"] is None


def test_every_page_by_key_costs_what_the_first_costs(
    client, many_games, django_assert_max_num_queries
):
    deepest = walk(client, "/games/", "Older")[-1]
    key = next(g for g in many_games if g.pk == newest_first(many_games)[-31])

    with django_assert_max_num_queries(4) as queries:
        html = client.get(f"/games/?before={key.date}.{key.round}.{key.seq}").content.decode()

    assert [int(n) for n in re.findall(r'data-game="(\d+)"', html)] == deepest
    sql = " ".join(query["sql"].upper() for query in queries.captured_queries)
    assert " OFFSET " not in sql
    assert sql.count("COUNT(") == 1 and f"LIMIT {COUNT_CAP + 1}" in sql.replace('"', "")


def test_old_page_numbers_still_show_their_games_and_past_the_end_the_last(client, many_games):
    second = client.get("/games/?page=2").content.decode()
    past = client.get("/games/?page=9")

    assert [int(n) for n in re.findall(r'data-game="(\d+)"', second)] == newest_first(many_games)[
        50:100
    ]
    assert past.status_code == 302 and past["Location"] == "/games/?page=last"


@pytest.mark.parametrize(
    ("key", "to"),
    [
        ("after=9999-12-31.0.0", "/games/?player=ann"),
        ("before=0001-01-01.0.0", "/games/?player=ann&page=last"),
    ],
)
def test_a_key_past_either_end_goes_to_the_page_at_that_end(client, many_games, key, to):
    response = client.get(f"/games/?player=ann&{key}")

    assert response.status_code == 302 and response["Location"] == to


def test_a_stale_key_past_the_end_never_shows_a_count_above_an_empty_page(
    client, many_games, monkeypatch
):
    from players.selectors import games_search

    monkeypatch.setattr(games_search, "COUNT_CAP", 100)

    html = client.get("/games/?before=0001-01-01.0.0", follow=True).content.decode()

    assert "More than 100 games" in html  # the last page, with its games
    assert [int(n) for n in re.findall(r'data-game="(\d+)"', html)] == newest_first(many_games)[
        -50:
    ]
    assert "No game matches these filters." not in html


@pytest.mark.parametrize(
    ("query", "rows"),
    [
        ("?per_page=100&page=2", slice(100, 130)),
        ("?per_page=20&page=3", slice(40, 60)),
        ("?per_page=100", slice(0, 100)),
        ("?per_page=0", slice(0, 50)),  # below 1 or not a number: the default
        ("?per_page=x", slice(0, 50)),
        ("?per_page=100000", slice(0, 130)),  # at most MAX_PER_PAGE
    ],
)
def test_an_old_per_page_link_shows_that_many_games_per_page(client, many_games, query, rows):
    html = client.get(f"/games/{query}").content.decode()

    assert [int(n) for n in re.findall(r'data-game="(\d+)"', html)] == newest_first(many_games)[
        rows
    ]


def test_pages_by_key_keep_the_per_page_of_the_link(client, many_games):
    older = walk(client, "/games/?per_page=40", "Older")
    newer = walk(client, "/games/?per_page=40&page=last", "Newer")

    assert [len(page) for page in older] == [40, 40, 40, 10]
    assert [pk for page in older for pk in page] == newest_first(many_games)
    assert [len(page) for page in newer] == [40, 40, 40, 10]


def test_the_count_stops_at_the_cap_and_says_so(client, many_games, monkeypatch):
    from players.selectors import games_search

    monkeypatch.setattr(games_search, "COUNT_CAP", 100)

    html = client.get("/games/").content.decode()

    assert '<p class="mb-0" id="games-count">More than 100 games</p>' in html
    assert [label for label, _url in page_links(html)] == ["First", "Newer", "Older", "Last"]


def test_a_players_games_are_counted_exactly_past_the_cap(client, many_games, monkeypatch):
    from players.selectors import games_search

    monkeypatch.setattr(games_search, "COUNT_CAP", 100)

    html = client.get("/games/?player=ben").content.decode()

    assert '<p class="mb-0" id="games-count">130 games</p>' in html


@pytest.mark.parametrize(
    "query",
    [
        "before=2024-01-05",
        "after=x",
        "before=2024-13-01.0.1",
        "before=2024-01-01.0.1&after=2024-01-02.0.1",
    ],
)
def test_a_page_link_that_is_no_key_goes_to_the_newest_games_with_a_message(
    client, many_games, query
):
    response = client.get(f"/games/?player=ann&{query}", follow=True)

    assert response.redirect_chain == [("/games/?player=ann", 302)]
    assert "That page of games does not exist: here are the newest." in response.content.decode()


def test_a_key_wins_over_a_page_number_given_with_it(client, many_games):
    key = next(g for g in many_games if g.pk == newest_first(many_games)[49])

    html = client.get(f"/games/?page=3&before={key.date}.{key.round}.{key.seq}").content.decode()

    assert [int(n) for n in re.findall(r'data-game="(\d+)"', html)] == newest_first(many_games)[
        50:100
    ]


def test_the_page_links_keep_the_search(client, many_games):
    html = client.get("/games/?player=ann&handicap=0").content.decode()

    older = dict(page_links(html))["Older"]
    assert older.startswith("?player=ann&handicap=0&before=2024-01-")


def test_the_csv_has_the_searched_games_in_the_spec_columns(client, club_games):
    response = client.get("/games.csv?player=ann")

    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0] == list(COLUMNS)
    assert [(row[0], row[1], row[2]) for row in rows[1:]] == [
        ("2024-01-10", "ann", "ben"),
        ("2024-03-06", "cat", "ann"),
    ]


def test_every_row_of_a_searched_csv_carries_the_ranks_declared_on_its_game(client, vera):
    ann, ben, cat = (
        factories.player(n, r) for n, r in (("ann", "5k"), ("ben", "8k"), ("cat", "9k"))
    )
    enter(
        vera,
        factories.game(ann, cat, "W", date(2024, 1, 3), white_rank=parse_rank("6k")),
        factories.game(ann, ben, "W", date(2024, 2, 7), white_rank=parse_rank("5k"),
                       black_rank=parse_rank("8k")),
        factories.game(ben, ann, "B", date(2024, 3, 6), white_rank=parse_rank("7k"),
                       black_rank=parse_rank("4k")),
        factories.game(ben, ann, "W", date(2024, 4, 3)),
    )  # fmt: skip

    response = client.get("/games.csv?player=ann&opponent=ben")

    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    ranks = [(r["date"], r["white"], r["white_rank"], r["black"], r["black_rank"]) for r in rows]
    assert ranks == [
        ("2024-02-07", "ann", "5k", "ben", "8k"),
        ("2024-03-06", "ben", "7k", "ann", "4k"),
        ("2024-04-03", "ben", "", "ann", ""),  # declared none: nothing to carry
    ]  # fmt: skip


def test_the_csv_link_keeps_the_search(client, club_games):
    html = client.get("/games/?player=ann&handicap=3").content.decode()

    assert 'href="/games.csv?player=ann&amp;handicap=3"' in html


@pytest.mark.parametrize("page", ["999999999999999999999999999999", "9999", "0", "x"])
def test_a_page_number_past_the_games_or_not_a_number_is_no_error(client, club_games, page):
    response = client.get(f"/games/?page={page}", follow=True)

    assert response.status_code == 200
    assert found_dates(client) == ["2024-03-06", "2024-02-07", "2024-01-10"]


@pytest.mark.parametrize(("since", "until"), [("1 Feb 2024", "29/2/2024"), ("1/2/24", "29 feb 24")])
def test_the_dates_are_typed_as_on_the_record_sheet(client, club_games, since, until):
    assert found_dates(client, f"?since={since}&until={until}") == ["2024-02-07"]
