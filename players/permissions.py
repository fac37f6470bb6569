"""The views' side of the site's roles (``players.roles``): the decorators that send
anonymous users to log in and refuse the others with a 403, and the 403 page itself.
Services and selectors check roles through ``players.roles``, never this module.
"""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext_lazy
from django.views.defaults import permission_denied

from players.roles import is_committee, is_volunteer
from players.selectors.reports import linked_player


def denied(request, exception=None):
    """The site's 403 view (handler403): a ClubRefusal's remedy on the page."""
    remedy = getattr(exception, "remedy", "")
    if remedy:
        request.permission_remedy = remedy
    return permission_denied(request, exception)


def role_required(check, refusal, remedy=""):
    """A view decorator: anonymous users are sent to log in, users failing ``check``
    get 403 with ``refusal`` (who the page is for) and, with ``remedy``, what to ask for
    (the 403 page reads it from the request; without it, the page says to ask for the
    role). Both are lazy translations, read in the request's language."""

    def decorator(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not check(request.user):
                request.permission_remedy = remedy
                raise PermissionDenied(str(refusal))
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


volunteer_required = role_required(is_volunteer, gettext_lazy("This page is for volunteers."))
committee_required = role_required(
    is_committee, gettext_lazy("This page is for committee members.")
)


def has_player_record(user) -> bool:
    """The committee linked ``user``'s account to their player record."""
    return linked_player(user) is not None


player_required = role_required(
    has_player_record,
    gettext_lazy(
        "This page is for players with their own account (the committee links it to their record)."
    ),
    remedy=gettext_lazy(
        "If you play in the club, ask a committee member to link your account to your "
        "player record: a role (volunteer or committee) does not give access to this page."
    ),
)
