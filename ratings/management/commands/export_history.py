"""Print the stored history of one algorithm with the columns of ``python -m ratings rate``."""

from django.core.management.base import BaseCommand, CommandError

from ratings.engine.algorithms import get_algorithm, registry
from ratings.engine.formats.history import write_history
from ratings.selectors import stored_history


class Command(BaseCommand):
    help = (
        "Print the stored rating history of one algorithm (all players, replay order) as CSV, "
        "exactly the columns of `python -m ratings rate --output history`."
    )

    def add_arguments(self, parser):
        parser.add_argument("--algorithm", required=True, help=", ".join(registry()))

    def handle(self, *args, algorithm, **options):
        if algorithm not in registry():
            raise CommandError(f"unknown algorithm '{algorithm}' (known: {', '.join(registry())})")
        engine = get_algorithm(algorithm)
        if not engine.has_history:
            raise CommandError(f"{algorithm} gives standings only; it keeps no per-game history")
        write_history(self.stdout, stored_history(algorithm), engine)
