"""A player's own page and their reports of mistakes; the volunteers' queue of reports.
Thin views: a form parses, ``report_services`` writes, ``report_selectors`` reads."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_safe

from players.selectors import reports as selectors
from players.services.base import ServiceError
from players.services.reports import report_create, report_resolve

from .committee_forms import add_service_errors
from .models import GameReport
from .permissions import role_required, volunteer_required
from .report_forms import GameReportForm, ReportResolveForm

RESOLVED_SHOWN = 20

player_required = role_required(
    lambda user: selectors.linked_player(user) is not None,
    "players with their own account (the committee links it to their record)",
)


@login_required
@require_safe
def my_page(request: HttpRequest) -> HttpResponse:
    player = selectors.linked_player(request.user)
    context = {"player": player}
    if player is not None:
        context["reports"] = list(selectors.reports_of(player))
        context["awaiting"] = selectors.games_awaiting_recompute(player)
    return render(request, "reports/my_page.html", context)


@player_required
@require_http_methods(["GET", "POST"])
def game_report(request: HttpRequest, pk: int) -> HttpResponse:
    player = selectors.linked_player(request.user)
    game = selectors.game_of(player, pk)
    if game is None:
        raise Http404(f"game {pk} is not one of your games")
    form = GameReportForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            report_create(
                user=request.user,
                player=player,
                game_id=game.pk,
                kind=form.cleaned_data["kind"],
                text=form.cleaned_data["text"],
            )
        except ServiceError as error:
            add_service_errors(form, error)
        else:
            messages.success(
                request,
                f"Thank you: your report on the game of {game.date:%Y-%m-%d} went to the "
                "volunteers. Their answer will be on this page.",
            )
            return redirect("my_page")
    already = GameReport.objects.filter(game=game, player=player, resolved_at__isnull=True)
    return render(
        request,
        "reports/game_report.html",
        {"form": form, "game": game, "player": player, "already_open": already.exists()},
    )


@volunteer_required
@require_safe
def report_list(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "reports/report_list.html",
        {
            "open_reports": list(selectors.open_reports()),
            "resolved_reports": list(selectors.resolved_reports()[:RESOLVED_SHOWN]),
        },
    )


@volunteer_required
@require_http_methods(["GET", "POST"])
def report_detail(request: HttpRequest, pk: int) -> HttpResponse:
    report = selectors.report_or_none(pk)
    if report is None:
        raise Http404(f"no report {pk}")
    form = ReportResolveForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            report_resolve(
                user=request.user,
                report_id=report.pk,
                resolution=form.cleaned_data["resolution"],
                answer=form.cleaned_data["answer"],
            )
        except ServiceError as error:
            add_service_errors(form, error)
        else:
            messages.success(
                request, f"Report {report.pk} is resolved; the player sees the answer."
            )
            return redirect("report_list")
    return render(request, "reports/report_detail.html", {"report": report, "form": form})
