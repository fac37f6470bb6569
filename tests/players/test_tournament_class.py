"""A committee member corrects a tournament's EGF class; the EGF algorithms recompute
its games with the new weight."""

from __future__ import annotations

from datetime import date

import pytest

from players.models import AuditEntry, Tournament
from players.services.base import ServiceError
from players.services.games import record_sheet_submit
from players.services.tournaments import tournament_class_set
from ratings.models import RatingHistory
from ratings.recompute.run import recompute_pending
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def open_2024():
    cup = factories.tournament("open-2024", "Open 2024")
    sofia, thabo = factories.player("sofia", "1d"), factories.player("thabo", "1d")
    record_sheet_submit(
        user=factories.volunteer(),
        games=[factories.game(sofia, thabo, "W", date(2024, 5, 4), tournament=cup, round=1)],
    )
    recompute_pending()
    return cup


def change_of(username: str) -> float:
    row = RatingHistory.objects.get(algorithm="egf-2021", player__username=username)
    return float(row.change)


def test_a_corrected_class_recomputes_the_egf_ratings_with_its_weight(open_2024):
    class_a = change_of("sofia")
    connie = factories.committee_member()

    assert tournament_class_set(user=connie, tournament=open_2024, egf_class="D", reason="online")
    recompute_pending()

    assert Tournament.objects.get(pk=open_2024.pk).egf_class == "D"
    assert change_of("sofia") == pytest.approx(class_a * 0.25)
    entry = AuditEntry.objects.get(action="tournament_class")
    assert entry.summary == "open-2024: class A -> D (online)"


def test_the_same_class_writes_nothing_and_a_bad_one_is_refused(open_2024):
    connie = factories.committee_member()
    assert not tournament_class_set(user=connie, tournament=open_2024, egf_class="A", reason="x")
    with pytest.raises(ServiceError):
        tournament_class_set(user=connie, tournament=open_2024, egf_class="X", reason="x")
    with pytest.raises(ServiceError):
        tournament_class_set(user=connie, tournament=open_2024, egf_class="B", reason=" ")
    assert not AuditEntry.objects.filter(action="tournament_class").exists()


def test_the_committee_page_corrects_the_class(client, open_2024):
    client.force_login(factories.committee_member())
    page = client.get("/tournaments/open-2024/")
    assert 'id="correct-class"' in page.content.decode()

    response = client.post(
        "/committee/tournaments/open-2024/class/", {"egf_class": "C", "reason": "short time"}
    )

    assert response.status_code == 302
    assert Tournament.objects.get(pk=open_2024.pk).egf_class == "C"
    refused = client.post("/committee/tournaments/open-2024/class/", {"egf_class": "C"})
    assert refused.status_code == 200 and "This field is required" in refused.content.decode()
