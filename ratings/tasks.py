"""Celery tasks: thin wrappers that call the recompute and lab services.

One task per algorithm (``recompute_algorithm``), queued by the write that dirties it
with ``delay_on_commit``, so that two workers recompute two algorithms at once; the
periodic sweep (``recompute_pending``) queues again whatever a lost message left
pending. The recompute tasks are acknowledged once done, so a worker that dies in the
middle leaves the message to another, and have time limits.
"""

from __future__ import annotations

import logging
import time

from celery import shared_task
from celery.contrib.django.task import DjangoTask
from django.conf import settings
from django.db import DatabaseError

from ratings.algorithms import maintained_algorithms
from ratings.lab import services as lab_services
from ratings.recompute.dirty import forget_queued
from ratings.recompute.run import announce_rewrite, run_queued, sweep

logger = logging.getLogger(__name__)


# After a failed publish, further ones are not tried for this long: a write that
# dirties seven algorithms would otherwise wait for seven connection timeouts.
BROKER_DOWN_SECONDS = 10.0


class QueuedTask(DjangoTask):
    """A task whose sending never fails the write that sends it: a broker that is down
    is logged, and the periodic sweep queues the work again. In-process (no broker,
    the tests) the task's own errors still propagate."""

    broker_down_until = 0.0  # monotonic time, shared by every task of this process

    def apply_async(self, args=None, kwargs=None, **options):
        eager = self.app.conf.task_always_eager
        if not eager and time.monotonic() < QueuedTask.broker_down_until:
            logger.warning(
                "not queueing %s: the broker was down moments ago; the periodic sweep will run it",
                self.name,
            )
            self.not_sent(args or ())
            return None
        try:
            return super().apply_async(args, kwargs, **options)
        except Exception:  # the broker's errors vary by transport
            if eager:
                raise
            QueuedTask.broker_down_until = time.monotonic() + BROKER_DOWN_SECONDS
            logger.exception("could not queue %s; the periodic sweep will run it", self.name)
            self.not_sent(args or ())
            return None

    def not_sent(self, args) -> None:
        """Called with the task's arguments when it could not be sent."""


class RecomputeTask(QueuedTask):
    def not_sent(self, args) -> None:
        # The algorithm is not queued after all: the next sweep queues it at once.
        forget_queued(*args)


_RETRY = {
    "autoretry_for": (DatabaseError,),
    "retry_backoff": 2,
    "retry_backoff_max": 120,
}


@shared_task(
    base=RecomputeTask,
    # The outcome is in RecomputeState; no one waits for a result, and a result
    # backend that is down must not hold up the write that queued the task.
    ignore_result=True,
    # Acknowledged when done: a worker killed in the middle (the transaction rolls
    # back) leaves the message to be delivered again.
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.RATINGS_RECOMPUTE_TIME_LIMIT,
    time_limit=settings.RATINGS_RECOMPUTE_TIME_LIMIT + 60,
    max_retries=10,
    **_RETRY,
)
def recompute_algorithm(algorithm: str) -> list[dict]:
    """Recompute one algorithm from its dirty date; nothing when a live runner has it
    already (that one loops while writes keep coming). Then it says what it rewrote
    (``ratings.signals.history_rewritten``): the public pages build again the tournament
    pages it changed, so that their first visitor does not wait for that."""
    results = run_queued(algorithm)
    if results:
        announce_rewrite(algorithm, results, sender=recompute_algorithm)
    return [
        {
            "algorithm": r.algorithm,
            "from": str(r.replayed_from),
            "rows": r.rows,
            "rewritten": r.rewritten,
            "seconds": r.seconds,
        }
        for r in results
    ]


@shared_task(base=QueuedTask, ignore_result=True, max_retries=10, **_RETRY)
def recompute_pending() -> list[str]:
    """The periodic sweep (celery beat, every ``RATINGS_SWEEP_SECONDS``): queue the
    recompute of every dirty algorithm whose task was lost or whose runner died."""
    return sweep()


@shared_task(
    base=QueuedTask,
    ignore_result=True,
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.RATINGS_RECOMPUTE_TIME_LIMIT,
    time_limit=settings.RATINGS_RECOMPUTE_TIME_LIMIT + 60,
    max_retries=5,
    **_RETRY,
)
def update_lab_report(algorithm: str) -> int | None:
    """Bring the lab's report of one algorithm up to date (queued, debounced, after its
    recomputes); the number of games it counts, or None when nothing was to do."""
    report = lab_services.update_lab_report(algorithm)
    return report.games_counted if report is not None else None


@shared_task(base=QueuedTask, ignore_result=True, max_retries=5, **_RETRY)
def compute_lab_reports(algorithms: list[str] | None = None) -> list[dict]:
    """Recompute the algorithm lab's reports in full (all maintained algorithms by
    default)."""
    names = algorithms or maintained_algorithms()
    return [
        {"algorithm": report.algorithm, "games": report.games_counted}
        for report in lab_services.compute_lab_reports(names)
    ]
