"""The CSV columns of ``python -m ratings rate`` (SPEC section 3).

The site's ``export_history`` command and its CSV downloads use the same functions,
so that the command line and the site print the same numbers.
"""

from __future__ import annotations

import csv
import functools
from collections.abc import Iterable
from datetime import date
from fractions import Fraction
from typing import TextIO

from .base import Algorithm, HistoryRow, Number, Standing
from .ranks import Rank
from .records import Colour, Status, Winner

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


def exact_value(value: Number, integer_values: bool) -> int | float:
    """An algorithm's value as the files and the API give it: SAGC indexes as integers,
    ratings at full precision."""
    if integer_values:
        return int(value)
    # + 0.0 turns -0.0 into 0.0: a change of "-0.0" means nothing to a reader, and the
    # database does not keep the sign of zero.
    return float(value) + 0.0


def format_value(value: Number, integer_values: bool) -> str:
    """:func:`exact_value` as text (a float's ``repr``: every digit it holds)."""
    return str(exact_value(value, integer_values))


def format_komi(komi: Fraction) -> str:
    numerator, denominator = komi.numerator, komi.denominator
    if denominator == 1:
        return str(numerator)
    return str(numerator / denominator)  # what float(komi) is, without its detour


# A history repeats a few thousand dates and a few dozen ranks: their texts are made
# once (the record sheet of 200,000 games has 400,000 rows).
_date_text = functools.lru_cache(maxsize=65_536)(date.isoformat)


def _rank_text(rank: Rank) -> str:
    return _rank_text_of(rank.stones, rank.pro)  # two ints hash faster than a Rank


@functools.lru_cache(maxsize=1024)
def _rank_text_of(stones: int, pro: int) -> str:
    return str(Rank(stones, pro))


def history_comment(row: HistoryRow) -> str:
    if not row.skipped:
        return row.comment
    reason = f"not rated: {row.skipped}"
    return f"{row.comment} ({reason})" if row.comment else reason


def history_cells(row: HistoryRow, algorithm: Algorithm) -> list[str]:
    integer_values = algorithm.integer_values
    status = row.status
    return [
        row.player,
        row.opponent,
        _rank_text(row.opponent_rank),
        _ENUM_TEXTS[row.colour],
        str(row.handicap),
        format_komi(row.komi) if status is not Status.ADJUSTMENT else "",
        _ENUM_TEXTS[row.winner],
        _ENUM_TEXTS[status],
        format_value(row.change, integer_values),
        format_value(row.value_after, integer_values),
        _rank_text(row.rank_after),
        _date_text(row.date),
        history_comment(row) if row.skipped else row.comment,
    ]


# An enum member's ``.value`` goes through a descriptor: a dictionary is faster. (Colour and
# Winner share their texts, so their equal members sharing a key is harmless.)
_ENUM_TEXTS: dict[Colour | Winner | Status | None, str] = {
    None: "",
    **{member: member.value for kind in (Colour, Winner, Status) for member in kind},
}


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
