"""A player's log page as one read: the player's ratings, the record sheet (or month-end
standings) under the chosen algorithm, the chart's points and what the page notes
around them. The view adds only the table, the chart and the tabs."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.db.models import QuerySet

from players.models import Game, Player, Tournament
from players.selectors.clubs import MembershipSpan, membership_spans
from players.selectors.players import (
    ChartPoint,
    chart_points,
    declared_rating_source,
    log_rows,
    merged_records,
    ratings_by_algorithm,
    snapshot_chart_points,
    snapshot_rows,
    voided_games,
)
from players.selectors.ratings import RecomputeNotice, recompute_notice
from players.selectors.reports import reported_game_ids
from ratings.algorithms import algorithms
from ratings.engine.base import Algorithm
from ratings.models import CurrentRating, RatingHistory, RatingSnapshot


@dataclass(slots=True)
class PlayerLog:
    """What the log page shows of ``player`` under ``algorithm``; the fields from
    ``player`` to ``merged_records`` are the template's context under their names."""

    player: Player
    algorithm: Algorithm
    primary: Algorithm
    primary_rating: CurrentRating | None
    rating: CurrentRating | None
    entry_grade_differs: bool
    declared_start: Tournament | None
    notice: RecomputeNotice | None
    voided_games: list[Game]
    merged_records: list[Player]
    # what the view turns into the table, the chart and the tabs
    rows: QuerySet = field(repr=False)
    reported: set[int] | None  # the games the player reported, on their own page only
    memberships: list[MembershipSpan]  # the club of each row's day
    points: list[ChartPoint]
    tabs: list[Algorithm]

    def context(self) -> dict[str, Any]:
        names = (
            "player",
            "algorithm",
            "primary",
            "primary_rating",
            "rating",
            "entry_grade_differs",
            "declared_start",
            "notice",
            "voided_games",
            "merged_records",
        )
        return {name: getattr(self, name) for name in names}


def player_log(player: Player, algorithm: Algorithm, *, viewer, today: date) -> PlayerLog:
    """The log page of ``player`` as ``viewer`` (a user, perhaps anonymous) sees it on
    ``today``: the tabs are the algorithms that rated the player, and the one asked for."""
    infos = algorithms()
    primary = infos[0]
    ratings = ratings_by_algorithm(player)
    rating = ratings.get(algorithm.name)
    rows: QuerySet[RatingHistory] | QuerySet[RatingSnapshot]
    if algorithm.has_history:
        own_page = viewer.is_authenticated and player.account_id == viewer.pk
        rows = log_rows(player, algorithm.name)
        reported = reported_game_ids(player) if own_page else None
        points = chart_points(player, algorithm.name)
    else:
        rows, reported = snapshot_rows(player, algorithm.name), None
        points = snapshot_chart_points(player, algorithm.name)
        if rating is not None and (not points or points[-1].date < today):
            # month-end snapshots stop before this month: the current standing ends the line
            points.append(ChartPoint(today, rating.rank, rating.value))
    primary_rating = ratings.get(primary.name)
    return PlayerLog(
        player=player,
        algorithm=algorithm,
        primary=primary,
        primary_rating=primary_rating,
        rating=rating,
        entry_grade_differs=primary_rating is None or player.entry_rank != primary_rating.rank,
        declared_start=(
            declared_rating_source(player) if algorithm.starts_at_declared_rating else None
        ),
        notice=recompute_notice(algorithm.name, player),
        voided_games=voided_games(player),
        merged_records=merged_records(player),
        rows=rows,
        reported=reported,
        memberships=membership_spans(player),
        points=points,
        tabs=[info for info in infos if info.name in ratings or info.name == algorithm.name],
    )
