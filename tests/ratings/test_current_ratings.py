"""The current ratings after a recompute: a full replay's final standings, with only the
players whose rating changed rewritten."""

from datetime import date, timedelta

import pytest

from players.services.games import game_void, record_sheet_submit
from ratings.models import CurrentRating
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.ratings.helpers import four_players_in_turn, replayed_current, stored_current

pytestmark = pytest.mark.django_db

START = date(2024, 1, 1)


@pytest.fixture
def club(settings):
    settings.RATINGS_ALGORITHMS = ["sagc", "anchor"]
    vera = factories.volunteer()
    players = four_players_in_turn(vera, 12, START)
    recompute_pending()
    return vera, players


def test_a_new_game_rewrites_the_current_ratings_of_its_two_players_only(club):
    vera, (ann, _ben, _cat, dan) = club
    before = dict(CurrentRating.objects.filter(algorithm="sagc").values_list("player_id", "pk"))

    record_sheet_submit(user=vera, games=[factories.game(ann, dan, "B", START + timedelta(30))])
    recompute_pending()

    after = dict(CurrentRating.objects.filter(algorithm="sagc").values_list("player_id", "pk"))
    rewritten = {player_id for player_id, pk in after.items() if before.get(player_id) != pk}
    assert rewritten == {ann.pk, dan.pk}
    assert stored_current("sagc") == replayed_current("sagc")


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

    assert stored_current(algorithm) == replayed_current(algorithm)
