"""A player's own page and their reports of mistakes (the volunteers' queue of reports
is ``players.entry.reports``). Thin views: a form parses, ``services.reports`` writes,
``selectors.reports`` reads."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from players.account.forms import GameReportForm
from players.models import Game, Player
from players.permissions import player_required
from players.selectors import reports as selectors
from players.services.base import ServiceError
from players.services.reports import report_create
from players.web.forms import add_service_errors


@login_required
@require_safe
def my_page(request: HttpRequest) -> HttpResponse:
    player = selectors.linked_player(request.user)
    context: dict[str, Any] = {"player": player}
    if player is not None:
        context["reports"] = list(selectors.reports_of(player))
        context["awaiting"] = selectors.games_awaiting_recompute(player)
    return render(request, "reports/my_page.html", context)


def _report_sent(request: HttpRequest, form: GameReportForm, player: Player, game: Game) -> bool:
    """Whether the valid ``form`` became a report; if not, the form says why."""
    try:
        report_create(user=request.user, player=player, game_id=game.pk, **form.cleaned_data)
    except ServiceError as error:
        add_service_errors(form, error)
        return False
    messages.success(
        request,
        _(
            "Thank you: your report on the game of %(date)s went to the volunteers. "
            "Their answer will be on this page."
        )
        % {"date": game.date.isoformat()},
    )
    return True


@player_required
@require_http_methods(["GET", "POST"])
def game_report(request: HttpRequest, pk: int) -> HttpResponse:
    player = selectors.linked_player(request.user)
    assert player is not None  # player_required lets in only an account with a record
    game = selectors.game_of(player, pk)
    if game is None:
        raise Http404(f"game {pk} is not one of your games")
    form = GameReportForm(request.POST or None)
    if request.method == "POST" and form.is_valid() and _report_sent(request, form, player, game):
        return redirect("my_page")
    already_open = selectors.has_open_report(game, player)
    context = {"form": form, "game": game, "player": player, "already_open": already_open}
    return render(request, "reports/game_report.html", context)
