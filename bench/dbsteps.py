"""The measured steps of ``python -m bench.database``, each run in a child process.

``python -m bench.dbsteps STEP '{"json": "arguments"}'`` with ``DATABASE_URL`` naming the
benchmark's database. The child sets Django up, runs the step and prints one line
``RESULT {...}`` (JSON) at the end; the parent reads it and takes the child's peak
memory from the operating system. Times are taken around the measured call only
(Django's start-up is not in them).

Tasks queued by a write (an import, a game entered) are not sent here: the queueing
functions are replaced by lists (``QUEUED_RECOMPUTES``, ``QUEUED_LAB``), and the step
that measures a recompute runs what was queued itself, through the Celery tasks'
own code (``ratings.tasks``, called in this process), as a worker would. The
``save`` step alone keeps the real queueing: it times the request that sends them.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

RESULT = "RESULT "

# What the writes of a step queued, in order (algorithm names): the recompute tasks,
# and the lab's updates that each recompute queues in its turn.
QUEUED_RECOMPUTES: list[str] = []
QUEUED_LAB: list[str] = []
# The warming of the tournament pages a recompute rewrote (algorithm, date replayed
# from): a task of its own, queued after the recompute; run untimed by _settle.
QUEUED_WARMING: list[tuple[str, Any]] = []
_SENDERS: dict[str, Any] = {}


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubrating.settings")
    import django

    django.setup()
    from players.public import receivers
    from ratings.lab import services as lab_services
    from ratings.recompute import dirty

    # The writes below queue tasks on commit; the benchmark runs them itself.
    _SENDERS.update(
        recompute=dirty.queue_recompute,
        lab=lab_services._queue_lab_update,
        warming=receivers.queue_warming,
    )
    dirty.queue_recompute = QUEUED_RECOMPUTES.append
    lab_services._queue_lab_update = QUEUED_LAB.append
    receivers.queue_warming = lambda algorithm, start: QUEUED_WARMING.append((algorithm, start))


def _send_tasks_for_real() -> None:
    """Queue tasks as the site does (to the broker of the settings)."""
    from players.public import receivers
    from ratings.lab import services as lab_services
    from ratings.recompute import dirty

    dirty.queue_recompute = _SENDERS["recompute"]
    lab_services._queue_lab_update = _SENDERS["lab"]
    receivers.queue_warming = _SENDERS["warming"]


_BACKEND_PID: list[int | None] = []


def _server_pid() -> int | None:
    """The PostgreSQL backend serving this process (on this machine), for its CPU time."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    if not _BACKEND_PID:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            _BACKEND_PID.append(cursor.fetchone()[0])
    return _BACKEND_PID[0]


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


def recompute(algorithm: str, repeat: int = 1) -> dict[str, Any]:
    """A full recompute of one algorithm, committed; with ``repeat``, made that many
    times and each figure the least of them (:func:`least`)."""
    from ratings.models import Checkpoint
    from ratings.recompute import run as recompute_run

    timings = []
    for _ in range(repeat):
        with Clock() as clock:
            result = recompute_run.recompute(algorithm, full=True)
        _analyze()
        timings.append(clock.figures())
    return {
        **least(timings),
        "rows": result.rows,
        "checkpoints": Checkpoint.objects.filter(algorithm=algorithm).count(),
    }


def least(timings: list[dict[str, Any]]) -> dict[str, Any]:
    """The least of each figure of ``timings`` (``Clock.figures``), and how many runs
    they are the least of: a run of a few tens of milliseconds moves by a fifth from
    one run to the next on a machine doing anything else, and the least is the one
    least disturbed (as ``timeit`` reports). ``first``: the first run's figures."""
    figures: dict[str, Any] = {"runs": len(timings), "first": timings[0]}
    for kind in ("seconds", "cpu", "server_cpu"):
        values = [timing[kind] for timing in timings if timing[kind] is not None]
        figures[kind] = min(values) if values else None
    return figures


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
    last game, what a club enters tonight), then what a worker runs until every
    maintained algorithm and the lab are current: the recompute task of each algorithm
    the write queued (primary first), then the lab's update task each recompute
    queued, all through ``ratings.tasks`` in this process, timed in all and each;
    ``runs`` times (the games stay: each is one more game in the history). The lab's
    debounce (``RATINGS_LAB_DELAY_SECONDS``, a wait, not work) is not in the times."""
    from players.models import Game
    from ratings.algorithms import primary_algorithm

    # What earlier steps left behind (the SAGC-only back-dated games, the full
    # recomputes' lab marks) is not this entry's cost.
    _settle()
    if depth:
        old, total = _game_at_depth(primary_algorithm(), depth)
        played_on = old.date
    else:
        old = Game.objects.valid().select_related("white", "black").order_by("-date", "-seq")[0]
        total = None
        played_on = old.date + timedelta(days=1)
    timings = [_timed_entry(old, played_on, run) for run in range(runs)]
    _analyze()
    return {
        "depth": depth,
        "date": played_on.isoformat(),
        "total_rows": total,
        "runs": timings,
        "seconds": statistics.median(item["seconds"] for item in timings),
    }


def _timed_entry(old, played_on: date, run: int, repeat: int = 1) -> dict[str, Any]:
    """One game between ``old``'s players on ``played_on`` through the sheet's service,
    then what a worker runs until every maintained algorithm and the lab are current,
    timed in all and each (see :func:`entry`); the game stays.

    With ``repeat``, each recompute and each lab update is made that many times from
    the same database (:class:`_Rewound`: the same replay, the same rows written, the
    same values changed), and each figure is the least of them (:func:`least`); the
    times in all are then the sums of those."""
    from players.public.crosstable_cache import warm_after_recompute
    from ratings import tasks

    QUEUED_RECOMPUTES.clear()
    QUEUED_LAB.clear()
    QUEUED_WARMING.clear()
    _enter_game(old, played_on, run, "one game entered")
    recomputes: dict[str, dict[str, Any]] = {}
    lab: dict[str, dict[str, Any]] = {}
    with Clock() as clock:
        for name in dict.fromkeys(QUEUED_RECOMPUTES):
            figures, results = _least_of(name, "", repeat, tasks.recompute_algorithm)
            recomputes[name] = {
                **figures,
                "rows": sum(result["rows"] for result in results),
                "rewritten": sum(result["rewritten"] for result in results),
                "from": [result["from"] for result in results],
            }
        for name in dict.fromkeys(QUEUED_LAB):
            figures, counted = _least_of(name, "lab_", repeat, tasks.update_lab_report)
            lab[name] = {**figures, "games": counted}
    # The pages' warming, a task of its own after the recompute: timed apart.
    with Clock() as warming:
        for algorithm, start in dict.fromkeys(QUEUED_WARMING):  # once, however many runs
            warm_after_recompute(algorithm, start)
        QUEUED_WARMING.clear()
    pending = _pending()
    if pending:
        _settle()
    whole = clock.figures()
    if repeat > 1:
        every = [*recomputes.values(), *lab.values()]
        whole = {
            kind: sum(item[kind] for item in every)
            if all(item[kind] is not None for item in every)
            else None
            for kind in whole
        }
    return {
        "warming": warming.figures(),
        **whole,
        "rows": sum(item["rows"] for item in recomputes.values()),
        "algorithms": recomputes,
        "lab": lab,
        "recompute_seconds": sum(item["seconds"] for item in recomputes.values()),
        "lab_seconds": sum(item["seconds"] for item in lab.values()),
        "pending": pending,  # should be empty: all current
    }


def _least_of(
    algorithm: str, prefix: str, repeat: int, step: Callable[[str], Any]
) -> tuple[dict[str, Any], Any]:
    """``step(algorithm)`` made ``repeat`` times from the same database (:class:`_Rewound`,
    ``prefix`` naming its mark), timed: the least figures (:func:`least`) and what the
    last run returned."""
    timings = []
    with _Rewound(algorithm, prefix, repeat) as rewound:
        for _attempt in rewound:
            with Clock() as one:
                returned = step(algorithm)
            timings.append(one.figures())
    return least(timings), returned


class _Rewound:
    """``repeat`` runs of one step from the same database: iterated, before each run but
    the first, the database is put back as it was before the first. Marks alone would
    not do: a run that writes only the values that changed (the month ends, GCR's
    snapshots) finds none changed the second time, and a lab update finds its runs
    merged. On SQLite the file is copied aside and back (the connection closed
    around it); elsewhere only ``algorithm``'s dirty mark (``prefix`` "lab_": its
    lab's) is put back."""

    def __init__(self, algorithm: str, prefix: str, repeat: int) -> None:
        from django.db import connection

        self.algorithm, self.prefix, self.repeat = algorithm, prefix, repeat
        self.path = connection.settings_dict["NAME"] if connection.vendor == "sqlite" else None
        self.copy: str | None = None
        self.marks: dict[str, Any] = {}

    def __enter__(self) -> _Rewound:
        if self.repeat > 1:
            if self.path is None:
                self.marks = self._marks()
            else:
                self.copy = f"{self.path}.rewound"
                self._copied(self.path, self.copy)
        return self

    def __iter__(self) -> Iterator[int]:
        for attempt in range(self.repeat):
            if attempt:
                self._put_back()
            yield attempt

    def __exit__(self, *exc: Any) -> None:
        if self.copy is not None:
            Path(self.copy).unlink(missing_ok=True)

    def _marks(self) -> dict[str, Any]:
        from ratings.models import RecomputeState

        fields = [f"{self.prefix}dirty_{part}" for part in ("from", "round", "seq")]
        return RecomputeState.objects.filter(algorithm=self.algorithm).values(*fields).get()

    def _put_back(self) -> None:
        from ratings.models import RecomputeState

        if self.copy is None:
            RecomputeState.objects.filter(algorithm=self.algorithm).update(**self.marks)
        else:
            assert self.path is not None
            self._copied(self.copy, self.path)

    @staticmethod
    def _copied(source: str, target: str) -> None:
        """``source`` copied to ``target`` with every connection closed (the WAL moved
        into the file first, so the file alone is the database)."""
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()
        for suffix in ("-wal", "-shm"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(source, target)


def _pending() -> list[str]:
    """What is not current: ``name`` for a dirty algorithm, ``lab:name`` for a lab report
    that is behind."""
    from ratings.models import RecomputeState

    pending = []
    for state in RecomputeState.objects.order_by("algorithm"):
        if state.dirty_from is not None:
            pending.append(state.algorithm)
        if state.lab_dirty_from is not None:
            pending.append(f"lab:{state.algorithm}")
    return pending


def _settle() -> None:
    """Untimed: run whatever is pending (recomputes, then lab updates) as a worker would,
    and forget what was queued, so that the next write starts from a current site."""
    from ratings import tasks
    from ratings.algorithms import maintained_algorithms
    from ratings.models import RecomputeState
    from ratings.recompute import run as recompute_run

    RecomputeState.objects.update(queued_at=None, lab_queued_at=None)
    recompute_run.recompute_pending()
    # Those recomputes marked the lab just now: with a broker (the save step) its update
    # would wait out the debounce and queue itself for later instead of running.
    RecomputeState.objects.update(lab_queued_at=None)
    for name in maintained_algorithms():
        tasks.update_lab_report(name)
    RecomputeState.objects.update(queued_at=None, lab_queued_at=None)
    from players.public.crosstable_cache import warm_after_recompute

    for algorithm, start in QUEUED_WARMING:
        warm_after_recompute(algorithm, start)
    QUEUED_RECOMPUTES.clear()
    QUEUED_LAB.clear()
    QUEUED_WARMING.clear()


def lab_full(repeat: int = 1) -> dict[str, Any]:
    """The lab's reports of every maintained algorithm computed in full, one after the
    other, each through the task the committee's "recompute the lab" queues
    (``tasks.compute_lab_reports``); the reports are then current (their marks left by
    the full recomputes are cleared). With ``repeat``, each made that many times, its
    figures the least of them (:func:`least`)."""
    from ratings import tasks
    from ratings.algorithms import maintained_algorithms
    from ratings.models import RecomputeState

    algorithms = {}
    for name in maintained_algorithms():
        timings = []
        for _ in range(repeat):
            with Clock() as one:
                reports = tasks.compute_lab_reports([name])
            timings.append(one.figures())
        algorithms[name] = {**least(timings), "games": sum(item["games"] for item in reports)}
    RecomputeState.objects.update(lab_dirty_from=None, lab_queued_at=None)
    QUEUED_LAB.clear()
    whole = {
        kind: None
        if any(item[kind] is None for item in algorithms.values())
        else sum(item[kind] for item in algorithms.values())
        for kind in ("seconds", "cpu", "server_cpu")
    }
    return {**whole, "algorithms": algorithms}


def _enter_game(old, played_on: date, run: int, comment: str):
    """A record sheet of one game between ``old``'s players (colours swapped) on
    ``played_on``, through the service the sheet page calls; the game."""
    from players.services.base import system_user
    from players.services.games import GameInput, record_sheet_submit

    sheet = record_sheet_submit(
        user=system_user(),
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
    return sheet.games[0]


def _timed_entries(
    old, played_on: date, runs: int, algorithms: list[str] | None, comment: str
) -> list[dict[str, Any]]:
    """``runs`` times: a record sheet with one game between ``old``'s players on
    ``played_on``, the recomputes it queues timed (``algorithms``, None for every
    maintained one), then the game voided and recomputed again, untimed."""
    from players.models import Game
    from players.services.base import system_user
    from players.services.games import game_void
    from ratings.recompute import run as recompute_run

    user = system_user()
    timings = []
    for run in range(runs):
        entered = _enter_game(old, played_on, run, comment)
        with Clock() as clock:
            results = recompute_run.recompute_pending(algorithms)
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
        game = Game.objects.get(pk=entered.pk)
        game_void(user=user, game_id=game.pk, version=game.version, reason="bench")
        recompute_run.recompute_pending(algorithms)
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


def save(
    requests: int, worker: bool = False, pause: float = 0.0, settle: bool = False, full: str = ""
) -> dict[str, Any]:
    """The sheet save as the volunteer feels it: ``requests`` POSTs of a one-game record
    sheet to ``/sheets/new/`` through Django's test Client (after three untimed), each
    a game between two players of the last games, dated the day after the last game,
    with the site's real queueing (the child's broker: the embedded set-up's
    ``filesystem://`` one). Before each save the queued marks are taken off, as a worker
    taking the last save's tasks would, so every save sends its tasks. With ``worker``,
    a Celery worker (one process, as ``make run`` starts it) runs them meanwhile, and
    the saves are ``pause`` seconds apart; ``full`` (an algorithm) is marked for a full
    recompute just before the worker starts, so that the saves meet a long one.
    ``settle`` first runs, untimed, whatever is pending (recomputes, then the lab's
    updates), so that a worker runs what the saves queue and nothing left before."""
    import subprocess

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client
    from django.utils import timezone

    from players.models import Game
    from players.roles import VOLUNTEERS
    from ratings.models import RecomputeState

    # Whatever is pending stays so unless ``settle`` (a save marks dates dirty the same
    # either way). A data set never recomputed in full is not recomputed here: at
    # 1,000,000 games that is hours, for the full step to time.
    if settle:
        never = never_recomputed()
        if never:
            raise RuntimeError(
                f"never recomputed in full: {', '.join(never)}; run the steps full and lab "
                "on this data set first (--reuse --steps full,lab)"
            )
        _settle()
    _send_tasks_for_real()
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["testserver"]
    volunteer, _ = get_user_model().objects.get_or_create(username="bench-volunteer")
    volunteer.groups.add(Group.objects.get_or_create(name=VOLUNTEERS)[0])
    client = Client()
    client.force_login(volunteer)
    pairs: dict[frozenset[int], Game] = {}  # one save per pair: no duplicate to confirm
    latest = Game.objects.valid().select_related("white", "black").order_by("-date", "-seq")
    for game in latest[: 20 * (requests + 3)]:
        pairs.setdefault(frozenset((game.white_id, game.black_id)), game)
        if len(pairs) == requests + 3:
            break
    recent = list(pairs.values())
    played_on = recent[0].date + timedelta(days=1)
    child = None
    if full:
        from ratings.recompute.dirty import request_full_recompute

        request_full_recompute(user=volunteer, algorithm=full)
    if worker:
        command = [sys.executable, "-m", "celery", "-A", "clubrating", "worker"]
        command += ["--loglevel", "WARNING", "--concurrency", "1"]
        command += ["--without-mingle", "--without-gossip"]
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(10)  # started, its queue read
    seconds: list[float] = []
    cpu_seconds: list[float] = []
    server_seconds: list[float | None] = []  # the PostgreSQL backend's CPU time
    began = timezone.now()
    try:
        for number, game in enumerate(recent):
            RecomputeState.objects.update(queued_at=None, lab_queued_at=None)
            data = {
                "form-TOTAL_FORMS": "1",
                "form-INITIAL_FORMS": "0",
                "form-MIN_NUM_FORMS": "0",
                "form-MAX_NUM_FORMS": "200",
                "sheet-received_on": played_on.isoformat(),
                "sheet-note": "",
                "form-0-date": played_on.isoformat(),
                "form-0-white": game.black.username,
                "form-0-black": game.white.username,
                "form-0-handicap": str(game.handicap),
                "form-0-komi": str(game.komi),
                "form-0-winner": "W" if number % 2 else "B",
                "form-0-status": "normal",
                "form-0-comment": "benchmark: a sheet saved",
                "form-0-tournament": "",
                "form-0-round": "0",
                "form-0-board_size": "19",
                "form-0-time_minutes": "",
            }
            with Clock() as clock:
                response = client.post("/sheets/new/", data)
            elapsed, cpu = clock.seconds, clock.cpu
            if response.status_code != 302:
                raise RuntimeError(
                    f"the sheet was not saved ({response.status_code}): "
                    + response.content.decode(errors="replace")[:2000]
                )
            if number >= 3:  # the first three warm up
                seconds.append(elapsed)
                cpu_seconds.append(cpu)
                server_seconds.append(clock.server_cpu)
            if pause:
                time.sleep(pause)
    finally:
        if child is not None:
            child.terminate()
            try:
                child.wait(timeout=120)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
    # What the worker did meanwhile: the algorithms whose recompute it finished, and
    # what was left pending when it stopped.
    worked = RecomputeState.objects.filter(last_finished__gte=began).count()
    return {
        "recomputed": worked,
        "pending": _pending(),
        "broker": settings.CELERY_BROKER_URL.split("/")[0] + "//",
        "worker": worker,
        "pause": pause,
        "full": full,
        "requests": len(seconds),
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "median_ms": statistics.median(seconds) * 1000,
        "p95_ms": statistics.quantiles(seconds, n=20, method="inclusive")[18] * 1000,
        "cpu_median_ms": statistics.median(cpu_seconds) * 1000,
        "cpu_p95_ms": statistics.quantiles(cpu_seconds, n=20, method="inclusive")[18] * 1000,
        "server_cpu_median_ms": None
        if None in server_seconds
        else statistics.median(server_seconds) * 1000,
    }


def never_recomputed() -> list[str]:
    """The maintained algorithms that no recompute has finished on (an import leaves
    every one so)."""
    from ratings.algorithms import maintained_algorithms
    from ratings.models import RecomputeState

    done = RecomputeState.objects.filter(last_finished__isnull=False)
    finished = set(done.values_list("algorithm", flat=True))
    return [name for name in maintained_algorithms() if name not in finished]


def pages(requests: int) -> dict[str, Any]:
    """Every public page at this scale (``bench.pages.public_pages``), as ``bench.pages``
    times them: the busiest player, their busiest opponent, the largest tournament,
    a day mid-way through the history."""
    from django.conf import settings
    from django.db.models import Count, Max, Min
    from django.test import Client

    from bench.pages import World, busiest_opponent, public_pages, time_pages
    from players.models import Club, Game, Player, Tournament
    from ratings.models import CurrentRating, RatingHistory

    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["testserver"]
    primary = RatingHistory.objects.order_by().values_list("algorithm", flat=True).first()
    busiest = (
        RatingHistory.objects.filter(algorithm=primary)
        .values("player")
        .annotate(rows=Count("id"))
        .order_by("-rows")
        .first()
    )
    player = Player.objects.get(pk=busiest["player"])
    span = Game.objects.valid().aggregate(first=Min("date"), last=Max("date"))
    middle = span["first"] + (span["last"] - span["first"]) / 2
    largest = Tournament.objects.order_by("-game_count", "code").first()
    club = Club.objects.order_by("pk").first()
    world = World(
        player=player.username,
        player_games=busiest["rows"],
        opponent=busiest_opponent(player.username),
        as_of=middle.isoformat(),
        since=middle.isoformat(),
        until=(middle + timedelta(days=30)).isoformat(),
        tournament=largest.code if largest else None,
        tournament_label=f"tournament of {largest.game_count:,} games" if largest else "",
        club=club.pk if club else None,
        club_label=club.name if club else "",
        rated=CurrentRating.objects.filter(algorithm=primary).count(),
    )
    timings = time_pages(Client(), public_pages(world), requests)
    return {
        "busiest": player.username,
        "busiest_rows": busiest["rows"],
        "timings": [item.as_dict() for item in timings],
    }


STEPS: dict[str, Callable[..., dict[str, Any]]] = {
    "migrate": migrate,
    "import": import_games,
    "recompute": recompute,
    "copy": copy_baseline,
    "backdated": backdated,
    "entry": entry,
    "lab": lab_full,
    "save": save,
    "pages": pages,
    "realtail": lambda **arguments: _real_tail(**arguments),
}


def _real_tail(**arguments: Any) -> dict[str, Any]:
    from bench import realtail  # it imports this module's helpers

    # This module as it runs (``__main__``): its lists are the ones the writes fill.
    return realtail.step(sys.modules[__name__], **arguments)


def main(argv: list[str]) -> int:
    step, arguments = argv[0], json.loads(argv[1]) if len(argv) > 1 else {}
    _setup()
    result = STEPS[step](**arguments)
    result["peak_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(RESULT + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
