"""Marking the maintained algorithms' histories dirty from a place in the replay order
when a write touches games or adjustments (the recompute is queued after the commit)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from django.db import transaction
from django.db.models import (
    BigIntegerField,
    Case,
    F,
    Min,
    PositiveIntegerField,
    Q,
    Value,
    When,
)
from django.utils import timezone

from players import stored_sentences as sentences
from players.models import Adjustment, AuditEntry, Game
from ratings.algorithms import maintained_algorithms
from ratings.engine.algorithms import registry
from ratings.engine.messages import Message
from ratings.models import RecomputeState
from ratings.selectors import ReplayKey


def ensure_states() -> None:
    """Give every maintained algorithm its ``RecomputeState`` row, if it has none yet.

    Every task and every write that marks the algorithms runs this: the rows are
    counted first, and created only when some are missing (the insert that ignores the
    rows already there cost a recompute 2.5 ms of CPU, a back-dated entry's 4%)."""
    names = maintained_algorithms()
    if RecomputeState.objects.filter(algorithm__in=names).count() == len(names):
        return
    RecomputeState.objects.bulk_create(
        [RecomputeState(algorithm=name) for name in names], ignore_conflicts=True
    )


@dataclass(frozen=True, slots=True)
class Touch:
    """A place a write touched: a game's or adjustment's date (old or new), its tournament,
    for an adjustment the algorithm it is for ("" = all), and for a game its round and
    entry number, its place in the replay order on that date (0 and 0: the start of the
    day, what a write that cannot name one record touches)."""

    date: date
    tournament_id: int | None = None
    algorithm: str = ""
    round: int = 0
    seq: int = 0

    @property
    def key(self) -> ReplayKey:
        return ReplayKey(self.date, self.round, self.seq)


def dirty_dates(touches: Iterable[Touch]) -> dict[str, date]:
    """The earliest date each maintained algorithm must replay from (see
    :func:`dirty_keys`)."""
    return {name: key.date for name, key in dirty_keys(touches).items()}


def dirty_keys(touches: Iterable[Touch]) -> dict[str, ReplayKey]:
    """The earliest place in the replay order each maintained algorithm must replay from.

    For algorithms that rate a tournament as one block (EGF, the French ladder) a
    tournament game touches the start of the tournament's first date.
    """
    # The earliest place of each (tournament, algorithm) is all that counts: an import
    # of a million games touches a million places.
    earliest: dict[tuple[int | None, str], ReplayKey] = {}
    for touch in touches:
        key = (touch.tournament_id, touch.algorithm)
        if key not in earliest or _order(touch.key) < _order(earliest[key]):
            earliest[key] = touch.key
    touches = [
        Touch(place.date, tournament_id, algorithm, place.round, place.seq)
        for (tournament_id, algorithm), place in earliest.items()
    ]
    tournament_ids = {touch.tournament_id for touch in touches if touch.tournament_id}
    first_dates = dict(
        Game.objects.filter(tournament_id__in=tournament_ids)
        .values("tournament_id")
        .annotate(first=Min("date"))
        .values_list("tournament_id", "first")
    )
    algorithms = registry()
    keys: dict[str, ReplayKey] = {}
    for name in maintained_algorithms():
        blocks = algorithms[name].rates_tournaments_as_blocks
        for touch in touches:
            if touch.algorithm and touch.algorithm != name:
                continue
            place = touch.key
            if blocks and touch.tournament_id in first_dates:
                place = ReplayKey(min(place.date, first_dates[touch.tournament_id]), 0, 0)
            if name not in keys or _order(place) < _order(keys[name]):
                keys[name] = place
    return keys


def _order(key: ReplayKey) -> tuple[date, int, int]:
    return (key.date, key.round, key.seq)


def mark_dirty(touches: Iterable[Touch]) -> dict[str, date]:
    """Move each algorithm's dirty date back to what ``touches`` reach, inside the
    caller's transaction, and queue each dirty algorithm's recompute (the primary one
    first) for after the commit.

    A task is queued only when none is waiting for that algorithm (``queued_at``): a
    burst of writes, or an import calling this thousands of times, queues one task per
    algorithm; the task that runs clears the mark first, so a write made while it runs
    queues one more (at most one waiting and one running).
    """
    keys = dirty_keys(touches)
    dates = {name: key.date for name, key in keys.items()}
    if not keys:
        return dates
    ensure_states()
    now = timezone.now()
    for name, place in keys.items():  # in maintained_algorithms() order: primary first
        day = place.date
        state = RecomputeState.objects.filter(algorithm=name)
        # Every SET reads the row as it was: the three move together, when the mark
        # is later than ``place`` (or absent).
        earlier = (
            Q(dirty_from__isnull=True)
            | Q(dirty_from__gt=day)
            | Q(dirty_from=day, dirty_round__gt=place.round)
            | Q(dirty_from=day, dirty_round=place.round, dirty_seq__gt=place.seq)
        )
        state.update(
            dirty_from=Case(When(earlier, then=Value(day)), default=F("dirty_from")),
            dirty_round=Case(
                When(earlier, then=Value(place.round)),
                default=F("dirty_round"),
                output_field=PositiveIntegerField(),
            ),
            dirty_seq=Case(
                When(earlier, then=Value(place.seq)),
                default=F("dirty_seq"),
                output_field=BigIntegerField(),
            ),
            touched_from=Case(
                When(Q(touched_from__isnull=True) | Q(touched_from__gt=day), then=Value(day)),
                default=F("touched_from"),
            ),
            generation=F("generation") + 1,
        )
        if state.filter(queued_at__isnull=True).update(queued_at=now):
            queue_recompute(name)
    return dates


def queue_recompute(algorithm: str) -> None:
    """Send ``algorithm``'s recompute task once the current transaction commits (at once
    outside one). A broker that is down only delays it: the task's ``apply_async``
    logs the error, the write stands, and the periodic sweep queues it again."""
    from ratings.tasks import recompute_algorithm

    recompute_algorithm.delay_on_commit(algorithm)


def forget_queued(algorithm: str) -> None:
    """The task of ``algorithm`` could not be sent (the broker is down): drop its queued
    mark, so that the next sweep queues it at once instead of waiting for the mark to
    age."""
    RecomputeState.objects.filter(algorithm=algorithm).update(queued_at=None)


def earliest(*days: date | None) -> date | None:
    present = [day for day in days if day is not None]
    return min(present) if present else None


def request_full_recompute(*, user, algorithm: str = "") -> dict[str, date]:
    """Mark one maintained algorithm ("" = all) dirty from the earliest game or adjustment,
    so that the next run replays it from the start; audited. Returns the dates marked
    (nothing when there are no games or adjustments yet)."""
    if algorithm and algorithm not in maintained_algorithms():
        raise ValueError(f"'{algorithm}' is not a maintained algorithm")
    firsts = [
        Game.objects.valid().aggregate(first=Min("date"))["first"],
        Adjustment.objects.valid().aggregate(first=Min("date"))["first"],
    ]
    start = earliest(*firsts)
    if start is None:
        return {}
    with transaction.atomic():
        dates = mark_dirty([Touch(start, None, algorithm)])
        AuditEntry.objects.create(
            user=user,
            action="recompute_request",
            object_type="algorithm",
            object_id=algorithm or "all",
            summary=(
                Message(sentences.FULL_RECOMPUTE, algorithm=algorithm, start=start)
                if algorithm
                else Message(sentences.FULL_RECOMPUTE_OF_EVERY_ALGORITHM, start=start)
            ),
            after={name: day.isoformat() for name, day in dates.items()},
        )
    return dates
