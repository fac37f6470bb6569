"""Replay every game and compare with what is stored, changing nothing."""

from itertools import zip_longest

from django.core.management.base import BaseCommand, CommandError

from players.models import Player
from ratings.algorithms import maintained_algorithms
from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import replay
from ratings.engine.formats.history import format_value, history_cells, standing_cells
from ratings.models import CurrentRating, RecomputeState
from ratings.selectors import declared_ranks, player_entries, replay_records, stored_history

MAX_SHOWN = 20


class Command(BaseCommand):
    help = (
        "Replay every algorithm from scratch and report any difference from the stored "
        "history and current ratings. Read-only; exits with status 1 if anything differs."
    )

    def add_arguments(self, parser):
        parser.add_argument("--algorithm", help="one algorithm (default: every maintained one)")

    def handle(self, *args, algorithm, **options):
        names = maintained_algorithms()
        if algorithm is not None and algorithm not in names:
            raise CommandError(f"'{algorithm}' is not maintained here ({', '.join(names)})")
        differences = self._check_entry_ranks()
        for name in [algorithm] if algorithm else names:
            pending = RecomputeState.objects.filter(algorithm=name, dirty_from__isnull=False)
            if pending.exists():
                self.stdout.write(f"{name}: a recompute is pending; differences are expected")
            found = self._check(name)
            differences += found
            self.stdout.write(f"{name}: {'OK' if not found else f'{found} differences'}")
        if differences:
            raise CommandError(f"{differences} differences between stored and replayed ratings")

    def _check_entry_ranks(self) -> int:
        """The declared entry ranks the writes store, against those the games give."""
        expected = declared_ranks()
        found = 0
        for username, player_id, stored in Player.objects.values_list(
            "username", "pk", "declared_rank"
        ).order_by("username"):
            if expected.get(player_id) != stored:
                found += 1
                if found <= MAX_SHOWN:
                    self.stdout.write(
                        f"  declared entry rank of {username}: stored {stored}, "
                        f"from the games {expected.get(player_id)}"
                    )
        self.stdout.write(f"entry ranks: {'OK' if not found else f'{found} differences'}")
        return found

    def _check(self, name: str) -> int:
        engine = get_algorithm(name)
        state = engine.new_state(player_entries())
        records, _ = replay_records(name)
        expected_rows = replay(engine, records, state.entries, state)
        found = 0
        if engine.has_history:
            stored_rows = stored_history(name)
            for position, (expected, stored) in enumerate(
                zip_longest(expected_rows, stored_rows), start=1
            ):
                want = history_cells(expected, engine) if expected else None
                have = history_cells(stored, engine) if stored else None
                if want != have:
                    found += 1
                    if found <= MAX_SHOWN:
                        self.stdout.write(f"  row {position}: stored {have}, replayed {want}")
        else:
            for _ in expected_rows:
                pass
        expected = {
            standing.player: standing_cells(standing, engine)
            for standing in engine.standings(state)
        }
        stored = {
            username: [username, str(rank), format_value(value, engine.integer_values), str(games)]
            for username, rank, value, games in CurrentRating.objects.filter(
                algorithm=name
            ).values_list("player__username", "rank", "value", "games")
        }
        for username in sorted(set(expected) | set(stored)):
            if expected.get(username) != stored.get(username):
                found += 1
                if found <= MAX_SHOWN:
                    self.stdout.write(
                        f"  current rating of {username}: stored {stored.get(username)}, "
                        f"replayed {expected.get(username)}"
                    )
        return found
