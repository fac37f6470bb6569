"""The algorithm lab's reports: computed after each recompute, stored in LabReport.

A report is the engine's ``lab.evaluate`` over the games an algorithm rated, each
predicted from both players' states just before it. For the algorithms with a
history that state is in the stored rows (``value_before``, ``rank_before``): one
query over the algorithm's history, no replay. GCR has no history: a full run replays
it month by month from the games, as ``lab.gcr_predictions`` does; an update predicts
the games from the dirty month on from the recompute's month-end snapshots.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from datetime import date, datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Case, F, Max, Min, Q, Value, When
from django.utils import timezone

from players.models import Game
from ratings.engine import gcr as gcr_engine
from ratings.engine import lab
from ratings.engine.base import RatingState, get_algorithm, no_cycle_collection, replay
from ratings.engine.gcr import Gcr
from ratings.engine.ranks import Rank
from ratings.engine.records import GameRecord
from ratings.lab import tallies as lab_tallies
from ratings.models import LabReport, RatingSnapshot, RecomputeState
from ratings.selectors import (
    ReplayKey,
    count_gcr_table,
    dated_history_games,
    player_entries,
    replay_records,
)

logger = logging.getLogger(__name__)


def gcr_dated_games(
    algorithm: Gcr, since: date | None = None
) -> tuple[list[tuple[date, int, lab.LabGame]], RatingState]:
    """The games GCR rates from ``since`` on, each with its date and both players' GCR
    at the end of the month before its own, as ``lab.gcr_predictions`` makes them; and
    the final state (the whole table, rated).

    In full (no ``since``) every game is read and the table rated at every month's end,
    as ``lab.gcr_predictions`` does. From ``since`` on, the ratings at the month ends
    are the recompute's month-end snapshots (``RatingSnapshot``, one rating of the
    table at each month end that has games but the last, equal to that replay's), so
    only the games from ``since`` are read; the final table is counted by the database
    (:func:`gcr_table`) and rated once.
    """
    if since is not None:
        return _gcr_games_from_snapshots(algorithm, since), gcr_table(algorithm)
    records, _ids = replay_records(algorithm.name)
    entries = player_entries()
    state = algorithm.new_state(entries)
    games: list[tuple[date, int, lab.LabGame]] = []
    with no_cycle_collection():  # see ratings.recompute.run._rewrite_holistic
        for month in _months(records):
            for record in month:
                if record.is_adjustment or algorithm.skip_reason(record):
                    continue
                white, black = state.player(record.white), state.player(record.black)
                games.append(
                    (
                        record.date,
                        0,
                        _gcr_game(record, (white.rank, white.value), (black.rank, black.value)),
                    )
                )
            for _ in replay(algorithm, month, entries, state):
                pass
    return games, state


def _months(records: Iterable[GameRecord]) -> Iterator[list[GameRecord]]:
    """``records`` (in replay order) cut into their months."""
    month: list[GameRecord] = []
    for record in records:
        if month and (record.date.year, record.date.month) != (
            month[0].date.year,
            month[0].date.month,
        ):
            yield month
            month = []
        month.append(record)
    if month:
        yield month


def _gcr_game(
    record: GameRecord, white: tuple[Rank, float], black: tuple[Rank, float]
) -> lab.LabGame:
    matchup = lab.Matchup(
        white=lab.Side(*white),
        black=lab.Side(*black),
        handicap=record.handicap,
        komi=record.komi,
        board_size=record.board_size,
    )
    return lab.LabGame(matchup, record.winner, record.status)


def _gcr_games_from_snapshots(algorithm: Gcr, since: date) -> list[tuple[date, int, lab.LabGame]]:
    """The games GCR rates from ``since`` on (the first day of a month), each predicted
    from the players' month-end snapshot before its month (1500 for a player with no
    games before it; GCR's rank is the entry rank)."""
    name = algorithm.name
    first = RatingSnapshot.objects.filter(algorithm=name, date__lt=since).aggregate(
        last=Max("date")
    )["last"]
    snapshots: dict[date, dict[str, float]] = {}
    rows = RatingSnapshot.objects.filter(algorithm=name, date__gte=first or since)
    for day, username, value in (
        rows.order_by("date").values_list("date", "player__username", "value").iterator()
    ):
        snapshots.setdefault(day, {})[username] = value
    ends = iter(sorted(snapshots.items()))
    upcoming = next(ends, None)
    ratings: dict[str, float] = {}
    entries = player_entries()
    start = float(algorithm.params.initial_rating)
    records, _ids = replay_records(name, ReplayKey(since, 0, 0))  # every record of its day
    games: list[tuple[date, int, lab.LabGame]] = []
    for record in records:
        # the ratings of the month before: the last snapshot before this record's month
        while upcoming is not None and upcoming[0] < record.date.replace(day=1):
            ratings = upcoming[1]
            upcoming = next(ends, None)
        if record.is_adjustment or algorithm.skip_reason(record):
            continue
        white = (entries[record.white].rank, ratings.get(record.white, start))
        black = (entries[record.black].rank, ratings.get(record.black, start))
        games.append((record.date, 0, _gcr_game(record, white, black)))
    return games


def gcr_table(algorithm: Gcr) -> RatingState:
    """GCR's pairwise table of every game it rates, counted by the database
    (:func:`ratings.selectors.count_gcr_table`), rated."""
    state = algorithm.new_state(player_entries())
    count_gcr_table(state)
    algorithm.finish(state)
    return state


def _gcr_accuracy(state: RatingState) -> dict | None:
    accuracy = gcr_engine.accuracy(state)
    if accuracy is None:
        return None
    return {
        "mean": accuracy.mean,
        "first_pass": accuracy.first_pass,
        "reverse_pass": accuracy.reverse_pass,
        "pairs": accuracy.pairs,
    }


def compute_lab_report(algorithm: str, since: date | None = None) -> LabReport:
    """Compute and store the lab's figures for one algorithm (replacing its last report):
    in full, or with ``since`` from that date's month on, the tallies of the months
    before it kept from the last report (``ratings.lab.tallies``). GCR keeps no per-game
    history: see :func:`gcr_dated_games`."""
    engine = get_algorithm(algorithm)
    blocks = engine.rates_tournaments_as_blocks
    stored = LabReport.objects.filter(algorithm=algorithm).values_list("tallies", flat=True)
    kept = next(iter(stored), None) or None
    tallies: dict[str, dict] = {}
    start = None
    from_position = 0
    if since is not None and kept is not None:
        start = _recount_start(since, blocks=blocks)
        first_month = _month(start)
        tallies = {month: part for month, part in kept.items() if month < first_month}
        from_position = _first_position(kept, first_month)
    state = None
    if engine.has_history:
        dated = dated_history_games(
            algorithm, blocks=blocks, since=start, from_position=from_position
        )
    else:
        dated, state = gcr_dated_games(engine, start)
    by_month: dict[str, list[lab.LabGame]] = {}
    first_positions: dict[str, int] = {}
    for day, position, game in dated:
        month = _month(day)
        by_month.setdefault(month, []).append(game)
        first_positions[month] = min(position, first_positions.get(month, position))
    for month, games in by_month.items():
        tallies[month] = lab_tallies.tally(lab.predictions(engine, games))
        tallies[month]["first_position"] = first_positions[month]
    metrics = lab_tallies.metrics(lab_tallies.combined(tallies.values()))
    if state is not None:
        metrics["gcr_accuracy"] = _gcr_accuracy(state)
    counted = metrics["games"]
    report, _created = LabReport.objects.update_or_create(
        algorithm=algorithm,
        defaults={
            "computed_at": timezone.now(),
            "games_counted": counted,
            "metrics": metrics,
            "tallies": tallies,
        },
    )
    return report


def _first_position(tallies: dict[str, dict], first_month: str) -> int:
    """A position before every history row dated from ``first_month`` on, from the last
    report's tallies: the rows dated before that month are the same as when it was
    made (a recompute rewrites from a date on, and that month starts at or before it),
    so the rows from there on start no earlier than the first row of a month from there
    on did then, or, when no such month was counted, than the last month counted."""
    later = [
        part.get("first_position", 0) for month, part in tallies.items() if month >= first_month
    ]
    if later:
        return min(later)
    return max((part.get("first_position", 0) for part in tallies.values()), default=0)


def _month(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def _recount_start(since: date, *, blocks: bool) -> date:
    """The first day of the month of ``since``; with ``blocks``, moved back to the month of
    the first game of any tournament that has games from there on, whose later games
    are predicted from the players' values at its start (its first rows)."""
    start = since.replace(day=1)
    if not blocks:
        return start
    while True:
        spanning = Game.objects.filter(
            tournament_id__in=Game.objects.filter(date__gte=start, tournament__isnull=False).values(
                "tournament_id"
            )
        ).aggregate(first=Min("date"))["first"]
        if spanning is None or spanning >= start:
            return start
        start = spanning.replace(day=1)


def compute_lab_reports(algorithms: Sequence[str]) -> list[LabReport]:
    """The reports of ``algorithms``, skipping any the lab has no prediction for."""
    reports = []
    for name in algorithms:
        if lab.predictor(get_algorithm(name)) is None:
            logger.info("the lab has no prediction for %s; no report", name)
            continue
        reports.append(compute_lab_report(name))
    return reports


def mark_lab_dirty(algorithm: str, start: date | None) -> None:
    """Inside a recompute's transaction: the lab's report of ``algorithm`` is behind from
    ``start`` (None: from the beginning). Its task is queued for after the commit,
    ``RATINGS_LAB_DELAY_SECONDS`` later, unless one is waiting already; the time of
    this mark is kept (``lab_queued_at``), and the waiting task waits until the last
    mark is that old (:func:`update_lab_report`): a burst of writes, each followed by
    a recompute, brings one lab run, at its end."""
    day = start or date.min
    rows = RecomputeState.objects.filter(algorithm=algorithm)
    rows.update(
        lab_dirty_from=Case(
            When(Q(lab_dirty_from__isnull=True) | Q(lab_dirty_from__gt=day), then=Value(day)),
            default=F("lab_dirty_from"),
        )
    )
    now = timezone.now()
    if rows.filter(lab_queued_at__isnull=True).update(lab_queued_at=now):
        _queue_lab_update(algorithm)
    else:
        rows.update(lab_queued_at=now)


def _queue_lab_update(algorithm: str, countdown: float | None = None) -> None:
    """Queue the lab's update of ``algorithm`` for after the commit, ``countdown``
    seconds later (by default ``RATINGS_LAB_DELAY_SECONDS``). The lab only reads: a
    report that fails while tasks run in-process leaves the last report in place (the
    page shows its date) and never fails the recompute or the write that ran it."""
    from ratings.tasks import update_lab_report

    if countdown is None:
        countdown = settings.RATINGS_LAB_DELAY_SECONDS

    def send() -> None:
        try:
            update_lab_report.apply_async((algorithm,), countdown=countdown)
        except Exception:  # in-process, the report's own error
            logger.exception("the lab report of %s was not brought up to date", algorithm)

    transaction.on_commit(send)


def sweep_lab_reports(states: Sequence[RecomputeState]) -> list[str]:
    """Part of the periodic sweep: queue again the lab update of every clean algorithm
    whose report is behind and whose queued update is older than the sweep's period
    plus the lab's delay (its message was lost). Returns the algorithms queued."""
    now = timezone.now()
    stale = now - timedelta(
        seconds=settings.RATINGS_SWEEP_SECONDS + settings.RATINGS_LAB_DELAY_SECONDS
    )
    queued = []
    for state in states:
        if state.lab_dirty_from is None or state.dirty_from is not None:
            continue
        if state.lab_queued_at is not None and state.lab_queued_at > stale:
            continue
        same = (
            Q(lab_queued_at__isnull=True)
            if state.lab_queued_at is None
            else Q(lab_queued_at=state.lab_queued_at)
        )
        rows = RecomputeState.objects.filter(same, algorithm=state.algorithm)
        if rows.update(lab_queued_at=now):
            _queue_lab_update(state.algorithm)
            queued.append(state.algorithm)
    return queued


def update_lab_report(algorithm: str) -> LabReport | None:
    """The lab's debounced task: bring the report of ``algorithm`` up to date, unless
    the last recompute marked it behind less than ``RATINGS_LAB_DELAY_SECONDS`` ago
    (a burst goes on: the task is queued again for when that mark is as old), its
    ratings are still dirty (the recompute that follows queues the lab again) or it is
    up to date already. Never raises for a report the lab cannot make: the page keeps
    the last one, with its date."""
    rows = RecomputeState.objects.filter(algorithm=algorithm)
    wait = _burst_wait(rows.values_list("lab_queued_at", flat=True).first())
    if wait:
        _queue_lab_update(algorithm, countdown=wait)
        return None
    rows.update(lab_queued_at=None)
    state = rows.first()
    if state is None or state.lab_dirty_from is None or state.dirty_from is not None:
        return None
    if lab.predictor(get_algorithm(algorithm)) is None:
        rows.filter(lab_dirty_from=state.lab_dirty_from).update(lab_dirty_from=None)
        return None
    report = compute_lab_report(algorithm, since=state.lab_dirty_from)
    # A recompute that committed meanwhile marked the lab again (lab_queued_at, cleared
    # above, is set) and queued another run; whether or not it moved the date, this run
    # may have read its rows or not: the mark stays for that run.
    rows.filter(lab_dirty_from=state.lab_dirty_from, lab_queued_at__isnull=True).update(
        lab_dirty_from=None
    )
    return report


def _burst_wait(marked_at: datetime | None) -> float:
    """Seconds until the lab's last mark (``marked_at``) is ``RATINGS_LAB_DELAY_SECONDS``
    old, at most that delay (a clock ahead of this one waits no longer); 0 to run now.
    In-process (tasks run eagerly) there is no later to wait for: always 0."""
    from ratings.tasks import update_lab_report

    delay = settings.RATINGS_LAB_DELAY_SECONDS
    if marked_at is None or not delay or update_lab_report.app.conf.task_always_eager:
        return 0.0
    age = (timezone.now() - marked_at).total_seconds()
    return min(float(delay), max(0.0, delay - age))
