"""The record-sheet rows every algorithm writes: the game's own columns come from its
record, the rating columns from the algorithm."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import HistoryRow, Number, RowSide
from .frozen import frozen_builder
from .ranks import Rank
from .records import Colour, GameRecord

_build_row = frozen_builder(HistoryRow)


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
    # Every field, in the order of HistoryRow's: every engine makes two of these a game.
    return _build_row(
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


# A player's side of a game: (rank_before, value_before, change, rank_after, value_after,
# factors).
Side = RowSide


def game_rows(record: GameRecord, white: Side, black: Side, skipped: str = "") -> list[HistoryRow]:
    """White's row and Black's for a game, as :func:`game_row` makes them, in one call
    and without keywords (the cheaper way for an engine that rates every game)."""
    white_rank, white_before, white_change, white_rank_after, white_after, white_factors = white
    black_rank, black_before, black_change, black_rank_after, black_after, black_factors = black
    seq, played_on, round_number = record.seq, record.date, record.round
    white_name, black_name = record.white, record.black
    handicap, komi, winner = record.handicap, record.komi, record.winner
    status, tournament, comment = record.status, record.tournament, record.comment
    return [
        _build_row(
            seq, played_on, round_number, white_name, black_name, black_rank, Colour.WHITE,
            handicap, komi, winner, status, tournament, white_before, white_change,
            white_after, white_rank, white_rank_after, white_factors, comment, skipped,
        ),
        _build_row(
            seq, played_on, round_number, black_name, white_name, white_rank, Colour.BLACK,
            handicap, komi, winner, status, tournament, black_before, black_change,
            black_after, black_rank, black_rank_after, black_factors, comment, skipped,
        ),
    ]  # fmt: skip


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
