"""Print every valid game and adjustment as the game record CSV (SPEC section 2)."""

import csv
import heapq
from decimal import Decimal
from fractions import Fraction

from django.core.management.base import BaseCommand

from players.models import Adjustment, Game, Player
from players.views import spreadsheet_safe
from ratings.engine.output import format_komi
from ratings.engine.records import COLUMNS

_GAME_COLUMNS = (
    "date",
    "round",
    "seq",
    "white__username",
    "black__username",
    "handicap",
    "komi",
    "winner",
    "status",
    "board_size",
    "tournament__code",
    "tournament__egf_class",
    "time_minutes",
    "comment",
)
_ADJUSTMENT_COLUMNS = (
    "date",
    "seq",
    "player__username",
    "new_rank",
    "value",
    "algorithm",
    "comment",
)


def _number(value: Decimal) -> str:
    """A stored decimal as a plain number: 2100.0000 -> 2100, 0.5000 -> 0.5."""
    return format(value.normalize(), "f")


class Command(BaseCommand):
    help = (
        "Print all valid games and adjustments as the game record CSV of SPEC section 2, in "
        "replay order (date, round, entry), each player's entry rank on their first row: "
        "the file the federation asks for, and one `python -m ratings rate` replays to the "
        "site's history. Free text starting with = + - @ gets a leading ' (SPEC section 6)."
    )

    def handle(self, *args, **options):
        entry_ranks = dict(Player.objects.values_list("username", "entry_rank").iterator())
        games = (
            ((row[0], row[1], row[2]), "game", row)
            for row in Game.objects.valid()
            .order_by("date", "round", "seq")
            .values_list(*_GAME_COLUMNS)
            .iterator(chunk_size=5000)
        )
        # An adjustment has no round: it sits at round 0 of its date, as in the replay.
        adjustments = (
            ((row[0], 0, row[1]), "adjustment", row)
            for row in Adjustment.objects.valid()
            .order_by("date", "seq")
            .values_list(*_ADJUSTMENT_COLUMNS)
            .iterator(chunk_size=5000)
        )
        writer = csv.writer(self.stdout, lineterminator="\n")
        writer.writerow(COLUMNS)
        seen: set[str] = set()

        def entry_rank(username: str) -> str:
            if username in seen:
                return ""
            seen.add(username)
            return str(entry_ranks[username])

        for _key, kind, row in heapq.merge(games, adjustments, key=lambda item: item[0]):
            if kind == "game":
                writer.writerow(self._game(row, entry_rank))
            else:
                writer.writerow(self._adjustment(row, seen))

    def _game(self, row, entry_rank) -> list:
        (day, round_number, _seq, white, black, handicap, komi, winner, status, board_size,
         code, egf_class, time_minutes, comment) = row  # fmt: skip
        cells = {
            "date": day.isoformat(),
            "white": spreadsheet_safe(white),
            "black": spreadsheet_safe(black),
            "white_rank": entry_rank(white),
            "black_rank": entry_rank(black),
            "handicap": handicap,
            "komi": format_komi(Fraction(komi)),
            "winner": winner,
            "status": status,
            "board_size": board_size,
            "tournament": spreadsheet_safe(code or ""),
            "tournament_class": egf_class or "",
            "round": round_number,
            "time_minutes": "" if time_minutes is None else time_minutes,
            "comment": spreadsheet_safe(comment),
        }
        return [cells.get(column, "") for column in COLUMNS]

    def _adjustment(self, row, seen: set[str]) -> list:
        day, _seq, username, new_rank, value, algorithm, comment = row
        # The new rank goes in white_rank. A player whose first row this is starts from
        # it on the command line (SPEC section 2): the adjustment resets them anyway.
        seen.add(username)
        cells = {
            "date": day.isoformat(),
            "white": spreadsheet_safe(username),
            "black": spreadsheet_safe(username),
            "white_rank": str(new_rank),
            "status": "adjustment",
            "value": "" if value is None else _number(value),
            "algorithm": algorithm,
            "comment": spreadsheet_safe(comment),
        }
        return [cells.get(column, "") for column in COLUMNS]
