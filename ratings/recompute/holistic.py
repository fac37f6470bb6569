"""The recompute of a holistic algorithm (``ratings.engine.holistic``; GCR): no per-game
history, the current standings from all games and month-end snapshots
(``RatingSnapshot``) for the chart, the list as of a day, the API and the lab.

``run._rewrite`` hands an algorithm that keeps no history here; nothing in this module
knows which holistic algorithm it rates.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, timedelta

from django.db.models import Max

from players.fields import rank_to_code
from ratings.engine.base import RatingState, no_cycle_collection
from ratings.engine.holistic import Holistic, rated_month_ends
from ratings.engine.records import GameRecord
from ratings.models import RatingSnapshot, RecomputeState
from ratings.recompute import staging
from ratings.recompute.current import replace_current
from ratings.selectors import (
    ReplayKey,
    count_holistic_table,
    last_replay_date,
    player_entries,
    player_ids,
    replay_records,
)


def rewrite(algorithm: Holistic, start: date | None) -> int:
    """The standings from all games, and month-end snapshots for the chart, from one
    pass over the games (``holistic.rated_month_ends``); the snapshot rows written.

    From a dirty date (``start``), the snapshots of the months before its month stay
    (the games up to their month ends did not change), and so does the table up to the
    last of them: the database counts it (``count_holistic_table``), and only the games
    after it are read and only the months from the dirty one on are rated
    (:func:`_resume`)."""
    name = algorithm.name
    entries = player_entries()
    ids = player_ids()
    state = algorithm.new_state(entries)  # no records: nobody is rated
    rate_from, first_unread = _resume(name, start, state)
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
    writes.later(stale.delete)
    rated = rated_month_ends(algorithm, records, entries, rate_from=rate_from, state=state)
    # ``state`` is the table rated_month_ends fills and rates.
    written = _write_snapshots(algorithm, rated, set(_month_ends(records)), ids)
    writes.later(lambda: replace_current(name, state, ids))
    # The lab's own figures of the table just rated (the lab runs after this commits).
    figures = algorithm.lab_figures(state) if records or first_unread is not None else None
    states = RecomputeState.objects.filter(algorithm=name)
    writes.later(lambda: states.update(holistic_figures=figures))
    return written


def _resume(name: str, start: date | None, state: RatingState) -> tuple[date | None, date | None]:
    """Where the pass of ``name`` from the dirty date ``start`` rates from (the first day
    of a month; None: every month) and reads from (None: every game), the table of the
    games before the latter counted into ``state``.

    The month that is now the last one gets no snapshot (its standings are the current
    ones), so the rating starts at the last month when the history now ends before the
    dirty month, and at the month that was the last when the history now goes on past
    it (the first month read: :func:`rewrite`). An entry in the last month rates that
    month; the first entry of a new month, two months."""
    last = last_replay_date(name) if start is not None else None
    if start is None or last is None:
        return None, None
    rate_from = min(start, last).replace(day=1)
    kept_until = RatingSnapshot.objects.filter(algorithm=name, date__lt=rate_from).aggregate(
        last=Max("date")
    )["last"]
    if kept_until is None:
        return rate_from, None
    first_unread = kept_until + timedelta(days=1)
    count_holistic_table(state, before=first_unread)
    return rate_from, first_unread


def _write_snapshots(
    algorithm: Holistic,
    rated: Iterable[tuple[date, RatingState]],
    wanted: set[date],
    ids: dict[str, int],
) -> int:
    """Write the snapshot of every month end of ``rated`` that is ``wanted``; the rows
    written."""
    name = algorithm.name
    columns = ("algorithm", "player_id", "date", "rank", "value", "games")
    # A month's rating may make a tuple per pair (GCR); with the cycle collector off,
    # the records and the table are not walked again at every month end.
    with staging.current().rows(RatingSnapshot, columns) as snapshots, no_cycle_collection():
        for month_end, state in rated:
            if month_end not in wanted:
                continue
            for standing in algorithm.standings(state):
                if standing.games:
                    snapshots.add(
                        (
                            name,
                            ids[standing.player],
                            month_end,
                            rank_to_code(standing.rank),
                            float(standing.value),
                            standing.games,
                        )
                    )
    return snapshots.written


def _month_ends(records: Sequence[GameRecord]) -> list[date]:
    """The last day of every month that has games, before the month of the last game."""
    months = sorted({(record.date.year, record.date.month) for record in records})
    ends = []
    for year, month in months[:-1]:
        next_month = date(year + (month == 12), month % 12 + 1, 1)
        ends.append(next_month - timedelta(days=1))
    return ends
