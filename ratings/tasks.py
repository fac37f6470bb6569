"""Celery tasks: thin wrappers that call the recompute and lab services."""

from __future__ import annotations

from celery import shared_task
from django.db import DatabaseError

from . import lab_services, services


@shared_task(
    # The outcome is in RecomputeState; no one waits for a result, and a result
    # backend that is down must not hold up the write that queued the task.
    ignore_result=True,
    autoretry_for=(DatabaseError,),
    retry_backoff=2,
    retry_backoff_max=120,
    max_retries=10,
)
def recompute_pending(algorithms: list[str] | None = None) -> list[dict]:
    """Recompute every dirty algorithm. Duplicate deliveries find nothing dirty and
    return at once; the periodic sweep calls this too."""
    return [
        {
            "algorithm": r.algorithm,
            "from": str(r.replayed_from),
            "rows": r.rows,
            "seconds": r.seconds,
        }
        for r in services.recompute_pending(algorithms)
    ]


@shared_task(
    ignore_result=True,
    autoretry_for=(DatabaseError,),
    retry_backoff=2,
    retry_backoff_max=120,
    max_retries=5,
)
def compute_lab_reports(algorithms: list[str] | None = None) -> list[dict]:
    """Recompute the algorithm lab's reports (all maintained algorithms by default);
    queued after each recompute."""
    names = algorithms or services.maintained_algorithms()
    return [
        {"algorithm": report.algorithm, "games": report.games_counted}
        for report in lab_services.compute_lab_reports(names)
    ]
