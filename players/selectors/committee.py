"""Reads for the committee pages, each in a fixed, small number of queries, so that the
tables never query per row."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, Max, Min, OuterRef, Q, QuerySet
from django.utils import timezone

from players.models import Adjustment, Game, Membership, Player, ResyncBatch, Tournament
from players.roles import COMMITTEE, VOLUNTEERS
from players.selectors.accounts import SYSTEM_USERNAME
from players.selectors.players import (
    club_members,
    clubs_players,
    national_ranks_before,
    ratings_by_algorithm,
)
from players.selectors.reports import awaiting_recompute, pending_primary_state
from ratings.algorithms import maintained_algorithms, primary_algorithm
from ratings.engine.base import registry
from ratings.engine.ranks import Rank
from ratings.models import CurrentRating, RecomputeState
from ratings.recompute import liveness, progress
from ratings.recompute.liveness import running_stalled

if TYPE_CHECKING:
    from players.models import Club

# --- resync -------------------------------------------------------------------------


def last_resync_date() -> date | None:
    """The effective date of the latest resync in force (not reverted): a list older
    than it would set ranks back to before it, whether that resync changed them or
    found them unchanged."""
    return (
        ResyncBatch.objects.filter(reverted_at__isnull=True)
        .order_by("-effective_date")
        .values_list("effective_date", flat=True)
        .first()
    )


def resync_candidates(clubs: frozenset[int] | None = None) -> QuerySet[Player]:
    """The clubs' players a national list resyncs, with just what matching it needs (one
    query): those of the rating list (``clubs_players``), not those seen only at
    imported tournaments, with or without a game there (their national rank is their
    federation's business, and a world list would reset hundreds of them; nor is one
    absent from it news to the club), nor erased or merged records. With ``clubs``,
    the current members of those clubs only (a club's committee resyncs its own)."""
    players = Player.objects.all()
    if clubs is not None:
        members = Membership.objects.filter(club__in=clubs, end__isnull=True)
        players = players.filter(Q(club__in=clubs) | Q(pk__in=members.values("player_id")))
    return (
        players.filter(clubs_players())
        .filter(erased_at__isnull=True, merged_into__isnull=True)
        .only("id", "username", "full_name", "national_rank", "active", "egd_pin", "national_id")
    )


def resync_batches() -> QuerySet[ResyncBatch]:
    return ResyncBatch.objects.select_related("created_by", "reverted_by").annotate(
        # Players, not adjustments: a rating from the list adds one per EGF algorithm.
        adjustment_count=Count("adjustments__player", distinct=True)
    )


def batch_player_count(batch: ResyncBatch) -> int:
    """The players a resync reset (a rating from the list adds one adjustment per EGF
    algorithm)."""
    return batch.adjustments.values("player").distinct().count()


def batch_adjustments(batch: ResyncBatch) -> QuerySet[Adjustment]:
    return batch.adjustments.select_related("player", "created_by").order_by("player__username")


@dataclass(frozen=True)
class RevertedPlayer:
    """What reverting a resync changes for one of its players: the adjustments voided
    (the rank reset, and with the list's ratings one per EGF algorithm) and the
    national rank restored (None: no earlier rank on file)."""

    player: Player
    adjustments: list[Adjustment]
    restored: Rank | None


def resync_revert_plan(batch: ResyncBatch) -> list[RevertedPlayer]:
    """Player by player, what reverting ``batch`` changes (two queries)."""
    restored = national_ranks_before(batch)
    plan: dict[int, RevertedPlayer] = {}
    for adjustment in (
        batch_adjustments(batch).filter(voided_at=None).order_by("player__username", "algorithm")
    ):
        entry = plan.setdefault(
            adjustment.player_id,
            RevertedPlayer(adjustment.player, [], restored.get(adjustment.player_id)),
        )
        entry.adjustments.append(adjustment)
    return list(plan.values())


# --- players ------------------------------------------------------------------------


def player_adjustments(player: Player) -> QuerySet[Adjustment]:
    return (
        Adjustment.objects.filter(player=player)
        .select_related("created_by", "resync_batch")
        .order_by("-date", "-seq")
    )


def player_ratings(player: Player) -> list[CurrentRating]:
    """The player's current rank and value in each maintained algorithm, in the order of
    ``maintained_algorithms`` (the primary first)."""
    ratings = ratings_by_algorithm(player)
    return [ratings[name] for name in maintained_algorithms() if name in ratings]


def player_usernames() -> list[tuple[str, str]]:
    """(username, full name) of the active players, for the pages' <datalist>."""
    return list(Player.objects.active().values_list("username", "full_name"))


@dataclass(frozen=True)
class RecordSummary:
    """What the merge preview shows of one record."""

    player: Player
    games: int
    void_games: int
    adjustments: int
    first: date | None
    last: date | None


def record_summary(player: Player) -> RecordSummary:
    games = Game.objects.filter(Q(white=player) | Q(black=player)).aggregate(
        games=Count("pk", filter=Q(voided_at__isnull=True)),
        void=Count("pk", filter=Q(voided_at__isnull=False)),
        first=Min("date", filter=Q(voided_at__isnull=True)),
        last=Max("date", filter=Q(voided_at__isnull=True)),
    )
    return RecordSummary(
        player=player,
        games=games["games"],
        void_games=games["void"],
        adjustments=Adjustment.objects.valid().filter(player=player).count(),
        first=games["first"],
        last=games["last"],
    )


def tournaments_listing_both(one: Player, other: Player) -> list[str]:
    """The codes of the imported tournaments whose file lists both players, the earliest
    first (one query): a file lists each player once, so such two are two people."""
    return list(
        Tournament.objects.filter(entrants__player=one)
        .filter(entrants__player=other)
        .order_by("start_date", "code")
        .values_list("code", flat=True)
    )


# --- accounts -----------------------------------------------------------------------


def account_for_page(pk: int) -> QuerySet:
    return get_user_model().objects.filter(pk=pk)


def accounts() -> QuerySet:
    """Every login except the site's own, with its roles as two annotated flags and its
    player record (if linked)."""
    memberships = get_user_model().groups.through.objects.filter(user_id=OuterRef("pk"))
    return (
        get_user_model()
        .objects.exclude(username=SYSTEM_USERNAME)
        .select_related("player")
        .annotate(
            in_committee=Exists(memberships.filter(group__name=COMMITTEE)),
            in_volunteers=Exists(memberships.filter(group__name=VOLUNTEERS)),
        )
        .order_by("username")
    )


# --- recompute ----------------------------------------------------------------------


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
