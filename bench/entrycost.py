"""``python -m bench.entrycost ALG``: one entry's recompute or lab update, timed alone.

``bench.realtail`` times every algorithm after each entry in one run; this times one
algorithm's task after one entry, many times, to see where a change moves it (the
figures of the rounds of issue 27 in docs/performance.md). It works on a copy of
the database ``bench.realtail`` leaves (``bench/out/realtail/bench.sqlite3``: a site of
real tournaments and club games with every algorithm and the lab current), enters one
game through the sheet's service (``--entry week``: back-dated into the last
tournament that lasted more than a day, on its second day; ``after``: the day after
the last game), then runs the algorithm's recompute task (``--what lab``: the
recomputes untimed, then its lab update) ``--runs`` times, each from the same database
(the file copied back before each), and prints each run's CPU and wall milliseconds
and the least. ``--full`` also times the algorithm's full recompute (or full lab) twice
first and gives the least entry as a share of it; ``--profile`` prints a cProfile of
the last run. Settings as the benchmarks' child processes have them (DEBUG off).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import secrets
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.__main__ import OUT, BenchError
from bench.database import EVERY_ALGORITHM

DATABASE = OUT / "realtail" / "bench.sqlite3"


def _timed(work: Path, step: Callable[[], object], runs: int, profile: bool) -> float:
    """``step`` run ``runs`` times from the same database; the least CPU milliseconds."""
    from bench.dbsteps import _Rewound

    copied = _Rewound._copied  # the file copied with every connection closed
    aside = work.with_suffix(".aside")
    copied(str(work), str(aside))
    cpu, wall = [], []
    try:
        for run in range(runs):
            if run:
                copied(str(aside), str(work))
            profiler = cProfile.Profile() if profile and run == runs - 1 else None
            started_cpu, started = time.process_time(), time.perf_counter()
            if profiler is not None:
                profiler.enable()
            step()
            if profiler is not None:
                profiler.disable()
            cpu.append((time.process_time() - started_cpu) * 1000)
            wall.append((time.perf_counter() - started) * 1000)
        copied(str(aside), str(work))
    finally:
        aside.unlink(missing_ok=True)
    print("  CPU ms:", " ".join(f"{value:.1f}" for value in cpu), f"| least {min(cpu):.1f}")
    print("  wall ms:", " ".join(f"{value:.1f}" for value in wall), f"| least {min(wall):.1f}")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(35)
    return min(cpu)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.entrycost", description=__doc__)
    parser.add_argument("algorithm")
    parser.add_argument("--what", default="recompute", choices=["recompute", "lab"])
    parser.add_argument("--entry", default="week", choices=["week", "after"])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--database", type=Path, default=DATABASE)
    args = parser.parse_args(argv)
    if not args.database.exists():
        raise BenchError(f"{args.database} is missing: run python -m bench.realtail first")
    work = Path(f"/tmp/bench-entrycost-{os.getpid()}.sqlite3")
    shutil.copyfile(args.database, work)
    # As bench.database's child processes: production settings, tasks run here.
    os.environ.update(
        DATABASE_URL=f"sqlite:///{work}",
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="0",
        LOG_LEVEL="WARNING",
        RATINGS_ALGORITHMS=",".join(EVERY_ALGORITHM),
        RATINGS_PRIMARY_ALGORITHM=EVERY_ALGORITHM[0],
    )
    for key in ("CELERY_BROKER_URL", "REDIS_URL", "CACHE_KEY_PREFIX"):
        os.environ.pop(key, None)
    try:
        return _measure(args, work)
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{work}{suffix}").unlink(missing_ok=True)


def _measure(args: argparse.Namespace, work: Path) -> int:
    from bench import dbsteps, realtail

    dbsteps._setup()
    from django.urls import get_resolver

    from ratings import tasks
    from ratings.models import RecomputeState
    from ratings.recompute import run as recompute_run

    get_resolver().reverse_dict  # noqa: B018 (as a worker that has run a task: views imported)
    full = None
    if args.full:
        if args.what == "recompute":
            full = _timed(
                work, lambda: recompute_run.recompute(args.algorithm, full=True), 2, False
            )
        else:
            full = _timed(work, lambda: tasks.compute_lab_reports([args.algorithm]), 2, False)
        print(f"full {args.what}: least CPU {full:.1f} ms")
    places = realtail.entry_places()
    old, played_on = places["in-a-tournament-week" if args.entry == "week" else "after"]
    dbsteps._enter_game(old, played_on, 0, "bench.entrycost")
    print(f"one game entered on {played_on} ({args.entry})")
    if args.what == "recompute":
        least = _timed(
            work, lambda: tasks.recompute_algorithm(args.algorithm), args.runs, args.profile
        )
    else:
        RecomputeState.objects.update(queued_at=None, lab_queued_at=None)
        recompute_run.recompute_pending()
        RecomputeState.objects.update(lab_queued_at=None)
        least = _timed(
            work, lambda: tasks.update_lab_report(args.algorithm), args.runs, args.profile
        )
    share = f" = {100 * least / full:.1f}% of the full run" if full else ""
    print(f"{args.algorithm} {args.what} after the entry ({args.entry}): least CPU", end=" ")
    print(f"{least:.1f} ms{share}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as error:
        sys.exit(f"bench.entrycost: {error}")
