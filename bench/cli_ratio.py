"""The command line's CPU time against the plain float script, in one run (issue 14, item 6).

Runs each command in turn as a child process, its output to /dev/null, for a number
of rounds, and reports each child's CPU time (user + system, from ``os.wait4``) and,
per round, each command's ratio to ``bench/sagc_float.py``: on a machine shared with
others, wall times stretch with the load, CPU times much less, and a ratio within one
round least of all.

The commands: ``python -m ratings rate --algorithm NAME`` for each ``--algorithm``
(``--output standings`` for an algorithm without a history) from this checkout and,
with ``--before DIR``, from another checkout of the code (``git archive COMMIT | tar
-x -C DIR``) run the same way; for SAGC, the float script as it is, and the same with
Python's cycle collector off, as the command line runs (so that the comparison does
not rest on that alone).

Usage: ``python -m bench.cli_ratio GAMES.csv [--rounds 5] [--algorithm sagc ...]
[--before DIR]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
FLOAT, FLOAT_NO_GC = "float", "float, cycle collector off"


def rate_command(algorithm: str, games: str) -> list[str]:
    from ratings.engine.algorithms import registry

    output = "history" if registry()[algorithm].has_history else "standings"
    rate = ["rate", "--algorithm", algorithm, "--output", output, games]
    return [sys.executable, "-m", "ratings", *rate]


def float_commands(games: str) -> dict[str, list[str]]:
    without_gc = (
        "import gc, runpy, sys; gc.disable(); sys.argv = ['sagc_float', sys.argv[1]]; "
        "runpy.run_module('bench.sagc_float', run_name='__main__')"
    )
    return {
        FLOAT: [sys.executable, "-m", "bench.sagc_float", games],
        FLOAT_NO_GC: [sys.executable, "-c", without_gc, games],
    }


def cpu_seconds(command: list[str], cwd: Path) -> float:
    with open(os.devnull, "wb") as devnull:
        child = subprocess.Popen(command, stdout=devnull, cwd=cwd)
        _pid, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(command)} (in {cwd}) failed: status {status}")
    return usage.ru_utime + usage.ru_stime


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cli_ratio", description=__doc__)
    parser.add_argument("games", metavar="GAMES.csv")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--algorithm", action="append", dest="algorithms")
    parser.add_argument("--before", type=Path, help="another checkout, run the same way")
    args = parser.parse_args(argv)
    games = str(Path(args.games).resolve())
    commands: dict[str, tuple[Path, list[str]]] = {}
    for algorithm in args.algorithms or ["sagc"]:
        command = rate_command(algorithm, games)
        if args.before:
            commands[f"{algorithm}, before"] = (args.before.resolve(), command)
        commands[algorithm] = (HERE, command)
        if algorithm == "sagc":
            commands.update((name, (HERE, line)) for name, line in float_commands(games).items())
    seconds: dict[str, list[float]] = {name: [] for name in commands}
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"{started}, load average {os.getloadavg()[0]:.1f}", flush=True)
    for number in range(1, args.rounds + 1):
        for name, (cwd, command) in commands.items():
            seconds[name].append(cpu_seconds(command, cwd))
        figures = ", ".join(f"{name} {times[-1]:.2f}" for name, times in seconds.items())
        print(f"round {number}: {figures}", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    for name, times in seconds.items():
        line = f"{name:>32}: median {statistics.median(times):.2f} s CPU"
        for baseline in (FLOAT, FLOAT_NO_GC):
            if baseline in seconds and name not in (FLOAT, FLOAT_NO_GC):
                ratios = [
                    mine / theirs for mine, theirs in zip(times, seconds[baseline], strict=True)
                ]
                line += f"; / {baseline}: {', '.join(f'{ratio:.2f}' for ratio in ratios)}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
