"""The registry: every algorithm of the site, in the order the site lists them.

Add a new algorithm's class here (and nowhere else): the command line, the rating list,
the log page, the lab, the calculator and the API take it from ``registry()`` below, and
each describes itself (see ``description.py``).
"""

from typing import Any

from .anchor import Anchor
from .base import Algorithm
from .egf import Egf2020, Egf2021, EgfLegacy
from .french import French
from .gcr import Gcr
from .sagc import Sagc

ALGORITHMS: tuple[type[Algorithm], ...] = (
    Sagc,
    Egf2021,
    Egf2020,
    EgfLegacy,
    French,
    Gcr,
    Anchor,
)


def registry() -> dict[str, type[Algorithm]]:
    """Every algorithm by name, in the order of the one list, ``ALGORITHMS``."""
    return {cls.name: cls for cls in ALGORITHMS}


def algorithm_names() -> tuple[str, ...]:
    return tuple(registry())


def get_algorithm(name: str, params: Any = None) -> Algorithm:
    algorithms = registry()
    try:
        cls = algorithms[name]
    except KeyError:
        known = ", ".join(sorted(algorithms))
        raise KeyError(f"unknown algorithm '{name}' (known: {known})") from None
    return cls(params)
