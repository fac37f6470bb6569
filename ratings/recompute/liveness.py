"""Who is alive: the Celery worker's heartbeat and each running recompute's.

Both go to the cache (Redis in production, a folder of files in the embedded set-up),
never to the database: on SQLite a heartbeat written to the database would wait behind
the recompute's own write transaction, the very thing it must outlast.

- The worker's main process writes ``worker-heartbeat`` every
  ``HEARTBEAT_SECONDS`` from a timer of its own (``clubrating.celery.Heartbeat``), so
  it keeps beating while its pool runs a long recompute. ``/health/`` and the
  committee's recompute page read it.
- A recompute, wherever it runs (a worker, a command, in-process), beats under its
  runner's name from a thread while it runs (:class:`RunnerHeartbeat`). A recompute
  marked running whose runner has stopped beating died with its process: the status
  says "stalled", and the next sweep or task takes it over.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from datetime import datetime
from typing import TypedDict

from django.core.cache import cache
from django.utils import timezone

from ratings.models import RecomputeState

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 10
# Six missed beats: a heartbeat older than this is a process that is gone (or hung).
STALE_AFTER_SECONDS = 60

_WORKER_KEY = "worker-heartbeat"


class Heartbeat(TypedDict):
    name: str
    at: float  # unix time


def runner_name() -> str:
    """This process as a recompute's runner: host and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _runner_key(runner: str) -> str:
    return f"recompute-runner:{runner}"


def _fresh(beat: Heartbeat | None, now: float | None = None) -> bool:
    if beat is None:
        return False
    return (now if now is not None else time.time()) - beat["at"] <= STALE_AFTER_SECONDS


# --- the worker ------------------------------------------------------------------------


def worker_beat(worker: str) -> None:
    """Record that ``worker`` (its Celery node name) is alive. Never raises: a cache that
    is down must not stop the worker, and the health check reports the cache anyway."""
    try:
        cache.set(_WORKER_KEY, Heartbeat(name=worker, at=time.time()), STALE_AFTER_SECONDS * 60)
    except Exception:  # the cache's errors vary by backend
        logger.warning("could not record the worker's heartbeat", exc_info=True)


def worker_stopped(worker: str) -> None:
    """A worker that shuts down cleanly says so at once (if it was the last to beat)."""
    try:
        beat = cache.get(_WORKER_KEY)
        if beat is not None and beat["name"] == worker:
            cache.delete(_WORKER_KEY)
    except Exception:
        logger.warning("could not clear the worker's heartbeat", exc_info=True)


def last_worker_heartbeat() -> Heartbeat | None:
    """The last heartbeat any worker wrote (``{"name", "at"}``), or None."""
    return cache.get(_WORKER_KEY)


def worker_alive(beat: Heartbeat | None) -> bool:
    return _fresh(beat)


# --- a running recompute ----------------------------------------------------------------


class RunnerHeartbeat:
    """While the ``with`` block runs, a thread records every ``HEARTBEAT_SECONDS`` that
    ``runner`` is alive; the record is removed at the end. The engine's loop is pure
    Python and gives the thread its turn (the interpreter switches threads every few
    milliseconds)."""

    def __init__(self, runner: str) -> None:
        self.runner = runner
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="recompute-heartbeat", daemon=True)

    def _beat(self) -> None:
        try:
            cache.set(
                _runner_key(self.runner),
                Heartbeat(name=self.runner, at=time.time()),
                STALE_AFTER_SECONDS * 2,
            )
        except Exception:
            logger.warning("could not record the recompute's heartbeat", exc_info=True)

    def _run(self) -> None:
        while not self._stop.wait(HEARTBEAT_SECONDS):
            self._beat()

    def __enter__(self) -> RunnerHeartbeat:
        self._beat()
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        self._thread.join()
        try:
            cache.delete(_runner_key(self.runner))
        except Exception:
            logger.warning("could not clear the recompute's heartbeat", exc_info=True)


def runner_alive(runner: str, running_since: datetime) -> bool:
    """Whether the recompute that ``runner`` started at ``running_since`` is still
    going: its heartbeat is fresh, or it started too recently to tell. A cache that
    cannot be read counts as alive: nothing is taken over on a guess."""
    if (timezone.now() - running_since).total_seconds() <= STALE_AFTER_SECONDS:
        return True
    try:
        return _fresh(cache.get(_runner_key(runner)))
    except Exception:
        logger.warning("could not read the recompute's heartbeat", exc_info=True)
        return True


def running_stalled(state: RecomputeState) -> bool:
    """Whether ``state`` is marked running by a runner that stopped beating (its process
    died): the recompute is not going on, whatever ``running_since`` says."""
    return state.running_since is not None and not runner_alive(
        state.running_on, state.running_since
    )
