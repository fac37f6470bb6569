"""The replay of an algorithm that keeps a per-game history: from the last checkpoint
at or before the dirty place in the replay order, rating unit by unit, the history
rows and checkpoints it gives written as they come (``staging``), then the month ends,
the current ratings and the thinning of the checkpoints.

The runner (``ratings.recompute.run``) calls :func:`rewrite` inside its transaction
(or, staged on SQLite, its read transaction); a holistic algorithm goes to
``ratings.recompute.holistic`` instead."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.conf import settings
from django.db import connection

from players.fields import rank_to_code
from players.models import Adjustment, Game, Player
from ratings.engine.base import Algorithm, HistoryRow, RatingState, units
from ratings.engine.records import Entry, GameRecord
from ratings.models import Checkpoint, HistoryRewrite, RatingHistory
from ratings.recompute import checkpoints, month_ends, progress, staging
from ratings.recompute.checkpoints import StateJson, StoredState, just_after
from ratings.recompute.current import replace_current
from ratings.selectors import (
    ReplayKey,
    SourceIds,
    player_entries,
    player_ids,
    replay_count,
    replay_records,
)

# History rows held at most before they are sent (a chunk of games makes about twice
# its number; a long tournament block more).
_HISTORY_BUFFER = 100_000


# Staged (SQLite), the history rows and checkpoints of a short replay (a back-dated
# entry's) are held in memory and written once, in the write transaction; a longer
# one's go through a temporary table as they come (``staging.Writes.rows``). A
# checkpoint holds every player's state (half a megabyte for 2,000 players).
_HISTORY_HELD = 20_000
_CHECKPOINTS_HELD = 2


_PROGRESS_EVERY = 2000  # units between progress reports


_MIN_CHUNK = 1000


_MAX_CHUNK = 10_000


# History columns in the order _history_values gives them.
HISTORY_COLUMNS = (
    "algorithm",
    "position",
    "player_id",
    "opponent_id",
    "game_id",
    "adjustment_id",
    "date",
    "colour",
    "opponent_rank",
    "rank_before",
    "rank_after",
    "value_before",
    "change",
    "value_after",
    "factors",
    "skipped",
)


def rewrite(algorithm: Algorithm, start_key: ReplayKey | None) -> tuple[int, int]:
    """Replay ``algorithm`` from ``start_key`` (None: from the start) and write what it
    rates: from the last checkpoint at or before that place in the replay order. The
    rows replayed, and of those the rows written again (from ``start_key`` on)."""
    name = algorithm.name
    writes = staging.current()
    resumed = _resume(algorithm, start_key, writes)
    # The rows the replay gives from a checkpoint to the first unit at or after the
    # dirty place are the ones stored with it (nothing before that place changed): they
    # are replayed, for the state they lead to, but neither deleted nor written again.
    # The tail from that unit on goes in one statement (the unique index on (algorithm,
    # position) finds it), once the replay reaches it: staged, a step placed before the
    # rows' own; straight in, then (the rows before it are not sent). From the start
    # (no checkpoint before the place) everything is written: the rows before the
    # place may never have been (an algorithm maintained from now on).
    cut = _Cut(name, start_key, resumed.position if resumed.key is None else None)
    if writes.staged:
        writes.later(cut.delete_tail, in_prefix=True)
    # The values of the rows dated from ``start`` on may change: the pages built from
    # them (a tournament's crosstable) are keyed on this record.
    start = None if start_key is None else start_key.date
    writes.later(lambda: _record_rewrite(name, start), in_prefix=True)
    written = _replay_rows(algorithm, resumed, cut, writes)
    end = resumed.position + written
    _after_the_rows(algorithm, resumed, start, end)
    assert cut.at is not None  # set once the replay is over
    return written, end - cut.at


@dataclass(slots=True)
class _Resumed:
    """Where a replay starts: the engine's ``state`` there, the history ``position`` of
    its first row, the ``key`` of its first record (None: the start of the history),
    the checkpoint's state as ``stored`` that it was loaded from (None: a new state),
    and the players' ``ids`` by username.

    Resumed from a checkpoint, the state and ``ids`` hold only the players the replay
    can change (``partial``): those of the records from the checkpoint on, and those
    of the history rows stored from its position on (a game voided since changed
    them). The others' states stay as the checkpoint has them, and so do their current
    ratings: a game after the last, of two players among thousands, neither decodes
    nor compares the others."""

    state: RatingState
    position: int
    key: ReplayKey | None
    stored: StoredState | None
    ids: dict[str, int]
    partial: bool


def _resume(algorithm: Algorithm, start_key: ReplayKey | None, writes: staging.Writes) -> _Resumed:
    """The state at the last checkpoint at or before ``start_key`` (a new one when there
    is none), and the deletion of the checkpoints the replay replaces."""
    name = algorithm.name
    checkpoint = None if start_key is None else checkpoints.nearest(name, start_key)
    stored = None
    if checkpoint is not None:
        key = ReplayKey(checkpoint.date, checkpoint.round, checkpoint.seq)
        ids = _players_after(name, key, checkpoint.position)
        stored = checkpoints.stored_state(checkpoint, ids)
    if checkpoint is None or stored is None:  # (None: its base is gone)
        writes.later(Checkpoint.objects.filter(algorithm=name).delete, in_prefix=True)
        state = algorithm.new_state(player_entries())
        return _Resumed(state, 0, None, None, player_ids(), partial=False)
    # An entry is needed only by a player of the replay the checkpoint does not hold.
    held = stored.pieces.keys() | stored.changed.keys()
    state = algorithm.new_state(_EntriesWhenAsked(ids.keys() - held))
    state.load(stored.data)
    # The checkpoint itself stays valid (nothing before the dirty date changed):
    # dropping it would send the next back-dated entry there further back.
    writes.later(lambda: checkpoints.delete_after(checkpoint), in_prefix=True)
    return _Resumed(state, checkpoint.position, key, stored, ids, partial=True)


def _players_after(name: str, key: ReplayKey, position: int) -> dict[str, int]:
    """The ids by username of the players a replay of ``name`` from the checkpoint at
    ``key`` and ``position`` may change: those of the valid games and adjustments dated
    from its day on (a few more than the records from ``key`` on), and those of the
    history rows stored from ``position`` on (what a game voided or moved since was).
    One query: the database picks them out of its indexes.

    Written as SQL, the valid games and adjustments those not voided (``valid()``):
    built by the ORM, its four subqueries cost a back-dated entry 2 ms of CPU, twice
    the query's."""
    quote = connection.ops.quote_name
    player, game, adjustment, history = (
        quote(model._meta.db_table) for model in (Player, Game, Adjustment, RatingHistory)
    )
    day = connection.ops.adapt_datefield_value(key.date)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT username, id FROM {player} WHERE id IN ("
            f"SELECT white_id FROM {game} WHERE voided_at IS NULL AND date >= %s "
            f"UNION ALL SELECT black_id FROM {game} WHERE voided_at IS NULL AND date >= %s "
            f"UNION ALL SELECT player_id FROM {adjustment} "
            "WHERE voided_at IS NULL AND date >= %s "
            f"UNION ALL SELECT player_id FROM {history} WHERE algorithm = %s AND position >= %s)",
            [day, day, day, name, position],
        )
        return dict(cursor.fetchall())


class _EntriesWhenAsked(Mapping[str, Entry]):
    """The entries of the players ``among`` (``player_entries``), read from the database
    the first time one is asked for: a replay from a checkpoint asks only for players
    new since it (among those it replays), and one after the last game usually for
    none. A player outside them, which no replay asks for, reads every entry."""

    def __init__(self, among: Collection[str]) -> None:
        self._among = among
        self._entries: dict[str, Entry] | None = None
        self._all = False

    def _read(self, username: str | None = None) -> dict[str, Entry]:
        if self._entries is None:
            self._entries = player_entries(self._among)
        if not self._all and (username is None or username not in self._entries):
            self._entries = player_entries()
            self._all = True
        return self._entries

    def __getitem__(self, username: str) -> Entry:
        return self._read(username)[username]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


class _Cut:
    """Where a replay's rewritten rows start: the position of its first unit at or after
    the dirty place ``start_key`` (``at``, None until the replay reaches it)."""

    def __init__(self, algorithm: str, start_key: ReplayKey | None, at: int | None) -> None:
        self.algorithm = algorithm
        self.place = None if start_key is None else (start_key.date, start_key.round, start_key.seq)
        self.at = at
        self.deleted = False

    def reached(self, unit: list[GameRecord], position: int) -> None:
        """Set ``at`` to ``position`` if ``unit``, rated there, is the first at or after
        the dirty place."""
        if self.at is None and unit and self.place is not None and unit[0].order_key >= self.place:
            self.at = position

    def delete_tail(self) -> None:
        assert self.at is not None, "the tail is deleted once its start is known"
        RatingHistory.objects.filter(algorithm=self.algorithm, position__gte=self.at).delete()
        self.deleted = True


class _Out:
    """Where a replay's history rows and checkpoints go, through the current writes.

    On PostgreSQL the rows of each chunk of games (and the checkpoints taken while
    rating it) go in from threads while the next chunk is rated: the server's work
    (parsing, indexing) overlaps the engine's. The connection is shared, so they are
    sent just after a chunk is fetched (:meth:`send`), and the next fetch waits for them
    (:meth:`wait`). A prefix of the replay (``run._recompute_once``) ends at a
    checkpoint: the rows before it and the checkpoints up to it."""

    def __init__(self, writes: staging.Writes) -> None:
        self.history = writes.rows(
            RatingHistory,
            HISTORY_COLUMNS,
            prefix=staging.Prefix("position"),
            hold=_HISTORY_HELD,
            batch=_HISTORY_BUFFER,
            background=True,
        )
        self.checkpoints = writes.rows(
            Checkpoint,
            checkpoints.COLUMNS,
            prefix=staging.Prefix("position", inclusive=True),
            hold=_CHECKPOINTS_HELD,
            batch=_HISTORY_BUFFER,
            background=True,
        )
        self._stack = ExitStack()

    def __enter__(self) -> _Out:
        self._stack.enter_context(self.history)
        self._stack.enter_context(self.checkpoints)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.__exit__(*exc)

    def send(self) -> None:
        self.history.send()
        self.checkpoints.send()

    def wait(self) -> None:
        self.history.wait()
        self.checkpoints.wait()


def _replay_rows(
    algorithm: Algorithm,
    resumed: _Resumed,
    cut: _Cut,
    writes: staging.Writes,
) -> int:
    """Rate the records from ``resumed`` on, writing the checkpoints and, from the cut
    on, the history rows they give (and deleting the stored tail once the cut is
    known); the rows replayed."""
    name = algorithm.name
    position = resumed.position
    ids = resumed.ids
    whole: int | checkpoints.HistorySize
    if resumed.key is None:
        total = whole = replay_count(name)
    else:
        total = replay_count(name, resumed.key)
        # The records before the checkpoint gave its position's rows, at most two each
        # (a game's two players): the history counted only if the spacing needs it.
        whole = checkpoints.HistorySize(total + resumed.position // 2, lambda: replay_count(name))
    written = 0
    factors_json = _JsonTexts()

    def tail_deleted() -> None:
        if cut.at is not None and not cut.deleted and not writes.staged:
            out.wait()  # the connection is the background writers' too
            cut.delete_tail()

    with _Out(writes) as out:
        records, source_ids = replay_records(
            name,
            resumed.key,
            before_fetch=out.wait,
            after_fetch=out.send,
            chunk=_fetch_chunk(total),
        )
        rated = rated_units(
            algorithm,
            resumed.state,
            records,
            total,
            resumed.stored,
            whole,
            rows_from=cut.place if cut.at is None else None,
        )
        for checkpoint, unit, rows in rated:
            cut.reached(unit, position + written)
            tail_deleted()
            if checkpoint is not None:
                key, state_json, base = checkpoint
                out.checkpoints.add(
                    (name, key.date, key.round, key.seq, position + written, state_json, base)
                )
            if cut.at is None:
                written += rows if isinstance(rows, int) else len(rows)
            else:
                assert not isinstance(rows, int)  # rated with its rows from the place on
                for row in rows:
                    out.history.add(
                        _history_values(
                            name, position + written, row, ids, source_ids, factors_json
                        )
                    )
                    written += 1
            source_ids.release(unit)
        if cut.at is None:  # no unit at or after the dirty place (a last game voided)
            cut.at = position + written
        tail_deleted()
    return written


def _after_the_rows(algorithm: Algorithm, resumed: _Resumed, start: date | None, end: int) -> None:
    """What follows the rows (``end`` of them in the history now): the month ends, the
    current ratings and the thinning of the checkpoints."""
    name = algorithm.name
    # The standings at each month end, for the list as of a day, from the rows just
    # written: every row dated from the dirty date on may have changed (those between
    # the checkpoint and the dirty place are replayed as they were, and the checkpoint,
    # keyed just after the record before it, may lie months before them on a site of
    # sparse tournaments). It reads those rows back, so staged it runs once they have
    # moved over (a prefix too: the next pass rewrites from the prefix's checkpoint on).
    month_ends_from = start if resumed.key is not None else None
    # Resumed from a checkpoint, only the players the replay could change may have rows
    # it replaced or wrote (``_Resumed``): only their standings are compared.
    moved = set(resumed.ids.values()) if resumed.partial else None
    writes = staging.current()
    writes.later(lambda: month_ends.rewrite(algorithm, month_ends_from, moved), in_prefix=True)
    state = resumed.state
    algorithm.finish(state)
    ids = resumed.ids
    if resumed.partial:
        strays = state.players.keys() - ids.keys()
        if strays:
            # Rated from a new state though the checkpoint may hold theirs: wrong figures.
            raise RuntimeError(
                f"{name} rated players outside the records it replayed: {sorted(strays)[:5]}"
            )
    # Both read what they replace: staged, they run with the writes. Resumed from a
    # checkpoint, only the players the replay could change are compared.
    only = set(ids.values()) if resumed.partial else None
    writes.later(lambda: replace_current(name, state, ids, only=only))
    writes.later(lambda: checkpoints.thin(name, end))


def _record_rewrite(algorithm: str, start: date | None) -> None:
    """Record that ``algorithm``'s history rows are rewritten from ``start`` on (None:
    all of them), in place of the records from that day or later, which this one
    covers (:class:`HistoryRewrite`)."""
    day = connection.ops.adapt_datefield_value(HistoryRewrite.FULL if start is None else start)
    table = connection.ops.quote_name(HistoryRewrite._meta.db_table)
    # Written as SQL: built by the ORM, the delete and the insert cost a back-dated
    # entry 0.5 ms of CPU, five times the statements'.
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {table} WHERE algorithm = %s AND from_day >= %s", [algorithm, day]
        )
        cursor.execute(
            f"INSERT INTO {table} (algorithm, from_day) VALUES (%s, %s)", [algorithm, day]
        )


def _fetch_chunk(total: int) -> int:
    """Games fetched at a time for a replay of ``total`` records: 10,000, fewer for a
    short replay (a back-dated entry), so that its rows too go in while the engine
    rates the next chunk rather than all at the end."""
    return max(_MIN_CHUNK, min(_MAX_CHUNK, total // 8))


# A checkpoint to store before a unit: its key, the state as JSON text, and the id of
# the checkpoint whose state it changes (None: the text holds every player).
_CheckpointText = tuple[ReplayKey, str, int | None]


def rated_units(
    algorithm: Algorithm,
    state: RatingState,
    records: Iterable[GameRecord],
    total: int,
    stored: StoredState | None = None,
    history: int | checkpoints.HistorySize | None = None,
    *,
    rows_from: tuple | None = None,
) -> Iterator[tuple[_CheckpointText | None, list[GameRecord], list[HistoryRow] | int]]:
    """Rate unit by unit: with each unit, a checkpoint to store before it (its key and
    the state as JSON text) or None, and the unit's rows; ``stored`` is the checkpoint's
    state as stored that ``state`` was loaded from, if any; ``history`` the records of
    the whole history (``total`` when the replay is one from the start), or a bound
    below it and how to count it (``checkpoints.HistorySize``: counted only where the
    spacing depends on more than the bound says).

    A unit starting before the place ``rows_from`` in the replay order (a key of
    ``GameRecord.order_key``) is rated for the state it leaves, where the algorithm
    can (``Algorithm.rate_sides``): its rows are those stored, and only their number
    comes in place of them (a back-dated entry replays a few hundred games from its
    checkpoint to its place, and their row objects were made to be counted).

    After the last unit comes one more checkpoint with no unit: the state at the end of
    the history, keyed just after its last record in the replay order (its entry
    number plus one: no record sorts between). A game entered after the last one, the
    common case, even later the same evening (the dirty mark is the game's place in
    the replay order, not its date), resumes there and replays only itself.

    ``records`` come in replay order. An algorithm without tournament blocks rates
    them as they stream in. One with blocks needs them all first, to know where each
    tournament ends: a checkpoint is taken only where no block is open, so that every
    record at or after its key belongs to a unit starting there or later. A
    checkpoint is keyed just after the last record rated before it (``just_after``).
    Resumed from a checkpoint (``stored``), a replay stores none within the spacing
    near the end of the last one (``checkpoints.before_the_last_stretch``).

    Longer than 60 lines: one loop whose counters (records since the last checkpoint,
    the open tournament block, the last key) each step reads and moves; split, they
    would be passed back and forth on every unit of a million-game replay.
    """
    last_of_tournament: dict[str, tuple] = {}
    if algorithm.rates_tournaments_as_blocks:
        records = list(records)
        for record in records:
            if record.tournament and not record.is_adjustment:
                last_of_tournament[record.tournament] = record.order_key
    open_until: tuple | None = None
    every = settings.RATINGS_CHECKPOINT_EVERY
    state_json = StateJson(state, stored)
    at_least = history.at_least if isinstance(history, checkpoints.HistorySize) else history
    done = since = 0
    last = None
    for count, unit in enumerate(units(algorithm, records, presorted=True)):
        if count % _PROGRESS_EVERY == 0:
            progress.report(algorithm.name, done, total)
        first = unit[0]
        checkpoint = None
        if (
            count
            and since >= min(every, checkpoints.FLOOR)
            # More players and a longer history only widen the spacing: counting the
            # players (a partly loaded state counts the names added since the last
            # checkpoint) and the records of the history waits until the spacing of no
            # player and of the history's bound is reached, and, resumed, until the
            # last stretch of those is still ahead (a back-dated entry's replay is
            # mostly within it: counted on every unit, the players cost it 1 ms; the
            # records, counted once, 1.5 ms).
            and checkpoints.due(since, total - done, every, 0, at_least)
            and (
                stored is None
                or checkpoints.before_the_last_stretch(total - done, every, 0, at_least)
            )
            and checkpoints.due(since, total - done, every, 0, _counted(history))
            and (
                stored is None
                or checkpoints.before_the_last_stretch(total - done, every, 0, _counted(history))
            )
            and checkpoints.due(since, total - done, every, state_json.players(), _counted(history))
            and (
                stored is None
                or checkpoints.before_the_last_stretch(
                    total - done, every, state_json.players(), _counted(history)
                )
            )
            and (open_until is None or open_until < first.order_key)
        ):
            # Keyed just after the last record rated, not at the next one: a game
            # entered later between the two (tonight's next sheet before a cup round
            # of tonight) resumes here too.
            assert last is not None
            checkpoint = (just_after(last), state_json.text(), None)
            since = 0
        # Spaced in records, not units: a tournament block is one unit of hundreds of
        # games, and counting it as one left the block-rated algorithms with no
        # checkpoint but the last one on a site of imported tournaments.
        since += len(unit)
        done += len(unit)
        end = last_of_tournament.get(first.tournament) if not first.is_adjustment else None
        if end is not None and (open_until is None or end > open_until):
            open_until = end
        state_json.touch(unit)
        if last is None or unit[-1].order_key > last:
            last = unit[-1].order_key  # a block's records are in replay order
        if rows_from is not None:
            if first.order_key < rows_from:
                sides = algorithm.rate_sides(state, unit)
                if sides is not None:
                    yield checkpoint, unit, 2 * len(sides)  # two rows a game (rows.game_rows)
                    continue
            else:
                rows_from = None
        yield checkpoint, unit, algorithm.rate_unit(state, unit)
    if last is not None:
        # Resumed, the state after the last record holds, when they are few, only the
        # players changed since the checkpoint the replay's state came from (its
        # base): a back-dated entry wrote the 550 kB of 2,217 players for SAGC on a
        # site of real tournaments, a few hundred of them changed.
        changes = state_json.changes()
        if changes is not None:
            yield (just_after(last), *changes), [], []
        else:
            yield (just_after(last), state_json.text(), None), [], []


def _counted(history: int | checkpoints.HistorySize | None) -> int | None:
    return history.count() if isinstance(history, checkpoints.HistorySize) else history


class _JsonTexts:
    """``json.dumps`` of the factors of history rows, remembered while that pays.

    SAGC's factors are fractions from a few tables: nine rows in ten repeat a dict
    seen before, and looking it up costs a fifth of encoding it. The float factors of
    EGF or the French ladder almost never repeat; after ``_TRIAL`` rows with fewer
    than half found, or once it holds ``_LIMIT`` texts, it stops remembering.
    """

    _TRIAL = 10_000
    _LIMIT = 200_000

    def __init__(self) -> None:
        self.known: dict[tuple, str] | None = {}
        self.lookups = self.found = 0

    def __call__(self, factors: Mapping[str, Any]) -> str:
        known = self.known
        if known is None:
            return json.dumps(factors if isinstance(factors, dict) else dict(factors))
        key = tuple(factors.items())
        self.lookups += 1
        text = known.get(key)
        if text is not None:
            self.found += 1
            return text
        text = known[key] = json.dumps(factors if isinstance(factors, dict) else dict(factors))
        if len(known) >= self._LIMIT or (
            self.lookups >= self._TRIAL and self.found * 2 < self.lookups
        ):
            self.known = None
        return text


def _history_values(
    algorithm: str,
    position: int,
    row: HistoryRow,
    ids: dict[str, int],
    source: SourceIds,
    factors_json: Callable[[Mapping[str, Any]], str],
) -> tuple:
    """One RatingHistory row as the database stores it (see HISTORY_COLUMNS)."""
    is_adjustment = row.is_adjustment
    return (
        algorithm,
        position,
        ids[row.player],
        ids[row.opponent],
        None if is_adjustment else source.games[row.seq],
        source.adjustments[row.seq] if is_adjustment else None,
        row.date,
        row.colour.value if row.colour else "",
        rank_to_code(row.opponent_rank),
        rank_to_code(row.rank_before),
        rank_to_code(row.rank_after),
        float(row.value_before),
        float(row.change),
        float(row.value_after),
        factors_json(row.factors),
        row.skipped[:200],
    )
