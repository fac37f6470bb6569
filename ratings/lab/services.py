"""The algorithm lab's reports: computed after each recompute, stored in LabReport.

A report is the engine's ``lab.evaluate`` over the games an algorithm rated, each
predicted from both players' states just before it. For the algorithms with a
history that state is in the stored rows (``value_before``, ``rank_before``): one
query over the algorithm's history, no replay. GCR has no history and is replayed
month by month from the games, as ``lab.gcr_predictions`` does.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import date, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Case, F, Min, Q, Value, When
from django.utils import timezone

from players.models import Game
from ratings.engine import gcr as gcr_engine
from ratings.engine import lab
from ratings.engine.base import RatingState, get_algorithm, replay
from ratings.engine.gcr import Gcr
from ratings.engine.records import GameRecord
from ratings.lab import tallies as lab_tallies
from ratings.models import LabReport, RecomputeState
from ratings.selectors import dated_history_games, player_entries, replay_records

logger = logging.getLogger(__name__)


def gcr_dated_games(
    algorithm: Gcr, since: date | None = None
) -> tuple[list[tuple[date, int, lab.LabGame]], RatingState]:
    """The games GCR rates from ``since`` on, each with its date and both players' GCR
    at the end of the month before its own, as ``lab.gcr_predictions`` makes them; and
    the final state.

    GCR rates its whole table from scratch at every month's end, so the table at the
    end of the month before ``since`` is one rating of all the games before it: those
    are counted into the table and rated once, not month by month again.
    """
    records, _ids = replay_records(algorithm.name)
    entries = player_entries()
    state = algorithm.new_state(entries)
    before: list[GameRecord] = []
    months: dict[str, list[GameRecord]] = {}
    for record in records:
        if since is not None and record.date < since:
            before.append(record)
        else:
            months.setdefault(_month(record.date), []).append(record)
    if before:
        for _ in replay(algorithm, before, entries, state):
            pass
    games: list[tuple[date, int, lab.LabGame]] = []
    for month in months.values():  # in replay order, hence month by month
        for record in month:
            if record.is_adjustment or algorithm.skip_reason(record):
                continue
            white, black = state.player(record.white), state.player(record.black)
            matchup = lab.Matchup(
                white=lab.Side(white.rank, white.value),
                black=lab.Side(black.rank, black.value),
                handicap=record.handicap,
                komi=record.komi,
                board_size=record.board_size,
            )
            game = lab.LabGame(matchup, record.winner, record.status)
            games.append((record.date, 0, game))
        for _ in replay(algorithm, month, entries, state):
            pass
    return games, state


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
    before it kept from the last report (``ratings.lab.tallies``). GCR, which keeps no
    per-game history, is rated once up to that month, then month by month."""
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
    ``RATINGS_LAB_DELAY_SECONDS`` later, unless one is waiting already: a burst of
    writes, each followed by a recompute, brings one lab run at its end."""
    day = start or date.min
    rows = RecomputeState.objects.filter(algorithm=algorithm)
    rows.update(
        lab_dirty_from=Case(
            When(Q(lab_dirty_from__isnull=True) | Q(lab_dirty_from__gt=day), then=Value(day)),
            default=F("lab_dirty_from"),
        )
    )
    if rows.filter(lab_queued_at__isnull=True).update(lab_queued_at=timezone.now()):
        _queue_lab_update(algorithm)


def _queue_lab_update(algorithm: str) -> None:
    """Queue the lab's update of ``algorithm`` for after the commit. The lab only reads:
    a report that fails while tasks run in-process leaves the last report in place (the
    page shows its date) and never fails the recompute or the write that ran it."""
    from ratings.tasks import update_lab_report

    def send() -> None:
        try:
            update_lab_report.apply_async(
                (algorithm,), countdown=settings.RATINGS_LAB_DELAY_SECONDS
            )
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
    its ratings are still dirty (writes keep coming: the recompute that follows queues
    the lab again) or it is up to date already. Never raises for a report the lab
    cannot make: the page keeps the last one, with its date."""
    rows = RecomputeState.objects.filter(algorithm=algorithm)
    rows.update(lab_queued_at=None)
    state = rows.first()
    if state is None or state.lab_dirty_from is None or state.dirty_from is not None:
        return None
    if lab.predictor(get_algorithm(algorithm)) is None:
        rows.filter(lab_dirty_from=state.lab_dirty_from).update(lab_dirty_from=None)
        return None
    report = compute_lab_report(algorithm, since=state.lab_dirty_from)
    # A recompute that committed meanwhile moved the date and queued another run.
    rows.filter(lab_dirty_from=state.lab_dirty_from).update(lab_dirty_from=None)
    return report
