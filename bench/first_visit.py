"""``python -m bench.first_visit``: a tournament page's first request after a write.

A correction of one of the tournament's games (its winner flipped, then back), then
the recompute of every algorithm it dirtied, as the worker runs it, then one request
for the page: timed in the server (wall and CPU, this process), with its queries. Two
ways, taking turns so that the machine's load falls on both alike:

- ``recompute only``: ``ratings.recompute.run.run_queued`` per algorithm, what the
  worker did before the pages were warmed; the first request builds the table;
- ``recompute, then warm``: the task itself (``ratings.tasks.recompute_algorithm``),
  which warms the crosstables the recompute changed; the first request is a hit.

Also the worker's time for each (what the warming adds to it). Needs a database of its
own with the tournament imported and recomputed (see docs/performance.md), and
``CELERY_BROKER_URL`` set (the embedded ``filesystem://`` set-up, or Redis) so that the
correction's commit queues the tasks rather than running them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.first_visit", description=__doc__)
    parser.add_argument("--code", default="EGC2013", help="the tournament's code")
    parser.add_argument("--rounds", type=int, default=6, help="corrections timed each way")
    args = parser.parse_args(argv)
    if not os.environ.get("DATABASE_URL") or not os.environ.get("CELERY_BROKER_URL"):
        parser.error("set DATABASE_URL and CELERY_BROKER_URL (a database of the benchmark's own)")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubrating.settings")

    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from clubrating.wsgi import freeze_loaded_objects
    from players.management.users import command_user
    from players.models import Tournament
    from players.public import receivers
    from players.services.games import GameInput, game_correct
    from ratings import tasks
    from ratings.models import RecomputeState
    from ratings.recompute.run import run_queued

    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["testserver"]
    tournament = Tournament.objects.get(code=args.code)
    game = tournament.games.valid().order_by("pk").first()
    user = command_user(None)
    url = f"/tournaments/{tournament.code}/"
    freeze_loaded_objects()
    client = Client()
    client.get(url)  # templates compiled

    def correct() -> None:
        nonlocal game
        changes = GameInput(
            date=game.date,
            white=game.white,
            black=game.black,
            winner="B" if game.winner == "W" else "W",
            handicap=game.handicap,
            komi=game.komi,
            tournament=tournament,
            round=game.round,
            white_rank=game.white_rank,
            black_rank=game.black_rank,
            colour_given=game.colour_given,
        )
        game = game_correct(user=user, game_id=game.pk, version=game.version, changes=changes)

    # The warming's share of the task's time, timed where the task calls it.
    warming = [0.0, 0.0]  # wall, CPU
    warm = receivers.warm_after_recompute

    def timed_warm(*args):
        started, cpu_started = time.perf_counter(), time.process_time()
        try:
            return warm(*args)
        finally:
            warming[0] += time.perf_counter() - started
            warming[1] += time.process_time() - cpu_started

    receivers.warm_after_recompute = timed_warm

    ways = {"recompute only": run_queued, "recompute, then warm": tasks.recompute_algorithm}
    timings: dict[str, list[tuple[float, ...]]] = {way: [] for way in ways}
    for _ in range(args.rounds):
        for way, run in ways.items():
            correct()
            dirty = RecomputeState.objects.filter(dirty_from__isnull=False)
            worker_started, warming[:] = time.perf_counter(), [0.0, 0.0]
            worker_cpu_started = time.process_time()
            for algorithm in dirty.values_list("algorithm", flat=True):
                run(algorithm)
            worker = time.perf_counter() - worker_started
            worker_cpu = time.process_time() - worker_cpu_started
            with CaptureQueriesContext(connection) as queries:
                started, cpu_started = time.perf_counter(), time.process_time()
                response = client.get(url)
                wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
            assert response.status_code == 200, response.status_code
            timings[way].append(
                (wall, cpu, worker, worker_cpu, *warming, len(queries.captured_queries))
            )

    print(f"{url}: {args.rounds} corrections each way, {connection.vendor}, cache {_cache()}")
    print(
        "| the worker after the correction | first request: wall | CPU | queries "
        "| the worker: wall | CPU | of it warming: wall | CPU |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for way, rows in timings.items():
        wall, cpu, worker, worker_cpu, warmed, warmed_cpu = (
            statistics.median(row[i] for row in rows) * 1000 for i in range(6)
        )
        queries = sorted({int(row[6]) for row in rows})
        print(
            f"| {way} | {wall:.1f} ms | {cpu:.1f} ms | {'/'.join(map(str, queries))} "
            f"| {worker:,.0f} ms | {worker_cpu:,.0f} ms | {warmed:,.0f} ms | {warmed_cpu:,.0f} ms |"
        )
    return 0


def _cache() -> str:
    from django.conf import settings

    return settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]


if __name__ == "__main__":
    raise SystemExit(main())
