"""Reads for the games search, /games/: every valid game, filtered by player, opponent,
dates, tournament, status and handicap, newest first; the API's list of games too.

Each filter is one an index answers (a player's games through ``game_white_date`` and
``game_black_date``, dates through ``game_replay_order``). A page is found from its
neighbour's key in replay order (``GameKey``: date, round, seq), one step down
``game_replay_order`` at any depth, rather than by an OFFSET that walks every game
before it; the last page is the first of the reverse order. The count stops at
``COUNT_CAP``: a million games are never counted per view.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from datetime import date

from django.db.models import Q, QuerySet

from players.models import Game, GameQuerySet, Player, Tournament

# The search's filters by their names in a query string: the web form's fields
# (``players.public.forms.GameSearchForm``) and the API's parameters, each a field of
# GameFilters. A player is named as on the record sheet (``players.lookup.player_from_text``).
FILTER_NAMES = ("player", "opponent", "since", "until", "tournament", "status", "handicap")
HANDICAP_RANGE = (0, 9)  # the handicaps a filter may ask for, both inclusive


@dataclass(frozen=True, slots=True)
class GameFilters:
    """The games search's filters, and the API's (``/api/v1/games/``)."""

    player: Player | None = None
    opponent: Player | None = None  # with ``player``: their games against each other
    since: date | None = None  # both inclusive
    until: date | None = None
    tournament: Tournament | None = None
    status: str | None = ""
    handicap: int | None = None
    include_void: bool = False  # the API's only: the search shows valid games
    newest_first: bool = True

    @property
    def any(self) -> bool:
        """Whether any filter narrows the games (the order and void games aside)."""
        return any(
            value not in (None, "")
            for value in (
                self.player,
                self.opponent,
                self.since,
                self.until,
                self.tournament,
                self.status,
                self.handicap,
            )
        )


def _playing(player: Player) -> Q:
    return Q(white=player) | Q(black=player)


def games(filters: GameFilters) -> GameQuerySet:
    """The games matching ``filters`` (valid ones unless ``include_void``), in replay
    order or, by default, its reverse."""
    found = Game.objects.all() if filters.include_void else Game.objects.valid()
    if filters.player is not None and filters.opponent is not None:
        found = found.filter(
            Q(white=filters.player, black=filters.opponent)
            | Q(white=filters.opponent, black=filters.player)
        )
    elif (either := filters.player or filters.opponent) is not None:
        found = found.filter(_playing(either))
    if filters.since is not None:
        found = found.filter(date__gte=filters.since)
    if filters.until is not None:
        found = found.filter(date__lte=filters.until)
    if filters.tournament is not None:
        found = found.filter(tournament=filters.tournament)
    if filters.status:
        found = found.filter(status=filters.status)
    if filters.handicap is not None:
        found = found.filter(handicap=filters.handicap)
    found = found.select_related("white", "black", "tournament")
    return found.in_replay_order(reverse=filters.newest_first)


# --- pages by key -------------------------------------------------------------------------

# A search an index answers (a player's games, a tournament's) is counted exactly;
# another stops counting here ("more than 1,000"): its count reads about this many
# games divided by the filter's share of all games, however many there are.
COUNT_CAP = 1_000
_KEY = re.compile(r"(\d{4}-\d{2}-\d{2})\.(\d{1,9})\.(\d{1,18})")


@dataclass(frozen=True, slots=True, order=True)
class GameKey:
    """A game's place in replay order (SPEC section 2: date, round, seq), as a page's
    cursor: ``2010-01-26.0.100106`` in a URL."""

    date: date
    round: int
    seq: int

    @classmethod
    def of(cls, game: Game) -> GameKey:
        return cls(game.date, game.round, game.seq)

    @classmethod
    def parse(cls, text: str) -> GameKey | None:
        """The key a URL carries, or None when ``text`` is not one."""
        matched = _KEY.fullmatch(text.strip())
        if matched is None:
            return None
        try:
            day = date.fromisoformat(matched[1])
        except ValueError:
            return None
        return cls(day, int(matched[2]), int(matched[3]))

    def __str__(self) -> str:
        return f"{self.date.isoformat()}.{self.round}.{self.seq}"


def _beyond(key: GameKey, *, later: bool, inclusive: bool = False) -> Q:
    """Games after ``key`` in replay order (``later``), else before it. The date bound
    comes first so that the database starts its step down the index at the key."""
    op = "gt" if later else "lt"
    last = ("gte" if later else "lte") if inclusive else op
    return Q(**{f"date__{'gte' if later else 'lte'}": key.date}) & (
        Q(**{f"date__{op}": key.date})
        | Q(date=key.date, **{f"round__{op}": key.round})
        | Q(date=key.date, round=key.round, **{f"seq__{last}": key.seq})
    )


@dataclass(frozen=True, slots=True)
class GameCount:
    number: int
    exact: bool  # False: more than ``number`` games match


def game_count(filters: GameFilters) -> GameCount:
    """How many games match: exactly for a player's, two players' or a tournament's
    (their index holds them all), else up to ``COUNT_CAP`` (a query that stops there)."""
    matching = games(filters).order_by().values("pk")
    if filters.player is not None or filters.opponent is not None or filters.tournament:
        return GameCount(matching.count(), True)
    found = matching[: COUNT_CAP + 1].count()
    return GameCount(min(found, COUNT_CAP), found <= COUNT_CAP)


def _window(queryset: QuerySet[Game], start: int, stop: int) -> list[Game]:
    """Rows ``start:stop`` of ``queryset``, their ids picked before their players and
    tournament are joined (as ``players.web.pagination.page_first``: an OFFSET would
    join every row it skips)."""
    return list(queryset.filter(pk__in=queryset.values("pk")[start:stop]))


def _any(ordered: QuerySet[Game]) -> bool:
    """Whether ``ordered`` has a row, found in its order: ``exists()`` drops the order,
    and the database then scanned the table from its start to the key."""
    return bool(ordered.values_list("pk", flat=True)[:1])


@dataclass(frozen=True, slots=True)
class GamesPage:
    """One page of the search, in the listing's order, and where its neighbours start."""

    rows: list[Game]
    earlier: GameKey | None  # the page's earliest key, when earlier games match
    later: GameKey | None  # its latest key, when later games match
    number: int | None = None  # the page asked for by number (old links, small sets)


def game_page(
    filters: GameFilters,
    size: int,
    *,
    before: GameKey | None = None,
    after: GameKey | None = None,
    from_end: bool = False,
    number: int | None = None,
    columns: tuple[str, ...] = (),
) -> GamesPage:
    """The ``size`` games just ``before`` (or ``after``) a key in replay order, or the
    listing's first page, its last (``from_end``: the first of the reverse order), or
    page ``number`` (by OFFSET: old links, and the numbered pages of a small search).
    Two queries at most (the page, and whether games lie on the other side of a key).
    ``columns``: only these are loaded (the API's)."""
    ascending = games(dataclasses.replace(filters, newest_first=False))
    descending = games(dataclasses.replace(filters, newest_first=True))
    if columns:
        ascending, descending = ascending.only(*columns), descending.only(*columns)
    more_earlier = more_later = False
    if number is not None:
        listing = descending if filters.newest_first else ascending
        window = _window(listing, (number - 1) * size, number * size + 1)
        further, nearer = len(window) > size, number > 1
        window = window[:size]
        rows = window[::-1] if filters.newest_first else window
        more_earlier, more_later = (further, nearer) if filters.newest_first else (nearer, further)
    elif before is not None or (from_end != filters.newest_first and after is None):
        bounded = descending if before is None else descending.filter(_beyond(before, later=False))
        window = _window(bounded, 0, size + 1)
        more_earlier = len(window) > size
        rows = window[:size][::-1]
        more_later = before is not None and _any(
            ascending.filter(_beyond(before, later=True, inclusive=True))
        )
    else:
        bounded = ascending if after is None else ascending.filter(_beyond(after, later=True))
        window = _window(bounded, 0, size + 1)
        more_later = len(window) > size
        rows = window[:size]
        more_earlier = after is not None and _any(
            descending.filter(_beyond(after, later=False, inclusive=True))
        )
    return GamesPage(
        rows=rows[::-1] if filters.newest_first else rows,
        earlier=GameKey.of(rows[0]) if rows and more_earlier else None,
        later=GameKey.of(rows[-1]) if rows and more_later else None,
        number=number,
    )
