"""Which algorithms this site keeps: the one home of that choice (settings
``RATINGS_ALGORITHMS`` and ``RATINGS_PRIMARY_ALGORITHM``), read by the recompute, the
pages, the lab and the commands alike. What each algorithm is, is its engine class's."""

from __future__ import annotations

from django.conf import settings

from ratings.engine.algorithms import registry
from ratings.engine.base import Algorithm
from ratings.engine.holistic import Holistic


def maintained_algorithms() -> list[str]:
    """The algorithms the site keeps (setting ``RATINGS_ALGORITHMS``; empty: all registered),
    the primary one first."""
    known = registry()
    names = list(settings.RATINGS_ALGORITHMS) or list(known)
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"RATINGS_ALGORITHMS names unknown algorithms: {', '.join(unknown)}")
    primary = settings.RATINGS_PRIMARY_ALGORITHM
    return sorted(names, key=lambda name: name != primary)


def primary_algorithm() -> str:
    return maintained_algorithms()[0]


def algorithms() -> list[Algorithm]:
    """The maintained algorithms with their default parameters, the primary one first:
    what the pages show and read each algorithm's description from."""
    known = registry()
    return [known[name]() for name in maintained_algorithms()]


def adjustment_ignoring_algorithms() -> list[str]:
    """The maintained algorithms that an adjustment does not reset: those that rate the
    whole table of games at once and read no adjustment (SPEC: "GCR ignores
    adjustments"), so they keep their own rank after one."""
    known = registry()
    return [name for name in maintained_algorithms() if issubclass(known[name], Holistic)]
