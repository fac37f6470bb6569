"""Reads for the players' reports, their own page and the volunteers' queue."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import CharField, Exists, Func, OuterRef, Q, QuerySet, Subquery
from django.db.models.expressions import Combinable
from django.db.models.functions import Cast

from players.models import AuditEntry, Game, GameReport, Player
from ratings.algorithms import primary_algorithm
from ratings.models import RatingHistory, RecomputeState


def linked_player(user) -> Player | None:
    """The player record linked to ``user``'s account, or None (cached on the user)."""
    if not user.is_authenticated:
        return None
    if not hasattr(user, "_clubrating_player"):
        user._clubrating_player = Player.objects.filter(account_id=user.pk).first()
    return user._clubrating_player


def _with_game() -> QuerySet:
    return GameReport.objects.select_related(
        "game__white", "game__black", "player", "created_by", "resolved_by"
    )


def open_reports() -> QuerySet:
    """The volunteers' queue, oldest first."""
    return _with_game().filter(resolved_at__isnull=True).order_by("created_at", "id")


def of_clubs(reports: QuerySet, clubs: frozenset[int] | None) -> QuerySet:
    """``reports`` on the games of ``clubs`` (None: every club's and the federation's)."""
    return reports if clubs is None else reports.filter(game__club__in=clubs)


def resolved_reports() -> QuerySet:
    return _with_game().filter(resolved_at__isnull=False).order_by("-resolved_at", "-id")


def report_or_none(pk: int) -> GameReport | None:
    return _with_game().filter(pk=pk).first()


def reports_of(player: Player) -> QuerySet:
    """A player's reports, newest first, with their answers."""
    return _with_game().filter(player=player).order_by("-created_at", "-id")


def open_reports_on(game: Game) -> QuerySet:
    return _with_game().filter(game=game, resolved_at__isnull=True).order_by("created_at")


def reported_game_ids(player: Player) -> set[int]:
    """The player's games with an open report (one query for a whole log page)."""
    return set(
        GameReport.objects.filter(player=player, resolved_at__isnull=True).values_list(
            "game_id", flat=True
        )
    )


def has_open_report(game: Game, player: Player) -> bool:
    """``player`` reported ``game`` and no volunteer has answered yet."""
    return GameReport.objects.filter(game=game, player=player, resolved_at__isnull=True).exists()


def game_of(player: Player, pk: int) -> Game | None:
    """Game ``pk`` if ``player`` played in it."""
    return (
        Game.objects.select_related("white", "black", "tournament")
        .filter(Q(white=player) | Q(black=player), pk=pk)
        .first()
    )


def pending_primary_state() -> RecomputeState | None:
    """The primary algorithm's state while a recompute of it is pending, else None."""
    return RecomputeState.objects.filter(
        algorithm=primary_algorithm(), dirty_from__isnull=False
    ).first()


def awaiting_recompute(state: RecomputeState, player: Player | None = None) -> Q:
    """Which games on or after ``state``'s pending date the recompute has yet to show
    as they stand: those with no history row (of ``player``, or of anyone) under its
    algorithm (entered since it last ran) and those corrected since its last run
    started. Not every game after that date: the ones it rated before stand already."""
    rated = RatingHistory.objects.filter(algorithm=state.algorithm, game=OuterRef("pk"))
    if player is not None:
        rated = rated.filter(player=player)
    awaiting: Q | Combinable = ~Exists(rated)
    if state.last_started is not None:
        corrected = AuditEntry.objects.filter(
            object_type="game",
            object_id=Cast(OuterRef("pk"), CharField()),
            action="game_correct",
            at__gte=state.last_started,
        )
        awaiting |= Exists(corrected)
    return Q(date__gte=state.dirty_from) & Q(awaiting)


def games_awaiting_recompute(player: Player) -> list[Game]:
    """The player's valid games that their log page (the primary algorithm's) does not
    show as they stand yet (:func:`awaiting_recompute`). Newest first; one query after
    the state's."""
    state = pending_primary_state()
    if state is None:
        return []
    return list(
        Game.objects.valid()
        .select_related("white", "black")
        .filter(Q(white=player) | Q(black=player))
        .filter(awaiting_recompute(state, player))
        .in_replay_order(reverse=True)
    )


@dataclass(frozen=True)
class NavigationFacts:
    """What the navigation shows a logged-in user beyond their roles."""

    my_player: str | None = None  # the username of their linked record
    open_reports: int | None = None  # for volunteers: the reports awaiting an answer


def navigation_facts(user, *, volunteer: bool) -> NavigationFacts:
    """One query for both: the linked record and (for volunteers) the open reports."""
    if not user.is_authenticated:
        return NavigationFacts()
    facts = get_user_model().objects.filter(pk=user.pk)
    facts = facts.annotate(
        my_player=Subquery(Player.objects.filter(account_id=OuterRef("pk")).values("username"))
    )
    if volunteer:
        open_count = (
            GameReport.objects.filter(resolved_at__isnull=True)
            .order_by()
            .values(count=Func("pk", function="COUNT"))
        )
        facts = facts.annotate(open_reports=Subquery(open_count))
    row = facts.values(*(("my_player", "open_reports") if volunteer else ("my_player",))).first()
    if row is None:
        return NavigationFacts()
    return NavigationFacts(row["my_player"], row.get("open_reports"))
