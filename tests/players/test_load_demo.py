"""manage.py load_demo: two clubs sharing the site, each with its volunteer and its
committee member, and the federation's committee."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from players.models import Club, Game, RecordSheet
from players.roles import is_federation_committee, may_act_for, role_clubs

pytestmark = pytest.mark.django_db


def test_the_demo_has_two_clubs_with_their_roles_and_the_federations_committee(capsys):
    call_command("load_demo")

    accounts = get_user_model().objects
    cape, stellenbosch = Club.objects.order_by("name")
    assert is_federation_committee(accounts.get(username="committee"))
    for club, other, prefix in (
        (cape, stellenbosch, "capetown"),
        (stellenbosch, cape, "stellenbosch"),
    ):
        volunteer = accounts.get(username=f"{prefix}-volunteer")
        committee = accounts.get(username=f"{prefix}-committee")
        assert role_clubs(volunteer, "volunteers") == {club.pk}
        assert role_clubs(committee, "committee") == {club.pk}
        assert not may_act_for(committee, "committee", other.pk)
        # Each club's evenings, entered by its own volunteer.
        sheets = RecordSheet.objects.filter(club=club)
        assert sheets.exists() and set(sheets.values_list("entered_by", flat=True)) == {
            volunteer.pk
        }
    assert not Game.objects.filter(club__isnull=True).exists()
    assert "log in as capetown-committee" in capsys.readouterr().out


def test_the_demos_federation_committee_creates_clubs_in_the_admin(client):
    call_command("load_demo")

    client.force_login(get_user_model().objects.get(username="committee"))
    response = client.post("/admin/players/club/add/", {"name": "Johannesburg Go Club"})

    assert response.status_code == 302
    assert Club.objects.filter(name="Johannesburg Go Club").exists()
    client.force_login(get_user_model().objects.get(username="capetown-committee"))
    assert client.get("/admin/players/club/add/").status_code == 302
