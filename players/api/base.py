"""What every endpoint of the read-only JSON API shares (docs/api.md): the view
decorator, query parameters checked one by one, the error shape and pagination.

A view raises :class:`ApiError` for anything the client got wrong; the decorator turns
it into ``{"error": {"field": ..., "message": ...}}`` with its status. A view returns a
plain dict; the decorator makes it JSON with the caching headers.
"""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.cache import get_conditional_response, patch_cache_control, set_response_etag
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt

from players.selectors import games_search
from players.web.pagination import page_first

API_VERSION = "1"
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
# A page number beyond any list (a billion pages of 500): its offset still fits the
# database's 64-bit integers, which 9223372036854775807 pages do not.
MAX_PAGE = 1_000_000_000
CACHE_SECONDS = 60
SAFE_METHODS = ("GET", "HEAD")
PAGE_PARAMETERS = ("page", "page_size")
CURSOR_PARAMETERS = ("before", "after")  # the games': a game's date.round.seq

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TRUE = ("1", "true", "yes")
_FALSE = ("0", "false", "no")


class ApiError(Exception):
    """A request the API cannot answer: 400 for a malformed parameter, 404 for a
    well-formed one naming something that does not exist."""

    def __init__(self, status: int, field: str | None, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.field = field
        self.message = message


def not_found(field: str, message: str) -> ApiError:
    return ApiError(404, field, message)


def _json(request: HttpRequest, data: dict, status: int = 200) -> HttpResponse:
    response = JsonResponse(
        data,
        status=status,
        json_dumps_params={"ensure_ascii": False},
        content_type="application/json; charset=utf-8",
    )
    # Every answer is the same for everyone: shared caches may keep it for a minute.
    patch_cache_control(response, public=True, max_age=CACHE_SECONDS)
    return response


def error_response(request: HttpRequest, status: int, field: str | None, message: str):
    return _json(request, {"error": {"field": field, "message": message}}, status)


def api_view(view: Callable[..., dict]) -> Callable[..., HttpResponse]:
    """A read-only endpoint: GET and HEAD only (anything else 405, in the error shape),
    no login, no CSRF check (it never writes), JSON with ``Cache-Control: public,
    max-age=60`` and an ETag that turns a repeated request into a 304."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.method not in SAFE_METHODS:
            response = error_response(
                request,
                405,
                None,
                _("this API is read-only: %(method)s is not allowed, use GET")
                % {"method": request.method},
            )
            response["Allow"] = ", ".join(SAFE_METHODS)
            return response
        try:
            data = view(request, *args, **kwargs)
        except ApiError as error:
            return error_response(request, error.status, error.field, error.message)
        response = _json(request, data)
        set_response_etag(response)
        # Given a response, it returns that one or a 304/412 in its place, never None.
        return (
            get_conditional_response(request, etag=response["ETag"], response=response) or response
        )

    return csrf_exempt(wrapper)


class Params:
    """A request's query parameters, read by name; anything not listed in ``allowed``
    and any parameter given twice is refused, so that a typo never passes silently."""

    def __init__(self, request: HttpRequest, allowed: Iterable[str]) -> None:
        self.query = request.GET
        allowed = set(allowed)
        for name in self.query:
            if name not in allowed:
                known = ", ".join(sorted(allowed)) or "none"
                raise ApiError(
                    400,
                    name,
                    _("unknown parameter; this endpoint takes: %(known)s") % {"known": known},
                )
            if len(self.query.getlist(name)) > 1:
                raise ApiError(400, name, _("given more than once"))
            if "\x00" in self.query[name]:
                raise ApiError(400, name, _("contains a NUL character"))

    def text(self, name: str) -> str:
        return self.query.get(name, "").strip()

    def integer(self, name: str, *, default: int | None, minimum: int, maximum: int | None = None):
        raw = self.text(name)
        if not raw:
            return default
        if not raw.isascii() or not raw.isdigit():
            raise ApiError(400, name, _("'%(raw)s' is not a whole number") % {"raw": raw})
        value = int(raw)
        if value < minimum or (maximum is not None and value > maximum):
            message = (
                _("must be between %(minimum)s and %(maximum)s; got %(value)s")
                if maximum is not None
                else _("must be >= %(minimum)s; got %(value)s")
            )
            raise ApiError(
                400, name, message % {"minimum": minimum, "maximum": maximum, "value": value}
            )
        return value

    def date(self, name: str) -> date | None:
        raw = self.text(name)
        if not raw:
            return None
        if not _ISO_DATE.fullmatch(raw):
            raise ApiError(
                400, name, _("'%(raw)s' is not a date in the form YYYY-MM-DD") % {"raw": raw}
            )
        try:
            return date.fromisoformat(raw)
        except ValueError as error:
            raise ApiError(
                400,
                name,
                _("'%(raw)s' is not a valid date: %(error)s") % {"raw": raw, "error": error},
            ) from None

    # ``datetime.date``: in this class ``date`` names the method above.
    def date_range(self) -> tuple[datetime.date | None, datetime.date | None]:
        """``since`` and ``until``, both inclusive."""
        since, until = self.date("since"), self.date("until")
        if since is not None and until is not None and until < since:
            raise ApiError(
                400,
                "until",
                _("%(until)s is before since (%(since)s)") % {"until": until, "since": since},
            )
        return since, until

    def newest_first(self) -> bool:
        """``order``: ``newest`` (the default) or ``oldest``."""
        return self.choice("order", ("newest", "oldest"), "newest") == "newest"

    def boolean(self, name: str) -> bool | None:
        raw = self.text(name).lower()
        if not raw:
            return None
        if raw in _TRUE:
            return True
        if raw in _FALSE:
            return False
        raise ApiError(
            400,
            name,
            _("'%(raw)s' is not one of %(choices)s")
            % {"raw": raw, "choices": ", ".join(_TRUE + _FALSE)},
        )

    def choice(self, name: str, choices: Iterable[str], default: str | None = None):
        raw = self.text(name)
        if not raw:
            return default
        choices = list(choices)
        if raw not in choices:
            raise ApiError(
                400,
                name,
                _("'%(raw)s' is not one of %(choices)s")
                % {"raw": raw, "choices": ", ".join(choices)},
            )
        return raw


def page_url(request: HttpRequest, page: int) -> str:
    """The absolute URL of this request with another page number."""
    query = request.GET.copy()
    query["page"] = str(page)
    return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")


@dataclass(frozen=True, slots=True)
class Page:
    rows: list
    envelope: dict[str, Any]  # count, page, page_size, next, previous


def paginate(
    request: HttpRequest, params: Params, queryset: QuerySet, *, rows_first: bool = True
) -> Page:
    """One page of an ordered queryset, in two queries: the count and the page.

    With ``rows_first`` the page is ``players.web.pagination.page_first``: on a deep
    page of the games, joining the skipped rows costs more than the page itself. A
    queryset with aggregate annotations slices as it is.
    """
    number = params.integer("page", default=1, minimum=1, maximum=MAX_PAGE)
    size = params.integer("page_size", default=DEFAULT_PAGE_SIZE, minimum=1, maximum=MAX_PAGE_SIZE)
    count = queryset.count()
    last = max(1, -(-count // size))
    if number > last:
        raise not_found(
            "page",
            _("page %(number)s is past the last page (%(last)s)")
            % {"number": number, "last": last},
        )
    start = (number - 1) * size
    if rows_first:
        rows = page_first(queryset, slice(start, start + size))
    else:
        rows = list(queryset[start : start + size])
    return Page(
        rows,
        {
            "count": count,
            "page": number,
            "page_size": size,
            "next": page_url(request, number + 1) if number < last else None,
            "previous": page_url(request, number - 1) if number > 1 else None,
        },
    )


def _cursor_url(request: HttpRequest, name: str, key: games_search.GameKey) -> str:
    """The absolute URL of this request from another key on (no page number)."""
    query = request.GET.copy()
    for dropped in ("page", *CURSOR_PARAMETERS):
        query.pop(dropped, None)
    query[name] = str(key)
    return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")


def _cursor(params: Params, name: str) -> games_search.GameKey | None:
    raw = params.text(name)
    if not raw:
        return None
    key = games_search.GameKey.parse(raw)
    if key is None:
        raise ApiError(
            400,
            name,
            _("'%(raw)s' is not a game's key (date.round.seq, as `next` gives)") % {"raw": raw},
        )
    return key


def paginate_by_key(
    request: HttpRequest, params: Params, filters, columns: tuple[str, ...] = ()
) -> Page:
    """A page of the games search, found from a key (``before``/``after``: the games
    just before or after a game in replay order) at the cost of a first page at any
    depth; ``next`` and ``previous`` carry the keys on. ``page`` still works (by
    OFFSET, as before; its links are page numbers), and ``page=last`` (the first page of
    the reverse order; its links are cursors). ``count`` stops at
    ``games_search.COUNT_CAP`` (``count_exact`` false: more games match). ``columns``:
    only these are loaded."""
    before, after = _cursor(params, "before"), _cursor(params, "after")
    if before is not None and after is not None:
        raise ApiError(400, "after", _("give before or after, not both"))
    at_end = params.text("page") == "last"
    number = None if at_end else params.integer("page", default=0, minimum=1, maximum=MAX_PAGE)
    number = number or None
    if (number is not None or at_end) and (before is not None or after is not None):
        raise ApiError(400, "page", _("give a page number or a cursor (before, after), not both"))
    size = params.integer("page_size", default=DEFAULT_PAGE_SIZE, minimum=1, maximum=MAX_PAGE_SIZE)
    count = games_search.game_count(filters)
    if count.exact and number is not None:
        last = max(1, -(-count.number // size))
        if number > last:
            raise not_found(
                "page",
                _("page %(number)s is past the last page (%(last)s)")
                % {"number": number, "last": last},
            )
    page = games_search.game_page(
        filters, size, before=before, after=after, number=number, from_end=at_end, columns=columns
    )
    if number is not None and number > 1 and not page.rows:
        raise not_found("page", _("page %(number)s is past the last page") % {"number": number})
    further, nearer = (
        (page.earlier, page.later) if filters.newest_first else (page.later, page.earlier)
    )
    if number is not None:
        following = page_url(request, number + 1) if further else None
        preceding = page_url(request, number - 1) if number > 1 else None
    else:
        forward, backward = ("before", "after") if filters.newest_first else ("after", "before")
        following = _cursor_url(request, forward, further) if further else None
        preceding = _cursor_url(request, backward, nearer) if nearer else None
    return Page(
        page.rows,
        {
            "count": count.number,
            "count_exact": count.exact,
            # the last page by key is a full page: no page number falls on it
            "page": number if number is not None else (None if before or after or at_end else 1),
            "page_size": size,
            "next": following,
            "previous": preceding,
        },
    )
