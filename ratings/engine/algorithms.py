"""The registry: every algorithm of the site, in the order the site lists them.

Add a new algorithm's class here (and nowhere else): the command line, the rating list,
the log page, the lab, the calculator and the API take it from ``base.registry()``, and
each describes itself (see ``description.py``).
"""

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
