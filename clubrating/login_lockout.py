"""How django-axes locks out repeated failed log-ins on this site (settings "Log-in
lockout"): the pair of normalised username and client address is locked after
LOGIN_FAILURE_LIMIT failures, and the account itself, from every address, after
LOGIN_ACCOUNT_FAILURE_LIMIT (so that guesses spread over many addresses, an IPv6
network's say, are capped too). The client address is taken behind
TRUSTED_PROXY_COUNT proxies, an IPv6 address as its /64 network (what one household
or server is given); the refusal is a page of the site.

The attempts are kept in the database (axes' database handler), not in the cache, so
that logging in does not depend on Redis. A row of attempts holds no request data and
stops growing at the lock: a locked-out client's further posts write nothing and do
not restart the cool-off (:class:`LockoutHandler`).
"""

import ipaddress
import logging

from axes.backends import AxesStandaloneBackend
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_cool_off, get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Sum
from django.http import QueryDict
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

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


class LockoutHandler(AxesDatabaseHandler):
    """axes' database handler with two changes.

    - The failures counted are those of the pair (username, address); once the
      account's own, from every address, reach LOGIN_ACCOUNT_FAILURE_LIMIT, the pair
      counts as locked whatever its own count (``AXES_LOCKOUT_PARAMETERS`` lists the
      pair first, the username second).
    - No GET or POST data is recorded: axes appends each failure's (up to 1 KB) to the
      row, which anyone could grow without end.
    """

    def get_failures(self, request, credentials=None) -> int:
        pair, account = (
            attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
            for attempts in self.get_user_attempts(request, credentials)
        )
        if account >= settings.LOGIN_ACCOUNT_FAILURE_LIMIT:
            return max(pair, get_failure_limit(request, credentials))
        return pair

    def user_login_failed(self, sender, credentials: dict, request=None, **kwargs):
        if request is None:
            return super().user_login_failed(sender, credentials, request=request, **kwargs)
        kept = request.GET, request.POST
        request.GET = request.POST = QueryDict()
        try:
            return super().user_login_failed(sender, credentials, request=request, **kwargs)
        finally:
            request.GET, request.POST = kept


def account_locked(username: str) -> bool:
    """Whether the account's recent failures, from every address, reached the cap."""
    failures = AccessAttempt.objects.filter(username=username).aggregate(
        total=Sum("failures_since_start")
    )["total"]
    return (failures or 0) >= settings.LOGIN_ACCOUNT_FAILURE_LIMIT


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


def _valid_address(text: str | None) -> str | None:
    """The address as the lockout keys it: an IPv6 address as its /64 network (the
    network address), since a single client is given a whole /64."""
    try:
        address = ipaddress.ip_address((text or "").strip())
    except ValueError:
        return None
    if address.version == 6 and address.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{address}/64", strict=False).network_address)
    return str(address)


def client_address(request) -> str | None:
    """The visitor's address. Behind TRUSTED_PROXY_COUNT proxies (the TLS proxy the
    site runs behind), each proxy appends the address it was reached from to
    X-Forwarded-For; the client is the entry that many places from the right. Entries
    further left are whatever the client sent and are never trusted."""
    remote = _valid_address(request.META.get("REMOTE_ADDR")) or request.META.get("REMOTE_ADDR")
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


def lockout_message(request=None, username: str = "") -> str:
    cool_off = get_cool_off(request)
    minutes = max(1, round(cool_off.total_seconds() / 60)) if cool_off else None
    if username and account_locked(username):
        refused = _("Too many failed log-ins for this username.")
    else:
        refused = _("Too many failed log-ins for this username from your address.")
    if minutes:
        remedy = ngettext(
            "Wait %(minutes)s minute and try again, or ask for a link to choose a new "
            "password (Forgot your password?, or a committee member sends one), which "
            "also lifts the lock.",
            "Wait %(minutes)s minutes and try again, or ask for a link to choose a new "
            "password (Forgot your password?, or a committee member sends one), which "
            "also lifts the lock.",
            minutes,
        ) % {"minutes": minutes}
    else:
        remedy = _(
            "Ask for a link to choose a new password (Forgot your password?, or a "
            "committee member sends one), which also lifts the lock."
        )
    return f"{refused} {remedy}"


def lockout_response(request, original_response=None, credentials=None):
    """The log-in page with the reason, in the site's layout, as 429 Too Many Requests."""
    form = AuthenticationForm(request, initial={"username": request.POST.get("username", "")})
    context = {
        "form": form,
        "lockout": lockout_message(request, attempted_username(request, credentials)),
        "next": request.POST.get("next", request.GET.get("next", "")),
    }
    return render(
        request, "registration/login.html", context, status=settings.AXES_HTTP_RESPONSE_CODE
    )
