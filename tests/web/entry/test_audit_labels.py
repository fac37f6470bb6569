"""The audit trail's page says each action and kind of object in words, in the reader's
language (players.models.AUDIT_ACTIONS), while the rows and the filters' values keep
the codes."""

import ast
import re
from datetime import date
from pathlib import Path

import pytest
from django.contrib import admin
from django.utils.functional import Promise

from players.admin import AuditedAdmin
from players.models import (
    AUDIT_ACTIONS,
    AUDIT_OBJECT_TYPES,
    AuditEntry,
    audit_action_label,
    audit_object_label,
)
from players.services.games import game_correct, record_sheet_submit
from tests import factories
from tests.pages import page_html

ROOT = Path(__file__).resolve().parents[3]
SOURCES = ("players", "ratings", "notifications", "clubrating")


def _recorded_actions() -> set[str]:
    """Every action code the site's code writes: the second argument of ``audit`` and
    ``audit_entry``, the ``action`` of an ``AuditEntry(...)`` or
    ``AuditEntry.objects.create(...)``."""
    codes = set()
    for package in SOURCES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if not isinstance(node, ast.Call):
                    continue
                name = ast.unparse(node.func)
                recorded = node.args[1] if len(node.args) > 1 else None
                if name in ("audit", "audit_entry") and isinstance(recorded, ast.Constant):
                    codes.add(recorded.value)
                if name in ("AuditEntry", "AuditEntry.objects.create"):
                    codes |= {
                        keyword.value.value
                        for keyword in node.keywords
                        if keyword.arg == "action" and isinstance(keyword.value, ast.Constant)
                    }
    return codes


def _admin_actions() -> set[str]:
    """The admin's edits of each model it audits (players/admin.py's AuditedAdmin)."""
    return {
        f"admin_{verb}_{model.__name__.lower()}"
        for model, model_admin in admin.site._registry.items()
        if isinstance(model_admin, AuditedAdmin)
        for verb in ("add", "change")
    }


def test_every_action_the_site_records_has_a_label_of_its_own():
    recorded = _recorded_actions() | _admin_actions()

    assert len(recorded) > 30  # the scan found the services' audits
    assert sorted(code for code in recorded if audit_action_label(code) == code) == []
    assert "Changed in the admin: club" in {audit_action_label(code) for code in recorded}


def test_every_label_is_marked_for_translation():
    labels = [*AUDIT_ACTIONS.values(), *AUDIT_OBJECT_TYPES.values()]

    assert all(isinstance(label, Promise) for label in labels)


def test_an_unknown_code_is_shown_as_it_is():
    assert audit_action_label("something_older") == "something_older"
    assert audit_object_label("widget") == "widget"
    assert audit_object_label("resyncbatch") == "resync"


@pytest.mark.django_db
@pytest.mark.signed_in
def test_the_trail_and_its_filter_say_the_actions_in_words(client, vera):
    alice, bob = factories.player("alice", "5k"), factories.player("bob", "8k")
    game = record_sheet_submit(
        user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 1))]
    ).games[0]
    game_correct(
        user=vera,
        game_id=game.pk,
        version=1,
        changes=factories.game(alice, bob, "B", date(2024, 3, 1)),
    )

    html = page_html(client, "/audit/")
    filtered = page_html(client, "/audit/?action=game_correct")

    cells = re.findall(r"<td[^>]*>([^<]*)</td>", html)
    assert "Game corrected" in cells and "Game entered" in cells
    assert not {"game_correct", "game_create"} & set(cells)
    assert '<option value="game_correct">Game corrected</option>' in html
    assert '<option value="game_correct" selected>Game corrected</option>' in filtered
    assert AuditEntry.objects.filter(action="game_correct").count() == 1
