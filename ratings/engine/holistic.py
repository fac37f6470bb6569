"""Holistic algorithms: rated as a whole over a history, not game by game (SPEC section 5,
Game Courier Ratings).

A holistic algorithm keeps no per-game history. Replaying the games only fills a table
(:meth:`Holistic.count`); :meth:`Holistic.finish` then rates the whole table at once,
from scratch every time it is called. The table must not depend on the order the games
come in: the same games counted in any order (or counted by a database, a group of
like games at a time, ``times`` each) leave the same table. That is what lets the site
keep only month-end standings and resume from the database's count of the games.

Everything the site does with such an algorithm goes through this module and the
class's methods, never through one algorithm's module:

- the recompute writes month-end standings from :func:`rated_month_ends`;
- the stored-history reads fill the table from the database with :meth:`Holistic.count`
  (``ratings.selectors.count_holistic_table``);
- the lab predicts each game from the standings at the end of the month before its
  own (:func:`predictions`; the site reads them from the stored snapshots), and shows
  what :meth:`Holistic.lab_figures` adds for the rated table.

A new holistic algorithm is a subclass with ``count``, ``finish`` and
``predict_white`` (and the usual description), plus its line in ``algorithms.py``.
"""

from __future__ import annotations

import calendar
from abc import abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import date
from typing import Any, ClassVar, TypeVar

from .base import Algorithm, HistoryRow, PlayerState, RatingState, Standing
from .description import Matchup, Side
from .records import Entry, GameRecord

P = TypeVar("P", bound=PlayerState)


class Holistic(Algorithm[P]):
    """An algorithm that rates the whole table of a history at once."""

    has_history: ClassVar[bool] = False

    @abstractmethod
    def count(self, state: RatingState[P], record: GameRecord, times: int = 1) -> None:
        """Add ``times`` games like ``record`` to the table of ``state`` (both players
        appear in the standings even when the game is not rated). Only ``white``,
        ``black``, ``winner``, ``status``, ``board_size`` and ``handicap`` of a record
        counted from the database are meaningful; the table must not depend on the
        order of the games."""

    @abstractmethod
    def finish(self, state: RatingState[P]) -> None:
        """Rate the whole table, from scratch every time it is called. Only this sets
        the players' values (``count`` leaves them as the last rating left them)."""

    def skip_reason(self, record: GameRecord) -> str:
        """Why a game is not rated (counted nowhere, predicted by no one), or ""."""
        return ""

    def rate_unit(self, state: RatingState[P], unit: Sequence[GameRecord]) -> list[HistoryRow]:
        """Count the unit's games (an adjustment is ignored); the rating is in
        :meth:`finish`."""
        for record in unit:
            if not record.is_adjustment:
                self.count(state, record)
        return []

    def lab_figures(self, state: RatingState[P]) -> dict[str, Any]:
        """Figures the lab shows beside its own, for the rated table (JSON-able)."""
        return {}

    def table_data(self, state: RatingState[P], numbers: Mapping[str, int]) -> Any:
        """The table of ``state`` (counted; its rating is not kept) as JSON-able data
        that :meth:`load_table` reads back into the same table, each player named by
        ``numbers`` (the site's player ids: a renamed player stays the same). None: the
        algorithm cannot (the site then counts the games again)."""
        return None

    def load_table(self, state: RatingState[P], data: Any, names: Mapping[int, str]) -> bool:
        """Fill the new, empty ``state`` with the table of :meth:`table_data`, each
        number named by ``names``; False (``state`` left empty): data it cannot read,
        or a number ``names`` lacks."""
        return False

    def merge_table(self, state: RatingState[P], data: Any, names: Mapping[int, str]) -> bool:
        """Add the games of the table ``data`` (:meth:`table_data` of a table of other
        games) to the table of ``state``: the table of both sets of games, as if they
        had been counted into one. False: data it cannot read, or a number ``names``
        lacks (``state`` may then be left part-filled)."""
        return False


def is_holistic(algorithm: Algorithm) -> bool:
    return isinstance(algorithm, Holistic)


def month_end(day: date) -> date:
    return day.replace(day=calendar.monthrange(day.year, day.month)[1])


def month_ends(first: date, last: date) -> Iterator[date]:
    """The last day of every month from ``first``'s month to ``last``'s."""
    year, month = first.year, first.month
    while (year, month) <= (last.year, last.month):
        yield month_end(date(year, month, 1))
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)


def rated_month_ends(
    algorithm: Holistic,
    records: Iterable[GameRecord],
    entries: Mapping[str, Entry],
    *,
    rate_from: date | None = None,
    state: RatingState | None = None,
) -> Iterator[tuple[date, RatingState]]:
    """The table rated at the end of every month that has records, from the month of
    ``rate_from`` on (every month when None): ``(month end, state)``, the state being
    one object, rated as of that month end when it is yielded. The last month is
    always rated: its state is the current standings.

    ``records`` come in replay order. Every record fills the table, but a month before
    ``rate_from``'s is not rated: :meth:`Holistic.finish` rates the table from scratch,
    so nothing of an earlier month's rating is needed later. A recompute from a dirty
    date keeps the snapshots before its month and pays the ratings of the months from
    there on; an entry dated today costs one month's rating.

    ``state``: the table counted from the games before ``records`` (a new one when
    None), which ``records`` go on filling; a recompute counts the months it keeps in
    the database rather than replaying them (``ratings.selectors.count_holistic_table``).
    """
    if state is None:
        state = algorithm.new_state(entries)
    rated_from = month_end(rate_from) if rate_from is not None else date.min
    current: date | None = None  # the month end of the records being counted
    month = None  # and their (year, month): cheaper to compare for every record
    name = algorithm.name
    for record in records:
        day = record.date
        if (day.year, day.month) != month:
            if current is not None and current >= rated_from:
                algorithm.finish(state)
                yield current, state
            current, month = month_end(day), (day.year, day.month)
        count_record(algorithm, state, record, name)
    if current is not None:
        algorithm.finish(state)
        yield current, state


def count_record(algorithm: Holistic, state: RatingState, record: GameRecord, name: str) -> None:
    """Add ``record`` to the table of ``state`` as the replay does (``name``: the
    algorithm's; an adjustment for it goes to :meth:`Holistic.rate_unit`)."""
    if record.is_adjustment:
        if record.applies_to(name):
            algorithm.rate_unit(state, [record])
    else:
        algorithm.count(state, record)


def month_end_snapshots(
    algorithm: Holistic, records: Iterable[GameRecord], entries: Mapping[str, Entry]
) -> list[tuple[date, list[Standing]]]:
    """The standings at the end of every month from the first game to the last (a
    quiet month's standings are those of the month before): one replay serves every
    month, since the table only grows and :meth:`Holistic.finish` rates it from scratch."""
    ordered = sorted(records, key=lambda record: record.order_key)
    if not ordered:
        return []
    rated = {
        end: algorithm.standings(state)
        for end, state in rated_month_ends(algorithm, ordered, entries)
    }
    snapshots: list[tuple[date, list[Standing]]] = []
    standings: list[Standing] = []
    for last_day in month_ends(ordered[0].date, ordered[-1].date):
        standings = rated.get(last_day, standings)
        snapshots.append((last_day, standings))
    return snapshots


def predicted_matchup(record: GameRecord, white: Side, black: Side) -> Matchup:
    return Matchup(
        white=white,
        black=black,
        handicap=record.handicap,
        komi=record.komi,
        board_size=record.board_size,
    )


def lab_games(
    algorithm: Holistic, records: Iterable[GameRecord], entries: Mapping[str, Entry]
) -> tuple[list[tuple[GameRecord, Matchup]], RatingState]:
    """The games ``algorithm`` rates, each with its matchup as the lab predicts it:
    both players' value at the end of the month before the game's own (the initial
    value for a player with no game before that), their entry rank; and the final
    state (the whole table, rated). The site reads the same values from the stored
    month-end snapshots instead of rating every month again (``ratings.lab.services``).
    """
    ordered = sorted(records, key=lambda record: record.order_key)
    state = algorithm.new_state(entries)
    games: list[tuple[GameRecord, Matchup]] = []
    month = None
    for record in ordered:
        if (record.date.year, record.date.month) != month:
            if month is not None:
                algorithm.finish(state)  # the values as of the month before
            month = (record.date.year, record.date.month)
        if record.is_adjustment:
            continue
        if record.winner is not None and not algorithm.skip_reason(record):
            # count() leaves values alone: these are the last finish's
            white, black = state.player(record.white), state.player(record.black)
            matchup = predicted_matchup(
                record, Side(white.rank, float(white.value)), Side(black.rank, float(black.value))
            )
            games.append((record, matchup))
        algorithm.count(state, record)
    algorithm.finish(state)
    return games, state
