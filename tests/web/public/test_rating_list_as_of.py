"""/?as_of=YYYY-MM-DD and /api/v1/players/?as_of=...: the rating list as it stood at the
end of a past day, from the history rows (GCR: its month-end snapshots)."""

import csv
import io
import re
from datetime import date, timedelta

import pytest
from django.utils import timezone
from django.utils.html import escape

from players.selectors.ratings import RATING_LIST_CSV_COLUMNS, RatingListFilters, rating_list
from ratings.engine.ranks import parse_rank
from ratings.models import CurrentRating, RatingHistory, RatingSnapshot
from tests import factories
from tests.web.public.test_player_log import cells

pytestmark = [pytest.mark.django_db, pytest.mark.algorithms("sagc", "egf-2021", "gcr")]


def listed(html: str) -> list[str]:
    table = html[html.index('id="rating-list"') :]
    table = table[: table.index("</table>")]
    return re.findall(r'href="/players/([^/]+)/"', table)


@pytest.fixture
def season(vera):
    """Four players over three months: ann and ben from January, cat from March."""
    club = factories.club("Durban Go Club")
    ann = factories.player("ann", "5k", club=club)
    ben = factories.player("ben", "8k")
    cat = factories.player("cat", "12k", club=club)
    dan = factories.player("dan", "12k")
    factories.play(
        vera,
        factories.game(ann, ben, "B", date(2024, 1, 10), handicap=3, komi=0.5),
        factories.game(ann, ben, "B", date(2024, 1, 24), handicap=3, komi=0.5),
        factories.game(ben, ann, "W", date(2024, 2, 7)),
        factories.game(cat, dan, "W", date(2024, 3, 6)),
        factories.game(ann, cat, "W", date(2024, 3, 20), handicap=7, komi=0.5),
    )
    return {"ann": ann, "ben": ben, "cat": cat, "dan": dan}


def last_row(player, algorithm: str, day: date) -> RatingHistory:
    return (
        RatingHistory.objects.filter(player=player, algorithm=algorithm, date__lte=day)
        .order_by("-position")
        .first()
    )


def test_the_list_of_a_day_has_each_players_last_row_on_or_before_it(season):
    day = date(2024, 2, 7)  # ann's and ben's third game is on that very day

    rows = {row.player.username: row for row in rating_list("sagc", RatingListFilters(as_of=day))}

    assert sorted(rows) == ["ann", "ben"]  # cat and dan played first in March
    for username, row in rows.items():
        expected = last_row(season[username], "sagc", day)
        assert expected.date == day
        assert (row.rank, row.value, row.last_updated) == (
            expected.rank_after,
            expected.value_after,
            expected.date,
        )


def test_the_list_as_of_the_last_game_is_the_current_list(season):
    as_of = rating_list("egf-2021", RatingListFilters(as_of=date(2024, 3, 20)))
    current = rating_list("egf-2021", RatingListFilters())

    assert [(r.player.username, r.rank, r.value) for r in as_of] == [
        (r.player.username, r.rank, r.value) for r in current
    ]


def test_gcr_as_of_a_day_is_its_last_month_end_snapshot(season):
    snapshots = RatingSnapshot.objects.filter(algorithm="gcr", date=date(2024, 2, 29))
    assert snapshots.exists()

    rows = rating_list("gcr", RatingListFilters(as_of=date(2024, 3, 15)))

    assert {(r.player.username, r.rank, r.value, r.games) for r in rows} == {
        (s.player.username, s.rank, s.value, s.games) for s in snapshots
    }


def test_the_page_says_as_of_and_lists_the_players_of_that_day(client, season):
    html = client.get("/?as_of=2024-01-31").content.decode()

    assert '<h1 class="h2">Ratings as of 2024-01-31</h1>' in html
    assert "as of 2024-01-31</strong>" in html
    assert sorted(listed(html)) == ["ann", "ben"]
    assert "Last change" in html


def test_the_page_of_a_day_shows_the_games_each_player_had_played_by_then(client, season):
    html = client.get("/?as_of=2024-02-07&algorithm=sagc").content.decode()

    table = html[html.index('id="rating-list"') : html.index("</table>")]
    headings = [
        re.sub(r"<[^>]+>", "", heading).strip()
        for heading in re.findall(r"<th[^>]*>(.*?)</th>", table, re.S)
    ]
    body = table[table.index("<tbody") :]
    rows = [cells(row) for row in re.findall(r"<tr[^>]*>.*?</tr>", body, re.S)]
    games = {row[1].split()[-1]: row[headings.index("Games")] for row in rows}
    assert games == {"ann": "3", "ben": "3"}


def test_the_page_applies_the_filters_to_the_day(client, season):
    by_club = listed(
        client.get(f"/?as_of=2024-03-31&club={season['ann'].club_id}").content.decode()
    )
    by_rank = listed(client.get("/?as_of=2024-01-31&rank_from=10k&rank_to=6k").content.decode())
    # active within one month of the day: ben's last game (7 February) is older
    active = listed(client.get("/?as_of=2024-03-31&active_months=1").content.decode())

    assert sorted(by_club) == ["ann", "cat"]
    expected_by_rank = [
        username
        for username in ("ann", "ben")
        if parse_rank("10k")
        <= last_row(season[username], "sagc", date(2024, 1, 31)).rank_after
        <= parse_rank("6k")
    ]
    assert sorted(by_rank) == sorted(expected_by_rank)
    assert sorted(active) == ["ann", "cat", "dan"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2024-02-30", "&#x27;2024-02-30&#x27; is not a date (day 30, month 2)"),
        ("31 Febuary", "&#x27;febuary&#x27; is not a month"),
        ("31/13/2024", "&#x27;31/13/2024&#x27; is not a date"),
    ],
)
def test_a_bad_date_is_a_message_at_the_field_and_the_current_list(client, season, value, message):
    response = client.get(f"/?as_of={value}")

    assert response.status_code == 200
    html = response.content.decode()
    assert message in html
    assert "as of" not in html.split('id="rating-count"')[1].split("</p>")[0]
    assert sorted(listed(html)) == ["ann", "ben", "cat", "dan"]


def test_a_day_after_today_is_refused_with_a_message(client, season):
    tomorrow = (timezone.localdate() + timedelta(days=1)).isoformat()

    html = client.get(f"/?as_of={tomorrow}").content.decode()

    assert f"{tomorrow} is after today" in html


def test_a_day_before_any_game_lists_nobody(client, season):
    html = client.get("/?as_of=2023-12-31").content.decode()

    assert listed(html) == []
    assert "No rated player matches these filters." in html


def test_the_csv_of_a_day_has_its_rows_and_date(client, season):
    response = client.get("/ratings.csv?as_of=2024-01-31&algorithm=egf-2021")

    assert 'filename="ratings-egf-2021-2024-01-31.csv"' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == list(RATING_LIST_CSV_COLUMNS)
    assert sorted(row[1] for row in rows[1:]) == ["ann", "ben"]
    ann = next(row for row in rows[1:] if row[1] == "ann")
    assert ann[5] == "2"  # her games of January 10 and 24
    assert ann[6] == "2024-01-24"
    assert float(ann[4]) == last_row(season["ann"], "egf-2021", date(2024, 1, 31)).value_after


@pytest.mark.parametrize("algorithm", ["sagc", "egf-2021"])  # GCR's: its snapshots'
def test_the_csv_of_the_last_days_games_are_the_current_lists(client, season, algorithm):
    def games(query: str) -> dict[str, str]:
        response = client.get(f"/ratings.csv?algorithm={algorithm}{query}")
        rows = list(csv.reader(io.StringIO(response.content.decode())))[1:]
        return {row[1]: row[5] for row in rows}

    as_of = games("&as_of=2024-03-31")

    assert as_of == games("")
    assert as_of["ann"] == "4"  # ann played every month, 4 games


def test_the_csv_of_a_day_counts_the_games_in_one_query(
    client, season, django_assert_max_num_queries
):
    with django_assert_max_num_queries(6):
        response = client.get("/ratings.csv?as_of=2024-02-07&algorithm=sagc")
    rows = list(csv.reader(io.StringIO(response.content.decode())))[1:]
    assert {row[1]: row[5] for row in rows} == {"ann": "3", "ben": "3"}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("abc", "'abc' is not a date (e.g. 2026-11-02, 2/11, 2 Nov or 02112026; t for today)"),
        ("2024-02-30", "'2024-02-30' is not a date (day 30, month 2)"),
        ("2099-01-01", "2099-01-01 is after today: the list as of a date shows the past."),
    ],
)
def test_the_csv_refuses_a_bad_as_of_with_the_pages_message(client, season, value, message):
    page = client.get(f"/?as_of={value}").content.decode()

    response = client.get(f"/ratings.csv?as_of={value}")

    assert response.status_code == 400
    assert response.content.decode() == f"No CSV: a filter is wrong (as_of: {message}).\n"
    assert escape(message) in page


def test_the_page_of_a_day_takes_the_same_queries_for_four_players_or_sixty(
    client, season, vera, django_assert_max_num_queries, request
):
    with django_assert_max_num_queries(8) as few:
        client.get("/?as_of=2024-03-31")
    request.getfixturevalue("crowd")
    assert CurrentRating.objects.filter(algorithm="sagc").count() == 60

    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get("/?as_of=2024-03-31")
    assert len(listed(response.content.decode())) == 50


def strongest_first(players, day: date) -> list[str]:
    """The usernames of ``players`` rated by ``day``, by their row of that day: rank,
    then value, then username (the list's own order)."""
    rows = [(last_row(player, "sagc", day), player.username) for player in players]
    rows = [(row, username) for row, username in rows if row is not None]
    rows.sort(key=lambda pair: (-pair[0].rank_after.stones, -pair[0].value_after, pair[1]))
    return [username for _, username in rows]


@pytest.mark.parametrize("sort", ["rank", "-rank", "name", "-name", "value", "-value"])
def test_each_sort_of_a_day_orders_as_the_current_list_does(client, season, sort):
    # as of the day of the last game, every standing is the current one
    as_of = listed(client.get(f"/?as_of=2024-03-20&sort={sort}").content.decode())
    current = listed(client.get(f"/?sort={sort}").content.decode())

    assert len(as_of) == 4
    assert as_of == current


def test_a_day_by_club_puts_the_clubless_last_going_up_first_going_down(client, season):
    up = listed(client.get("/?as_of=2024-03-20&sort=club").content.decode())
    down = listed(client.get("/?as_of=2024-03-20&sort=-club").content.decode())

    # players of the same club keep the list's own order, strongest first
    strongest = strongest_first(season.values(), date(2024, 3, 20))
    members = [username for username in strongest if username in ("ann", "cat")]
    clubless = [username for username in strongest if username in ("ben", "dan")]
    assert up == members + clubless
    assert down == clubless + members


@pytest.fixture
def crowd(season, vera):
    """Fifty-six more players, rated on 1 March 2024: sixty in all."""
    many = [factories.player(f"p{n:02}", "15k") for n in range(56)]
    factories.play(
        vera,
        *[
            factories.game(many[n], many[n + 1], "W", date(2024, 3, 1))
            for n in range(0, len(many), 2)
        ],
    )
    return [*season.values(), *many]


def test_the_pages_of_a_day_follow_one_another_and_count_every_row(client, crowd):
    first = client.get("/?as_of=2024-03-31").content.decode()
    second = client.get("/?as_of=2024-03-31&page=2").content.decode()

    assert "60 players" in first
    assert listed(first) + listed(second) == strongest_first(crowd, date(2024, 3, 31))
    assert len(listed(second)) == 10


def test_the_csv_of_a_day_has_every_row_in_the_pages_order(client, crowd):
    page = listed(client.get("/?as_of=2024-03-31&sort=-name&per_page=100").content.decode())
    response = client.get("/ratings.csv?as_of=2024-03-31&sort=-name&page=2")

    rows = list(csv.reader(io.StringIO(response.content.decode())))[1:]
    assert [row[1] for row in rows] == page
    assert len(rows) == 60
    ann = next(row for row in rows if row[1] == "ann")
    expected = last_row(crowd[0], "sagc", date(2024, 3, 31))
    assert ann[0] == str(expected.rank_after)
    assert ann[3] == "Durban Go Club"
    assert float(ann[4]) == expected.value_after  # full precision


def test_a_search_of_a_day_lists_whom_it_finds(client, season):
    found = client.get("/?as_of=2024-03-20&search=ann").content.decode()
    nobody = client.get("/?as_of=2024-03-20&search=zzqqxx").content.decode()

    assert listed(found) == ["ann"]
    assert listed(nobody) == []
    assert "No rated player matches these filters." in nobody


def test_the_club_page_of_a_day_lists_its_members_of_that_day(client, season):
    club = season["ann"].club

    html = client.get(f"/clubs/{club.pk}/?as_of=2024-01-31").content.decode()

    assert listed(html) == ["ann"]  # cat first played in March


# --- the API ----------------------------------------------------------------------------------


def test_the_api_gives_each_players_ratings_of_the_day(client, season):
    day = date(2024, 1, 31)
    data = client.get(f"/api/v1/players/?as_of={day}").json()

    assert data["as_of"] == "2024-01-31"
    players = {player["username"]: player for player in data["results"]}
    expected = last_row(season["ann"], "sagc", day)
    assert players["ann"]["ratings"]["sagc"] == {
        "rank": str(expected.rank_after),
        "value": int(expected.value_after),
        "games": None,
    }
    assert players["cat"]["ratings"]["sagc"] is None  # cat first played in March
    january = RatingSnapshot.objects.get(algorithm="gcr", player=season["ann"], date=day)
    assert players["ann"]["ratings"]["gcr"] == {
        "rank": str(january.rank),
        "value": january.value,
        "games": january.games,
    }


@pytest.mark.parametrize("value", ["2024-02-30", "soon", "2999-01-01"])
def test_the_api_refuses_a_bad_as_of_with_the_error_shape(client, season, value):
    response = client.get(f"/api/v1/players/?as_of={value}")

    assert response.status_code == 400
    assert response.json()["error"]["field"] == "as_of"


@pytest.mark.parametrize("typed", ["2024-02-07", "7/2/2024", "7 Feb 2024", "07022024"])
def test_as_of_takes_a_date_typed_as_on_the_record_sheet(client, season, typed):
    html = client.get("/", {"as_of": typed}).content.decode()

    assert 'id="as-of">as of 2024-02-07<' in html
    assert sorted(listed(html)) == ["ann", "ben"]
