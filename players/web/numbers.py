"""Numbers as the pages show them, one function per job: a number in the page's
language (``localized``), a signed change, a value or change as its algorithm shows it,
a fraction or factor as a short decimal. Pages, CSV and the API decide only the
precision; files and the API keep the point (``ratings.engine.formats.history``)."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.utils.formats import get_format, number_format
from django.utils.translation import gettext as _

from ratings.engine.base import Algorithm, Number

MINUS = "\u2212"


def localized(text: str) -> str:
    """A number written with a point (``6.5``) as the page's language writes it: ``6,5``
    in French and Afrikaans. For display only: files and the API keep the point."""
    if "." not in text:
        return text
    separator = get_format("DECIMAL_SEPARATOR")
    return text if separator == "." else text.replace(".", separator)


_FILE_NUMBER = re.compile(r"^[+-]?\d+(\.\d+)?$")


def file_number(text: str) -> str | None:
    """A number as a file writes it (an h-file's adjusted time, ``82.5``) in the page's
    language (``82,5`` in French); None for text that is no plain number (``3h``)."""
    text = text.strip()
    if not _FILE_NUMBER.match(text):
        return None
    return localized(text.replace("-", MINUS))


def signed(number: float | int, decimals: int = 0) -> str:
    """``+345``, ``-320`` (with a minus sign), ``0``, ``+8.12``: a change as a reader
    expects it."""
    text = f"{number:+.{decimals}f}"
    if float(text) == 0:
        return localized(f"{0:.{decimals}f}")
    return localized(text.replace("-", MINUS))


def plain_number(number: float | int, decimals: int = 0) -> str:
    return localized(f"{number:.{decimals}f}".replace("-", MINUS))


def count_text(count: int) -> str:
    """A count in running text, grouped as the page's language writes numbers:
    ``1,234`` in English, ``1 234`` in French and Afrikaans (a non-breaking space)."""
    return number_format(count, force_grouping=True)


def percent_text(share: float, places: int = 0) -> str:
    """A share (``0.583``) as a percentage in the page's language: ``58.3%``, ``58,3 %``
    in French (a non-breaking space before the sign)."""
    return _("%(percent)s%%") % {"percent": plain_number(100 * share, places)}


def shown_value(value: float, integer_values: bool) -> str:
    """An index as an integer; a rating rounded to whole points (full precision in CSV)."""
    return plain_number(int(value) if integer_values else round(value))


def shown_rating(rating, algorithm: Algorithm) -> str:
    """A current rating's value as the pages show it; empty where there is none."""
    return shown_value(rating.value, algorithm.integer_values) if rating is not None else ""


def shown_change(change: Number, integer_values: bool) -> str:
    """A change as its algorithm shows it: whole for an index, else to two places (an
    engine may keep it as a Fraction, which Python 3.11 cannot format with places)."""
    return signed(int(change)) if integer_values else signed(float(change), 2)


def decimal_text(number: Decimal | Fraction | float | int | str, places: int = 2) -> str:
    """A number, or a fraction as the engines record factors, as a short decimal:
    ``1775/3`` -> ``591.67``, ``3/2`` -> ``1.5``, ``-639/2`` -> ``-319.5`` (minus sign).

    For display only (the stored fraction stays exact), and quick: a log page shows
    hundreds of these.
    """
    if isinstance(number, str):
        numerator, _, denominator = number.partition("/")
        try:
            value = int(numerator) / int(denominator or 1)  # correctly rounded
        except ValueError:
            value = float(Fraction(number))
    else:
        value = float(number)
    text = f"{value:.{places}f}".rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    return localized(text.replace("-", MINUS))


_FRACTION = re.compile(r"^-?\d+/\d+$")


def factor_text(value: Any) -> str:
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, int):
        return plain_number(value)
    if isinstance(value, float):
        return localized(f"{value:.6g}".replace("-", MINUS))
    if isinstance(value, str) and _FRACTION.match(value):
        return decimal_text(value, 4)
    if isinstance(value, list | dict):
        return json.dumps(value)
    return str(value)


def value_text(value: float) -> str:
    """A stored index or rating whatever the algorithm: a whole number as such (SAGC),
    any other to two decimals."""
    return plain_number(value, 0 if float(value).is_integer() else 2)


def change_text(change: float) -> str:
    """A stored change whatever the algorithm: whole as such, any other to two decimals."""
    return signed(change, 0 if float(change).is_integer() else 2)
