"""The "how was this computed" panel: the steps an algorithm explains a change with
(``Algorithm.explain``, ``ratings/engine/explanation.py``), worded in the reader's
language.

Each kind of step has its sentence here; the numbers are the engine's. A kind this
module does not know (a new algorithm's own) is shown as its name and its numbers, so
an algorithm never needs an edit here to be explained.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from django.utils.safestring import mark_safe
from django.utils.text import capfirst
from django.utils.translation import gettext as _

from players.web.numbers import (
    MINUS,
    decimal_text,
    factor_text,
    plain_number,
    shown_change,
    shown_value,
    signed,
)
from players.web.tables import escaped
from ratings.engine.base import Algorithm
from ratings.engine.explanation import Step, StoredChange


def stored_change(record) -> StoredChange:
    """A RatingHistory row (its game selected with it) as the engine explains it."""
    game = record.game
    return StoredChange(
        factors=record.factors or {},
        value_before=record.value_before,
        change=record.change,
        value_after=record.value_after,
        rank_before=record.rank_before,
        rank_after=record.rank_after,
        skipped=record.skipped,
        is_adjustment=record.adjustment_id is not None,
        handicap=game.handicap if game is not None else None,
        komi=Decimal(game.komi) if game is not None else None,
    )


def how_html(algorithm: Algorithm, change: StoredChange) -> str:
    """The panel of ``change`` under ``algorithm``, as HTML (plain escaped strings: a
    page has fifty of these, and a template or format_html for each cost more than the
    rest of the page)."""
    parts = ['<div class="how-computed small">']
    notes, details = [], []
    for step in algorithm.explain(change):
        if step.kind == "product":
            parts.append(_product_html(step.numbers, algorithm))
        elif step.kind == "factor":
            numbers = step.numbers
            label = numbers["label"] or numbers["key"].replace("_", " ").capitalize()
            details.append((_(label), factor_text(numbers["value"])))
        else:
            notes.append(_NOTES.get(step.kind, _unknown_note)(step, algorithm))
    if notes:
        items = "".join(f"<li>{escaped(note)}</li>" for note in notes)
        parts.append(f'<ul class="list-unstyled mb-1">{items}</ul>')
    if details:
        items = "".join(
            f"<dt>{escaped(label)}</dt><dd>{escaped(value)}</dd>" for label, value in details
        )
        parts.append(f'<dl class="factors mb-0">{items}</dl>')
    parts.append("</div>")
    return mark_safe("".join(parts))  # every text in it is escaped above


def _product_html(numbers: Mapping[str, Any], algorithm: Algorithm) -> str:
    terms = numbers["terms"]
    symbols = " \u00d7 ".join(term.symbol for term in terms)
    factors = '<span class="operator">\u00d7</span>'.join(
        _factor_html(_(term.name), decimal_text(term.value), term.symbol) for term in terms
    )
    change = shown_change(numbers["change"], algorithm.integer_values)
    return "".join(
        (
            f'<div class="formula" aria-label="{escaped(symbols)}">{factors}',
            '<span class="operator">=</span>',
            _factor_html(_("the exact product"), decimal_text(numbers["product"]), "product"),
            '<span class="operator">\u2192</span>',
            _factor_html(_("rounded"), change, "change", strong=True),
            "</div>",
        )
    )


def _factor_html(name: str, value: str, symbol: str, strong: bool = False) -> str:
    weight = " fw-semibold" if strong else ""
    return (
        f'<span class="factor" title="{escaped(name)}"><span class="number{weight}">'
        f'{escaped(value)}</span><span class="symbol">{escaped(symbol)}</span></span>'
    )


# --- one sentence per kind of step ----------------------------------------------------


def _adjustment(step: Step, algorithm: Algorithm) -> str:
    numbers, integer = step.numbers, algorithm.integer_values
    before = f"{numbers['rank_before']} {shown_value(numbers['value_before'], integer)}"
    after = f"{numbers['rank_after']} {shown_value(numbers['value_after'], integer)}"
    return _("Committee adjustment: %(before)s → %(after)s.") % {
        "before": before,
        "after": after,
    }


def _not_rated(step: Step, algorithm: Algorithm) -> str:
    # a reason the engine marked (a free game) is translated; one with values in it
    # (a board size) is stored as the engine wrote it, in English
    reason = step.numbers["reason"]
    return _("Not rated: %(reason)s.") % {"reason": _(reason) if reason else reason}


def _sum(step: Step, algorithm: Algorithm) -> str:
    numbers = step.numbers
    return _("%(value_label)s %(before)s %(change)s = %(after)s.") % {
        "value_label": capfirst(_(algorithm.value_label)),
        "before": plain_number(numbers["before"], 2),
        "change": shown_change(numbers["change"], False),
        "after": plain_number(numbers["after"], 2),
    }


def _jigo(step: Step, algorithm: Algorithm) -> str:
    return _("Jigo: no change (it still counts as a game for the opponent factor).")


def _effective_handicap(step: Step, algorithm: Algorithm) -> str:
    numbers = step.numbers
    return _("Effective handicap %(effective)s (handicap %(handicap)s, komi %(komi)s).") % {
        "effective": numbers["effective"],
        "handicap": numbers["handicap"],
        "komi": decimal_text(numbers["komi"]) if numbers["komi"] is not None else "",
    }


def _differential(step: Step, algorithm: Algorithm) -> str:
    differential = step.numbers["differential"]
    values = {"differential": signed(differential)}
    if differential > 0:
        return (
            _("Rank/handicap differential %(differential)s: harder than the correct handicap.")
            % values
        )
    if differential < 0:
        return (
            _("Rank/handicap differential %(differential)s: easier than the correct handicap.")
            % values
        )
    return _("Rank/handicap differential %(differential)s: the correct handicap.") % values


def _zone(step: Step, algorithm: Algorithm) -> str:
    numbers = step.numbers
    values = {"index": shown_value(numbers["index"], True), "rank": numbers["rank"]}
    if numbers["zone"] == "promotion":
        return _("Promotion zone (index %(index)s at %(rank)s).") % values
    return _("Demotion zone (index %(index)s at %(rank)s).") % values


def _loss_barrier(step: Step, algorithm: Algorithm) -> str:
    numbers = step.numbers
    return _("Loss barrier: the index stops at %(barrier)s (without it: %(unbarred)s).") % {
        "barrier": plain_number(numbers["barrier"]),
        "unbarred": plain_number(numbers["unbarred"]),
    }


def _promoted(step: Step, algorithm: Algorithm) -> str:
    numbers = step.numbers
    return _("Past +%(limit)s: promoted to %(rank)s, index 0.") % {
        "limit": numbers["limit"],
        "rank": numbers["rank"],
    }


def _demoted(step: Step, algorithm: Algorithm) -> str:
    numbers = step.numbers
    return _("Past %(minus)s%(limit)s: demoted to %(rank)s, index 0.") % {
        "minus": MINUS,
        "limit": numbers["limit"],
        "rank": numbers["rank"],
    }


def _index_limit(step: Step, algorithm: Algorithm) -> str:
    return _("A 9d is never promoted: the index stops at +%(limit)s.") % {
        "limit": step.numbers["limit"]
    }


def _unknown_note(step: Step, algorithm: Algorithm) -> str:
    """A kind of step no sentence here words: its name, then its numbers."""
    numbers = ", ".join(f"{key} {factor_text(value)}" for key, value in step.numbers.items())
    name = step.kind.replace("_", " ").capitalize()
    return f"{name}: {numbers}." if numbers else f"{name}."


_NOTES: dict[str, Callable[[Step, Algorithm], str]] = {
    "adjustment": _adjustment,
    "not_rated": _not_rated,
    "sum": _sum,
    "jigo": _jigo,
    "effective_handicap": _effective_handicap,
    "differential": _differential,
    "zone": _zone,
    "loss_barrier": _loss_barrier,
    "promoted": _promoted,
    "demoted": _demoted,
    "index_limit": _index_limit,
}
