"""Reading the algorithms the site shows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django.http import Http404
from django.utils.translation import pgettext

from ratings.algorithms import maintained_algorithms, primary_algorithm
from ratings.engine.base import Algorithm, registry
from ratings.engine.description import FormulaFactor, RankScale, ValueScale


@dataclass(frozen=True, slots=True)
class AlgorithmInfo:
    """What the pages need to know of a maintained algorithm."""

    name: str
    title: str
    integer_values: bool  # SAGC shows whole-number indexes
    has_history: bool  # False for GCR: standings and month-end snapshots only
    rates_tournaments_as_blocks: bool
    # what the algorithm says of itself (ratings/engine/description.py)
    value_scale: ValueScale
    rank_scale: RankScale
    factor_labels: Mapping[str, str]
    formula: tuple[FormulaFactor, ...]
    prediction_note: str
    starts_at_declared_rating: bool  # the EGF algorithms: a file's GoR is the start

    @classmethod
    def of(cls, algorithm: type[Algorithm]) -> AlgorithmInfo:
        return cls(
            name=algorithm.name,
            title=algorithm.title,
            integer_values=algorithm.integer_values,
            has_history=algorithm.has_history,
            rates_tournaments_as_blocks=algorithm.rates_tournaments_as_blocks,
            value_scale=algorithm.value_scale,
            rank_scale=algorithm.rank_scale,
            factor_labels=algorithm.factor_labels,
            formula=algorithm.formula,
            prediction_note=algorithm.prediction_note,
            starts_at_declared_rating=algorithm.starts_at_declared_rating,
        )

    @property
    def short_title(self) -> str:
        """``sagc`` -> ``SAGC``, ``egf-2021`` -> ``EGF 2021``, ``french`` -> ``French``."""
        parts = self.name.split("-")
        return " ".join(
            part.upper() if part.isalpha() and len(part) <= 4 else part.capitalize()
            for part in parts
        )

    @property
    def value_label(self) -> str:
        """What the algorithm's number is called, in the reader's language."""
        if self.integer_values:
            return pgettext("the number an algorithm keeps", "Index")
        return pgettext("the number an algorithm keeps", "Rating")


def algorithms() -> list[AlgorithmInfo]:
    """The maintained algorithms, the primary one first."""
    known = registry()
    return [AlgorithmInfo.of(known[name]) for name in maintained_algorithms()]


def algorithm_or_404(name: str | None, default: str | None = None) -> AlgorithmInfo:
    """The maintained algorithm called ``name`` (empty: ``default``, else the primary one)."""
    available = {info.name: info for info in algorithms()}
    chosen = name or default or primary_algorithm()
    if chosen not in available:
        raise Http404(
            f"'{chosen}' is not a rating algorithm of this site; "
            f"choose one of {', '.join(available)}"
        )
    return available[chosen]
