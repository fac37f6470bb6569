"""One of several processes that write at the same time in the race test.

Run as ``python -m tests.reliability.race_client SEED SECONDS`` with DATABASE_URL (and
the broker) of the test database. It enters sheets, back-dates and voids games through
the services until its time is up, and prints one JSON line: the tags of the games it
stored and how many operations it attempted and had refused.
"""

import json
import os
import random
import sys
import time
from datetime import date, timedelta

import django


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubrating.settings")
    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import DatabaseError

    from players.models import Game, Player
    from players.services.base import ServiceError
    from players.services.games import GameInput, game_correct, game_void, record_sheet_submit

    seed, seconds = int(sys.argv[1]), float(sys.argv[2])
    rng = random.Random(seed)
    volunteer = get_user_model().objects.get(username="race-volunteer")
    players = list(Player.objects.order_by("username"))
    start = date(2024, 1, 1)
    stored_tags: list[str] = []
    attempted = refused = locked = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        attempted += 1
        action = rng.choices(["sheet", "back-date", "void"], [6, 3, 1])[0]
        try:
            if action == "sheet":
                games = []
                for _ in range(rng.randint(1, 3)):
                    white, black = rng.sample(players, 2)
                    tag = f"p{seed}-{attempted}-{len(games)}"
                    games.append(
                        GameInput(
                            date=start + timedelta(days=rng.randrange(200)),
                            white=white,
                            black=black,
                            winner=rng.choice("WB"),
                            comment=tag,
                        )
                    )
                record_sheet_submit(user=volunteer, games=games, allow_duplicates=True)
                stored_tags += [game.comment for game in games]
            else:
                candidates = list(Game.objects.valid().order_by("?")[:1])
                if not candidates:
                    continue
                game = candidates[0]
                if action == "void":
                    game_void(user=volunteer, game_id=game.pk, version=game.version, reason="race")
                else:
                    game_correct(
                        user=volunteer,
                        game_id=game.pk,
                        version=game.version,
                        changes=GameInput(
                            date=game.date - timedelta(days=rng.randint(1, 30)),
                            white=game.white,
                            black=game.black,
                            winner=game.winner,
                            handicap=game.handicap,
                            komi=game.komi,
                            comment=game.comment,
                        ),
                    )
        except (ServiceError, DatabaseError) as error:
            # A stale version (another process changed the game first) or a
            # serialization failure: refused as a whole, nothing half-written. SQLite's
            # "database is locked" is counted apart: its settings must prevent it.
            refused += 1
            locked += "database is locked" in str(error)
    print(
        json.dumps(
            {"tags": stored_tags, "attempted": attempted, "refused": refused, "locked": locked}
        )
    )


if __name__ == "__main__":
    main()
