"""The volunteer pages: record sheets, corrections and voids, new players, the audit
trail. Every view is for volunteers (committee members are volunteers too): a form
parses, a service writes, a selector reads."""

from __future__ import annotations

from functools import partial

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods

from players.entry.forms import (
    AuditFilterForm,
    BaseSheetFormSet,
    PlayerCreateForm,
    SheetForm,
    SheetGameFormSet,
)
from players.entry.game_changes import GameCorrectionPage, GameVoidPage, game_or_404
from players.entry.tables import (
    AuditTable,
    GameHistoryTable,
    SheetGamesTable,
    SheetTable,
    StandingsAroundTable,
)
from players.models import Player
from players.permissions import volunteer_required
from players.roles import EVERY_CLUB, VOLUNTEERS, may_act_for, role_clubs
from players.selectors import players as players_selectors
from players.selectors import reports as report_selectors
from players.selectors.audit import audit_actions, audit_entries, audit_object_types
from players.selectors.clubs import clubs_among
from players.selectors.games import (
    game_audit,
    game_history,
    game_with_status,
    recent_sheets,
    sheet_for_page,
    sheet_games,
    standings_around,
)
from players.selectors.tournaments import tournament_codes
from players.services import players as players_services
from players.services.base import DuplicateGamesError, ServiceError
from players.services.games import SubmitResult, record_sheet_submit
from players.web.forms import (
    add_service_errors,
    duplicate_warnings,
    store_confirming_duplicates,
    warnings_fingerprint,
)
from players.web.numbers import decimal_text
from players.web.pagination import BoundedRequestConfig

SHEETS_PER_PAGE = 25
AUDIT_PER_PAGE = 50


# --- record sheets --------------------------------------------------------------


def _submit_sheet(user, formset: BaseSheetFormSet, sheet_form: SheetForm) -> SubmitResult:
    """Store the sheet; games that look like duplicates need the volunteer's "save
    anyway" for the very warnings they were shown."""
    sheet = sheet_form.cleaned_data
    store = partial(
        record_sheet_submit,
        user=user,
        games=formset.game_inputs(),
        received_on=sheet["received_on"],
        note=sheet["note"].strip(),
        club=sheet["club"],
    )
    return store_confirming_duplicates(
        store, save_anyway=sheet["save_duplicates"], warnings_seen=sheet["duplicates_seen"]
    )


def _sheet_saved(request: HttpRequest, result: SubmitResult) -> HttpResponse:
    games = len(result.games)
    messages.success(
        request,
        ngettext(
            "Sheet %(number)s saved: %(count)s game.",
            "Sheet %(number)s saved: %(count)s games.",
            games,
        )
        % {"number": result.sheet.pk, "count": games},
    )
    for warning in result.warnings:
        messages.warning(request, warning)
    return redirect(result.sheet)


@volunteer_required
@require_http_methods(["GET", "POST"])
def sheet_new(request: HttpRequest) -> HttpResponse:
    duplicates: list[str] = []
    if request.method != "POST":
        sheet_form, formset = _sheet_form(request, None), SheetGameFormSet()
    else:
        sheet_form = _sheet_form(request, request.POST)
        formset = SheetGameFormSet(request.POST)
        # Both validated, so that every error of the page shows in one round.
        sheet_valid, rows_valid = sheet_form.is_valid(), formset.is_valid()
        if sheet_valid and rows_valid:
            try:
                return _sheet_saved(request, _submit_sheet(request.user, formset, sheet_form))
            except DuplicateGamesError as error:
                duplicates = duplicate_warnings(error)
            except ServiceError as error:
                if not formset.add_service_errors(error):
                    sheet_form.add_error(None, error.message)
        else:
            # The rows without errors get their second look in this round too.
            duplicates = formset.doubts_of_valid_rows()
    return _render_sheet_form(request, sheet_form, formset, duplicates)


def _sheet_form(request: HttpRequest, data) -> SheetForm:
    """The sheet's own fields, its club among those the volunteer acts for."""
    clubs = role_clubs(request.user, VOLUNTEERS)
    return SheetForm(data, prefix="sheet", clubs=clubs_among(clubs), every_club=clubs is EVERY_CLUB)


def _render_sheet_form(request, sheet_form, formset, duplicates: list[str]) -> HttpResponse:
    context = {
        "sheet_form": sheet_form,
        "formset": formset,
        "duplicates": duplicates,  # shown with the box to confirm
        "duplicates_fingerprint": warnings_fingerprint(duplicates),
        "player_form": _player_form(request, None, ask_someone_else=True),
        "tournament_codes": tournament_codes(),
    }
    return render(request, "sheets/sheet_form.html", context)


@volunteer_required
@require_GET
def sheet_detail(request: HttpRequest, pk: int) -> HttpResponse:
    sheet = get_object_or_404(sheet_for_page(pk))
    games = sheet_games(sheet)
    return render(
        request,
        "sheets/sheet_detail.html",
        {
            "sheet": sheet,
            "table": SheetGamesTable(games),
            "pending": not all(game.recompute_done for game in games),
        },
    )


@volunteer_required
@require_GET
def sheet_list(request: HttpRequest) -> HttpResponse:
    table = SheetTable(recent_sheets())
    BoundedRequestConfig(request, paginate={"per_page": SHEETS_PER_PAGE}).configure(table)
    return render(request, "sheets/sheet_list.html", {"table": table})


# --- one game ---------------------------------------------------------------------


@volunteer_required
@require_GET
def game_detail(request: HttpRequest, pk: int) -> HttpResponse:
    game = game_with_status(game_or_404(pk))
    # Every volunteer reads a game's page, but a club's volunteers read only their clubs'
    # audit entries and reports (as /audit/ and /reports/): another club's game shows
    # neither.
    ours = may_act_for(request.user, VOLUNTEERS, game.club_id)
    return render(
        request,
        "games/game_detail.html",
        {
            "game": game,
            "history": GameHistoryTable(game_history(game), colour_given=game.colour_given),
            "standings_around": StandingsAroundTable(
                standings_around(game), colour_given=game.colour_given
            ),
            "komi": decimal_text(game.komi, 1),
            "audit": AuditTable(game_audit(game)) if ours else None,
            "pending": not game.recompute_done,
            "open_reports": list(report_selectors.open_reports_on(game)) if ours else [],
            "may_change": ours,
        },
    )


@volunteer_required
@require_http_methods(["GET", "POST"])
def game_edit(request: HttpRequest, pk: int) -> HttpResponse:
    return GameCorrectionPage(request, pk).response()


@volunteer_required
@require_http_methods(["GET", "POST"])
def game_void(request: HttpRequest, pk: int) -> HttpResponse:
    return GameVoidPage(request, pk).response()


# --- players ----------------------------------------------------------------------


def _wants_json(request: HttpRequest) -> bool:
    # A browser's Accept ends in */*, which would also match JSON: compare preferences.
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


def _player_create(user, form: PlayerCreateForm) -> Player | None:
    """The new player, or None with the form's errors."""
    if not form.is_valid():
        return None
    data = form.cleaned_data
    try:
        return players_services.player_create(
            user=user,
            username=data["username"],
            full_name=data["full_name"],
            club=data["club"],
            entry_rank=data["national_rank"],
            national_rank=data["national_rank"],
            egd_pin=data["egd_pin"],
        )
    except ServiceError as error:
        add_service_errors(form, error)
        return None


def _player_created_json(player: Player | None, form: PlayerCreateForm) -> JsonResponse:
    if player is None:
        return JsonResponse({"errors": form.errors.get_json_data()}, status=400)
    created = {"username": player.username, "full_name": player.full_name}
    return JsonResponse({**created, "rank": str(player.entry_rank)}, status=201)


def _player_form(request: HttpRequest, data, *, ask_someone_else: bool = False) -> PlayerCreateForm:
    """A new player's form: their club among the volunteer's clubs, or none (a visitor)."""
    return PlayerCreateForm(
        data,
        clubs=clubs_among(role_clubs(request.user, VOLUNTEERS)),
        ask_someone_else=ask_someone_else,
    )


@volunteer_required
@require_http_methods(["GET", "POST"])
def player_create(request: HttpRequest) -> HttpResponse:
    """The new-player page, and the endpoint of the sheet's "new player" dialog
    (``Accept: application/json``)."""
    if request.method != "POST":
        return render(request, "players/player_form.html", {"form": _player_form(request, None)})
    form = _player_form(request, request.POST)
    player = _player_create(request.user, form)
    if _wants_json(request):
        return _player_created_json(player, form)
    if player is None:
        return render(request, "players/player_form.html", {"form": form})
    messages.success(
        request, _("Added %(player)s. Add another, or enter a sheet.") % {"player": player}
    )
    return redirect("player_create")


@volunteer_required
@require_GET
def player_lookup(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"players": players_selectors.player_lookup(request.GET.get("q", ""))})


# --- the audit trail ----------------------------------------------------------------


@volunteer_required
@require_GET
def audit_list(request: HttpRequest) -> HttpResponse:
    """The audit trail; the roles of some clubs read their clubs' entries only."""
    clubs = role_clubs(request.user, VOLUNTEERS)
    form = AuditFilterForm(
        request.GET or None,
        actions=audit_actions(),
        object_types=audit_object_types(),
        clubs=clubs_among(clubs),
    )
    filters = {}
    if form.is_bound and form.is_valid():
        filters = {name: value for name, value in form.cleaned_data.items() if value}
    table = AuditTable(audit_entries(**filters, clubs=clubs))
    BoundedRequestConfig(request, paginate={"per_page": AUDIT_PER_PAGE}).configure(table)
    return render(request, "audit/audit_list.html", {"form": form, "table": table})
