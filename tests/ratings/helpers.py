"""What the recompute's tests share: a small club's evenings, the current ratings as
stored against what a full replay from scratch gives, and a full lab run's figures."""

from __future__ import annotations

from datetime import date, timedelta

from django.db import transaction

from players.models import Player
from players.services.games import record_sheet_submit
from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import replay
from ratings.lab import services as lab_services
from ratings.models import CurrentRating
from ratings.selectors import player_entries, replay_records
from tests import factories


def four_players_in_turn(volunteer, games: int, start: date) -> list[Player]:
    """Four players of 2d to 15k, who play ``games`` games on one sheet, a day apart,
    each against the next in turn (ann-ben, ben-cat, cat-dan, dan-ann...), White and
    Black winning by turns."""
    players = [
        factories.player(name, rank)
        for name, rank in [("ann", "2d"), ("ben", "3k"), ("cat", "8k"), ("dan", "15k")]
    ]
    record_sheet_submit(
        user=volunteer,
        games=[
            factories.game(players[i % 4], players[(i + 1) % 4], "WB"[i % 2], start + timedelta(i))
            for i in range(games)
        ],
    )
    return players


def stored_current(algorithm: str) -> dict[str, tuple]:
    """Each player's current rating as stored: (rank, value, games) by username."""
    return {
        rating.player.username: (rating.rank, rating.value, rating.games)
        for rating in CurrentRating.objects.filter(algorithm=algorithm).select_related("player")
    }


def replayed_current(algorithm: str) -> dict[str, tuple]:
    """The same as a full replay of the stored games from scratch gives it."""
    engine = get_algorithm(algorithm)
    state = engine.new_state(player_entries())
    for _ in replay(engine, replay_records(algorithm)[0], player_entries(), state):
        pass
    return {
        name: (player.rank, float(player.value), player.games)
        for name, player in state.players.items()
    }


def full_run_metrics(algorithm: str) -> dict:
    """A full lab run's figures from scratch, leaving the stored report as it was."""
    with transaction.atomic():
        metrics = lab_services.compute_lab_report(algorithm).metrics
        transaction.set_rollback(True)
    return metrics
