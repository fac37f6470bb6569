"""``python -m bench.lab [GAMES]``: what the algorithm lab costs after one new game at
the end of the history, against a full lab run, on SQLite (issue 14, item 5).

In a database of its own (``bench/out/lab-GAMES.sqlite3``, made once: the generated
club file of ``bench/generate.py`` imported and every algorithm recomputed), it times
``lab_services.compute_lab_report`` of every maintained algorithm in full, enters one
game on the date of the last one, recomputes, and times ``update_lab_report`` (what
the lab's task runs) from the date the recompute replayed from. Prints one JSON
object: seconds per algorithm, both totals and their ratio. Default 20,000 games.
"""

from __future__ import annotations

import json
import os
import sys
import time
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"


def main(argv: list[str]) -> int:
    games = int(argv[0]) if argv else 20_000
    OUT.mkdir(exist_ok=True)
    os.environ["DATABASE_URL"] = f"sqlite:///{OUT / f'lab-{games}.sqlite3'}"
    for name in ("CELERY_BROKER_URL", "REDIS_URL"):  # tasks in-process, run by hand here
        os.environ.pop(name, None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubrating.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from bench.generate import Settings, generate
    from players.models import Game
    from players.services.games import GameInput, record_sheet_submit
    from ratings.lab import services as lab_services
    from ratings.models import RecomputeState
    from ratings.recompute import dirty, run
    from ratings.recompute.dirty import maintained_algorithms
    from ratings.recompute.run import recompute_pending

    # The benchmark runs the recomputes and the lab itself, and times them apart.
    dirty.queue_recompute = lambda algorithm: None
    run.mark_lab_dirty = lambda algorithm, start: None
    call_command("migrate", verbosity=0)
    if not Game.objects.exists():
        source = OUT / f"lab-games-{games}.csv"
        with open(source, "w", encoding="utf-8", newline="") as out:
            generate(out, Settings(games=games, players=max(50, games // 60), years=5))
        get_user_model().objects.get_or_create(username="system")
        call_command("import_games", str(source), "--allow-duplicates", stdout=StringIO())
        recompute_pending()
    names = maintained_algorithms()
    full = {name: _seconds(lab_services.compute_lab_report, name) for name in names}

    last = Game.objects.valid().order_by("-date", "-seq").first()
    volunteer, _ = get_user_model().objects.get_or_create(username="bench-volunteer")
    game = GameInput(date=last.date, white=last.black, black=last.white, winner="W")
    record_sheet_submit(user=volunteer, allow_duplicates=True, games=[game])
    for result in recompute_pending():
        RecomputeState.objects.filter(algorithm=result.algorithm).update(
            lab_dirty_from=result.replayed_from
        )
    after = {name: _seconds(lab_services.update_lab_report, name) for name in names}
    print(
        json.dumps(
            {
                "games": Game.objects.count(),
                "full_seconds": full,
                "after_one_game_seconds": after,
                "full_total": sum(full.values()),
                "after_one_game_total": sum(after.values()),
                "ratio": sum(after.values()) / sum(full.values()),
            },
            indent=1,
        )
    )
    return 0


def _seconds(function, *args) -> float:
    started = time.perf_counter()
    function(*args)
    return time.perf_counter() - started


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
