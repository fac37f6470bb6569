"""Migration 0012 fills ``Game.revision`` and ``stored_content`` from the audit trail's
corrections: what the services write now, for the games written before."""

from __future__ import annotations

import importlib
from datetime import date

import pytest
from django.apps import apps

from players.models import Game, Player
from players.services.games import game_correct, record_sheet_submit
from players.services.players import player_merge
from tests import factories

pytestmark = pytest.mark.django_db

migration = importlib.import_module("players.migrations.0012_game_revision")


def correct(game: Game, **changes) -> Game:
    fields = {
        "white": game.white,
        "black": game.black,
        "winner": game.winner,
        "komi": game.komi,
        "round": game.round,
    } | changes
    return game_correct(
        user=factories.volunteer(),
        game_id=game.pk,
        version=game.version,
        changes=factories.game(on=game.date, **fields),
    )


@pytest.fixture
def games(vera):
    ann, ben, cat, dan = (factories.player(name, "5k") for name in ("ann", "ben", "cat", "dan"))
    stored = record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", date(2024, 3, 1), round=1),
            factories.game(cat, dan, "W", date(2024, 3, 1), round=1),
            factories.game(ann, cat, "W", date(2024, 3, 2), round=2),
            factories.game(ben, dan, "W", date(2024, 3, 2), round=2),
            factories.game(ann, dan, "W", date(2024, 3, 3), round=3),
        ],
    ).games
    result, _re_pointed_by_the_merge, comment, undone, moved_back = stored
    correct(result, winner="B")
    correct(comment, comment="sheet checked")
    correct(correct(undone, komi=7), komi=6.5)
    # Dan misread for Ben, then Ben merged into a new record: put back, the same person
    correct(moved_back, black=ben)
    player_merge(
        user=factories.committee_member(), keep=factories.player("dan2", "5k"), duplicate=dan
    )
    moved_back = Game.objects.get(pk=moved_back.pk)
    correct(moved_back, black=Player.objects.get(username="dan2"))
    return {game.pk: game for game in Game.objects.all()}


def test_the_migration_gives_each_game_the_revision_and_stored_game_the_services_gave(games):
    written = {pk: (game.revision, game.stored_content) for pk, game in games.items()}
    assert sorted(revision for revision, _ in written.values()) == [0, 0, 0, 0, 2]
    assert sorted(game.version for game in games.values()) == [2, 2, 2, 3, 4]

    found = migration.game_revisions(apps)

    for pk, (revision, stored) in written.items():
        assert found.get(pk, (0, None))[:2] == (revision, stored), f"game {pk}"


def test_a_report_gets_the_revision_its_game_had_at_the_version_it_saw(games):
    corrected = next(game for game in games.values() if game.revision)
    revisions = migration.game_revisions(apps)[corrected.pk][2]

    assert migration.revision_seen(revisions, 1) == 0  # reported before the correction
    assert migration.revision_seen(revisions, 2) == 2  # after it
