"""Reads for the public pages: the rating list, a player's log, tournaments and clubs.

Every function returns what one page needs in a fixed, small number of queries
(``select_related`` and annotations), so tables never query per row.
"""

from __future__ import annotations

import calendar
import json
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction

from django.db import connection
from django.db.models import (
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast, Concat
from django.http import Http404

from ratings.engine.base import Algorithm, registry
from ratings.engine.description import FormulaFactor, RankScale, ValueScale
from ratings.engine.formats.standings import SITE_CRITERIA, Round, criterion_label, place_players
from ratings.engine.ranks import Rank
from ratings.models import CurrentRating, RatingHistory, RatingSnapshot, RecomputeState
from ratings.services import maintained_algorithms, primary_algorithm

from .charts import ChartPoint
from .fields import code_to_rank
from .lookup import player_index
from .models import Adjustment, Club, Game, Player, Tournament, TournamentPlayer

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
    starts_at_declared_rating: bool  # the EGF algorithms: a file's GoR is the start

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
            starts_at_declared_rating=algorithm.starts_at_declared_rating,
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
        # Only the players the filters admit are looked up, and their rows need no
        # second join to the players to be counted.
        players = Player.objects.filter(_admitted(filters))
        ratings = ratings_as_of(algorithm, filters.as_of, players)
        last_active = "last_updated"
    else:
        ratings = CurrentRating.objects.filter(algorithm=algorithm).annotate(
            last_updated=F("player__last_updated")
        )
        ratings = ratings.filter(_admitted(filters, "player__"))
        last_active = "player__last_played"
    ratings = ratings.select_related("player", "player__club")
    if filters.weakest is not None:
        ratings = ratings.filter(rank__gte=filters.weakest)
    if filters.strongest is not None:
        ratings = ratings.filter(rank__lte=filters.strongest)
    if filters.active_since is not None:
        ratings = ratings.filter(**{f"{last_active}__gte": filters.active_since})
    return ratings.order_by("-rank", "-value", "player__username")


def _admitted(filters: RatingListFilters, prefix: str = "") -> Q:
    """The players the list's filters admit by their own fields (``prefix``: the path
    to the player)."""
    admitted = Q()
    if filters.club is not None:
        admitted &= Q(**{f"{prefix}club": filters.club})
    elif not filters.everyone:
        admitted &= Q(**{f"{prefix}club__isnull": False}) | Q(**{f"{prefix}tournament_only": False})
    if filters.search:
        # The player lookup's search: names in any order and without their accents,
        # EGD PINs (a few thousand ids at most, in one IN list).
        admitted &= Q(**{f"{prefix}pk__in": player_index().search_ids(filters.search)})
    return admitted


def ratings_as_of(algorithm: str, day: date, players: QuerySet[Player] | None = None) -> QuerySet:
    """Every rated player's standing under ``algorithm`` at the end of ``day``: their
    last history row on or before it, the one of the highest position (GCR, which keeps
    no rows per game: its last month-end snapshot on or before it), as rows with
    ``rank``, ``value``, ``games`` (None for the per-game algorithms: counting a
    player's rows up to the day would read every row) and ``last_updated``.

    Portable: one query finds each player's row (a correlated subquery per player, one
    step down an index), and the rows returned are those. Only ``players`` are probed
    (all when None).
    """
    known = registry()[algorithm]
    players = Player.objects.all() if players is None else players
    if not known.has_history:
        # ``snapshot_once_per_date`` (algorithm, player, date) gives it in one step
        newest = (
            RatingSnapshot.objects.filter(player=OuterRef("pk"), algorithm=algorithm, date__lte=day)
            .order_by("-date")
            .values("pk")[:1]
        )
        ids = _probed(players, newest)
        return RatingSnapshot.objects.filter(pk__in=_one_parameter(ids)).annotate(
            last_updated=F("date")
        )
    up_to_day = RatingHistory.objects.filter(
        player=OuterRef("pk"), algorithm=algorithm, date__lte=day
    )
    if known.rates_tournaments_as_blocks:
        # A tournament is one unit at its first game's place in the replay, so a row
        # dated later can sit before one dated earlier: the highest position is read.
        newest = up_to_day.order_by("-position")
    else:
        # Units replay by date first: the highest position on or before the day is the
        # one of the latest date, one step down ``history_player_date`` (the log index
        # read back from the player's newest row, every row after the day: 15 s for the
        # list of a day in the middle of a million games). Read from the index alone.
        newest = up_to_day.order_by("-date", "-position")
    positions = _probed(players, newest.values("position")[:1])
    return RatingHistory.objects.filter(
        algorithm=algorithm, position__in=_one_parameter(positions)
    ).annotate(
        rank=F("rank_after"),
        value=F("value_after"),
        games=Value(None, output_field=IntegerField()),
        last_updated=F("date"),
    )


def _one_parameter(numbers: list[int]) -> RawSQL:
    """``numbers`` as a subquery of one parameter, for ``__in``: ten thousand
    parameters cost Django and the driver more CPU (about 50 ms for each query that
    repeats them: the page and its count) than the database spends on the rows."""
    if connection.vendor == "postgresql":
        return RawSQL("SELECT unnest(%s::bigint[])", [numbers])
    return RawSQL("SELECT value FROM json_each(%s)", [json.dumps(numbers)])


def _probed(players: QuerySet[Player], newest: QuerySet) -> list[int]:
    """The value ``newest`` (correlated on the player) gives for each of ``players``
    that has one, in one query. Read first, on their own: inside the list's query the
    planner evaluated the subquery more than once per player and joined the result by
    scanning the whole history table."""
    found = players.order_by().annotate(newest=Subquery(newest)).values_list("newest", flat=True)
    return [value for value in found if value is not None]


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
        return Player.objects.select_related("club", "merged_into").get(username=username)
    except Player.DoesNotExist:
        raise Http404(f"no player with the username '{username}'") from None


def voided_games(player: Player) -> list[Game]:
    """The player's void games, the latest first: they count for nothing, but the log
    page still shows them (struck through, with the reason) rather than lose them."""
    return list(
        Game.objects.filter(voided_at__isnull=False)
        .filter(Q(white=player) | Q(black=player))
        .select_related("white", "black")
        .order_by("-date", "-pk")
    )


def merged_records(player: Player) -> list[Player]:
    """The records merged into ``player`` (their usernames once named this person)."""
    return list(player.merged_records.order_by("username"))


def player_ratings(player: Player) -> dict[str, CurrentRating]:
    """The player's current rating under each algorithm that rated them (one query)."""
    return {rating.algorithm: rating for rating in CurrentRating.objects.filter(player=player)}


def declared_rating_source(player: Player) -> Tournament | None:
    """The earliest imported tournament whose file declared the GoR the player starts
    at under the EGF algorithms (one query; None without a declared GoR)."""
    if player.declared_rating is None:
        return None
    entry = (
        TournamentPlayer.objects.filter(player=player, rating=player.declared_rating)
        .select_related("tournament")
        .order_by("tournament__start_date", "tournament__code")
        .first()
    )
    return entry.tournament if entry is not None else None


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
    then after every row (one query, in replay order). An adjustment is a step: the
    line stays level until its date, then jumps (a point before it, on its date).

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
        .values_list(
            "date",
            "rank_before_code",
            "value_before",
            "rank_after_code",
            "value_after",
            "adjustment_id",
        )
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
    for day, code_before, value_before, code, value, adjustment_id in rows:
        if adjustment_id is not None and points[-1].date != day:
            points.append(ChartPoint(day, rank(code_before), value_before))
        points.append(ChartPoint(day, rank(code), value))
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


def tournament_list() -> QuerySet[Tournament]:
    """Tournaments, newest first, with their valid games and players counted and the
    dates of their first and last games (stored with the tournament: one query)."""
    return Tournament.objects.order_by("-start_date", "-first_game", "code")


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
    rank: Rank | None  # as declared on the sheet or in the file, else the entry rank
    country: str = ""  # as the file gave it, else the player's
    club: str = ""  # as the file gave it (a club abbreviation), else the player's
    rounds: dict[int, list[RoundResult]] = field(default_factory=dict)
    wins: float = 0
    games: int = 0
    number: int = 0  # the row's position: the number round cells name opponents by
    place: str = ""  # the standing: shared by tied players (blank for a tie in an h-file)
    scores: list = field(default_factory=list)  # one per Crosstable.score_names
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
    score_names: list[str] = field(default_factory=list)
    standings: str = ""  # Tournament.standings: where the places come from
    ties: bool = False  # some players share a place

    @property
    def placement(self) -> str:
        """How the players are placed, in words, for the page."""
        criteria = " then ".join(name for name in self.score_names if name) or "the file's order"
        if self.standings == Tournament.Standings.EGD:
            return f"Places and tie-breakers as the tournament's h-file gives them ({criteria})."
        if self.standings == Tournament.Standings.OPENGOTHA:
            return (
                f"Places by the placement criteria of the tournament's OpenGotha file: {criteria}."
            )
        return (
            "Players in order of points (a win 1, a jigo ½), then SOS (the sum of their "
            "opponents' points), then SOSOS (the sum of their opponents' SOS)."
        )


def _file_order(entrants: list[TournamentPlayer]) -> dict[int, tuple[int, int]]:
    """Each file player's (place, position): a blank place (a tie in an h-file) is the
    place of the line above."""
    order: dict[int, tuple[int, int]] = {}
    place = 0
    for entrant in entrants:
        text = entrant.place.strip().rstrip(".")
        place = int(text) if text.isdigit() else place
        order[entrant.player_id] = (place, entrant.number)
    return order


@dataclass(frozen=True, slots=True)
class _CrosstableGame:
    """What the crosstable reads of a game: plain values and the two players, each
    loaded once (EGC 2013's 2,259 games as models with both players' every column cost
    a quarter of a second)."""

    white: Player
    black: Player
    white_rank: Rank | None
    black_rank: Rank | None
    winner: str
    round: int
    handicap: int
    date: date


def _crosstable_games(tournament: Tournament) -> list[_CrosstableGame]:
    """The tournament's valid games by round (two queries: the players, the games)."""
    valid = tournament.games.valid()
    players = {
        player.pk: player
        for player in Player.objects.filter(
            Q(pk__in=valid.values("white_id")) | Q(pk__in=valid.values("black_id"))
        ).only("username", "full_name", "entry_rank", "country", "federation_club")
    }
    columns = ("white_id", "black_id", "white_rank", "black_rank", "winner", "round", "handicap")
    return [
        _CrosstableGame(players[white], players[black], *rest)
        for white, black, *rest in valid.order_by("round", "date", "seq").values_list(
            *columns, "date"
        )
    ]


def _history_of_games(games: QuerySet, algorithm: str) -> QuerySet[RatingHistory]:
    """The history rows of ``games`` (a query of their ids) under ``algorithm``, found
    through the index on the game. Given ``algorithm = ...`` SQLite walks the
    (algorithm, position) index instead, every row of the algorithm: 0.3 s at 200,000
    games for a tournament's 780 rows, against 13 ms. Comparing the algorithm through
    an expression leaves it no index to take but the game's."""
    return RatingHistory.objects.alias(row_algorithm=Concat(F("algorithm"), Value(""))).filter(
        game__in=games, row_algorithm=algorithm
    )


def tournament_crosstable(tournament: Tournament, algorithm: str) -> Crosstable:
    """The tournament's players in their standings, with each round's games and their
    rating before and after the tournament under ``algorithm``.

    An imported tournament is placed as its file has it (an h-file's places and
    columns; an OpenGotha file's criteria, computed at import), a tournament entered
    on the site by points, SOS and SOSOS (:mod:`ratings.engine.formats.standings`).
    Four queries, five for an imported tournament (its file's players)."""
    games = _crosstable_games(tournament)
    entrants = (
        list(tournament.entrants.select_related("player").order_by("number"))
        if tournament.standings
        else []
    )
    rows: dict[int, CrosstableRow] = {}

    def row_of(player: Player, declared: Rank | None) -> CrosstableRow:
        if player.pk not in rows:
            rows[player.pk] = CrosstableRow(
                player,
                declared or player.entry_rank,
                country=player.country,
                club=player.federation_club,
            )
        return rows[player.pk]

    for entrant in entrants:
        row = row_of(entrant.player, entrant.rank)
        row.place, row.scores = entrant.place, list(entrant.scores)
        row.country = entrant.country or row.country
        row.club = entrant.club or row.club
    played: dict[int, list[Round]] = defaultdict(list)
    for game in games:
        white, black = row_of(game.white, game.white_rank), row_of(game.black, game.black_rank)
        white.games += 1
        black.games += 1
        white_points = {"W": Fraction(1), "B": Fraction(0)}.get(game.winner, Fraction(1, 2))
        white.wins += float(white_points)
        black.wins += float(1 - white_points)
        played[game.white.pk].append(Round(game.black.pk, white_points))
        played[game.black.pk].append(Round(game.white.pk, 1 - white_points))
    placed = place_players(
        {pk: played.get(pk, []) for pk in rows},
        SITE_CRITERIA,
        order=sorted(rows, key=lambda pk: (-rows[pk].rank.stones, rows[pk].player.username)),
    )
    if entrants:
        file_order = _file_order(entrants)
        after = len(file_order)
        position = {entry.player: index for index, entry in enumerate(placed)}
        ordered = sorted(
            rows.values(),
            key=lambda row: file_order.get(row.player.pk, (after, after + position[row.player.pk])),
        )
        score_names = [criterion_label(name) for name in tournament.score_names]
    else:
        for entry in placed:
            rows[entry.player].place = str(entry.place)
            rows[entry.player].scores = list(entry.scores)
        ordered = [rows[entry.player] for entry in placed]
        score_names = [criterion_label(name) for name in SITE_CRITERIA]
    width = max((len(row.scores) for row in ordered), default=0)
    score_names = (score_names + [""] * width)[:width]
    for number, row in enumerate(ordered, start=1):
        row.number = number
        row.scores += [""] * (width - len(row.scores))
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
        _history_of_games(tournament.games.values("pk"), algorithm)
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
        score_names=score_names,
        standings=tournament.standings,
        ties=any(row.place != str(row.number) for row in ordered),
    )


# --- clubs -------------------------------------------------------------------------------

ACTIVE_MONTHS = 12  # "active" on the clubs page: played within the last year


def club_list(today: date) -> QuerySet[Club]:
    """Clubs with their players counted, and those who played within ACTIVE_MONTHS."""
    since = months_before(today, ACTIVE_MONTHS)
    return Club.objects.annotate(
        player_count=Count("players"),
        active_count=Count("players", filter=Q(players__last_played__gte=since)),
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
