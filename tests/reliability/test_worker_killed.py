"""A recompute killed with SIGKILL leaves the previous history intact; the next run
completes it."""

import signal
import subprocess
from datetime import date, timedelta

import pytest

from players.services.games import record_sheet_submit
from ratings.models import RatingHistory, RecomputeState
from ratings.recompute import dirty
from ratings.recompute.run import recompute_pending
from tests import factories

from .helpers import child_environment, mismatches, python

# Runs in a child process: a recompute that pauses after writing its first rows, so
# that the test can kill it in the middle of its transaction.
KILLED_RECOMPUTE = """
import sys, time, django
django.setup()
from ratings.recompute import run
from ratings.recompute.bulk import RowWriter
real_flush = RowWriter.flush
def flush_then_wait(self):
    real_flush(self)
    print("wrote", self.written, flush=True)
    time.sleep(60)
RowWriter.flush = flush_then_wait
run.recompute_pending(["sagc"])
"""


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_killed_recompute_leaves_the_previous_history_and_the_next_run_completes(monkeypatch):
    vera = factories.volunteer()
    players = [factories.player(f"p{n}", f"{10 + n}k") for n in range(6)]
    start = date(2024, 1, 1)
    record_sheet_submit(
        user=vera,
        allow_duplicates=True,
        games=[
            factories.game(players[n % 6], players[(n + 1) % 6], "WB"[n % 2], start + timedelta(n))
            for n in range(60)
        ],
    )
    recompute_pending()
    before = list(
        RatingHistory.objects.filter(algorithm="sagc").values_list("position", "value_after")
    )

    # The back-dated game waits for the child's recompute, not the in-process one.
    monkeypatch.setattr(dirty, "queue_recompute", lambda algorithm: None)
    record_sheet_submit(
        user=vera, games=[factories.game(players[0], players[3], "B", start + timedelta(5))]
    )
    child = subprocess.Popen(
        [python(), "-c", KILLED_RECOMPUTE],
        env=child_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = child.stdout.readline()
    assert line.startswith("wrote"), child.stderr.read()
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)

    after_kill = list(
        RatingHistory.objects.filter(algorithm="sagc").values_list("position", "value_after")
    )
    assert after_kill == before, "the killed rewrite was rolled back as a whole"
    assert RecomputeState.objects.get(algorithm="sagc").dirty_from == start + timedelta(5)

    recompute_pending(["sagc"])
    assert RecomputeState.objects.get(algorithm="sagc").dirty_from is None
    assert RatingHistory.objects.filter(algorithm="sagc").count() == len(before) + 2
    assert mismatches("sagc") == 0
