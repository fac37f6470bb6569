"""Reading ratings: the rating list (now and as of a date), its CSV rows, the recompute
notice."""

from __future__ import annotations

import calendar
import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from operator import itemgetter
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from players.fields import code_to_rank, rank_to_code
from players.lookup import player_index
from players.models import Adjustment, Club, Game, Player, Tournament
from players.selectors.exports import spreadsheet_safe
from players.selectors.players import club_members, clubs_players, dated_within
from ratings.engine.algorithms import registry
from ratings.engine.formats.history import format_value
from ratings.engine.ranks import Rank
from ratings.models import (
    CurrentRating,
    MonthEnd,
    MonthEndStanding,
    RatingHistory,
    RatingSnapshot,
    RecomputeState,
)


@dataclass(frozen=True, slots=True)
class RatingListFilters:
    """The rating list's filters, as domain values (the filter form builds this)."""

    club: Club | None = None
    weakest: Rank | None = None
    strongest: Rank | None = None
    active_since: date | None = None
    search: str = ""
    # False: the clubs' players only (``clubs_players``), not those seen only at
    # imported tournaments, with or without a game there
    everyone: bool = False
    as_of: date | None = None  # the list as it stood at the end of that day


def months_before(day: date, months: int) -> date:
    """The same day ``months`` calendar months earlier (the month's last day if shorter)."""
    month_index = day.year * 12 + day.month - 1 - months
    year, month = divmod(month_index, 12)
    last_day = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last_day))


def rating_list(algorithm: str, filters: RatingListFilters) -> QuerySet | RatingsOfDay:
    """The players rated by ``algorithm``, strongest first: by rank, then value.

    Only players with a rating under the algorithm are listed (a player appears after
    their first game it rates, or an adjustment); the club page names its members who
    are not rated yet. Unless ``filters.everyone``, only the clubs' players are listed
    (``clubs_players``): not those seen only at imported tournaments. So a row with no
    game is a club's player whom an adjustment or a resync gave a rank (a club starting
    from the national list). Each row has ``player``, ``rank``, ``value``, ``games`` and
    ``last_updated``: the current ratings (a queryset), or with
    ``filters.as_of`` the standings at the end of that day (``RatingsOfDay``, the rows
    of ``ratings_as_of`` filtered and sorted in memory). Activity is the date of the
    latest game played (``Player.last_played``, kept by every write of games), or with
    ``filters.as_of`` the date of the player's last row on or before it, counted back
    from that day.
    """
    if filters.as_of is not None:
        return _rating_list_of_day(algorithm, filters)
    ratings = CurrentRating.objects.filter(algorithm=algorithm).annotate(
        last_updated=F("player__last_updated")
    )
    ratings = ratings.filter(_admitted(filters, "player__")).select_related(
        "player", "player__club"
    )
    if filters.weakest is not None:
        ratings = ratings.filter(rank__gte=filters.weakest)
    if filters.strongest is not None:
        ratings = ratings.filter(rank__lte=filters.strongest)
    if filters.active_since is not None:
        ratings = ratings.filter(player__last_played__gte=filters.active_since)
    return ratings.order_by("-rank", "-value", "player__username")


def _rating_list_of_day(algorithm: str, filters: RatingListFilters) -> RatingsOfDay:
    """The list as of ``filters.as_of``: the day's row of every player the filters admit
    by their own fields, read in one query, then filtered by rank and activity."""
    assert filters.as_of is not None
    players = Player.objects.filter(_admitted(filters))
    rows = _rows_of_day(algorithm, filters.as_of, players)
    weakest = rank_to_code(filters.weakest) if filters.weakest is not None else None
    strongest = rank_to_code(filters.strongest) if filters.strongest is not None else None
    since = filters.active_since
    if weakest is not None or strongest is not None or since is not None:
        rows = [
            row
            for row in rows
            if (weakest is None or row[_RANK] >= weakest)
            and (strongest is None or row[_RANK] <= strongest)
            and (since is None or row[_LAST_UPDATED] >= since)
        ]
    count_games = (
        GamesRatedBy(algorithm, filters.as_of)
        if registry()[algorithm].has_history
        else None  # GCR's month-end snapshots have their games
    )
    return RatingsOfDay(rows, players, count_games=count_games).order_by(
        *RatingsOfDay.STRONGEST_FIRST
    )


@dataclass(frozen=True, slots=True)
class GamesRatedBy:
    """How many games ``algorithm`` had rated of a player by the end of ``day``: their
    history rows of games dated on or before it (what the current list's ``games``
    counts, of that day). Either count reads each player's rows up to the day (the
    history's player-date index)."""

    algorithm: str
    day: date

    def _rows(self) -> QuerySet[RatingHistory]:
        return RatingHistory.objects.filter(
            algorithm=self.algorithm, date__lte=self.day, game__isnull=False
        )

    def of(self, players: QuerySet[Player]) -> dict[int, int]:
        """The count of each of ``players``, in one grouped query; players with none
        are left out."""
        return dict(
            self._rows()
            .filter(player__in=players)
            .values_list("player_id")
            .annotate(games=Count("id"))
            .order_by()
        )

    def of_each_player(self) -> Coalesce:
        """The count of each player of a query of players, as an annotation of it (a
        subquery per player: for a page of them, read with their names in one query)."""
        counted = (
            self._rows()
            .filter(player=OuterRef("pk"))
            .order_by()
            .values("player")
            .annotate(games=Count("id"))
            .values("games")
        )
        return Coalesce(Subquery(counted), 0)


def _admitted(filters: RatingListFilters, prefix: str = "") -> Q:
    """The players the list's filters admit by their own fields (``prefix``: the path
    to the player)."""
    admitted = Q()
    if filters.club is not None:
        admitted &= club_members(filters.club, filters.as_of, prefix)
    elif not filters.everyone:
        admitted &= clubs_players(prefix)
    if filters.search:
        # The player lookup's search: names in any order and without their accents,
        # EGD PINs (a few thousand ids at most, in one IN list).
        admitted &= Q(**{f"{prefix}pk__in": player_index().search_ids(filters.search)})
    return admitted


@dataclass(frozen=True, slots=True)
class StandingOfDay:
    """A player's standing at the end of a day (``ratings_as_of``); ``player`` is loaded
    for the rows of the list's page, None elsewhere."""

    player_id: int
    rank: Rank
    value: float
    games: int | None  # None for the per-game algorithms (see ratings_as_of)
    last_updated: date  # the date of the row: the player's last change up to the day
    player: Player | None = None


# The columns of a row of ``_rows_of_day`` (the rank as its stored code), and the
# player's name and club's, which ``RatingsOfDay`` adds when it needs them.
_ROW_FIELDS = (
    "player_id",
    "player__username",
    "rank",
    "value",
    "games",
    "last_updated",
    "player__full_name",
    "player__club__name",
)
_PLAYER, _USERNAME, _RANK, _VALUE, _GAMES, _LAST_UPDATED = range(6)
_NAMED = ("player__full_name", "player__club__name")
# What the list shows of a row's player (players.public.tables.RatingListTable): the
# page's players are read with these fields alone.
_SHOWN_OF_PLAYER = ("username", "full_name", "club__name")


class RatingsOfDay:
    """The rating list as of a day: every listed player's row, read once, sorted and
    counted here. The database finds each row in one index step per player; sorting a
    page and counting the rows there read them all twice more (about 40 ms of the
    server's CPU each at 10,000 players), sorting 10,000 tuples here takes a few ms.

    Sorted like a queryset, by ``order_by`` with the fields of the rating list's rows
    (``rank``, ``player__full_name``, ...; NULLs last going up and first going down, as
    PostgreSQL sorts them); rows that tie keep the list's own order, strongest first
    and then by username. A slice is a page of ``StandingOfDay`` rows with their
    players and clubs, loaded in one query. The names and clubs of every row (a second
    query, of ``players``) are read only to sort by them and for the CSV.
    """

    STRONGEST_FIRST = ("-rank", "-value", "player__username")

    def __init__(
        self,
        rows: list[tuple],
        players: QuerySet[Player],
        ordering: tuple[str, ...] = (),
        count_games: GamesRatedBy | None = None,
    ) -> None:
        self.rows = rows
        self.players = players
        self.ordering = ordering
        # the rows' games when they have none (the per-game algorithms, whose rows of a
        # day do not count them): counted for the rows read, with them
        self.count_games = count_games

    def order_by(self, *fields: str) -> RatingsOfDay:
        rows = self.rows
        if self.ordering != self.STRONGEST_FIRST:  # ties keep the list's own order
            rows = sorted(rows, key=_strongest_first)
        if fields == self.STRONGEST_FIRST:
            return RatingsOfDay(rows, self.players, fields, self.count_games)
        if any(field.removeprefix("-") in _NAMED for field in fields):
            rows = self._named(rows)
        # one stable sort per field, the least significant first
        for field in reversed(fields):
            index = _ROW_FIELDS.index(field.removeprefix("-"))
            key: Callable[[tuple], Any] = itemgetter(index)
            if any(row[index] is None for row in rows):
                key = functools.partial(_nulls_last, index)
            rows = sorted(rows, key=key, reverse=field.startswith("-"))
        return RatingsOfDay(rows, self.players, fields, self.count_games)

    def _named(self, rows: list[tuple]) -> list[tuple]:
        """``rows`` with each player's name and club's name."""
        if rows and len(rows[0]) == len(_ROW_FIELDS):
            return rows
        names = {
            pk: (full_name, club)
            for pk, full_name, club in self.players.order_by().values_list(
                "pk", "full_name", "club__name"
            )
        }
        return [(*row, *names[row[_PLAYER]]) for row in rows]

    def __len__(self) -> int:
        return len(self.rows)

    def count(self) -> int:
        return len(self.rows)

    def __getitem__(self, key: slice) -> list[StandingOfDay]:
        return self._standings(self.rows[key])

    def __iter__(self) -> Iterator[StandingOfDay]:
        for start in range(0, len(self.rows), 2000):
            yield from self._standings(self.rows[start : start + 2000])

    def _standings(self, rows: list[tuple]) -> list[StandingOfDay]:
        """``rows`` as standings with their players: what the list shows of each player
        (username, name, club's name) and, when the rows have none, their games of the
        day, in one query."""
        if not rows:
            return []
        players = Player.objects.select_related("club").only(*_SHOWN_OF_PLAYER)
        if self.count_games is not None:
            players = players.annotate(games_of_day=self.count_games.of_each_player())
        found = players.order_by().in_bulk([row[_PLAYER] for row in rows])
        standings = []
        for row in rows:
            player = found[row[_PLAYER]]
            # counted: the annotation (GCR's rows have their games)
            standings.append(_standing(row, player, getattr(player, "games_of_day", None)))
        return standings

    def csv_rows(self) -> Iterator[tuple]:
        """The rows as ``rating_list_csv_rows`` gives a queryset's, with the games each
        player had played by the day."""
        counted = (
            self.count_games.of(self.players) if self.count_games is not None and self.rows else {}
        )
        for pk, username, rank, value, games, day, full_name, club in self._named(self.rows):
            if games is None:
                games = counted.get(pk, 0)
            yield code_to_rank(rank), username, full_name, club, value, games, day


def _strongest_first(row: tuple) -> tuple:
    return (-row[_RANK], -row[_VALUE], row[_USERNAME])


def _nulls_last(index: int, row: tuple) -> tuple:
    """The sort key of a column with NULLs, last going up and first going down (as
    PostgreSQL sorts them)."""
    return (row[index] is None, row[index])


def _standing(row: tuple, player: Player | None = None, games: int | None = None) -> StandingOfDay:
    """The standing of ``row``, with its player when read, and ``games`` when the row
    has none."""
    return StandingOfDay(
        row[_PLAYER],
        code_to_rank(row[_RANK]),
        row[_VALUE],
        row[_GAMES] if games is None else games,
        row[_LAST_UPDATED],
        player,
    )


def ratings_as_of(
    algorithm: str, day: date, players: QuerySet[Player] | None = None
) -> list[StandingOfDay]:
    """Every rated player's standing under ``algorithm`` at the end of ``day``: their
    last history row on or before it, the one of the highest position (GCR, which keeps
    no rows per game: its last month-end snapshot on or before it). ``games`` is None
    for the per-game algorithms (counting a player's rows up to the day would read
    every row). Only ``players`` are looked up (a page of them: one index step each),
    or everyone when None (from the month-end standings), in one query."""
    if players is None:
        rows = _rows_of_day(algorithm, day, Player.objects.all())
    else:
        rows = _rows_by_player(algorithm, day, players)
    return [_standing(row) for row in rows]


def _rows_of_day(algorithm: str, day: date, players: QuerySet[Player]) -> list[tuple]:
    """The row of ``day`` of each of ``players`` rated by then, as tuples of the first
    six ``_ROW_FIELDS``, for a whole list: under an algorithm with history rows, the
    standings of the last month end stored on or before the day (``MonthEndStanding``,
    kept by the recompute) overlaid with the rows after it up to the day: fewer than it
    has players, plus a month's (``ratings.recompute.month_ends.due``; 10,000 players'
    standings and a month's rows read in order: about a third of the server's time of
    one index step per player); else, or while no month end is stored (a history within
    one month, or shorter than its players), one index step per player."""
    known = registry()[algorithm]
    if known.has_history and MonthEnd.objects.filter(algorithm=algorithm).exists():
        return _rows_from_month_end(algorithm, day, players)
    return _rows_by_player(algorithm, day, players)


# Above every position: no month end after the day bounds its rows.
_NO_BOUND = 2**63 - 1


def _rows_from_month_end(algorithm: str, day: date, players: QuerySet[Player]) -> list[tuple]:
    """The rows of ``day`` from the standings of the last month end on or before it and
    the history rows that may be dated after that (from its ``first_later``, to the
    ``last_on_or_before`` of the first month end on or after the day), dated on or
    before the day: each player's of the highest position. One statement, so that the
    month ends' bounds and the rows are read from the same snapshot (a recompute
    committing between two queries would shift the positions under the bounds)."""
    admitted = _admitted_sql(players)
    if admitted is None:
        return []
    admitted_sql, admitted_params = admitted
    month_ends = MonthEnd._meta.db_table

    def bound(column: str, before: bool) -> str:
        return (
            f"(SELECT {column} FROM {month_ends} WHERE algorithm = %s "
            f"AND date {'<=' if before else '>='} %s ORDER BY date {'DESC' if before else ''} "
            "LIMIT 1)"
        )

    union = (
        "SELECT player_id, position, rank, value, date "
        f"FROM {MonthEndStanding._meta.db_table} "
        f"WHERE algorithm = %s AND month_end = {bound('date', before=True)} "
        "UNION ALL SELECT player_id, position, rank_after, value_after, date "
        f"FROM {RatingHistory._meta.db_table} WHERE algorithm = %s "
        f"AND position >= COALESCE({bound('first_later', before=True)}, 0) "
        f"AND position <= COALESCE({bound('last_on_or_before', before=False)}, {_NO_BOUND}) "
        "AND date <= %s"
    )
    params = [algorithm, algorithm, day, algorithm, algorithm, day, algorithm, day, day]
    if connection.vendor == "postgresql":
        newest = (
            "SELECT DISTINCT ON (player_id) player_id, rank, value, date "
            f"FROM ({union}) AS candidate ORDER BY player_id, position DESC"
        )
    else:
        newest = (
            "SELECT player_id, rank, value, date FROM (SELECT *, ROW_NUMBER() OVER "
            "(PARTITION BY player_id ORDER BY position DESC) AS newest "
            f"FROM ({union}) AS candidate) AS ranked WHERE newest = 1"
        )
    columns = ("player.pk", "player.username", "rank", "value", "NULL::integer", "date")
    return _fetch_rows(
        columns,
        f"FROM ({admitted_sql}) AS player JOIN ({newest}) AS day_row "
        "ON day_row.player_id = player.pk",
        [*admitted_params, *params],
    )


def _rows_by_player(algorithm: str, day: date, players: QuerySet[Player]) -> list[tuple]:
    """The row of ``day`` of each of ``players`` rated by then, in one query: one step
    down an index per player.

    History rows: ``history_player_date`` (player, algorithm, date, position). The
    algorithms that replay by date first (SAGC, anchor: replay order is (date, round,
    seq)) have the highest position on or before the day at the latest date, the first
    entry below (player, algorithm, day) (the log index read back from the player's
    newest row reads every row after the day: 15 s for a day in the middle of a
    million games). EGF and the French ladder rate a tournament as one unit at its
    first game's place, so a row dated later can sit before one dated earlier: for
    them the highest position is read. GCR's snapshots: ``snapshot_once_per_date``
    (algorithm, player, date).
    """
    known = registry()[algorithm]
    if not known.has_history:
        table, columns, newest = (
            RatingSnapshot._meta.db_table,
            ("rank", "value", "games"),
            "date DESC",
        )
    else:
        table, columns = RatingHistory._meta.db_table, ("rank_after", "value_after", "NULL")
        # A tournament is one unit at its first game's place in the replay.
        newest = (
            "position DESC" if known.rates_tournaments_as_blocks else "date DESC, position DESC"
        )
    rank, value, games = columns
    up_to_day = (
        f"FROM {table} WHERE player_id = player.pk AND algorithm = %s AND date <= %s "
        f"ORDER BY {newest} LIMIT 1"
    )
    admitted = _admitted_sql(players)
    if admitted is None:
        return []
    admitted_sql, admitted_params = admitted
    if connection.vendor == "postgresql":
        # The row's columns come with its index step (a subquery in a join's condition
        # takes a second step per player, into the history by position).
        of_day = (
            f"CROSS JOIN LATERAL (SELECT {rank} AS rank, {value} AS value, "
            f"{games}::integer AS games, date {up_to_day}) AS day_row"
        )
        selected = ("player.pk", "player.username", "rank", "value", "games", "date")
    else:
        of_day = f"JOIN {table} AS day_row ON day_row.id = (SELECT id {up_to_day})"
        selected = (
            "player.pk",
            "player.username",
            f"day_row.{rank}",
            f"day_row.{value}",
            "NULL" if games == "NULL" else "day_row.games",
            "date",
        )
    return _fetch_rows(
        selected, f"FROM ({admitted_sql}) AS player {of_day}", [*admitted_params, algorithm, day]
    )


def _admitted_sql(players: QuerySet[Player]) -> tuple[str, tuple] | None:
    """The players' own query (its columns named pk and username), to be flattened by
    the planner into the query of their rows; None when it finds nobody (e.g. a search
    for no one). The names are not read there: at 10,000 rows they were half of
    Django's time."""
    try:
        return players.order_by().values_list("pk", "username").query.sql_with_params()
    except EmptyResultSet:
        return None


def _fetch_rows(columns: tuple[str, ...], from_sql: str, params: list) -> list[tuple]:
    """``SELECT columns from_sql``: rows of (pk, username, rank code, value, games,
    date). On PostgreSQL sent as one row of arrays: 10,000 rows, arriving as the server
    finds them, took the driver a few hundred reads. ``NULL::integer`` is SQLite's
    NULL."""
    postgresql = connection.vendor == "postgresql"
    if postgresql:
        selected = ", ".join(f"array_agg({column})" for column in columns)
    else:
        selected = ", ".join("NULL" if column == "NULL::integer" else column for column in columns)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {selected} {from_sql}", params)
        if postgresql:
            arrays = cursor.fetchone()
            return list(zip(*arrays, strict=True)) if arrays[0] is not None else []
        rows = cursor.fetchall()
    if rows and isinstance(rows[0][_LAST_UPDATED], str):  # SQLite gives dates as text
        rows = [(*row[:_LAST_UPDATED], date.fromisoformat(row[_LAST_UPDATED])) for row in rows]
    return rows


RATING_LIST_CSV_COLUMNS = ("rank", "username", "name", "club", "value", "games", "last_updated")


def rating_list_csv_rows(ratings: QuerySet | RatingsOfDay, integer_values: bool) -> Iterator[list]:
    """The CSV download of an (ordered, filtered) rating list, now or as of a day: its
    header, then a row a rating, values at full precision, streamed."""
    yield list(RATING_LIST_CSV_COLUMNS)
    rows: Iterator[tuple]
    if isinstance(ratings, RatingsOfDay):
        rows = ratings.csv_rows()
    else:
        rows = ratings.values_list(
            "rank",
            "player__username",
            "player__full_name",
            "player__club__name",
            "value",
            "games",
            "last_updated",
        ).iterator(chunk_size=2000)
    for rank, username, name, club, value, games, last_updated in rows:
        yield [
            str(rank),
            spreadsheet_safe(username),
            spreadsheet_safe(name),
            spreadsheet_safe(club or ""),
            format_value(value, integer_values),
            games,
            last_updated.isoformat() if last_updated else "",
        ]


@dataclass(frozen=True, slots=True)
class RecomputeNotice:
    """Ratings of an algorithm that are about to change, from a date on."""

    algorithm: str
    dirty_from: date


def recompute_notice(algorithm: str, player: Player | None = None) -> RecomputeNotice | None:
    """A notice while ``algorithm`` has entries waiting for a recompute.

    Every recompute the site runs starts from a dirty date and clears it only when it
    is done, so "pending or running" is "has a dirty date"; ``running_since`` alone is
    not trusted (a run that found nothing to do leaves it set). With a player: only
    when the recompute can change their rows, that is when they have a game or an
    adjustment on or after the dirty date (void ones too: a game voided since the last
    recompute is still on their sheet).
    """
    state = RecomputeState.objects.filter(algorithm=algorithm, dirty_from__isnull=False).first()
    if state is None or state.dirty_from is None:  # the filter says it is not None
        return None
    notice = RecomputeNotice(algorithm, state.dirty_from)
    if player is None:
        return notice
    since = state.dirty_from
    affected = (
        Game.objects.filter(Q(white=player) | Q(black=player), date__gte=since).exists()
        or Adjustment.objects.filter(player=player, date__gte=since).exists()
    )
    return notice if affected else None


def tournament_recompute_notice(algorithm: str, tournament: Tournament) -> RecomputeNotice | None:
    """A notice while a recompute can still change the tournament's before and after
    values: one is pending from a date on or before its last game (a later entry is
    rated after the tournament, every algorithm's blocks included)."""
    notice = recompute_notice(algorithm)
    last = tournament.last_game or tournament.end_date
    if notice is None or (last is not None and notice.dirty_from > last):
        return None
    return notice


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
) -> dict[int, dict[str, StandingOfDay]]:
    """Like ``current_ratings``, the standings at the end of ``day`` (``ratings_as_of``):
    rows with ``rank``, ``value`` and ``games`` (None for the per-game algorithms), one
    query per algorithm for a whole page of players."""
    found: dict[int, dict[str, StandingOfDay]] = defaultdict(dict)
    ids = list(player_ids)
    for algorithm in algorithms:
        for row in ratings_as_of(algorithm, day, Player.objects.filter(pk__in=ids)):
            found[row.player_id][algorithm] = row
    return found


def ratings_of(
    player_ids: list[int], algorithms: list[str], as_of: date | None
) -> Mapping[int, Mapping[str, CurrentRating | StandingOfDay]]:
    """The players' ratings today, or as they stood at the end of ``as_of``."""
    if as_of is None:
        return current_ratings(player_ids, algorithms)
    return ratings_on(player_ids, algorithms, as_of)


def recompute_pending_from(algorithms: Iterable[str]) -> dict[str, date]:
    """The date each of these algorithms waits to be recomputed from, if it does."""
    states = RecomputeState.objects.filter(
        algorithm__in=list(algorithms), dirty_from__isnull=False
    ).values_list("algorithm", "dirty_from")
    return {algorithm: day for algorithm, day in states if day is not None}


def player_history(
    player: Player, algorithm: str, *, since: date | None, until: date | None, newest_first: bool
) -> QuerySet[RatingHistory]:
    """The player's record sheet under a per-game algorithm, with each row's game, its
    tournament, the adjustment and the opponent."""
    rows = RatingHistory.objects.filter(algorithm=algorithm, player=player).select_related(
        "game", "game__tournament", "adjustment", "opponent"
    )
    return dated_within(rows, "date", since, until).order_by(
        "-position" if newest_first else "position"
    )


def player_snapshots(
    player: Player, algorithm: str, *, since: date | None, until: date | None, newest_first: bool
) -> QuerySet[RatingSnapshot]:
    """A holistic algorithm's (GCR's) month-end standings of the player."""
    rows = RatingSnapshot.objects.filter(algorithm=algorithm, player=player)
    return dated_within(rows, "date", since, until).order_by("-date" if newest_first else "date")


def history_or_snapshots(
    player: Player, info, since: date | None, until: date | None, newest_first: bool
) -> QuerySet:
    """The player's rows under an algorithm: per game, or its month-end standings."""
    read = player_history if info.has_history else player_snapshots
    return read(player, info.name, since=since, until=until, newest_first=newest_first)
