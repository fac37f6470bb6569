"""Marking the maintained algorithms' histories dirty from a date when a write touches
games or adjustments (the recompute is queued after the commit)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from django.db import transaction
from django.db.models import Case, F, Min, Q, Value, When
from django.utils import timezone

from players.models import Adjustment, AuditEntry, Game
from ratings.algorithms import maintained_algorithms
from ratings.engine.base import registry
from ratings.models import RecomputeState


def ensure_states() -> None:
    RecomputeState.objects.bulk_create(
        [RecomputeState(algorithm=name) for name in maintained_algorithms()],
        ignore_conflicts=True,
    )


@dataclass(frozen=True, slots=True)
class Touch:
    """A date a write touched: a game's or adjustment's date (old or new), its tournament,
    and for an adjustment the algorithm it is for ("" = all)."""

    date: date
    tournament_id: int | None = None
    algorithm: str = ""


def dirty_dates(touches: Iterable[Touch]) -> dict[str, date]:
    """The earliest date each maintained algorithm must replay from.

    For algorithms that rate a tournament as one block (EGF, the French ladder) a
    tournament game touches the tournament's first date.
    """
    # The earliest date of each (tournament, algorithm) is all that counts: an import
    # of a million games touches a million dates.
    earliest: dict[tuple[int | None, str], date] = {}
    for touch in touches:
        key = (touch.tournament_id, touch.algorithm)
        if key not in earliest or touch.date < earliest[key]:
            earliest[key] = touch.date
    touches = [
        Touch(day, tournament_id, algorithm) for (tournament_id, algorithm), day in earliest.items()
    ]
    tournament_ids = {touch.tournament_id for touch in touches if touch.tournament_id}
    first_dates = dict(
        Game.objects.filter(tournament_id__in=tournament_ids)
        .values("tournament_id")
        .annotate(first=Min("date"))
        .values_list("tournament_id", "first")
    )
    algorithms = registry()
    dates: dict[str, date] = {}
    for name in maintained_algorithms():
        blocks = algorithms[name].rates_tournaments_as_blocks
        for touch in touches:
            if touch.algorithm and touch.algorithm != name:
                continue
            day = touch.date
            if blocks and touch.tournament_id in first_dates:
                day = min(day, first_dates[touch.tournament_id])
            if name not in dates or day < dates[name]:
                dates[name] = day
    return dates


def mark_dirty(touches: Iterable[Touch]) -> dict[str, date]:
    """Move each algorithm's dirty date back to what ``touches`` reach, inside the
    caller's transaction, and queue each dirty algorithm's recompute (the primary one
    first) for after the commit.

    A task is queued only when none is waiting for that algorithm (``queued_at``): a
    burst of writes, or an import calling this thousands of times, queues one task per
    algorithm; the task that runs clears the mark first, so a write made while it runs
    queues one more (at most one waiting and one running).
    """
    dates = dirty_dates(touches)
    if not dates:
        return dates
    ensure_states()
    now = timezone.now()
    for name, day in dates.items():  # in maintained_algorithms() order: primary first
        state = RecomputeState.objects.filter(algorithm=name)
        state.update(
            dirty_from=Case(
                When(Q(dirty_from__isnull=True) | Q(dirty_from__gt=day), then=Value(day)),
                default=F("dirty_from"),
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
            summary=f"full recompute of {algorithm or 'every algorithm'} from {start}",
            after={name: day.isoformat() for name, day in dates.items()},
        )
    return dates
