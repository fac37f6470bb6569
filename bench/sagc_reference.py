"""A straightforward implementation of the SAGC index, for comparison and cross-checking.

Written from seed 000 and SPEC sections 2-4 without reusing anything from
``ratings.engine``: its own CSV reading, its own rank scale (levels 1 = 30k ...
30 = 1k, 31 = 1d ... 39 = 9d), every factor a ``Fraction`` multiplied out in the
formula's order, the barrier as arithmetic on 50-point marks. It trusts its input
(the benchmark feeds it generated files) and prints the same record sheet as
``python -m ratings rate --algorithm sagc --output history`` (or the standings
with ``--standings``), so the two can be compared line by line.

Usage: ``python -m bench.sagc_reference [--standings] GAMES.csv``
"""

from __future__ import annotations

import csv
import re
import sys
from fractions import Fraction

LEVEL_OF_7D = 37
LEVEL_OF_9D = 39
LEVEL_OF_30K = 1
LIMIT = 999

# The seed's table, as printed: promotion win, promotion loss, demotion win, demotion loss.
RESULT_TABLE = {
    "above +3": ("3.5", "-0", "3.5", "-0"),
    "+3": ("3.5", "-0.09", "3.5", "-0"),
    "+2": ("2.2", "-0.47", "2.2", "-0.03"),
    "+1": ("1.5", "-0.81", "1.6", "-0.28"),
    "0": ("1", "-1.17", "1.4", "-0.6"),
    "-1": ("0.54", "-1.44", "0.7", "-0.75"),
    "-2": ("0.13", "-1.8", "0.37", "-1"),
    "-3": ("0.09", "-2.7", "0.12", "-1.9"),
    "below -3": ("0", "-2.7", "0", "-1.9"),
}
WINNERS = {"w": "W", "white": "W", "b": "B", "black": "B", "d": "D", "jigo": "D", "draw": "D"}
STATUS_FACTOR = {"free": "0", "normal": "1", "tournament": "1.5", "internet": "0.5"}
# First loss barrier by rank category (levels: 25k = 6 ... 29k = 2, and so on).
FIRST_BARRIER = ((2, 6, -800), (7, 11, -850), (12, 21, -900), (22, 26, -950), (27, 39, -999))


def level_of(text: str) -> int:
    """A written rank on the reference scale; below 30k is 30k, professionals 9d."""
    number, kind = re.fullmatch(r"\s*(\d+)\s*([kdp]).*", text.lower()).groups()
    if kind == "k":
        return max(LEVEL_OF_30K, 31 - int(number))
    if kind == "d":
        return 30 + int(number)
    return LEVEL_OF_9D


def rank_of(level: int) -> str:
    return f"{31 - level}k" if level <= 30 else f"{level - 30}d"


def level_factor(level: int) -> Fraction:
    x = Fraction(max(0, LEVEL_OF_7D - level))
    return x**2 + Fraction(3, 2) * x + 55 + x**5 / 30000


def result_row(differential: int) -> tuple[str, str, str, str]:
    if differential > 3:
        return RESULT_TABLE["above +3"]
    if differential < -3:
        return RESULT_TABLE["below -3"]
    return RESULT_TABLE[f"{differential:+d}" if differential else "0"]


def round_half_away(value: Fraction) -> int:
    half_up = int(abs(value) + Fraction(1, 2))  # int() of a positive Fraction is its floor
    return half_up if value >= 0 else -half_up


def floor_after_loss(level: int, index: int) -> int | None:
    """The lowest index a loss may leave, or None when the loss may demote."""
    if level == LEVEL_OF_30K:
        return -LIMIT
    first = next(mark for low, high, mark in FIRST_BARRIER if low <= level <= high)
    if index >= 0:
        return first
    # the mark at the bottom of the band holding the index: the first mark, or the
    # 50-point mark (at most -999) just below the index
    band_mark = first if index >= first else max(-LIMIT, first - 50 * -((index - first) // 50))
    if band_mark == -LIMIT:
        return None
    return max(-LIMIT, band_mark - 50)


class Player:
    def __init__(self, level: int) -> None:
        self.level = level
        self.index = 0
        self.games = 0
        self.last_opponents: list[str] = []


def read_rows(path: str) -> list[dict[str, str]]:
    with open(path, encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for position, row in enumerate(rows):
        row["#"] = position
    rows.sort(key=lambda row: (row["date"], int(row.get("round") or 0), row["#"]))
    return rows


def komi_of(row: dict[str, str]) -> Fraction:
    if row.get("komi"):
        return Fraction(row["komi"])
    return Fraction(13, 2) if int(row.get("handicap") or 0) == 0 else Fraction(1, 2)


def komi_text(komi: Fraction) -> str:
    return str(komi.numerator) if komi.denominator == 1 else str(float(komi))


def change_for(
    me: Player, opponent: Player, opponent_name: str, colour: str, row: dict, won: bool
) -> int:
    handicap = int(row.get("handicap") or 0)
    effective = int(handicap - (komi_of(row) - 6) / 10)  # int() truncates toward zero
    given = effective if colour == "B" else -effective
    differential = (opponent.level - me.level) - given
    promotion_win, promotion_loss, demotion_win, demotion_loss = result_row(differential)
    if me.index >= 0:
        grf = Fraction(promotion_win if won else promotion_loss)
    else:
        grf = Fraction(demotion_win if won else demotion_loss)
    lf = level_factor(me.level)
    gsf = Fraction(STATUS_FACTOR[row.get("status") or "normal"])
    of = max(Fraction(1, 10), 1 - Fraction(1, 10) * me.last_opponents.count(opponent_name))
    hf = max(Fraction(1, 10), 1 - Fraction(5, 100) * effective)
    return round_half_away(lf * gsf * of * grf * hf)


def apply_change(player: Player, change: int) -> None:
    new_index = player.index + change
    if change < 0:
        floor = floor_after_loss(player.level, player.index)
        if floor is not None:
            new_index = max(new_index, floor)
        if new_index < -LIMIT:
            player.level, new_index = player.level - 1, 0
    elif new_index > LIMIT:
        if player.level == LEVEL_OF_9D:
            new_index = LIMIT
        else:
            player.level, new_index = player.level + 1, 0
    player.index = new_index


def replay(rows: list[dict[str, str]]) -> tuple[list[list[str]], dict[str, Player]]:
    players: dict[str, Player] = {}
    sheet: list[list[str]] = []
    for row in rows:
        for name, rank_column in ((row["white"], "white_rank"), (row["black"], "black_rank")):
            if name not in players:
                players[name] = Player(level_of(row[rank_column]))
        status = (row.get("status") or "normal").lower()
        if status == "adjustment":
            if row.get("algorithm") not in ("", None, "sagc"):
                continue
            player = players[row["white"]]
            old_level, old_index = player.level, player.index
            player.level = level_of(row["white_rank"])
            player.index = int(Fraction(row["value"])) if row.get("value") else 0
            change = player.index - old_index
            sheet.append(
                [row["white"], row["white"], rank_of(old_level), "", "0", "", "", status,
                 str(change), str(player.index), rank_of(player.level), row["date"],
                 row.get("comment", "")]
            )  # fmt: skip
            continue
        white, black = players[row["white"]], players[row["black"]]
        winner = WINNERS[row["winner"].strip().lower()]
        sides = ((row["white"], white, row["black"], black, "W"),)
        sides += ((row["black"], black, row["white"], white, "B"),)
        before = {id(white): white.level, id(black): black.level}
        rated = (row.get("board_size") or "19") == "19"
        changes = []
        for _name, me, opponent_name, opponent, colour in sides:
            if not rated or winner == "D":
                changes.append(0)
            else:
                changes.append(
                    change_for(me, opponent, opponent_name, colour, row, winner == colour)
                )
        for (name, me, opponent_name, opponent, colour), change in zip(sides, changes, strict=True):
            if rated:
                apply_change(me, change)
                me.games += 1
                me.last_opponents = [*me.last_opponents, opponent_name][-10:]
            sheet.append(
                [name, opponent_name, rank_of(before[id(opponent)]), colour,
                 str(int(row.get("handicap") or 0)), komi_text(komi_of(row)), winner, status,
                 str(change), str(me.index), rank_of(me.level), row["date"],
                 row.get("comment", "")]
            )  # fmt: skip
    return sheet, players


HISTORY_HEADER = (
    "player,opponent,opponent_rank,colour,handicap,komi,winner,status,"
    "change,new_value,new_rank,date,comment"
)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    standings = "--standings" in args
    (path,) = [arg for arg in args if arg != "--standings"]
    sheet, players = replay(read_rows(path))
    writer = csv.writer(sys.stdout, lineterminator="\n")
    if standings:
        writer.writerow(("player", "rank", "value", "games"))
        ordered = sorted(
            players.items(), key=lambda item: (-item[1].level, -item[1].index, item[0])
        )
        for name, player in ordered:
            writer.writerow((name, rank_of(player.level), player.index, player.games))
    else:
        writer.writerow(HISTORY_HEADER.split(","))
        writer.writerows(sheet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
