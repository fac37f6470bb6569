"""The algorithm lab's reports: computed after each recompute, stored in LabReport.

A report is the engine's ``lab.evaluate`` over the games an algorithm rated, each
predicted from both players' states just before it. For the algorithms with a
history that state is in the stored rows (``value_before``, ``rank_before``): one
query over the algorithm's history, no replay. A holistic algorithm (GCR) has no
history: each game is predicted from the players' standings at the end of the month
before its own, which are the recompute's month-end snapshots (``RatingSnapshot``),
so the lab reads them and never rates the table month by month again
(``holistic.lab_games`` is what it reads them in place of).

The figures are kept as tallies of runs of games with exact sums
(``ratings.lab.tallies``), counted a month at a time and merged into runs that grow
longer back in the history (``_merged``): a report brought up to date from a place in
the replay order keeps every run that lies wholly before it and counts only the games
from there on (and the earlier games of a run it cuts, at most a quarter more), so
that after a game entered after the last it counts that game.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Collection, Iterable, Iterator, Sequence
from datetime import date, timedelta
from typing import Any, overload

from django.conf import settings
from django.db import connection, transaction
from django.db.models import (
    Q,
)
from django.utils import timezone

from players.models import Game
from ratings.engine import lab
from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import Algorithm, RatingState, no_cycle_collection
from ratings.engine.holistic import Holistic, predicted_matchup
from ratings.engine.records import GameRecord
from ratings.lab import tallies as lab_tallies
from ratings.models import LabReport, RatingSnapshot, RecomputeState
from ratings.selectors import (
    IDS_PER_QUERY,
    ReplayKey,
    count_holistic_table,
    placed_history_games,
    player_entries,
    replay_records,
)

logger = logging.getLogger(__name__)

# A partial count reads the entries and month-end snapshots of the players of the games it
# counts, by name, when they are this few at most (one query's list of names each).
FEW_PLAYERS = IDS_PER_QUERY

# A game's place in the replay order: (date, round, entry number).
Place = tuple[date, int, int]
# What the lab counts: each game with its place, the position of its first history
# row (0 for a holistic algorithm) and its matchup and result.
PlacedGames = Iterable[tuple[Place, int, lab.LabGame]]


def holistic_games(algorithm: Holistic, since: ReplayKey | None = None) -> PlacedGames:
    """The games a holistic algorithm rates from the place ``since`` on (every one when
    None), each predicted from the players' month-end snapshot before its month (the
    initial value for a player with no games before it; the rank is the entry rank):
    exactly what ``holistic.lab_games`` makes by rating every month end, read from the
    snapshots the recompute wrote. The snapshots stream in date order beside the games,
    so only one month's standings are held at a time; when the games from ``since`` on
    have few players, only those players' entries and snapshots are read."""
    records = _rated_records(algorithm, since)
    players = None
    if since is not None:
        records, players = _with_few_players(records)
    snapshots = _month_end_snapshots(algorithm.name, since, players)
    upcoming = next(snapshots, None)
    ratings: dict[str, float] = {}
    entries = player_entries(players)
    for record in records:
        # the standings of the month before: every snapshot row before this month
        month_start = record.date.replace(day=1)
        while upcoming is not None and upcoming[0] < month_start:
            ratings[upcoming[1]] = upcoming[2]
            upcoming = next(snapshots, None)
        white, black = entries[record.white], entries[record.black]
        matchup = predicted_matchup(
            record,
            lab.Side(white.rank, _month_before(ratings, record.white, algorithm, white)),
            lab.Side(black.rank, _month_before(ratings, record.black, algorithm, black)),
        )
        assert record.winner is not None  # _rated_records keeps only games with a result
        yield record.order_key, 0, lab.LabGame(matchup, record.winner, record.status)


def _rated_records(algorithm: Holistic, since: ReplayKey | None) -> Iterator[GameRecord]:
    """The games with a result that ``algorithm`` rates, from ``since`` on."""
    records, _ids = replay_records(algorithm.name, since)
    for record in records:
        if record.is_adjustment or record.winner is None or algorithm.skip_reason(record):
            continue
        yield record


def _with_few_players(
    records: Iterator[GameRecord],
) -> tuple[Iterator[GameRecord], set[str] | None]:
    """``records`` again, and their players if there are at most ``FEW_PLAYERS`` of
    them (None if more: the caller reads every player's, as a full count does). Reads
    the records until it knows, and holds only those."""
    read: list[GameRecord] = []
    players: set[str] = set()
    for record in records:
        read.append(record)
        players.update((record.white, record.black))
        if len(players) > FEW_PLAYERS:
            return itertools.chain(read, records), None
    return iter(read), players


def _month_end_snapshots(
    name: str, since: ReplayKey | None, players: Collection[str] | None
) -> Iterator[tuple[date, str, float]]:
    """The month-end snapshots (date, player, value) in date order that the games from
    ``since`` on are predicted from: every one when None, else from the last month end
    before the month of ``since`` (or that month's start) on; only those of ``players``
    when named."""
    rows = (
        RatingSnapshot.objects.filter(algorithm=name)
        .order_by("date")
        .values_list("date", "player__username", "value")
    )
    if players is not None:
        rows = rows.filter(player__username__in=sorted(players))
    if since is not None:
        first = since.date.replace(day=1) if since.date > date.min else date.min
        kept = rows.filter(date__lt=first).order_by("-date").values_list("date", flat=True)[:1]
        rows = rows.filter(date__gte=kept) if kept.exists() else rows.filter(date__gte=first)
    return rows.iterator(chunk_size=10_000)


def _month_before(ratings: dict[str, float], player: str, algorithm: Holistic, entry: Any) -> float:
    """``player``'s value at the last month end before the game, or the initial value
    of a player with none (made only then: a new player's state made for every side
    of every game was about a twentieth of GCR's lab, full or not)."""
    value = ratings.get(player)
    return float(algorithm.new_player(entry).value) if value is None else value


def holistic_table(algorithm: Holistic) -> RatingState:
    """The table of every game a holistic algorithm rates, counted by the database
    (:func:`ratings.selectors.count_holistic_table`), rated."""
    state = algorithm.new_state(player_entries())
    count_holistic_table(state)
    algorithm.finish(state)
    return state


def _holistic_figures(algorithm: Holistic) -> dict[str, Any]:
    """What a holistic algorithm adds to the lab: as its last recompute left them
    (``RecomputeState.holistic_figures``, from the table it rated), or, before any
    recompute stored them, from the table counted by the database and rated."""
    stored = (
        RecomputeState.objects.filter(algorithm=algorithm.name)
        .values_list("holistic_figures", flat=True)
        .first()
    )
    if stored is not None:
        return stored
    return algorithm.lab_figures(holistic_table(algorithm))


@overload
def _place(key: None) -> None: ...
@overload
def _place(key: ReplayKey | date | Sequence[Any]) -> ReplayKey: ...
def _place(key: ReplayKey | date | Sequence[Any] | None) -> ReplayKey | None:
    """A place in the replay order from a date (the start of that day), a stored
    ``[iso date, round, seq]`` or a key; None stays None."""
    if key is None or isinstance(key, ReplayKey):
        return key
    if isinstance(key, date):
        return ReplayKey(key, 0, 0)
    day, round_number, seq = key
    return ReplayKey(date.fromisoformat(day) if isinstance(day, str) else day, round_number, seq)


def _stored(place: Place | ReplayKey) -> list:
    if isinstance(place, ReplayKey):
        place = (place.date, place.round, place.seq)
    return [place[0].isoformat(), place[1], place[2]]


def _as_tuple(key: ReplayKey) -> Place:
    return (key.date, key.round, key.seq)


def compute_lab_report(algorithm: str, since: ReplayKey | date | None = None) -> LabReport:
    """Compute and store the lab's figures for one algorithm (replacing its last report):
    in full, or with ``since`` (a place in the replay order, or a date: its start)
    from there on, the runs of games before it kept from the last report. Python's
    cycle collector is off meanwhile (``no_cycle_collection``): the games and tallies
    hold no cycles, and a collection that fell in a short update walked every object of
    the worker again, as long as the update itself."""
    with no_cycle_collection():
        return _computed_lab_report(algorithm, _place(since))


def _computed_lab_report(algorithm: str, start: ReplayKey | None) -> LabReport:
    engine = get_algorithm(algorithm)
    blocks = engine.rates_tournaments_as_blocks
    pk, kept_tallies = _stored_tallies(algorithm)
    tallies: dict[str, dict] = {}
    from_position = 0
    if start is not None and kept_tallies and _are_runs(kept_tallies):
        start, tallies = _recount_start(kept_tallies, start, blocks=blocks)
        from_position = max((part["last_position"] for part in tallies.values()), default=0)
    else:
        start = None
    if isinstance(engine, Holistic):
        placed: PlacedGames = holistic_games(engine, start)
    else:
        placed = placed_history_games(
            algorithm, blocks=blocks, since=start, from_position=from_position
        )
    tallies = _merged({**tallies, **_tally_runs(engine, placed)})
    metrics = lab_tallies.metrics(lab_tallies.combined(tallies.values()))
    if isinstance(engine, Holistic):
        metrics.update(_holistic_figures(engine))
    figures = {
        "computed_at": timezone.now(),
        "games_counted": metrics["games"],
        "metrics": metrics,
        "tallies": tallies,
    }
    # One UPDATE of the row read above (an update_or_create read the whole row again,
    # its tallies decoded twice more); a report not there yet is created.
    if pk is None or not _report_updated(pk, figures):
        report, _created = LabReport.objects.update_or_create(algorithm=algorithm, defaults=figures)
        return report
    return LabReport(pk=pk, algorithm=algorithm, **figures)


# The report's row read and written as SQL: built by the ORM, the two statements cost a
# short update as much CPU as counting 20 games.
def _stored_tallies(algorithm: str) -> tuple[int | None, dict[str, dict] | None]:
    """The stored report's key and tallies (one read: the tallies only), or Nones."""
    table = connection.ops.quote_name(LabReport._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, tallies FROM {table} WHERE algorithm = %s", [algorithm])
        row = cursor.fetchone()
    if row is None:
        return None, None
    pk, tallies = row
    # JSON text on every backend (Django reads PostgreSQL's jsonb as text too)
    return pk, json.loads(tallies) if isinstance(tallies, (str, bytes)) else tallies


def _report_updated(pk: int, figures: dict[str, Any]) -> bool:
    """The report ``pk`` given ``figures``; False if it is not there."""
    table = connection.ops.quote_name(LabReport._meta.db_table)
    ops = connection.ops
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET computed_at = %s, games_counted = %s, metrics = %s, "
            "tallies = %s WHERE id = %s",
            [
                ops.adapt_datetimefield_value(figures["computed_at"]),
                figures["games_counted"],
                ops.adapt_json_value(figures["metrics"], None),
                ops.adapt_json_value(figures["tallies"], None),
                pk,
            ],
        )
        return cursor.rowcount > 0


def _are_runs(tallies: dict[str, dict]) -> bool:
    """Whether the stored tallies are runs with exact sums (a report stored before
    they were is counted again in full)."""
    return bool(tallies) and all("last_position" in part for part in tallies.values())


def _month(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def _run_key(month: str, first: Place) -> str:
    """A run's key: its month, then its first place (keys sort in replay order)."""
    return f"{month}/{first[0].isoformat()}/{first[1]:05d}/{first[2]:012d}"


def _tally_runs(engine: Algorithm, placed: PlacedGames) -> dict[str, dict]:
    """The tallies of ``placed`` games, one run per month, each with the first and last
    places of its games and the positions of its first and last game's first rows."""
    runs: dict[str, list] = {}  # month -> [games, first place, last place, positions]
    for place, position, game in placed:
        month = _month(place[0])
        run = runs.get(month)
        if run is None:
            run = runs[month] = [[], place, place, position, position]
        run[0].append(game)
        if place < run[1]:
            run[1] = place
        if place > run[2]:
            run[2] = place
        run[3], run[4] = min(run[3], position), max(run[4], position)
    result = {}
    for month, (games, first, last, first_position, last_position) in runs.items():
        part = lab_tallies.tally(lab.predictions(engine, games))
        part.update(
            first=_stored(first),
            last=_stored(last),
            first_position=first_position,
            last_position=last_position,
        )
        result[_run_key(month, first)] = part
    return result


# How the stored runs are merged (``_merged``): a run may hold at most a quarter as many
# games as all the runs after it, or ``RUN_GAMES_FLOOR`` games. A place in a run
# recounts the run from its first game: at most a quarter more than the games from the
# place on, or that floor. The runs grow by a quarter from one to the one before it,
# so a report keeps a few dozen of them whatever the size of the history (one a month,
# 107 on the real tournaments, was 178 kB of JSON read, added up and written again at
# every update), and games entered one at a time do not each keep a run of their own.
LATER_GAMES_PER_RUN_GAME = 4
RUN_GAMES_FLOOR = 16


def _merged(tallies: dict[str, dict]) -> dict[str, dict]:
    """The runs merged, from the newest back, while a merged run holds at most a
    ``LATER_GAMES_PER_RUN_GAME``th of the games after it or ``RUN_GAMES_FLOOR`` games:
    exact sums add up in any order, so the figures do not change."""
    result: dict[str, dict] = {}
    later = 0  # the games of the runs after the group
    group: list[str] = []
    group_games = 0
    for key in sorted(tallies, reverse=True):  # keys sort in replay order
        games = lab_tallies.games(tallies[key])
        limit = max(later // LATER_GAMES_PER_RUN_GAME, RUN_GAMES_FLOOR)
        if group and group_games + games > limit:
            result[group[-1]] = _one_run([tallies[name] for name in group])
            later, group, group_games = later + group_games, [], 0
        group.append(key)
        group_games += games
    if group:
        result[group[-1]] = _one_run([tallies[name] for name in group])
    return result


def _one_run(parts: list[dict]) -> dict:
    """Runs merged into one: their sums added, from the first place to the last."""
    if len(parts) == 1:
        return parts[0]
    merged = lab_tallies.combined(parts)
    merged.update(
        first=min((part["first"] for part in parts), key=_stored_order),
        last=max((part["last"] for part in parts), key=_stored_order),
        first_position=min(part["first_position"] for part in parts),
        last_position=max(part["last_position"] for part in parts),
    )
    return merged


def _stored_order(stored: list) -> Place:
    return _as_tuple(_place(stored))


def _recount_start(
    tallies: dict[str, dict], since: ReplayKey, *, blocks: bool
) -> tuple[ReplayKey, dict[str, dict]]:
    """Where to count from, for a report behind from ``since``, and the runs kept: those
    whose games all lie before that place. A run with a game at or after ``since`` is
    counted again from its first game (a run is not split). With ``blocks`` (EGF, the
    French ladder) the place moves back to the first game of any tournament that has
    games from there on: its later games are predicted from the players' values at its
    start (its first rows)."""
    # each run's first and last places, read once
    spans = {
        key: (_stored_order(part["first"]), _stored_order(part["last"]))
        for key, part in tallies.items()
    }
    # The runs first, then the tournaments, until neither moves the place: the place
    # each gives is the same in either order, and a run that begins at a tournament's
    # start (as one counted again from there does) leaves a single statement to make.
    place = since
    while True:
        at = _as_tuple(place)
        earlier = min((first for first, last in spans.values() if last >= at), default=at)
        if earlier < at:
            place = ReplayKey(*earlier)
            continue
        tournament_start = _tournament_start(place) if blocks else place
        if tournament_start == place:
            kept = {key: part for key, part in tallies.items() if spans[key][1] < at}
            return place, kept
        place = tournament_start


def _tournament_start(place: ReplayKey) -> ReplayKey:
    """``place``, or the first game of the earliest tournament that began before it and
    has games at or after it (repeated until no tournament straddles the place)."""
    while True:
        first = _first_game_of_tournaments_from(place)
        if first is None or first >= _as_tuple(place):
            return place
        place = ReplayKey(*first)


def _first_game_of_tournaments_from(place: ReplayKey) -> Place | None:
    """The first game (its place) of the tournaments with games at or after ``place``,
    voided ones included. One statement written out: the ORM's compiling of the same
    query (a subquery and three alternatives) cost five times its running, a tenth of a
    short update's time.

    The first day of those tournaments is found per tournament (their games by the
    tournament's index) and only that day's games are ordered: asked for the first of
    their games in the replay order directly, PostgreSQL walked every game in that order
    from the first until one was theirs (15,468 games, 45 ms, for a tournament near the
    end of a site of 15,900; every game of a history of a million)."""
    table = connection.ops.quote_name(Game._meta.db_table)
    day = connection.ops.adapt_datefield_value(place.date)
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH started AS (SELECT tournament_id FROM {table} WHERE tournament_id IS NOT NULL "
            "AND date >= %s AND (date > %s OR (date = %s AND "
            "(round > %s OR (round = %s AND seq >= %s))))), "
            f"firsts AS (SELECT MIN(date) AS first FROM {table} "
            "WHERE tournament_id IN (SELECT tournament_id FROM started) GROUP BY tournament_id) "
            f"SELECT date, round, seq FROM {table} "
            "WHERE tournament_id IN (SELECT tournament_id FROM started) "
            "AND date = (SELECT MIN(first) FROM firsts) ORDER BY date, round, seq LIMIT 1",
            [day, day, day, place.round, place.round, place.seq],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    day, round_number, seq = row
    return (day if isinstance(day, date) else date.fromisoformat(day), round_number, seq)


def compute_lab_reports(algorithms: Sequence[str]) -> list[LabReport]:
    """The reports of ``algorithms``, skipping any the lab has no prediction for."""
    reports = []
    for name in algorithms:
        if lab.predictor(get_algorithm(name)) is None:
            logger.info("the lab has no prediction for %s; no report", name)
            continue
        reports.append(compute_lab_report(name))
    return reports


def mark_lab_dirty(algorithm: str, start: ReplayKey | date | None) -> None:
    """Inside a recompute's transaction: the lab's report of ``algorithm`` is behind from
    the place ``start`` in the replay order (a date: its start; None: from the
    beginning), or from its mark if that is earlier. Its task is queued for after the
    commit, ``RATINGS_LAB_DELAY_SECONDS`` later, unless one is waiting already; the
    time of this mark is kept (``lab_queued_at``), and the waiting task waits until the
    last mark is that old (:func:`update_lab_report`): a burst of writes, each followed
    by a recompute, brings one lab run, at its end."""
    place = _place(start) or ReplayKey(date.min, 0, 0)
    table = connection.ops.quote_name(RecomputeState._meta.db_table)
    ops = connection.ops
    now = timezone.now()
    earlier = (
        "(lab_dirty_from IS NULL OR lab_dirty_from > %s OR (lab_dirty_from = %s AND "
        "(lab_dirty_round > %s OR (lab_dirty_round = %s AND lab_dirty_seq > %s))))"
    )
    day = ops.adapt_datefield_value(place.date)
    is_earlier = [day, day, place.round, place.round, place.seq]
    # Written as SQL: built by the ORM (three Case expressions of one condition), the
    # statements cost every recompute 2 ms of CPU, as much as its month ends' queries.
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET lab_queued_at = %s WHERE algorithm = %s AND lab_queued_at IS NULL",
            [ops.adapt_datetimefield_value(now), algorithm],
        )
        queue = cursor.rowcount > 0
        # One statement: every expression reads the row as it was.
        cursor.execute(
            f"UPDATE {table} SET "
            f"lab_dirty_from = CASE WHEN {earlier} THEN %s ELSE lab_dirty_from END, "
            f"lab_dirty_round = CASE WHEN {earlier} THEN %s ELSE lab_dirty_round END, "
            f"lab_dirty_seq = CASE WHEN {earlier} THEN %s ELSE lab_dirty_seq END, "
            "lab_queued_at = %s WHERE algorithm = %s",
            [
                *is_earlier,
                day,
                *is_earlier,
                place.round,
                *is_earlier,
                place.seq,
                ops.adapt_datetimefield_value(now),
                algorithm,
            ],
        )
    if queue:
        _queue_lab_update(algorithm)


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
    wait = _burst_wait(algorithm)
    if wait:
        _queue_lab_update(algorithm, countdown=wait)
        return None
    state = _taken_lab_mark(algorithm)
    if state is None:
        return None
    dirty_from, mark = state
    if mark is None or dirty_from is not None:
        return None
    if lab.predictor(get_algorithm(algorithm)) is None:
        rows = RecomputeState.objects.filter(algorithm=algorithm, lab_dirty_from=mark.date)
        rows.update(lab_dirty_from=None)
        return None
    report = compute_lab_report(algorithm, since=mark)
    _clear_lab_mark(algorithm, mark)
    return report


# The task's statements on the algorithm's state, written as SQL: built by the ORM, the
# four of them cost a short update a millisecond of CPU, a third of its fixed part.
def _taken_lab_mark(algorithm: str) -> tuple[date | None, ReplayKey | None] | None:
    """The task takes its queued mark (``lab_queued_at`` cleared, then the row read,
    in that order: a recompute that commits after the read sets it again, and the
    mark stays for the run it queues): the ratings' dirty date and the lab's mark
    (None: current); None if ``algorithm`` has no state."""
    table = connection.ops.quote_name(RecomputeState._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET lab_queued_at = NULL WHERE algorithm = %s", [algorithm])
        cursor.execute(
            "SELECT dirty_from, lab_dirty_from, lab_dirty_round, lab_dirty_seq "
            f"FROM {table} WHERE algorithm = %s",
            [algorithm],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    dirty_from, lab_dirty_from, lab_dirty_round, lab_dirty_seq = row
    if lab_dirty_from is None:
        return dirty_from, None
    return dirty_from, _place([lab_dirty_from, lab_dirty_round, lab_dirty_seq])


def _clear_lab_mark(algorithm: str, mark: ReplayKey) -> None:
    """The lab is current: its mark cleared, unless a recompute that committed
    meanwhile marked the lab again (``lab_queued_at``, cleared when the task took the
    mark, is set) and queued another run. Whether or not it moved the place, this run
    may have read its rows or not: the mark stays for that run."""
    table = connection.ops.quote_name(RecomputeState._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET lab_dirty_from = NULL, lab_dirty_round = 0, lab_dirty_seq = 0 "
            "WHERE algorithm = %s AND lab_dirty_from = %s AND lab_dirty_round = %s "
            "AND lab_dirty_seq = %s AND lab_queued_at IS NULL",
            [
                algorithm,
                connection.ops.adapt_datefield_value(mark.date),
                mark.round,
                mark.seq,
            ],
        )


def _burst_wait(algorithm: str) -> float:
    """Seconds until the lab's last mark of ``algorithm`` (``lab_queued_at``) is
    ``RATINGS_LAB_DELAY_SECONDS`` old, at most that delay (a clock ahead of this one
    waits no longer); 0 to run now. In-process (tasks run eagerly) there is no later
    to wait for: always 0, and the mark's time is not read."""
    from ratings.tasks import update_lab_report

    delay = settings.RATINGS_LAB_DELAY_SECONDS
    if not delay or update_lab_report.app.conf.task_always_eager:
        return 0.0
    marked_at = (
        RecomputeState.objects.filter(algorithm=algorithm)
        .values_list("lab_queued_at", flat=True)
        .first()
    )
    if marked_at is None:
        return 0.0
    age = (timezone.now() - marked_at).total_seconds()
    return min(float(delay), max(0.0, delay - age))
