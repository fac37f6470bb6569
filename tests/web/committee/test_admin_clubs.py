"""The admin of clubs, club roles and memberships (issue 28): the federation's (a
superuser, or a staff account on the federation's committee), never a club's committee
even with staff status; each change audited like any other write."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from players.models import AuditEntry, ClubRole, Membership
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def cape_town():
    return factories.club("Cape Town Go Club")


@pytest.fixture
def federation_staff(connie):
    connie.is_staff = True
    connie.save(update_fields=["is_staff"])
    return connie


def admin_client(account) -> Client:
    client = Client()
    client.force_login(account)
    return client


def test_the_federations_committee_lists_clubs_with_their_members_and_roles(
    federation_staff, cape_town
):
    factories.player("ann", "5k", club=cape_town)
    factories.player("ben", "8k", club=cape_town)
    factories.club_volunteer("cvol", cape_town)
    client = admin_client(federation_staff)

    page = client.get("/admin/players/club/")

    assert page.status_code == 200
    row = page.context["cl"].result_list.get()
    assert (row.name, row.member_count, row.role_count) == ("Cape Town Go Club", 2, 1)
    roles = client.get(f"/admin/players/clubrole/?club__id__exact={cape_town.pk}")
    assert [role.user.username for role in roles.context["cl"].result_list] == ["cvol"]
    listed = client.get("/admin/players/membership/?current=yes")
    assert {m.player.username for m in listed.context["cl"].result_list} == {"ann", "ben"}


def test_the_federation_gives_and_takes_a_club_role_in_the_admin_audited(
    federation_staff, cape_town, django_user_model
):
    account = django_user_model.objects.create_user("helper")
    client = admin_client(federation_staff)
    volunteers = Group.objects.get(name="volunteers")

    added = client.post(
        "/admin/players/clubrole/add/",
        {"user": account.pk, "group": volunteers.pk, "club": cape_town.pk},
    )

    assert added.status_code == 302
    role = ClubRole.objects.get(user=account)
    entry = AuditEntry.objects.get(action="admin_add_clubrole")
    assert entry.after == {"user": "helper", "role": "volunteers", "club": "Cape Town Go Club"}
    assert entry.club_id == cape_town.pk

    deleted = client.post(f"/admin/players/clubrole/{role.pk}/delete/", {"post": "yes"})

    assert deleted.status_code == 302
    assert not ClubRole.objects.exists()
    assert AuditEntry.objects.get(action="admin_delete_clubrole").before["user"] == "helper"


def test_a_memberships_start_is_corrected_but_its_club_and_end_are_not(federation_staff, cape_town):
    ann = factories.player("ann", "5k", club=cape_town)
    membership = Membership.objects.get(player=ann)
    client = admin_client(federation_staff)
    url = f"/admin/players/membership/{membership.pk}/change/"

    response = client.post(url, {"start": "2019-02-01"})

    assert response.status_code == 302
    membership.refresh_from_db()
    assert (str(membership.start), membership.club_id, membership.end) == (
        "2019-02-01",
        cape_town.pk,
        None,
    )
    assert AuditEntry.objects.get(action="admin_change_membership").after["start"] == "2019-02-01"
    assert client.get("/admin/players/membership/add/").status_code == 403


def test_a_club_committee_with_staff_status_has_no_club_admin(cape_town):
    club_committee = factories.club_committee_member("ccom", cape_town)
    club_committee.is_staff = True
    club_committee.save(update_fields=["is_staff"])
    client = admin_client(club_committee)

    for path in ("/admin/players/club/", "/admin/players/clubrole/", "/admin/players/membership/"):
        assert client.get(path).status_code == 403
    assert client.post("/admin/players/clubrole/add/", {}).status_code == 403
