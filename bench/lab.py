"""``python -m bench.lab [GAMES]``: what the algorithm lab costs after one new game at
the end of the history, and after one game back-dated into its last 10%, against a
full lab run, on SQLite (issue 14, item 5).

A database of its own is made once (``bench/out/lab-GAMES.sqlite3``: the generated
club file of ``bench/generate.py`` imported and every algorithm recomputed) and
copied for each run (``lab-GAMES-run.sqlite3``), so that every run starts from the
same history. A run times ``lab_services.compute_lab_report`` of every maintained
algorithm in full; then, twice, enters one game (on the date of the last game; then
on the date where the last 10% of the valid games begin), recomputes every algorithm
(untimed) and times ``update_lab_report`` (what the lab's task runs) from the date
each recompute marked the lab behind from. Prints one JSON object: seconds per algorithm, the
totals, their shares of the full run (of wall time and of CPU time, the steadier on
a shared machine), and the load average before and after.
Default 20,000 games.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"


def main(argv: list[str]) -> int:
    games = int(argv[0]) if argv else 20_000
    OUT.mkdir(exist_ok=True)
    pristine = OUT / f"lab-{games}.sqlite3"
    copy = OUT / f"lab-{games}-run.sqlite3"
    set_up_on_a_copy(pristine if pristine.exists() else None, copy)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from bench.generate import Settings, generate
    from players.models import Game
    from players.services.games import GameInput, record_sheet_submit
    from ratings.algorithms import maintained_algorithms
    from ratings.lab import services as lab_services
    from ratings.models import RecomputeState
    from ratings.recompute.run import recompute_pending

    if not pristine.exists():
        call_command("migrate", verbosity=0)
        source = OUT / f"lab-games-{games}.csv"
        with open(source, "w", encoding="utf-8", newline="") as out:
            generate(out, Settings(games=games, players=max(50, games // 60), years=5))
        get_user_model().objects.get_or_create(username="system")
        call_command("import_games", str(source), "--allow-duplicates", stdout=StringIO())
        recompute_pending()
        with connection.cursor() as cursor:  # one file, whatever the journal mode
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        shutil.copyfile(copy, pristine)
    else:
        call_command("migrate", verbosity=0)
    load_before = os.getloadavg()
    names = maintained_algorithms()
    full = {name: _seconds(lab_services.compute_lab_report, name) for name in names}
    full_cpu = {name: CPU["compute_lab_report", (name,)] for name in names}
    RecomputeState.objects.update(lab_dirty_from=None, lab_queued_at=None)  # all current
    volunteer, _ = get_user_model().objects.get_or_create(username="bench-volunteer")
    valid = Game.objects.valid().order_by("-date", "-seq")
    last = valid.first()
    tenth = valid[valid.count() // 10]
    steps = {}
    for step, day in (("one game at the end", last.date), ("back-dated 10%", tenth.date)):
        game = GameInput(date=day, white=last.black, black=last.white, winner="W")
        record_sheet_submit(user=volunteer, allow_duplicates=True, games=[game])
        recompute_pending()
        RecomputeState.objects.update(lab_queued_at=None)  # the lab's delay is over
        seconds = {name: _seconds(lab_services.update_lab_report, name) for name in names}
        cpu = {name: CPU["update_lab_report", (name,)] for name in names}
        steps[step] = {
            "date": day.isoformat(),
            "seconds": seconds,
            "total": sum(seconds.values()),
            "share": sum(seconds.values()) / sum(full.values()),
            "share_by_algorithm": {name: seconds[name] / full[name] for name in names},
            "cpu_total": sum(cpu.values()),
            "cpu_share": sum(cpu.values()) / sum(full_cpu.values()),
            "cpu_share_by_algorithm": {name: cpu[name] / full_cpu[name] for name in names},
        }
    print(
        json.dumps(
            {
                "games": Game.objects.count(),
                "load_before": load_before,
                "load_after": os.getloadavg(),
                "full_seconds": full,
                "full_total": sum(full.values()),
                "full_cpu_seconds": full_cpu,
                "full_cpu_total": sum(full_cpu.values()),
                **steps,
            },
            indent=1,
        )
    )
    return 0


def set_up_on_a_copy(source: Path | None, copy: Path) -> None:
    """Django on the SQLite file ``copy`` (a copy of ``source``, or a new file), tasks
    in-process and none queued: the benchmark runs the recomputes and the lab itself
    and times them apart (the recompute marks the lab behind as the site does)."""
    for stale in (copy, Path(f"{copy}-wal"), Path(f"{copy}-shm")):
        stale.unlink(missing_ok=True)
    if source is not None:
        shutil.copyfile(source, copy)
    os.environ["DATABASE_URL"] = f"sqlite:///{copy}"
    for name in ("CELERY_BROKER_URL", "REDIS_URL"):  # tasks in-process, run by hand here
        os.environ.pop(name, None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubrating.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from ratings.lab import services as lab_services
    from ratings.recompute import dirty

    dirty.queue_recompute = lambda algorithm: None
    lab_services._queue_lab_update = lambda algorithm, countdown=None: None


def _seconds(function, *args) -> float:
    """Wall seconds of the call; its CPU seconds (SQLite's work included: it runs in
    this process) are added to ``CPU``, the steadier figure on a shared machine."""
    started, cpu = time.perf_counter(), time.process_time()
    function(*args)
    CPU[function.__name__, args] = time.process_time() - cpu
    return time.perf_counter() - started


CPU: dict[tuple, float] = {}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
