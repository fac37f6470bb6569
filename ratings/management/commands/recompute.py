"""Run a recompute now, synchronously."""

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from ratings.algorithms import maintained_algorithms
from ratings.recompute.run import recompute, recompute_pending


class Command(BaseCommand):
    help = "Recompute ratings now: what is pending, from a date, or in full."

    def add_arguments(self, parser):
        parser.add_argument("--algorithm", help="one algorithm (default: every maintained one)")
        parser.add_argument("--from", dest="from_date", type=_iso_date, help="YYYY-MM-DD")
        parser.add_argument("--full", action="store_true", help="replay every game from scratch")

    def handle(self, *args, algorithm, from_date, full, **options):
        names = maintained_algorithms()
        if algorithm is not None and algorithm not in names:
            raise CommandError(
                f"'{algorithm}' is not maintained here (maintained: {', '.join(names)})"
            )
        chosen = [algorithm] if algorithm else names
        if not full and from_date is None:
            results = recompute_pending(chosen)
        else:
            results = [
                result
                for name in chosen
                if (result := recompute(name, full=full, from_date=from_date))
            ]
        if not results:
            self.stdout.write("Nothing to recompute.")
        for result in results:
            since = result.replayed_from.isoformat() if result.replayed_from else "the start"
            self.stdout.write(
                f"{result.algorithm}: replayed from {since}, {result.rows} rows "
                f"in {result.seconds:.2f} s"
            )


def _iso_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        from argparse import ArgumentTypeError

        raise ArgumentTypeError(f"'{text}' is not a date (YYYY-MM-DD)") from None
