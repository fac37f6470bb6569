"""The admin: every model listed; the truth (games, adjustments, audit) read-only."""

import pytest
from django.contrib import admin
from django.urls import reverse

from players.models import AuditEntry, Game, Player
from players.services.games import record_sheet_submit
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client, django_user_model):
    superuser = django_user_model.objects.create_superuser("sam", "sam@example.org", "pw")
    client.force_login(superuser)
    return superuser


@pytest.fixture
def stored_game():
    vera = factories.volunteer()
    alice, bob = factories.player("alice", "5k"), factories.player("bob", "8k")
    return record_sheet_submit(user=vera, games=[factories.game(alice, bob)]).games[0]


def test_every_model_has_an_admin_list_that_opens(client, staff, stored_game):
    for model in admin.site._registry:
        meta = model._meta
        url = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
        assert client.get(url).status_code == 200, url


def test_a_game_cannot_be_changed_or_deleted_in_the_admin(client, staff, stored_game):
    change = reverse("admin:players_game_change", args=[stored_game.pk])
    delete = reverse("admin:players_game_delete", args=[stored_game.pk])
    client.post(change, {"winner": "B"})
    assert client.post(delete, {"post": "yes"}).status_code == 403
    stored_game.refresh_from_db()
    assert stored_game.winner == "W"
    assert Game.objects.filter(pk=stored_game.pk).exists()


def test_the_audit_trail_cannot_be_deleted_in_the_admin(client, staff, stored_game):
    entry = AuditEntry.objects.first()
    delete = reverse("admin:players_auditentry_delete", args=[entry.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    assert AuditEntry.objects.filter(pk=entry.pk).exists()


def test_an_admin_edit_of_a_player_is_audited(client, staff):
    alice = factories.player("alice", "5k")
    url = reverse("admin:players_player_change", args=[alice.pk])
    response = client.post(
        url,
        {"username": "alice", "full_name": "Alice Mokoena", "national_rank": "4k", "active": "on"},
    )
    assert response.status_code == 302, response.content
    assert Player.objects.get(pk=alice.pk).full_name == "Alice Mokoena"
    entry = AuditEntry.objects.get(action="admin_change_player")
    assert entry.before["full_name"] == "Alice"
    assert entry.after["full_name"] == "Alice Mokoena"
    assert entry.user == staff


def test_the_national_id_is_edited_in_the_admin_and_unique_when_set(client, staff):
    alice, bob = factories.player("alice", "5k"), factories.player("bob", "8k")
    factories.player("carol", "9k")  # no national id, as bob: many may have none

    def save(player, national_id):
        return client.post(
            reverse("admin:players_player_change", args=[player.pk]),
            {
                "username": player.username,
                "full_name": player.full_name,
                "national_rank": str(player.national_rank),
                "national_id": national_id,
                "active": "on",
            },
        )

    assert save(alice, "15648").status_code == 302
    refused = save(bob, "15648")

    assert Player.objects.get(pk=alice.pk).national_id == "15648"
    assert "Another player has this national id." in refused.content.decode()
    assert Player.objects.get(pk=bob.pk).national_id == ""
    audit = AuditEntry.objects.get(action__contains="player", object_id=str(alice.pk))
    assert audit.after["national_id"] == "15648"
