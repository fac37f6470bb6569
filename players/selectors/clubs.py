"""Reading clubs: the list, one club, its unrated members."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from django.db import connection
from django.db.models import (
    Count,
    Exists,
    F,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.functions import ExtractMonth, ExtractYear
from django.http import Http404

from players.models import (
    Club,
    ClubRole,
    Game,
    Membership,
    Player,
    RecordSheet,
    ResyncBatch,
    Tournament,
)
from players.selectors.players import club_members, club_members_in_one_query
from players.selectors.ratings import months_before
from ratings.models import CurrentRating
from ratings.selectors import IDS_PER_QUERY

ACTIVE_MONTHS = 12  # "active" on the clubs page: played within the last year


@dataclass(frozen=True, slots=True)
class MembershipSpan:
    """One of a player's memberships: ``club`` from ``start`` (None: since before the
    site's records) to the day before ``end`` (None: still a member)."""

    club: str
    start: date | None
    end: date | None

    def holds_on(self, day: date) -> bool:
        return (self.start is None or self.start <= day) and (self.end is None or self.end > day)


def membership_spans(player: Player) -> list[MembershipSpan]:
    """Every membership ``player`` had, oldest first (one query): the club of each day."""
    return [
        MembershipSpan(name, start, end)
        for name, start, end in Membership.objects.filter(player=player)
        .order_by("start", "club__name")
        .values_list("club__name", "start", "end")
    ]


def clubs_on(spans: list[MembershipSpan], day: date) -> str:
    """The clubs of ``spans`` that held on ``day``, by name."""
    return ", ".join(span.club for span in spans if span.holds_on(day))


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
    """The club's players with no rating under ``algorithm`` (no rated game yet): what
    the club's page shows of them (name, username, entry rank)."""
    rated = CurrentRating.objects.filter(algorithm=algorithm, player=OuterRef("pk"))
    return (
        club.players.filter(~Exists(rated))
        .only("username", "full_name", "entry_rank")
        .order_by("full_name", "username")
    )


def clubs_among(club_ids: frozenset[int] | None) -> QuerySet[Club]:
    """The clubs of ``club_ids`` (None: every club), by name."""
    clubs = Club.objects.order_by("name")
    return clubs if club_ids is None else clubs.filter(pk__in=club_ids)


def account_club_roles(account) -> QuerySet[ClubRole]:
    """The roles ``account`` holds for single clubs, by club."""
    return (
        ClubRole.objects.filter(user=account)
        .select_related("club", "group")
        .order_by("club__name", "group__name")
    )


def club_people(club: Club) -> dict[str, list[str]]:
    """The usernames holding each role for ``club`` alone (its volunteers, its
    committee): names only, as the club's page shows them."""
    people: dict[str, list[str]] = {"volunteers": [], "committee": []}
    rows = (
        ClubRole.objects.filter(club=club, user__is_active=True)
        .order_by("user__username")
        .values_list("group__name", "user__username")
    )
    for group, username in rows:
        people.setdefault(group, []).append(username)
    return people


RECENT_GAMES = 20
RECENT_SHEETS = 10
RESYNCS_SHOWN = 10
ACTIVITY_MONTHS = 24


def club_recent_games(club: Club) -> list[Game]:
    """The latest valid games entered for ``club`` (its evenings and tournaments): what
    the club's page shows of them (their date, players, result and handicap) and no
    more (a game's row is wide: its content as stored, its comment)."""
    return list(
        Game.objects.filter(club=club, voided_at__isnull=True)
        .select_related("white", "black")
        .only(
            "date",
            "winner",
            "handicap",
            *(
                f"{side}__{name}"
                for side in ("white", "black")
                for name in ("username", "full_name")
            ),
        )
        .order_by("-date", "-seq")[:RECENT_GAMES]
    )


def club_sheets(club: Club) -> list[RecordSheet]:
    """The latest record sheets entered for ``club`` (its evenings), with their games
    counted and their first day: counted for those ten only (subqueries of the
    sheet's rows, not a count of every evening of the club grouped first)."""
    games = Game.objects.filter(record_sheet=OuterRef("pk")).order_by().values("record_sheet")
    return list(
        RecordSheet.objects.filter(club=club)
        .order_by("-entered_at", "-pk")
        .annotate(
            game_count=Subquery(games.annotate(n=Count("pk")).values("n")),
            first_day=Subquery(games.annotate(first=Min("date")).values("first")),
        )[:RECENT_SHEETS]
    )


def club_tournaments(club: Club) -> QuerySet[Tournament]:
    """The tournaments of ``club``, latest first: their code, name and start (what the
    club's page shows)."""
    return (
        Tournament.objects.filter(club=club)
        .only("code", "name", "start_date")
        .order_by("-start_date", "code")
    )


def club_resyncs(club: Club) -> list[ResyncBatch]:
    """The national-list resyncs that changed a current member of ``club``, newest
    first, with how many of its members each changed: what the club's page shows of
    them (their dates, whether reverted, the count)."""
    members = club_members_in_one_query(club, path="adjustments__player__")
    return list(
        ResyncBatch.objects.filter(members)
        .annotate(member_count=Count("adjustments__player", distinct=True))
        .only("created_at", "effective_date", "reverted_at")
        .order_by("-created_at", "-pk")[:RESYNCS_SHOWN]
    )


@dataclass(frozen=True, slots=True)
class MonthActivity:
    month: date  # its first day
    games: int  # valid games entered for the club that month
    members: int  # the club's members who played a valid game that month, anywhere


def club_activity(club: Club, today: date) -> list[MonthActivity]:
    """The club's last ACTIVITY_MONTHS months, oldest first: its games and its active
    members (its current members who played a valid game that month, anywhere). Two
    queries of at most ACTIVITY_MONTHS rows: the games by the club's index, and the
    members' distinct (month, player) pairs of both colours counted in the database."""
    first = months_before(today.replace(day=1), ACTIVITY_MONTHS - 1)
    valid = Game.objects.filter(voided_at__isnull=True, date__gte=first).order_by()
    valid = valid.annotate(year=ExtractYear("date"), month=ExtractMonth("date"))
    games = {
        (year, month): count
        for year, month, count in valid.filter(club=club)
        .values_list("year", "month")
        .annotate(count=Count("id"))
    }
    members = Player.objects.filter(club_members(club)).values("pk")
    # One (year, month, player) a row: a member's month once, whichever colour.
    pairs = (
        valid.filter(white__in=members)
        .annotate(player=F("white_id"))
        .values_list("year", "month", "player")
        .union(
            valid.filter(black__in=members)
            .annotate(player=F("black_id"))
            .values_list("year", "month", "player")
        )
    )
    sql, params = pairs.query.sql_with_params()
    year_column, month_column = (connection.ops.quote_name(name) for name in ("year", "month"))
    with connection.cursor() as cursor:
        # The union's rows counted where they are: the ORM's own SQL, wrapped.
        cursor.execute(
            f"SELECT pairs.{year_column}, pairs.{month_column}, COUNT(*) FROM ({sql}) pairs "
            f"GROUP BY pairs.{year_column}, pairs.{month_column}",
            params,
        )
        active = {(int(y), int(m)): n for y, m, n in cursor.fetchall()}
    months = []
    day = first
    while day <= today:
        key = (day.year, day.month)
        months.append(MonthActivity(day, games.get(key, 0), active.get(key, 0)))
        day = (day + timedelta(days=32)).replace(day=1)
    return months


def clubs_of_players(player_ids: Iterable[int]) -> set[int]:
    """The clubs ``player_ids`` are or were members of (their memberships, and the club
    on their records), a query per IDS_PER_QUERY players."""
    ids = sorted(set(player_ids))
    clubs: set[int] = set()
    for start in range(0, len(ids), IDS_PER_QUERY):
        chunk = ids[start : start + IDS_PER_QUERY]
        clubs.update(
            Membership.objects.filter(player_id__in=chunk)
            .order_by()
            .values_list("club_id", flat=True)
            .union(
                Player.objects.filter(pk__in=chunk, club__isnull=False)
                .order_by()
                .values_list("club_id", flat=True)
            )
        )
    return clubs


def club_by_pk(pk: int) -> Club | None:
    return Club.objects.filter(pk=pk).first()
