"""Dates as volunteers type them: ``2026-11-02``, ``2/11``, ``2 Nov``, ``02112026``,
``t`` for today. Day before month, as on the club's paper sheets; a date typed without
its year is the latest such date that is not in the future (a sheet is entered after
it was played). Pure functions: ``today`` is the club's date, given by the caller."""

from __future__ import annotations

import re
import unicodedata
from datetime import date, timedelta

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            # English, then French and Afrikaans (the site's languages): a volunteer
            # types the month as they say it, whatever the page's language.
            ("jan", "january", "janv", "janvier", "januarie"),
            ("feb", "february", "fév", "févr", "février", "fev", "fevr", "fevrier", "februarie"),
            ("mar", "march", "mars", "mrt", "maart"),
            ("apr", "april", "avr", "avril"),
            ("may", "mai", "mei"),
            ("jun", "june", "juin", "junie"),
            ("jul", "july", "juil", "juillet", "julie"),
            ("aug", "august", "août", "aout", "augustus"),
            ("sep", "sept", "september", "septembre"),
            ("oct", "october", "octobre", "okt", "oktober"),
            ("nov", "november", "novembre"),
            ("dec", "december", "déc", "décembre", "decembre", "des", "desember"),
        ],
        start=1,
    )
    for name in names
}
TODAY_WORDS = frozenset({"t", "today"})
YESTERDAY_WORDS = frozenset({"y", "yesterday"})
TYPED_DATE_HELP = gettext_lazy("e.g. 2026-11-02, 2/11, 2 Nov or 02112026; t for today")

_ISO = re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$")
_DAY_MONTH = re.compile(r"^(\d{1,2})[-/.](\d{1,2})(?:[-/.](\d{2}|\d{4}))?$")
_DAY_NAMED_MONTH = re.compile(r"^(\d{1,2})\s*([^\W\d_]+)\.?,?(?:\s+(\d{2}|\d{4}))?$")
_NAMED_MONTH_DAY = re.compile(r"^([^\W\d_]+)\.?\s*(\d{1,2}),?(?:\s+(\d{2}|\d{4}))?$")


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
        raise TypedDateError(
            _("'%(typed)s' is not a date: '%(name)s' is not a month")
            % {"typed": typed, "name": name}
        ) from None


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
        raise TypedDateError(
            _("'%(typed)s' is not a date (day %(day)s, month %(month)s)")
            % {"typed": typed, "day": day, "month": month}
        ) from None


def parse_typed_date(text: str, today: date) -> date:
    """The date ``text`` stands for (see the module's description)."""
    typed = (text or "").strip()
    # The parts as typed (a year may be left out); _build takes them as numbers.
    day: str
    month: str
    year: str | None
    key = unicodedata.normalize("NFC", typed).lower()  # "févr" typed with a combining accent
    if key in TODAY_WORDS:
        return today
    if key in YESTERDAY_WORDS:
        return today - timedelta(days=1)
    if match := _ISO.match(key):
        year, month, day = match.groups()
        return _build(typed, int(day), int(month), int(year), today)
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
    raise TypedDateError(
        _("'%(typed)s' is not a date (%(help)s)") % {"typed": typed, "help": TYPED_DATE_HELP}
    )
