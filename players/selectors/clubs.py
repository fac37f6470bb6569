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

from players.models import Club, ClubRole, Player
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


def clubs_among(club_ids: frozenset[int] | None) -> QuerySet[Club]:
    """The clubs of ``club_ids`` (None: every club), by name."""
    clubs = Club.objects.order_by("name")
    return clubs if club_ids is None else clubs.filter(pk__in=club_ids)


def account_club_roles(account) -> QuerySet[ClubRole]:
    """The roles ``account`` holds for single clubs, by club."""
    return (
        ClubRole.objects.filter(user=account)
        .select_related("club", "group")
        .order_by("club__name", "group__name")
    )


def club_people(club: Club) -> dict[str, list[str]]:
    """The usernames holding each role for ``club`` alone (its volunteers, its
    committee): names only, as the club's page shows them."""
    people: dict[str, list[str]] = {"volunteers": [], "committee": []}
    rows = (
        ClubRole.objects.filter(club=club, user__is_active=True)
        .order_by("user__username")
        .values_list("group__name", "user__username")
    )
    for group, username in rows:
        people.setdefault(group, []).append(username)
    return people
