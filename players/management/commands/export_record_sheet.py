"""Print one player's record sheet under one algorithm as CSV."""

import csv

from django.core.management.base import BaseCommand, CommandError

from players.models import Player
from players.views import spreadsheet_safe
from ratings.engine.base import get_algorithm
from ratings.engine.output import HISTORY_COLUMNS, history_cells
from ratings.selectors import stored_history
from ratings.services import maintained_algorithms, primary_algorithm

RECORD_SHEET_COLUMNS = HISTORY_COLUMNS[1:]  # the log page's 12 columns


class Command(BaseCommand):
    help = (
        "Print a player's record sheet (the log page's 12 columns: opponent, opponent_rank, "
        "colour, handicap, komi, winner, status, change, new_value, new_rank, date, comment) "
        "as CSV, oldest row first, with the numbers of `python -m ratings rate`."
    )

    def add_arguments(self, parser):
        parser.add_argument("username", metavar="USERNAME")
        parser.add_argument("--algorithm", help="default: the site's primary algorithm")

    def handle(self, *args, username, algorithm, **options):
        if not Player.objects.filter(username=username).exists():
            raise CommandError(f"no player with the username '{username}'")
        name = algorithm or primary_algorithm()
        if name not in maintained_algorithms():
            raise CommandError(
                f"'{name}' is not an algorithm of this site ({', '.join(maintained_algorithms())})"
            )
        engine = get_algorithm(name)
        if not engine.has_history:
            raise CommandError(f"{name} gives standings only; it keeps no record sheet")
        writer = csv.writer(self.stdout, lineterminator="\n")
        writer.writerow(RECORD_SHEET_COLUMNS)
        for row in stored_history(name):
            if row.player != username:
                continue
            cells = history_cells(row, engine)[1:]
            cells[0] = spreadsheet_safe(cells[0])  # the opponent
            cells[-1] = spreadsheet_safe(cells[-1])  # the comment
            writer.writerow(cells)
