"""Print every valid game and adjustment as the game record CSV (SPEC section 2)."""

import csv

from django.core.management.base import BaseCommand

from players.selectors.exports import game_record_rows


class Command(BaseCommand):
    help = (
        "Print all valid games and adjustments as the game record CSV of SPEC section 2, in "
        "replay order (date, round, entry), each player's entry rank on their first row: "
        "the file the federation asks for, and one `python -m ratings rate` replays to the "
        "site's history. Free text starting with = + - @ gets a leading ' (SPEC section 6). "
        "The site's /games.csv is the same file."
    )

    def handle(self, *args, **options):
        csv.writer(self.stdout, lineterminator="\n").writerows(game_record_rows())
