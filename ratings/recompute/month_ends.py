"""The month-end standings of an algorithm's history (``MonthEnd``, ``MonthEndStanding``):
each player's row of the highest position dated on or before a month end, so that the
list as of a day reads the standings of the stored month end before it and the history
rows after them (``players.selectors.ratings``), not one index step per player (10,000
players: about 90 ms of the server's CPU for a day in the middle of a million games).

A month end is stored only when at least as many history rows as it has players came
since the one stored before it (:func:`due`): the standings stored are never more than
the history rows, whatever the months between them (a tournament file dated 1901 used
to copy its 200 players' standings into each of 1,500 month ends, 1.8 million rows), and
a list as of a day reads one month end's standings and fewer rows again than it has
players, plus a month's. A club whose rows of a month outnumber its players (any busy
one) has every month end stored, as before.

The recompute calls :func:`rewrite` in the transaction that writes the history rows,
once they are written: the month ends from the first date it rewrote are dropped and
built again from the last one kept, from its standings and the history rows after it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import date, timedelta

from django.db import connection

from ratings.engine.base import Algorithm
from ratings.models import MonthEnd, MonthEndStanding, RatingHistory
from ratings.recompute.bulk import RowWriter
from ratings.selectors import PLAYER_IDS, fetch_for_players

STANDING_COLUMNS = ("algorithm", "month_end", "player_id", "position", "rank", "value", "date")

# History rows fetched at a time while reading them back.
_FETCH = 10_000


def rewrite(algorithm: Algorithm, from_date: date | None, moved: set[int] | None = None) -> int:
    """Make ``algorithm``'s month ends those of its history rows, after a recompute that
    rewrote the rows dated ``from_date`` or later (every row when None): the month ends
    before it stay (no row dated on or before them changed), the others are built
    again. Returns the month ends written.

    Built again from ``from_date``, a month end's standings are written only where
    they changed: a game back-dated into last month changes the standings of the
    players who played since (their rows moved), not those of the thousands of others,
    whose rows stay. ``moved``: the ids of every player who may have a history row
    the recompute replaced or wrote (None: any player); the others' rows all lie
    before the rewritten ones and are those stored, so their standings at a month end
    stored before are the stored ones, neither read nor compared."""
    name = algorithm.name
    if from_date is not None and moved is not None:
        written = _rewrite_moved(algorithm, from_date, moved)
        if written is not None:
            return written
    stale_ends = MonthEnd.objects.filter(algorithm=name)
    if from_date is None:
        MonthEndStanding.objects.filter(algorithm=name).delete()
        changed = None
    else:
        stale_ends = stale_ends.filter(date__gte=from_date)
        changed = _ChangedStandings(
            _stored_standings(name, from_date, moved),
            set(stale_ends.values_list("date", flat=True)) if moved is not None else set(),
            moved,
        )
    stale_ends.delete()
    kept = MonthEnd.objects.filter(algorithm=name).order_by("-date").first()
    build = _MonthEnds(name, kept)
    if kept is None or _may_be_due(name, kept):
        if changed is None:
            with RowWriter(MonthEndStanding, STANDING_COLUMNS) as standings:
                build.add_all(_rows_after(algorithm, kept), standings)
        else:
            build.add_all(_rows_after(algorithm, kept), changed)
    if changed is not None:
        changed.write(name, {end for end, _ in build.emitted})
    _store(build.month_ends())
    return len(build.emitted)


def _rewrite_moved(algorithm: Algorithm, from_date: date, moved: set[int]) -> int | None:
    """:func:`rewrite` from ``from_date`` reading only the ``moved`` players' standings
    and rows, when no month end that was not stored from ``from_date`` on is due now:
    the others' standings at those stored are the stored ones (their rows did not
    change), and a month end no longer due loses all of its. A game back-dated into
    last month, after a month end kept two years back, then reads the moved players'
    standings at the month ends from it on (one query each, the database picking their
    last rows out of an index), not the kept month end's thousands of standings and
    every row since.

    Which month ends are due, and their bounds, come from per-day counts of the rows
    after the kept one (:meth:`_MonthEnds.count_days`), with the players rated by each
    month end stored: its standings stored, the moved players' come or gone added.
    None: none was stored from ``from_date`` on, or none is kept before it, or a month
    end not stored may be due (it needs everyone's standings): :func:`rewrite` builds
    them from the rows."""
    name = algorithm.name
    ends = _month_ends_from(name, from_date)
    if len(ends) < 2 or ends[0][0].date >= from_date:
        return None
    (kept, kept_players), *stored_ends = ends
    # The moved players' standings at the month end kept and at those from from_date
    # on (none is stored between).
    stored = _stored_standings(name, kept.date, moved, ends=[end.date for end, _ in ends])
    kept_standings = {
        player: stored.pop((end, player)) for end, player in list(stored) if end == kept.date
    }
    standings_at: dict[date, dict[int, tuple]] = {}
    players_at: dict[date, int] = {}
    for stored_end, players in stored_ends:
        on = stored_end.date
        standings = standings_at[on] = dict(kept_standings)
        for player, standing in _last_rows(name, kept.first_later, on, moved):
            known = standings.get(player)
            if known is None or standing[0] > known[0]:
                standings[player] = standing
        # The others' standings are those stored: only the moved players' may come or go.
        gone = sum(1 for (end, player) in stored if end == on and player not in standings)
        come = sum(1 for player in standings if (on, player) not in stored)
        players_at[on] = players - gone + come
    build = _MonthEnds(name, kept)
    if not build.count_days(_days_after(name, kept), kept_players, players_at, from_date):
        return None
    changed = _ChangedStandings(stored, set(players_at), moved)
    for end, _ in build.emitted:
        for player, (position, rank, value, day) in standings_at[end].items():
            changed.add((name, end, player, position, rank, value, day))
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {connection.ops.quote_name(MonthEnd._meta.db_table)} "
            "WHERE algorithm = %s AND date >= %s",
            [name, connection.ops.adapt_datefield_value(from_date)],
        )
    changed.write(name, {end for end, _ in build.emitted})
    _store(build.month_ends())
    return len(build.emitted)


# The month ends' and standings' statements of a back-dated entry are written as SQL
# (or through RowWriter): built by the ORM, the month ends' delete and insert and the
# moved players' standings' delete cost SAGC's entry on the realtail bench's site about
# 0.4 ms of CPU more.


def _store(month_ends: list[MonthEnd]) -> None:
    """Insert ``month_ends``."""
    with RowWriter(MonthEnd, ("algorithm", "date", "first_later", "last_on_or_before")) as out:
        out.extend(
            (end.algorithm, end.date, end.first_later, end.last_on_or_before) for end in month_ends
        )


def _month_ends_from(name: str, from_date: date) -> list[tuple[MonthEnd, int]]:
    """The month ends stored from the last one before ``from_date`` on, in date order,
    each with its standings' count."""
    table = MonthEnd._meta.db_table
    standing_table = MonthEndStanding._meta.db_table
    day = connection.ops.adapt_datefield_value(from_date)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT date, first_later, last_on_or_before, "
            f"(SELECT COUNT(*) FROM {standing_table} standing "
            "WHERE standing.algorithm = ends.algorithm AND standing.month_end = ends.date) "
            f"FROM {table} ends WHERE algorithm = %s AND date >= COALESCE("
            f"(SELECT MAX(date) FROM {table} WHERE algorithm = %s AND date < %s), %s) "
            "ORDER BY date",
            [name, name, day, day],
        )
        return [
            (
                MonthEnd(
                    algorithm=name,
                    date=_as_date(end),
                    first_later=first_later,
                    last_on_or_before=last_on_or_before,
                ),
                players,
            )
            for end, first_later, last_on_or_before, players in cursor.fetchall()
        ]


def _days_after(name: str, kept: MonthEnd) -> list[tuple[date, int, int, int]]:
    """The history rows read from ``kept``'s ``first_later`` on, per day: (date, rows,
    lowest and highest position), in date order."""
    table = RatingHistory._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT date, COUNT(*), MIN(position), MAX(position) FROM {table} "
            "WHERE algorithm = %s AND position >= %s GROUP BY date ORDER BY date",
            [name, kept.first_later],
        )
        return [(_as_date(day), rows, low, high) for day, rows, low, high in cursor.fetchall()]


def _last_rows(
    name: str, first_later: int, end: date, players: set[int]
) -> list[tuple[int, tuple[int, int, float, date]]]:
    """Of ``players``, each one's history row of the highest position from
    ``first_later`` on dated on or before ``end``, as a standing: (player id,
    (position, rank code, value, date))."""
    table = RatingHistory._meta.db_table
    found = fetch_for_players(
        "SELECT player_id, position, rank_after, value_after, date "
        f"FROM {table} WHERE algorithm = %s AND position IN ("
        f"SELECT MAX(position) FROM {table} WHERE algorithm = %s AND {{players}} "
        "AND position >= %s AND date <= %s GROUP BY player_id)",
        [name, name, PLAYER_IDS, first_later, connection.ops.adapt_datefield_value(end)],
        players,
    )
    return [
        (player, (position, rank, value, _as_date(row_day)))
        for player, position, rank, value, row_day in found
    ]


class _ChangedStandings:
    """The standings of month ends built again, against those stored (by month end and
    player): :meth:`add` keeps only the new or changed ones, and :meth:`write` deletes
    the stored ones no longer right (changed, or of a month end not built again) and
    writes those kept.

    With ``moved`` (player ids), ``stored`` holds only their standings, and at a month
    end of ``stored_ends`` (those stored before) only theirs are given (:meth:`given`):
    the others' are the ones stored."""

    def __init__(
        self,
        stored: dict[tuple[date, int], tuple],
        stored_ends: set[date],
        moved: set[int] | None,
    ) -> None:
        self.stored = stored
        self.stored_ends = stored_ends
        self.moved = moved
        self.rows: list[tuple] = []
        self.replaced: list[tuple[date, int]] = []

    def given(self, end: date, players: Iterable[int]) -> Iterable[int]:
        """The players of ``players`` whose standing at ``end`` may have changed."""
        moved = self.moved
        if moved is None or end not in self.stored_ends:
            return players
        return [player for player in players if player in moved]

    def add(self, row: tuple) -> None:
        _name, end, player, position, rank, value, day = row
        old = self.stored.pop((end, player), None)
        if old == (position, rank, value, day):
            return
        if old is not None:
            self.replaced.append((end, player))
        self.rows.append(row)

    def write(self, name: str, built: set[date]) -> None:
        """Write the standings kept; ``built``: the month ends built again (a month end
        stored before and not built again loses all its standings)."""
        stale: dict[date, list[int]] = defaultdict(list)
        for end, player in [*self.stored, *self.replaced]:
            stale[end].append(player)
        gone = self.stored_ends - built
        if gone:
            MonthEndStanding.objects.filter(algorithm=name, month_end__in=sorted(gone)).delete()
        table = MonthEndStanding._meta.db_table
        for end, players in stale.items():
            if end in gone:
                continue
            fetch_for_players(
                f"DELETE FROM {table} WHERE algorithm = %s AND month_end = %s AND {{players}}",
                [name, connection.ops.adapt_datefield_value(end), PLAYER_IDS],
                players,
            )
        with RowWriter(MonthEndStanding, STANDING_COLUMNS) as out:
            for row in self.rows:
                out.add(row)


# Where the standings go: straight in, or compared with those stored.
_Out = RowWriter | _ChangedStandings


def _stored_standings(
    name: str,
    from_date: date,
    players: set[int] | None = None,
    until: date | None = None,
    *,
    ends: Sequence[date] | None = None,
) -> dict[tuple[date, int], tuple]:
    """The standings stored of the month ends from ``from_date`` on (to ``until``, when
    given; of ``players`` only, when given), by month end and player: (position, rank
    code, value, date), as :class:`_MonthEnds` makes them. ``ends``: those month ends'
    dates, when the caller has read them."""
    table = MonthEndStanding._meta.db_table
    adapt = connection.ops.adapt_datefield_value
    if ends is None:
        month_ends = "month_end >= %s AND month_end <= %s"
        dates = [adapt(from_date), adapt(until or date.max)]
    else:
        # Named, the month ends and players are looked up a pair at a time down the
        # unique index; as a range, every standing of each month end is read and
        # tested against the players (two month ends of 2,200 players for the 111
        # moved players of a game back-dated on the realtail bench's site: 1.1 ms of
        # CPU rather than 0.8).
        month_ends = f"month_end IN ({', '.join(['%s'] * len(ends))})"
        dates = [adapt(end) for end in ends]
    found = fetch_for_players(
        f"SELECT month_end, player_id, position, rank, value, date FROM {table} "
        f"WHERE algorithm = %s AND {month_ends} AND {{players}}",
        [name, *dates, PLAYER_IDS],
        players,
    )
    return {
        (_as_date(end), player): (position, rank, value, _as_date(day))
        for end, player, position, rank, value, day in found
    }


class _MonthEnds:
    """The month ends built from the history rows read in date order (those dated on or
    before the month end kept, if any, first): each month end's standings are written
    when the first row dated after it comes, every row dated on or before it being in
    by then."""

    def __init__(self, name: str, kept: MonthEnd | None) -> None:
        self.name = name
        self.kept_until = kept.date if kept is not None else None
        # The standings so far: player id -> (position, rank code, value, date); those of
        # the month end kept are read once rows come (:meth:`add_all`): a game entered
        # near the end of the history often brings none to build from.
        self.newest: dict[int, tuple[int, int, float, date]] = {}
        self.newest_read = kept is None
        # The rows dated after the last month end stored, on or before the open one.
        self.rows_since = 0
        self.peak = kept.last_on_or_before if kept is not None else -1
        # The month end of the rows coming in (the kept one's until a later row comes).
        self.open_end: date | None = self.kept_until
        self.last_day = date.min  # the rows come in date order (checked)
        # The month ends written, with the highest position dated on or before each.
        self.emitted: list[tuple[date, int]] = []
        # The lowest position of the rows of each month (by its month end).
        self.lowest: dict[date, int] = {}

    def add_all(self, rows: Iterable[tuple[int, int, date, int, float]], out: _Out) -> None:
        if not self.newest_read:
            assert self.kept_until is not None
            self.newest = _standings(self.name, self.kept_until)
            self.newest_read = True
        for position, player, day, rank, value in rows:
            self.add(position, player, day, rank, value, out)

    def add(
        self, position: int, player: int, day: date, rank: int, value: float, out: _Out
    ) -> None:
        if day < self.last_day:
            raise RuntimeError(f"{self.name}: history rows out of date order at {position}")
        self.last_day = day
        if self.open_end is None or day > self.open_end:
            if self.open_end is not None:
                self._close_open_end(out)
            self.open_end = _month_end(day)
        if self.kept_until is None or day > self.kept_until:
            self.rows_since += 1
        newest = self.newest.get(player)
        if newest is None or position > newest[0]:
            self.newest[player] = (position, rank, value, day)
        if position > self.peak:
            self.peak = position
        lowest = self.lowest.get(self.open_end)
        if lowest is None or position < lowest:
            self.lowest[self.open_end] = position

    def _close_open_end(self, out: _Out) -> None:
        """Once a row dated after the open month end comes: write its standings if it
        is due. The months between have no rows, so none of them is."""
        assert self.open_end is not None
        end = self.open_end
        if self._open_end_due(len(self.newest)):
            add, newest = out.add, self.newest
            players = out.given(end, newest) if isinstance(out, _ChangedStandings) else newest
            for player in players:
                position, rank, value, row_day = newest[player]
                add((self.name, end, player, position, rank, value, row_day))
            self._emit()

    def _open_end_due(self, players: int) -> bool:
        end = self.open_end
        assert end is not None
        return (self.kept_until is None or end > self.kept_until) and due(self.rows_since, players)

    def _emit(self) -> None:
        assert self.open_end is not None
        self.emitted.append((self.open_end, self.peak))
        self.rows_since = 0

    def count_days(
        self,
        days: Iterable[tuple[date, int, int, int]],
        players: int,
        players_at: dict[date, int],
        from_date: date,
    ) -> bool:
        """Find the month ends due and their bounds (``emitted``, :meth:`month_ends`) as
        :meth:`add` does, without standings, from the rows' counts per day (date, rows,
        lowest and highest position) in date order: ``players`` the standings of the
        month end kept, ``players_at`` the players rated by each month end stored from
        ``from_date`` on. The month ends before ``from_date`` are as stored (none of
        their rows changed), none due; False: one from it on that was not stored may be
        due, its rows as many as the players rated before it."""
        for day, rows, low, high in days:
            if day < self.last_day:
                raise RuntimeError(f"{self.name}: history days out of order at {day}")
            self.last_day = day
            if self.open_end is None or day > self.open_end:
                end = self.open_end
                if end is not None and end >= from_date:
                    if end in players_at:
                        players = players_at[end]  # more only later: a bound below
                        if self._open_end_due(players):
                            self._emit()
                    elif due(self.rows_since, players):
                        return False
                self.open_end = _month_end(day)
            if self.kept_until is None or day > self.kept_until:
                self.rows_since += rows
            if high > self.peak:
                self.peak = high
            lowest = self.lowest.get(self.open_end)
            if lowest is None or low < lowest:
                self.lowest[self.open_end] = low
        return True

    def month_ends(self) -> list[MonthEnd]:
        """The bounds of the month ends written: the lowest position of the rows of the
        months after each (every row read is dated after the month end kept)."""
        later: int | None = None
        lowest_after: dict[date, int] = {}
        months = sorted(self.lowest, reverse=True)
        ends = sorted((end for end, _ in self.emitted), reverse=True)
        index = 0
        for end in ends:
            while index < len(months) and months[index] > end:
                month_lowest = self.lowest[months[index]]
                later = month_lowest if later is None else min(later, month_lowest)
                index += 1
            assert later is not None  # a month end is written when a later row comes
            lowest_after[end] = later
        return [
            MonthEnd(
                algorithm=self.name,
                date=end,
                first_later=lowest_after[end],
                last_on_or_before=peak,
            )
            for end, peak in self.emitted
        ]


def _may_be_due(name: str, kept: MonthEnd) -> bool:
    """Whether a month end after ``kept`` may be due: not while the history rows after
    it (read from its ``first_later`` on) are fewer than its standings, which a month
    end after it needs at least as many rows as (:func:`due`). A game entered near the
    end of the history then reads neither those standings nor the rows again."""
    rows_after = RatingHistory.objects.filter(
        algorithm=name, position__gte=kept.first_later
    ).count()
    return (
        rows_after >= MonthEndStanding.objects.filter(algorithm=name, month_end=kept.date).count()
    )


def due(rows_since: int, players: int) -> bool:
    """Whether a month end is stored: ``rows_since`` history rows dated after the month
    end stored before it (the first row's, when none) and on or before it, ``players``
    the players rated by then (its standings)."""
    return rows_since > 0 and rows_since >= players


def _month_end(day: date) -> date:
    following = date(day.year + (day.month == 12), day.month % 12 + 1, 1)
    return following - timedelta(days=1)


def _standings(name: str, month_end: date) -> dict[int, tuple[int, int, float, date]]:
    """The standings stored at ``month_end``, by player."""
    stored = _stored_standings(name, month_end, until=month_end)
    return {player: standing for (_, player), standing in stored.items()}


def _rows_after(algorithm: Algorithm, kept: MonthEnd | None):
    """(position, player id, date, rank code, value) of the history rows that may be
    dated after ``kept`` (all when None), in date order: for the algorithms that replay
    by date first position order is date order (read down the unique index); EGF and
    the French ladder, which rate a tournament as one unit at its first game's place,
    sorted by date, then position."""
    order = "date, position" if algorithm.rates_tournaments_as_blocks else "position"
    table = RatingHistory._meta.db_table
    start = kept.first_later if kept is not None else 0
    # A server-side cursor on PostgreSQL: a full recompute reads two million rows back.
    with connection.chunked_cursor() as cursor:
        cursor.execute(
            f"SELECT position, player_id, date, rank_after, value_after FROM {table} "
            f"WHERE algorithm = %s AND position >= %s ORDER BY {order}",
            [algorithm.name, start],
        )
        while rows := cursor.fetchmany(_FETCH):
            if rows and isinstance(rows[0][2], str):  # SQLite gives dates as text
                rows = [
                    (position, player, date.fromisoformat(day), rank, value)
                    for position, player, day, rank, value in rows
                ]
            yield from rows


def _as_date(value: date | str) -> date:
    return date.fromisoformat(value) if isinstance(value, str) else value
