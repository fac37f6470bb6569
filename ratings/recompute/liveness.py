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
from collections import Counter
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
    """While the ``with`` block runs, ``runner`` is recorded alive at once and then every
    ``HEARTBEAT_SECONDS``; the record is removed at the end. The beats come from one
    thread of the process (:class:`_Beats`), started by its first block, which beats for
    every block open in it: a thread started and joined for each block cost every
    recompute 0.4 ms of CPU. The engine's loop is pure Python and gives the thread its
    turn (the interpreter switches threads every few milliseconds)."""

    def __init__(self, runner: str) -> None:
        self.runner = runner

    def __enter__(self) -> RunnerHeartbeat:
        _beats().open(self.runner)
        return self

    def __exit__(self, *exc_info) -> None:
        _beats().close(self.runner)


def _beat(runner: str) -> None:
    try:
        cache.set(
            _runner_key(runner), Heartbeat(name=runner, at=time.time()), STALE_AFTER_SECONDS * 2
        )
    except Exception:  # the cache's errors vary by backend
        logger.warning("could not record the recompute's heartbeat", exc_info=True)


class _Beats:
    """The runners of this process that are in a :class:`RunnerHeartbeat` block, and the
    thread that beats for them. Opening, closing and beating hold one lock: once a
    runner's last block is closed and its record removed, no beat of it comes."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.blocks: Counter[str] = Counter()  # the open blocks of each runner
        self.thread: threading.Thread | None = None

    def open(self, runner: str) -> None:
        with self.lock:
            self.blocks[runner] += 1
            _beat(runner)
            if self.thread is None:
                self.thread = threading.Thread(
                    target=self._run, name="recompute-heartbeat", daemon=True
                )
                self.thread.start()

    def close(self, runner: str) -> None:
        with self.lock:
            self.blocks[runner] -= 1
            if self.blocks[runner] > 0:
                return
            del self.blocks[runner]
            try:
                cache.delete(_runner_key(runner))
            except Exception:
                logger.warning("could not clear the recompute's heartbeat", exc_info=True)

    def beat_open(self) -> None:
        """Record every runner with an open block alive (what the thread does)."""
        with self.lock:
            for runner in self.blocks:
                _beat(runner)

    def _run(self) -> None:
        while True:
            time.sleep(HEARTBEAT_SECONDS)
            self.beat_open()


_process_beats: _Beats | None = None
_process_beats_made = threading.Lock()


def _beats() -> _Beats:
    global _process_beats
    with _process_beats_made:
        if _process_beats is None:
            _process_beats = _Beats()
        return _process_beats


def _forget_the_parents_beats() -> None:
    """In a process just forked: the parent's thread does not run here, and its locks
    may have been held; the first block starts this process's own."""
    global _process_beats, _process_beats_made
    _process_beats, _process_beats_made = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_the_parents_beats)


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
