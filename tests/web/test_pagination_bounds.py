"""Every paginated page takes any ``per_page`` in its query string: below 1 or not a
number gives the page's default, above 500 gives 500 (never a server error, never a
page of 100,000 rows)."""

from datetime import date

import pytest

from players.models import AuditEntry
from players.services.games import record_sheet_submit
from players.web.pagination import MAX_PER_PAGE
from tests import factories

pytestmark = pytest.mark.django_db

PAGINATED = [
    "/",
    "/players/ann/",
    "/tournaments/",
    "/clubs/",
    "/sheets/",
    "/audit/",
    "/committee/resync/batches/",
    "/committee/players/ann/adjust/",
    "/committee/accounts/",
]


@pytest.fixture
def committee_client(client):
    connie = factories.committee_member()
    ann = factories.player("ann", "3k", club=factories.club())
    ben = factories.player("ben", "5k")
    factories.tournament()
    record_sheet_submit(user=connie, games=[factories.game(ann, ben, "W", date(2024, 2, 1))])
    client.force_login(connie)
    return client


@pytest.mark.parametrize("url", PAGINATED)
@pytest.mark.parametrize("per_page", ["-1", "0", "abc", "1e3", "100000", "99999999999999999999"])
def test_a_paginated_page_takes_any_per_page(committee_client, url, per_page):
    response = committee_client.get(url, {"per_page": per_page})

    assert response.status_code == 200, (url, per_page)


def test_the_anonymous_rating_list_takes_a_negative_per_page(client):
    factories.player("ann", "3k")

    assert client.get("/", {"per_page": "-1"}).status_code == 200


def test_per_page_is_bounded(committee_client):
    AuditEntry.objects.bulk_create(
        AuditEntry(action="test", object_type="test", object_id=str(n)) for n in range(600)
    )

    response = committee_client.get("/audit/", {"per_page": "100000"})

    assert response.status_code == 200
    assert len(response.context["table"].page.object_list) == MAX_PER_PAGE
    assert f"per_page={MAX_PER_PAGE}" in response.content.decode()
