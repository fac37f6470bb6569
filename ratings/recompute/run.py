"""The runner of the recompute: it takes the dirty mark, chooses what to replay, runs
the replay in its write transaction and tells the pages what it rewrote.

The pattern (STYLE.md, "The recompute pattern"): a write moves each algorithm's
``dirty_from`` to the earliest place it touches and bumps its generation, in the
write's own transaction, and queues the task on commit (``dirty``). The task takes a
lock, resumes the engine from the last checkpoint before the dirty place
(``replay``; a holistic algorithm: ``holistic``), rewrites the history from there in
one transaction, and clears the mark only if no new entry moved it meanwhile. A
periodic sweep runs the same service, so a lost message only delays a recompute. On
SQLite the replay runs in a read transaction and only its writes take the database's
write lock (``staging``)."""

from __future__ import annotations

import contextlib
import logging
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from notifications import alerts
from ratings.algorithms import maintained_algorithms
from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import Algorithm, no_cycle_collection
from ratings.engine.holistic import Holistic
from ratings.lab.services import mark_lab_dirty, sweep_lab_reports
from ratings.models import Checkpoint, RecomputeState
from ratings.recompute import dirty, holistic, liveness, progress, replay, staging
from ratings.recompute.checkpoints import DAY_START_SEQ, day_start_key
from ratings.recompute.dirty import ensure_states
from ratings.recompute.replay import HISTORY_COLUMNS as HISTORY_COLUMNS
from ratings.selectors import ReplayKey
from ratings.signals import history_rewritten

logger = logging.getLogger(__name__)


_MAX_LOOPS = 20


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
    runner = liveness.runner_name()
    if not _unqueue_and_claim_if_free(algorithm, runner):
        # Its state row is missing, or a runner has it: whether that one is alive is in
        # the cache, so the mark is taken off first and the claim compares and sets.
        ensure_states()
        RecomputeState.objects.filter(algorithm=algorithm).update(queued_at=None)
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
                _tell_the_committee(name, state.running_since, state.running_on)
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


def _tell_the_committee(algorithm: str, running_since: datetime, running_on: str) -> None:
    """Mail the committee that the run started at ``running_since`` on ``running_on``
    stalled; never fails the sweep."""
    try:
        alerts.recompute_stalled(algorithm, running_since, running_on)
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


def _state_table() -> str:
    return connection.ops.quote_name(RecomputeState._meta.db_table)


# The statements a task runs on its state row whatever it replays are written as SQL,
# and the task claims in one: built by the ORM, with every algorithm's row made sure of
# in a write transaction and the state read whole before the claim, they cost each
# task about 4 ms of CPU more on the realtail bench's site, a sixth of SAGC's task
# after a game entered the day after the last (docs/performance.md).


def _unqueue_and_claim_if_free(algorithm: str, runner: str) -> bool:
    """In one statement, take ``algorithm``'s queued mark off and mark it running on
    ``runner`` if no runner has it (the compare-and-set of :func:`_claim` on a mark that
    is absent). False: nothing was changed (no state row, or a runner has it)."""
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {_state_table()} SET queued_at = NULL, running_since = %s, "
            "running_on = %s WHERE algorithm = %s AND running_since IS NULL",
            [now, runner, algorithm],
        )
        return cursor.rowcount > 0


def _release(algorithm: str, runner: str, *, if_clean: bool) -> bool:
    """Drop ``runner``'s running mark of ``algorithm`` (with ``if_clean``, only if nothing
    is dirty, in the same statement); whether it was dropped."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {_state_table()} SET running_since = NULL, running_on = '' "
            "WHERE algorithm = %s AND running_on = %s"
            + (" AND dirty_from IS NULL" if if_clean else ""),
            [algorithm, runner],
        )
        return cursor.rowcount > 0


def _run_claimed(
    algorithm: str, runner: str, *, full: bool = False, from_date: date | None = None
) -> list[RecomputeResult]:
    """Recompute ``algorithm``, which ``runner`` has claimed, and keep going while writes
    move its generation; then drop the running mark, in the same statement that checks
    that nothing is dirty (a write landing after that check finds it not running, so
    its task runs)."""
    results = []
    released = False
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
                released = _release(algorithm, runner, if_clean=True)
                if released:
                    return results
                state = RecomputeState.objects.filter(algorithm=algorithm)
                if not state.filter(dirty_from__isnull=False).exists():
                    return results  # another runner took it over and finished it
    finally:
        if not released:  # dropped above with the check (a statement and a commit saved)
            _release(algorithm, runner, if_clean=False)
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
    the rows are computed (:func:`_replay_in_one_transaction`). On SQLite
    (``staging``) the replay in a read transaction, its writes staged, then a write
    transaction that applies them if no write moved the generation meanwhile
    (:func:`_replay_staged`)."""
    started = time.monotonic()
    writes = staging.Writes(staged=staging.staged_here())
    try:
        # The cycle collector off for the pass: the engine's state, the staged rows and
        # the checkpoints stay alive throughout, and every collection that the replay's
        # allocations set off walked them all again (a third of SAGC's CPU time for a
        # game back-dated into a real tournament's week; a tenth of GCR's after the
        # last game). Nothing of the pass relies on it; it collects once re-enabled.
        with staging.collecting(writes), no_cycle_collection():
            if writes.staged:
                done = _replay_staged(name, runner, writes, started, full=full, from_date=from_date)
            else:
                done = _replay_in_one_transaction(name, started, full=full, from_date=from_date)
    except _InputsMoved:
        raise
    except Exception as error:
        with contextlib.suppress(DatabaseError):  # the error may be the connection's
            writes.discard()
        RecomputeState.objects.filter(algorithm=name).update(
            last_error=f"{type(error).__name__}: {error}"
        )
        raise
    finally:
        progress.clear(name)
    if done is None:
        return None
    place, rows = done
    start_day = None if place is None else place.date
    return RecomputeResult(name, start_day, rows[0], time.monotonic() - started, rewritten=rows[1])


# What a pass wrote: the place it replayed from, the rows it replayed and those it
# wrote again.
_Done = tuple[ReplayKey | None, tuple[int, int]]


def _replay_in_one_transaction(
    name: str, started: float, *, full: bool, from_date: date | None
) -> _Done | None:
    """Lock, replay and write in one transaction (PostgreSQL); None: nothing dirty."""
    with transaction.atomic():
        _lock(name)
        replayed = _replay(name, full=full, from_date=from_date)
        if replayed is None:
            return None
        generation, place, rows = replayed
        _finish(name, generation, place, rows[0], started)
    return place, rows


def _replay_staged(
    name: str,
    runner: str,
    writes: staging.Writes,
    started: float,
    *,
    full: bool,
    from_date: date | None,
) -> _Done | None:
    """Replay in a read transaction with the writes staged, then apply them in a write
    transaction if no write moved the generation meanwhile. If one did, only the rows
    before the earliest date the writes touched (``touched_from``) go in, up to the
    last checkpoint before it, the dirty date moves there
    (:func:`_apply_the_prefix`), and :class:`_InputsMoved` says so. None: nothing
    dirty."""
    state = RecomputeState.objects.filter(algorithm=name)
    # Before the snapshot: every write from now on moves touched_from.
    watching = bool(state.filter(running_on=runner).update(touched_from=None))
    with staging.read_transaction():
        replayed = _replay(name, full=full, from_date=from_date)
    if replayed is None:
        return None
    generation, place, rows = replayed
    locked = time.monotonic()
    with transaction.atomic():  # IMMEDIATE: the write lock, for the writes only
        now = state.get()
        wrote_prefix = False
        if now.generation == generation:
            writes.apply()
            _finish(name, generation, place, rows[0], started)
        elif watching and now.running_on == runner and now.touched_from:
            # No other runner cleared touched_from since this one did.
            wrote_prefix = _apply_the_prefix(name, writes, now.touched_from, place)
    held = time.monotonic() - locked
    if now.generation != generation:
        writes.discard()
        logger.info(
            "%s: writes came in during the replay; %s (the lock held %.2f s)",
            name,
            "wrote what stands, goes on" if wrote_prefix else "replays again",
            held,
        )
        raise _InputsMoved(wrote_prefix=wrote_prefix)
    logger.info("%s: its writes held the lock %.2f s", name, held)
    return place, rows


def _apply_the_prefix(
    name: str, writes: staging.Writes, touched_from: date, place: ReplayKey | None
) -> bool:
    """Apply the staged writes before the last checkpoint before ``touched_from``, and
    move the dirty place to that checkpoint; False: the replay staged none there."""
    found = _prefix_before(writes, touched_from)
    if found is None:
        return False
    prefix, resume = found
    writes.apply(prefix)
    # From the prefix's checkpoint, not from touched_from: the rows between the two
    # were not staged if they came before the dirty place, and the tail from it is
    # deleted.
    RecomputeState.objects.filter(algorithm=name).update(
        dirty_from=resume.date, dirty_round=resume.round, dirty_seq=resume.seq
    )
    mark_lab_dirty(name, place)
    return True


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
            [day, day, DAY_START_SEQ],
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


def _rewrite(algorithm: Algorithm, start_key: ReplayKey | None) -> tuple[int, int]:
    """Replay ``algorithm`` from ``start_key`` (None: from the start) and write what it
    rates: the rows replayed, and of those the rows written again."""
    if isinstance(algorithm, Holistic):
        rows = holistic.rewrite(algorithm, None if start_key is None else start_key.date)
        return rows, rows
    return replay.rewrite(algorithm, start_key)


def _dirty_key(state: RecomputeState, from_date: date | None) -> ReplayKey | None:
    """Where a replay starts: the place in the replay order ``state`` is dirty from, or
    the start of ``from_date`` when that is earlier (None: neither)."""
    marked = (
        None
        if state.dirty_from is None
        else ReplayKey(state.dirty_from, state.dirty_round, state.dirty_seq)
    )
    if from_date is not None and (marked is None or from_date <= marked.date):
        return day_start_key(from_date)
    return marked


def _finish(name: str, generation: int, place: ReplayKey | None, rows: int, started: float) -> None:
    """Record the run, inside the transaction of its writes; clear the mark only if no
    write moved it while it replayed (otherwise the runner's loop runs again from the
    date it now holds). One statement: every expression reads the row as it was."""
    seconds = time.monotonic() - started
    ops = connection.ops
    now = timezone.now()
    same = "generation = %s"  # no write moved it: the mark goes
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {_state_table()} SET "
            f"dirty_from = CASE WHEN {same} THEN NULL ELSE dirty_from END, "
            f"dirty_round = CASE WHEN {same} THEN 0 ELSE dirty_round END, "
            f"dirty_seq = CASE WHEN {same} THEN 0 ELSE dirty_seq END, "
            "last_started = %s, last_finished = %s, last_duration = %s, last_from = %s, "
            "last_rows = %s, last_error = '' WHERE algorithm = %s",
            [
                generation,
                generation,
                generation,
                ops.adapt_datetimefield_value(now - timedelta(seconds=seconds)),
                ops.adapt_datetimefield_value(now),
                seconds,
                ops.adapt_datefield_value(None if place is None else place.date),
                rows,
                name,
            ],
        )
    # The lab is behind from the first place rewritten; it catches up once this
    # commits and, debounced, once a burst of writes is over.
    mark_lab_dirty(name, place)


def announce_rewrite(algorithm: str, results: list[RecomputeResult], *, sender: Any) -> None:
    """Send ``history_rewritten`` for the rows the passes of ``results`` rewrote (from the
    earliest date any replayed from), so that the pages build again what they keep of
    them. The recompute is done and committed: a receiver's failure is logged, never
    raised (it would retry the recompute)."""
    starts = [result.replayed_from for result in results]
    known = [start for start in starts if start is not None]
    replayed_from = min(known) if len(known) == len(starts) else None
    outcomes = history_rewritten.send_robust(
        sender=sender, algorithm=algorithm, replayed_from=replayed_from
    )
    for receiver, outcome in outcomes:
        if isinstance(outcome, Exception):
            logger.error(
                "%s: %s failed after the recompute",
                algorithm,
                getattr(receiver, "__qualname__", receiver),
                exc_info=outcome,
            )
