"""``python -m bench.lab_cost [--database PATH] [ALGORITHM ...]``: what the lab costs
against the recompute it follows, per algorithm, in CPU time (issue 27, item 3).

Works on a copy (``bench/out/lab-cost.sqlite3``) of the database ``python -m
bench.realtail`` leaves (``bench/out/realtail/bench.sqlite3``: the real tournaments of
``../shared/data`` and 400 club games), or of the SQLite file named. For each
algorithm, one after the other in one process: a full recompute, then a full lab run
(``compute_lab_report``), each timed in this process's CPU time (SQLite runs in it,
so the database's work is counted; on a machine shared with other work the wall time
is several times that and varies from minute to minute, the CPU time far less). Then
three games, each entered through the sheet's service, every algorithm recomputed
(untimed) and the lab brought up to date (``update_lab_report``, timed): one the day
after the last game, one more that day, one on the last day of the last tournament
that lasted more than a day. Prints a line of JSON per measurement and the load
average before and after; writes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import timedelta
from pathlib import Path

from bench.lab import OUT, set_up_on_a_copy

REALTAIL = OUT / "realtail" / "bench.sqlite3"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lab_cost", description=__doc__)
    parser.add_argument("--database", type=Path, default=REALTAIL)
    parser.add_argument("algorithms", nargs="*")
    args = parser.parse_args(argv)
    if not args.database.exists():
        print(f"{args.database} is missing: run python -m bench.realtail first", file=sys.stderr)
        return 2
    set_up_on_a_copy(args.database, OUT / "lab-cost.sqlite3")
    from players.models import Game
    from players.services.base import system_user
    from players.services.games import GameInput, record_sheet_submit
    from ratings.algorithms import maintained_algorithms
    from ratings.lab import services as lab_services
    from ratings.models import RecomputeState
    from ratings.recompute.run import recompute, recompute_pending

    print(json.dumps({"load_before": os.getloadavg()}), flush=True)
    names = args.algorithms or maintained_algorithms()
    full = {}
    for name in names:
        recompute_cpu = _cpu(recompute, name, full=True)
        lab_cpu = _cpu(lab_services.compute_lab_report, name)
        full[name] = lab_cpu
        figures = {"recompute_cpu": recompute_cpu, "lab_cpu": lab_cpu}
        print(json.dumps({"full": name, **figures, "lab_share": lab_cpu / recompute_cpu}))
    RecomputeState.objects.update(lab_dirty_from=None, lab_queued_at=None)  # all current
    last = Game.objects.valid().order_by("-date", "-round", "-seq").first()
    in_a_tournament = None
    tournaments = Game.objects.valid().filter(tournament__isnull=False).order_by("-date")
    for tournament in tournaments.values_list("tournament_id", flat=True).distinct()[:50]:
        days = Game.objects.filter(tournament_id=tournament).values_list("date", flat=True)
        if max(days) > min(days):
            in_a_tournament = max(days)
            break
    after = last.date + timedelta(days=1)
    entries = [("after the last", after), ("one more that day", after)]
    if in_a_tournament is not None:
        entries.append(("on a tournament's last day", in_a_tournament))
    for step, day in entries:
        game = GameInput(date=day, white=last.black, black=last.white, winner="W")
        record_sheet_submit(user=system_user(), allow_duplicates=True, games=[game])
        recompute_pending()
        RecomputeState.objects.update(lab_queued_at=None)  # the lab's delay is over
        for name in names:
            cpu = _cpu(lab_services.update_lab_report, name)
            share = cpu / full[name]
            print(
                json.dumps(
                    {
                        "entry": step,
                        "date": day.isoformat(),
                        "algorithm": name,
                        "lab_cpu": cpu,
                        "share_of_full_lab": share,
                    }
                ),
                flush=True,
            )
    print(json.dumps({"load_after": os.getloadavg()}))
    return 0


def _cpu(function, *args, **kwargs) -> float:
    started = time.process_time()
    function(*args, **kwargs)
    return time.process_time() - started


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
