"""The CSV columns of ``python -m ratings rate`` (SPEC section 3).

The site's ``export_history`` command and its CSV downloads use the same functions,
so that the command line and the site print the same numbers.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from fractions import Fraction
from typing import TextIO

from .base import Algorithm, HistoryRow, Number, Standing

HISTORY_COLUMNS = (
    "player",
    "opponent",
    "opponent_rank",
    "colour",
    "handicap",
    "komi",
    "winner",
    "status",
    "change",
    "new_value",
    "new_rank",
    "date",
    "comment",
)
STANDINGS_COLUMNS = ("player", "rank", "value", "games")


def format_value(value: Number, integer_values: bool) -> str:
    """SAGC indexes as integers; ratings at full precision (``repr`` of the float)."""
    if integer_values:
        return str(int(value))
    # + 0.0 turns -0.0 into 0.0: a change of "-0.0" means nothing to a reader, and the
    # database does not keep the sign of zero.
    return repr(float(value) + 0.0)


def format_komi(komi: Fraction) -> str:
    if komi.denominator == 1:
        return str(komi.numerator)
    return str(float(komi))


def history_comment(row: HistoryRow) -> str:
    if not row.skipped:
        return row.comment
    reason = f"not rated: {row.skipped}"
    return f"{row.comment} ({reason})" if row.comment else reason


def history_cells(row: HistoryRow, algorithm: Algorithm) -> list[str]:
    integer_values = algorithm.integer_values
    return [
        row.player,
        row.opponent,
        str(row.opponent_rank),
        row.colour.value if row.colour else "",
        str(row.handicap),
        format_komi(row.komi) if not row.is_adjustment else "",
        row.winner.value if row.winner else "",
        row.status.value,
        format_value(row.change, integer_values),
        format_value(row.value_after, integer_values),
        str(row.rank_after),
        row.date.isoformat(),
        history_comment(row),
    ]


def standing_cells(standing: Standing, algorithm: Algorithm) -> list[str]:
    return [
        standing.player,
        str(standing.rank),
        format_value(standing.value, algorithm.integer_values),
        str(standing.games),
    ]


def write_history(out: TextIO, rows: Iterable[HistoryRow], algorithm: Algorithm) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HISTORY_COLUMNS)
    for row in rows:
        writer.writerow(history_cells(row, algorithm))


def write_standings(out: TextIO, standings: Iterable[Standing], algorithm: Algorithm) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(STANDINGS_COLUMNS)
    for standing in standings:
        writer.writerow(standing_cells(standing, algorithm))
