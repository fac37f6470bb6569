"""Several processes write at once while a real worker recomputes: nothing is lost and
every history equals a replay from scratch."""

import json
import subprocess
import time

import pytest

from players.models import Game
from ratings.algorithms import maintained_algorithms
from ratings.models import RecomputeState
from ratings.recompute.run import recompute_pending
from tests import factories

from .helpers import child_environment, embedded_environment, mismatches, python

PROCESSES = 3
SECONDS = 8
# Each writer goes on past SECONDS until it has attempted this many operations: on a
# loaded CI machine 8 s allowed three writers only 16 operations (12 games), too few
# for a race. With these seeds 20 each enter about 50 games between them.
OPERATIONS = 20


def run_writers(env: dict[str, str]) -> list[dict]:
    """Run PROCESSES race clients at once for SECONDS and OPERATIONS; their reports."""
    children = [
        subprocess.Popen(
            [
                python(),
                "-m",
                "tests.reliability.race_client",
                str(seed),
                str(SECONDS),
                str(OPERATIONS),
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in range(PROCESSES)
    ]
    reports = []
    for child in children:
        out, err = child.communicate(timeout=SECONDS + 300)
        assert child.returncode == 0, err
        reports.append(json.loads(out.strip().splitlines()[-1]))
    return reports


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_concurrent_entries_lose_nothing_and_histories_match_a_full_replay(
    celery_worker_live, record_property
):
    factories.user("race-volunteer", "volunteers")
    for number in range(12):
        factories.player(f"racer{number:02d}", f"{5 + number}k")
    reports = run_writers(child_environment())

    # Let the worker finish what the writers queued, then run anything still pending.
    deadline = time.monotonic() + 60
    while RecomputeState.objects.exclude(dirty_from=None).exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    recompute_pending()

    tags = [tag for report in reports for tag in report["tags"]]
    stored = list(Game.objects.values_list("comment", flat=True))
    lost = [tag for tag in tags if stored.count(tag) != 1]
    differing = {name: mismatches(name) for name in maintained_algorithms() if name != "gcr"}
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


# Run in a child on the embedded set-up's database once the writers are done: wait for
# the worker to finish, run what is left, and report what is stored.
EMBEDDED_CHECK = """
import json, time, django
django.setup()
from players.models import Game
from ratings.models import RecomputeState
from ratings.algorithms import maintained_algorithms
from ratings.recompute.run import recompute_pending
from tests.reliability.helpers import mismatches
busy = RecomputeState.objects.exclude(dirty_from=None) | RecomputeState.objects.exclude(
    running_since=None
)
deadline = time.monotonic() + 120
while busy.exists() and time.monotonic() < deadline:
    time.sleep(0.5)
left = list(busy.values_list("algorithm", flat=True))
recompute_pending()
print(json.dumps({
    "left_to_the_check": left,
    "comments": list(Game.objects.values_list("comment", flat=True)),
    "mismatches": {
        name: mismatches(name) for name in maintained_algorithms() if name != "gcr"
    },
}))
"""
EMBEDDED_SETUP = """
import django
django.setup()
from tests import factories
factories.user("race-volunteer", "volunteers")
for number in range(12):
    factories.player(f"racer{number:02d}", f"{5 + number}k")
"""


def test_concurrent_entries_on_the_embedded_set_up_are_never_locked_out(tmp_path):
    """The same race on SQLite, with the worker of ``make run`` on the filesystem broker:
    three writers and the worker share one database file, and none of them ever gets
    "database is locked"."""
    from clubrating.devserver import commands

    env = embedded_environment(tmp_path)
    for command in (["manage.py", "migrate", "--noinput", "-v0"], ["-c", EMBEDDED_SETUP]):
        subprocess.run([python(), *command], env=env, check=True, timeout=300)
    worker_log = (tmp_path / "worker.log").open("w")
    worker = subprocess.Popen(
        commands([])["worker"], env=env, stdout=worker_log, stderr=subprocess.STDOUT
    )
    try:
        reports = run_writers(env)
        check = subprocess.run(
            [python(), "-c", EMBEDDED_CHECK],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert check.returncode == 0, check.stderr
        stored = json.loads(check.stdout.strip().splitlines()[-1])
    finally:
        worker.terminate()
        worker.wait(timeout=60)
        worker_log.close()
    log = (tmp_path / "worker.log").read_text()

    tags = [tag for report in reports for tag in report["tags"]]
    attempted = sum(report["attempted"] for report in reports)
    print(
        f"embedded races: {PROCESSES} processes, {attempted} operations, {len(tags)} games, "
        f"{sum(r['refused'] for r in reports)} refused, "
        f"left to the check {stored['left_to_the_check']}"
    )
    assert len(tags) > 20, "the writers should have entered games"
    assert [report["locked"] for report in reports] == [0] * PROCESSES
    assert "database is locked" not in log
    assert sorted(stored["comments"]) == sorted(tags), "nothing lost, nothing doubled"
    assert stored["left_to_the_check"] == [], "the worker caught up by itself"
    assert stored["mismatches"] == dict.fromkeys(stored["mismatches"], 0)
