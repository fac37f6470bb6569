"""manage.py check_ratings: replays everything and reports differences, changing nothing."""

import io
from datetime import date

import pytest
from django.core.management import CommandError, call_command

from players.services.games import record_sheet_submit
from ratings.models import RatingHistory
from ratings.recompute.run import recompute_pending
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def rated_club():
    vera = factories.volunteer()
    ann, ben, cat = (
        factories.player(n, r) for n, r in [("ann", "2k"), ("ben", "4k"), ("cat", "9k")]
    )
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", date(2024, 1, 2)),
            factories.game(cat, ben, "B", date(2024, 1, 3), handicap=5),
            factories.game(ann, cat, "B", date(2024, 1, 4), handicap=7),
        ],
    )
    recompute_pending()


def test_it_reports_ok_when_the_stored_ratings_match_a_replay(rated_club):
    out = io.StringIO()
    call_command("check_ratings", stdout=out)
    assert "sagc: OK" in out.getvalue()
    assert "gcr: OK" in out.getvalue()


def test_it_reports_a_tampered_row_and_fails_without_changing_it(rated_club):
    row = RatingHistory.objects.filter(algorithm="sagc").order_by("position").first()
    RatingHistory.objects.filter(pk=row.pk).update(value_after=row.value_after + 7)
    out = io.StringIO()
    with pytest.raises(CommandError, match="differences"):
        call_command("check_ratings", algorithm="sagc", stdout=out)
    assert "row 1: stored" in out.getvalue()
    assert RatingHistory.objects.get(pk=row.pk).value_after == row.value_after + 7
