"""A database that goes away during a recompute: the task retries and finishes."""

from datetime import date

import pytest
from django.db import OperationalError

from clubrating.celery import app as celery_app
from players.services.games import record_sheet_submit
from ratings import tasks
from ratings.models import RatingHistory, RecomputeState
from ratings.recompute import run
from tests import factories

pytestmark = pytest.mark.django_db


def test_the_recompute_task_retries_after_a_database_error(monkeypatch):
    vera = factories.volunteer()
    alice, bob = factories.player("alice", "5k"), factories.player("bob", "8k")
    record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 1))])
    real_rewrite = run._rewrite
    failures = []

    def database_restarting(algorithm, start):
        if len(failures) < 2:
            failures.append(algorithm.name)
            raise OperationalError("server closed the connection unexpectedly")
        return real_rewrite(algorithm, start)

    monkeypatch.setattr(run, "_rewrite", database_restarting)
    # Not propagating, eager apply() re-runs a retried task itself (as a worker would
    # after the countdown) instead of raising Retry to the caller.
    celery_app.conf.task_eager_propagates = False
    try:
        result = tasks.recompute_algorithm.apply(args=["sagc"])
    finally:
        celery_app.conf.task_eager_propagates = True
    assert result.successful(), result.traceback
    assert failures == ["sagc", "sagc"]
    assert RecomputeState.objects.get(algorithm="sagc").dirty_from is None
    assert RatingHistory.objects.filter(algorithm="sagc").count() == 2


def test_the_retry_policy_backs_off():
    task = tasks.recompute_algorithm
    assert any(issubclass(OperationalError, kind) for kind in task.autoretry_for)
    assert task.retry_backoff and task.max_retries >= 5


def test_the_recompute_task_is_acknowledged_late_and_has_time_limits(settings):
    for task in (tasks.recompute_algorithm, tasks.update_lab_report):
        assert task.acks_late and task.reject_on_worker_lost
        assert task.soft_time_limit == settings.RATINGS_RECOMPUTE_TIME_LIMIT
        assert task.time_limit > task.soft_time_limit
