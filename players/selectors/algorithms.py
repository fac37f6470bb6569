"""Reading the algorithm a page asks for."""

from __future__ import annotations

from django.http import Http404

from ratings.algorithms import algorithms, primary_algorithm
from ratings.engine.base import Algorithm


def algorithm_or_404(name: str | None, default: str | None = None) -> Algorithm:
    """The maintained algorithm called ``name`` (empty: ``default``, else the primary one)."""
    available = {algorithm.name: algorithm for algorithm in algorithms()}
    chosen = name or default or primary_algorithm()
    if chosen not in available:
        raise Http404(
            f"'{chosen}' is not a rating algorithm of this site; "
            f"choose one of {', '.join(available)}"
        )
    return available[chosen]
