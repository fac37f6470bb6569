"""The volunteers' queue of the players' reports of mistakes: the list and one report
(resolve it)."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from players.entry.forms import ReportFilterForm, ReportResolveForm
from players.permissions import volunteer_required
from players.roles import VOLUNTEERS, check_club, game_refused, role_clubs
from players.selectors import reports as selectors
from players.selectors.clubs import clubs_among
from players.services.base import ServiceError
from players.services.reports import report_resolve
from players.web.forms import add_service_errors

RESOLVED_SHOWN = 20
# The open reports shown a page at a time, oldest first.
OPEN_PER_PAGE = 50


@volunteer_required
@require_safe
def report_list(request: HttpRequest) -> HttpResponse:
    """The queue: of the volunteer's clubs, or of the club ``?club=`` names among them."""
    clubs = role_clubs(request.user, VOLUNTEERS)
    choices = clubs_among(clubs)
    form = ReportFilterForm(request.GET or None, clubs=choices)
    club = form.chosen_club()
    shown = frozenset({club.pk}) if club is not None else clubs
    open_reports = selectors.of_clubs(selectors.open_reports(), shown)
    page = Paginator(open_reports, OPEN_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "reports/report_list.html",
        {
            "open_page": page,
            "resolved_reports": list(
                selectors.of_clubs(selectors.resolved_reports(), shown)[:RESOLVED_SHOWN]
            ),
            "clubs": choices,
            "club": club,
            "form": form,
        },
    )


@volunteer_required
@require_http_methods(["GET", "POST"])
def report_detail(request: HttpRequest, pk: int) -> HttpResponse:
    report = selectors.report_or_none(pk)
    if report is None:
        raise Http404(f"no report {pk}")
    check_club(
        request.user,
        VOLUNTEERS,
        report.game.club_id,
        game_refused(report.game_id),
    )
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
                request,
                _("Report %(number)s is resolved; the player sees the answer.")
                % {"number": report.pk},
            )
            return redirect("report_list")
    return render(request, "reports/report_detail.html", {"report": report, "form": form})
