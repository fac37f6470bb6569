"""Reads for the public pages: the rating list, a player's log, tournaments and clubs.

Every function returns what one page needs in a fixed, small number of queries
(``select_related`` and annotations), so tables never query per row.
"""

from __future__ import annotations

import calendar
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from django.db.models import (
    Count,
    Exists,
    F,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast
from django.http import Http404

from ratings.engine.base import Algorithm, registry
from ratings.engine.description import FormulaFactor, RankScale, ValueScale
from ratings.engine.ranks import Rank
from ratings.models import CurrentRating, RatingHistory, RatingSnapshot, RecomputeState
from ratings.services import maintained_algorithms, primary_algorithm

from .charts import ChartPoint
from .fields import code_to_rank
from .models import Adjustment, Club, Game, Player, Tournament

# --- algorithms ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AlgorithmInfo:
    """What the pages need to know of a maintained algorithm."""

    name: str
    title: str
    integer_values: bool  # SAGC shows whole-number indexes
    has_history: bool  # False for GCR: standings and month-end snapshots only
    rates_tournaments_as_blocks: bool
    # what the algorithm says of itself (ratings/engine/description.py)
    value_scale: ValueScale
    rank_scale: RankScale
    factor_labels: Mapping[str, str]
    formula: tuple[FormulaFactor, ...]
    prediction_note: str

    @classmethod
    def of(cls, algorithm: type[Algorithm]) -> AlgorithmInfo:
        return cls(
            name=algorithm.name,
            title=algorithm.title,
            integer_values=algorithm.integer_values,
            has_history=algorithm.has_history,
            rates_tournaments_as_blocks=algorithm.rates_tournaments_as_blocks,
            value_scale=algorithm.value_scale,
            rank_scale=algorithm.rank_scale,
            factor_labels=algorithm.factor_labels,
            formula=algorithm.formula,
            prediction_note=algorithm.prediction_note,
        )

    @property
    def short_title(self) -> str:
        """``sagc`` -> ``SAGC``, ``egf-2021`` -> ``EGF 2021``, ``french`` -> ``French``."""
        parts = self.name.split("-")
        return " ".join(
            part.upper() if part.isalpha() and len(part) <= 4 else part.capitalize()
            for part in parts
        )

    @property
    def value_label(self) -> str:
        return "Index" if self.integer_values else "Rating"


def algorithms() -> list[AlgorithmInfo]:
    """The maintained algorithms, the primary one first."""
    known = registry()
    return [AlgorithmInfo.of(known[name]) for name in maintained_algorithms()]


def algorithm_or_404(name: str | None, default: str | None = None) -> AlgorithmInfo:
    """The maintained algorithm called ``name`` (empty: ``default``, else the primary one)."""
    available = {info.name: info for info in algorithms()}
    chosen = name or default or primary_algorithm()
    if chosen not in available:
        raise Http404(
            f"'{chosen}' is not a rating algorithm of this site; "
            f"choose one of {', '.join(available)}"
        )
    return available[chosen]


# --- the rating list -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RatingListFilters:
    """The rating list's filters, as domain values (the filter form builds this)."""

    club: Club | None = None
    weakest: Rank | None = None
    strongest: Rank | None = None
    active_since: date | None = None
    search: str = ""
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
    are not rated yet. Each row has ``player``, ``rank``, ``value``, ``games`` and
    ``last_updated``: the current ratings, or with ``filters.as_of`` the standings at
    the end of that day (``ratings_as_of``), where ``last_updated`` is the date of the
    player's last row on or before it and "active" counts back from that day.
    """
    if filters.as_of is not None:
        members = None if filters.club is None else Player.objects.filter(club=filters.club)
        ratings = ratings_as_of(algorithm, filters.as_of, members)
        last_updated = "last_updated"
    else:
        ratings = CurrentRating.objects.filter(algorithm=algorithm).annotate(
            last_updated=F("player__last_updated")
        )
        last_updated = "player__last_updated"
    ratings = ratings.select_related("player", "player__club")
    if filters.club is not None:
        ratings = ratings.filter(player__club=filters.club)
    if filters.weakest is not None:
        ratings = ratings.filter(rank__gte=filters.weakest)
    if filters.strongest is not None:
        ratings = ratings.filter(rank__lte=filters.strongest)
    if filters.active_since is not None:
        ratings = ratings.filter(**{f"{last_updated}__gte": filters.active_since})
    if filters.search:
        ratings = ratings.filter(
            Q(player__username__icontains=filters.search)
            | Q(player__full_name__icontains=filters.search)
        )
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


def rating_list_csv_rows(ratings: QuerySet):
    """The CSV download's rows of an (ordered, filtered) rating list, streamed."""
    return ratings.values_list(
        "rank",
        "player__username",
        "player__full_name",
        "player__club__name",
        "value",
        "games",
        "last_updated",
    ).iterator(chunk_size=2000)


# --- recompute notice ---------------------------------------------------------------


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


# --- a player's log page -------------------------------------------------------------


def player_or_404(username: str) -> Player:
    try:
        return Player.objects.select_related("club").get(username=username)
    except Player.DoesNotExist:
        raise Http404(f"no player with the username '{username}'") from None


def player_ratings(player: Player) -> dict[str, CurrentRating]:
    """The player's current rating under each algorithm that rated them (one query)."""
    return {rating.algorithm: rating for rating in CurrentRating.objects.filter(player=player)}


def log_rows(player: Player, algorithm: str) -> QuerySet[RatingHistory]:
    """The player's record sheet under ``algorithm``, newest first.

    Everything a row shows comes with it (game, its tournament, adjustment, opponent),
    so a page of rows is one query whatever its size.
    """
    return (
        RatingHistory.objects.filter(algorithm=algorithm, player=player)
        .select_related("game", "game__tournament", "adjustment", "opponent")
        .order_by("-position")
    )


def chart_points(player: Player, algorithm: str) -> list[ChartPoint]:
    """Rank and value over time under a per-game algorithm: where the player started,
    then after every row (one query, in replay order).

    The ranks come as their stored integers: building a Rank per row through the
    field's converter cost more than the query itself for a player with thousands of
    games, and a player holds only a few dozen distinct ranks.
    """
    rows = list(
        RatingHistory.objects.filter(algorithm=algorithm, player=player)
        .order_by("position")
        .annotate(
            rank_before_code=Cast("rank_before", IntegerField()),
            rank_after_code=Cast("rank_after", IntegerField()),
        )
        .values_list("date", "rank_before_code", "value_before", "rank_after_code", "value_after")
    )
    if not rows:
        return []
    ranks: dict[int, Rank] = {}

    def rank(code: int) -> Rank:
        if code not in ranks:
            ranks[code] = code_to_rank(code)
        return ranks[code]

    first_date, first_rank, first_value = rows[0][:3]
    points = [ChartPoint(first_date, rank(first_rank), first_value)]
    points += [ChartPoint(day, rank(code), value) for day, _, _, code, value in rows]
    return points


def snapshot_rows(player: Player, algorithm: str) -> QuerySet[RatingSnapshot]:
    """A holistic algorithm's month-end standings of the player, newest first."""
    return RatingSnapshot.objects.filter(algorithm=algorithm, player=player).order_by("-date")


def snapshot_chart_points(player: Player, algorithm: str) -> list[ChartPoint]:
    rows = (
        RatingSnapshot.objects.filter(algorithm=algorithm, player=player)
        .order_by("date")
        .values_list("date", "rank", "value")
    )
    return [ChartPoint(day, rank, value) for day, rank, value in rows]


# --- tournaments ------------------------------------------------------------------------

# The distinct players of a tournament's valid games, White or Black. A UNION in a
# correlated subquery keeps the list one query; the ORM has no way to count distinct
# values over two columns.
_TOURNAMENT_PLAYERS_SQL = """
    SELECT COUNT(*) FROM (
        SELECT g.white_id FROM players_game g
        WHERE g.tournament_id = players_tournament.id AND g.voided_at IS NULL
        UNION
        SELECT g.black_id FROM players_game g
        WHERE g.tournament_id = players_tournament.id AND g.voided_at IS NULL
    ) AS tournament_players
"""


def tournament_list() -> QuerySet[Tournament]:
    """Tournaments, newest first, with their valid games and players counted and the
    dates of their first and last games (one query)."""
    valid = Q(games__voided_at__isnull=True)
    return Tournament.objects.annotate(
        game_count=Count("games", filter=valid),
        player_count=RawSQL(_TOURNAMENT_PLAYERS_SQL, (), output_field=IntegerField()),
        first_game=Min("games__date", filter=valid),
        last_game=Max("games__date", filter=valid),
    ).order_by("-start_date", "-first_game", "code")


def tournament_or_404(code: str) -> Tournament:
    try:
        return Tournament.objects.get(code=code)
    except Tournament.DoesNotExist:
        raise Http404(f"no tournament with the code '{code}'") from None


@dataclass(slots=True)
class RoundResult:
    """One game of a player in the crosstable, from their side."""

    opponent_number: int
    opponent: Player
    colour: str  # "w" or "b"
    handicap: int
    result: str  # "+" win, "-" loss, "=" jigo

    def __str__(self) -> str:
        handicap = f"/h{self.handicap}" if self.handicap else ""
        return f"{self.opponent_number}{self.result}{self.colour}{handicap}"


@dataclass(slots=True)
class CrosstableRow:
    player: Player
    rank: Rank | None  # as declared on the sheet, else the player's entry rank
    rounds: dict[int, list[RoundResult]] = field(default_factory=dict)
    wins: float = 0
    games: int = 0
    sos: float = 0  # sum of the opponents' wins: the first tie-break
    number: int = 0
    value_before: float | None = None
    value_after: float | None = None
    rank_after: Rank | None = None

    @property
    def change(self) -> float | None:
        if self.value_before is None or self.value_after is None:
            return None
        return self.value_after - self.value_before


@dataclass(slots=True)
class Crosstable:
    rounds: list[int]
    rows: list[CrosstableRow]
    game_count: int
    first_game: date | None
    last_game: date | None


def tournament_crosstable(tournament: Tournament, algorithm: str) -> Crosstable:
    """The tournament's players, placed by wins then the sum of their opponents' wins,
    with each round's games and their rating before and after the tournament under
    ``algorithm`` (two queries)."""
    games = list(
        tournament.games.valid().select_related("white", "black").order_by("round", "date", "seq")
    )
    rows: dict[int, CrosstableRow] = {}

    def row_of(player: Player, declared: Rank | None) -> CrosstableRow:
        if player.pk not in rows:
            rows[player.pk] = CrosstableRow(player, declared or player.entry_rank)
        return rows[player.pk]

    for game in games:
        white, black = row_of(game.white, game.white_rank), row_of(game.black, game.black_rank)
        white.games += 1
        black.games += 1
        if game.winner == Game.Winner.JIGO:
            white.wins += 0.5
            black.wins += 0.5
        elif game.winner == Game.Winner.WHITE:
            white.wins += 1
        else:
            black.wins += 1
    for row in rows.values():
        row.sos = 0
    for game in games:
        rows[game.white_id].sos += rows[game.black_id].wins
        rows[game.black_id].sos += rows[game.white_id].wins
    ordered = sorted(
        rows.values(),
        key=lambda row: (-row.wins, -row.sos, -(row.rank.stones if row.rank else -99)),
    )
    for number, row in enumerate(ordered, start=1):
        row.number = number
    for game in games:
        for own, other, colour in ((game.white, game.black, "w"), (game.black, game.white, "b")):
            if game.winner == Game.Winner.JIGO:
                result = "="
            else:
                result = "+" if game.winner == colour.upper() else "-"
            rows[own.pk].rounds.setdefault(game.round, []).append(
                RoundResult(rows[other.pk].number, other, colour, game.handicap, result)
            )
    history = (
        RatingHistory.objects.filter(algorithm=algorithm, game__tournament=tournament)
        .order_by("position")
        .values_list("player_id", "value_before", "value_after", "rank_after")
    )
    for player_id, value_before, value_after, rank_after in history:
        row = rows.get(player_id)
        if row is None:  # a game voided since the last recompute
            continue
        if row.value_before is None:
            row.value_before = value_before
        row.value_after, row.rank_after = value_after, rank_after
    return Crosstable(
        rounds=sorted({game.round for game in games}),
        rows=ordered,
        game_count=len(games),
        first_game=games[0].date if games else None,
        last_game=max(game.date for game in games) if games else None,
    )


# --- clubs -------------------------------------------------------------------------------

ACTIVE_MONTHS = 12  # "active" on the clubs page: played within the last year


def club_list(today: date) -> QuerySet[Club]:
    """Clubs with their players counted, and those who played within ACTIVE_MONTHS."""
    since = months_before(today, ACTIVE_MONTHS)
    return Club.objects.annotate(
        player_count=Count("players"),
        active_count=Count("players", filter=Q(players__last_updated__gte=since)),
    ).order_by("name")


def club_or_404(pk: int) -> Club:
    try:
        return Club.objects.get(pk=pk)
    except Club.DoesNotExist:
        raise Http404(f"no club number {pk}") from None


def unrated_members(club: Club, algorithm: str) -> QuerySet[Player]:
    """The club's players with no rating under ``algorithm`` (no rated game yet)."""
    rated = CurrentRating.objects.filter(algorithm=algorithm, player=OuterRef("pk"))
    return club.players.filter(~Exists(rated)).order_by("full_name", "username")
