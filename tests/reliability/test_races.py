"""Several processes write at once while a real worker recomputes: nothing is lost and
every history equals a replay from scratch."""

import json
import subprocess
import time

import pytest

from players.models import Game
from ratings import services as rating_services
from ratings.models import RecomputeState
from tests import factories

from .helpers import child_environment, mismatches, python

PROCESSES = 3
SECONDS = 8


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_concurrent_entries_lose_nothing_and_histories_match_a_full_replay(
    celery_worker_live, record_property
):
    factories.user("race-volunteer", "volunteers")
    for number in range(12):
        factories.player(f"racer{number:02d}", f"{5 + number}k")
    children = [
        subprocess.Popen(
            [python(), "-m", "tests.reliability.race_client", str(seed), str(SECONDS)],
            env=child_environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in range(PROCESSES)
    ]
    reports = []
    for child in children:
        out, err = child.communicate(timeout=SECONDS + 60)
        assert child.returncode == 0, err
        reports.append(json.loads(out.strip().splitlines()[-1]))

    # Let the worker finish what the writers queued, then run anything still pending.
    deadline = time.monotonic() + 60
    while RecomputeState.objects.exclude(dirty_from=None).exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    rating_services.recompute_pending()

    tags = [tag for report in reports for tag in report["tags"]]
    stored = list(Game.objects.values_list("comment", flat=True))
    lost = [tag for tag in tags if stored.count(tag) != 1]
    differing = {
        name: mismatches(name) for name in rating_services.maintained_algorithms() if name != "gcr"
    }
    attempted = sum(report["attempted"] for report in reports)
    record_property("operations", attempted)
    record_property("games", len(tags))
    print(
        f"races: {PROCESSES} processes, {attempted} operations, {len(tags)} games entered, "
        f"{sum(r['refused'] for r in reports)} refused (stale), lost {len(lost)}, "
        f"mismatches {sum(differing.values())}"
    )
    assert len(tags) > 20, "the writers should have entered games"
    assert lost == []
    assert len(stored) == len(tags)
    assert differing == dict.fromkeys(differing, 0)
