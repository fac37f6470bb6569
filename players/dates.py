"""Dates as volunteers type them: ``2026-11-02``, ``2/11``, ``2 Nov``, ``02112026``,
``t`` for today. Day before month, as on the club's paper sheets; a date typed without
its year is the latest such date that is not in the future (a sheet is entered after
it was played). Pure functions: ``today`` is the club's date, given by the caller."""

from __future__ import annotations

import re
from datetime import date, timedelta

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for name in names
}
TODAY_WORDS = frozenset({"t", "today"})
YESTERDAY_WORDS = frozenset({"y", "yesterday"})
TYPED_DATE_HELP = "e.g. 2026-11-02, 2/11, 2 Nov or 02112026; t for today"

_ISO = re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$")
_DAY_MONTH = re.compile(r"^(\d{1,2})[-/.](\d{1,2})(?:[-/.](\d{2}|\d{4}))?$")
_DAY_NAMED_MONTH = re.compile(r"^(\d{1,2})\s*([a-z]+)\.?,?(?:\s+(\d{2}|\d{4}))?$")
_NAMED_MONTH_DAY = re.compile(r"^([a-z]+)\.?\s*(\d{1,2}),?(?:\s+(\d{2}|\d{4}))?$")


class TypedDateError(ValueError):
    """A text that is no date; the message says what was typed and what would do."""


def _year(text: str | None) -> int | None:
    if text is None:
        return None
    return 2000 + int(text) if len(text) == 2 else int(text)


def _month(name: str, typed: str) -> int:
    try:
        return MONTHS[name]
    except KeyError:
        raise TypedDateError(f"'{typed}' is not a date: '{name}' is not a month") from None


def _build(typed: str, day: int, month: int, year: int | None, today: date) -> date:
    try:
        if year is not None:
            return date(year, month, day)
        found = date(today.year, month, day) if (month, day) != (2, 29) else None
        if found is None or found > today:
            # The latest such date not in the future (29 Feb: the latest leap year's).
            year = today.year - (found is not None)
            while True:
                try:
                    return date(year, month, day)
                except ValueError:
                    if (month, day) != (2, 29):
                        raise
                    year -= 1
        return found
    except ValueError:
        raise TypedDateError(f"'{typed}' is not a date (day {day}, month {month})") from None


def parse_typed_date(text: str, today: date) -> date:
    """The date ``text`` stands for (see the module's description)."""
    typed = (text or "").strip()
    key = typed.lower()
    if key in TODAY_WORDS:
        return today
    if key in YESTERDAY_WORDS:
        return today - timedelta(days=1)
    if match := _ISO.match(key):
        year, month, day = (int(part) for part in match.groups())
        return _build(typed, day, month, year, today)
    if match := _DAY_MONTH.match(key):
        day, month, year = match.groups()
        return _build(typed, int(day), int(month), _year(year), today)
    if match := _DAY_NAMED_MONTH.match(key):
        day, name, year = match.groups()
        return _build(typed, int(day), _month(name, typed), _year(year), today)
    if match := _NAMED_MONTH_DAY.match(key):
        name, day, year = match.groups()
        return _build(typed, int(day), _month(name, typed), _year(year), today)
    if key.isdigit() and len(key) in (4, 6, 8):
        day, month, year = key[:2], key[2:4], key[4:] or None
        try:
            return _build(typed, int(day), int(month), _year(year), today)
        except TypedDateError:
            if len(key) != 8:
                raise
        # 20261102: the ISO date without its dashes
        return _build(typed, int(key[6:]), int(key[4:6]), int(key[:4]), today)
    raise TypedDateError(f"'{typed}' is not a date ({TYPED_DATE_HELP})")
