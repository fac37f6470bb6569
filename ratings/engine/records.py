"""The game record of SPEC section 2: its columns, its fields and the entry ranks read
from a history of them.

One format everywhere: the command line, ``manage.py import_games``, the site's
CSV export and the test fixtures. Its reader is ``formats.games``, which checks every
row and reports every bad one (line, column, reason); a file with any bad row yields
no games.
"""

from __future__ import annotations

import datetime
import operator
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from fractions import Fraction
from typing import TypeVar

from .messages import Message, gettext_noop
from .ranks import Rank

COLUMNS = (
    "date",
    "white",
    "black",
    "white_rank",
    "black_rank",
    "handicap",
    "komi",
    "winner",
    "status",
    "board_size",
    "tournament",
    "tournament_class",
    "round",
    "time_minutes",
    "value",
    "algorithm",
    "comment",
)

MAX_USERNAME_LENGTH = 150


class Winner(StrEnum):
    WHITE = "W"
    BLACK = "B"
    JIGO = "D"


class Status(StrEnum):
    FREE = "free"
    NORMAL = "normal"
    TOURNAMENT = "tournament"
    INTERNET = "internet"
    ADJUSTMENT = "adjustment"


class Colour(StrEnum):
    WHITE = "W"
    BLACK = "B"


DEFAULT_EVEN_KOMI = Fraction(13, 2)
DEFAULT_HANDICAP_KOMI = Fraction(1, 2)


def default_komi(handicap: int) -> Fraction:
    return DEFAULT_EVEN_KOMI if handicap == 0 else DEFAULT_HANDICAP_KOMI


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A game or, when ``status`` is ``adjustment``, a committee reset of ``white``.

    ``seq`` is the entry order (the row's position in a file, or the site's global
    entry counter); ``line`` is where the row came from, for messages.
    ``colour_given`` is False for a game whose file gave no colour (an h-file's ``30+``,
    OpenGotha's ``knownColor="false"``): ``white`` and ``black`` are then the pair, not
    who played which. Only an even game can lack it (a handicap game's Black is who
    took the stones), and colour changes nothing in an even game's rating; the
    section 2 CSV has no column for it (its files always give colours).
    """

    date: date
    white: str
    black: str
    winner: Winner | None = None
    white_rank: Rank | None = None
    black_rank: Rank | None = None
    handicap: int = 0
    komi: Fraction = DEFAULT_EVEN_KOMI
    status: Status = Status.NORMAL
    board_size: int = 19
    tournament: str = ""
    tournament_class: str = "A"
    round: int = 0
    time_minutes: Fraction | None = None
    value: Fraction | None = None
    algorithm: str = ""
    comment: str = ""
    seq: int = 0
    line: int | None = None
    colour_given: bool = True

    @property
    def is_adjustment(self) -> bool:
        return self.status is Status.ADJUSTMENT

    @property
    def order_key(self) -> tuple[datetime.date, int, int]:  # the field ``date`` hides the type
        """The replay order of SPEC section 2: (date, round, seq)."""
        return (self.date, self.round, self.seq)

    def applies_to(self, algorithm: str) -> bool:
        """An adjustment names its algorithm or, left empty, applies to all."""
        return not self.is_adjustment or not self.algorithm or self.algorithm == algorithm


@dataclass(frozen=True, slots=True)
class RowError:
    line: int
    column: str
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}" + (f", column {self.column}" if self.column else "")
        return f"{where}: {self.message}"


class GameFileError(ValueError):
    """Every problem found in a file; nothing from it is to be used."""

    def __init__(self, errors: Sequence[RowError], source: str = "") -> None:
        self.errors = list(errors)
        self.source = source
        prefix = f"{source}: " if source else ""
        super().__init__("\n".join(prefix + str(error) for error in self.errors))


@dataclass(frozen=True, slots=True)
class Entry:
    """Where a player starts: the declared rank and, optionally, a starting value in
    the algorithm's own scale (from ``--players`` or the site's national list).

    ``declared_rating`` is a GoR a tournament file gave the player (OpenGotha's
    ``rating``, an h-file's GoR column): the EGF algorithms start a player new to them
    at it, as the EGD does, when no ``value`` is given; the others ignore it."""

    rank: Rank
    value: Fraction | None = None
    declared_rating: Fraction | None = None


@dataclass(slots=True)
class GameFile:
    records: list[GameRecord]
    warnings: list[str] = field(default_factory=list)


# A record's ``order_key`` in C: sorting a file's records calls it for every one.
replay_key = operator.attrgetter("date", "round", "seq")


def replay_order(records: Iterable[GameRecord]) -> list[GameRecord]:
    return sorted(records, key=replay_key)


PlayerKey = TypeVar("PlayerKey", str, int)  # a player by username (a file) or by id (the site)


def earliest_declared_ranks(
    declared: Iterable[tuple[PlayerKey, tuple, Rank]],
) -> dict[PlayerKey, Rank]:
    """Each player's entry rank as declared (SPEC section 2, "Entry rank"): the rank on
    their earliest row in replay order that declares one, from ``(player, order key,
    rank)`` of every declared rank: :func:`declared_ranks` reads them off a file's
    records (the command line finds the same in its one pass, :func:`resolve_entries`),
    the site off its games and adjustments, by player id
    (``ratings.selectors.declared_ranks``)."""
    earliest: dict[PlayerKey, tuple[tuple, Rank]] = {}
    for player, key, rank in declared:
        known = earliest.get(player)
        if known is None or key < known[0]:
            earliest[player] = (key, rank)
    return {player: rank for player, (_key, rank) in earliest.items()}


def declared_ranks(records: Iterable[GameRecord]) -> Iterator[tuple[str, tuple, Rank]]:
    """``(player, order key, rank)`` of every entry rank that ``records``, in replay
    order, declare: the ranks of games, and an adjustment's new rank (in
    ``white_rank``) when it is its player's first row. A later adjustment resets the
    player from its date on (for its algorithm only, when it names one); it is not
    where they started."""
    seen: set[str] = set()
    for record in records:
        if record.is_adjustment:
            if record.white not in seen and record.white_rank is not None:
                yield record.white, record.order_key, record.white_rank
            seen.add(record.white)
            continue
        if record.white_rank is not None:
            yield record.white, record.order_key, record.white_rank
        if record.black_rank is not None:
            yield record.black, record.order_key, record.black_rank
        seen.add(record.white)
        seen.add(record.black)


def resolve_entries(
    records: Sequence[GameRecord],
    given: Mapping[str, Entry] | None = None,
    source: str = "",
    *,
    presorted: bool = False,
) -> dict[str, Entry]:
    """Each player's entry, fixed once: from ``given`` (``--players``) if listed, else
    from the rank on their first row in replay order (SPEC section 2), which a file
    must then carry: that is their earliest declared rank, as on the site.
    ``presorted`` says ``records`` are in replay order already (not sorted again)."""
    entries = dict(given or {})
    errors: list[RowError] = []
    seen: set[str] = set(entries)
    # In replay order, a player's first row is where they are first declared (it must
    # declare them): the earliest declared rank of earliest_declared_ranks, found in
    # the one pass.
    adjustment = Status.ADJUSTMENT
    for record in records if presorted else replay_order(records):
        # nearly every row names players seen before: nothing made for those
        if record.white not in seen:
            _enter(record.white, record.white_rank, "white_rank", record, seen, entries, errors)
        if record.black not in seen and record.status is not adjustment:
            _enter(record.black, record.black_rank, "black_rank", record, seen, entries, errors)
    if errors:
        raise GameFileError(errors, source)
    return entries


def _enter(
    name: str,
    rank: Rank | None,
    column: str,
    record: GameRecord,
    seen: set[str],
    entries: dict[str, Entry],
    errors: list[RowError],
) -> None:
    """A player's first row in replay order: their entry, or the error of its missing rank."""
    seen.add(name)
    if rank is None:
        errors.append(
            RowError(
                record.line or 0,
                column,
                Message(gettext_noop("first game of '%(name)s' needs their entry rank"), name=name),
            )
        )
    else:
        entries[name] = Entry(rank)
