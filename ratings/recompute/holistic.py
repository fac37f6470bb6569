"""The recompute of a holistic algorithm (``ratings.engine.holistic``; GCR): no per-game
history, the current standings from all games and month-end snapshots
(``RatingSnapshot``) for the chart, the list as of a day, the API and the lab.

``run._rewrite`` hands an algorithm that keeps no history here; nothing in this module
knows which holistic algorithm it rates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from django.db import connection
from django.db.models import Max, QuerySet

from players.fields import rank_to_code
from ratings.engine.base import Algorithm, Number, RatingState, no_cycle_collection
from ratings.engine.holistic import Holistic, count_record, rated_month_ends
from ratings.engine.ranks import Rank
from ratings.engine.records import Entry, GameRecord
from ratings.models import HolisticTable, RatingSnapshot, RecomputeState
from ratings.recompute import staging
from ratings.recompute.current import replace_current
from ratings.selectors import (
    ReplayKey,
    count_holistic_table,
    last_replay_date,
    player_entries_and_ids,
    replay_records,
)

# The tables kept (``HolisticTable``): those of the month ends of the four months before
# the last month that have games. An entry in the last month resumes from the latest; a
# game back-dated into one of the months before it, from the latest before that month
# (a club with games every month keeps four tables, however long its history). A full
# recompute writes them all; another pass only the latest (:func:`_written`), and the
# others as each month end becomes the latest.
_TABLES_KEPT = 4
_DAY = timedelta(days=1)
# A kept table is whole, or only the games after another kept table: ``{"after": that
# table's day, "games": the table of those games}``. A pass that read the table of a
# month end writes the next one it keeps so, rather than whole, while those games have
# fewer than a ``_SHARE_AFTER``-th of the players of the whole (a game back-dated into
# a real site's January: 380 games, a few hundred players of 2,217; encoding the whole
# table cost 9 ms, a twentieth of the entry). Reading it back reads both tables.
_AFTER = "after"
_SHARE_AFTER = 4


@dataclass(frozen=True, slots=True)
class _Read:
    """A kept table a pass resumed from, read whole at ``base`` and with ``since`` (the
    table of the games after ``base``; None: read whole, ``base`` being its own day)."""

    base: date
    since: Any = None


def rewrite(algorithm: Holistic, start: date | None) -> int:
    """The standings from all games, and month-end snapshots for the chart, from one
    pass over the games (``holistic.rated_month_ends``); the snapshot rows written.

    From a dirty date (``start``), the snapshots of the months before its month stay
    (the games up to their month ends did not change), and so does the table up to the
    last of them: it is read from the latest table kept on or before that month end
    (``HolisticTable``), the database counting the games after it
    (``count_holistic_table``), and only the games after that month end are read and
    only the months from the dirty one on are rated (:func:`_resume`)."""
    name = algorithm.name
    entries, ids = player_entries_and_ids()
    state = algorithm.new_state(entries)  # no records: nobody is rated
    rate_from, first_unread, read = _resume(algorithm, start, state, ids)
    key = None if first_unread is None else ReplayKey(first_unread, 0, 0)
    records = list(replay_records(name, key)[0])
    if rate_from is not None and records:
        # The month that was the last one had no snapshot: if the history now goes on
        # past it, it needs one, so the rating starts at the first month read.
        rate_from = min(rate_from, records[0].date.replace(day=1))
    stale = RatingSnapshot.objects.filter(algorithm=name)
    if rate_from is not None:
        stale = stale.filter(date__gte=rate_from)
    writes = staging.current()
    snapshot_days = _month_ends(records)
    # The last month end before the last month: the table an entry there resumes from.
    last_kept = snapshot_days[-1] if snapshot_days else None
    if last_kept is None and first_unread is not None:
        last_kept = first_unread - _DAY  # the month end the pass resumed from
    after = _games_after(algorithm, read, state, records, last_kept, entries, ids)
    dropped = _tables_to_drop(name, rate_from, last_kept, None if after is None else after.base)
    counted = None
    if first_unread is not None and read is None and _kept(first_unread - _DAY, last_kept):
        # The database counted the table the pass resumed from (none was kept there: a
        # site from before the tables, or one the algorithm could not read): kept, the
        # next entries read it rather than counting it again.
        counted = _table_row(algorithm, state, first_unread - _DAY, ids)
        if counted is not None:
            dropped.append(counted.date)
    writes.later(lambda: HolisticTable.objects.filter(algorithm=name, date__in=dropped).delete())
    rated = rated_month_ends(algorithm, records, entries, rate_from=rate_from, state=state)

    def table_row(day: date, rated: RatingState) -> HolisticTable | None:
        if not _written(day, last_kept, every=first_unread is None):
            return None
        if after is not None and day == last_kept:
            table = {_AFTER: after.base.isoformat(), "games": after.since}
            return HolisticTable(algorithm=name, date=day, table=table)
        return _table_row(algorithm, rated, day, ids)

    # ``state`` is the table rated_month_ends fills and rates.
    written = _write_snapshots(
        algorithm,
        rated,
        set(snapshot_days),
        ids,
        table_row,
        [] if counted is None else [counted],
        stale,
        in_place=rate_from is not None,
    )
    # Staged, it stages the current ratings now (the database compares them when the
    # writes are applied); straight in, it writes them now.
    replace_current(name, state, ids)
    # The lab's own figures of the table just rated (the lab runs after this commits).
    figures = algorithm.lab_figures(state) if records or first_unread is not None else None
    states = RecomputeState.objects.filter(algorithm=name)
    writes.later(lambda: states.update(holistic_figures=figures))
    return written


def _kept(day: date, last_kept: date | None) -> bool:
    """Whether the table of the month end ``day`` is kept, ``last_kept`` being the last
    month end before the last month (None: no table is kept)."""
    if last_kept is None or day > last_kept:
        return False
    months_before = (last_kept.year - day.year) * 12 + last_kept.month - day.month
    return months_before < _TABLES_KEPT


def _written(day: date, last_kept: date | None, *, every: bool) -> bool:
    """Whether the pass writes the table of the month end ``day``: one that reads every
    game (``every``) writes every table :func:`_kept`, another only that of
    ``last_kept``, which the next entry in the last month reads (encoding a table costs
    a third of rating it; a game back-dated further counts a few more months)."""
    return _kept(day, last_kept) if every else day == last_kept


def _tables_to_drop(
    name: str, rate_from: date | None, last_kept: date | None, base: date | None
) -> list[date]:
    """The days of the kept tables of ``name`` that go: those from ``rate_from`` on (the
    pass writes them again; every game after the dirty date may have changed: all of
    them when None), and those no longer :func:`_kept` unless a table that stays, or
    the one the pass writes after ``base``, holds only the games after them."""
    tables = HolisticTable.objects.filter(algorithm=name)
    days = list(tables.values_list("date", flat=True))
    rewritten = {day for day in days if rate_from is None or day >= rate_from}
    aged = {day for day in days if day not in rewritten and not _kept(day, last_kept)}
    if aged:
        # Which tables the others hold the games after (only now: reading it parses the
        # whole of every table on SQLite, 1 ms a table of 2,217 players).
        staying = [day for day in days if day not in rewritten and day not in aged]
        bases = {
            str(after)
            for after in tables.filter(date__in=staying).values_list(f"table__{_AFTER}", flat=True)
            if after is not None
        }
        if base is not None:
            bases.add(base.isoformat())
        aged = {day for day in aged if day.isoformat() not in bases}
    return sorted(rewritten | aged)


def _games_after(
    algorithm: Holistic,
    read: _Read | None,
    state: RatingState,
    records: Sequence[GameRecord],
    last_kept: date | None,
    entries: Mapping[str, Entry],
    ids: dict[str, int],
) -> _Read | None:
    """The table of ``last_kept`` as the games after the whole table the pass read
    (``read``; ``state`` filled with the table up to its day, ``records`` the games
    after it): ``since`` the table of those up to ``last_kept``. None: the pass writes
    no table there, or writes it whole (it read none, or those games are not few)."""
    if read is None or last_kept is None or not records or records[0].date > last_kept:
        return None
    games = algorithm.new_state(entries)
    if read.since is not None:
        usernames = {player_id: username for username, player_id in ids.items()}
        if not algorithm.load_table(games, read.since, usernames):
            return None
    name = algorithm.name
    for record in records:
        if record.date > last_kept:
            break
        count_record(algorithm, games, record, name)
    if len(games.players) * _SHARE_AFTER > len(state.players):
        return None
    since = algorithm.table_data(games, ids)
    return None if since is None else _Read(read.base, since)


def _resume(
    algorithm: Holistic, start: date | None, state: RatingState, ids: dict[str, int]
) -> tuple[date | None, date | None, _Read | None]:
    """Where the pass of ``algorithm`` from the dirty date ``start`` rates from (the
    first day of a month; None: every month) and reads from (None: every game), the
    table of the games before the latter filled into ``state`` (:func:`_fill_table`),
    and the table kept at the day before the latter, if one was read.

    The month that is now the last one gets no snapshot (its standings are the current
    ones), so the rating starts at the last month when the history now ends before the
    dirty month, and at the month that was the last when the history now goes on past
    it (the first month read: :func:`rewrite`). An entry in the last month rates that
    month; the first entry of a new month, two months."""
    name = algorithm.name
    last = last_replay_date(name) if start is not None else None
    if start is None or last is None:
        return None, None, None
    rate_from = min(start, last).replace(day=1)
    kept_until = RatingSnapshot.objects.filter(algorithm=name, date__lt=rate_from).aggregate(
        last=Max("date")
    )["last"]
    if kept_until is None:
        return rate_from, None, None
    read = _fill_table(algorithm, state, kept_until, ids)
    return rate_from, kept_until + _DAY, read


def _fill_table(
    algorithm: Holistic, state: RatingState, until: date, ids: dict[str, int]
) -> _Read | None:
    """Fill the new ``state`` with the table of the valid games up to ``until``: the
    latest table kept on or before that day (every game up to it is as it was then: the
    tables from a dirty date on go with the recompute from it), and the games after it
    counted by the database; all of them counted when no kept table serves. The table
    of ``until`` itself, if it was read (the database counted nothing)."""
    usernames = {player_id: username for username, player_id in ids.items()}
    tables = HolisticTable.objects.filter(algorithm=algorithm.name)
    kept = tables.filter(date__lte=until).order_by("-date").values_list("date", "table").first()
    read = None if kept is None else _read_table(algorithm, state, kept[1], kept[0], usernames)
    if read is not None and kept is not None and kept[0] == until:
        return read
    counted_to = None if read is None or kept is None else kept[0]
    count_holistic_table(state, before=until + _DAY, after=counted_to, usernames=usernames)
    return None


def _read_table(
    algorithm: Holistic, state: RatingState, table: Any, day: date, usernames: dict[int, str]
) -> _Read | None:
    """Fill the new ``state`` with the kept ``table`` of ``day``, read from the whole
    table it adds its games to if it holds only those (``_AFTER``); None (``state`` left
    empty): the algorithm cannot read it, or that table is not kept whole."""
    if not (isinstance(table, dict) and _AFTER in table):
        return _Read(day) if algorithm.load_table(state, table, usernames) else None
    try:
        base = date.fromisoformat(table[_AFTER])
    except (TypeError, ValueError):
        return None
    whole = (
        HolisticTable.objects.filter(algorithm=algorithm.name, date=base)
        .values_list("table", flat=True)
        .first()
    )
    since = table.get("games")
    if (
        whole is None
        or (isinstance(whole, dict) and _AFTER in whole)
        or not algorithm.load_table(state, whole, usernames)
    ):
        return None
    if not algorithm.merge_table(state, since, usernames):
        state.players = {}
        return None
    return _Read(base, since)


def _table_row(
    algorithm: Holistic, state: RatingState, day: date, ids: dict[str, int]
) -> HolisticTable | None:
    """The row keeping the table of ``state`` as the table of the month end ``day``
    (None: the algorithm keeps none)."""
    table = algorithm.table_data(state, ids)
    return None if table is None else HolisticTable(algorithm=algorithm.name, date=day, table=table)


def _write_snapshots(
    algorithm: Holistic,
    rated: Iterable[tuple[date, RatingState]],
    wanted: set[date],
    ids: dict[str, int],
    table_row: Callable[[date, RatingState], HolisticTable | None],
    tables: list[HolisticTable],
    stale: QuerySet[RatingSnapshot],
    *,
    in_place: bool,
) -> int:
    """Write the snapshot of every month end of ``rated`` that is ``wanted`` in place of
    the ``stale`` ones, and with ``tables`` the table each has in ``table_row`` (None:
    none kept); the snapshot rows written.

    ``in_place``: the snapshots of a month end rewritten replace its stale ones in place
    (``staging.Writes.rows_replacing``: from a dirty date most players stay and only
    their values change); a full recompute deletes them all and writes them again."""
    name = algorithm.name
    columns = ("algorithm", "player_id", "date", "rank", "value", "games")
    writes = staging.current()
    key = ("algorithm", "player_id", "date")
    if in_place:
        writer = writes.rows_replacing(stale, columns, key=key, adapted=True)
    else:
        writes.later(stale.delete)
        writer = writes.rows(RatingSnapshot, columns, adapted=True)
    # A month's rating may make a tuple per pair (GCR); with the cycle collector off,
    # the records and the table are not walked again at every month end.
    with writer as snapshots, no_cycle_collection():
        for month_end, state in rated:
            if month_end not in wanted:
                continue
            row = table_row(month_end, state)
            if row is not None:
                tables.append(row)
            day = connection.ops.adapt_datefield_value(month_end)  # once, not per row
            snapshots.extend(
                (name, ids[player], day, rank_to_code(rank), float(value), games)
                for player, rank, value, games in _standings(algorithm, state)
                if games
            )
    if tables:
        staging.current().later(lambda: HolisticTable.objects.bulk_create(tables))
    return snapshots.written


def _standings(algorithm: Holistic, state: RatingState) -> Iterator[tuple[str, Rank, Number, int]]:
    """The standings of ``state`` as ``(player, rank, value, games)``, in no order: a
    snapshot's rows need none, and ``Algorithm.standings`` makes and sorts a row per
    player (2 ms a month end of 2,217 players). An algorithm whose standings are not its
    players' own rank, value and games (it overrides ``standings``) gives those."""
    if type(algorithm).standings is not Algorithm.standings:
        for standing in algorithm.standings(state):
            yield standing.player, standing.rank, standing.value, standing.games
        return
    for player, kept in state.players.items():
        yield player, kept.rank, kept.value, kept.games


def _month_ends(records: Sequence[GameRecord]) -> list[date]:
    """The last day of every month that has games, before the month of the last game."""
    months = sorted({(record.date.year, record.date.month) for record in records})
    ends = []
    for year, month in months[:-1]:
        next_month = date(year + (month == 12), month % 12 + 1, 1)
        ends.append(next_month - timedelta(days=1))
    return ends
