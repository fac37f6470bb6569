"""Reading ratings: the rating list (now and as of a date), its CSV rows, the recompute
notice."""

from __future__ import annotations

import calendar
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

from django.db.models import (
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)

from players.lookup import player_index
from players.models import Adjustment, Club, Game, Player
from players.selectors.exports import spreadsheet_safe
from ratings.engine.base import registry
from ratings.engine.output import format_value
from ratings.engine.ranks import Rank
from ratings.models import CurrentRating, RatingHistory, RatingSnapshot, RecomputeState


@dataclass(frozen=True, slots=True)
class RatingListFilters:
    """The rating list's filters, as domain values (the filter form builds this)."""

    club: Club | None = None
    weakest: Rank | None = None
    strongest: Rank | None = None
    active_since: date | None = None
    search: str = ""
    # False: the clubs' players only, those with a club of the site or who played a game
    # outside tournaments here, not those seen only at imported tournaments
    everyone: bool = False
    as_of: date | None = None  # the list as it stood at the end of that day


def months_before(day: date, months: int) -> date:
    """The same day ``months`` calendar months earlier (the month's last day if shorter)."""
    month_index = day.year * 12 + day.month - 1 - months
    year, month = divmod(month_index, 12)
    last_day = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last_day))


def rating_list(algorithm: str, filters: RatingListFilters) -> QuerySet:
    """The players rated by ``algorithm``, strongest first: by rank, then value.

    Only players with a rating under the algorithm are listed (a player appears after
    their first game it rates, or an adjustment); the club page names its members who
    are not rated yet. Unless ``filters.everyone``, players with no club whose every
    game is a tournament game are left out. Each row has ``player``, ``rank``,
    ``value``, ``games`` and ``last_updated``: the current ratings, or with
    ``filters.as_of`` the standings at the end of that day (``ratings_as_of``). Activity
    is the date of the latest game played (``Player.last_played``, kept by every write
    of games), or with ``filters.as_of`` the date of the player's last row on or before
    it, counted back from that day.
    """
    if filters.as_of is not None:
        members = None if filters.club is None else Player.objects.filter(club=filters.club)
        ratings = ratings_as_of(algorithm, filters.as_of, members)
        last_active = "last_updated"
    else:
        ratings = CurrentRating.objects.filter(algorithm=algorithm).annotate(
            last_updated=F("player__last_updated")
        )
        last_active = "player__last_played"
    ratings = ratings.select_related("player", "player__club")
    if filters.club is not None:
        ratings = ratings.filter(player__club=filters.club)
    elif not filters.everyone:
        ratings = ratings.filter(Q(player__club__isnull=False) | Q(player__tournament_only=False))
    if filters.weakest is not None:
        ratings = ratings.filter(rank__gte=filters.weakest)
    if filters.strongest is not None:
        ratings = ratings.filter(rank__lte=filters.strongest)
    if filters.active_since is not None:
        ratings = ratings.filter(**{f"{last_active}__gte": filters.active_since})
    if filters.search:
        # The player lookup's search: names in any order and without their accents,
        # EGD PINs (a few thousand ids at most, in one IN list).
        ratings = ratings.filter(player_id__in=player_index().search_ids(filters.search))
    return ratings.order_by("-rank", "-value", "player__username")


def ratings_as_of(algorithm: str, day: date, players: QuerySet[Player] | None = None) -> QuerySet:
    """Every rated player's standing under ``algorithm`` at the end of ``day``: their
    last history row on or before it (GCR, which keeps no rows per game: its last
    month-end snapshot on or before it), as rows with ``rank``, ``value``, ``games``
    (None for the per-game algorithms: counting a player's rows up to the day would
    read every row) and ``last_updated``.

    Portable: one query reads the newest row's id per player (a correlated subquery,
    which the index ``history_player_log`` (player, algorithm, -position) answers by
    reading from the player's newest row back to the day; ``snapshot_once_per_date``
    likewise), and the rows returned are those ids'. Only ``players`` are probed (all
    when None).
    """
    holistic = not registry()[algorithm].has_history
    model = RatingSnapshot if holistic else RatingHistory
    newest_first = "-date" if holistic else "-position"
    newest = (
        model.objects.filter(player=OuterRef("pk"), algorithm=algorithm, date__lte=day)
        .order_by(newest_first)
        .values("pk")[:1]
    )
    players = Player.objects.all() if players is None else players
    # The newest rows' ids are read first, on their own: inside the list's query the
    # planner evaluated the subquery more than once per player and joined the ids by
    # scanning the whole history table.
    ids = [
        pk
        for pk in players.annotate(newest=Subquery(newest)).values_list("newest", flat=True)
        if pk is not None
    ]
    rows = model.objects.filter(pk__in=ids)
    if holistic:
        return rows.annotate(last_updated=F("date"))
    return rows.annotate(
        rank=F("rank_after"),
        value=F("value_after"),
        games=Value(None, output_field=IntegerField()),
        last_updated=F("date"),
    )


RATING_LIST_CSV_COLUMNS = ("rank", "username", "name", "club", "value", "games", "last_updated")


def rating_list_csv_rows(ratings: QuerySet, integer_values: bool) -> Iterator[list]:
    """The CSV download of an (ordered, filtered) rating list: its header, then a row a
    rating, values at full precision, streamed from the database."""
    yield list(RATING_LIST_CSV_COLUMNS)
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
    if state is None:
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
