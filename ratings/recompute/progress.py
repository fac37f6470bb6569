"""Progress of a running recompute, readable by other processes.

The recompute writes its history in one transaction, so nothing it does is visible in
the database until it ends; its progress goes to the cache instead (Redis when
configured, shared by the web and worker processes; in-process otherwise, where the
recompute runs inside the web process anyway).
"""

from __future__ import annotations

import time

from django.core.cache import cache

_TTL_SECONDS = 6 * 3600


def _key(algorithm: str) -> str:
    return f"recompute-progress:{algorithm}"


def report(algorithm: str, done: int, total: int) -> None:
    cache.set(_key(algorithm), {"done": done, "total": total, "at": time.time()}, _TTL_SECONDS)


def read(algorithm: str) -> dict | None:
    """``{"done": units rated, "total": units to rate, "at": unix time}`` or None."""
    return cache.get(_key(algorithm))


def clear(algorithm: str) -> None:
    cache.delete(_key(algorithm))
