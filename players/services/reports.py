"""Writes of the players' reports of mistakes (``GameReport``): one transaction each,
audited, in the style of ``players.services``. A report never changes a game: the
volunteer who resolves it corrects or voids the game with the existing services."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, override

from notifications.senders import report_answer_send
from players import stored_sentences as sentences
from players.models import Game, GameReport, Player
from players.roles import VOLUNTEERS, check_club_scope, game_refused
from players.services.audit import audit
from players.services.base import ServiceError
from ratings.engine.messages import Message

TEXT_REQUIRED_KINDS = frozenset({GameReport.Kind.OTHER})
# A player reports a handful of games after a tournament at most; more in an hour is a
# script filling the volunteers' queue (159 reports in 4 s from one player).
REPORTS_PER_HOUR = 10


def report_snapshot(report: GameReport) -> dict[str, Any]:
    return {
        "game": report.game_id,
        "player": report.player.username,
        "kind": report.kind,
        "text": report.text,
        "resolution": report.resolution or None,
        "answer": report.answer,
    }


def report_create(*, user, player: Player, game_id: int, kind: str, text: str = "") -> GameReport:
    """``player`` (the account ``user``'s record) reports a mistake in one of their
    games. One open report per game and player (a database constraint too)."""
    text = text.strip()
    if kind not in GameReport.Kind.values:
        raise ServiceError(_("choose what is wrong"), [(None, "kind", _not_a_choice(kind))])
    if kind in TEXT_REQUIRED_KINDS and not text:
        message = _("say what is wrong with the game")
        raise ServiceError(message, [(None, "text", message)])
    game = Game.objects.filter(Q(white=player) | Q(black=player), pk=game_id).first()
    if game is None:
        raise ServiceError(
            _("game %(number)s is not one of %(username)s's games")
            % {"number": game_id, "username": player.username}
        )
    if game.is_void:
        raise ServiceError(
            _("game %(number)s is void already: it counts for nothing") % {"number": game.pk}
        )
    if GameReport.objects.filter(game=game, player=player, resolved_at__isnull=True).exists():
        raise ServiceError(str(_ALREADY_OPEN))
    try:
        with transaction.atomic():
            # The player's row locked: two reports sent at once are counted one by one.
            Player.objects.select_for_update().filter(pk=player.pk).first()
            recent = GameReport.objects.filter(
                player=player, created_at__gte=timezone.now() - timedelta(hours=1)
            ).count()
            if recent >= REPORTS_PER_HOUR:
                raise ServiceError(
                    ngettext(
                        "you have sent %(count)s report in the last hour; the volunteers "
                        "answer it first: report the next game later",
                        "you have sent %(count)s reports in the last hour; the volunteers "
                        "answer those first: report the next game later",
                        recent,
                    )
                    % {"count": recent}
                )
            report = GameReport.objects.create(
                game=game,
                player=player,
                kind=kind,
                text=text,
                game_revision=game.revision,
                created_by=user,
            )
            audit(
                user,
                "report_create",
                report,
                after=report_snapshot(report),
                summary=_report_summary(game, report.get_kind_display),
            )
    except IntegrityError as error:  # a second submit raced the first
        raise ServiceError(str(_ALREADY_OPEN)) from error
    return report


_ALREADY_OPEN = gettext_lazy(
    "you have already reported this game; the volunteers have not answered yet"
)


def _not_a_choice(value: str) -> str:
    return _("'%(value)s' is not a choice") % {"value": value}


def report_resolve(*, user, report_id: int, resolution: str, answer: str = "") -> GameReport:
    """Close an open report with what was done: ``corrected`` (what was played has
    changed since it was reported; a merge of the player's records or a comment alone
    is no correction), ``voided`` (the game is void) or ``as_recorded`` (with an
    answer saying why the game stands)."""
    answer = answer.strip()
    if resolution not in GameReport.Resolution.values:
        raise ServiceError(
            _("choose what was done"), [(None, "resolution", _not_a_choice(resolution))]
        )
    if resolution == GameReport.Resolution.AS_RECORDED and not answer:
        message = _("tell the player why the game stands as recorded")
        raise ServiceError(message, [(None, "answer", message)])
    with transaction.atomic():
        report = (
            GameReport.objects.select_for_update(of=("self",))
            .select_related("game", "player")
            .get(pk=report_id)
        )
        game = report.game
        check_club_scope(user, VOLUNTEERS, game.club_id, game_refused(game.pk))
        if not report.is_open:
            raise ServiceError(_("report %(number)s was resolved already") % {"number": report.pk})
        if resolution == GameReport.Resolution.VOIDED and not game.is_void:
            message = _("game %(number)s is not void: void it first (Void… on the game's page)") % {
                "number": game.pk
            }
            raise ServiceError(message, [(None, "resolution", message)])
        if resolution == GameReport.Resolution.CORRECTED and game.revision == report.game_revision:
            message = _(
                "game %(number)s has not changed since it was reported: correct it first "
                "(Correct or back-date on the game's page)"
            ) % {"number": game.pk}
            raise ServiceError(message, [(None, "resolution", message)])
        before = report_snapshot(report)
        report.resolution = resolution
        report.answer = answer
        report.resolved_by = user
        report.resolved_at = timezone.now()
        report.save()
        audit(
            user,
            "report_resolve",
            report,
            before=before,
            after=report_snapshot(report),
            summary=_report_summary(game, report.get_resolution_display),
        )
        report_answer_send(report)
    return report


def _report_summary(game: Game, label) -> Message:
    """The audit's summary of a report of ``game``: its kind or resolution (``label``,
    a choice's display) in English, as the audit trail is written; a page reads it in
    its reader's language."""
    with override(None):
        return Message(sentences.REPORT_OF_GAME, game=game.pk, what=str(label()))
