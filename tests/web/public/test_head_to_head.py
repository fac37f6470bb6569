"""/players/<a>/vs/<b>/: every game of two players against each other, their score by
colour and handicap, and each algorithm's expected score against the actual one."""

import re
from datetime import date

import pytest

from players.models import Game
from players.selectors import algorithms as algorithms_selectors
from players.selectors import head_to_head
from players.services.games import game_void
from ratings.engine import lab
from ratings.engine.algorithms import get_algorithm
from ratings.recompute.run import recompute_pending
from ratings.selectors import keyed_history_games
from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.algorithms("sagc", "egf-2021", "gcr")]


@pytest.fixture
def rivals(vera):
    ann = factories.player("ann", "5k", full_name="Ann Smit")
    ben = factories.player("ben", "8k", full_name="Ben Botha")
    cat = factories.player("cat", "8k")
    games = factories.play(
        vera,
        factories.game(ann, ben, "W", date(2024, 1, 10), handicap=3, komi=0.5),
        factories.game(ann, ben, "B", date(2024, 1, 24), handicap=3, komi=0.5),
        factories.game(ben, ann, "D", date(2024, 2, 7), komi=0),
        factories.game(ann, cat, "W", date(2024, 2, 7), handicap=3, komi=0.5),
        factories.game(ann, ben, "W", date(2024, 3, 6), handicap=3, komi=0.5),
    )
    voided = games[4]
    game_void(user=vera, game_id=voided.pk, version=voided.version, reason="twice")
    recompute_pending()
    return ann, ben, games


def rows(html: str) -> list[str]:
    table = html[html.index('id="head-to-head-games"') :]
    body = table[table.index("<tbody") : table.index("</table>")]
    return re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)


def test_it_lists_every_valid_game_of_the_two_newest_first(client, rivals):
    html = client.get("/players/ann/vs/ben/").content.decode()

    found = rows(html)
    assert len(found) == 3  # not the voided one, not ann's game against cat
    assert [re.search(r"\d{4}-\d\d-\d\d", row).group(0) for row in found] == [
        "2024-02-07",
        "2024-01-24",
        "2024-01-10",
    ]
    assert "Jigo" in found[0] and "Black won" in found[1] and "White won" in found[2]


def test_the_score_is_the_first_players_by_colour_and_handicap(rivals):
    ann, ben, _games = rivals

    record = head_to_head.record(ann, ben)

    assert (record.total.games, record.total.points) == (3, 1.5)
    assert (record.by_colour["W"].games, record.by_colour["W"].points) == (2, 1.0)
    assert (record.by_colour["B"].games, record.by_colour["B"].points) == (1, 0.5)
    assert {h: (s.games, s.points) for h, s in record.by_handicap.items()} == {
        0: (1, 0.5),
        3: (2, 1.0),
    }
    reverse = head_to_head.record(ben, ann)
    assert (reverse.total.points, reverse.total.losses) == (1.5, 1.5)


def test_the_expected_score_sums_the_labs_chances_before_each_game(rivals):
    ann, ben, _games = rivals
    infos = algorithms_selectors.algorithms()

    found = {item.algorithm.name: item for item in head_to_head.expectations(ann, ben, infos)}

    assert sorted(found) == ["egf-2021", "sagc"]  # GCR keeps no rating before each game
    engine = get_algorithm("egf-2021")
    between = head_to_head.games_between(ann, ben)
    chances = {
        game_id: engine.predict_white(game.matchup)
        for game_id, game in keyed_history_games("egf-2021", blocks=False, games=between)
    }
    whites = {game.pk: game.white_id for game in Game.objects.all()}
    expected = sum(p if whites[pk] == ann.pk else 1 - p for pk, p in chances.items())
    egf = found["egf-2021"]
    assert egf.games == 3
    assert egf.expected == pytest.approx(expected)
    assert 0 < egf.expected < 3
    assert egf.actual == 1.5
    assert lab.predictor(engine) is not None


def test_the_page_shows_the_score_and_each_algorithms_expectation(client, rivals):
    html = client.get("/players/ann/vs/ben/").content.decode()

    score = html[html.index('id="head-to-head-score"') : html.index('id="head-to-head-expected"')]
    assert re.search(r"All</th><td[^>]*>3</td><td[^>]*>1.5</td><td[^>]*>1.5</td>", score)
    assert "Handicap 3" in score
    expected = html[html.index('id="head-to-head-expected"') :]
    assert "EGF" in expected and "GCR" not in expected.split("</table>")[0]


def test_the_log_page_links_each_games_opponent_to_the_head_to_head(client, rivals):
    html = client.get("/players/ann/").content.decode()

    assert 'href="/players/ann/vs/ben/"' in html
    assert 'href="/players/ann/vs/cat/"' in html


@pytest.mark.parametrize(
    "url", ["/players/ann/vs/nobody/", "/players/nobody/vs/ann/", "/players/ann/vs/ann/"]
)
def test_unknown_or_identical_players_are_not_found(client, rivals, url):
    assert client.get(url).status_code == 404


def test_two_players_who_never_met_get_an_empty_page(client, rivals):
    factories.player("dan", "20k")

    html = client.get("/players/ben/vs/dan/").content.decode()

    assert "These two players have no game against each other." in html


def test_a_page_takes_the_same_queries_for_three_games_or_sixty(
    client, rivals, vera, django_assert_max_num_queries
):
    ann, ben, _games = rivals
    with django_assert_max_num_queries(14) as few:
        client.get("/players/ann/vs/ben/")
    factories.play(
        vera, *[factories.game(ben, ann, "B", date(2024, 4, 1 + n % 28)) for n in range(57)]
    )

    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get("/players/ann/vs/ben/")
    assert len(rows(response.content.decode())) == 50


def test_the_log_pages_form_leads_to_the_head_to_head(client, rivals):
    assert 'id="head-to-head-form"' in client.get("/players/ann/").content.decode()

    response = client.get("/players/ann/vs/?opponent=ben")

    assert response.status_code == 302
    assert response["Location"] == "/players/ann/vs/ben/"


@pytest.mark.parametrize(
    ("opponent", "message"),
    [
        ("nobody", "Head-to-head: no player &#x27;nobody&#x27;."),
        ("ann", "Head-to-head: &#x27;ann&#x27; is ann; type another player."),
        ("", "Type the opponent&#x27;s username, name or EGD PIN."),
    ],
)
def test_the_form_sends_an_unknown_opponent_back_with_a_message(client, rivals, opponent, message):
    response = client.get(f"/players/ann/vs/?opponent={opponent}", follow=True)

    assert response.redirect_chain[-1][0] == "/players/ann/"
    assert message in response.content.decode()


@pytest.mark.parametrize("typed", ["Ben Moyo", "moyo ben", "13579246"])
def test_the_form_finds_the_opponent_by_name_in_either_order_or_egd_pin(client, rivals, typed):
    from players.models import Player

    Player.objects.filter(username="ben").update(full_name="Ben Moyo", egd_pin="13579246")

    response = client.get(f"/players/ann/vs/?opponent={typed}")

    assert response.status_code == 302 and response["Location"] == "/players/ann/vs/ben/"


def test_a_suggestion_ends_the_message_once(client, rivals):
    html = client.get("/players/ann/vs/?opponent=bne", follow=True).content.decode()

    assert "Head-to-head: no player &#x27;bne&#x27; — did you mean ben (Ben Botha)?\n" in html
    assert "?." not in html


def test_a_first_name_only_one_player_has_finds_them(client, rivals):
    from players.models import Player

    Player.objects.filter(username="ben").update(full_name="Kofi Mensah")

    response = client.get("/players/ann/vs/?opponent=kofi")

    assert response.status_code == 302 and response["Location"] == "/players/ann/vs/ben/"


def test_the_form_names_the_players_a_shared_name_fits(client, rivals):
    from players.models import Player

    Player.objects.filter(username__in=["ann", "ben"]).update(full_name="Lee Kim")

    html = client.get("/players/ann/vs/?opponent=Kim+Lee", follow=True).content.decode()

    assert "fits 2 players: ann (Lee Kim), ben (Lee Kim); type the username" in html
