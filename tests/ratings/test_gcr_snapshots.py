"""GCR's month-end snapshots, made in one replay, are the standings a full GCR of the
games up to each month end gives."""

from datetime import date

import pytest

from players import services
from ratings import services as rating_services
from ratings.engine import gcr
from ratings.models import RatingSnapshot
from ratings.selectors import player_entries, replay_records
from tests import factories

pytestmark = pytest.mark.django_db


def test_each_snapshot_is_a_full_gcr_of_the_games_up_to_its_month_end(settings):
    settings.RATINGS_ALGORITHMS = ["sagc", "gcr"]
    vera = factories.volunteer()
    ann, ben, cat, dan = (
        factories.player(name, rank)
        for name, rank in [("ann", "2d"), ("ben", "3k"), ("cat", "8k"), ("dan", "15k")]
    )
    played = [
        (ann, ben, "W", date(2024, 1, 10)),
        (cat, dan, "B", date(2024, 1, 20)),
        (ann, cat, "W", date(2024, 3, 2)),  # nothing in February
        (ben, dan, "D", date(2024, 3, 9)),
        (dan, ann, "B", date(2024, 4, 1)),
        (ben, cat, "W", date(2024, 5, 5)),  # the last month: no snapshot yet
    ]
    services.record_sheet_submit(
        user=vera, games=[factories.game(w, b, winner, day) for w, b, winner, day in played]
    )

    rating_services.recompute("gcr", full=True)

    records = list(replay_records("gcr")[0])
    entries = player_entries()
    stored = RatingSnapshot.objects.filter(algorithm="gcr").select_related("player")
    dates = sorted({snapshot.date for snapshot in stored})
    assert dates == [date(2024, 1, 31), date(2024, 3, 31), date(2024, 4, 30)]
    for month_end in dates:
        expected = {
            standing.player: (standing.rank, standing.value, standing.games)
            for standing in gcr.standings_as_of(records, entries, month_end)
            if standing.games
        }
        assert {
            snapshot.player.username: (snapshot.rank, snapshot.value, snapshot.games)
            for snapshot in stored
            if snapshot.date == month_end
        } == expected
