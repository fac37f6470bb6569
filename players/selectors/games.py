"""Reading games for the volunteers' pages: sheets, one game with its status and history."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from django.db.models import Count, Q, QuerySet

from players.models import AuditEntry, Game, Player, RecordSheet
from ratings.algorithms import algorithms, maintained_algorithms
from ratings.models import CurrentRating, RatingHistory, RatingSnapshot, RecomputeState
from ratings.recompute.liveness import running_stalled

DONE, PENDING, RUNNING = "done", "pending", "running"


@dataclass(frozen=True, slots=True)
class RecomputeStatus:
    algorithm: str
    status: str  # DONE, PENDING or RUNNING


def recompute_statuses_by_date(dates: Sequence[date]) -> list[list[RecomputeStatus]]:
    """For each date (a game's), whether every maintained algorithm has rated it with
    the current games: "done" when the algorithm is clean, or dirty only from a later
    date, and not running; else "running" or "pending" (a recompute whose process died,
    ``running_stalled``, is pending: it runs again). One query for all dates."""
    algorithms = maintained_algorithms()
    states = {s.algorithm: s for s in RecomputeState.objects.filter(algorithm__in=algorithms)}
    running = {name for name, state in states.items() if state.running_since is not None}
    running -= {name for name in running if running_stalled(states[name])}

    def status(algorithm: str, day: date) -> str:
        state = states.get(algorithm)
        if state is None:  # never marked dirty: nothing is waiting
            return DONE
        if algorithm in running:
            return RUNNING
        if state.dirty_from is not None and state.dirty_from <= day:
            return PENDING
        return DONE

    return [[RecomputeStatus(name, status(name, day)) for name in algorithms] for day in dates]


def _with_statuses(games: list[Game]) -> list[Game]:
    statuses_by_game = recompute_statuses_by_date([game.date for game in games])
    for game, statuses in zip(games, statuses_by_game, strict=True):
        game.recompute = statuses
        game.recompute_done = all(s.status == DONE for s in statuses)
    return games


def games_for_display() -> QuerySet[Game]:
    return Game.objects.select_related("white", "black", "tournament")


def sheet_games(sheet: RecordSheet) -> list[Game]:
    """The sheet's games in entry order, each with ``recompute`` (a RecomputeStatus per
    maintained algorithm) and ``recompute_done``."""
    return _with_statuses(list(games_for_display().filter(record_sheet=sheet).order_by("seq")))


def sheet_for_page(sheet_id: int) -> QuerySet[RecordSheet]:
    return RecordSheet.objects.select_related("entered_by", "club").filter(pk=sheet_id)


def game_for_page(game_id: int) -> QuerySet[Game]:
    return Game.objects.select_related(
        "white", "black", "tournament", "record_sheet", "created_by", "voided_by"
    ).filter(pk=game_id)


def game_with_status(game: Game) -> Game:
    return _with_statuses([game])[0]


def recent_sheets() -> QuerySet[RecordSheet]:
    """Record sheets, the latest entered first, with their numbers of games and void games."""
    return (
        RecordSheet.objects.select_related("entered_by", "club")
        .annotate(
            game_count=Count("games"),
            void_count=Count("games", filter=Q(games__voided_at__isnull=False)),
        )
        .order_by("-entered_at", "-pk")
    )


def game_history(game: Game) -> list[RatingHistory]:
    """The game's rows in every algorithm's history, the primary algorithm first."""
    order = {name: index for index, name in enumerate(maintained_algorithms())}
    rows = RatingHistory.objects.filter(game=game).select_related("player")
    return sorted(rows, key=lambda row: (order.get(row.algorithm, len(order)), row.position))


@dataclass(frozen=True)
class StandingsAround:
    """A player of a game in an algorithm that rates all games at once (GCR): it keeps
    no change per game, so the game page shows the player's month-end standings on
    either side of the game, and now."""

    algorithm: str
    player: Player
    colour: str
    before: RatingSnapshot | None  # the last month end before the game's date
    after: RatingSnapshot | None  # the first month end on or after it
    now: CurrentRating | None


def standings_around(game: Game) -> list[StandingsAround]:
    """For each algorithm the site keeps without per-game history, both players'
    standings around the game (none for a void game: it counts nowhere). A few small
    queries per such algorithm."""
    if game.is_void:
        return []
    rows = []
    for info in algorithms():
        if info.has_history:
            continue
        players = {"W": game.white, "B": game.black}
        snapshots = RatingSnapshot.objects.filter(algorithm=info.name)
        now = {
            rating.player_id: rating
            for rating in CurrentRating.objects.filter(
                algorithm=info.name, player__in=players.values()
            )
        }
        for colour, player in players.items():
            own = snapshots.filter(player=player)
            rows.append(
                StandingsAround(
                    algorithm=info.name,
                    player=player,
                    colour=colour,
                    before=own.filter(date__lt=game.date).order_by("-date").first(),
                    after=own.filter(date__gte=game.date).order_by("date").first(),
                    now=now.get(player.pk),
                )
            )
    return rows


def game_audit(game: Game) -> QuerySet[AuditEntry]:
    return AuditEntry.objects.filter(object_type="game", object_id=str(game.pk)).select_related(
        "user"
    )


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


def game_by_pk(pk: int) -> Game | None:
    return Game.objects.select_related("white", "black", "tournament").filter(pk=pk).first()


def game_ratings(game: Game, algorithms: Iterable[str]) -> list[RatingHistory]:
    """The game's history rows under these algorithms (White's and Black's), one query."""
    return list(
        RatingHistory.objects.filter(game=game, algorithm__in=list(algorithms)).order_by(
            "algorithm", "position"
        )
    )


# A game as the API shows it: the values ``api._game_values_json`` reads, by name.
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
