"""Reading the rank lists clubs download, whatever their format: one entry point,
:func:`read_rank_list`, from the bytes of an upload (or pasted text) to a ``RankList``.

No database. Every format (unpacking, decoding, the EGD rating list, the AGA TDList, the
simple list) is read by ``ratings.engine.formats.ranklists``, in the engine's English;
this translates what it says (a refused file, a bad line's reason) into the reader's
language.
"""

from __future__ import annotations

from datetime import date

from players.resync import translated_bad_lines
from players.translated import translated
from ratings.engine.formats import ranklists
from ratings.engine.formats.ranklists import (
    AGA,
    AGA_STRONGEST_DAN,
    EGD,
    SIMPLE,
    RankList,
    aga_gor,
    aga_rank,
    decode,
    egd_tournament_day,
    looks_binary,
    unpack,
)

__all__ = [
    "AGA",
    "AGA_STRONGEST_DAN",
    "EGD",
    "SIMPLE",
    "ListFormatError",
    "aga_gor",
    "aga_rank",
    "decode",
    "egd_tournament_day",
    "looks_binary",
    "read_rank_list",
    "unpack",
]


class ListFormatError(ranklists.ListFormatError):
    """The file as a whole cannot be read as a rank list: the message (translated) says
    why."""


def read_rank_list(
    data: bytes | str, *, default_date: date | None, today: date, list_date_first: bool = False
) -> RankList:
    """The players and ranks of a list in any known format, read by
    ``ratings.engine.formats.ranklists.read_rank_list``, with the reasons of its bad
    lines in the reader's language. Raises :class:`ListFormatError`, its message
    translated, for a file that is no list.
    """
    try:
        result = ranklists.read_rank_list(
            data, default_date=default_date, today=today, list_date_first=list_date_first
        )
    except ranklists.ListFormatError as error:
        raise ListFormatError(translated(error.message)) from None
    result.bad = translated_bad_lines(result.bad)
    return result
