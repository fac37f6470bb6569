"""Reads for the games search, /games/: every valid game, filtered by player, opponent,
dates, tournament, status and handicap, newest first; the API's list of games too.

Each filter is one an index answers (a player's games through ``game_white_date`` and
``game_black_date``, dates through ``game_replay_order``), and the page is counted
lazily (django-tables2's LazyPaginator): a million games are never counted per view.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db.models import Q, QuerySet

from players.models import Game, Player, Tournament


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


def games(filters: GameFilters) -> QuerySet[Game]:
    """The games matching ``filters`` (valid ones unless ``include_void``), in replay
    order or, by default, its reverse."""
    found = Game.objects.all() if filters.include_void else Game.objects.valid()
    if filters.player is not None and filters.opponent is not None:
        found = found.filter(
            Q(white=filters.player, black=filters.opponent)
            | Q(white=filters.opponent, black=filters.player)
        )
    elif filters.player is not None or filters.opponent is not None:
        found = found.filter(_playing(filters.player or filters.opponent))
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
