"""Print one player's record sheet under one algorithm as CSV."""

import csv

from django.core.management.base import BaseCommand, CommandError

from players.models import Player
from players.selectors.exports import record_sheet_rows
from ratings.algorithms import maintained_algorithms, primary_algorithm
from ratings.engine.algorithms import get_algorithm


class Command(BaseCommand):
    help = (
        "Print a player's record sheet (the log page's 12 columns: opponent, opponent_rank, "
        "colour, handicap, komi, winner, status, change, new_value, new_rank, date, comment) "
        "as CSV, oldest row first, with the numbers of `python -m ratings rate`. The site's "
        "/players/USERNAME/sheet.csv is the same file."
    )

    def add_arguments(self, parser):
        parser.add_argument("username", metavar="USERNAME")
        parser.add_argument("--algorithm", help="default: the site's primary algorithm")

    def handle(self, *args, username, algorithm, **options):
        player = Player.objects.filter(username=username).first()
        if player is None:
            raise CommandError(f"no player with the username '{username}'")
        name = algorithm or primary_algorithm()
        if name not in maintained_algorithms():
            raise CommandError(
                f"'{name}' is not an algorithm of this site ({', '.join(maintained_algorithms())})"
            )
        engine = get_algorithm(name)
        if not engine.has_history:
            raise CommandError(f"{name} gives standings only; it keeps no record sheet")
        csv.writer(self.stdout, lineterminator="\n").writerows(record_sheet_rows(player, engine))
