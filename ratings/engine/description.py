"""What an algorithm tells the site and the command line about itself, as plain data.

Each algorithm class sets these as class variables (see ``base.Algorithm``): the site
builds its charts, forms, factor labels and the lab from them, so that a new
algorithm needs no edit outside its own module and the registry
(``ratings/engine/algorithms.py``). Nothing here knows Django.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from .messages import gettext_noop as gettext_noop
from .ranks import Rank
from .records import DEFAULT_EVEN_KOMI, Status


@dataclass(frozen=True, slots=True)
class RankScale:
    """Where an algorithm's values sit among the ranks, for the log page's chart.

    ``kind`` is "index" (a rank plus an index of -limit..limit, SAGC), "points" (a
    rating, ``points_per_rank`` a rank, the bottom of 1d at ``bottom_of_1d``) or
    "value" (a rating with no ranks in it).
    """

    kind: str
    limit: int = 999
    bottom_of_1d: float = 0.0
    points_per_rank: float = 100.0


INDEX_SCALE = RankScale("index")
VALUE_SCALE = RankScale("value")


@dataclass(frozen=True, slots=True)
class ValueScale:
    """The scale a typed value is in (the calculator's "value scale" choice): the
    algorithms sharing a ``key`` read the same number the same way."""

    key: str
    label: str


@dataclass(frozen=True, slots=True)
class FormulaFactor:
    """One factor of a change that is a product, for the "how was this computed" panel:
    its symbol, its name and the key of the history row's factors that holds it."""

    symbol: str
    name: str
    key: str


@dataclass(frozen=True, slots=True)
class StatusFactors:
    """The factor each status of a game gives its change, for the record sheet's status
    column: ``symbol`` heads the column, ``by_status`` holds each status's factor."""

    symbol: str
    by_status: Mapping[Status, Fraction]


# --- what a prediction is made from ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Side:
    """One player's state just before a game, in the algorithm's own terms."""

    rank: Rank
    value: float


@dataclass(frozen=True, slots=True)
class Matchup:
    """What a prediction may use: both players before the game and its conditions."""

    white: Side
    black: Side
    handicap: int = 0
    komi: Fraction = DEFAULT_EVEN_KOMI
    board_size: int = 19


def logistic(z: float) -> float:
    """``1 / (1 + e^-z)`` without overflow for large ``|z|``."""
    if z >= 0:
        return 1 / (1 + math.exp(-z))
    exp_z = math.exp(z)
    return exp_z / (1 + exp_z)
