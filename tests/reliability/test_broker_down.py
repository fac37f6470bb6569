"""A broker that is down when a game is entered only delays the recompute."""

import subprocess
import time
from datetime import date

import pytest
from django.conf import settings

from players.models import Game
from ratings import tasks
from ratings.models import RatingHistory, RecomputeState
from tests import factories

from .helpers import child_environment, python

# Runs in a child process whose broker URL points at a port where nothing listens.
ENTER_A_SHEET = """
import django
django.setup()
from datetime import date
from django.contrib.auth import get_user_model
from players.models import Player
from players.services.games import GameInput, record_sheet_submit
record_sheet_submit(
    user=get_user_model().objects.get(username="vera"),
    games=[GameInput(date=date(2024, 3, 1), white=Player.objects.get(username="alice"),
                              black=Player.objects.get(username="bob"), winner="W")],
)
print("stored")
"""


@pytest.fixture
def sheet_entered_while_the_broker_is_down():
    factories.volunteer("vera")
    factories.player("alice", "5k")
    factories.player("bob", "8k")
    environment = {**child_environment(), "CELERY_BROKER_URL": "redis://127.0.0.1:1/0"}
    environment.pop("REDIS_URL", None)
    child = subprocess.run(
        [python(), "-c", ENTER_A_SHEET],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return child


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_the_game_is_stored_and_marked_pending_when_the_broker_is_down(
    sheet_entered_while_the_broker_is_down,
):
    child = sheet_entered_while_the_broker_is_down
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "stored"
    assert (
        "could not queue ratings.tasks.recompute_algorithm; the periodic sweep will run it"
        in child.stderr
    )
    # One connection attempt, not one per algorithm: the others are not tried.
    assert child.stderr.count("could not queue") == 1
    assert Game.objects.count() == 1
    assert RecomputeState.objects.get(algorithm="sagc").dirty_from == date(2024, 3, 1)
    assert not RatingHistory.objects.exists()


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_the_periodic_sweep_catches_up_once_the_broker_is_back(
    sheet_entered_while_the_broker_is_down, celery_worker_live
):
    assert sheet_entered_while_the_broker_is_down.returncode == 0
    sweep = settings.CELERY_BEAT_SCHEDULE["recompute-sweep"]
    assert sweep["task"] == tasks.recompute_pending.name
    # What celery beat sends every RATINGS_SWEEP_SECONDS, through the real broker:
    tasks.recompute_pending.delay()
    deadline = time.monotonic() + 60
    while RecomputeState.objects.exclude(dirty_from=None).exists():
        assert time.monotonic() < deadline, "the worker did not catch up"
        time.sleep(0.2)
    assert RatingHistory.objects.filter(algorithm="sagc").count() == 2
