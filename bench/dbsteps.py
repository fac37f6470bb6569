"""The measured steps of ``python -m bench.database``, each run in a child process.

``python -m bench.dbsteps STEP '{"json": "arguments"}'`` with ``DATABASE_URL`` naming the
benchmark's database. The child sets Django up, runs the step and prints one line
``RESULT {...}`` (JSON) at the end; the parent reads it and takes the child's peak
memory from the operating system. Times are taken around the measured call only
(Django's start-up is not in them).

Recomputes queued by a write (an import, a back-dated game) are not run in the
writer's process here: the step that measures a recompute runs it, as a worker would.
The lab's figures, which a worker computes after a recompute, are left out (the
``entry`` step times the algorithms until each is current, not the lab).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

RESULT = "RESULT "


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubrating.settings")
    import django

    django.setup()
    from ratings.recompute import dirty, run

    # The writes below queue a recompute on commit; the benchmark runs it itself.
    dirty.queue_recompute = lambda algorithm: None
    run.mark_lab_dirty = lambda algorithm, start: None


def _server_pid() -> int | None:
    """The PostgreSQL backend serving this process (on this machine), for its CPU time."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def _cpu_seconds(pid: int | None) -> float | None:
    """CPU time of a process of this machine, from /proc (None when unknown)."""
    if pid is None:
        return None
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Clock:
    """Wall time, this process's CPU time and the database server's CPU time."""

    def __init__(self) -> None:
        self.server = _server_pid()

    def __enter__(self) -> Clock:
        self.started = time.perf_counter()
        self.cpu_started = time.process_time()
        self.server_started = _cpu_seconds(self.server)
        return self

    def __exit__(self, *exc) -> None:
        self.seconds = time.perf_counter() - self.started
        self.cpu = time.process_time() - self.cpu_started
        server = _cpu_seconds(self.server)
        self.server_cpu = (
            None if server is None or self.server_started is None else server - self.server_started
        )

    def figures(self) -> dict[str, Any]:
        return {"seconds": self.seconds, "cpu": self.cpu, "server_cpu": self.server_cpu}


# --- steps -------------------------------------------------------------------------


def migrate() -> dict[str, Any]:
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return {}


def import_games(path: str) -> dict[str, Any]:
    """``manage.py import_games FILE`` (without its recompute)."""
    from io import StringIO

    from django.core.management import call_command

    from players.models import Adjustment, Game, Player

    out = StringIO()
    with Clock() as clock:
        call_command("import_games", path, "--allow-duplicates", stdout=out, stderr=StringIO())
    _analyze()
    return {
        **clock.figures(),
        "games": Game.objects.count(),
        "adjustments": Adjustment.objects.count(),
        "players": Player.objects.count(),
        "message": out.getvalue().strip(),
    }


def _analyze() -> None:
    """Fresh planner statistics and no dead rows, as autovacuum would leave the tables a
    little later (the next step should not pay for this one's deletions)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE" if connection.vendor == "postgresql" else "ANALYZE")


def recompute(algorithm: str) -> dict[str, Any]:
    """A full recompute of one algorithm, committed."""
    from ratings.models import Checkpoint
    from ratings.recompute import run as run_services

    with Clock() as clock:
        result = run_services.recompute(algorithm, full=True)
    _analyze()
    return {
        **clock.figures(),
        "rows": result.rows,
        "checkpoints": Checkpoint.objects.filter(algorithm=algorithm).count(),
    }


def copy_baseline(algorithm: str) -> dict[str, Any]:
    """The time to write the algorithm's history rows as they stand, with nothing to
    compute: in one transaction, delete them (timed apart) and write the same rows
    again, with psycopg's COPY on PostgreSQL (from Python tuples, as the recompute
    writes them) or one executemany on SQLite, then commit. The table ends as it began.
    """
    from django.db import connection, transaction

    from ratings.models import RatingHistory
    from ratings.recompute.bulk import RowWriter
    from ratings.recompute.run import HISTORY_COLUMNS

    # The factors as JSON text, as the recompute hands them over.
    text = "factors::text" if connection.vendor == "postgresql" else "factors"
    columns = ", ".join(text if name == "factors" else name for name in HISTORY_COLUMNS)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {columns} FROM ratings_ratinghistory WHERE algorithm = %s ORDER BY position",
            [algorithm],
        )
        rows = [_database_form(row) for row in cursor.fetchall()]
    delete, write = Clock(), Clock()
    with transaction.atomic():
        with delete, connection.cursor() as cursor:
            cursor.execute("DELETE FROM ratings_ratinghistory WHERE algorithm = %s", [algorithm])
        write.__enter__()
        with RowWriter(RatingHistory, HISTORY_COLUMNS) as writer:
            for row in rows:
                writer.add(row)
    write.__exit__(None, None, None)  # after the commit: deferred checks run there
    _analyze()
    return {**write.figures(), "rows": len(rows), "delete_seconds": delete.seconds}


def _database_form(row: tuple) -> tuple:
    """A row as read back, in the form the recompute hands to the writer (SQLite gives
    dates as text)."""
    if isinstance(row[6], str):
        return (*row[:6], date.fromisoformat(row[6]), *row[7:])
    return row


def backdated(algorithm: str, depth: float, runs: int) -> dict[str, Any]:
    """Enter one game dated where the last ``depth`` of the history begins, time the
    recompute it queues (what a worker runs), then void it and recompute again
    (untimed), ``runs`` times."""
    old, total = _game_at_depth(algorithm, depth)
    timings = _timed_entries(old, old.date, runs, [algorithm], "a back-dated game")
    return {
        "depth": depth,
        "date": old.date.isoformat(),
        "total_rows": total,
        "runs": timings,
        "seconds": statistics.median(item["seconds"] for item in timings),
        "rows": statistics.median(item["rows"] for item in timings),
    }


def entry(depth: float, runs: int) -> dict[str, Any]:
    """One game entered ``depth`` from the end of the history (0: dated the day after the
    last game, what a club enters tonight), then the recomputes it queues until every
    maintained algorithm is current, as a worker runs them (``recompute_pending``, the
    primary first): the time of them all and each algorithm's; ``runs`` times."""
    from players.models import Game
    from ratings.recompute.dirty import primary_algorithm
    from ratings.recompute.run import recompute_pending

    # What earlier steps left dirty (they recompute the primary algorithm only) is not
    # this entry's cost.
    recompute_pending()
    if depth:
        old, total = _game_at_depth(primary_algorithm(), depth)
        played_on = old.date
    else:
        old = Game.objects.valid().select_related("white", "black").order_by("-date", "-seq")[0]
        total = None
        played_on = old.date + timedelta(days=1)
    timings = _timed_entries(old, played_on, runs, None, "one game entered")
    return {
        "depth": depth,
        "date": played_on.isoformat(),
        "total_rows": total,
        "runs": timings,
        "seconds": statistics.median(item["seconds"] for item in timings),
    }


def _timed_entries(
    old, played_on: date, runs: int, algorithms: list[str] | None, comment: str
) -> list[dict[str, Any]]:
    """``runs`` times: a record sheet with one game between ``old``'s players on
    ``played_on``, the recomputes it queues timed (``algorithms``, None for every
    maintained one), then the game voided and recomputed again, untimed."""
    from players.models import Game
    from players.services.base import system_user
    from players.services.games import GameInput, game_void, record_sheet_submit
    from ratings.recompute.run import recompute_pending

    user = system_user()
    timings = []
    for run in range(runs):
        sheet = record_sheet_submit(
            user=user,
            games=[
                GameInput(
                    date=played_on,
                    white=old.black,
                    black=old.white,
                    winner="W" if run % 2 else "B",
                    comment=f"benchmark: {comment}",
                )
            ],
            allow_duplicates=True,
        )
        with Clock() as clock:
            results = recompute_pending(algorithms)
        timings.append(
            {
                **clock.figures(),
                "rows": sum(result.rows for result in results),
                "algorithms": {
                    result.algorithm: {"seconds": result.seconds, "rows": result.rows}
                    for result in results
                },
            }
        )
        game = Game.objects.get(pk=sheet.games[0].pk)
        game_void(user=user, game_id=game.pk, version=game.version, reason="bench")
        recompute_pending(algorithms)
    _analyze()
    return timings


def _game_at_depth(algorithm: str, depth: float):
    """The first game of the last ``depth`` of the algorithm's history, and the history's
    length in rows."""
    from ratings.models import RatingHistory

    total = RatingHistory.objects.filter(algorithm=algorithm).count()
    row = (
        RatingHistory.objects.filter(
            algorithm=algorithm, position__gte=int(total * (1 - depth)), game__isnull=False
        )
        .order_by("position")
        .select_related("game__white", "game__black")
        .first()
    )
    return row.game, total


def pages(requests: int) -> dict[str, Any]:
    """The rating list and the busiest player's log page, as ``bench.pages`` times them."""
    from django.conf import settings
    from django.db.models import Count
    from django.test import Client

    from bench.pages import time_page
    from players.models import Player
    from ratings.models import CurrentRating, RatingHistory

    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["testserver"]
    busiest = (
        RatingHistory.objects.filter(algorithm="sagc")
        .values("player")
        .annotate(rows=Count("id"))
        .order_by("-rows")
        .first()
    )
    player = Player.objects.get(pk=busiest["player"])
    rated = CurrentRating.objects.filter(algorithm="sagc").count()
    last_page = (busiest["rows"] + 49) // 50
    client = Client()
    listed = [
        ("rating list, first page", "/"),
        ("rating list, last page", f"/?page={(rated + 49) // 50}"),
        (f"log page, newest 50 of {busiest['rows']:,}", f"/players/{player.username}/"),
        (
            f"log page, oldest 50 of {busiest['rows']:,}",
            f"/players/{player.username}/?page={last_page}",
        ),
    ]
    timings = [time_page(client, page, url, requests) for page, url in listed]
    return {
        "busiest": player.username,
        "busiest_rows": busiest["rows"],
        "timings": [
            {
                "page": item.page,
                "url": item.url,
                "median_ms": item.median_ms,
                "p95_ms": item.p95_ms,
                "cpu_median_ms": item.cpu_median_ms,
                "queries": item.queries,
            }
            for item in timings
        ],
    }


STEPS: dict[str, Callable[..., dict[str, Any]]] = {
    "migrate": migrate,
    "import": import_games,
    "recompute": recompute,
    "copy": copy_baseline,
    "backdated": backdated,
    "entry": entry,
    "pages": pages,
}


def main(argv: list[str]) -> int:
    step, arguments = argv[0], json.loads(argv[1]) if len(argv) > 1 else {}
    _setup()
    result = STEPS[step](**arguments)
    result["peak_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(RESULT + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
