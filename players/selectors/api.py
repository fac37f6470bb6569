"""Reads for the JSON API (players/api/views.py): ordered, filtered querysets that give a
page of rows in one query, and the few rows each page adds in one more.

Filters come in as domain values; the API's views parse and check the parameters.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from django.db.models import Q, QuerySet
from django.db.models.functions import Coalesce

from players.models import Club, Game, Player, Tournament
from players.selectors.games_search import GameFilters  # noqa: F401 (the API view's filters)
from players.selectors.ratings import ratings_as_of
from players.selectors.tournaments import tournament_list
from ratings.models import CurrentRating, RatingHistory, RatingSnapshot, RecomputeState


def _within(rows: QuerySet, field: str, since: date | None, until: date | None) -> QuerySet:
    """Rows whose date ``field`` is within ``since`` and ``until``, both inclusive."""
    if since is not None:
        rows = rows.filter(**{f"{field}__gte": since})
    if until is not None:
        rows = rows.filter(**{f"{field}__lte": until})
    return rows


@dataclass(frozen=True, slots=True)
class PlayerFilters:
    club: Club | None = None
    active: bool | None = None
    search: str = ""
    since: date | None = None  # on last_updated, inclusive
    until: date | None = None


def players(filters: PlayerFilters) -> QuerySet[Player]:
    """Players by username, with their club."""
    rows = Player.objects.select_related("club").order_by("username")
    if filters.club is not None:
        rows = rows.filter(club=filters.club)
    if filters.active is not None:
        rows = rows.filter(active=filters.active)
    if filters.search:
        rows = rows.filter(
            Q(username__icontains=filters.search) | Q(full_name__icontains=filters.search)
        )
    return _within(rows, "last_updated", filters.since, filters.until)


def player(username: str) -> Player | None:
    return Player.objects.select_related("club").filter(username=username).first()


def club(pk: int) -> Club | None:
    return Club.objects.filter(pk=pk).first()


def current_ratings(
    player_ids: Iterable[int], algorithms: Iterable[str]
) -> dict[int, dict[str, CurrentRating]]:
    """The current ratings of these players under these algorithms, by player id and
    algorithm (one query for a whole page of players)."""
    found: dict[int, dict[str, CurrentRating]] = defaultdict(dict)
    rows = CurrentRating.objects.filter(
        player_id__in=list(player_ids), algorithm__in=list(algorithms)
    ).only("player_id", "algorithm", "rank", "value", "games")
    for rating in rows:
        found[rating.player_id][rating.algorithm] = rating
    return found


def ratings_on(
    player_ids: Iterable[int], algorithms: Iterable[str], day: date
) -> dict[int, dict[str, object]]:
    """Like ``current_ratings``, the standings at the end of ``day`` (``ratings_as_of``):
    rows with ``rank``, ``value`` and ``games`` (None for the per-game algorithms), one
    query per algorithm for a whole page of players."""
    found: dict[int, dict[str, object]] = defaultdict(dict)
    ids = list(player_ids)
    for algorithm in algorithms:
        for row in ratings_as_of(algorithm, day, Player.objects.filter(pk__in=ids)):
            found[row.player_id][algorithm] = row
    return found


def ratings_of(
    player_ids: list[int], algorithms: list[str], as_of: date | None
) -> dict[int, dict[str, object]]:
    """The players' ratings today, or as they stood at the end of ``as_of``."""
    if as_of is None:
        return current_ratings(player_ids, algorithms)
    return ratings_on(player_ids, algorithms, as_of)


def recompute_pending_from(algorithms: Iterable[str]) -> dict[str, date]:
    """The date each of these algorithms waits to be recomputed from, if it does."""
    return dict(
        RecomputeState.objects.filter(
            algorithm__in=list(algorithms), dirty_from__isnull=False
        ).values_list("algorithm", "dirty_from")
    )


def history(
    player: Player, algorithm: str, *, since: date | None, until: date | None, newest_first: bool
) -> QuerySet[RatingHistory]:
    """The player's record sheet under a per-game algorithm, with each row's game, its
    tournament, the adjustment and the opponent."""
    rows = RatingHistory.objects.filter(algorithm=algorithm, player=player).select_related(
        "game", "game__tournament", "adjustment", "opponent"
    )
    return _within(rows, "date", since, until).order_by("-position" if newest_first else "position")


def snapshots(
    player: Player, algorithm: str, *, since: date | None, until: date | None, newest_first: bool
) -> QuerySet[RatingSnapshot]:
    """A holistic algorithm's (GCR's) month-end standings of the player."""
    rows = RatingSnapshot.objects.filter(algorithm=algorithm, player=player)
    return _within(rows, "date", since, until).order_by("-date" if newest_first else "date")


def history_or_snapshots(
    player: Player, info, since: date | None, until: date | None, newest_first: bool
) -> QuerySet:
    """The player's rows under an algorithm: per game, or its month-end standings."""
    read = history if info.has_history else snapshots
    return read(player, info.name, since=since, until=until, newest_first=newest_first)


# What a game's JSON shows: a big tournament has thousands of games, and loading every
# column of them and of their players (timestamps converted one by one) cost most of a
# second for EGC 2013.
GAME_JSON_FIELDS = (
    *(
        f.name
        for f in Game._meta.concrete_fields
        if f.name
        not in (
            "created_at",
            "created_by",
            "voided_by",
            "void_reason",
            "version",
            "revision",
            "stored_content",
        )
    ),
    "white__username",
    "black__username",
    "tournament__code",
)


def game(pk: int) -> Game | None:
    return Game.objects.select_related("white", "black", "tournament").filter(pk=pk).first()


def game_ratings(game: Game, algorithms: Iterable[str]) -> list[RatingHistory]:
    """The game's history rows under these algorithms (White's and Black's), one query."""
    return list(
        RatingHistory.objects.filter(game=game, algorithm__in=list(algorithms)).order_by(
            "algorithm", "position"
        )
    )


def tournaments(*, since: date | None, until: date | None) -> QuerySet[Tournament]:
    """Tournaments, newest first, counted (see ``selectors.tournament_list``); with
    dates, those that overlap the range: from the start date (else the first game) to
    the end date (else the last game); a tournament with one of the two lasts a day."""
    rows = tournament_list().annotate(
        starts=Coalesce("start_date", "first_game", "end_date", "last_game"),
        ends=Coalesce("end_date", "last_game", "start_date", "first_game"),
    )
    if since is not None:
        rows = rows.filter(ends__gte=since)
    if until is not None:
        rows = rows.filter(starts__lte=until)
    return rows


def tournament_by_code(code: str) -> Tournament | None:
    """The tournament of that code, without its counts (a filter of the games)."""
    return Tournament.objects.filter(code=code).first() if "\x00" not in code else None


def tournament(code: str) -> Tournament | None:
    return tournament_list().filter(code=code).first()


# A game as the API shows it, in the order ``api._game_values_json`` reads them.
GAME_JSON_VALUES = (
    "pk",
    "seq",
    "date",
    "round",
    "white__username",
    "black__username",
    "white_rank",
    "black_rank",
    "handicap",
    "komi",
    "winner",
    "status",
    "board_size",
    "time_minutes",
    "tournament__code",
    "comment",
    "voided_at",
    "colour_given",
)


def tournament_games(tournament: Tournament) -> QuerySet:
    """The tournament's valid games by round, as ``GAME_JSON_VALUES`` tuples."""
    return tournament.games.valid().order_by("round", "date", "seq").values_list(*GAME_JSON_VALUES)
