"""Table cells both apps share: numbers, signed changes, values, and the "how was this
computed" explanations."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.utils.formats import get_format
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from players.selectors.algorithms import AlgorithmInfo
from ratings.engine.base import registry
from ratings.engine.description import FormulaFactor

MINUS = "\u2212"


def player_link(player):
    """A player's username, linked to their page."""
    return format_html('<a href="{}">{}</a>', player.get_absolute_url(), player.username)


TABLE_ATTRS = {"class": "table table-sm table-hover align-middle"}


NUMBER = {"td": {"class": "text-end"}, "th": {"class": "text-end"}}


NUMBER_WIDE_SCREENS_ONLY = {
    "td": {"class": "text-end d-none d-md-table-cell"},
    "th": {"class": "text-end d-none d-md-table-cell"},
}


# a column that a phone leaves out (the table still scrolls sideways if need be)
WIDE_SCREENS_ONLY = {
    "th": {"class": "d-none d-md-table-cell"},
    "td": {"class": "d-none d-md-table-cell"},
}


RESPONSIVE_TEMPLATE = "django_tables2/bootstrap5-responsive.html"


def escaped(value: Any) -> str:
    """Any value as escaped text, as Django's ``escape`` gives it (without its lazy-text
    wrapper, which costs more than the escaping on a page of thousands of cells)."""
    return html.escape(str(value))


def escape_cell(value: Any) -> str:
    """Django's ``conditional_escape``, as cheaply: safe HTML as it is, anything else
    escaped."""
    return value.__html__() if hasattr(value, "__html__") else escaped(value)


def localized(text: str) -> str:
    """A number written with a point (``6.5``) as the page's language writes it: ``6,5``
    in French and Afrikaans. For display only: files and the API keep the point."""
    if "." not in text:
        return text
    separator = get_format("DECIMAL_SEPARATOR")
    return text if separator == "." else text.replace(".", separator)


def signed(number: float | int, decimals: int = 0) -> str:
    """``+345``, ``-320`` (with a minus sign), ``0``, ``+8.12``: a change as a reader
    expects it."""
    text = f"{number:+.{decimals}f}"
    if float(text) == 0:
        return localized(f"{0:.{decimals}f}")
    return localized(text.replace("-", MINUS))


def plain_number(number: float | int, decimals: int = 0) -> str:
    return localized(f"{number:.{decimals}f}".replace("-", MINUS))


def shown_value(value: float, integer_values: bool) -> str:
    """An index as an integer; a rating rounded to whole points (full precision in CSV)."""
    return plain_number(int(value) if integer_values else round(value))


def shown_rating(rating, algorithm: AlgorithmInfo) -> str:
    """A current rating's value as the pages show it; empty where there is none."""
    return shown_value(rating.value, algorithm.integer_values) if rating is not None else ""


def shown_change(change: float, integer_values: bool) -> str:
    return signed(int(change)) if integer_values else signed(change, 2)


def decimal_text(number: Fraction | float | int | str, places: int = 2) -> str:
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


@dataclass(frozen=True, slots=True)
class Factor:
    symbol: str
    name: str
    value: str


@dataclass(slots=True)
class Explanation:
    """What the "how was this computed" panel of a row shows."""

    formula: list[Factor] = field(default_factory=list)  # SAGC's LF x GSF x OF x GRF x HF
    product: str = ""
    change: str = ""
    notes: list[str] = field(default_factory=list)
    details: list[tuple[str, str]] = field(default_factory=list)


_HIDDEN_FACTORS = {"adjustment", "skipped"}


_FRACTION = re.compile(r"^-?\d+/\d+$")


def how_html(explanation: Explanation) -> str:
    """The "how was this computed" panel, as HTML (plain escaped strings: a page has
    fifty of these, and a template or format_html for each cost more than the rest of
    the page)."""
    parts = ['<div class="how-computed small">']
    if explanation.formula:
        symbols = " \u00d7 ".join(factor.symbol for factor in explanation.formula)
        numbers = '<span class="operator">\u00d7</span>'.join(
            _factor_html(factor.name, factor.value, factor.symbol) for factor in explanation.formula
        )
        parts += [
            f'<div class="formula" aria-label="{escaped(symbols)}">{numbers}',
            '<span class="operator">=</span>',
            _factor_html(_("the exact product"), explanation.product, "product"),
            '<span class="operator">\u2192</span>',
            _factor_html(_("rounded"), explanation.change, "change", strong=True),
            "</div>",
        ]
    if explanation.notes:
        notes = "".join(f"<li>{escaped(note)}</li>" for note in explanation.notes)
        parts.append(f'<ul class="list-unstyled mb-1">{notes}</ul>')
    if explanation.details:
        details = "".join(
            f"<dt>{escaped(label)}</dt><dd>{escaped(value)}</dd>"
            for label, value in explanation.details
        )
        parts.append(f'<dl class="factors mb-0">{details}</dl>')
    parts.append("</div>")
    return mark_safe("".join(parts))  # every text in it is escaped above


def _factor_html(name: str, value: str, symbol: str, strong: bool = False) -> str:
    weight = " fw-semibold" if strong else ""
    return (
        f'<span class="factor" title="{escaped(name)}"><span class="number{weight}">'
        f'{escaped(value)}</span><span class="symbol">{escaped(symbol)}</span></span>'
    )


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


def factor_label(key: str, own: Mapping[str, str]) -> str:
    """The algorithm's own label of a factor (``Algorithm.factor_labels``), else another
    algorithm's, else the key made readable: a new factor never breaks the page."""
    label = own.get(key)
    if label is None:
        label = next(
            (cls.factor_labels[key] for cls in registry().values() if key in cls.factor_labels),
            None,
        )
    return label or key.replace("_", " ").capitalize()


def explain(record, algorithm: AlgorithmInfo) -> Explanation:
    """How the change of one RatingHistory row came about, from its stored factors."""
    factors = record.factors or {}
    explanation = Explanation(change=shown_change(record.change, algorithm.integer_values))
    before = shown_value(record.value_before, algorithm.integer_values)
    after = shown_value(record.value_after, algorithm.integer_values)
    if record.adjustment_id or factors.get("adjustment"):
        explanation.notes.append(
            _("Committee adjustment: %(before)s → %(after)s.")
            % {"before": f"{record.rank_before} {before}", "after": f"{record.rank_after} {after}"}
        )
    if record.skipped:
        explanation.notes.append(_("Not rated: %(reason)s.") % {"reason": record.skipped})
    if algorithm.formula and algorithm.formula[0].key in factors:
        _explain_sagc(record, factors, explanation, algorithm.formula)
        return explanation
    if not record.skipped and not record.adjustment_id:
        explanation.notes.append(
            f"{algorithm.value_label} {plain_number(record.value_before, 2)} "
            f"{shown_change(record.change, False)} = {plain_number(record.value_after, 2)}."
        )
    explanation.details = [
        (factor_label(key, algorithm.factor_labels), factor_text(value))
        for key, value in factors.items()
        if key not in _HIDDEN_FACTORS
    ]
    return explanation


def _explain_sagc(
    record, factors: dict, explanation: Explanation, formula: tuple[FormulaFactor, ...]
) -> None:
    explanation.formula = [
        Factor(factor.symbol, factor.name, decimal_text(factors[factor.key]))
        for factor in formula
        if factor.key in factors
    ]
    explanation.product = decimal_text(factors.get("product", "0"))
    result = factors.get("result", "")
    notes = explanation.notes
    if result == "jigo":
        notes.append("Jigo: no change (it still counts as a game for the opponent factor).")
    game = record.game
    if game is not None:
        komi = format(Decimal(game.komi).normalize(), "f")
        notes.append(
            f"Effective handicap {factors.get('effective_handicap')} "
            f"(handicap {game.handicap}, komi {komi})."
        )
    differential = factors.get("differential")
    if differential is not None:
        meaning = (
            "harder than the correct handicap"
            if differential > 0
            else "easier than the correct handicap"
            if differential < 0
            else "the correct handicap"
        )
        notes.append(f"Rank/handicap differential {signed(differential)}: {meaning}.")
    zone = factors.get("zone")
    if zone:
        notes.append(
            f"{zone.capitalize()} zone (index {shown_value(record.value_before, True)} "
            f"at {record.rank_before})."
        )
    if "barrier" in factors:
        unbarred = int(record.value_before + record.change)
        notes.append(
            f"Loss barrier: the index stops at {plain_number(factors['barrier'])} "
            f"(without it: {plain_number(unbarred)})."
        )
    if factors.get("promoted"):
        notes.append(f"Past +999: promoted to {record.rank_after}, index 0.")
    if factors.get("demoted"):
        notes.append(f"Past \u2212999: demoted to {record.rank_after}, index 0.")
    if "limit" in factors:
        notes.append(f"A 9d is never promoted: the index stops at +{factors['limit']}.")


COLOUR_NOT_GIVEN_TITLE = gettext_lazy(
    "The tournament file gave no colour for this game (an even game)"
)


def colour_not_given() -> str:
    """The Colour cell of a game whose file gave no colours (an even game)."""
    return format_html(
        '<span class="text-nowrap" title="{}">{}</span>',
        COLOUR_NOT_GIVEN_TITLE,
        _("not given"),
    )
