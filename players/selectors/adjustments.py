"""Reading adjustments: the resyncs (batches of adjustments), what reverting one
changes, a player's adjustments."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db.models import Count, QuerySet

from players.models import Adjustment, Player, ResyncBatch
from players.selectors.players import (
    clubs_members_in_one_query,
    clubs_players,
    national_ranks_before,
)
from ratings.engine.ranks import Rank


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
        players = players.filter(clubs_members_in_one_query(clubs))
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


def player_adjustments(player: Player) -> QuerySet[Adjustment]:
    return (
        Adjustment.objects.filter(player=player)
        .select_related("created_by", "resync_batch")
        .order_by("-date", "-seq")
    )
