"""A plain float implementation of the SAGC index: the speed the engine is held to.

Issue 14 asks that ``python -m ratings rate --algorithm sagc`` replay a file no
slower than a plain implementation of the same rules with binary floats, reading
the same CSV and writing one line per row. This is that implementation, written
the obvious way: ``csv.reader``, the rows sorted in replay order, each factor a
float, the product rounded half away from zero, every row printed with
``csv.writer``. Like ``bench/sagc_reference.py`` it trusts its input (generated
files) and checks nothing. Floats may round a product that lies exactly on a half
differently from the exact engine, so its sheet is for timing only; the benchmark
counts the rows where it differs.

Usage: ``python -m bench.sagc_float GAMES.csv``
"""

from __future__ import annotations

import csv
import sys

from bench.sagc_reference import (
    HISTORY_HEADER,
    LEVEL_OF_7D,
    LEVEL_OF_9D,
    LIMIT,
    WINNERS,
    floor_after_loss,
    rank_of,
)

# Promotion win, promotion loss, demotion win, demotion loss, by differential -4..+4.
RESULT_FACTORS = {
    4: (3.5, 0.0, 3.5, 0.0),
    3: (3.5, -0.09, 3.5, 0.0),
    2: (2.2, -0.47, 2.2, -0.03),
    1: (1.5, -0.81, 1.6, -0.28),
    0: (1.0, -1.17, 1.4, -0.6),
    -1: (0.54, -1.44, 0.7, -0.75),
    -2: (0.13, -1.8, 0.37, -1.0),
    -3: (0.09, -2.7, 0.12, -1.9),
    -4: (0.0, -2.7, 0.0, -1.9),
}
STATUS_FACTOR = {"free": 0.0, "normal": 1.0, "tournament": 1.5, "internet": 0.5}


def level_of(text: str) -> int:
    """1 = 30k ... 30 = 1k, 31 = 1d ... 39 = 9d; below 30k is 30k, professionals 9d."""
    text = text.strip().lower()
    number, kind = int(text[:-1]), text[-1]
    if kind == "k":
        return max(1, 31 - number)
    if kind == "d":
        return 30 + number
    return LEVEL_OF_9D


def level_factor(level: int) -> float:
    x = max(0, LEVEL_OF_7D - level)
    return x * x + 1.5 * x + 55 + x**5 / 30000


def main(argv: list[str] | None = None) -> int:
    (path,) = sys.argv[1:] if argv is None else argv
    with open(path, encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        column = {name: position for position, name in enumerate(next(reader))}
        rows = list(reader)
    date, rnd = column["date"], column["round"]
    order = sorted(range(len(rows)), key=lambda i: (rows[i][date], int(rows[i][rnd] or 0), i))
    white_at, black_at = column["white"], column["black"]
    white_rank_at, black_rank_at = column["white_rank"], column["black_rank"]
    handicap_at, komi_at, winner_at = column["handicap"], column["komi"], column["winner"]
    status_at, size_at, value_at = column["status"], column["board_size"], column["value"]
    algorithm_at, comment_at = column["algorithm"], column["comment"]

    level: dict[str, int] = {}
    index: dict[str, int] = {}
    recent: dict[str, list[str]] = {}
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(HISTORY_HEADER.split(","))
    for i in order:
        row = rows[i]
        white, black = row[white_at], row[black_at]
        for name, rank_at in ((white, white_rank_at), (black, black_rank_at)):
            if name not in level:
                level[name], index[name], recent[name] = level_of(row[rank_at]), 0, []
        status = (row[status_at] or "normal").lower()
        if status == "adjustment":
            if row[algorithm_at] not in ("", "sagc"):
                continue
            old_level, old_index = level[white], index[white]
            level[white] = level_of(row[white_rank_at])
            index[white] = int(float(row[value_at])) if row[value_at] else 0
            out.writerow(
                [white, white, rank_of(old_level), "", "0", "", "", status,
                 index[white] - old_index, index[white], rank_of(level[white]), row[date],
                 row[comment_at]]
            )  # fmt: skip
            continue
        handicap = int(row[handicap_at] or 0)
        komi = float(row[komi_at]) if row[komi_at] else (6.5 if handicap == 0 else 0.5)
        komi_text = str(int(komi)) if komi == int(komi) else str(komi)
        effective = int(handicap - (komi - 6) / 10)
        winner = WINNERS[row[winner_at].strip().lower()]
        rated = (row[size_at] or "19") == "19"
        before = {white: level[white], black: level[black]}
        changes = {}
        for me, opponent, colour in ((white, black, "W"), (black, white, "B")):
            if not rated or winner == "D":
                changes[me] = 0
                continue
            given = effective if colour == "B" else -effective
            differential = max(-4, min(4, (before[opponent] - before[me]) - given))
            factors = RESULT_FACTORS[differential]
            won = winner == colour
            if index[me] >= 0:
                grf = factors[0] if won else factors[1]
            else:
                grf = factors[2] if won else factors[3]
            of = max(0.1, 1 - 0.1 * recent[me].count(opponent))
            hf = max(0.1, 1 - 0.05 * effective)
            product = level_factor(before[me]) * STATUS_FACTOR[status] * of * grf * hf
            magnitude = int(abs(product) + 0.5)
            changes[me] = magnitude if product >= 0 else -magnitude
        for me, opponent, colour in ((white, black, "W"), (black, white, "B")):
            change = changes[me]
            if rated:
                new_index = index[me] + change
                if change < 0:
                    floor = floor_after_loss(level[me], index[me])
                    if floor is not None:
                        new_index = max(new_index, floor)
                    if new_index < -LIMIT:
                        level[me], new_index = level[me] - 1, 0
                elif new_index > LIMIT:
                    if level[me] == LEVEL_OF_9D:
                        new_index = LIMIT
                    else:
                        level[me], new_index = level[me] + 1, 0
                index[me] = new_index
                recent[me].append(opponent)
                del recent[me][:-10]
            out.writerow(
                [me, opponent, rank_of(before[opponent]), colour, handicap, komi_text, winner,
                 status, change, index[me], rank_of(level[me]), row[date], row[comment_at]]
            )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
