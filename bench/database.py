"""``python -m bench.database``: the site's database at scale (issues 5 and 7).

Builds each data set the way a club would: ``bench/generate.py`` writes the games (a
deterministic club file of SPEC section 2), ``manage.py import_games`` loads them into
a fresh database (which times the import), then it times, each step in a child
process of its own (its peak memory is that process's maximum resident set):

- a full recompute of SAGC on PostgreSQL at 1,000,000 games (10,000 players, 10 years),
  against the limit: COPY of the same history rows into the same table;
- a back-dated game in the last 1%, 5% and 10% of that history (the recompute it
  queues, as a worker runs it; median of ``--runs``);
- the rating list and the busiest player's log page at that scale (``bench.pages``);
- every algorithm's full recompute at 200,000 games (2,000 players) on PostgreSQL,
  SAGC's COPY limit and back-dated entries there too;
- every algorithm at 200,000 games on SQLite (full recomputes, SAGC's executemany
  limit and back-dated entries);
- at 200,000 games on PostgreSQL and SQLite: one game entered after the last and
  back-dated into the last 1%, 5% and 10%, timed until every maintained algorithm is
  current (as a worker runs them), with each algorithm's share.

PostgreSQL: the database named by ``BENCH_DATABASE_URL`` (default
``postgres://postgres@127.0.0.1:5432/clubrating_bench``) is dropped and created again
with ``dropdb``/``createdb``. SQLite: a file in a temporary directory.

A full run rewrites the sections ``bench:recompute`` and ``bench:import`` of
docs/performance.md; ``--quick`` (50,000 and 20,000 games, one run each) and ``--only``
only print.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench.__main__ import DOC, OUT, ROOT, BenchError, run_child, write_section
from bench.__main__ import machine as engine_machine
from bench.dbsteps import RESULT
from bench.generate import Settings, generate

DEFAULT_POSTGRES = "postgres://postgres@127.0.0.1:5432/clubrating_bench"
HISTORY_ALGORITHMS = ("sagc", "egf-2021", "egf-2020", "egf-legacy", "french", "anchor")
EVERY_ALGORITHM = (*HISTORY_ALGORITHMS, "gcr")
DEPTHS = (0.01, 0.05, 0.10)
# Where one game is entered for the time until every algorithm is current: after the
# last game (0), and back-dated into the last 1%, 5% and 10% of the history.
ENTRY_DEPTHS = (0.0, *DEPTHS)
PARTS = ("big", "medium", "sqlite")


def run_step(
    step: str,
    arguments: dict[str, Any],
    database_url: str,
    algorithms: Sequence[str],
    timeout: float = 7200,
    debug: bool = False,
) -> dict[str, Any]:
    """Run ``bench.dbsteps STEP`` in a child process; its RESULT, plus the child's peak
    resident memory as the operating system measured it (``peak_kib``). ``debug``
    starts Django with DEBUG on (the pages step turns it off itself, as bench.pages
    does, so that static files need no collectstatic)."""
    env = {
        key: value
        for key, value in os.environ.items()
        # No broker and no shared cache: tasks in-process, as the steps expect.
        if key not in ("CELERY_BROKER_URL", "REDIS_URL", "CACHE_KEY_PREFIX")
    }
    env.update(
        DATABASE_URL=database_url,
        DJANGO_SETTINGS_MODULE="clubrating.settings",
        RATINGS_ALGORITHMS=",".join(algorithms),
        RATINGS_PRIMARY_ALGORITHM=algorithms[0],
        LOG_LEVEL="WARNING",
        # As in production: DEBUG keeps every query's text (a checkpoint's is megabytes).
        DEBUG="1" if debug else "0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="0",
    )
    command = [sys.executable, "-m", "bench.dbsteps", step, json.dumps(arguments)]
    with tempfile.NamedTemporaryFile(prefix="bench-step-") as out:
        _seconds, peak_kib = run_child(command, out.name, timeout, env=env)
        lines = Path(out.name).read_text(encoding="utf-8", errors="replace").splitlines()
    results = [line for line in lines if line.startswith(RESULT)]
    if not results:
        raise BenchError(f"{step} {arguments} printed no result")
    result = json.loads(results[-1].removeprefix(RESULT))
    result["peak_kib"] = peak_kib
    return result


# --- databases ---------------------------------------------------------------------


@dataclass
class Database:
    vendor: str  # "postgresql" or "sqlite"
    url: str

    @property
    def label(self) -> str:
        return "PostgreSQL" if self.vendor == "postgresql" else "SQLite"


def fresh_postgres(url: str) -> Database:
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    options = ["-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 5432)]
    options += ["-U", parts.username or "postgres"]
    subprocess.run(["dropdb", *options, "--if-exists", "--force", name], check=True)
    subprocess.run(["createdb", *options, name], check=True)
    return Database("postgresql", url)


def fresh_sqlite(directory: Path) -> Database:
    path = directory / "bench.sqlite3"
    path.unlink(missing_ok=True)
    return Database("sqlite", f"sqlite:///{path}")


def games_file(settings: Settings) -> Path:
    """The generated file, made once per settings (the generator is deterministic)."""
    OUT.mkdir(exist_ok=True)
    path = OUT / f"games-{settings.games}-{settings.players}-{settings.years}.csv"
    if not path.exists():
        partial = path.with_suffix(".partial")
        with open(partial, "w", encoding="utf-8", newline="") as out:
            generate(out, settings)
        partial.rename(path)
    return path


# --- one data set ------------------------------------------------------------------


@dataclass
class Run:
    """Everything measured on one data set."""

    database: Database
    settings: Settings
    algorithms: Sequence[str]
    imported: dict[str, Any] = field(default_factory=dict)
    full: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    copy: dict[str, Any] | None = None
    backdated: list[dict[str, Any]] = field(default_factory=list)
    entries: list[dict[str, Any]] = field(default_factory=list)
    pages: dict[str, Any] | None = None

    def step(self, step: str, debug: bool = False, **arguments: Any) -> dict[str, Any]:
        return run_step(step, arguments, self.database.url, self.algorithms, debug=debug)

    def full_median(self, algorithm: str) -> float:
        return statistics.median(run["seconds"] for run in self.full[algorithm])

    def full_of_all(self) -> float:
        """A full recompute of every maintained algorithm, one after the other."""
        return sum(self.full_median(algorithm) for algorithm in self.algorithms)


def measure(
    database: Database,
    settings: Settings,
    *,
    algorithms: Sequence[str],
    full_runs: dict[str, int],
    copy: bool,
    depths: Sequence[float],
    backdated_runs: int,
    pages: bool,
    entries: Sequence[float] = (),
) -> Run:
    run = Run(database, settings, algorithms)
    label = f"{database.label}, {settings.games:,} games"
    path = games_file(settings)
    run.step("migrate")
    run.imported = run.step("import", path=str(path))
    print(
        f"{label}: imported in {run.imported['seconds']:.1f} s "
        f"({settings.games / run.imported['seconds']:,.0f} games/s)",
        flush=True,
    )
    for algorithm in algorithms:
        for _ in range(full_runs.get(algorithm, 1)):
            result = run.step("recompute", algorithm=algorithm)
            run.full.setdefault(algorithm, []).append(result)
            print(
                f"{label}: full {algorithm} {result['seconds']:.1f} s, {result['rows']:,} "
                f"rows, peak {result['peak_kib'] / 1024:.0f} MiB",
                flush=True,
            )
    primary = algorithms[0]
    if copy:
        run.copy = run.step("copy", algorithm=primary)
        print(
            f"{label}: writing the same {run.copy['rows']:,} rows {run.copy['seconds']:.1f} s",
            flush=True,
        )
    for depth in depths:
        result = run.step("backdated", algorithm=primary, depth=depth, runs=backdated_runs)
        run.backdated.append(result)
        print(
            f"{label}: back-dated {depth:.0%}: {result['seconds']:.2f} s, "
            f"{result['rows']:,.0f} rows",
            flush=True,
        )
    for depth in entries:
        result = run.step("entry", depth=depth, runs=backdated_runs)
        run.entries.append(result)
        print(
            f"{label}: one game {_where(depth)}, every algorithm current in "
            f"{result['seconds']:.2f} s",
            flush=True,
        )
    if pages:
        run.pages = run.step("pages", debug=True, requests=30)
    return run


def _where(depth: float) -> str:
    return "after the last" if not depth else f"back-dated into the last {depth:.0%}"


# --- the report --------------------------------------------------------------------


def machine(load: float) -> str:
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{engine_machine(load)}; {memory:.0f} GB of memory, {_postgres_version()}"


def _postgres_version() -> str:
    """``psql (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)`` -> ``PostgreSQL 15.20``."""
    try:
        out = subprocess.run(["psql", "--version"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "PostgreSQL (version unknown)"
    words = out.stdout.split()
    return "PostgreSQL " + (words[2] if len(words) > 2 else "(version unknown)")


def _mib(kib: float) -> str:
    return f"{kib / 1024:,.0f} MiB"


def _cpu(value: float | None) -> str:
    return "" if value is None else f"{value:.1f} s"


def _seconds(values: Sequence[float], digits: int = 1) -> str:
    if len(values) == 1:
        return f"{values[0]:.{digits}f} s (1 run)"
    return f"{statistics.median(values):.{digits}f} s (median of {len(values)})"


def _source(settings: Settings) -> str:
    return (
        f"`python -m bench.generate --games {settings.games} --players {settings.players} "
        f"--years {settings.years} --seed {settings.seed}`"
    )


def markdown(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """A markdown table; a column whose title starts with ``>`` is aligned right."""
    titles = [column.removeprefix(">") for column in columns]
    rules = ["---:" if column.startswith(">") else "---" for column in columns]
    return [
        f"| {' | '.join(titles)} |",
        f"|{'|'.join(rules)}|",
        *(f"| {' | '.join(str(cell) for cell in row)} |" for row in rows),
    ]


def _met(ok: bool) -> str:
    return "yes" if ok else "**no**"


def targets(big: Run, medium: Run | None, sqlite: Run | None) -> list[str]:
    primary = big.algorithms[0]
    full = big.full_median(primary)
    peak = max(run["peak_kib"] for run in big.full[primary])
    rows = []
    if big.copy:
        limit = 2 * big.copy["seconds"]
        rows.append(
            [
                f"full recompute, {big.settings.games:,} games, `{primary}`, {big.database.label}",
                f"{full:.1f} s",
                f"2 x COPY of the same {big.copy['rows']:,} rows = "
                f"2 x {big.copy['seconds']:.1f} s = {limit:.1f} s",
                _met(full <= limit),
            ]
        )
    rows.append(
        [
            "peak memory of that recompute (the whole process)",
            _mib(peak),
            "500 MB",
            _met(peak * 1024 <= 500e6),
        ]
    )
    for run in [big, medium, sqlite]:
        if run is None or not run.backdated:
            continue
        base = run.full_median(run.algorithms[0])
        for item in run.backdated:
            share = item["seconds"] / base
            rows.append(
                [
                    f"back-dated game, last {item['depth']:.0%} of {run.settings.games:,} "
                    f"games, {run.database.label}",
                    f"{item['seconds']:.2f} s = {share:.1%} of the full {base:.1f} s",
                    "15%",
                    _met(share <= 0.15),
                ]
            )
    for run in [big, medium, sqlite]:
        if run is None or not run.entries:
            continue
        base = run.full_of_all()
        for item in run.entries:
            share = item["seconds"] / base
            limit = 0.05 if not item["depth"] else 0.15
            rows.append(
                [
                    f"one game {_where(item['depth'])} of {run.settings.games:,} games, "
                    f"every algorithm current, {run.database.label}",
                    f"{item['seconds']:.2f} s = {share:.1%} of the full {base:.1f} s",
                    f"{limit:.0%}",
                    _met(share <= limit),
                ]
            )
    if big.pages:
        for item in big.pages["timings"]:
            rows.append(
                [
                    f"{item['page']}, p95 server time",
                    f"{item['p95_ms']:.1f} ms",
                    "50 ms",
                    _met(item["p95_ms"] <= 50),
                ]
            )
        if medium and medium.pages:
            pairs = list(zip(big.pages["timings"], medium.pages["timings"], strict=True))
            counts = ", ".join(
                f"{item['page']}: {item['queries']} and {other['queries']}" for item, other in pairs
            )
            rows.append(
                [
                    f"queries per page at {big.settings.games:,} and "
                    f"{medium.settings.games:,} games",
                    counts,
                    "the same",
                    _met(all(item["queries"] == other["queries"] for item, other in pairs)),
                ]
            )
    return markdown(["target", ">measured", ">limit", "met"], rows)


def _middle(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The run with the median wall time."""
    return sorted(items, key=lambda item: item["seconds"])[len(items) // 2]


def full_table(runs: Sequence[Run]) -> list[str]:
    rows = []
    for run in runs:
        for algorithm, items in run.full.items():
            middle = _middle(items)
            rows.append(
                [
                    run.database.label,
                    f"{run.settings.games:,}",
                    f"`{algorithm}`",
                    _seconds([item["seconds"] for item in items]),
                    f"{middle['rows']:,}",
                    f"{middle['rows'] / middle['seconds']:,.0f}",
                    _cpu(middle["cpu"]),
                    _cpu(middle["server_cpu"]),
                    _mib(max(item["peak_kib"] for item in items)),
                    middle["checkpoints"],
                ]
            )
    columns = ["database", ">games", "algorithm", ">wall time", ">history rows", ">rows/s"]
    columns += [">CPU of Python", ">CPU of the server", ">peak memory", ">checkpoints"]
    return markdown(columns, rows)


def copy_table(runs: Sequence[Run]) -> list[str]:
    rows = []
    for run in runs:
        if not run.copy:
            continue
        item = run.copy
        how = "COPY" if run.database.vendor == "postgresql" else "executemany"
        rows.append(
            [
                f"{run.database.label} ({how})",
                f"{run.settings.games:,}",
                f"{item['rows']:,}",
                f"{item['seconds']:.1f} s",
                _cpu(item["cpu"]),
                _cpu(item["server_cpu"]),
                f"{item['delete_seconds']:.1f} s",
                f"{run.full_median(run.algorithms[0]) / item['seconds']:.2f}",
            ]
        )
    columns = ["database", ">games", ">rows", ">write and commit", ">CPU of Python"]
    columns += [">CPU of the server", ">delete before (not counted)", ">full recompute / write"]
    return markdown(columns, rows)


def backdated_table(runs: Sequence[Run]) -> list[str]:
    rows = []
    for run in runs:
        base = run.full_median(run.algorithms[0]) if run.full else None
        for item in run.backdated:
            middle = _middle(item["runs"])
            rows.append(
                [
                    run.database.label,
                    f"{run.settings.games:,}",
                    f"{item['depth']:.0%}",
                    item["date"],
                    f"{item['rows']:,.0f} ({item['rows'] / item['total_rows']:.1%})",
                    _seconds([one["seconds"] for one in item["runs"]], 2),
                    _cpu(middle["cpu"]),
                    _cpu(middle["server_cpu"]),
                    _mib(item["peak_kib"]),
                    f"{item['seconds'] / base:.1%}" if base else "",
                ]
            )
    columns = ["database", ">games", ">depth", "dated", ">rows replayed (of all)", ">wall time"]
    columns += [">CPU of Python", ">CPU of the server", ">peak memory", ">share of the full"]
    return markdown(columns, rows)


def entries_table(runs: Sequence[Run]) -> list[str]:
    rows = []
    for run in runs:
        if not run.entries:
            continue
        base = run.full_of_all()
        for item in run.entries:
            middle = _middle(item["runs"])
            shares = ", ".join(
                f"`{name}` {one['seconds']:.2f} s ({one['rows']:,} rows)"
                for name, one in middle["algorithms"].items()
            )
            rows.append(
                [
                    run.database.label,
                    f"{run.settings.games:,}",
                    _where(item["depth"]),
                    item["date"],
                    _seconds([one["seconds"] for one in item["runs"]], 2),
                    f"{item['seconds'] / base:.1%} of {base:.1f} s",
                    _cpu(middle["cpu"]),
                    _cpu(middle["server_cpu"]),
                    shares,
                ]
            )
    columns = ["database", ">games", "one game", "dated", ">until all are current"]
    columns += [">share of a full recompute of all", ">CPU of Python", ">CPU of the server"]
    columns += ["each algorithm (the run of median time)"]
    return markdown(columns, rows)


def pages_table(runs: Sequence[Run]) -> list[str]:
    rows = [
        [
            f"{run.settings.games:,} games",
            item["page"],
            f"`{item['url']}`",
            f"{item['median_ms']:.1f} ms",
            f"{item['p95_ms']:.1f} ms",
            f"{item['cpu_median_ms']:.1f} ms",
            item["queries"],
        ]
        for run in runs
        if run.pages
        for item in run.pages["timings"]
    ]
    columns = ["data", "page", "URL", ">median", ">p95 (30 requests)"]
    columns += [">median CPU of Django", ">queries"]
    return markdown(columns, rows)


def import_table(runs: Sequence[Run]) -> list[str]:
    rows = [
        [
            run.database.label,
            f"generated, {run.settings.years} years",
            f"{run.imported['games']:,}",
            f"{run.imported['adjustments']:,}",
            f"{run.imported['players']:,}",
            f"{run.imported['seconds']:.1f} s",
            f"{run.imported['games'] / run.imported['seconds']:,.0f}",
            _cpu(run.imported["cpu"]),
            _cpu(run.imported["server_cpu"]),
            _mib(run.imported["peak_kib"]),
        ]
        for run in runs
    ]
    columns = ["database", "file", ">games", ">adjustments", ">players", ">wall time"]
    columns += [">games/s", ">CPU of Python", ">CPU of the server", ">peak memory"]
    return markdown(columns, rows)


# --- main --------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None, invoked_as: str | None = None) -> int:
    """``invoked_as``: the command to name in the doc (``make bench`` calls this)."""
    parser = argparse.ArgumentParser(prog="python -m bench.database", description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="50,000 and 20,000 games, one run each; print only"
    )
    parser.add_argument(
        "--only",
        choices=PARTS,
        action="append",
        help="big: SAGC at 1,000,000 games on PostgreSQL; medium: every algorithm at "
        "200,000 on PostgreSQL; sqlite: every algorithm at 200,000 on SQLite (repeatable)",
    )
    parser.add_argument("--games", type=int, help="games of the big data set (1,000,000)")
    parser.add_argument("--medium-games", type=int, help="games of the others (200,000)")
    parser.add_argument("--runs", type=int, help="runs of each short measurement (3)")
    parser.add_argument("--no-write", action="store_true", help="do not update the doc")
    args = parser.parse_args(argv)

    big_games = args.games or (50_000 if args.quick else 1_000_000)
    medium_games = args.medium_games or (20_000 if args.quick else 200_000)
    runs = args.runs or (1 if args.quick else 3)
    parts = args.only or list(PARTS)
    postgres_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_POSTGRES)
    load = os.getloadavg()[0]
    started = time.perf_counter()

    def settings_for(games: int) -> Settings:
        return Settings(games=games, players=max(4, games // 100), years=10)

    big = medium = sqlite = None
    if "big" in parts:
        big = measure(
            fresh_postgres(postgres_url),
            settings_for(big_games),
            algorithms=["sagc"],
            full_runs={"sagc": 1 if big_games > 200_000 else runs},
            copy=True,
            depths=DEPTHS,
            backdated_runs=runs,
            pages=True,
        )
    if "medium" in parts:
        medium = measure(
            fresh_postgres(postgres_url),
            settings_for(medium_games),
            algorithms=EVERY_ALGORITHM,
            full_runs={"sagc": runs},
            copy=True,
            depths=DEPTHS,
            backdated_runs=runs,
            pages=True,
            entries=ENTRY_DEPTHS,
        )
    if "sqlite" in parts:
        with tempfile.TemporaryDirectory(prefix="clubrating-bench-") as directory:
            sqlite = measure(
                fresh_sqlite(Path(directory)),
                settings_for(medium_games),
                algorithms=EVERY_ALGORITHM,
                full_runs={"sagc": runs},
                copy=True,
                depths=DEPTHS,
                backdated_runs=runs,
                pages=False,
                entries=ENTRY_DEPTHS,
            )
    done = [run for run in (big, medium, sqlite) if run is not None]
    options = list(sys.argv[1:] if argv is None else argv)
    command = invoked_as or " ".join(["python -m bench.database", *options])
    today = datetime.now().astimezone().date().isoformat()
    header = [
        f"Measured {today} on {machine(load)}, with `{command}` "
        f"({(time.perf_counter() - started) / 60:.0f} min in all).",
        "",
        *(f"- {run.database.label}: {_source(run.settings)}" for run in done),
        "",
    ]
    recompute_body = [*header]
    if big and big.full:
        recompute_body += ["**Targets**", "", *targets(big, medium, sqlite), ""]
    recompute_body += ["**Full recompute**", "", *full_table(done), ""]
    recompute_body += ["**The limit: writing the same rows and nothing else**", ""]
    recompute_body += [*copy_table(done), ""]
    recompute_body += ["**A back-dated game** (median of the runs)", "", *backdated_table(done)]
    if any(run.entries for run in done):
        recompute_body += ["", "**One game, until every maintained algorithm is current**", ""]
        recompute_body += [
            "The recomputes a worker runs after one game is entered (primary algorithm "
            "first, the lab not included), against full recomputes of every algorithm "
            "one after the other.",
            "",
            *entries_table(done),
        ]
    if any(run.pages for run in done):
        recompute_body += ["", "**Pages at that scale**", "", *pages_table(done)]
    import_body = [*header, *import_table(done)]
    print()
    print("\n".join(recompute_body))
    print()
    print("\n".join(import_body))
    if not (args.quick or args.only or args.no_write):
        write_section(DOC, "recompute", "\n".join(recompute_body))
        write_section(DOC, "import", "\n".join(import_body))
        print(f"\n{DOC.relative_to(ROOT)}: sections bench:recompute and bench:import updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
