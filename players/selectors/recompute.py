"""Reading the recompute's state: each maintained algorithm's status, what waits for a
club, the worker's liveness; each in a fixed, small number of queries."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from django.conf import settings
from django.db.models import Count
from django.utils import timezone

from players.models import Game, Player
from players.selectors.players import (
    club_members,
)
from players.selectors.reports import awaiting_recompute, pending_primary_state
from ratings.algorithms import maintained_algorithms, primary_algorithm
from ratings.engine.algorithms import registry
from ratings.models import RecomputeState
from ratings.recompute import liveness, progress
from ratings.recompute.liveness import running_stalled

if TYPE_CHECKING:
    from players.models import Club


@dataclass(frozen=True)
class AlgorithmStatus:
    """One maintained algorithm on the recompute page."""

    name: str
    title: str
    state: RecomputeState | None
    progress_done: int | None = None
    progress_total: int | None = None
    # Marked running by a runner that stopped beating: its process died.
    stalled: bool = False

    @property
    def running_since(self) -> datetime | None:
        return self.state.running_since if self.state else None

    @property
    def elapsed_seconds(self) -> float | None:
        if self.running_since is None:
            return None
        return (timezone.now() - self.running_since).total_seconds()

    @property
    def percent_done(self) -> int | None:
        if not self.progress_total:
            return None
        return min(100, round(100 * (self.progress_done or 0) / self.progress_total))


def recompute_statuses() -> list[AlgorithmStatus]:
    """The state of every maintained algorithm (one query), with the progress a running
    recompute reports through the cache."""
    algorithms = registry()
    states = {state.algorithm: state for state in RecomputeState.objects.all()}
    statuses = []
    for name in maintained_algorithms():
        state = states.get(name)
        reported = progress.read(name) if state and state.running_since else None
        statuses.append(
            AlgorithmStatus(
                name=name,
                title=algorithms[name].title,
                state=state,
                progress_done=reported["done"] if reported else None,
                progress_total=reported["total"] if reported else None,
                stalled=state is not None and running_stalled(state),
            )
        )
    return statuses


CLUB_WAITING_SHOWN = 50


@dataclass(frozen=True)
class ClubWaiting:
    """What a club's committee follows on the recompute page: the club's games (entered
    for it) the primary algorithm's recompute has yet to show, and its current members
    with games (anywhere) waiting, each with how many."""

    club: Club
    algorithm: str  # the primary algorithm's title
    pending_from: date | None  # None: nothing is pending
    games: list[Game]  # newest first, at most CLUB_WAITING_SHOWN
    game_count: int
    members: list[tuple[Player, int]]  # by name


def club_waiting(club: Club) -> ClubWaiting:
    """The club's games and members awaiting the primary algorithm's recompute (three
    queries after the state's: the club's games by its index, then its members' games
    by theirs)."""
    state = pending_primary_state()
    name = state.algorithm if state is not None else primary_algorithm()
    algorithm = registry()[name].title
    if state is None:
        return ClubWaiting(club, algorithm, None, [], 0, [])
    waiting = Game.objects.valid().filter(awaiting_recompute(state))
    games = waiting.filter(club=club)
    shown = list(
        games.select_related("white", "black").in_replay_order(reverse=True)[:CLUB_WAITING_SHOWN]
    )
    count = len(shown) if len(shown) < CLUB_WAITING_SHOWN else games.count()
    members = Player.objects.filter(club_members(club))
    counts: dict[int, int] = {}
    for side in ("white", "black"):
        rows = (
            waiting.filter(**{f"{side}__in": members.values("pk")})
            .order_by()
            .values_list(f"{side}_id")
            .annotate(n=Count("pk"))
        )
        for player_id, n in rows:
            counts[player_id] = counts.get(player_id, 0) + n
    players = Player.objects.filter(pk__in=counts).order_by("full_name", "username")
    return ClubWaiting(
        club,
        algorithm,
        state.dirty_from,
        shown,
        count,
        [(player, counts[player.pk]) for player in players],
    )


@dataclass(frozen=True)
class WorkerStatus:
    """Whether recomputes can run: in-process (no broker), or a worker's last heartbeat."""

    in_process: bool
    alive: bool
    name: str | None = None
    seconds_since_heartbeat: float | None = None
    unreachable: str = ""  # why the cache holding the heartbeat cannot be read


def worker_status() -> WorkerStatus:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return WorkerStatus(in_process=True, alive=True)
    try:
        beat = liveness.last_worker_heartbeat()
    except Exception as error:  # the cache's errors vary by backend; Redis down is one
        return WorkerStatus(in_process=False, alive=False, unreachable=f"{error}")
    if beat is None:
        return WorkerStatus(in_process=False, alive=False)
    return WorkerStatus(
        in_process=False,
        alive=liveness.worker_alive(beat),
        name=beat["name"],
        seconds_since_heartbeat=time.time() - beat["at"],
    )
