"""Progress of a running recompute, readable by other processes.

The recompute writes its history in one transaction, so nothing it does is visible in
the database until it ends; its progress goes to the cache instead (Redis when
configured, shared by the web and worker processes; in-process otherwise, where the
recompute runs inside the web process anyway).
"""

from __future__ import annotations

import logging
import time

from django.core.cache import cache

logger = logging.getLogger(__name__)

_TTL_SECONDS = 6 * 3600


def _key(algorithm: str) -> str:
    return f"recompute-progress:{algorithm}"


def report(algorithm: str, done: int, total: int) -> None:
    """Never raises: a cache that is down must not stop the recompute."""
    try:
        cache.set(_key(algorithm), {"done": done, "total": total, "at": time.time()}, _TTL_SECONDS)
    except Exception:  # the cache's errors vary by backend
        logger.warning("could not report the recompute's progress", exc_info=True)


def read(algorithm: str) -> dict | None:
    """``{"done": units rated, "total": units to rate, "at": unix time}`` or None (also
    when the cache cannot be read: the page shows the recompute without its progress)."""
    try:
        return cache.get(_key(algorithm))
    except Exception:
        logger.warning("could not read the recompute's progress", exc_info=True)
        return None


def clear(algorithm: str) -> None:
    try:
        cache.delete(_key(algorithm))
    except Exception:
        logger.warning("could not clear the recompute's progress", exc_info=True)
