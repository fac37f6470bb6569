"""How an algorithm explains one change, as data the pages render.

The "how was this computed" panel of a row of a log page (and of the calculator) is a
tuple of :class:`Step`s that the algorithm returns for the change
(``Algorithm.explain``): each a kind and its numbers, no wording. The pages word
each kind in the reader's language; a kind they do not know is still shown, its name
and numbers as they are, so an algorithm may add its own.

The kinds every algorithm may use:

- ``adjustment``: a committee adjustment (``rank_before``, ``value_before``,
  ``rank_after``, ``value_after``);
- ``not_rated``: the algorithm did not rate the game (``reason``);
- ``product``: the change is a product of factors (``terms``: each a
  :class:`Term`; ``product``, the exact product as a fraction's text; ``change``);
- ``sum``: the value before, the change and the value after (``before``,
  ``change``, ``after``);
- ``factor``: one factor the row keeps (``key``, ``label``, ``value``).

SAGC adds its own (``sagc.py``): ``jigo``, ``effective_handicap``, ``differential``,
``zone``, ``loss_barrier``, ``promoted``, ``demoted`` and ``index_limit``.

Nothing here knows Django.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from .description import FormulaFactor
from .ranks import Rank

Number = int | float | Fraction

ADJUSTMENT = "adjustment"
NOT_RATED = "not_rated"
PRODUCT = "product"
SUM = "sum"
FACTOR = "factor"

# Factors a row keeps for the replay's own use, never shown as a factor.
HIDDEN_FACTORS = frozenset({"adjustment", "skipped"})


@dataclass(frozen=True, slots=True)
class StoredChange:
    """One player's change as the site keeps it (a history row, or the calculator's
    engine row): what an explanation is made from."""

    factors: Mapping[str, Any]
    value_before: Number
    change: Number
    value_after: Number
    rank_before: Rank
    rank_after: Rank
    skipped: str = ""
    is_adjustment: bool = False
    # the game's, None for an adjustment
    handicap: int | None = None
    komi: Fraction | Decimal | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """One step of an explanation: its kind (see the module's list) and its numbers."""

    kind: str
    numbers: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Term:
    """One factor of a product: its symbol, its name and its value (a fraction's text,
    as the row keeps it)."""

    symbol: str
    name: str
    value: str


def opening_steps(change: StoredChange) -> list[Step]:
    """What comes first whatever the algorithm: an adjustment, a game not rated."""
    steps = []
    if change.is_adjustment or change.factors.get("adjustment"):
        steps.append(
            Step(
                ADJUSTMENT,
                {
                    "rank_before": change.rank_before,
                    "value_before": change.value_before,
                    "rank_after": change.rank_after,
                    "value_after": change.value_after,
                },
            )
        )
    if change.skipped:
        steps.append(Step(NOT_RATED, {"reason": change.skipped}))
    return steps


def product_step(formula: Iterable[FormulaFactor], change: StoredChange) -> Step | None:
    """The change as the product of the formula's factors the row keeps; None when the
    row keeps none of them (an adjustment, a game not rated)."""
    factors = change.factors
    terms = tuple(
        Term(factor.symbol, factor.name, str(factors[factor.key]))
        for factor in formula
        if factor.key in factors
    )
    if not terms:
        return None
    return Step(
        PRODUCT,
        {"terms": terms, "product": str(factors.get("product", "0")), "change": change.change},
    )


def sum_step(change: StoredChange) -> Step | None:
    """Before, change, after, for a rated game (None for an adjustment or a game not
    rated: the opening steps say what they did)."""
    if change.skipped or change.is_adjustment or change.factors.get("adjustment"):
        return None
    return Step(
        SUM, {"before": change.value_before, "change": change.change, "after": change.value_after}
    )


def factor_steps(
    change: StoredChange, labels: Mapping[str, str], leave_out: Iterable[str] = ()
) -> list[Step]:
    """Each factor the row keeps, labelled (``labels``: the key's label), in the row's
    order, but those hidden or left out."""
    hidden = HIDDEN_FACTORS.union(leave_out)
    return [
        Step(FACTOR, {"key": key, "label": labels.get(key, ""), "value": value})
        for key, value in change.factors.items()
        if key not in hidden
    ]
