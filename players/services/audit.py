"""The audit trail: snapshots of games, adjustments and players, and the entries that
record each write."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from players.models import (
    Adjustment,
    AuditEntry,
    Game,
    Player,
)
from ratings.engine.ranks import Rank


def jsonable(value: Any) -> Any:
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, Rank):
        return str(value)
    return value


def game_snapshot(game: Game) -> dict[str, Any]:
    """A game for the audit trail; the game's one number (its page's) is the entry's
    object id, so its entry counter is left out."""
    return {
        "version": game.version,
        "date": jsonable(game.date),
        "round": game.round,
        "white": game.white.username,
        "black": game.black.username,
        "handicap": game.handicap,
        "komi": jsonable(game.komi),
        "winner": game.winner,
        "status": game.status,
        "board_size": game.board_size,
        "time_minutes": game.time_minutes,
        "tournament": game.tournament.code if game.tournament is not None else None,
        "record_sheet": game.record_sheet_id,
        "comment": game.comment,
        "voided": game.voided_at is not None,
        "void_reason": game.void_reason,
    }


def adjustment_snapshot(adjustment: Adjustment) -> dict[str, Any]:
    return {
        "seq": adjustment.seq,
        "date": jsonable(adjustment.date),
        "player": adjustment.player.username,
        "algorithm": adjustment.algorithm or "all",
        "new_rank": jsonable(adjustment.new_rank),
        "value": jsonable(adjustment.value),
        "reason": adjustment.reason,
        "resync_batch": adjustment.resync_batch_id,
        "comment": adjustment.comment,
        "voided": adjustment.voided_at is not None,
    }


def player_snapshot(player: Player) -> dict[str, Any]:
    return {
        "username": player.username,
        "full_name": player.full_name,
        "family_name": player.family_name,
        "given_name": player.given_name,
        "country": player.country,
        "federation_club": player.federation_club,
        "declared_rating": player.declared_rating,
        "club": player.club.name if player.club is not None else None,
        "entry_rank": jsonable(player.entry_rank),
        "national_rank": jsonable(player.national_rank),
        "egd_pin": player.egd_pin,
        "national_id": player.national_id,
        "active": player.active,
    }


def audit(user, action: str, obj: Any, **details: Any) -> AuditEntry:
    """Record ``action`` on ``obj`` by ``user``; ``details`` as for :func:`audit_entry`."""
    entry = audit_entry(user, action, obj, **details)
    entry.save(force_insert=True)
    return entry


def audit_entry(
    user,
    action: str,
    obj: Any,
    *,
    before: dict | None = None,
    after: dict | None = None,
    summary: str = "",
) -> AuditEntry:
    """The audit row of :func:`audit`, not saved yet (for ``bulk_create``). Its club,
    whose record it is, is the object's (a game's, a player's, a sheet's) or the
    player's of an adjustment or a report."""
    return AuditEntry(
        user=user,
        action=action,
        object_type=type(obj).__name__.lower(),
        object_id=str(obj.pk),
        summary=summary[:300],
        before=before,
        after=after,
        club_id=audit_club_id(obj),
    )


def audit_club_id(obj: Any) -> int | None:
    """The club whose record ``obj`` is (None: the federation's or nobody's)."""
    if hasattr(obj, "club_id"):
        return obj.club_id
    if hasattr(obj, "game") and isinstance(obj.game, Game):  # a report
        return obj.game.club_id
    if hasattr(obj, "player") and isinstance(obj.player, Player):  # an adjustment
        return obj.player.club_id
    return None
