"""Reading the rank lists clubs download, whatever their format: one entry point,
:func:`read_rank_list`, from the bytes of an upload (or pasted text) to a ``RankList``.

Pure Python, no database. The formats (unpacking, decoding, the EGD rating list and the
AGA TDList) are read by ``ratings.engine.formats.ranklists``, in the engine's English;
the simple list by ``resync.parse_rank_list``. This puts them together and translates
what the engine says (a refused file, a bad line's reason) into the reader's language.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from django.utils.translation import gettext as _

from players.resync import parse_rank_list, translated_bad_lines
from players.translated import translated
from ratings.engine.formats import ranklists
from ratings.engine.formats.ranklists import (
    AGA,
    AGA_STRONGEST_DAN,
    EGD,
    MAX_LINE_LENGTH,
    NOT_TEXT,
    SIMPLE,
    SNIFF_LINES,
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


# --- any list -----------------------------------------------------------------------


def read_rank_list(
    data: bytes | str, *, default_date: date | None, today: date, list_date_first: bool = False
) -> RankList:
    """The players and ranks of a list in any known format (see the module's docstring).

    ``default_date`` is the effective date of lines without one (the form's date), the
    list's own date standing in when it is None, or standing first with
    ``list_date_first``; ``today`` bounds the dates. Raises :class:`ListFormatError`
    for a file that is no list.
    """
    try:
        return _read(data, default_date, today, list_date_first)
    except ranklists.ListFormatError as error:
        if isinstance(error, ListFormatError):
            raise
        raise ListFormatError(translated(error.message)) from None


def _read(
    data: bytes | str, default_date: date | None, today: date, list_date_first: bool
) -> RankList:
    container = ""
    if isinstance(data, bytes):
        data, container = unpack(data)
        text = decode(data)
    else:
        text = data
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise ListFormatError(_("The list is empty."))
    if looks_binary(text):
        raise ListFormatError(_(NOT_TEXT))
    lines = text.splitlines()
    # Cut to a line's length: the sniffers' patterns scanned all of a 15 MB line of
    # commas, 8 s; no list of any format has lines that long (the EGD's: 121).
    sniffed = [line[:MAX_LINE_LENGTH] for line in lines[:SNIFF_LINES] if line.strip()]
    if ranklists.is_egd(sniffed):
        result = _translated(ranklists.read_egd(lines, default_date, list_date_first))
    elif ranklists.is_aga(sniffed):
        result = _translated(ranklists.read_aga(lines, default_date))
    else:
        result = replace(
            parse_rank_list(text, default_date=default_date, today=today), format=SIMPLE
        )
    if not result.listed and not result.unrated:
        raise ListFormatError(
            _(
                "No line of this file reads as a player and a rank: it is neither an EGD rating "
                "list, an AGA TDList, nor a list of “name, rank, date” lines (see the help "
                "below)."
            )
        )
    result.container = container
    return result


def _translated(result: RankList) -> RankList:
    """The engine's reasons for bad lines, in the reader's language."""
    result.bad = translated_bad_lines(result.bad)
    return result
