"""The CSV columns of ``python -m ratings rate`` (SPEC section 3).

The site's ``export_history`` command and its CSV downloads use the same functions,
so that the command line and the site print the same numbers.
"""

from __future__ import annotations

import csv
import functools
import io
from collections.abc import Iterable
from datetime import date
from typing import Protocol

from ..base import Algorithm, HistoryRow, Number, RatedGame, Standing
from ..ranks import STRONGEST_AMATEUR_STONES, WEAKEST_STONES, Rank
from ..records import Colour, Status, Winner
from . import format_komi

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


# A history repeats a few thousand dates and a few dozen ranks: their texts are made
# once (the record sheet of 200,000 games has 400,000 rows).
_date_text = functools.lru_cache(maxsize=65_536)(date.isoformat)


def _rank_text(rank: Rank) -> str:
    if rank.pro:
        return str(rank)
    return _AMATEUR_RANK_TEXTS[rank.stones - WEAKEST_STONES]  # an index: a Rank hashes slowly


_AMATEUR_RANK_TEXTS = tuple(
    str(Rank(stones)) for stones in range(WEAKEST_STONES, STRONGEST_AMATEUR_STONES + 1)
)


def history_comment(row: HistoryRow) -> str:
    return _comment_text(row.comment, row.skipped)


def _comment_text(comment: str, skipped: str) -> str:
    if not skipped:
        return comment
    reason = f"not rated: {skipped}"
    return f"{comment} ({reason})" if comment else reason


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
# The same by id, for the record sheet: a member hashes through Python code, its id (a
# member is a singleton living as long as its class) as an int.
_ENUM_TEXTS_BY_ID = {
    id(None): "",
    **{id(member): member.value for kind in (Colour, Winner, Status) for member in kind},
}


def standing_cells(standing: Standing, algorithm: Algorithm) -> list[str]:
    return [
        standing.player,
        str(standing.rank),
        format_value(standing.value, algorithm.integer_values),
        str(standing.games),
    ]


class Writable(Protocol):
    """Where the CSV goes: a file, ``sys.stdout``, a management command's stdout."""

    def write(self, text: str, /) -> object: ...


def write_history(
    out: Writable, rows: Iterable[HistoryRow | RatedGame], algorithm: Algorithm
) -> None:
    """The record sheet as CSV, the text ``csv.writer`` gives ``history_cells`` of each
    row, made without it: a line is formatted directly from the row, and written a
    few thousand at a time (a writer's call per row was a fifth of the command line's
    time at 200,000 games). A game may come as its :data:`RatedGame`
    (``base.replay_sides``): its two lines are those of ``rows.game_rows`` of it.

    Longer than 60 lines on purpose: it is the command line's inner loop, and each
    step split into a function of its own is a call per line of hundreds of thousands
    (docs/performance.md, "Exact SAGC at float speed, second round")."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HISTORY_COLUMNS)
    integer_values = algorithm.integer_values
    adjustment = Status.ADJUSTMENT
    texts, amateur_ranks = _ENUM_TEXTS_BY_ID, _AMATEUR_RANK_TEXTS
    white_text, black_text = Colour.WHITE.value, Colour.BLACK.value
    # Consecutive rows mostly share their komi (a game's two rows, and a file's games
    # share a few komi objects): its text is made again only for another object.
    komi, komi_text = None, ""
    lines: list[str] = []
    for row in rows:
        if isinstance(row, tuple):  # a game's two lines, from its record and sides
            record, white, black, skipped = row
            white_rank, _, white_change, white_rank_after, white_value, _ = white
            black_rank, _, black_change, black_rank_after, black_value, _ = black
            if (
                integer_values
                and type(white_change) is int
                and type(white_value) is int
                and type(black_change) is int
                and type(black_value) is int
            ):
                white_values = f"{white_change},{white_value}"
                black_values = f"{black_change},{black_value}"
            else:
                white_values = (
                    f"{format_value(white_change, integer_values)},"
                    f"{format_value(white_value, integer_values)}"
                )
                black_values = (
                    f"{format_value(black_change, integer_values)},"
                    f"{format_value(black_value, integer_values)}"
                )
            status = record.status
            if record.komi is not komi:
                komi = record.komi
                komi_text = format_komi(komi)
            white_name, black_name = _csv_cell(record.white), _csv_cell(record.black)
            game = (
                f"{record.handicap},{komi_text if status is not adjustment else ''},"
                f"{texts[id(record.winner)]},{texts[id(status)]},"
            )
            comment = _csv_cell(
                _comment_text(record.comment, skipped) if skipped else record.comment
            )
            end = f",{_date_text(record.date)},{comment}\n"
            # A rank's text by index (a Rank hashes slowly); a professional's is rare.
            white_before = (
                str(white_rank)
                if white_rank.pro
                else amateur_ranks[white_rank.stones - WEAKEST_STONES]
            )
            black_before = (
                str(black_rank)
                if black_rank.pro
                else amateur_ranks[black_rank.stones - WEAKEST_STONES]
            )
            # A rank changes in a game only on a promotion or a demotion.
            white_after = (
                white_before if white_rank_after is white_rank else _rank_text(white_rank_after)
            )
            black_after = (
                black_before if black_rank_after is black_rank else _rank_text(black_rank_after)
            )
            lines.append(
                f"{white_name},{black_name},{black_before},{white_text},{game}"
                f"{white_values},{white_after}{end}"
                f"{black_name},{white_name},{white_before},{black_text},{game}"
                f"{black_values},{black_after}{end}"
            )
        else:
            status = row.status
            change: object = row.change
            value: object = row.value_after
            if not (integer_values and type(change) is int and type(value) is int):
                change = format_value(row.change, integer_values)
                value = format_value(row.value_after, integer_values)
            if row.komi is not komi:
                komi = row.komi
                komi_text = format_komi(komi)
            # A rank's text by index (a Rank hashes slowly); a professional's is rare.
            rank = row.opponent_rank
            opponent_rank = str(rank) if rank.pro else amateur_ranks[rank.stones - WEAKEST_STONES]
            rank = row.rank_after
            rank_after = str(rank) if rank.pro else amateur_ranks[rank.stones - WEAKEST_STONES]
            lines.append(
                f"{_csv_cell(row.player)},{_csv_cell(row.opponent)},{opponent_rank},"
                f"{texts[id(row.colour)]},{row.handicap},"
                f"{komi_text if status is not adjustment else ''},"
                f"{texts[id(row.winner)]},{texts[id(status)]},{change},{value},{rank_after},"
                f"{_date_text(row.date)},"
                f"{_csv_cell(history_comment(row) if row.skipped else row.comment)}\n"
            )
        if len(lines) == _LINES_PER_WRITE:
            out.write("".join(lines))
            lines.clear()
    out.write("".join(lines))


_LINES_PER_WRITE = 4096


@functools.lru_cache(maxsize=65_536)  # usernames and comments repeat
def _csv_cell(text: str) -> str:
    """A cell as ``csv.writer`` writes it among others: as it is, unless it holds a
    character the writer may quote for (then the writer's own text of it)."""
    if not _MAY_QUOTE.intersection(text):
        return text
    line = io.StringIO()
    csv.writer(line, lineterminator="\n").writerow([text, ""])
    return line.getvalue()[: -len(",\n")]


_MAY_QUOTE = frozenset(',"\r\n')


def write_standings(out: Writable, standings: Iterable[Standing], algorithm: Algorithm) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(STANDINGS_COLUMNS)
    for standing in standings:
        writer.writerow(standing_cells(standing, algorithm))
