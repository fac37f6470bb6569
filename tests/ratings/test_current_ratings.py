"""The current ratings after a recompute: a full replay's final standings, with only the
players whose rating changed rewritten."""

from datetime import date, timedelta

import pytest

from players.services.games import game_void, record_sheet_submit
from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import replay
from ratings.models import CurrentRating
from ratings.recompute.run import recompute_pending
from ratings.selectors import player_entries, replay_records
from tests import factories

pytestmark = pytest.mark.django_db

START = date(2024, 1, 1)


@pytest.fixture
def club(settings):
    settings.RATINGS_ALGORITHMS = ["sagc", "anchor"]
    vera = factories.volunteer()
    players = [
        factories.player(name, rank)
        for name, rank in [("ann", "2d"), ("ben", "3k"), ("cat", "8k"), ("dan", "15k")]
    ]
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(players[i % 4], players[(i + 1) % 4], "WB"[i % 2], START + timedelta(i))
            for i in range(12)
        ],
    )
    recompute_pending()
    return vera, players


def stored(algorithm: str) -> dict[str, tuple]:
    return {
        rating.player.username: (rating.rank, rating.value, rating.games)
        for rating in CurrentRating.objects.filter(algorithm=algorithm).select_related("player")
    }


def replayed(algorithm: str) -> dict[str, tuple]:
    engine = get_algorithm(algorithm)
    state = engine.new_state(player_entries())
    for _ in replay(engine, replay_records(algorithm)[0], player_entries(), state):
        pass
    return {
        name: (player.rank, float(player.value), player.games)
        for name, player in state.players.items()
    }


def test_a_new_game_rewrites_the_current_ratings_of_its_two_players_only(club):
    vera, (ann, _ben, _cat, dan) = club
    before = dict(CurrentRating.objects.filter(algorithm="sagc").values_list("player_id", "pk"))

    record_sheet_submit(user=vera, games=[factories.game(ann, dan, "B", START + timedelta(30))])
    recompute_pending()

    after = dict(CurrentRating.objects.filter(algorithm="sagc").values_list("player_id", "pk"))
    rewritten = {player_id for player_id, pk in after.items() if before.get(player_id) != pk}
    assert rewritten == {ann.pk, dan.pk}
    assert stored("sagc") == replayed("sagc")


@pytest.mark.parametrize("algorithm", ["sagc", "anchor"])
def test_after_back_dated_games_and_a_void_the_current_ratings_are_a_full_replays(club, algorithm):
    vera, (ann, ben, cat, dan) = club
    sheet = record_sheet_submit(
        user=vera,
        games=[
            factories.game(cat, ann, "W", START + timedelta(2)),
            factories.game(dan, ben, "W", START + timedelta(5), handicap=9),
        ],
    )
    recompute_pending()
    game = sheet.games[0]
    game.refresh_from_db()
    game_void(user=vera, game_id=game.pk, version=game.version, reason="wrong sheet")
    recompute_pending()

    assert stored(algorithm) == replayed(algorithm)
