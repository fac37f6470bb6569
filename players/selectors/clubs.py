"""Reading clubs: the list, one club, its unrated members."""

from __future__ import annotations

from datetime import date

from django.db.models import (
    Count,
    Exists,
    OuterRef,
    Q,
    QuerySet,
)
from django.http import Http404

from players.models import Club, Player
from players.selectors.ratings import months_before
from ratings.models import CurrentRating

ACTIVE_MONTHS = 12  # "active" on the clubs page: played within the last year


def club_list(today: date) -> QuerySet[Club]:
    """Clubs with their players counted, and those who played within ACTIVE_MONTHS."""
    since = months_before(today, ACTIVE_MONTHS)
    return Club.objects.annotate(
        player_count=Count("players"),
        active_count=Count("players", filter=Q(players__last_played__gte=since)),
    ).order_by("name")


def club_or_404(pk: int) -> Club:
    try:
        return Club.objects.get(pk=pk)
    except Club.DoesNotExist:
        raise Http404(f"no club number {pk}") from None


def unrated_members(club: Club, algorithm: str) -> QuerySet[Player]:
    """The club's players with no rating under ``algorithm`` (no rated game yet)."""
    rated = CurrentRating.objects.filter(algorithm=algorithm, player=OuterRef("pk"))
    return club.players.filter(~Exists(rated)).order_by("full_name", "username")
