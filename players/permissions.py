"""The site's roles, enforced on the server for every view.

Anonymous users read; volunteers (group ``volunteers``) enter and correct games;
committee members (group ``committee``) also resync, adjust, merge and manage
accounts; a player whose account the committee linked to their record reports mistakes
in their games. Staff (superusers) may do everything.
"""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied

from players.selectors.reports import linked_player

VOLUNTEERS = "volunteers"
COMMITTEE = "committee"


def _in_group(user, group: str) -> bool:
    if not user.is_authenticated or not user.is_active:
        return False
    if user.is_superuser:
        return True
    # Cached on the user object: a page asks several times (navigation, buttons).
    names = getattr(user, "_clubrating_groups", None)
    if names is None:
        names = set(user.groups.values_list("name", flat=True))
        user._clubrating_groups = names
    return group in names


def is_volunteer(user) -> bool:
    """Volunteers and committee members (the committee are volunteers too)."""
    return _in_group(user, VOLUNTEERS) or _in_group(user, COMMITTEE)


def is_committee(user) -> bool:
    return _in_group(user, COMMITTEE)


def role_required(check, what: str, remedy: str = ""):
    """A view decorator: anonymous users are sent to log in, users failing ``check``
    get 403 saying who the page is for and, with ``remedy``, what to ask for (the 403
    page reads it from the request; without it, the page says to ask for the role)."""

    def decorator(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not check(request.user):
                request.permission_remedy = remedy
                raise PermissionDenied(f"This page is for {what}.")
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


volunteer_required = role_required(is_volunteer, "volunteers")
committee_required = role_required(is_committee, "committee members")


def has_player_record(user) -> bool:
    """The committee linked ``user``'s account to their player record."""
    return linked_player(user) is not None


player_required = role_required(
    has_player_record,
    "players with their own account (the committee links it to their record)",
    remedy=(
        "If you play in the club, ask a committee member to link your account to your "
        "player record: a role (volunteer or committee) does not give access to this page."
    ),
)
