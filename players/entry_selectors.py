"""Reads for the volunteer pages: sheets with each game's recompute status, a game's
history, the audit trail and its diffs, the player lookup. Each is a fixed number of
queries, whatever the number of rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db.models import Count, Q, QuerySet

from ratings.models import RatingHistory, RecomputeState
from ratings.services import maintained_algorithms, running_stalled

from .lookup import lookup_players, player_index
from .models import AuditEntry, Game, RecordSheet, Tournament

DONE, PENDING, RUNNING = "done", "pending", "running"


@dataclass(frozen=True, slots=True)
class RecomputeStatus:
    algorithm: str
    status: str  # DONE, PENDING or RUNNING


def recompute_statuses(dates: Sequence[date]) -> list[list[RecomputeStatus]]:
    """For each date (a game's), whether every maintained algorithm has rated it with
    the current games: "done" when the algorithm is clean, or dirty only from a later
    date, and not running; else "running" or "pending" (a recompute whose process died,
    ``running_stalled``, is pending: it runs again). One query for all dates."""
    algorithms = maintained_algorithms()
    states = {s.algorithm: s for s in RecomputeState.objects.filter(algorithm__in=algorithms)}
    running = {name for name, state in states.items() if state.running_since is not None}
    running -= {name for name in running if running_stalled(states[name])}

    def status(algorithm: str, day: date) -> str:
        state = states.get(algorithm)
        if state is None:  # never marked dirty: nothing is waiting
            return DONE
        if algorithm in running:
            return RUNNING
        if state.dirty_from is not None and state.dirty_from <= day:
            return PENDING
        return DONE

    return [[RecomputeStatus(name, status(name, day)) for name in algorithms] for day in dates]


def _with_statuses(games: list[Game]) -> list[Game]:
    for game, statuses in zip(games, recompute_statuses([g.date for g in games]), strict=True):
        game.recompute = statuses
        game.recompute_done = all(s.status == DONE for s in statuses)
    return games


def games_for_display() -> QuerySet[Game]:
    return Game.objects.select_related("white", "black", "tournament")


def sheet_games(sheet: RecordSheet) -> list[Game]:
    """The sheet's games in entry order, each with ``recompute`` (a RecomputeStatus per
    maintained algorithm) and ``recompute_done``."""
    return _with_statuses(list(games_for_display().filter(record_sheet=sheet).order_by("seq")))


def game_for_page(game_id: int) -> QuerySet[Game]:
    return Game.objects.select_related(
        "white", "black", "tournament", "record_sheet", "created_by", "voided_by"
    ).filter(pk=game_id)


def game_with_status(game: Game) -> Game:
    return _with_statuses([game])[0]


def recent_sheets() -> QuerySet[RecordSheet]:
    """Record sheets, the latest entered first, with their numbers of games and void games."""
    return (
        RecordSheet.objects.select_related("entered_by")
        .annotate(
            game_count=Count("games"),
            void_count=Count("games", filter=Q(games__voided_at__isnull=False)),
        )
        .order_by("-entered_at", "-pk")
    )


def game_history(game: Game) -> list[RatingHistory]:
    """The game's rows in every algorithm's history, the primary algorithm first."""
    order = {name: index for index, name in enumerate(maintained_algorithms())}
    rows = RatingHistory.objects.filter(game=game).select_related("player")
    return sorted(rows, key=lambda row: (order.get(row.algorithm, len(order)), row.position))


def game_audit(game: Game) -> QuerySet[AuditEntry]:
    return AuditEntry.objects.filter(object_type="game", object_id=str(game.pk)).select_related(
        "user"
    )


# --- the audit trail ------------------------------------------------------------


def audit_entries(
    *,
    action: str = "",
    user=None,
    object_type: str = "",
    object_id: str = "",
    since: date | None = None,
    until: date | None = None,
) -> QuerySet[AuditEntry]:
    """The audit trail, newest first, narrowed by whichever filters are given."""
    entries = AuditEntry.objects.select_related("user").order_by("-at", "-id")
    if action:
        entries = entries.filter(action=action)
    if user is not None:
        entries = entries.filter(user=user)
    if object_type:
        entries = entries.filter(object_type=object_type)
    if object_id:
        entries = entries.filter(object_id=object_id.strip())
    if since:
        entries = entries.filter(at__date__gte=since)
    if until:
        entries = entries.filter(at__date__lte=until)
    return entries


def audit_actions() -> list[str]:
    return list(AuditEntry.objects.order_by("action").values_list("action", flat=True).distinct())


def audit_object_types() -> list[str]:
    return list(
        AuditEntry.objects.order_by("object_type").values_list("object_type", flat=True).distinct()
    )


@dataclass(frozen=True, slots=True)
class Change:
    key: str
    before: Any
    after: Any
    changed: bool


_ABSENT = object()


def audit_diff(before: Any, after: Any) -> list[Change]:
    """The keys of an audit entry's before and after side by side, each marked changed
    or not, in the order they are stored (the service's order; on PostgreSQL, jsonb's).
    A snapshot that is not a dict (or missing) is shown as one row."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        if before is None and isinstance(after, dict):
            before = {}
        elif after is None and isinstance(before, dict):
            after = {}
        else:
            return [Change("", before, after, before != after)]
    keys = list(before) + [key for key in after if key not in before]
    changes = []
    for key in keys:
        old, new = before.get(key, _ABSENT), after.get(key, _ABSENT)
        changes.append(
            Change(
                key,
                None if old is _ABSENT else old,
                None if new is _ABSENT else new,
                old != new,
            )
        )
    return changes


# --- the entry forms' suggestions ------------------------------------------------


def tournament_codes() -> list[str]:
    """The codes the tournament field suggests, the latest tournaments first."""
    return list(Tournament.objects.values_list("code", flat=True)[:200])


LOOKUP_LIMIT = 20


def player_lookup(text: str) -> list[dict[str, str]]:
    """Up to 20 players whose username starts with, or whose name contains, ``text``;
    active players first; else those the player lookup finds, or the closest names.
    No name holds a NUL character (and PostgreSQL refuses one in a query): text with
    one finds nobody."""
    text = text.strip()
    if not text or "\x00" in text:
        return []
    players = list(
        lookup_players()
        .filter(Q(username__istartswith=text) | Q(full_name__icontains=text))
        .order_by("-active", "username")[:LOOKUP_LIMIT]
    )
    if not players:  # a name in another order, without its accents, an EGD PIN, a typo
        players = player_index().search(text, LOOKUP_LIMIT)
    return [
        {"username": p.username, "full_name": p.full_name, "rank": str(p.entry_rank)}
        for p in players
    ]
