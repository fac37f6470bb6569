"""/tournaments/ and /tournaments/<code>/: the list with its counts, and a tournament's
crosstable with each player's change under the EGF GoR (or another algorithm)."""

import re
from datetime import date

import pytest

from players import services
from ratings import services as rating_services
from ratings.models import RatingHistory
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def algorithms(settings):
    settings.RATINGS_ALGORITHMS = ["sagc", "egf-2021", "gcr"]


@pytest.fixture
def open_tournament(vera):
    """Four players, two rounds; Ann wins both, Dan loses both, Ben and Cat one each
    (Cat met stronger opponents); one game voided."""
    ann, ben, cat, dan = (
        factories.player(name, rank, full_name=name.title())
        for name, rank in [("ann", "2k"), ("ben", "3k"), ("cat", "5k"), ("dan", "6k")]
    )
    cup = factories.tournament("spring-cup", "Spring Cup", egf_class="B")

    def round_game(white, black, winner, number, **extra):
        return factories.game(
            white,
            black,
            winner,
            date(2024, 4, 6 + (number > 1)),
            tournament=cup,
            round=number,
            status="tournament",
            **extra,
        )

    services.record_sheet_submit(
        user=vera,
        games=[
            round_game(ann, dan, "W", 1),
            round_game(ben, cat, "B", 1),
            round_game(ann, cat, "W", 2, handicap=2, komi=0.5),
            round_game(ben, dan, "W", 2),
            round_game(ann, ben, "D", 2, comment="entered twice"),
        ],
    )
    twice = cup.games.get(comment="entered twice")
    services.game_void(user=vera, game_id=twice.pk, version=twice.version, reason="duplicate")
    rating_services.recompute_pending()
    return cup


def crosstable_rows(html: str) -> list[list[str]]:
    table = html[html.index('id="crosstable"') :]
    body = table[table.index("<tbody") : table.index("</tbody>")]
    return [
        [
            re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", cell)).strip()
            for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        ]
        for row in re.findall(r"<tr[^>]*>.*?</tr>", body, re.S)
    ]


def test_the_list_counts_valid_games_and_distinct_players(client, open_tournament):
    factories.tournament("empty", "Nothing yet")

    html = client.get("/tournaments/").content.decode()

    row = re.search(r"<tr[^>]*>(?:(?!</tr>).)*Spring Cup.*?</tr>", html, re.S).group(0)
    texts = [
        re.sub(r"<[^>]+>|\s+", " ", cell).strip()
        for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    ]
    assert texts[1:] == ["2024-04-06 \u2013 2024-04-07", "B", "4", "4"]
    assert 'href="/tournaments/spring-cup/"' in row
    assert "Nothing yet" in html


def test_the_list_is_one_query_whatever_the_number_of_tournaments(
    client, open_tournament, django_assert_max_num_queries
):
    for number in range(30):
        factories.tournament(f"t{number}", f"Tournament {number}")

    with django_assert_max_num_queries(2):  # the page and the count of the paginator
        assert client.get("/tournaments/").status_code == 200


def test_the_crosstable_places_players_by_wins_with_each_round(client, open_tournament):
    html = client.get("/tournaments/spring-cup/").content.decode()

    rows = crosstable_rows(html)
    assert [row[:3] for row in rows] == [
        ["1", "Ann", "2k"],
        ["2", "Cat", "5k"],  # one win, like Ben, against opponents with more wins
        ["3", "Ben", "3k"],
        ["4", "Dan", "6k"],
    ]
    assert rows[0][3:7] == ["4+w", "2+w/h2", "2", "1"]  # R1, R2, wins, SOS
    assert rows[1][3:7] == ["3+b", "1-b/h2", "1", "3"]
    assert rows[3][3:5] == ["1-b", "3-b"]
    assert "entered twice" not in html


def test_the_crosstable_shows_the_egf_change_of_the_tournament(client, open_tournament):
    html = client.get("/tournaments/spring-cup/").content.decode()

    history = RatingHistory.objects.filter(
        algorithm="egf-2021", player__username="ann", game__tournament=open_tournament
    ).order_by("position")
    before, after = history.first().value_before, history.last().value_after
    ann = crosstable_rows(html)[0]
    assert ann[-3:] == [str(round(before)), str(round(after)), f"+{after - before:.2f}"]
    assert "EGF 2021 before" in html


def test_the_crosstable_can_show_the_sagc_change(client, open_tournament):
    html = client.get("/tournaments/spring-cup/?algorithm=sagc").content.decode()

    ann = crosstable_rows(html)[0]
    assert re.fullmatch(r"\d+k \S+", ann[-2])  # rank and index after
    assert re.fullmatch(r"[+\u2212]?\d+", ann[-1])
    assert "SAGC before" in html


def test_the_crosstable_is_a_fixed_number_of_queries(
    client, open_tournament, django_assert_max_num_queries
):
    with django_assert_max_num_queries(3):  # tournament, games, history
        response = client.get("/tournaments/spring-cup/")

    assert response.status_code == 200
    assert [row[1] for row in crosstable_rows(response.content.decode())] == [
        "Ann",
        "Cat",
        "Ben",
        "Dan",
    ]


def test_it_answers_404_for_an_unknown_tournament(client):
    assert client.get("/tournaments/no-such-cup/").status_code == 404
