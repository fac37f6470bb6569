"""The list as of a day (``ratings_as_of``: everyone's from the month-end standings, a
page of players' by one index step each) is exactly what reading every history row
gives: each player's row of the highest position dated on or before the day (GCR: the
latest month-end snapshot), under every kind of algorithm, with several games on one
day, a tournament over three days with club games between its rounds (EGF and the
French ladder place a tournament at its first game, so a row dated later sits before
one dated earlier), players not rated yet, a merged duplicate (before and after its
recompute) and an erased player."""

import random
from datetime import date, timedelta

import pytest

from players.models import Player
from players.selectors.ratings import ratings_as_of
from players.services.games import record_sheet_submit
from players.services.players import player_merge
from players.services.privacy import player_erase
from ratings.models import RatingHistory, RatingSnapshot
from ratings.recompute.run import recompute_pending
from tests import factories

ALGORITHMS = ["sagc", "anchor", "egf-2021", "french", "gcr"]

pytestmark = [pytest.mark.django_db, pytest.mark.algorithms(*ALGORITHMS)]
START = date(2024, 1, 6)


def full_scan(algorithm: str, day: date) -> set[tuple]:
    """Each player's standing at the end of ``day``, from every row of the algorithm."""
    if algorithm == "gcr":
        latest: dict[int, RatingSnapshot] = {}
        for snapshot in RatingSnapshot.objects.filter(algorithm=algorithm):
            if snapshot.date <= day and (
                snapshot.player_id not in latest or snapshot.date > latest[snapshot.player_id].date
            ):
                latest[snapshot.player_id] = snapshot
        return {(s.player_id, s.rank, s.value, s.games, s.date) for s in latest.values()}
    newest: dict[int, RatingHistory] = {}
    for row in RatingHistory.objects.filter(algorithm=algorithm):
        if row.date <= day and (
            row.player_id not in newest or row.position > newest[row.player_id].position
        ):
            newest[row.player_id] = row
    return {(r.player_id, r.rank_after, r.value_after, None, r.date) for r in newest.values()}


def as_of(algorithm: str, day: date, players=None) -> set[tuple]:
    """The list of everyone (from the month-end standings), or of ``players`` (one index
    step each, as the API's page)."""
    return {
        (row.player_id, row.rank, row.value, row.games, row.last_updated)
        for row in ratings_as_of(algorithm, day, players)
    }


def days_to_check() -> list[date]:
    """Every day from before the first game to after the last one."""
    return [START - timedelta(days=1) + timedelta(days=n) for n in range(100)]


def assert_exact(label: str) -> None:
    for algorithm in ALGORITHMS:
        for day in days_to_check():
            expected = full_scan(algorithm, day)
            assert as_of(algorithm, day) == expected, (label, algorithm, day)
            assert as_of(algorithm, day, Player.objects.all()) == expected, (label, algorithm, day)


@pytest.fixture
def club_season(vera):
    """Twelve players over three months: club nights with several games a day, a
    three-day tournament whose players play club games between its rounds."""
    rng = random.Random(19)
    club = factories.club("Durban Go Club")
    ranks = ["1d", "2k", "4k", "6k", "8k", "10k", "12k", "14k", "16k", "18k", "20k", "25k"]
    players = [
        factories.player(f"p{n:02}", rank, club=club if n % 3 else None)
        for n, rank in enumerate(ranks)
    ]
    late = factories.player("late", "9k", club=club)  # first plays in the last month
    games = []
    for week in range(12):
        night = START + timedelta(days=7 * week)
        for _ in range(4):  # four games on each club night: ties on the date
            white, black = rng.sample(players[:10], 2)
            games.append(factories.game(white, black, rng.choice("WB"), night))
    open_ = factories.tournament("spring-open", "Spring Open")
    first = START + timedelta(days=30)
    for round_, day in enumerate(
        [first, first, first + timedelta(days=1), first + timedelta(days=2)]
    ):
        for pair in range(2):
            white, black = players[4 * pair + round_ % 2], players[4 * pair + 2 + round_ // 2]
            games.append(
                factories.game(
                    white,
                    black,
                    rng.choice("WB"),
                    day,
                    tournament=open_,
                    round=round_ + 1,
                    status="tournament",
                )
            )
    # club games between the tournament's rounds, by players of its last round: their
    # row of the last day sits before the club game's in the replay
    for white, black in ((1, 9), (3, 8), (5, 0)):
        games.append(factories.game(players[white], players[black], "W", first + timedelta(days=1)))
    games.append(factories.game(late, players[5], "W", START + timedelta(days=70)))
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    factories.adjustment(players[11], START + timedelta(days=20), "22k", user=vera)
    recompute_pending()
    return players


def test_the_list_of_every_day_is_the_full_scan_of_the_history(club_season):
    assert RatingHistory.objects.filter(algorithm="egf-2021").exists()
    assert RatingSnapshot.objects.filter(algorithm="gcr").exists()

    assert_exact("season")


def test_a_merged_duplicate_is_the_full_scan_before_and_after_its_recompute(
    club_season, vera, connie
):
    duplicate = factories.player("p03-again", "6k")
    record_sheet_submit(
        user=vera,
        games=[factories.game(duplicate, club_season[11], "W", START + timedelta(days=8))],
        allow_duplicates=True,
    )
    recompute_pending()
    player_merge(user=connie, keep=club_season[3], duplicate=duplicate)

    assert_exact("merged, recompute pending")
    recompute_pending()
    assert not RatingHistory.objects.filter(player=duplicate).exists()
    assert_exact("merged, recomputed")


def test_an_erased_player_is_the_full_scan(club_season, connie):
    player_erase(user=connie, player=club_season[2])
    recompute_pending()

    assert_exact("erased")


def test_a_page_of_players_gets_the_rows_of_the_whole_list(club_season):
    day = START + timedelta(days=31)  # the tournament's second day
    some = [player.pk for player in club_season[::2]]

    for algorithm in ALGORITHMS:
        page = ratings_as_of(algorithm, day, Player.objects.filter(pk__in=some))
        everyone = {row[0]: row for row in full_scan(algorithm, day)}
        assert {
            (row.player_id, row.rank, row.value, row.games, row.last_updated) for row in page
        } == {everyone[pk] for pk in some if pk in everyone}
