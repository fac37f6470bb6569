"""``python -m bench.month_ends``: the month-end standings a volunteer's upload adds
(issue 25 item 17).

On a fresh PostgreSQL database (``BENCH_MONTH_ENDS_DATABASE_URL``, default
``clubrating_bench_month_ends``), SAGC and EGF 2021 maintained: a club's history
(``bench.generate``, imported with ``import_games``) recomputed, then an EGD h-file of
200 players in five rounds dated 1901 imported with ``import_tournament`` and
recomputed, then one of 2,000 players (the cap of a tournament file) dated 1900. After
each step, per algorithm: the history rows, the month ends and standing rows stored
and their size on disk, the standing rows the rule before (every month end from the
first row's to the one before the last row's) would have stored, counted from the
history rows, the recompute's time, and the list as of three days (everyone, from the
month ends) timed and checked equal to a read of each player's own rows.

A full run rewrites the section ``bench:month-ends`` of docs/performance.md;
``--quick`` (a smaller club) and ``--no-write`` only print.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from bisect import bisect_right
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path

from bench.__main__ import DOC, OUT, ROOT, write_section
from bench.database import machine, markdown
from bench.generate import Settings, generate

SECTION = "month-ends"
DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/clubrating_bench_month_ends"
ALGORITHMS = ("sagc", "egf-2021")
ROUNDS = 5
# (label, players, first day): the upload of the issue, then one at the cap.
UPLOADS = (("200-player h-file of 1901", 200, date(1901, 6, 1)),)
CAP_UPLOAD = ("2,000-player h-file of 1900", 2_000, date(1900, 6, 1))


def h_file(code: str, players: int, first_day: date) -> str:
    """An EGD h-file of ``players`` players (``players`` even) in ``ROUNDS`` rounds
    over two days: in round r the players, in a rotation, meet the one r places on
    (White the lower number, who wins when the round is odd)."""
    second_day = first_day + timedelta(days=1)
    header = (
        f"; CL[B]\n; EV[{code}]\n; PC[ZA,Cape Town]\n; DT[{first_day},{second_day}]\n"
        "; HA[h9]\n; KM[7.5]\n; TM[90]\n;\n"
        f"; Pl Name Rk Co Club MMS SOS {' '.join(str(r) for r in range(1, ROUNDS + 1))}\n"
    )
    results: list[list[str]] = [[] for _ in range(players)]
    half = players // 2
    for round_ in range(1, ROUNDS + 1):
        for board in range(half):
            white, black = board, (board + round_ * 7) % half + half
            white_wins = round_ % 2 == 1
            results[white].append(f"{black + 1}{'+' if white_wins else '-'}/w0")
            results[black].append(f"{white + 1}{'-' if white_wins else '+'}/b0")
    lines = [
        f"{number + 1:6d} {code.title()}{number} Upload{number}  {5 + number % 10}k ZA CTGC"
        f" 1 1 {' '.join(f'{token:>10}' for token in results[number])}"
        for number in range(players)
    ]
    return header + "\n".join(lines) + "\n"


def _counts(algorithm: str) -> dict[str, float]:
    """What ``algorithm`` stores now, and what the rule before would have stored."""
    from django.db import connection

    from ratings.models import MonthEnd, MonthEndStanding, RatingHistory

    history = RatingHistory.objects.filter(algorithm=algorithm)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT MIN(date) FROM {RatingHistory._meta.db_table} "
            "WHERE algorithm = %s GROUP BY player_id",
            [algorithm],
        )
        firsts = sorted(row[0] for row in cursor.fetchall())
        cursor.execute(
            f"SELECT MIN(date), MAX(date) FROM {RatingHistory._meta.db_table} WHERE algorithm = %s",
            [algorithm],
        )
        first, last = cursor.fetchone()
        cursor.execute("SELECT pg_total_relation_size(%s)", [MonthEndStanding._meta.db_table])
        table_bytes = cursor.fetchone()[0]
    # The rule before: every month end from the first row's to the last one before the
    # last row's date, each with every player rated by then.
    every_month = 0
    end = _month_end(first)
    while end < last:
        every_month += bisect_right(firsts, end)
        end = _month_end(end + timedelta(days=1))
    standings = MonthEndStanding.objects.filter(algorithm=algorithm).count()
    all_standings = MonthEndStanding.objects.count() or 1
    return {
        "history": history.count(),
        "month_ends": MonthEnd.objects.filter(algorithm=algorithm).count(),
        "standings": standings,
        "every_month": every_month,
        # The table holds every algorithm's: its share by rows.
        "megabytes": table_bytes * standings / all_standings / 2**20,
    }


def _month_end(day: date) -> date:
    following = date(day.year + (day.month == 12), day.month % 12 + 1, 1)
    return following - timedelta(days=1)


def _list_of_days(algorithm: str, days: Sequence[date]) -> tuple[float, float]:
    """The median time of the whole list as of each of ``days`` from the month ends, and
    read from each player's own rows (checked equal); milliseconds."""
    from players.models import Player
    from players.selectors.ratings import ratings_as_of

    from_month_ends, per_player = [], []
    for day in days:
        started = time.perf_counter()
        listed = ratings_as_of(algorithm, day)
        from_month_ends.append(time.perf_counter() - started)
        started = time.perf_counter()
        each = ratings_as_of(algorithm, day, Player.objects.all())
        per_player.append(time.perf_counter() - started)
        if _rows(listed) != _rows(each):
            raise SystemExit(f"{algorithm} as of {day}: the list differs from each player's rows")
    return statistics.median(from_month_ends) * 1000, statistics.median(per_player) * 1000


def _rows(standings) -> set[tuple]:
    return {(row.player_id, row.rank, row.value, row.last_updated) for row in standings}


def measure(games: int, players: int) -> list[dict]:
    """The steps, in this process (Django set up on ``DATABASE_URL``)."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.db.models import Max, Min

    from players.models import Game
    from ratings.lab import services as lab_services
    from ratings.recompute.run import recompute_pending

    # The lab's reports are bench.lab's to time; here they would only add their time.
    lab_services._queue_lab_update = lambda algorithm, countdown=None: None

    call_command("migrate", verbosity=0)
    OUT.mkdir(exist_ok=True)
    settings = Settings(games=games, players=players, years=10)
    club_csv = OUT / f"month-ends-club-{games}-{players}.csv"
    with open(club_csv, "w", encoding="utf-8", newline="") as out:
        generate(out, settings)
    steps = [
        (
            "club history",
            lambda: call_command(
                "import_games", str(club_csv), "--allow-duplicates", stdout=io.StringIO()
            ),
        )
    ]
    for label, count, first_day in (*UPLOADS, CAP_UPLOAD):
        code = f"upload{first_day.year}"

        def upload(code=code, count=count, first_day=first_day):
            with tempfile.NamedTemporaryFile("w", suffix=".h", delete=False) as file:
                file.write(h_file(code, count, first_day))
            try:
                call_command("import_tournament", file.name, "--yes", stdout=io.StringIO())
            finally:
                os.unlink(file.name)

        steps.append((label, upload))
    results = []
    for label, step in steps:
        started = time.perf_counter()
        step()  # its recompute runs on commit (no broker: the tasks run in this process)
        recompute_pending()
        seconds = time.perf_counter() - started
        span = Game.objects.aggregate(first=Min("date"), last=Max("date"))
        club_first = Game.objects.filter(tournament__isnull=True).aggregate(first=Min("date"))
        middle = club_first["first"] + (span["last"] - club_first["first"]) / 2
        days = [span["first"] + timedelta(days=14), middle, span["last"] - timedelta(days=1)]
        for algorithm in ALGORITHMS:
            counts = _counts(algorithm)
            counts["list_ms"], counts["per_player_ms"] = _list_of_days(algorithm, days)
            results.append({"step": label, "algorithm": algorithm, "seconds": seconds, **counts})
            print(
                f"{label:>28} {algorithm:>9}: {counts['history']:>9,} history rows, "
                f"{counts['month_ends']:>5} month ends, {counts['standings']:>9,} standings "
                f"(every month: {counts['every_month']:>11,}), list {counts['list_ms']:.0f} ms",
                flush=True,
            )
    return results


def section(results: list[dict], games: int, players: int, command: str, load: float) -> str:
    rows = [
        (
            item["step"],
            item["algorithm"],
            f"{item['history']:,}",
            f"{item['month_ends']:,}",
            f"{item['standings']:,}",
            f"{item['megabytes']:.1f}",
            f"{item['every_month']:,}",
            f"{item['seconds']:.1f}",
            f"{item['list_ms']:.0f}",
            f"{item['per_player_ms']:.0f}",
        )
        for item in results
    ]
    table = markdown(
        (
            "after",
            "algorithm",
            ">history rows",
            ">month ends stored",
            ">standings stored",
            ">their MB",
            ">every month end (before)",
            ">import and recompute s",
            ">list of a day ms",
            ">per player ms",
        ),
        rows,
    )
    return "\n".join(
        [
            f"Measured by `{command}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
            f"{machine(load)}.",
            "",
            f"A club of {players:,} players and {games:,} games over ten years "
            "(`bench.generate`), SAGC and EGF 2021 maintained, then EGD h-files uploaded with "
            f'`import_tournament`, each of {ROUNDS} rounds. "Every month end (before)": the '
            "standing rows the rule before this one stored, one per player rated by then at "
            "each month end from the first row's, counted from the same history rows. "
            '"Import and recompute": the step, every algorithm recomputed after it. "List of '
            'a day": the median time of the whole list as of three days (two weeks after the '
            "first game, the middle of the club's history, the day before the last game) read "
            'from the month ends; "per player": the same lists read from each player\'s own '
            "rows (one index step each), which they are checked equal to.",
            "",
            *table,
        ]
    )


def main(argv: Sequence[str] | None = None, invoked_as: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.month_ends", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a club of 5,000 games")
    parser.add_argument("--no-write", action="store_true", help="do not update the doc")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--games", type=int)
    parser.add_argument("--players", type=int)
    args = parser.parse_args(argv)
    games = args.games or (5_000 if args.quick else 50_000)
    players = args.players or max(4, games // 100)
    if args.measure:
        args.measure.write_text(json.dumps(measure(games, players)), encoding="utf-8")
        return 0
    from bench.database import fresh_postgres

    url = os.environ.get("BENCH_MONTH_ENDS_DATABASE_URL", DEFAULT_DATABASE)
    fresh_postgres(url)
    load = os.getloadavg()[0]
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "RATINGS_ALGORITHMS": ",".join(ALGORITHMS),
        "DJANGO_SETTINGS_MODULE": "clubrating.settings",
        "LOG_LEVEL": "WARNING",
    }
    for name in ("CELERY_BROKER_URL", "REDIS_URL"):  # tasks in-process
        env.pop(name, None)
    measured = OUT / "month-ends.json"
    OUT.mkdir(exist_ok=True)
    measured.unlink(missing_ok=True)
    command = [sys.executable, "-m", "bench.month_ends", "--measure", str(measured)]
    command += ["--games", str(games), "--players", str(players)]
    if subprocess.run(command, cwd=ROOT, env=env).returncode != 0 or not measured.exists():
        print("bench.month_ends: the measuring process failed", file=sys.stderr)
        return 1
    results = json.loads(measured.read_text(encoding="utf-8"))
    options = list(sys.argv[1:] if argv is None else argv)
    shown = invoked_as or " ".join(["python -m bench.month_ends", *options])
    body = section(results, games, players, shown, load)
    print()
    print(body)
    if not (args.quick or args.no_write):
        write_section(DOC, SECTION, body)
        print(f"\n{Path(DOC).relative_to(ROOT)}: section bench:{SECTION} updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
