"""Migration 0016 makes each player's club a membership since before the site's
records, so that every club lists the same players as before; the roles need nothing
(a role in its group is held for every club)."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from players.models import Membership, Player
from players.roles import EVERY_CLUB, role_clubs
from tests import factories

pytestmark = pytest.mark.django_db

migration = importlib.import_module("players.migrations.0016_club_roles_and_memberships")


def test_each_players_club_becomes_a_membership_since_before_the_records():
    cape, pretoria = factories.club("Cape Town"), factories.club("Pretoria")
    # Players as the site had them before: a club on the record, no membership yet.
    Player.objects.bulk_create(
        [
            Player(username="ann", full_name="Ann", entry_rank=-5, club=cape),
            Player(username="pia", full_name="Pia", entry_rank=-3, club=pretoria),
            Player(username="vic", full_name="Vic", entry_rank=-9),
        ]
    )

    migration.memberships_from_clubs(apps, None)

    rows = set(Membership.objects.values_list("player__username", "club__name", "start", "end"))
    assert rows == {("ann", "Cape Town", None, None), ("pia", "Pretoria", None, None)}


def test_an_existing_role_is_held_for_every_club(vera, connie):
    assert role_clubs(vera, "volunteers") is EVERY_CLUB
    assert role_clubs(connie, "committee") is EVERY_CLUB
    assert role_clubs(vera, "committee") == frozenset()
