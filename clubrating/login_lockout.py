"""How django-axes locks out repeated failed log-ins on this site (settings "Log-in
lockout"): the pair of normalised username and client address is locked, the client
address taken behind TRUSTED_PROXY_COUNT proxies, and the refusal is a page of the site.

The attempts are kept in the database (axes' database handler), not in the cache, so
that logging in does not depend on Redis.
"""

import ipaddress
import logging

from axes.backends import AxesStandaloneBackend
from axes.helpers import get_cool_off
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm
from django.shortcuts import render

from clubrating.usernames import canonical_username

logger = logging.getLogger(__name__)

# AccessAttempt.username is 255 characters long.
_USERNAME_LENGTH = 255


class LockoutBackend(AxesStandaloneBackend):
    """Refuses a locked-out pair before any password is checked. ``authenticate()``
    without a request (a management command, the test client's ``login()``) is not a
    web log-in and has no client address to lock: it passes to the next backend."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def attempted_username(request, credentials) -> str:
    """The username of a log-in attempt, as the site compares usernames: full-width
    letters and case give the same lockout key as the account's own spelling."""
    field = get_user_model().USERNAME_FIELD
    if credentials and credentials.get(field) is not None:
        typed = credentials[field]
    else:
        typed = request.POST.get(field, "") if request is not None else ""
    # PostgreSQL refuses a NUL in text: the attempt is recorded without it.
    return canonical_username(str(typed)).replace("\x00", "")[:_USERNAME_LENGTH]


def _valid_address(text: str) -> str | None:
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        return None


def client_address(request) -> str | None:
    """The visitor's address. Behind TRUSTED_PROXY_COUNT proxies (the TLS proxy the
    site runs behind), each proxy appends the address it was reached from to
    X-Forwarded-For; the client is the entry that many places from the right. Entries
    further left are whatever the client sent and are never trusted."""
    remote = request.META.get("REMOTE_ADDR")
    count = settings.TRUSTED_PROXY_COUNT
    if count <= 0:
        return remote
    forwarded = [
        item.strip()
        for item in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        if item.strip()
    ]
    if len(forwarded) < count:
        logger.warning(
            "X-Forwarded-For has %d addresses behind %d trusted proxies: using the "
            "connection's address (is TRUSTED_PROXY_COUNT right?)",
            len(forwarded),
            count,
        )
        return remote
    address = _valid_address(forwarded[-count])
    if address is None:
        logger.warning("X-Forwarded-For entry %r is not an address", forwarded[-count])
        return remote
    return address


def lockout_message(request=None) -> str:
    cool_off = get_cool_off(request)
    minutes = max(1, round(cool_off.total_seconds() / 60)) if cool_off else None
    wait = f"Wait {minutes} minutes and try again, or ask" if minutes else "Ask"
    return (
        f"Too many failed log-ins for this username from your address. {wait} for a "
        "link to choose a new password (Forgot your password?, or a committee member "
        "sends one), which also lifts the lock."
    )


def lockout_response(request, original_response=None, credentials=None):
    """The log-in page with the reason, in the site's layout, as 429 Too Many Requests."""
    form = AuthenticationForm(request, initial={"username": request.POST.get("username", "")})
    context = {
        "form": form,
        "lockout": lockout_message(request),
        "next": request.POST.get("next", request.GET.get("next", "")),
    }
    return render(
        request, "registration/login.html", context, status=settings.AXES_HTTP_RESPONSE_CODE
    )
