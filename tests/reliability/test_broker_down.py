"""A broker that is down when a game is entered only delays the recompute."""

from datetime import date

import pytest
from django.conf import settings

from clubrating.celery import app as celery_app
from players import services
from players.models import Game
from ratings import tasks
from ratings.models import RatingHistory, RecomputeState
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker_down(settings):
    """Real (not in-process) tasks, sent to a port where nothing listens."""
    conf = celery_app.conf
    saved = conf.task_always_eager, conf.broker_url, conf.task_publish_retry
    settings.CELERY_TASK_ALWAYS_EAGER = False
    conf.task_always_eager = False
    conf.broker_url = "redis://127.0.0.1:1/0"
    conf.task_publish_retry = False
    celery_app.pool.force_close_all()
    yield
    conf.task_always_eager, conf.broker_url, conf.task_publish_retry = saved
    celery_app.pool.force_close_all()


def test_the_game_is_stored_and_marked_pending_when_the_broker_is_down(
    broker_down, django_capture_on_commit_callbacks, caplog
):
    vera = factories.volunteer()
    alice, bob = factories.player("alice", "5k"), factories.player("bob", "8k")
    with django_capture_on_commit_callbacks(execute=True):
        services.record_sheet_submit(
            user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 1))]
        )
    assert Game.objects.count() == 1
    assert RecomputeState.objects.get(algorithm="sagc").dirty_from == date(2024, 3, 1)
    assert "the periodic sweep will run it" in caplog.text
    assert not RatingHistory.objects.exists()


def test_the_periodic_sweep_catches_up_once_the_broker_is_back(
    broker_down, django_capture_on_commit_callbacks
):
    vera = factories.volunteer()
    alice, bob = factories.player("alice", "5k"), factories.player("bob", "8k")
    with django_capture_on_commit_callbacks(execute=True):
        services.record_sheet_submit(
            user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 1))]
        )
    sweep = settings.CELERY_BEAT_SCHEDULE["recompute-sweep"]
    assert sweep["task"] == tasks.recompute_pending.name
    # Celery beat sends the sweep as soon as the broker answers again; it runs this:
    tasks.recompute_pending.apply().get()
    assert RecomputeState.objects.get(algorithm="sagc").dirty_from is None
    assert RatingHistory.objects.filter(algorithm="sagc").count() == 2
