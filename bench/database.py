"""``python -m bench.database``: the site's database at scale (issues 5, 7 and 14).

Builds each data set the way a club would: ``bench/generate.py`` writes the games (a
deterministic club file of SPEC section 2), ``manage.py import_games`` loads them into
a fresh database (which times the import), then it times, each step in a child
process of its own (its peak memory is that process's maximum resident set), on
PostgreSQL at 1,000,000 games (10,000 players, 10 years; ``big``) and at 200,000
(2,000 players; ``medium``), and on SQLite at 200,000 (``sqlite``):

- a full recompute of every maintained algorithm, and a full run of the lab;
- the limit: the primary algorithm's history rows written again and nothing else
  (COPY on PostgreSQL, executemany on SQLite);
- a back-dated game in the last 1%, 5% and 10% of the history, the primary algorithm
  alone (its recompute, as a worker runs it);
- what the user feels (issue 14, item 8): one game entered after the last and
  back-dated into the last 1%, 5% and 10%, timed until every maintained algorithm and
  the lab are current, running the tasks a worker runs (``ratings.tasks``: each
  algorithm's recompute, then the lab's updates), each algorithm's share of its own
  full recompute and the whole against full recomputes of all and a full lab run;
- the sheet save: POSTs of a one-game record sheet through Django's test Client with
  the embedded set-up's broker (p50 and p95), and on SQLite also with a Celery worker
  running the recomputes the saves queue; ``sqlite-big`` times the same at 1,000,000
  games on SQLite (the embedded set-up at the issue's scale), after a full recompute of
  every algorithm and a full lab run (the worker then runs what the saves queue);
- every public page at that scale (``bench.pages.public_pages``).

PostgreSQL: the database named by ``BENCH_DATABASE_URL`` (default
``postgres://postgres@127.0.0.1:5432/clubrating_bench``) is dropped and created again
with ``dropdb``/``createdb``. SQLite: ``bench/out/bench-GAMES.sqlite3``.

Each data set's figures are saved as they come in ``bench/out/database-VENDOR-GAMES.json``;
``--report`` writes the report of those saved (parts run apart, or a run cut short).
``--steps`` and ``--reuse`` measure part of a data set again. A full run rewrites the
sections ``bench:recompute`` and ``bench:import`` of docs/performance.md; ``--quick``
(50,000 and 20,000 games, one run each) and ``--only`` only print (unless ``--write``).
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
PARTS = ("big", "medium", "sqlite", "sqlite-big")


def run_step(
    step: str,
    arguments: dict[str, Any],
    database_url: str,
    algorithms: Sequence[str],
    timeout: float = 7200,
    debug: bool = False,
    extra_env: dict[str, str] | None = None,
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
    env.update(extra_env or {})
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
    lab: dict[str, Any] | None = None
    pages: dict[str, Any] | None = None
    saves: list[dict[str, Any]] = field(default_factory=list)
    # The load average (1, 5, 15 minutes) when the run started and when it last saved.
    load_start: Sequence[float] = field(default_factory=os.getloadavg)
    load_now: Sequence[float] = field(default_factory=os.getloadavg)
    minutes: float = 0.0
    _started: float = field(default_factory=time.perf_counter)

    def step(
        self,
        step: str,
        debug: bool = False,
        algorithms: Sequence[str] | None = None,
        extra_env: dict[str, str] | None = None,
        **arguments: Any,
    ) -> dict[str, Any]:
        self.save_progress()  # what was measured so far, should this step not end
        result = run_step(
            step,
            arguments,
            self.database.url,
            algorithms or self.algorithms,
            debug=debug,
            extra_env=extra_env,
        )
        self.save_progress()
        return result

    def save_progress(self) -> None:
        """What is measured so far, in ``bench/out`` (a run cut short keeps its figures;
        ``--report`` reads them back)."""
        self.load_now = os.getloadavg()
        self.minutes = (time.perf_counter() - self._started) / 60
        figures = {key: getattr(self, key) for key in _SAVED}
        figures.update(
            vendor=self.database.vendor,
            games=self.settings.games,
            players=self.settings.players,
            years=self.settings.years,
            seed=self.settings.seed,
            algorithms=list(self.algorithms),
        )
        path = OUT / f"database-{self.database.vendor}-{self.settings.games}.json"
        path.write_text(json.dumps(figures, indent=1, default=str), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Run:
        figures = json.loads(path.read_text(encoding="utf-8"))
        settings = Settings(
            games=figures["games"],
            players=figures["players"],
            years=figures["years"],
            seed=figures["seed"],
        )
        run = cls(Database(figures["vendor"], ""), settings, figures["algorithms"])
        for key in _SAVED:
            setattr(run, key, figures[key])
        return run

    def full_median(self, algorithm: str, by: str = "wall") -> float:
        """The full recompute of ``algorithm``: its wall time (the median of the runs), or
        with ``by="cpu"`` the CPU time of that run (this process and the server's)."""
        return _spent(_middle(self.full[algorithm]), by)

    def full_of_all(self, by: str = "wall") -> float | None:
        """A full recompute of every maintained algorithm, one after the other (None when
        one was not timed)."""
        if any(algorithm not in self.full for algorithm in self.algorithms):
            return None
        return sum(self.full_median(algorithm, by) for algorithm in self.algorithms)

    def full_of_all_and_lab(self, by: str = "wall") -> float | None:
        """That, and a full run of the lab (None when not timed)."""
        full = self.full_of_all(by)
        return None if full is None or self.lab is None else full + _spent(self.lab, by)


def _spent(figures: dict[str, Any], by: str) -> float:
    """Wall seconds, or (``by="cpu"``) CPU seconds of the benchmark's process and the
    database server's backend: on a loaded machine the steadier figure."""
    if by == "wall":
        return figures["seconds"]
    return figures["cpu"] + (figures.get("server_cpu") or 0.0)


def _lab_spent(middle: dict[str, Any], by: str) -> float:
    return sum(_spent(one, by) for one in middle["lab"].values())


STEPS = ("import", "full", "save", "lab", "entries", "pages", "copy", "backdated")
# Those of ``sqlite-big``: the data set made current (every algorithm recomputed in full,
# the lab run in full), so that the worker beside the saves runs what the saves queue.
SQLITE_BIG_STEPS = ("import", "full", "lab", "save")


# The figures each step measures (a field of ``Run``).
_FIGURES = {
    "import": "imported",
    "full": "full",
    "lab": "lab",
    "copy": "copy",
    "backdated": "backdated",
    "entries": "entries",
    "pages": "pages",
    "save": "saves",
}
_SAVED = (
    "imported",
    "full",
    "copy",
    "backdated",
    "entries",
    "lab",
    "pages",
    "saves",
    "load_start",
    "load_now",
    "minutes",
)


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
    entry_runs: int | None = None,
    lab: bool = False,
    saves: Sequence[dict[str, Any]] = (),
    steps: Sequence[str] = STEPS,
    page_requests: int = 30,
) -> Run:
    """Each step of ``steps`` the arguments ask for; ``import`` makes the data set (else
    the database holds it from an earlier run, ``--reuse``). The full lab run is timed
    with ``entries`` (they are set against it) or ``lab``."""
    run = Run(database, settings, algorithms)
    saved = OUT / f"database-{database.vendor}-{settings.games}.json"
    if "import" not in steps and saved.exists():
        # The data set of the last run: its figures stay where not measured again.
        kept = Run.load(saved)
        for step, key in _FIGURES.items():
            if step not in steps:
                setattr(run, key, getattr(kept, key))
    label = f"{database.label}, {settings.games:,} games"
    primary = algorithms[0]
    if "import" in steps:
        path = games_file(settings)
        run.step("migrate")
        run.imported = run.step("import", path=str(path))
        print(
            f"{label}: imported in {run.imported['seconds']:.1f} s "
            f"({settings.games / run.imported['seconds']:,.0f} games/s)",
            flush=True,
        )
    if "full" in steps:
        for algorithm in algorithms:
            for _ in range(full_runs.get(algorithm, 1)):
                result = run.step("recompute", algorithm=algorithm)
                run.full.setdefault(algorithm, []).append(result)
                print(
                    f"{label}: full {algorithm} {result['seconds']:.1f} s, {result['rows']:,} "
                    f"rows, peak {result['peak_kib'] / 1024:.0f} MiB",
                    flush=True,
                )
    # What issue 14 asks for first (the sheet save, the lab, the entries), the SAGC-only
    # figures measured before it last: on a loaded machine a run cut short keeps what
    # matters most.
    for options in saves if "save" in steps else ():
        with tempfile.TemporaryDirectory(prefix="clubrating-bench-broker-") as var:
            broker = {"CELERY_BROKER_URL": "filesystem://localhost/", "CLUBRATING_VAR_DIR": var}
            result = run.step("save", debug=True, extra_env=broker, **options)
        run.saves.append(result)
        print(
            f"{label}: sheet save{' with a worker running' if result['worker'] else ''}: "
            f"p50 {result['median_ms']:.0f} ms, p95 {result['p95_ms']:.0f} ms",
            flush=True,
        )
    if (entries or lab) and "lab" in steps:
        run.lab = run.step("lab")
        each = ", ".join(
            f"{name} {item['seconds']:.1f} s" for name, item in run.lab["algorithms"].items()
        )
        print(f"{label}: full lab {run.lab['seconds']:.1f} s ({each})", flush=True)
    for depth in entries if "entries" in steps else ():
        result = run.step("entry", depth=depth, runs=entry_runs or backdated_runs)
        run.entries.append(result)
        middle = _middle(result["runs"])
        print(
            f"{label}: one game {_where(depth)}, every algorithm and the lab current in "
            f"{result['seconds']:.2f} s (recomputes {middle['recompute_seconds']:.2f} s, "
            f"lab {middle['lab_seconds']:.2f} s)"
            + (f"; still pending: {', '.join(middle['pending'])}" if middle["pending"] else ""),
            flush=True,
        )
    if pages and "pages" in steps:
        run.pages = run.step("pages", debug=True, requests=page_requests)
        print(f"{label}: {len(run.pages['timings'])} pages timed", flush=True)
    if copy and "copy" in steps:
        run.copy = run.step("copy", algorithm=primary)
        print(
            f"{label}: writing the same {run.copy['rows']:,} rows {run.copy['seconds']:.1f} s",
            flush=True,
        )
    for depth in depths if "backdated" in steps else ():
        # The primary algorithm alone is maintained in this step: the others are not
        # left dirty by its entries (entered, recomputed, voided, recomputed).
        result = run.step(
            "backdated", algorithms=[primary], algorithm=primary, depth=depth, runs=backdated_runs
        )
        run.backdated.append(result)
        print(
            f"{label}: back-dated {depth:.0%}: {result['seconds']:.2f} s, "
            f"{result['rows']:,.0f} rows",
            flush=True,
        )
    run.save_progress()
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


SAVE_TARGET_MS = 300.0  # issue 14: a sheet save's p95 at 1,000,000 games
END_SHARE, BACKDATED_SHARE = 0.05, 0.15  # issue 14: of a full recompute of all


def targets(runs: Sequence[Run]) -> list[str]:
    rows = []
    for run in runs:
        if run.copy and run.full.get(run.algorithms[0]):
            primary = run.algorithms[0]
            full = run.full_median(primary)
            limit = 2 * run.copy["seconds"]
            rows.append(
                [
                    f"full recompute, {run.settings.games:,} games, `{primary}`, "
                    f"{run.database.label}",
                    f"{full:.1f} s",
                    f"2 x COPY of the same {run.copy['rows']:,} rows = "
                    f"2 x {run.copy['seconds']:.1f} s = {limit:.1f} s",
                    _met(full <= limit),
                ]
            )
            peak = max(item["peak_kib"] for item in run.full[primary])
            rows.append(
                [
                    "peak memory of that recompute (the whole process)",
                    _mib(peak),
                    "500 MB",
                    _met(peak * 1024 <= 500e6),
                ]
            )
    for run in runs:
        if not run.backdated or run.algorithms[0] not in run.full:
            continue
        base = run.full_median(run.algorithms[0])
        for item in run.backdated:
            share = item["seconds"] / base
            rows.append(
                [
                    f"back-dated game, last {item['depth']:.0%} of {run.settings.games:,} "
                    f"games, `{run.algorithms[0]}` alone, {run.database.label}",
                    f"{item['seconds']:.2f} s = {share:.1%} of the full {base:.1f} s",
                    "15%",
                    _met(share <= BACKDATED_SHARE),
                ]
            )
    for run in runs:
        for item in run.entries:
            middle = _middle(item["runs"])
            limit = END_SHARE if not item["depth"] else BACKDATED_SHARE
            where = f"one game {_where(item['depth'])} of {run.settings.games:,} games"
            base, base_cpu = run.full_of_all_and_lab(), run.full_of_all_and_lab("cpu")
            if base and base_cpu:
                share = item["seconds"] / base
                share_cpu = _spent(middle, "cpu") / base_cpu
                rows.append(
                    [
                        f"{where}, every algorithm and the lab current, {run.database.label}",
                        f"wall {item['seconds']:.1f} s = {share:.1%} of {base:.1f} s; "
                        f"CPU {_spent(middle, 'cpu'):.1f} s = {share_cpu:.1%} of {base_cpu:.1f} s",
                        f"{limit:.0%}",
                        f"wall {_met(share <= limit)}, CPU {_met(share_cpu <= limit)}"
                        + ("; **pending left**" if middle["pending"] else ""),
                    ]
                )
            over = {
                by: [
                    f"`{name}` {share:.0%}"
                    for name, share in _shares(run, middle, by).items()
                    if share is not None and share > limit
                ]
                for by in ("wall", "cpu")
            }
            if base:
                rows.append(
                    [
                        f"{where}, each algorithm and the lab against its own full run, "
                        f"{run.database.label}",
                        "; ".join(
                            f"{by}: " + (", ".join(names) + " over" if names else "none over")
                            for by, names in over.items()
                        ),
                        f"{limit:.0%} each",
                        f"wall {_met(not over['wall'])}, CPU {_met(not over['cpu'])}",
                    ]
                )
    for run in runs:
        for item in run.saves:
            setup = _save_setup(run, item)
            rows.append(
                [
                    f"sheet save, p95 of {item['requests']}, {run.settings.games:,} games, {setup}",
                    f"{item['p95_ms']:.0f} ms (CPU {item['cpu_p95_ms']:.0f} ms; "
                    f"slowest {max(item['seconds']) * 1000:.0f} ms)",
                    f"{SAVE_TARGET_MS:.0f} ms",
                    _met(item["p95_ms"] <= SAVE_TARGET_MS),
                ]
            )
    for run in runs:
        for item in (run.pages or {}).get("timings", []):
            if item.get("target_ms") is None:
                continue
            if not item.get("queries") and item["median_ms"] != item["median_ms"]:  # NaN
                rows.append([item["page"], "failed", f"{item['target_ms']:.0f} ms", _met(False)])
                continue
            rows.append(
                [
                    f"{item['page']} at {run.settings.games:,} games, {run.database.label}, "
                    "p95 server time",
                    f"{item['p95_ms']:.1f} ms (CPU {item['cpu_median_ms']:.1f} ms)",
                    f"{item['target_ms']:.0f} ms",
                    _met(item["p95_ms"] <= item["target_ms"]),
                ]
            )
    return markdown(["target", ">measured", ">limit", "met"], rows)


def _save_setup(run: Run, item: dict[str, Any]) -> str:
    worker = " with a worker recomputing" if item["worker"] else ""
    if item.get("full"):
        worker += f" (first a full recompute of `{item['full']}`)"
    return f"{run.database.label}, broker `{item['broker']}`{worker}"


def _shares(run: Run, middle: dict[str, Any], by: str = "wall") -> dict[str, float | None]:
    """Each algorithm's recompute after the entry against its own full recompute, and
    the lab's updates against the full lab run (``lab``), in wall or CPU time."""
    shares: dict[str, float | None] = {}
    for name, one in middle["algorithms"].items():
        full = run.full_median(name, by) if name in run.full else None
        shares[name] = _spent(one, by) / full if full else None
    if middle["lab"]:
        full_lab = _spent(run.lab, by) if run.lab else None
        shares["lab"] = _lab_spent(middle, by) / full_lab if full_lab else None
    return shares


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
                f"{run.full_median(run.algorithms[0]) / item['seconds']:.2f}"
                if run.algorithms[0] in run.full
                else "",
            ]
        )
    columns = ["database", ">games", ">rows", ">write and commit", ">CPU of Python"]
    columns += [">CPU of the server", ">delete before (not counted)", ">full recompute / write"]
    return markdown(columns, rows)


def backdated_table(runs: Sequence[Run]) -> list[str]:
    rows = []
    for run in runs:
        base = run.full_median(run.algorithms[0]) if run.algorithms[0] in run.full else None
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
        base, base_cpu = run.full_of_all_and_lab(), run.full_of_all_and_lab("cpu")
        for item in run.entries:
            middle = _middle(item["runs"])
            wall, cpu = _shares(run, middle), _shares(run, middle, "cpu")
            shares = {
                name: ""
                if wall[name] is None or cpu[name] is None
                else f" = {wall[name]:.1%} (CPU {cpu[name]:.1%})"
                for name in wall
            }
            each = [
                f"`{name}` {one['seconds']:.2f} s{shares.get(name, '')} ({one['rows']:,} rows)"
                for name, one in middle["algorithms"].items()
            ]
            each.append(f"lab {middle['lab_seconds']:.2f} s{shares.get('lab', '')}")
            rows.append(
                [
                    run.database.label,
                    f"{run.settings.games:,}",
                    _where(item["depth"]),
                    item["date"],
                    _seconds([one["seconds"] for one in item["runs"]], 2),
                    f"{item['seconds'] / base:.1%} of {base:.1f} s" if base else "",
                    f"{_spent(middle, 'cpu') / base_cpu:.1%} of {base_cpu:.1f} s"
                    if base_cpu
                    else "",
                    _cpu(middle["cpu"]),
                    _cpu(middle["server_cpu"]),
                    ", ".join(each),
                    ", ".join(middle["pending"]) or "none",
                ]
            )
    columns = ["database", ">games", "one game", "dated", ">until all are current"]
    columns += [">share of full recomputes of all + full lab (wall)", ">the same in CPU time"]
    columns += [">CPU of Python", ">CPU of the server"]
    columns += ["each (the run of median time; share of its own full run, wall and CPU)"]
    columns += ["left pending"]
    return markdown(columns, rows)


def lab_table(runs: Sequence[Run]) -> list[str]:
    rows = []
    for run in runs:
        if not run.lab:
            continue
        full = run.full_of_all()
        each = ", ".join(
            f"`{name}` {item['seconds']:.1f} s" for name, item in run.lab["algorithms"].items()
        )
        rows.append(
            [
                run.database.label,
                f"{run.settings.games:,}",
                f"{full:.1f} s" if full else "",
                f"{run.lab['seconds']:.1f} s",
                _cpu(run.lab["cpu"]),
                each,
            ]
        )
    columns = ["database", ">games", ">full recomputes of all, one after the other"]
    columns += [">full lab", ">CPU of Python (lab)", "lab, each algorithm"]
    return markdown(columns, rows)


def saves_table(runs: Sequence[Run]) -> list[str]:
    rows = [
        [
            _save_setup(run, item),
            f"{run.settings.games:,}",
            str(item["requests"]),
            f"{item['median_ms']:.0f} ms",
            f"{item['p95_ms']:.0f} ms",
            f"{max(item['seconds']) * 1000:.0f} ms",
            f"{item['cpu_median_ms']:.0f} ms",
            f"{item['cpu_p95_ms']:.0f} ms",
            ""
            if item.get("server_cpu_median_ms") is None
            else f"{item['server_cpu_median_ms']:.0f} ms",
            f"{item['pause']:.0f} s apart; {item.get('recomputed', 0)} algorithms recomputed, "
            f"pending at the end: {', '.join(item.get('pending', [])) or 'none'}"
            if item["worker"]
            else "",
        ]
        for run in runs
        for item in run.saves
    ]
    columns = ["set-up", ">games", ">saves", ">p50", ">p95", ">slowest", ">CPU p50", ">CPU p95"]
    columns += [">CPU of the server p50", "worker"]
    return markdown(columns, rows)


def pages_table(runs: Sequence[Run]) -> list[str]:
    rows = [
        [
            f"{run.settings.games:,} games, {run.database.label}",
            item["page"],
            f"`{item['url']}`",
            f"{item['median_ms']:.1f} ms",
            f"{item['p95_ms']:.1f} ms",
            f"{item['cpu_median_ms']:.1f} ms",
            item["queries"],
            ""
            if item.get("target_ms") is None
            else f"{_met(item['p95_ms'] <= item['target_ms'])} ({item['target_ms']:.0f} ms)",
        ]
        for run in runs
        if run.pages
        for item in run.pages["timings"]
    ]
    columns = ["data", "page", "URL", ">median", ">p95 (30 requests)"]
    columns += [">median CPU of Django", ">queries", "p95 within target"]
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
        if run.imported
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
        help="big: every algorithm and the lab at 1,000,000 games on PostgreSQL; medium: "
        "the same at 200,000; sqlite: the same at 200,000 on SQLite; sqlite-big: the "
        "sheet save of the embedded set-up at 1,000,000 games on SQLite, alone and with "
        f"a worker (steps {','.join(SQLITE_BIG_STEPS)}: full and lab make the data set "
        "current for the worker's saves) (repeatable); prints only, unless --write",
    )
    parser.add_argument(
        "--steps",
        type=lambda text: text.split(","),
        default=list(STEPS),
        help=f"comma-separated, of {','.join(STEPS)} (default all)",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the database of an earlier run (no import; PostgreSQL, or the SQLite "
        "file bench/out/bench-GAMES.sqlite3)",
    )
    parser.add_argument("--games", type=int, help="games of the big data set (1,000,000)")
    parser.add_argument("--medium-games", type=int, help="games of the others (200,000)")
    parser.add_argument("--runs", type=int, help="runs of each short measurement (3)")
    parser.add_argument(
        "--entry-runs", type=int, help="entries at each depth at 1,000,000 games (1)"
    )
    parser.add_argument("--saves", type=int, default=30, help="timed sheet saves (30)")
    parser.add_argument(
        "--saves-beside-full",
        metavar="ALGORITHM",
        default="",
        help="with the worker's saves, first mark ALGORITHM for a full recompute: the "
        "worker replays its whole history while the saves come in (the longest "
        "recompute a save can meet)",
    )
    parser.add_argument(
        "--page-requests", type=int, default=30, help="timed requests of each page (30)"
    )
    parser.add_argument(
        "--algorithms",
        type=lambda text: text.split(","),
        help="the algorithms maintained, the primary first (default every one: "
        f"{','.join(EVERY_ALGORITHM)})",
    )
    parser.add_argument("--no-write", action="store_true", help="do not update the doc")
    parser.add_argument("--write", action="store_true", help="update the doc even with --only")
    parser.add_argument(
        "--report",
        action="store_true",
        help="measure nothing: the report of the figures the last runs saved in bench/out "
        "(database-VENDOR-GAMES.json), e.g. of parts run apart",
    )
    args = parser.parse_args(argv)
    unknown = set(args.steps) - set(STEPS)
    if unknown:
        parser.error(f"--steps: unknown {', '.join(sorted(unknown))} (known: {', '.join(STEPS)})")

    big_games = args.games or (50_000 if args.quick else 1_000_000)
    medium_games = args.medium_games or (20_000 if args.quick else 200_000)
    runs = args.runs or (1 if args.quick else 3)
    parts = args.only or [part for part in PARTS if part != "sqlite-big" or not args.quick]
    postgres_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_POSTGRES)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    steps = [step for step in args.steps if step != "import" or not args.reuse]
    algorithms = args.algorithms or list(EVERY_ALGORITHM)
    common = {"steps": steps, "page_requests": args.page_requests}

    def settings_for(games: int) -> Settings:
        return Settings(games=games, players=max(4, games // 100), years=10)

    def postgres() -> Database:
        return Database("postgresql", postgres_url) if args.reuse else fresh_postgres(postgres_url)

    def saves(worker: bool) -> list[dict[str, Any]]:
        plain = {"requests": args.saves}
        # With a worker: a volunteer typing sheets in, one every few seconds, on a site
        # made current first (untimed), so that the worker runs what the saves queue,
        # not what an earlier step left (a full recompute's lab marks, the saves of the
        # row without a worker).
        beside = {"worker": True, "pause": 3.0, "settle": True}
        if args.saves_beside_full:
            beside["full"] = args.saves_beside_full
        return [plain, {**plain, **beside}] if worker else [plain]

    done: list[Run] = []
    if args.report:
        paths = [OUT / f"database-{vendor}-{games}.json" for vendor, games in _REPORTED]
        done = [Run.load(path) for path in paths if path.exists()]
        parts = []
    if "big" in parts:
        done.append(
            measure(
                postgres(),
                settings_for(big_games),
                algorithms=algorithms,
                full_runs={},
                copy=True,
                depths=DEPTHS,
                backdated_runs=runs,
                pages=True,
                entries=ENTRY_DEPTHS,
                entry_runs=args.entry_runs or (runs if big_games <= 200_000 else 1),
                saves=saves(worker=False),
                **common,
            )
        )
    if "medium" in parts:
        done.append(
            measure(
                postgres(),
                settings_for(medium_games),
                algorithms=algorithms,
                full_runs={"sagc": runs},
                copy=True,
                depths=DEPTHS,
                backdated_runs=runs,
                pages=True,
                entries=ENTRY_DEPTHS,
                saves=saves(worker=False),
                **common,
            )
        )
    for part, games in (("sqlite", medium_games), ("sqlite-big", big_games)):
        if part not in parts:
            continue
        path = OUT / f"bench-{games}.sqlite3"
        if not args.reuse:
            path.unlink(missing_ok=True)
        everything = part == "sqlite"
        done.append(
            measure(
                Database("sqlite", f"sqlite:///{path}"),
                settings_for(games),
                algorithms=algorithms,
                # at 1,000,000 games one run of each: the full runs only make it current
                full_runs={"sagc": runs} if everything else {},
                copy=everything,
                depths=DEPTHS if everything else (),
                backdated_runs=runs,
                pages=False,
                entries=ENTRY_DEPTHS if everything else (),
                lab=True,
                # the embedded set-up: its worker runs the recomputes each save queues
                saves=saves(worker=True),
                steps=steps if everything else [s for s in steps if s in SQLITE_BIG_STEPS],
                page_requests=args.page_requests,
            )
        )
    options = list(sys.argv[1:] if argv is None else argv)
    command = invoked_as or " ".join(["python -m bench.database", *options])
    today = datetime.now().astimezone().date().isoformat()
    minutes = (time.perf_counter() - started) / 60
    header = [
        f"Measured {today} on {machine(load)}, with `{command}` ({minutes:.0f} min in all).",
        "",
        *(
            f"- {run.database.label}: {_source(run.settings)}; load average "
            f"{_load(run.load_start)} at the start, {_load(run.load_now)} at the end "
            f"({run.minutes:.0f} min)"
            for run in done
        ),
        "",
    ]
    recompute_body = [*header]
    recompute_body += ["**Targets**", "", *targets(done), ""]
    recompute_body += ["**Full recompute**", "", *full_table(done), ""]
    recompute_body += ["**The limit: writing the same rows and nothing else**", ""]
    recompute_body += [*copy_table(done), ""]
    recompute_body += [
        "**A back-dated game, the primary algorithm alone** (median of the runs)",
        "",
        *backdated_table(done),
    ]
    if any(run.entries for run in done):
        recompute_body += [
            "",
            "**One game, until every maintained algorithm and the lab are current**",
            "",
            "What a worker runs after one game is entered: the recompute task of each "
            "algorithm the write queued (primary first), then the lab's update task each "
            "recompute queued (`ratings.tasks`, in one process, one after the other; the "
            "lab's debounce delay not counted), against full recomputes of every "
            "algorithm and a full lab run, one after the other.",
            "",
            *entries_table(done),
            "",
            "**The lab in full**",
            "",
            *lab_table(done),
        ]
    if any(run.saves for run in done):
        recompute_body += ["", "**The sheet save**", "", *saves_table(done)]
    if any(run.pages for run in done):
        recompute_body += ["", "**Pages at that scale**", "", *pages_table(done)]
    import_body = [*header, *import_table(done)]
    print()
    print("\n".join(recompute_body))
    print()
    print("\n".join(import_body))
    write = args.write or not (args.quick or args.only or args.no_write)
    if write and done:
        write_section(DOC, "recompute", "\n".join(recompute_body))
        if any(run.imported for run in done):
            write_section(DOC, "import", "\n".join(import_body))
        print(f"\n{DOC.relative_to(ROOT)}: sections bench:recompute and bench:import updated")
    return 0


# The data sets --report gathers, in the order of the report.
_REPORTED = (
    ("postgresql", 1_000_000),
    ("postgresql", 200_000),
    ("sqlite", 200_000),
    ("sqlite", 1_000_000),
)


def _load(values: Sequence[float]) -> str:
    return ", ".join(f"{value:.1f}" for value in values)


if __name__ == "__main__":
    sys.exit(main())
