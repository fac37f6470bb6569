"""The benchmark harness measures what it says (its figures go into docs/performance.md)."""

import sys
from pathlib import Path

import pytest

from bench.__main__ import run_child


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
def test_a_child_s_peak_memory_is_its_own_not_its_parent_s(tmp_path):
    held = bytearray(150 * 1024 * 1024)  # this process's memory, touched page by page
    held[::4096] = b"\x01" * len(held[::4096])
    child = (
        "import time; x = bytearray(20 << 20); x[::4096] = b'1' * len(x[::4096]); "
        "time.sleep(0.1)"  # the peak is sampled every few milliseconds
    )

    _seconds, peak_kib = run_child([sys.executable, "-c", child], str(tmp_path / "out"), 60)

    assert 20 * 1024 < peak_kib < 100 * 1024
    del held


def test_the_cli_ratio_times_each_command_and_its_ratio_to_the_float_script(tmp_path, capsys):
    from bench.cli_ratio import main as cli_ratio
    from bench.generate import main as generate

    games = tmp_path / "games.csv"
    generate(["--games", "300", "--players", "20", "--years", "1", str(games)])
    capsys.readouterr()

    assert cli_ratio([str(games), "--rounds", "2"]) == 0

    report = capsys.readouterr().out
    assert report.count("round ") == 2
    (sagc,) = [line for line in report.splitlines() if line.strip().startswith("sagc:")]
    ratios = sagc.split("/ float: ")[1].split(";")[0].split(", ")
    assert len(ratios) == 2 and all(float(ratio) > 0 for ratio in ratios)
    assert "/ float, cycle collector off: " in sagc


def _fake_step(calls):
    """``bench.database.run_step`` without a child: records (step, arguments) and
    answers with figures of the shape the step's RESULT has."""
    timed = {"seconds": 1.0, "cpu": 0.5, "server_cpu": None, "peak_kib": 1024}

    def run_step(step, arguments, database_url, algorithms, **options):
        calls.append((step, arguments))
        if step == "recompute":
            return {**timed, "rows": 10, "checkpoints": 1}
        if step == "lab":
            return {**timed, "algorithms": {}}
        if step == "save":
            return {
                "worker": arguments.get("worker", False),
                "pause": arguments.get("pause", 0.0),
                "full": arguments.get("full", ""),
                "broker": "filesystem://",
                "requests": arguments["requests"],
                "seconds": [0.01] * arguments["requests"],
                "median_ms": 10.0,
                "p95_ms": 12.0,
                "cpu_median_ms": 5.0,
                "cpu_p95_ms": 6.0,
                "server_cpu_median_ms": None,
                "recomputed": 1,
                "pending": [],
                "peak_kib": 1024,
            }
        raise AssertionError(f"sqlite-big ran the step {step}")

    return run_step


def test_sqlite_big_makes_every_algorithm_and_the_lab_current_and_times_saves_beside_a_worker(
    monkeypatch, tmp_path, capsys
):
    from bench import database

    calls = []
    monkeypatch.setattr(database, "run_step", _fake_step(calls))
    monkeypatch.setattr(database, "OUT", tmp_path)

    options = "--only sqlite-big --reuse --games 1000 --saves 5 --saves-beside-full sagc"
    database.main([*options.split(), "--steps", "full,save,lab,entries,pages,copy"])

    recomputed = [arguments["algorithm"] for step, arguments in calls if step == "recompute"]
    assert recomputed == list(database.EVERY_ALGORITHM)  # each once, no entries/pages/copy
    assert [(step, arguments) for step, arguments in calls if step != "recompute"] == [
        ("save", {"requests": 5}),
        ("save", {"requests": 5, "worker": True, "pause": 3.0, "settle": True, "full": "sagc"}),
        ("lab", {}),
    ]
    report = capsys.readouterr().out
    assert "| SQLite, broker `filesystem://` with a worker recomputing (first a full" in report
    assert (tmp_path / "database-sqlite-1000.json").exists()


@pytest.mark.django_db
def test_the_save_step_refuses_to_settle_a_data_set_never_recomputed_in_full(vera, settings):
    from datetime import date

    from bench import dbsteps
    from players.services.games import record_sheet_submit
    from ratings.recompute.run import recompute
    from tests import factories

    settings.RATINGS_ALGORITHMS = ["sagc", "gcr"]
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "8k")
    game = factories.game(ann, ben, "W", date(2024, 1, 10))
    record_sheet_submit(user=vera, games=[game], allow_duplicates=True)
    recompute("sagc", full=True)

    assert dbsteps.never_recomputed() == ["gcr"]
    with pytest.raises(RuntimeError, match="never recomputed in full: gcr; run the steps full"):
        dbsteps.save(requests=1, settle=True)
    recompute("gcr", full=True)
    assert dbsteps.never_recomputed() == []


@pytest.mark.django_db
def test_settling_before_the_worker_s_saves_brings_the_lab_current_with_a_broker(
    vera, settings, monkeypatch
):
    # The save step's child has a broker: tasks are not eager, the lab's update
    # debounces, and its queueing is the benchmark's list (bench.dbsteps._setup).
    from datetime import date

    from bench import dbsteps
    from clubrating.celery import app as celery_app
    from players.services.games import record_sheet_submit
    from ratings.lab import services as lab_services
    from ratings.models import LabReport
    from ratings.recompute import dirty
    from tests import factories

    settings.RATINGS_ALGORITHMS = ["sagc"]
    settings.RATINGS_LAB_DELAY_SECONDS = 60
    celery_app.conf.task_always_eager = False  # restored by conftest's _tasks_in_process
    monkeypatch.setattr(dirty, "queue_recompute", dbsteps.QUEUED_RECOMPUTES.append)
    monkeypatch.setattr(lab_services, "_queue_lab_update", dbsteps.QUEUED_LAB.append)
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "8k")
    games = [factories.game(ann, ben, "W", date(2024, 1, 10))]
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)

    dbsteps._settle()

    assert dbsteps._pending() == []
    assert LabReport.objects.get(algorithm="sagc").games_counted == 1
