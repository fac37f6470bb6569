"""Deterministic, realistic club game records in the CSV of SPEC section 2.

The same settings always give the same file. Rows are written as they are made,
so memory grows with the number of players, not with the number of games: the
generator serves the 200,000-game engine benchmark and the 1,000,000-game ones.

What it models, roughly as a few South African clubs look on the record sheets:

- players join over the years (a quarter of them in the first year), some stop
  playing; entry ranks spread from 30k to 7d, most of them kyu players;
  beginners improve faster than strong players;
- two club nights a week (Tuesday, Thursday) and a weekend tournament about
  every six weeks, five rounds over Saturday and Sunday;
- opponents of similar strength more often than not; the weaker player takes
  Black with handicap stones by rank difference (reverse komi beyond nine
  stones), a few scratch games whatever the difference, even games with komi
  6.5 (sometimes 5.5, 6, 7 or 7.5);
- statuses mostly normal, some free and internet games, tournaments;
  a few 9x9 and 13x13 games; thinking times, a few rapid ones; rare comments;
- a few committee adjustments (resync with the national rank), some with an
  SAGC index.

Usage: ``python -m bench.generate [--games N] [--players N] [--years N]
[--seed N] OUT.csv`` (``-`` for stdout).
"""

from __future__ import annotations

import argparse
import bisect
import csv
import math
import random
import sys
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TextIO

from ratings.engine.records import COLUMNS

WEAKEST_ENTRY = -30  # 30k, in stones (1d = 0)
STRONGEST_ENTRY = 6  # 7d
STRONGEST = 8  # 9d
TOURNAMENT_ROUNDS = 5
TOURNAMENT_SHARE = 0.08  # of all games
ADJUSTMENT_EVERY = 2_000  # games, on average
CLUB_NIGHTS = (1, 3)  # Tuesday, Thursday
FIRST_NAMES = (
    "thabo",
    "sipho",
    "anele",
    "pieter",
    "johan",
    "lerato",
    "naledi",
    "david",
    "sarah",
    "ayanda",
    "kagiso",
    "marike",
    "chen",
    "yuki",
    "ruan",
    "zanele",
)
COMMENTS = ("club night", "rematch", "recorded late", "teaching game, reviewed", "league")


@dataclass(frozen=True)
class Settings:
    games: int = 200_000
    players: int = 2_000
    years: int = 20
    seed: int = 1
    start: date = date(2005, 1, 1)

    def __post_init__(self) -> None:
        if self.games < 1 or self.players < 4 or self.years < 1:
            raise ValueError("need at least 1 game, 4 players and 1 year")


class _Player:
    __slots__ = ("entry_strength", "improvement", "join_day", "leave_day", "name")

    def __init__(self, name: str, strength: float, improvement: float, join: int, leave: int):
        self.name = name
        self.entry_strength = strength
        self.improvement = improvement  # stones a year
        self.join_day = join
        self.leave_day = leave

    def strength(self, day: int) -> float:
        years = (day - self.join_day) / 365
        return min(STRONGEST, self.entry_strength + self.improvement * years)

    def rank(self, day: int) -> int:
        """The rank the player would write on a sheet: the nearest whole stone."""
        return max(WEAKEST_ENTRY, min(STRONGEST, round(self.strength(day))))


def rank_text(stones: int) -> str:
    return f"{stones + 1}d" if stones >= 0 else f"{-stones}k"


def komi_text(komi: float) -> str:
    return str(int(komi)) if komi == int(komi) else str(komi)


def _make_players(settings: Settings, rng: random.Random) -> list[_Player]:
    span = settings.years * 365
    players = []
    for number in range(settings.players):
        name = f"{FIRST_NAMES[number % len(FIRST_NAMES)]}{number}"
        entry = min(STRONGEST_ENTRY, max(WEAKEST_ENTRY, rng.gauss(-11, 8)))
        improvement = rng.uniform(0, 3 if entry < -15 else 1 if entry < 0 else 0.3)
        first_year = number < 2 or rng.random() < 0.25
        join = rng.randrange(365) if first_year else rng.randrange(span)
        join = 0 if number < 2 else join
        stays = span if number < 2 else int(rng.expovariate(1 / (span / 3))) + 60
        players.append(_Player(name, entry, improvement, join, join + stays))
    players.sort(key=lambda player: player.join_day)
    return players


def _event_days(settings: Settings, rng: random.Random) -> list[tuple[int, str]]:
    """(day, kind) for every club night and tournament day, in order; the last is a
    club night, which can take any number of games."""
    span = settings.years * 365
    events: list[tuple[int, str]] = []
    next_tournament = rng.randrange(20, 60)
    for day in range(span):
        weekday = (settings.start + timedelta(days=day)).weekday()
        if day >= next_tournament and weekday == 5 and day + 1 < span:
            events.append((day, "tournament"))
            next_tournament = day + rng.randrange(35, 56)
        elif weekday in CLUB_NIGHTS:
            events.append((day, "club"))
    while events and events[-1][1] != "club":
        events.pop()
    return events


def _handicap_and_komi(difference: int, rng: random.Random, tournament: bool) -> tuple[int, float]:
    """Stones and komi for a rank difference (the weaker player takes Black)."""
    if tournament:
        difference = max(0, difference - 2)  # tournaments give reduced handicaps
    if difference == 0 or rng.random() < 0.06:  # an even game, or a scratch game anyway
        return 0, rng.choices((6.5, 7.5, 5.5, 6.0, 7.0), (80, 10, 5, 3, 2))[0]
    if difference == 1:
        return rng.choices(((0, 0.5), (1, 0.5), (0, -0.5)), (80, 10, 10))[0]
    if difference <= 9:
        return difference, rng.choices((0.5, 0.0, -5.5), (90, 6, 4))[0]
    if rng.random() < 0.5:
        return 9, 0.5
    return 9, max(-50.0, 0.5 - 10 * (difference - 9))  # reverse komi beyond nine stones


def _winner(white: float, black: float, handicap: int, komi: float, rng: random.Random) -> str:
    if komi == int(komi) and rng.random() < 0.02:
        return "D"
    black_advantage = handicap - (komi - 6) / 10
    p_white = 1 / (1 + math.exp(-1.1 * (white - black - black_advantage)))
    return "W" if rng.random() < p_white else "B"


class _Writer:
    def __init__(self, out: TextIO) -> None:
        self.csv = csv.writer(out, lineterminator="\n")
        self.csv.writerow(COLUMNS)
        self.games = 0
        self.adjustments = 0

    def row(self, **cells: object) -> None:
        self.csv.writerow(["" if cells.get(name) is None else cells[name] for name in COLUMNS])


class Generator:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.rng = random.Random(settings.seed)
        self.players = _make_players(settings, self.rng)
        self.events = _event_days(settings, self.rng)
        self.active: list[_Player] = []
        self._joined = 0
        self._tournaments = 0

    def _update_active(self, day: int) -> None:
        while self._joined < len(self.players) and self.players[self._joined].join_day <= day:
            self.active.append(self.players[self._joined])
            self._joined += 1
        self.active = [player for player in self.active if player.leave_day > day]
        if len(self.active) < 2:  # keep the club alive: the founders come back
            self.active = self.players[:2] + [p for p in self.active if p not in self.players[:2]]

    def _opponent(self, player: _Player, day: int) -> _Player:
        """Of a few players present, the one nearest in strength (with some noise)."""
        candidates = self.rng.sample(self.active, min(5, len(self.active)))
        candidates = [other for other in candidates if other is not player] or [
            next(other for other in self.active if other is not player)
        ]
        strength = player.strength(day)
        return min(
            candidates,
            key=lambda other: abs(other.strength(day) - strength) + self.rng.uniform(0, 4),
        )

    def _game(
        self, out: _Writer, day: int, a: _Player, b: _Player, tournament: tuple | None = None
    ) -> _Player | None:
        """Write one game; returns the winner (None for jigo)."""
        rng = self.rng
        rank_a, rank_b = a.rank(day), b.rank(day)
        if rank_a == rank_b:
            white, black = (a, b) if rng.random() < 0.5 else (b, a)
        else:
            white, black = (a, b) if rank_a > rank_b else (b, a)
        board = 19 if tournament else rng.choices((19, 13, 9), (97, 2, 1))[0]
        handicap, komi = _handicap_and_komi(
            abs(rank_a - rank_b) * board * board // 361, rng, tournament is not None
        )
        winner = _winner(white.strength(day), black.strength(day), handicap, komi, rng)
        if tournament:
            code, grade, round_number = tournament
            status, minutes = "tournament", 90
        else:
            code, grade, round_number = "", "", 0
            status = rng.choices(("normal", "free", "internet"), (90, 4, 6))[0]
            minutes = rng.choices((None, 60, 90, 45, 30, 20), (40, 30, 10, 12, 5, 3))[0]
        out.row(
            date=(self.settings.start + timedelta(days=day)).isoformat(),
            white=white.name,
            black=black.name,
            white_rank=rank_text(white.rank(day)),
            black_rank=rank_text(black.rank(day)),
            handicap=handicap,
            komi=komi_text(komi),
            winner=winner,
            status=status,
            board_size=board,
            tournament=code,
            tournament_class=grade,
            round=round_number,
            time_minutes=minutes,
            comment=rng.choice(COMMENTS) if rng.random() < 0.01 else "",
        )
        out.games += 1
        return {"W": white, "B": black}.get(winner)

    def _adjustment(self, out: _Writer, day: int) -> None:
        player = self.rng.choice(self.active)
        with_index = self.rng.random() < 0.3
        out.row(
            date=(self.settings.start + timedelta(days=day)).isoformat(),
            white=player.name,
            black=player.name,
            white_rank=rank_text(player.rank(day)),
            status="adjustment",
            value=self.rng.randrange(-500, 501) if with_index else None,
            algorithm="sagc" if with_index else None,
            comment="resync with the national rank",
        )
        out.adjustments += 1

    def _club_night(self, out: _Writer, day: int, games: int) -> None:
        for _ in range(games):
            player = self.rng.choice(self.active)
            self._game(out, day, player, self._opponent(player, day))
            if self.rng.random() < 1 / ADJUSTMENT_EVERY:
                self._adjustment(out, day)

    def _tournament(self, out: _Writer, day: int, games: int) -> None:
        """A Swiss-like weekend tournament of about ``games`` games (fewer when few
        players are active; the next event makes up the difference)."""
        entrants = min(len(self.active), 2 * max(1, games // TOURNAMENT_ROUNDS))
        entrants -= entrants % 2
        if entrants < 4:
            return
        self._tournaments += 1
        code = f"T{(self.settings.start + timedelta(days=day)).year}-{self._tournaments:03d}"
        grade = self.rng.choices("ABCD", (10, 30, 40, 20))[0]
        field = self.rng.sample(self.active, entrants)
        scores = dict.fromkeys((player.name for player in field), 0)
        for round_number in range(1, TOURNAMENT_ROUNDS + 1):
            played_on = day if round_number <= 3 else day + 1
            field.sort(key=lambda player: (-scores[player.name], -player.strength(day)))
            for a, b in zip(field[::2], field[1::2], strict=True):
                winner = self._game(out, played_on, a, b, (code, grade, round_number))
                if winner is not None:
                    scores[winner.name] += 1

    def _weights(self) -> list[float]:
        """How much of the games each event gets: in proportion to the players active
        that day, and tournaments about TOURNAMENT_SHARE of all games."""
        joins = sorted(player.join_day for player in self.players)
        leaves = sorted(player.leave_day for player in self.players)
        present = [
            bisect.bisect_right(joins, day) - bisect.bisect_right(leaves, day)
            for day, _ in self.events
        ]
        club = sum(n for n, (_, kind) in zip(present, self.events, strict=True) if kind == "club")
        tournament = sum(present) - club
        scale = TOURNAMENT_SHARE * club / ((1 - TOURNAMENT_SHARE) * tournament) if tournament else 0
        return [
            max(1, n) * (scale if kind == "tournament" else 1.0)
            for n, (_, kind) in zip(present, self.events, strict=True)
        ]

    def write(self, out: TextIO) -> _Writer:
        writer = _Writer(out)
        weights = self._weights()
        total_weight = sum(weights)
        cumulative = 0.0
        for (day, kind), weight in zip(self.events, weights, strict=True):
            cumulative += weight
            # Shortfalls (a tournament with too few players) roll over to the next event.
            quota = round(self.settings.games * cumulative / total_weight) - writer.games
            self._update_active(day)
            if quota <= 0:
                continue
            if kind == "tournament":
                self._tournament(writer, day, quota)
            else:
                self._club_night(writer, day, quota)
        return writer


def generate(out: TextIO, settings: Settings) -> tuple[int, int]:
    """Write the file; returns (games, adjustments)."""
    writer = Generator(settings).write(out)
    return writer.games, writer.adjustments


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.generate", description=__doc__)
    parser.add_argument("--games", type=int, default=Settings.games)
    parser.add_argument("--players", type=int, default=Settings.players)
    parser.add_argument("--years", type=int, default=Settings.years)
    parser.add_argument("--seed", type=int, default=Settings.seed)
    parser.add_argument("out", metavar="OUT.csv")
    args = parser.parse_args(argv)
    settings = Settings(args.games, args.players, args.years, args.seed)
    if args.out == "-":
        games, adjustments = generate(sys.stdout, settings)
    else:
        with open(args.out, "w", encoding="utf-8", newline="") as out:
            games, adjustments = generate(out, settings)
    print(f"{games} games, {adjustments} adjustments", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
