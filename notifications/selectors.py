"""Reading for mail: who receives what, and what a player's digest of an evening holds."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet

from notifications.models import MailKind
from players.models import Game, Player
from players.roles import COMMITTEE, VOLUNTEERS
from ratings.algorithms import primary_algorithm
from ratings.models import RatingHistory, RecomputeState


def _with_address() -> QuerySet:
    return get_user_model().objects.filter(is_active=True).exclude(email="")


def open_reports_recipients() -> QuerySet:
    """Who gets the daily list of open reports: every volunteer, of every club or of one
    (committee members are volunteers too). Each reads only their clubs' reports
    (``senders.open_reports_send``)."""
    roles = (VOLUNTEERS, COMMITTEE)
    return (
        _with_address()
        .filter(Q(groups__name__in=roles) | Q(club_roles__group__name__in=roles))
        .distinct()
    )


def committee_recipients() -> QuerySet:
    """Who is told of a stalled recompute or a silent worker."""
    return _with_address().filter(groups__name=COMMITTEE).distinct()


def primary_final_before() -> date | Literal[False] | None:
    """The evenings whose ratings are final under the primary algorithm are those
    before the returned date; None: every evening; False: none (never recomputed)."""
    state = RecomputeState.objects.filter(algorithm=primary_algorithm()).first()
    if state is None:
        return False
    return state.dirty_from


@dataclass(slots=True)
class DigestGame:
    game: Game
    opponent: Player
    colour: str  # "W" or "B"
    won: bool | None  # None: a jigo
    change: float | None  # None: voided, or not rated (skipped)
    rank_after: object | None


@dataclass(slots=True)
class EveningDigest:
    player: Player
    evening: date
    revision: str  # of what it includes: a later correction makes another
    games: list[DigestGame]
    rank_after: object | None  # the primary rank at the end of the evening

    @property
    def key(self) -> str:
        return f"games:{self.player.pk}:{self.evening.isoformat()}:{self.revision}"


def _revision(games: list[Game]) -> str:
    content = ",".join(
        f"{game.pk}:{game.revision}:{int(game.voided_at is not None)}"
        for game in sorted(games, key=lambda g: g.pk)
    )
    return hashlib.sha256(content.encode()).hexdigest()[:16]


def evening_digests(*, first: date, last: date, quiet_since: datetime) -> list[EveningDigest]:
    """The digest of each evening from ``first`` to ``last`` (game dates, the club's
    time zone) of each player with a confirmed address, for the evenings whose
    primary ratings are final and whose games were last entered or voided before
    ``quiet_since`` (a sheet entered in several saves makes one digest)."""
    final_before = primary_final_before()
    if final_before is False:
        return []
    if final_before is not None:
        last = min(last, date.fromordinal(final_before.toordinal() - 1))
    if last < first:
        return []
    with_address = Q(account__isnull=False, account__is_active=True) & ~Q(account__email="")
    players = {
        player.pk: player
        for player in Player.objects.filter(with_address).select_related("account")
    }
    if not players:
        return []
    games = list(
        Game.objects.filter(date__gte=first, date__lte=last)
        .filter(Q(white_id__in=players) | Q(black_id__in=players))
        .select_related("white", "black")
        .in_replay_order()
    )
    by_evening: dict[tuple[int, date], list[Game]] = defaultdict(list)
    for game in games:
        for player_id in (game.white_id, game.black_id):
            if player_id in players:
                by_evening[(player_id, game.date)].append(game)
    rows = _history_rows(list(by_evening), [game.pk for game in games])
    digests = []
    for (player_id, evening), evening_games in sorted(by_evening.items(), key=lambda i: i[0][1]):
        newest = max(max(g.created_at, g.voided_at or g.created_at) for g in evening_games)
        if newest >= quiet_since:
            continue
        digests.append(_digest(players[player_id], evening, evening_games, rows))
    return digests


def _history_rows(keys: list[tuple[int, date]], game_ids: list[int]) -> dict:
    rows = RatingHistory.objects.filter(
        algorithm=primary_algorithm(),
        game_id__in=game_ids,
        player_id__in={player_id for player_id, _ in keys},
    ).only("player_id", "game_id", "change", "rank_after", "position", "skipped")
    return {(row.player_id, row.game_id): row for row in rows}


def _digest(player: Player, evening: date, games: list[Game], rows: dict) -> EveningDigest:
    lines = []
    rank_after = None
    for game in games:
        white = game.white_id == player.pk
        row = rows.get((player.pk, game.pk))
        # The game's history row when it counted (rated, not voided since), else None.
        rated = row if row is not None and not row.skipped and game.voided_at is None else None
        if rated is not None:
            rank_after = rated.rank_after
        lines.append(
            DigestGame(
                game=game,
                opponent=game.black if white else game.white,
                colour="W" if white else "B",
                won=None if game.winner == Game.Winner.JIGO else (game.winner == "W") == white,
                change=rated.change if rated is not None else None,
                rank_after=rated.rank_after if rated is not None else None,
            )
        )
    return EveningDigest(
        player=player,
        evening=evening,
        revision=_revision(games),
        games=lines,
        rank_after=rank_after,
    )


def kinds_for(user) -> list[MailKind]:
    """The kinds of mail ``user`` may receive, for their settings page: a player's
    own (with a linked record), the volunteers' list, the committee's alerts."""
    groups = set(user.groups.values_list("name", flat=True))
    kinds = []
    if Player.objects.filter(account=user).exists():
        kinds += [MailKind.GAMES, MailKind.REPORT_ANSWER, MailKind.RANK_CHANGE]
    if groups & {VOLUNTEERS, COMMITTEE}:
        kinds.append(MailKind.OPEN_REPORTS)
    if COMMITTEE in groups:
        kinds.append(MailKind.ALERTS)
    return kinds
