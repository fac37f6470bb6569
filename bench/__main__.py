"""``python -m bench`` (``make bench``): replay speed of every rating algorithm.

Generates a deterministic club file (``bench/generate.py``), then times
``python -m ratings rate --algorithm NAME --output history GAMES.csv > /dev/null``
as a subprocess for every registered algorithm (``--output standings`` for those
without a history), median wall time of three runs and the child's peak resident
memory. SAGC is also timed against the straightforward Fraction implementation in
``bench/sagc_reference.py``, and the two record sheets must be identical, and against
the plain float implementation of ``bench/sagc_float.py`` (issue 14: the engine should
take no longer).

A full run rewrites its own section of docs/performance.md, between
``<!-- bench:engine -->`` and ``<!-- /bench:engine -->``; ``--quick`` and
``--only NAME`` runs only print.

Then, unless ``--only`` or ``--engine`` is given, it runs the database benchmarks
(``python -m bench.database``: import, full and back-dated recomputes, pages at
1,000,000 games), the real-data ones (``python -m bench.realdata``), what one game
costs on a site of real tournaments (``python -m bench.realtail``), the month-end
standings an old tournament's upload adds (``python -m bench.month_ends``), the hostile
requests (``python -m bench.hostile``) and, without
``--quick``, the public pages (``python -m bench.pages``), which write their own
sections; ``--quick`` makes the first three small too.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bench.generate import Settings, generate
from ratings.engine.algorithms import registry

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
DOC = ROOT / "docs" / "performance.md"
SECTION = "engine"
REFERENCE = "sagc-reference"
REFERENCE_OF = "sagc"
FLOAT = "sagc-float"  # bench/sagc_float.py: the speed issue 14 holds the engine to
COMPARED_COLUMNS = 12  # every history column but the last, comment (see compare)


@dataclass(frozen=True)
class Measurement:
    name: str
    output: str
    seconds: list[float]
    peak_kib: int
    games: int

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def games_per_second(self) -> float:
        return self.games / self.median


class BenchError(RuntimeError):
    """A run failed or the engine and the reference disagree."""


def run_child(
    command: Sequence[str],
    stdout_path: str,
    timeout: float,
    env: Mapping[str, str] | None = None,
) -> tuple[float, int]:
    """Run ``command`` from the project root (in ``env``, default this process's
    environment); returns (wall seconds, peak RSS in KiB).

    The peak is the child's own: the high-water mark of its resident memory
    (``VmHWM``), read from /proc every few milliseconds while it runs. The resource
    usage ``os.wait4`` reports is no good for this on Linux: a child's ``ru_maxrss``
    keeps the peak of the memory it was started from, which is this process's (the
    real-data benchmark's, holding a converted file, gave every step 641 MiB). Where
    /proc is missing, ``ru_maxrss`` it is.
    """
    with open(stdout_path, "wb") as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=err, env=env)
        high_water = 0
        while True:
            high_water = max(high_water, _high_water_kib(child.pid))
            done, status, usage = os.wait4(child.pid, os.WNOHANG)
            if done:
                break
            if time.perf_counter() - started > timeout:
                child.kill()
                os.wait4(child.pid, 0)
                child.returncode = -9
                raise BenchError(f"{' '.join(command)}: no result after {timeout:.0f} s")
            time.sleep(0.005)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        if child.returncode != 0:
            err.seek(0)
            message = err.read().decode("utf-8", "replace").strip().splitlines()[-5:]
            raise BenchError(f"{' '.join(command)} failed:\n" + "\n".join(message))
    return seconds, high_water or usage.ru_maxrss


def _high_water_kib(pid: int) -> int:
    """The peak resident memory of a running process (KiB), 0 if unknown."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def engine_command(name: str, output: str, games: Path) -> list[str]:
    rate = ["rate", "--algorithm", name, "--output", output, str(games)]
    return [sys.executable, "-m", "ratings", *rate]


def reference_command(games: Path) -> list[str]:
    return [sys.executable, "-m", "bench.sagc_reference", str(games)]


def float_command(games: Path) -> list[str]:
    return [sys.executable, "-m", "bench.sagc_float", str(games)]


def measure(
    name: str, output: str, command: list[str], games: int, runs: int, timeout: float
) -> Measurement:
    seconds, peaks = [], []
    for _ in range(runs):
        wall, peak = run_child(command, os.devnull, timeout)
        seconds.append(wall)
        peaks.append(peak)
    return Measurement(name, output, seconds, max(peaks), games)


def _rows(path: Path) -> Iterator[list[str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        yield from csv.reader(handle)


def compare(engine_csv: Path, reference_csv: Path) -> int:
    """Both record sheets line by line, every column but the comment (where the engine
    words its reason for an unrated game its own way); returns the rows compared."""
    line = 0
    for line, (ours, theirs) in enumerate(
        itertools.zip_longest(_rows(engine_csv), _rows(reference_csv)), start=1
    ):
        if ours is None or theirs is None or ours[:COMPARED_COLUMNS] != theirs[:COMPARED_COLUMNS]:
            raise BenchError(
                f"the engine and the reference differ at line {line}:\n"
                f"  engine:    {','.join(ours or ['(end of file)'])}\n"
                f"  reference: {','.join(theirs or ['(end of file)'])}"
            )
    return line - 1  # without the header


def cross_check(games: Path, timeout: float) -> int:
    engine_csv, reference_csv = OUT / "sagc-engine.csv", OUT / "sagc-reference.csv"
    run_child(engine_command(REFERENCE_OF, "history", games), str(engine_csv), timeout)
    run_child(reference_command(games), str(reference_csv), timeout)
    return compare(engine_csv, reference_csv)


def machine(load: float) -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (
        f"{cpus} CPUs (`nproc`), {model}, Python {platform.python_version()}, "
        f"load average {load:.1f} at the start"
    )


_LABELS = {REFERENCE: "SAGC reference (Fractions)", FLOAT: "SAGC plain floats"}


def table(measurements: list[Measurement], reference: Measurement | None) -> list[str]:
    runs = len((measurements or [reference])[0].seconds)
    lines = [
        f"| algorithm | output | median wall time ({runs} run{'s' if runs > 1 else ''}) "
        "| games per second | peak memory |",
        "|---|---|---:|---:|---:|",
    ]
    for item in [*measurements, *([reference] if reference else [])]:
        label = _LABELS.get(item.name, f"`{item.name}`")
        lines.append(
            f"| {label} | {item.output} | {item.median:.2f} s | "
            f"{item.games_per_second:,.0f} | {item.peak_kib / 1024:,.0f} MiB |"
        )
    return lines


def section(
    settings: Settings,
    counts: tuple[int, int],
    size: int,
    measurements: list[Measurement],
    reference: Measurement | None,
    compared: int | None,
    failures: list[str],
    command: str,
    load: float,
) -> str:
    games, adjustments = counts
    today = datetime.now().astimezone().date().isoformat()
    lines = [
        f"Measured {today} on {machine(load)}, with `{command}`.",
        "",
        f"Input: `python -m bench.generate --games {settings.games} --players "
        f"{settings.players} --years {settings.years} --seed {settings.seed}`: "
        f"{games:,} games and {adjustments} adjustments ({size / 2**20:.1f} MiB).",
        "Each run is `python -m ratings rate --algorithm NAME --output history GAMES.csv "
        "> /dev/null` in a subprocess (`--output standings` for an algorithm without a "
        "history); peak memory is that process's maximum resident set size.",
        "",
        *table(measurements, reference),
    ]
    sagc = next((item for item in measurements if item.name == REFERENCE_OF), None)
    if reference and sagc:
        lines += [
            "",
            f"SAGC engine against the reference: **{reference.median / sagc.median:.1f}x** "
            "as fast (the aim is at least 2x).",
        ]
    plain = next((item for item in measurements if item.name == FLOAT), None)
    if plain and sagc:
        lines += [
            "",
            f"SAGC engine against plain floats (`bench/sagc_float.py`): "
            f"**{sagc.median / plain.median:.2f}** times its time (the aim is at most 1.0).",
        ]
    if compared is not None:
        lines.append(
            f"Cross-check: the engine and the reference wrote the same {compared:,} "
            "record-sheet rows (every column but the comment)."
        )
    if failures:
        lines += ["", "Failed:", *(f"- {failure}" for failure in failures)]
    return "\n".join(lines)


def write_section(doc: Path, name: str, body: str) -> None:
    """Replace the text between this tool's markers, or append the section."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    text = doc.read_text(encoding="utf-8") if doc.exists() else "# Performance\n"
    block = f"{start}\n{body}\n{end}"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        after = rest.split(end, 1)[1]
        text = before + block + after
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    doc.write_text(text, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="20,000 games, one run each")
    parser.add_argument("--only", metavar="NAME", help=f"one algorithm, or {REFERENCE}")
    parser.add_argument("--games", type=int, help="default 200,000 (20,000 with --quick)")
    parser.add_argument("--players", type=int, help="default: one for every 100 games")
    parser.add_argument("--years", type=int, default=Settings.years)
    parser.add_argument("--runs", type=int, help="runs per algorithm (default 3, 1 with --quick)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per run")
    parser.add_argument("--no-write", action="store_true", help="do not update the doc")
    parser.add_argument(
        "--engine",
        action="store_true",
        help="only the engine replay, not the database and real-data benchmarks that "
        "follow it (python -m bench.database, python -m bench.realdata, "
        "python -m bench.realtail)",
    )
    args = parser.parse_args(argv)

    games = args.games or (20_000 if args.quick else Settings.games)
    settings = Settings(games=games, players=args.players or max(4, games // 100), years=args.years)
    runs = args.runs or (1 if args.quick else 3)
    load = os.getloadavg()[0]  # other work on a shared machine slows every figure alike
    algorithms = registry()
    names = list(algorithms)
    if args.only:
        if args.only not in (*names, REFERENCE):
            parser.error(f"--only: unknown '{args.only}' (known: {', '.join(names)}, {REFERENCE})")
        names = [args.only] if args.only != REFERENCE else []
    with_reference = not args.only or args.only in (REFERENCE, REFERENCE_OF)

    OUT.mkdir(exist_ok=True)
    games_csv = OUT / f"games-{settings.games}-{settings.players}-{settings.years}.csv"
    with open(games_csv, "w", encoding="utf-8", newline="") as out:
        counts = generate(out, settings)
    print(f"{games_csv.relative_to(ROOT)}: {counts[0]:,} games, {counts[1]} adjustments")

    measurements, failures = [], []
    for name in names:
        output = "history" if algorithms[name].has_history else "standings"
        command = engine_command(name, output, games_csv)
        try:
            item = measure(name, output, command, counts[0], runs, args.timeout)
        except BenchError as error:
            failures.append(f"`{name}`: {error}")
            print(f"{name}: FAILED\n{error}", file=sys.stderr)
            continue
        measurements.append(item)
        print(f"{name:>15}: {item.median:7.2f} s  {item.games_per_second:10,.0f} games/s")
    reference = compared = None
    if with_reference:
        command = reference_command(games_csv)
        try:
            reference = measure(REFERENCE, "history", command, counts[0], runs, args.timeout)
            print(f"{REFERENCE:>15}: {reference.median:7.2f} s")
            compared = cross_check(games_csv, args.timeout)
        except BenchError as error:
            failures.append(f"SAGC cross-check: {error}")
            print(f"cross-check: FAILED\n{error}", file=sys.stderr)
        else:
            print(f"cross-check: the same {compared:,} rows from the engine and the reference")
        try:
            plain = measure(
                FLOAT, "history", float_command(games_csv), counts[0], runs, args.timeout
            )
        except BenchError as error:
            failures.append(f"SAGC plain floats: {error}")
            print(f"{FLOAT}: FAILED\n{error}", file=sys.stderr)
        else:
            measurements.append(plain)
            print(f"{FLOAT:>15}: {plain.median:7.2f} s")

    options = list(sys.argv[1:] if argv is None else argv)
    command = " ".join(["python -m bench", *options]) if options else "make bench"
    body = section(
        settings,
        counts,
        games_csv.stat().st_size,
        measurements,
        reference,
        compared,
        failures,
        command,
        load,
    )
    print()
    print(body)
    if not (args.quick or args.only or args.no_write):
        write_section(DOC, SECTION, body)
        print(f"\n{DOC.relative_to(ROOT)}: section bench:{SECTION} updated")
    status = 1 if failures else 0
    if not (args.only or args.engine):
        # Imported here: they import this module's helpers.
        from bench import database, month_ends, realdata, realtail

        passed = [*(["--quick"] if args.quick else []), *(["--no-write"] if args.no_write else [])]
        status |= database.main(passed, invoked_as=command)
        status |= realdata.main(passed, invoked_as=command)
        status |= realtail.main(passed, invoked_as=command)
        status |= month_ends.main(passed, invoked_as=command)
        status |= hostile_benchmark([*passed, "--invoked-as", command])
        if not args.quick:
            status |= pages_benchmark(None if args.no_write else command)
    return status


def hostile_benchmark(arguments: list[str]) -> int:
    """``python -m bench.hostile`` (requests built to be slow or hungry) in a process of
    its own: it sets up Django on a fresh SQLite database of its own."""
    return subprocess.run([sys.executable, "-m", "bench.hostile", *arguments], cwd=ROOT).returncode


def pages_benchmark(command: str | None) -> int:
    """``python -m bench.pages`` on a database made afresh (``BENCH_PAGES_DATABASE_URL``,
    default ``clubrating_bench_pages``), in a process of its own; with ``command``, it
    writes its section, naming that command."""
    from bench.database import fresh_postgres

    url = os.environ.get("BENCH_PAGES_DATABASE_URL", DEFAULT_PAGES_DATABASE)
    fresh_postgres(url)
    env = {**os.environ, "DATABASE_URL": url, "LOG_LEVEL": "WARNING"}
    env.pop("CELERY_BROKER_URL", None)
    arguments = [sys.executable, "-m", "bench.pages"]
    if command:
        arguments += ["--write", command]
    return subprocess.run(arguments, cwd=ROOT, env=env).returncode


DEFAULT_PAGES_DATABASE = "postgres://postgres@127.0.0.1:5432/clubrating_bench_pages"


if __name__ == "__main__":
    sys.exit(main())
