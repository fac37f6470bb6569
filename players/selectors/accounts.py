"""Reading accounts: the system user's name, reserved usernames."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Prefetch, QuerySet

from clubrating.usernames import canonical_username
from players.models import ClubRole
from players.roles import COMMITTEE, VOLUNTEERS

SYSTEM_USERNAME = "system"


def is_reserved_username(username: str) -> bool:
    """Whether ``username`` is, in any spelling, the site's own account."""
    return canonical_username(username) == SYSTEM_USERNAME


def account_for_page(pk: int) -> QuerySet:
    return get_user_model().objects.filter(pk=pk)


def accounts() -> QuerySet:
    """Every login except the site's own, with its roles as two annotated flags, its
    roles for one club (``club_roles``, by club name) and its player record (if linked)."""
    memberships = get_user_model().groups.through.objects.filter(user_id=OuterRef("pk"))
    return (
        get_user_model()
        .objects.exclude(username=SYSTEM_USERNAME)
        .select_related("player")
        .prefetch_related(
            Prefetch(
                "club_roles",
                queryset=ClubRole.objects.select_related("club", "group").order_by(
                    "club__name", "group__name"
                ),
            )
        )
        .annotate(
            in_committee=Exists(memberships.filter(group__name=COMMITTEE)),
            in_volunteers=Exists(memberships.filter(group__name=VOLUNTEERS)),
        )
        .order_by("username")
    )
