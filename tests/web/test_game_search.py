"""/games/: every valid game, searched by player, opponent, dates, tournament, status
and handicap, paginated without counting, and the same games as the SPEC's CSV."""

import csv
import io
import re
from datetime import date

import pytest

from players.services.games import game_void, record_sheet_submit
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
        factories.game(cat, ann, "D", date(2024, 3, 6), komi=6.5, tournament=open_),
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
        ("?player=nobody", "No player has the username &#x27;nobody&#x27;."),
        ("?since=2024-02-30", "Enter the date as YYYY-MM-DD"),
        ("?since=2024-03-01&until=2024-01-01", "is before the &#x27;From&#x27; date"),
        ("?handicap=12", "less than or equal to 9"),
        ("?status=won", "Select a valid choice"),
        ("?tournament=nope", "Select a valid choice"),
    ],
)
def test_a_bad_filter_is_a_message_at_its_field_and_the_others_apply(
    client, club_games, query, message
):
    valid = "&handicap=3" if "status" in query else "&status=normal"
    response = client.get(f"/games/{query}{valid}")

    assert response.status_code == 200
    html = response.content.decode()
    assert message in html
    # the valid filter still applies: the free handicap-4 game is left out
    assert "2024-02-07" not in html.split('id="games"')[1]


def test_a_page_has_fifty_games_and_a_next_link_without_counting(
    client, vera, django_assert_max_num_queries
):
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "8k")
    enter(vera, *[factories.game(ann, ben, "W", date(2024, 1, 1 + n % 28)) for n in range(60)])

    with django_assert_max_num_queries(3) as queries:
        html = client.get("/games/").content.decode()
    assert not any("COUNT(" in query["sql"].upper() for query in queries.captured_queries)
    body = html.split('id="games"')[1].split("<tbody")[1].split("</table>")[0]
    assert len(re.findall(r"<tr>", body)) == 50
    assert "?page=2" in html


def test_the_csv_has_the_searched_games_in_the_spec_columns(client, club_games):
    response = client.get("/games.csv?player=ann")

    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0] == list(COLUMNS)
    assert [(row[0], row[1], row[2]) for row in rows[1:]] == [
        ("2024-01-10", "ann", "ben"),
        ("2024-03-06", "cat", "ann"),
    ]


def test_the_csv_link_keeps_the_search(client, club_games):
    html = client.get("/games/?player=ann&handicap=3").content.decode()

    assert 'href="/games.csv?player=ann&amp;handicap=3"' in html


@pytest.mark.parametrize("page", ["999999999999999999999999999999", "9999", "0", "x"])
def test_a_page_number_past_the_games_or_not_a_number_is_no_error(client, club_games, page):
    response = client.get(f"/games/?page={page}")

    assert response.status_code == 200
