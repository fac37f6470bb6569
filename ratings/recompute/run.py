"""Marking ratings dirty, and the recompute that replays from the nearest checkpoint.

The pattern (STYLE.md, "The recompute pattern"): a write moves each algorithm's
``dirty_from`` to the earliest date it touches and bumps its generation, in the
write's own transaction, and queues the task on commit. The task takes a lock,
resumes the engine from the last checkpoint before the dirty date, rewrites the
history from there in one transaction, and clears the mark only if no new entry
moved it meanwhile. A periodic sweep runs the same service, so a lost message
only delays a recompute. On SQLite the replay runs in a read transaction and only
its writes take the database's write lock (``staging``)."""

from __future__ import annotations

import contextlib
import json
import logging
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from notifications import alerts
from players.fields import rank_to_code
from ratings.algorithms import maintained_algorithms
from ratings.engine.base import (
    Algorithm,
    HistoryRow,
    RatingState,
    get_algorithm,
    units,
)
from ratings.engine.holistic import Holistic
from ratings.engine.records import GameRecord
from ratings.lab.services import mark_lab_dirty, sweep_lab_reports
from ratings.models import (
    Checkpoint,
    HistoryRewrite,
    RatingHistory,
    RecomputeState,
)
from ratings.recompute import dirty, holistic, liveness, month_ends, progress, staging
from ratings.recompute.current import replace_current
from ratings.recompute.dirty import ensure_states
from ratings.selectors import (
    IDS_PER_QUERY,
    ReplayKey,
    SourceIds,
    player_entries,
    player_ids,
    replay_count,
    replay_records,
)

logger = logging.getLogger(__name__)


_MAX_LOOPS = 20


# History rows held at most before they are sent (a chunk of games makes about twice
# its number; a long tournament block more).
_HISTORY_BUFFER = 100_000


_PROGRESS_EVERY = 2000  # units between progress reports


@dataclass(frozen=True, slots=True)
class RecomputeResult:
    algorithm: str
    replayed_from: date | None
    rows: int  # replayed
    seconds: float
    rewritten: int = 0  # of those, the rows written again (from the dirty place on)


def _lock(algorithm: str) -> None:
    """Serialize recomputes of one algorithm. On PostgreSQL a transaction-level advisory
    lock. On SQLite the replay holds no lock (``staging``): the running mark keeps a
    second runner away, and one that forced its way in writes only what is a replay of
    the inputs as they are then (the generation check), so either's write is right."""
    if connection.vendor == "postgresql":
        key = zlib.crc32(f"clubrating.recompute.{algorithm}".encode()) & 0x7FFFFFFF
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


def run_queued(algorithm: str) -> list[RecomputeResult]:
    """What the task of one algorithm does: take the queued mark off (a write from now
    on queues another task), then, unless a live runner is already at it (it loops
    while the generation moves, so it will rate what this task was queued for),
    recompute until nothing is left."""
    ensure_states()
    RecomputeState.objects.filter(algorithm=algorithm).update(queued_at=None)
    runner = liveness.runner_name()
    if not _claim(algorithm, runner, force=False):
        logger.info("%s is already being recomputed; this task has nothing to do", algorithm)
        return []
    return _run_claimed(algorithm, runner)


def recompute_pending(algorithms: Sequence[str] | None = None) -> list[RecomputeResult]:
    """Recompute now, in this process, every maintained algorithm (or those named) that
    is marked dirty, one after the other."""
    ensure_states()
    names = list(algorithms) if algorithms else maintained_algorithms()
    dirty = set(
        RecomputeState.objects.filter(algorithm__in=names, dirty_from__isnull=False).values_list(
            "algorithm", flat=True
        )
    )
    runner = liveness.runner_name()
    results = []
    for name in names:
        if name in dirty:
            _claim(name, runner, force=True)
            results += _run_claimed(name, runner)
    return results


def recompute(
    algorithm: str, *, full: bool = False, from_date: date | None = None
) -> RecomputeResult | None:
    """Recompute one algorithm now: from its dirty date, from ``from_date``, or in full
    (and then whatever writes made meanwhile left pending)."""
    ensure_states()
    runner = liveness.runner_name()
    _claim(algorithm, runner, force=True)
    results = _run_claimed(algorithm, runner, full=full, from_date=from_date)
    return results[0] if results else None


def sweep() -> list[str]:
    """What celery beat runs every ``RATINGS_SWEEP_SECONDS``: queue the recompute of every
    dirty algorithm that no live runner has and whose queued task is not recent (its
    message was lost, say to a broker that was down, or its worker died), and the lab
    update of a clean one whose lab is behind in the same way. A running mark whose
    runner stopped beating is dropped. Returns the algorithms whose recompute it queued."""
    ensure_states()
    now = timezone.now()
    recent = now - timedelta(seconds=settings.RATINGS_SWEEP_SECONDS)
    states = {state.algorithm: state for state in RecomputeState.objects.all()}
    queued = []
    for name in maintained_algorithms():
        state = states.get(name)
        if state is None:
            continue
        rows = RecomputeState.objects.filter(algorithm=name)
        if state.running_since is not None:
            if liveness.runner_alive(state.running_on, state.running_since):
                continue
            logger.warning(
                "the recompute of %s started at %s on %s stopped answering; taken over",
                name,
                state.running_since,
                state.running_on or "an unknown runner",
            )
            dropped = rows.filter(running_since=state.running_since).update(
                running_since=None, running_on=""
            )
            if dropped:
                _tell_the_committee(name, state)
        if state.dirty_from is None or (state.queued_at is not None and state.queued_at > recent):
            continue
        same = (
            Q(queued_at__isnull=True) if state.queued_at is None else Q(queued_at=state.queued_at)
        )
        if rows.filter(same).update(queued_at=now):
            dirty.queue_recompute(name)
            queued.append(name)
    sweep_lab_reports([states[name] for name in maintained_algorithms() if name in states])
    return queued


def _tell_the_committee(algorithm: str, state: RecomputeState) -> None:
    """Mail the committee that the run of ``state`` stalled; never fails the sweep."""
    try:
        alerts.recompute_stalled(algorithm, state.running_since, state.running_on)
    except Exception:
        logger.exception("could not tell the committee that %s stalled", algorithm)


def _claim(algorithm: str, runner: str, *, force: bool) -> bool:
    """Mark ``algorithm`` running on ``runner``, unless (without ``force``) a live runner
    has it. Compare-and-set on the mark read, so two tasks never both take it."""
    rows = RecomputeState.objects.filter(algorithm=algorithm)
    state = rows.get()
    mark = {"running_since": timezone.now(), "running_on": runner}
    if force:
        rows.update(**mark)
        return True
    if state.running_since is not None and liveness.runner_alive(
        state.running_on, state.running_since
    ):
        return False
    same = (
        Q(running_since__isnull=True)
        if state.running_since is None
        else Q(running_since=state.running_since, running_on=state.running_on)
    )
    return bool(rows.filter(same).update(**mark))


def _run_claimed(
    algorithm: str, runner: str, *, full: bool = False, from_date: date | None = None
) -> list[RecomputeResult]:
    """Recompute ``algorithm``, which ``runner`` has claimed, and keep going while writes
    move its generation; then drop the running mark, in the same statement that checks
    that nothing is dirty (a write landing after that check finds it not running, so
    its task runs)."""
    rows = RecomputeState.objects.filter(algorithm=algorithm)
    results = []
    try:
        with liveness.RunnerHeartbeat(runner):
            for _ in range(_MAX_LOOPS):
                try:
                    result = _recompute_once(algorithm, runner, full=full, from_date=from_date)
                except _InputsMoved as moved:
                    if moved.wrote_prefix:  # the rest from the dirty date it left
                        full, from_date = False, None
                    continue  # otherwise again, asked as it was
                full, from_date = False, None
                if result is not None:
                    results.append(result)
                if rows.filter(running_on=runner, dirty_from__isnull=True).update(
                    running_since=None, running_on=""
                ):
                    return results
                if not rows.filter(dirty_from__isnull=False).exists():
                    return results  # another runner took it over and finished it
    finally:
        rows.filter(running_on=runner).update(running_since=None, running_on="")
    return results


# What a replay did: the generation it read, the place it replayed from, the rows it
# replayed and those it wrote again.
_Replayed = tuple[int, ReplayKey | None, tuple[int, int]]


class _InputsMoved(Exception):
    """A write moved the generation while a staged recompute replayed: what it computed
    after the earliest date the writes touched is stale and was not written; the part
    before it was (``wrote_prefix``) when it ends at a checkpoint of the replay."""

    def __init__(self, wrote_prefix: bool) -> None:
        super().__init__()
        self.wrote_prefix = wrote_prefix


def _recompute_once(
    name: str, runner: str, *, full: bool, from_date: date | None
) -> RecomputeResult | None:
    """One replay and its writes. On PostgreSQL one transaction, the writes going in as
    the rows are computed. On SQLite (``staging``) the replay in a read transaction,
    its writes staged, then a write transaction that applies them if no write moved
    the generation meanwhile; if one did, only the rows before the earliest date the
    writes touched (``touched_from``) go in, up to the last checkpoint before it, the
    dirty date moves there, and :class:`_InputsMoved` says so."""
    started = time.monotonic()
    writes = staging.Writes(staged=staging.staged_here())
    state = RecomputeState.objects.filter(algorithm=name)
    try:
        with staging.collecting(writes):
            if writes.staged:
                # Before the snapshot: every write from now on moves touched_from.
                watching = state.filter(running_on=runner).update(touched_from=None)
                with staging.read_transaction():
                    replay = _replay(name, full=full, from_date=from_date)
                if replay is None:
                    return None
                generation, place, rows = replay
                start_day = None if place is None else place.date
                locked = time.monotonic()
                with transaction.atomic():  # IMMEDIATE: the write lock, for the writes only
                    now = state.get()
                    prefix = None
                    if now.generation == generation:
                        writes.apply()
                        _finish(name, generation, place, rows[0], started)
                    elif watching and now.running_on == runner and now.touched_from:
                        # No other runner cleared touched_from since this one did.
                        found = _prefix_before(writes, now.touched_from)
                        if found is not None:
                            prefix, resume = found
                            writes.apply(prefix)
                            # From the prefix's checkpoint, not from touched_from: the
                            # rows between the two were not staged if they came before
                            # the dirty place, and the tail from it is deleted.
                            state.update(
                                dirty_from=resume.date,
                                dirty_round=resume.round,
                                dirty_seq=resume.seq,
                            )
                            mark_lab_dirty(name, place)
                held = time.monotonic() - locked
                if now.generation != generation:
                    writes.discard()
                    logger.info(
                        "%s: writes came in during the replay; %s (the lock held %.2f s)",
                        name,
                        "wrote what stands, goes on" if prefix is not None else "replays again",
                        held,
                    )
                    raise _InputsMoved(wrote_prefix=prefix is not None)
                logger.info("%s: its writes held the lock %.2f s", name, held)
            else:
                with transaction.atomic():
                    _lock(name)
                    replay = _replay(name, full=full, from_date=from_date)
                    if replay is None:
                        return None
                    generation, place, rows = replay
                    start_day = None if place is None else place.date
                    _finish(name, generation, place, rows[0], started)
    except _InputsMoved:
        raise
    except Exception as error:
        with contextlib.suppress(DatabaseError):  # the error may be the connection's
            writes.discard()
        state.update(last_error=f"{type(error).__name__}: {error}")
        raise
    finally:
        progress.clear(name)
    return RecomputeResult(name, start_day, rows[0], time.monotonic() - started, rewritten=rows[1])


def _prefix_before(writes: staging.Writes, touched_from: date) -> tuple[int, ReplayKey] | None:
    """The position and key of the last checkpoint the replay staged before
    ``touched_from`` (dated earlier, or at the start of that day): everything rated
    before it comes from records dated before that date (a checkpoint is taken only
    where no tournament block is open), which no write since the snapshot touched.
    None: no such checkpoint (GCR has none)."""
    table = writes.staged_table(Checkpoint)
    if table is None:
        return None
    day = connection.ops.adapt_datefield_value(touched_from)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT position, date, round, seq FROM temp.{connection.ops.quote_name(table)} "
            "WHERE date < %s OR (date = %s AND round = 0 AND seq = %s) "
            "ORDER BY position DESC LIMIT 1",
            [day, day, _DAY_START_SEQ],
        )
        found = cursor.fetchone()
    if found is None:
        return None
    position, day_text, round_number, seq = found
    on = date.fromisoformat(day_text) if isinstance(day_text, str) else day_text
    return position, ReplayKey(on, round_number, seq)


def _replay(name: str, *, full: bool, from_date: date | None) -> _Replayed | None:
    """Replay ``name`` from its dirty date (or ``from_date``, or in full) through the
    current writes: its generation when read, the date replayed from and the history
    rows written; None when nothing is dirty."""
    state_row = RecomputeState.objects.get(algorithm=name)
    start = None if full else _dirty_key(state_row, from_date)
    if not full and start is None:
        return None
    return state_row.generation, start, _rewrite(get_algorithm(name), start)


def _dirty_key(state: RecomputeState, from_date: date | None) -> ReplayKey | None:
    """Where a replay starts: the place in the replay order ``state`` is dirty from, or
    the start of ``from_date`` when that is earlier (None: neither)."""
    marked = (
        None
        if state.dirty_from is None
        else ReplayKey(state.dirty_from, state.dirty_round, state.dirty_seq)
    )
    if from_date is not None and (marked is None or from_date <= marked.date):
        return _day_start_key(from_date)
    return marked


def _finish(name: str, generation: int, place: ReplayKey | None, rows: int, started: float) -> None:
    """Record the run, inside the transaction of its writes; clear the mark only if no
    write moved it while it replayed (otherwise the runner's loop runs again from the
    date it now holds)."""
    seconds = time.monotonic() - started
    finished = dict(
        last_started=timezone.now() - timedelta(seconds=seconds),
        last_finished=timezone.now(),
        last_duration=seconds,
        last_from=None if place is None else place.date,
        last_rows=rows,
        last_error="",
    )
    cleared = RecomputeState.objects.filter(algorithm=name, generation=generation).update(
        dirty_from=None, dirty_round=0, dirty_seq=0, **finished
    )
    if not cleared:
        RecomputeState.objects.filter(algorithm=name).update(**finished)
    # The lab is behind from the first place rewritten; it catches up once this
    # commits and, debounced, once a burst of writes is over.
    mark_lab_dirty(name, place)


def _rewrite(algorithm: Algorithm, start_key: ReplayKey | None) -> tuple[int, int]:
    """Replay ``algorithm`` from ``start_key`` (None: from the start) and write what it
    rates: from the last checkpoint at or before that place in the replay order. The
    rows replayed, and of those the rows written again (from ``start_key`` on)."""
    start = None if start_key is None else start_key.date
    if isinstance(algorithm, Holistic):
        rows = holistic.rewrite(algorithm, start)
        return rows, rows
    name = algorithm.name
    state = algorithm.new_state(player_entries())
    checkpoint = None
    if start_key is not None:
        checkpoint = (
            Checkpoint.objects.filter(algorithm=name)
            .filter(_at_or_before(start_key))
            .order_by("-date", "-round", "-seq")
            .first()
        )
    resumed_state = None
    writes = staging.current()
    if checkpoint is None:
        position, key = 0, None
        writes.later(Checkpoint.objects.filter(algorithm=name).delete, in_prefix=True)
    else:
        position = checkpoint.position
        key = ReplayKey(checkpoint.date, checkpoint.round, checkpoint.seq)
        resumed_state = checkpoint.state
        state.load(resumed_state)
        # The checkpoint itself stays valid (nothing before the dirty date changed):
        # dropping it would send the next back-dated entry there further back.
        later = Checkpoint.objects.filter(algorithm=name).filter(key.at_or_after())
        writes.later(later.exclude(pk=checkpoint.pk).delete, in_prefix=True)
    # The rows the replay gives from a checkpoint to the first unit at or after the
    # dirty place are the ones stored with it (nothing before that place changed): they
    # are replayed, for the state they lead to, but neither deleted nor written again.
    # The tail from that unit on goes in one statement (the unique index on (algorithm,
    # position) finds it), once the replay reaches it: staged, a step placed before the
    # rows' own; straight in, then (the rows before it are not sent). From the start
    # (no checkpoint before the place) everything is written: the rows before the
    # place may never have been (an algorithm maintained from now on).
    cut = _Cut(name, position if checkpoint is None else None)
    dirty_place = None if start_key is None else (start_key.date, start_key.round, start_key.seq)
    if writes.staged:
        writes.later(cut.delete_tail, in_prefix=True)
    # The values of the rows dated from ``start`` on may change: the pages built from
    # them (a tournament's crosstable) are keyed on this record.
    writes.later(lambda: _record_rewrite(name, start), in_prefix=True)

    total = replay_count(name, key)
    ids = player_ids()
    written = 0
    factors_json = _JsonTexts()
    # On PostgreSQL the rows of each chunk of games (and the checkpoints taken while
    # rating it) go in from threads while the next chunk is rated: the server's work
    # (parsing, indexing) overlaps the engine's. The connection is shared, so they are
    # sent just after a chunk is fetched, and the next fetch waits for them.
    # A prefix of this replay (see _recompute_once) ends at a checkpoint: the rows
    # before it and the checkpoints up to it.
    history = writes.rows(
        RatingHistory,
        HISTORY_COLUMNS,
        prefix='"position" < %s',
        batch=_HISTORY_BUFFER,
        background=True,
    )
    checkpoints = writes.rows(
        Checkpoint,
        _CHECKPOINT_COLUMNS,
        prefix='"position" <= %s',
        batch=_HISTORY_BUFFER,
        background=True,
    )

    def send() -> None:
        history.send()
        checkpoints.send()

    def wait() -> None:
        history.wait()
        checkpoints.wait()

    with history, checkpoints:
        records, source_ids = replay_records(
            name, key, before_fetch=wait, after_fetch=send, chunk=_fetch_chunk(total)
        )
        whole = total if key is None else replay_count(name)
        rated = _rated_units(algorithm, state, records, total, resumed_state, whole)
        for checkpoint_key, unit, rows in rated:
            if cut.at is None and unit and unit[0].order_key >= dirty_place:
                cut.at = position + written
            if cut.at is not None and not cut.deleted and not writes.staged:
                wait()  # the connection is the background writers' too
                cut.delete_tail()
            if checkpoint_key is not None:
                key_before, state_json = checkpoint_key
                checkpoints.add(
                    (
                        name,
                        key_before.date,
                        key_before.round,
                        key_before.seq,
                        position + written,
                        state_json,
                    )
                )
            if cut.at is None:
                written += len(rows)
            else:
                for row in rows:
                    history.add(
                        _history_values(
                            name, position + written, row, ids, source_ids, factors_json
                        )
                    )
                    written += 1
            source_ids.release(unit)
        if cut.at is None:  # no unit at or after the dirty place (a last game voided)
            cut.at = position + written
        if not cut.deleted and not writes.staged:
            wait()
            cut.delete_tail()
    # The standings at each month end, for the list as of a day, from the rows just
    # written: every row dated from the dirty date on may have changed (those between
    # the checkpoint and the dirty place are replayed as they were, and the checkpoint,
    # keyed just after the record before it, may lie months before them on a site of
    # sparse tournaments). It reads those rows back, so staged it runs once they have
    # moved over (a prefix too: the next pass rewrites from the prefix's checkpoint on).
    month_ends_from = start if key is not None else None
    writes.later(lambda: month_ends.rewrite(algorithm, month_ends_from), in_prefix=True)
    algorithm.finish(state)
    # Both read what they replace: staged, they run with the writes.
    writes.later(lambda: replace_current(name, state, ids))
    writes.later(lambda: _thin_checkpoints(name, position + written))
    return written, position + written - cut.at


class _Cut:
    """Where a replay's rewritten rows start: the position of its first unit at or after
    the dirty place (``at``, None until the replay reaches it)."""

    def __init__(self, algorithm: str, at: int | None) -> None:
        self.algorithm = algorithm
        self.at = at
        self.deleted = False

    def delete_tail(self) -> None:
        assert self.at is not None, "the tail is deleted once its start is known"
        RatingHistory.objects.filter(algorithm=self.algorithm, position__gte=self.at).delete()
        self.deleted = True


_CHECKPOINT_COLUMNS = ("algorithm", "date", "round", "seq", "position", "state")


def _at_or_before(key: ReplayKey) -> Q:
    """Checkpoints keyed at or before ``key``: each holds the state before every record
    at or after its key, so one at ``key`` itself still holds what came before."""
    return (
        Q(date__lt=key.date)
        | Q(date=key.date, round__lt=key.round)
        | Q(date=key.date, round=key.round, seq__lte=key.seq)
    )


def _record_rewrite(algorithm: str, start: date | None) -> None:
    """Record that ``algorithm``'s history rows are rewritten from ``start`` on (None:
    all of them), in place of the records from that day or later, which this one
    covers (:class:`HistoryRewrite`)."""
    day = HistoryRewrite.FULL if start is None else start
    HistoryRewrite.objects.filter(algorithm=algorithm, from_day__gte=day).delete()
    HistoryRewrite.objects.create(algorithm=algorithm, from_day=day)


def _fetch_chunk(total: int) -> int:
    """Games fetched at a time for a replay of ``total`` records: 10,000, fewer for a
    short replay (a back-dated entry), so that its rows too go in while the engine
    rates the next chunk rather than all at the end."""
    return max(_MIN_CHUNK, min(_MAX_CHUNK, total // 8))


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


def _checkpoint_due(
    since: int, remaining: int, every: int, players: int, history: int | None = None
) -> bool:
    """Whether to store a checkpoint before the next unit, ``since`` records after the
    last one, with ``remaining`` records still to replay, ``every`` the setting
    ``RATINGS_CHECKPOINT_EVERY`` and ``players`` the players in the state.

    Checkpoints are dense near the end of the history, where new and back-dated
    entries land, and sparse further back: at least a ``_CHECKPOINT_REACH``-th of what
    is left apart, so that a back-dated entry replays its tail plus about a tenth more,
    whatever the length of the history, and a full replay of a million games stores a
    few dozen states. Near the end they are ``every`` records apart (at the first unit
    boundary after that where no tournament block is open), or more in a club of
    more than ``_CHECKPOINT_PLAYERS`` players: a checkpoint holds every player's state
    (with 10,000 players one costs about as much as replaying two thousand games).
    In a history of ``history`` records that is no more than a ``_CHECKPOINT_SHARE``-th
    of it (but ``_CHECKPOINT_FLOOR`` records): on a site of a few thousand real games
    and players, 2,000 games would be a tenth of the history, and an entry a week back
    would replay it.
    """
    near_the_end = max(every, every * players // _CHECKPOINT_PLAYERS)
    if history is not None:
        near_the_end = min(near_the_end, max(_CHECKPOINT_FLOOR, history // _CHECKPOINT_SHARE))
    spacing = max(near_the_end, remaining // _CHECKPOINT_REACH)
    return since >= spacing


_CHECKPOINT_REACH = 10


_CHECKPOINT_PLAYERS = 2500


_CHECKPOINT_SHARE = 40


_CHECKPOINT_FLOOR = 100


def _thin_checkpoints(algorithm: str, end: int) -> None:
    """Keep the checkpoints as :func:`_checkpoint_due` spaces them as the history grows
    (``end`` history rows): walking back from the end, one is dropped when the next
    older one (or the start of the history) lies within a ``_CHECKPOINT_REACH``-th of
    its own distance from the end of the last one kept. Without this, the checkpoints
    each new entry adds near the end would pile up; with it, an entry at any position
    replays at most about a ninth more than its own tail (plus the spacing of
    :func:`_checkpoint_due` where that is wider)."""
    checkpoints = Checkpoint.objects.filter(algorithm=algorithm).order_by("-position")
    stored = list(checkpoints.values_list("pk", "position"))
    kept = end
    dropped = []
    for index, (pk, position) in enumerate(stored):
        older = stored[index + 1][1] if index + 1 < len(stored) else 0
        if kept - older <= (end - older) // _CHECKPOINT_REACH:
            dropped.append(pk)
        else:
            kept = position
    for start in range(0, len(dropped), IDS_PER_QUERY):
        Checkpoint.objects.filter(pk__in=dropped[start : start + IDS_PER_QUERY]).delete()


class _StateJson:
    """The engine's state as the JSON text of a checkpoint (what ``json.dumps`` makes of
    ``state.dump()``), kept from one checkpoint to the next: a unit changes only the
    players of its records, so only the players of the units rated since the last
    checkpoint are encoded again, and a checkpoint of 10,000 players costs in
    proportion to those who played meanwhile."""

    def __init__(self, state: RatingState, loaded: Mapping[str, Any] | None = None) -> None:
        self.state = state
        self.entries: dict[str, str] | None = None  # '"name": {...}' for each player
        self.touched: set[str] = set()
        if loaded is not None:
            # The state was loaded from this checkpoint data: its players are encoded
            # from it (the JSON encoder's C loop), not from the engine's objects again.
            dumps = json.dumps
            self.entries = {name: f"{dumps(name)}: {dumps(data)}" for name, data in loaded.items()}

    def touch(self, unit: Sequence[GameRecord]) -> None:
        for record in unit:
            self.touched.add(record.white)
            self.touched.add(record.black)

    def text(self) -> str:
        players = self.state.players
        if self.entries is None:
            self.entries = {}
            names = list(players)
        else:
            names = [name for name in self.touched if name in players]
        for name in names:
            self.entries[name] = f"{json.dumps(name)}: {json.dumps(players[name].to_data())}"
        self.touched.clear()
        return "{" + ", ".join(self.entries.values()) + "}"


def _rated_units(
    algorithm: Algorithm,
    state: RatingState,
    records: Iterable[GameRecord],
    total: int,
    loaded: Mapping[str, Any] | None = None,
    history: int | None = None,
) -> Iterator[tuple[tuple[ReplayKey, str] | None, list[GameRecord], list[HistoryRow]]]:
    """Rate unit by unit: with each unit, a checkpoint to store before it (its key and
    the state as JSON text) or None, and the unit's rows; ``loaded`` is the checkpoint
    data ``state`` was loaded from, if any; ``history`` the records of the whole history
    (``total`` when the replay is one from the start).

    After the last unit comes one more checkpoint with no unit: the state at the end of
    the history, keyed just after its last record in the replay order (its entry
    number plus one: no record sorts between). A game entered after the last one, the
    common case, even later the same evening (the dirty mark is the game's place in
    the replay order, not its date), resumes there and replays only itself.

    ``records`` come in replay order. An algorithm without tournament blocks rates
    them as they stream in. One with blocks needs them all first, to know where each
    tournament ends: a checkpoint is taken only where no block is open, so that every
    record at or after its key belongs to a unit starting there or later. A
    checkpoint is keyed just after the last record rated before it (:func:`_just_after`).
    """
    last_of_tournament: dict[str, tuple] = {}
    if algorithm.rates_tournaments_as_blocks:
        records = list(records)
        for record in records:
            if record.tournament and not record.is_adjustment:
                last_of_tournament[record.tournament] = record.order_key
    open_until: tuple | None = None
    every = settings.RATINGS_CHECKPOINT_EVERY
    state_json = _StateJson(state, loaded)
    done = since = 0
    last = None
    for count, unit in enumerate(units(algorithm, records, presorted=True)):
        if count % _PROGRESS_EVERY == 0:
            progress.report(algorithm.name, done, total)
        first = unit[0]
        checkpoint = None
        if (
            count
            and since >= min(every, _CHECKPOINT_FLOOR)
            and _checkpoint_due(since, total - done, every, len(state.players), history)
            and (open_until is None or open_until < first.order_key)
        ):
            # Keyed just after the last record rated, not at the next one: a game
            # entered later between the two (tonight's next sheet before a cup round
            # of tonight) resumes here too.
            checkpoint = (_just_after(last), state_json.text())
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
        yield checkpoint, unit, algorithm.rate_unit(state, unit)
    if last is not None:
        yield (_just_after(last), state_json.text()), [], []


def _just_after(key: tuple[date, int, int]) -> ReplayKey:
    """The first place in the replay order after ``key``: no record sorts between the
    two (entry numbers are whole), so the state after the record at ``key`` is the state
    before every record at or after this place."""
    day, round_number, seq = key
    return ReplayKey(day, round_number, seq + 1)


# Entries count from 1, so no record has seq 0: a checkpoint keyed (day, 0, 0) holds the
# state before every record of that day, and a recompute from that day may resume there.
_DAY_START_SEQ = 0


def _day_start_key(day: date) -> ReplayKey:
    return ReplayKey(day, 0, _DAY_START_SEQ)


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
