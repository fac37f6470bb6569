"""The record-sheet rows every algorithm writes: the game's own columns come from its
record, the rating columns from the algorithm."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import HistoryRow, Number
from .ranks import Rank
from .records import Colour, GameRecord


def game_row(
    record: GameRecord,
    *,
    colour: Colour,
    opponent_rank: Rank,
    rank_before: Rank,
    value_before: Number,
    change: Number,
    rank_after: Rank,
    value_after: Number,
    factors: Mapping[str, Any],
    skipped: str = "",
) -> HistoryRow:
    """One player's row for a game: White's when ``colour`` is White, else Black's."""
    white = colour is Colour.WHITE
    # Positional, in the order of HistoryRow's fields: every engine makes two of these a
    # game, and keywords cost a dataclass's __init__ a third more.
    return HistoryRow(
        record.seq,
        record.date,
        record.round,
        record.white if white else record.black,  # player
        record.black if white else record.white,  # opponent
        opponent_rank,
        colour,
        record.handicap,
        record.komi,
        record.winner,
        record.status,
        record.tournament,
        value_before,
        change,
        value_after,
        rank_before,
        rank_after,
        factors,
        record.comment,
        skipped,
    )


def adjustment_row(
    record: GameRecord,
    *,
    rank_before: Rank,
    value_before: Number,
    change: Number,
    rank_after: Rank,
    value_after: Number,
    factors: Mapping[str, Any],
    skipped: str = "",
) -> HistoryRow:
    """The row of a committee reset: the player is their own opponent (seed 000's sheet)."""
    return HistoryRow(
        seq=record.seq,
        date=record.date,
        round=record.round,
        player=record.white,
        opponent=record.white,
        opponent_rank=rank_before,
        colour=None,
        handicap=0,
        komi=record.komi,
        winner=None,
        status=record.status,
        tournament=record.tournament,
        value_before=value_before,
        change=change,
        value_after=value_after,
        rank_before=rank_before,
        rank_after=rank_after,
        factors=factors,
        comment=record.comment,
        skipped=skipped,
    )
