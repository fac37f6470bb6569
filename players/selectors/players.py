"""Reading players: the log page (rows, charts, snapshots), merged records, the volunteers'
lookup."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from django.db.models import (
    Count,
    Exists,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Q,
    QuerySet,
)
from django.db.models.functions import Cast
from django.http import Http404

from players.fields import code_to_rank
from players.lookup import lookup_players, player_index
from players.models import (
    Adjustment,
    AuditEntry,
    Club,
    Game,
    Membership,
    Player,
    ResyncBatch,
    Tournament,
    TournamentPlayer,
)
from ratings.algorithms import maintained_algorithms, primary_algorithm
from ratings.engine.ranks import Rank, parse_rank
from ratings.models import CurrentRating, RatingHistory, RatingSnapshot


@dataclass(frozen=True, slots=True)
class ChartPoint:
    """One point of a player's rank-and-rating chart (``players.web.charts`` draws them)."""

    date: date
    rank: Rank
    value: float


def club_members(club: Club, day: date | None = None, path: str = "") -> Q:
    """The members of ``club`` (``path``: the lookup path to the player): on ``day``
    those whose membership held that day; without, its current members (a membership
    not ended, or the club on the player's record)."""
    memberships = Membership.objects.filter(club=club)
    if day is not None:
        return Q(**{f"{path}pk__in": memberships.on(day).values("player_id")})
    # The record's club is the current membership's (the services keep it): the members
    # whose record names another club, of two clubs, are the few more (one small query,
    # so that the list keeps reading the players' club index).
    # Kept on the club for the request: a club's page asks for its members several times.
    others = getattr(club, "_other_current_members", None)
    if others is None:
        # read from the memberships' club index alone (no join to the players or the
        # clubs, no ordering): a join to the players read all 10,000 of them
        others = list(
            memberships.filter(end__isnull=True)
            .exclude(player__in=Player.objects.filter(club=club).values("pk"))
            .order_by()
            .values_list("player_id", flat=True)
        )
        club._other_current_members = others
    members = Q(**{f"{path}club": club})
    return members | Q(**{f"{path}pk__in": others}) if others else members


def club_members_in_one_query(club: Club, path: str = "") -> Q:
    """The current members of ``club``, as :func:`club_members` without a day, in a
    condition that needs no query of its own (the open memberships a subquery): for a
    query of few rows, where the planner need not keep to the players' club index
    (the club page's resyncs; the "as of a day" page reads no current member else)."""
    return clubs_members_in_one_query([club.pk], path)


def clubs_members_in_one_query(club_ids: Iterable[int], path: str = "") -> Q:
    """The current members of any of the clubs ``club_ids`` (a membership not ended, or
    a club on the player's record), in one condition: the players a club's committee
    acts for (``roles.may_act_for_player`` asks the same of one player), whom its
    resync and its admin list."""
    club_ids = list(club_ids)
    open_memberships = Membership.objects.filter(club__in=club_ids, end__isnull=True).order_by()
    return Q(**{f"{path}club__in": club_ids}) | Q(
        **{f"{path}pk__in": open_memberships.values("player_id")}
    )


def clubs_players(path: str = "") -> Q:
    """The clubs' players, whom the rating list shows and a national list resyncs
    (``path``: the lookup path to the player, e.g. ``"player__"``): those with a club of
    the site, or a valid game outside tournaments, or never entered at an imported
    tournament (a newcomer a volunteer added, not rated yet). Left out: the people seen
    only at imported tournaments, whether every game they have is a tournament game
    (``tournament_only``) or they have no game at all, only byes, forfeits or rounds
    missed there (EGC 2013 lists five such entrants): like the EGD's and the AGA's
    lists, the club's list is of people who played here, and their national rank is
    their federation's business, not the club's resync."""
    entered = TournamentPlayer.objects.filter(player=OuterRef(f"{path}pk"))
    # tournament_only is False both for a game outside tournaments and for no game at
    # all; last_played (the latest valid game) tells them apart.
    return Q(**{f"{path}club__isnull": False}) | (
        Q(**{f"{path}tournament_only": False})
        & (Q(**{f"{path}last_played__isnull": False}) | Q(~Exists(entered)))
    )


def national_ranks_before(batch: ResyncBatch) -> dict[int, Rank]:
    """The national rank each player of a resync had before it (player id -> rank), from
    the audit trail, in one query: what reverting the batch restores."""
    entries = AuditEntry.objects.filter(
        action="player_national_rank", summary=f"resync {batch.pk}"
    ).order_by("id")
    ranks = {}
    for object_id, before in entries.values_list("object_id", "before"):
        if before and before.get("national_rank") and object_id.isdigit():
            ranks[int(object_id)] = parse_rank(before["national_rank"])
    return ranks


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


def ratings_by_algorithm(player: Player) -> dict[str, CurrentRating]:
    """The player's current rating under each algorithm that rated them, by its name
    (one query); ``player_ratings`` lists them in order."""
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


LOOKUP_LIMIT = 20


def primary_ranks(players: list[Player]) -> dict[int, Rank]:
    """The rank each of ``players`` has now in the primary algorithm (the club rank), by
    player id; a player it has not rated yet is not in it."""
    return dict(
        CurrentRating.objects.filter(
            algorithm=primary_algorithm(), player__in=[player.pk for player in players]
        ).values_list("player_id", "rank")
    )


def player_lookup(text: str) -> list[dict[str, str]]:
    """Up to 20 players whose username starts with, or whose name contains, ``text``;
    active players first; else those the player lookup finds, or the closest names.
    No name holds a NUL character (and PostgreSQL refuses one in a query): text with
    one finds nobody."""
    text = text.strip()
    if not text or "\x00" in text:
        return []
    players = list(
        lookup_players()
        .filter(Q(username__istartswith=text) | Q(full_name__icontains=text))
        .order_by("-active", "username")[:LOOKUP_LIMIT]
    )
    if not players:  # a name in another order, without its accents, an EGD PIN, a typo
        players = player_index().search(text, LOOKUP_LIMIT)
    # The club rank, as the sheet's volunteer knows the player; the entry rank of a
    # player not rated yet.
    ranks = primary_ranks(players)
    return [
        {
            "username": player.username,
            "full_name": player.full_name,
            "rank": str(ranks.get(player.pk, player.entry_rank)),
        }
        for player in players
    ]


def player_ratings(player: Player) -> list[CurrentRating]:
    """The player's current rank and value in each maintained algorithm, in the order of
    ``maintained_algorithms`` (the primary first)."""
    ratings = ratings_by_algorithm(player)
    return [ratings[name] for name in maintained_algorithms() if name in ratings]


def player_usernames() -> list[tuple[str, str]]:
    """(username, full name) of the active players, for the pages' <datalist>."""
    return list(Player.objects.active().values_list("username", "full_name"))


@dataclass(frozen=True)
class RecordSummary:
    """What the merge preview shows of one record."""

    player: Player
    games: int
    void_games: int
    adjustments: int
    first: date | None
    last: date | None


def record_summary(player: Player) -> RecordSummary:
    games = Game.objects.filter(Q(white=player) | Q(black=player)).aggregate(
        games=Count("pk", filter=Q(voided_at__isnull=True)),
        void=Count("pk", filter=Q(voided_at__isnull=False)),
        first=Min("date", filter=Q(voided_at__isnull=True)),
        last=Max("date", filter=Q(voided_at__isnull=True)),
    )
    return RecordSummary(
        player=player,
        games=games["games"],
        void_games=games["void"],
        adjustments=Adjustment.objects.valid().filter(player=player).count(),
        first=games["first"],
        last=games["last"],
    )


def dated_within(rows: QuerySet, field: str, since: date | None, until: date | None) -> QuerySet:
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


def players_filtered(filters: PlayerFilters) -> QuerySet[Player]:
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
    return dated_within(rows, "last_updated", filters.since, filters.until)


def player_by_username(username: str) -> Player | None:
    return Player.objects.select_related("club").filter(username=username).first()
