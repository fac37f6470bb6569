"""Importing this module registers every algorithm (see ``base.register``).

Each algorithm lives in its own module; add one line here when a module is added.
"""

from . import (
    anchor,  # noqa: F401
    egf,  # noqa: F401
    french,  # noqa: F401
    gcr,  # noqa: F401
    sagc,  # noqa: F401
)
