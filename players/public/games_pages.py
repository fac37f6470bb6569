"""Which page of the games search to show, and the links under it.

A page of a big search is found by key (``?before=`` / ``?after=`` a game's
``date.round.seq``, ``?page=last``): one step down the replay-order index at any depth.
A small search (at most ``NUMBERED_PAGES`` pages, counted exactly) is numbered, and old
links (``?page=N``, ``?per_page=``, from before the search paged by key) are served by
number. A key or a number past either end goes to the page at that end.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django.http import HttpRequest
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from players.selectors import games_search
from players.selectors.games_search import GameCount, GameFilters, GameKey, GamesPage
from players.web.pagination import MAX_PER_PAGE, PER_PAGE
from players.web.tabs import page_query

# A search of at most this many pages is numbered (OFFSET is cheap that shallow);
# a bigger one pages by key: First, Newer, Older, Last.
NUMBERED_PAGES = 20
MAX_PAGE_NUMBER = 10**7  # an old link's page past any the database could hold


@dataclass(frozen=True, slots=True)
class PageWanted:
    """The page a query asks for: by key (``before`` or ``after``), the last one, or a
    number (None: the first), ``size`` games a page."""

    before: GameKey | None
    after: GameKey | None
    last: bool
    number: int | None
    size: int

    @property
    def by_key(self) -> bool:
        return self.before is not None or self.after is not None

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> PageWanted | None:
        """The page ``query`` asks for; None when it asks for one that cannot exist (a
        malformed key, both keys, a page that is neither a number nor ``last``)."""
        texts = {name: query.get(name, "").strip() for name in ("before", "after", "page")}
        before = GameKey.parse(texts["before"]) if texts["before"] else None
        after = GameKey.parse(texts["after"]) if texts["after"] else None
        page = texts["page"]
        number = int(page) if page.isascii() and page.isdigit() else None
        if (texts["before"] and before is None) or (texts["after"] and after is None):
            return None
        if before is not None and after is not None:
            return None
        if page not in ("", "last") and not (number is not None and 1 <= number <= MAX_PAGE_NUMBER):
            return None
        return cls(before, after, page == "last", number, _per_page(query.get("per_page", "")))


def _per_page(text: str) -> int:
    """``?per_page=`` of old links (the games table's, before it paged by key), within
    the bounds that table kept (1 to ``MAX_PER_PAGE``); PER_PAGE otherwise."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        return PER_PAGE
    return min(int(text), MAX_PER_PAGE)


@dataclass(frozen=True, slots=True)
class PageShown:
    """The page to show, with the search's count and, numbered, its number of pages."""

    page: GamesPage
    count: GameCount
    pages: int | None = None  # numbered: how many; by key: None

    @property
    def count_text(self) -> str:
        if not self.page.rows:
            return _("No games")  # never "more than 1,000 games" above an empty table
        number = self.count.number
        shown = number_format(number, force_grouping=True)
        if not self.count.exact:
            return ngettext("More than %(count)s game", "More than %(count)s games", number) % {
                "count": shown
            }
        return ngettext("%(count)s game", "%(count)s games", number) % {"count": shown}


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """The wanted page lies past an end (a stale or hand-made link): the query changes
    that lead to the page at that end."""

    changes: dict[str, str]


def page_shown(filters: GameFilters, wanted: PageWanted) -> PageShown | Elsewhere:
    """The page of ``filters``' games that ``wanted`` asks for (see the module)."""
    count = games_search.game_count(filters)
    pages = None
    number = wanted.number
    if count.exact and count.number <= NUMBERED_PAGES * wanted.size and not wanted.by_key:
        pages = max(1, -(-count.number // wanted.size))
        number = pages if wanted.last else min(number or 1, pages)
    page = games_search.game_page(
        filters,
        wanted.size,
        before=wanted.before,
        after=wanted.after,
        from_end=wanted.last and pages is None,
        number=None if wanted.by_key else number,  # a key wins over a page number
    )
    if not page.rows and number is not None and number > 1:  # an old link past the end
        return Elsewhere({"page": "last"})
    if not page.rows and wanted.by_key:
        # Newer than the newest game is the first page; older than the oldest the last.
        return Elsewhere({"page": "last"} if wanted.before is not None else {})
    return PageShown(page, count, pages)


@dataclass(frozen=True, slots=True)
class PageLink:
    label: str
    url: str | None  # None: disabled (already there)
    current: bool = False
    rel: str = "nofollow"  # "prev" and "next" for Newer and Older


def _first(url: str | None) -> PageLink:
    return PageLink(pgettext("page of games", "First"), url)


def _newer(url: str | None) -> PageLink:
    return PageLink(pgettext("page of games", "Newer"), url, rel="prev")


def _older(url: str | None) -> PageLink:
    return PageLink(pgettext("page of games", "Older"), url, rel="next")


def _last(url: str | None) -> PageLink:
    return PageLink(pgettext("page of games", "Last"), url)


def page_links(request: HttpRequest, shown: PageShown) -> list[PageLink]:
    """The links under the games: First, Newer, (numbers,) Older, Last, newest first."""

    def to(**changes: str | None) -> str:
        return reverse("game_search") + page_query(
            request, **{"before": None, "after": None, **changes}
        )

    page, pages = shown.page, shown.pages
    number = page.number
    if pages is not None and number is not None:  # numbered: page_shown asked by number
        numbers = [
            PageLink(str(n), to(page=str(n) if n > 1 else None), n == number)
            for n in range(1, pages + 1)
        ]
        return [
            _first(to() if number > 1 else None),
            _newer(to(page=str(number - 1) if number > 2 else None) if number > 1 else None),
            *(numbers if pages > 1 else []),
            _older(to(page=str(number + 1)) if number < pages else None),
            _last(to(page=str(pages)) if number < pages else None),
        ]
    return [
        _first(to() if page.later else None),
        _newer(to(after=str(page.later)) if page.later else None),
        _older(to(before=str(page.earlier)) if page.earlier else None),
        _last(to(page="last") if page.earlier else None),
    ]
