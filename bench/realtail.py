"""``python -m bench.realtail``: what one game costs on a site of real tournaments.

The real tournaments of ``../shared/data`` (or the folder named by ``CLUBRATING_DATA``)
are imported into a fresh SQLite database (``bench/out/realtail``, ignored by git)
through ``manage.py import_tournament``: the EGC 2013 h-file and the 102 h-files of the
go-tournaments archive (``--quick``: the first 20 of them). Then club games after the
last of them (a sheet of ``--club-games``, ten a day, among the players of the last
tournament), every maintained algorithm recomputed in full and the lab computed in
full, each timed. Then three games, each entered through the sheet's service and
followed by what a worker runs until every algorithm and the lab are current
(``bench.dbsteps``): one the day after the last game, one more that day, and one
back-dated into the week of the last tournament that lasted more than a day. Each is
given per algorithm as a share of that algorithm's full recompute (and of its full
lab run), per algorithm as its recompute and lab update against recomputing
everything and the lab in full (issue 27's measure), and in all as a share of
recomputing everything. Each entry's recomputes and lab updates are made ``--repeat``
times (7), the dirty mark put back before each again, and every full run three times:
each figure is the least of its runs, the first run of each entry given beside it.

A full run rewrites the section ``bench:realtail`` of docs/performance.md; ``--quick``,
``--no-write`` and ``--postgres`` (the same on PostgreSQL, the database of
``BENCH_DATABASE_URL``) only print.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from io import StringIO
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.__main__ import DOC, OUT, ROOT, BenchError, machine, write_section
from bench.database import (
    DEFAULT_POSTGRES,
    EVERY_ALGORITHM,
    fresh_postgres,
    fresh_sqlite,
    markdown,
    run_step,
)

DATA = Path(os.environ.get("CLUBRATING_DATA", ROOT.parent / "shared" / "data"))
EGC_2013 = DATA / "egc2013-opengotha" / "EGC2013.h9"
ARCHIVE = DATA / "go-tournaments-archive" / "events"
CLUB_GAMES = 400
# Runs of each entry's recomputes and lab updates, the least kept (``--repeat``), and of
# each full run. An entry's task takes tens of milliseconds, and on a machine of two
# cores the least of three still read a fifth above the least of ten
# (``bench.entrycost``): a share came out a point high, by noise alone.
REPEAT = 7
FULL_RUNS = 3
QUICK_ARCHIVE_FILES = 20
# The entries measured, in the order they are made.
ENTRIES = (
    ("after", "one game the day after the last"),
    ("same-day", "one more game that day"),
    ("in-a-tournament-week", "one game back-dated into a tournament's week"),
)


def tournament_files(quick: bool) -> list[Path]:
    archive = sorted(ARCHIVE.rglob("*.txt")) if ARCHIVE.exists() else []
    if quick:
        archive = archive[:QUICK_ARCHIVE_FILES]
    return [path for path in (EGC_2013, *archive) if path.exists()]


# --- the step, in a child process (python -m bench.dbsteps realtail) ----------------


def entry_places() -> dict[str, tuple[Any, Any]]:
    """Each entry's game to copy (its players, colours swapped) and its day: the newest
    game and the day after it; the first game of the last tournament that lasted more
    than a day and that tournament's second day."""
    from django.db.models import Max, Min

    from players.models import Game

    games = Game.objects.valid().select_related("white", "black")
    newest = games.order_by("-date", "-seq")[0]
    spans = (
        Game.objects.valid()
        .filter(tournament__isnull=False)
        .values("tournament")
        .annotate(first=Min("date"), last=Max("date"))
        .order_by("-first")
    )
    week = next((span for span in spans if span["last"] > span["first"]), spans[0])
    in_week = games.filter(tournament_id=week["tournament"]).order_by("seq")[0]
    return {
        "after": (newest, newest.date + timedelta(days=1)),
        "same-day": (newest, newest.date + timedelta(days=1)),
        "in-a-tournament-week": (in_week, week["first"] + timedelta(days=1)),
    }


def step(dbsteps: ModuleType, files: list[str], club_games: int, repeat: int = 1) -> dict[str, Any]:
    """The measured step; ``dbsteps`` is ``bench.dbsteps`` as the child runs it (its
    ``__main__``, whose lists of queued tasks the writes fill). ``repeat``: each
    entry's recomputes and lab updates made that many times, and every full recompute
    and full lab run ``FULL_RUNS`` times (when above 1), each figure the least of its
    runs."""
    from django.core.management import call_command
    from django.core.management.base import CommandError
    from django.urls import get_resolver

    from players.models import Game, Player
    from players.services.base import system_user
    from players.services.games import GameInput, record_sheet_submit
    from ratings.algorithms import maintained_algorithms
    from ratings.models import RatingHistory

    dbsteps.migrate()
    refused = []
    with dbsteps.Clock() as imported:
        for path in files:
            try:
                call_command(
                    "import_tournament", path, "--yes", "--allow-duplicates", stdout=StringIO()
                )
            except CommandError as error:
                refused.append(f"{Path(path).name}: {' '.join(str(error).split())[:160]}")
    tournament_games = Game.objects.valid().count()
    last = Game.objects.valid().select_related("tournament").order_by("-date", "-seq")[0]
    members = sorted(
        {
            player
            for game in Game.objects.filter(tournament=last.tournament).select_related(
                "white", "black"
            )
            for player in (game.white, game.black)
        },
        key=lambda player: player.pk,
    )
    chooser = random.Random(27)
    first_club_day = last.date + timedelta(days=7)
    sheet = []
    for number in range(club_games):
        white, black = chooser.sample(members, 2)
        sheet.append(
            GameInput(
                date=first_club_day + timedelta(days=number // 10),
                white=white,
                black=black,
                winner=chooser.choice("WB"),
                comment="benchmark: club game",
            )
        )
    record_sheet_submit(user=system_user(), games=sheet, allow_duplicates=True)

    full_runs = min(repeat, FULL_RUNS)
    full = {name: dbsteps.recompute(name, full_runs) for name in maintained_algorithms()}
    lab = dbsteps.lab_full(full_runs)
    dbsteps._settle()
    # Untimed, what a worker that has run a task already has: the URLconf imported (the
    # first recompute that rewrites a tournament's rows builds its crosstable page
    # again, which reverses URLs; importing every view module took 0.3 to 0.5 s of
    # the first back-dated entry's SAGC recompute, the primary algorithm's).
    get_resolver().reverse_dict  # noqa: B018 (the property populates the resolver)

    places = entry_places()
    entries = {}
    for run, (name, _label) in enumerate(ENTRIES):
        old, played_on = places[name]
        entries[name] = {
            "date": played_on.isoformat(),
            **dbsteps._timed_entry(old, played_on, run, repeat),
        }
    return {
        "files": len(files),
        "repeat": repeat,
        "refused": refused,
        "import_seconds": imported.seconds,
        "tournament_games": tournament_games,
        "games": Game.objects.valid().count(),
        "players": Player.objects.count(),
        "last_tournament_day": last.date.isoformat(),
        "rows": {name: RatingHistory.objects.filter(algorithm=name).count() for name in full},
        "full": full,
        "lab": lab,
        "entries": entries,
    }


# --- the report ---------------------------------------------------------------------


def _share(part: float | None, whole: float | None) -> str:
    if part is None or not whole:
        return "-"
    return f"{100 * part / whole:.1f}%"


def report(result: dict[str, Any], header: str) -> list[str]:
    full = result["full"]
    lab_full = result["lab"]["algorithms"]
    everything = sum(item["seconds"] for item in full.values())
    everything_and_lab = everything + result["lab"]["seconds"]
    club_games = result["games"] - result["tournament_games"] - len(ENTRIES)
    lines = [
        header,
        "",
        f"{result['files']} tournament files imported ({result['tournament_games']:,} games, "
        f"{result['import_seconds']:.0f} s), then {club_games:,} club games: "
        f"{result['games']:,} games, {result['players']:,} players. "
        f"A full recompute of every algorithm took {everything:.1f} s, the full lab "
        f"{result['lab']['seconds']:.1f} s more.",
    ]
    repeat = result.get("repeat", 1)
    if repeat > 1:
        lines += [
            "",
            f"Each figure is the least of its runs: every full recompute and full lab run "
            f"made {min(repeat, FULL_RUNS)} times, and each entry's recomputes and lab "
            f"updates {repeat} times, the dirty mark put back before each again (the same "
            "replay, the same rows written). A run of a few tens of milliseconds moves by a "
            "fifth from one run to the next; the least is the one least disturbed. The "
            "first run of each entry is given beside it.",
        ]
    if result["refused"]:
        lines += ["", "Refused by the import: " + "; ".join(result["refused"]) + "."]
    lines += [
        "",
        "Full runs, per algorithm (the lab's full run against the recompute it follows):",
        "",
    ]
    lines += markdown(
        (
            "algorithm",
            ">history rows",
            ">full recompute",
            ">checkpoints",
            ">full lab",
            ">lab / recompute",
        ),
        [
            (
                f"`{name}`",
                f"{result['rows'][name]:,}",
                f"{item['seconds']:.2f} s",
                item["checkpoints"],
                f"{lab_full[name]['seconds']:.2f} s",
                _share(lab_full[name]["seconds"], item["seconds"]),
            )
            for name, item in full.items()
        ],
    )
    everything_cpu = sum(item["cpu"] for item in full.values()) + result["lab"]["cpu"]
    for key, label in ENTRIES:
        entry = result["entries"][key]
        recompute_cpu = sum(item["cpu"] for item in entry["algorithms"].values())
        lines += [
            "",
            f"**{label.capitalize()}** ({entry['date']}): every algorithm and the lab current "
            f"in {entry['seconds']:.2f} s = {_share(entry['seconds'], everything_and_lab)} of "
            f"recomputing everything and the lab in full "
            f"({_share(entry['recompute_seconds'], everything)} for the recomputes against "
            f"the full recomputes; in CPU time {_share(entry['cpu'], everything_cpu)} and "
            f"{_share(recompute_cpu, everything_cpu - result['lab']['cpu'])})"
            + (
                f"; still pending after it: {', '.join(entry['pending'])}"
                if entry["pending"]
                else ""
            )
            + ".",
            "",
        ]
        lines += markdown(
            (
                "algorithm",
                ">rows replayed",
                ">rows rewritten",
                ">recompute",
                ">share of its full recompute",
                ">the same in CPU time",
                ">its first run, CPU",
                ">lab",
                ">share of its full lab",
                ">the same in CPU time",
                ">its first run, CPU",
                ">its recompute and lab, share of everything (CPU)",
            ),
            [
                (
                    f"`{name}`",
                    f"{entry['algorithms'].get(name, {}).get('rows', 0):,}",
                    f"{entry['algorithms'].get(name, {}).get('rewritten', 0):,}",
                    _seconds(entry["algorithms"].get(name)),
                    _share(_spent(entry["algorithms"].get(name)), full[name]["seconds"]),
                    _share(_spent(entry["algorithms"].get(name), "cpu"), full[name]["cpu"]),
                    _share(_first_cpu(entry["algorithms"].get(name)), full[name]["cpu"]),
                    _seconds(entry["lab"].get(name)),
                    _share(_spent(entry["lab"].get(name)), lab_full[name]["seconds"]),
                    _share(_spent(entry["lab"].get(name), "cpu"), lab_full[name]["cpu"]),
                    _share(_first_cpu(entry["lab"].get(name)), lab_full[name]["cpu"]),
                    _share(_own_cpu(entry, name), everything_cpu),
                )
                for name in full
            ],
        )
    return lines


def _own_cpu(entry: dict[str, Any], name: str) -> float | None:
    """The CPU time of ``name``'s recompute and lab update after ``entry``: its part of
    what the entry costs, against recomputing everything (issue 27's measure)."""
    recompute, lab = entry["algorithms"].get(name), entry["lab"].get(name)
    if recompute is None:
        return None
    return recompute["cpu"] + (0.0 if lab is None else lab["cpu"])


def _spent(item: dict[str, Any] | None, kind: str = "seconds") -> float | None:
    return None if item is None else item[kind]


def _first_cpu(item: dict[str, Any] | None) -> float | None:
    """The CPU time of the first of an entry's runs (its only one without repeats)."""
    if item is None:
        return None
    return item["first"]["cpu"] if "first" in item else item["cpu"]


def _seconds(item: dict[str, Any] | None) -> str:
    return "not run" if item is None else f"{item['seconds']:.2f} s"


# --- before and after: one entry, two versions of the code, one database -------------

# Run in a child process with the working directory the tree of one version of the code:
# on a copy of the benchmark's database, every algorithm recomputed in full and timed in
# CPU time (which also warms the process up, as a worker that has run a task is), then
# the entry of ``sys.argv[1]`` made as ``step`` makes it, each recompute it queues run
# and timed the same way.
_COMPARE_CHILD = """
import json, os, sys, time
sys.path.insert(0, os.getcwd())
from bench import dbsteps
dbsteps._setup()
from datetime import timedelta
from django.db.models import Max, Min
from django.urls import get_resolver
from players.models import Game
from ratings import tasks
from ratings.recompute import run
get_resolver().reverse_dict
case = sys.argv[1]
valid = Game.objects.valid()
newest = valid.select_related("white", "black").order_by("-date", "-seq")[0]
if case == "in-a-tournament-week":
    spans = (valid.filter(tournament__isnull=False).values("tournament")
             .annotate(first=Min("date"), last=Max("date")).order_by("-first"))
    week = next((span for span in spans if span["last"] > span["first"]), spans[0])
    old = (valid.filter(tournament_id=week["tournament"]).select_related("white", "black")
           .order_by("seq")[0])
    day = week["first"] + timedelta(days=1)
else:
    old, day = newest, newest.date + timedelta(days=1)
repeat = int(sys.argv[2])
full = {}
from ratings.algorithms import maintained_algorithms
from ratings.models import RecomputeState
for name in maintained_algorithms():
    for _ in range(min(repeat, 2)):
        started = time.process_time()
        run.recompute(name, full=True)
        spent = time.process_time() - started
        full[name] = min(full.get(name, spent), spent)
dbsteps._settle()
from ratings.lab import services as lab_services
lab_full = {}
for name in maintained_algorithms():
    started = time.process_time()
    lab_services.compute_lab_report(name)
    lab_full[name] = time.process_time() - started
if case == "same-day":
    dbsteps._enter_game(old, day, 0, "compare: the first game of the day")
    dbsteps._settle()
dbsteps._enter_game(old, day, 1, "compare")
marks = {state.algorithm: (state.dirty_from, state.dirty_round, state.dirty_seq)
         for state in RecomputeState.objects.all()}
entry = {}
for name in dict.fromkeys(dbsteps.QUEUED_RECOMPUTES):
    for attempt in range(repeat):
        if attempt:  # the entry's dirty mark put back: the same recompute again
            dirty_from, dirty_round, dirty_seq = marks[name]
            RecomputeState.objects.filter(algorithm=name).update(
                dirty_from=dirty_from, dirty_round=dirty_round, dirty_seq=dirty_seq)
        started = time.process_time()
        tasks.recompute_algorithm(name)
        spent = time.process_time() - started
        entry[name] = min(entry.get(name, spent), spent)
lab = {}
for name in dict.fromkeys(dbsteps.QUEUED_LAB):
    started = time.process_time()
    tasks.update_lab_report(name)
    lab[name] = time.process_time() - started
print("RESULT " + json.dumps({"entry": entry, "full": full, "lab": lab, "lab_full": lab_full}))
"""


def compare(before: Path, rounds: int, repeat: int = 1) -> list[str]:
    """Each entry of ``ENTRIES`` made ``rounds`` times with the code of the tree
    ``before`` and with this one, alternately, each on a fresh copy of the database of
    the last full run (``bench/out/realtail``): per algorithm, the CPU time of the
    entry's recompute as a share of the CPU time of its full recompute, and that of the
    lab's update as a share of its full lab run, the least of the rounds (the machine
    may be loaded: only ratios measured in one child are compared). With ``repeat``
    above 1 each child recomputes every algorithm in full twice and each of the entry's
    recomputes ``repeat`` times, its dirty mark put back before each, and keeps the
    least of each (the lab's update is timed once, after them): under load a single run
    of a recompute of a few tens of milliseconds moves by a fifth."""
    import json
    import secrets
    import shutil
    import subprocess

    source = OUT / "realtail" / "bench.sqlite3"
    if not source.exists():
        raise BenchError(f"{source}: run python -m bench.realtail first")
    copy = OUT / "realtail" / "compare.sqlite3"
    trees = {"before": before.resolve(), "after": ROOT}
    shares: dict[str, dict[str, dict[str, float]]] = {}
    for case, _label in ENTRIES:
        for _round in range(rounds):
            for version, tree in trees.items():
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{copy}{suffix}").unlink(missing_ok=True)
                shutil.copyfile(source, copy)
                env = {
                    key: value
                    for key, value in os.environ.items()
                    if key not in ("CELERY_BROKER_URL", "REDIS_URL", "CACHE_KEY_PREFIX")
                }
                env.update(
                    DATABASE_URL=f"sqlite:///{copy}",
                    DJANGO_SETTINGS_MODULE="clubrating.settings",
                    LOG_LEVEL="WARNING",
                    DEBUG="0",
                    SECRET_KEY=secrets.token_urlsafe(50),
                    ALLOWED_HOSTS="testserver",
                    SECURE_SSL_REDIRECT="0",
                )
                done = subprocess.run(
                    [sys.executable, "-c", _COMPARE_CHILD, case, str(repeat)],
                    cwd=tree,
                    env=env,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
                if not lines:
                    raise BenchError(f"{version} {case}: no result\n{done.stderr[-2000:]}")
                result = json.loads(lines[-1].removeprefix("RESULT "))
                kept = shares.setdefault(case, {}).setdefault(version, {})
                for name, seconds in result["entry"].items():
                    share = seconds / result["full"][name]
                    kept[name] = min(kept.get(name, share), share)
                for name, seconds in result["lab"].items():
                    share = seconds / result["lab_full"][name]
                    kept[f"lab:{name}"] = min(kept.get(f"lab:{name}", share), share)
    names = [name for name in shares[ENTRIES[0][0]]["after"] if not name.startswith("lab:")]
    lines = []
    for case, label in ENTRIES:
        lines += [
            "",
            f"**{label.capitalize()}**, CPU time of the recompute against its full one, and of "
            "the lab's update against its full run:",
            "",
        ]
        lines += markdown(
            ("algorithm", ">before", ">after", ">lab before", ">lab after"),
            [
                (
                    f"`{name}`",
                    *(
                        f"{100 * shares[case][version][key]:.1f}%"
                        if key in shares[case][version]
                        else "-"
                        for key in (name, f"lab:{name}")
                        for version in ("before", "after")
                    ),
                )
                for name in names
            ],
        )
    copy.unlink(missing_ok=True)
    return lines


def main(argv: Sequence[str] | None = None, invoked_as: str | None = None) -> int:
    """``invoked_as``: the command to name in the doc (``make bench`` calls this)."""
    parser = argparse.ArgumentParser(prog="python -m bench.realtail", description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help=f"EGC 2013 and {QUICK_ARCHIVE_FILES} archive files"
    )
    parser.add_argument("--club-games", type=int, default=CLUB_GAMES)
    parser.add_argument("--no-write", action="store_true", help="do not update the doc")
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="on PostgreSQL: the database of BENCH_DATABASE_URL (default "
        f"{DEFAULT_POSTGRES}), dropped and created again (prints only)",
    )
    parser.add_argument(
        "--compare-with",
        type=Path,
        metavar="TREE",
        help="instead: each entry with the code of TREE (another checkout) and with this "
        "one, on the database of the last run, in CPU time (prints only)",
    )
    parser.add_argument("--rounds", type=int, default=2, help="with --compare-with")
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="each entry's recomputes and lab updates made this many times, the least "
        "kept (default 3; with --compare-with, each entry's recompute in a child, "
        "default 1)",
    )
    args = parser.parse_args(argv)
    if args.compare_with is not None:
        try:
            print("\n".join(compare(args.compare_with, args.rounds, args.repeat or 1)))
        except BenchError as error:
            print(f"real-data tail: FAILED\n{error}", file=sys.stderr)
            return 1
        return 0
    files = tournament_files(args.quick)
    if not files:
        print(f"real-data tail: skipped, no tournament file under {DATA}", flush=True)
        return 0
    directory = OUT / "realtail"
    directory.mkdir(parents=True, exist_ok=True)
    if args.postgres:
        database = fresh_postgres(os.environ.get("BENCH_DATABASE_URL", DEFAULT_POSTGRES))
    else:
        database = fresh_sqlite(directory)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    try:
        result = run_step(
            "realtail",
            {
                "files": [str(path) for path in files],
                "club_games": args.club_games,
                "repeat": args.repeat or REPEAT,
            },
            database.url,
            EVERY_ALGORITHM,
        )
    except BenchError as error:
        print(f"real-data tail: FAILED\n{error}", file=sys.stderr)
        return 1
    options = list(sys.argv[1:] if argv is None else argv)
    command = invoked_as or " ".join(["python -m bench.realtail", *options])
    today = datetime.now().astimezone().date().isoformat()
    header = (
        f"Measured {today} on {machine(load)}, with `{command}` "
        f"({(time.perf_counter() - started) / 60:.0f} min in all). {database.label}."
    )
    body = "\n".join(report(result, header))
    print()
    print(body)
    if not (args.quick or args.no_write or args.postgres):
        write_section(DOC, "realtail", body)
        print(f"\n{DOC.relative_to(ROOT)}: section bench:realtail updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
