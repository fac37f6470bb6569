"""The volunteer pages: record sheets, corrections and voids, new players, the audit
trail. Every view is for volunteers (committee members are volunteers too): a form
parses, a service writes, a selector reads."""

from __future__ import annotations

import hashlib
from functools import partial

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from players.entry.forms import (
    AuditFilterForm,
    GameCorrectionForm,
    GameVoidForm,
    PlayerCreateForm,
    SheetForm,
    SheetGameFormSet,
)
from players.entry.tables import AuditTable, GameHistoryTable, SheetGamesTable, SheetTable
from players.models import Game, RecordSheet
from players.permissions import volunteer_required
from players.selectors import players as players_selectors
from players.selectors import reports as report_selectors
from players.selectors.audit import audit_actions, audit_entries, audit_object_types
from players.selectors.games import (
    game_audit,
    game_for_page,
    game_history,
    game_with_status,
    recent_sheets,
    sheet_games,
)
from players.selectors.tournaments import tournament_codes
from players.services import games as games_services
from players.services import players as players_services
from players.services.base import ConcurrentEditError, DuplicateGamesError, ServiceError
from players.services.games import GameInput, SubmitResult, game_correct, record_sheet_submit
from players.web.forms import add_service_errors
from players.web.pagination import BoundedRequestConfig

SHEETS_PER_PAGE = 25
AUDIT_PER_PAGE = 50


# --- record sheets --------------------------------------------------------------


def _duplicate_warnings(error: DuplicateGamesError) -> list[str]:
    # record_sheet_submit lists plain sentences; games_import wraps them as
    # (where, field, sentence).
    return [item if isinstance(item, str) else item[-1] for item in error.errors]


def _fingerprint(warnings: list[str]) -> str:
    return hashlib.sha256("\n".join(warnings).encode()).hexdigest()[:16]


def _submit_sheet(user, games: list[GameInput], sheet: dict) -> SubmitResult:
    """Store the sheet. Games that look like duplicates are refused unless the volunteer
    ticked "save anyway" for the very warnings they were shown."""
    submit = partial(
        record_sheet_submit,
        user=user,
        games=games,
        received_on=sheet["received_on"],
        note=sheet["note"].strip(),
    )
    try:
        return submit()
    except DuplicateGamesError as error:
        seen = sheet["duplicates_seen"] == _fingerprint(_duplicate_warnings(error))
        if not (sheet["save_duplicates"] and seen):
            raise
    return submit(allow_duplicates=True)


@volunteer_required
@require_http_methods(["GET", "POST"])
def sheet_new(request: HttpRequest) -> HttpResponse:
    duplicates: list[str] = []
    if request.method == "POST":
        sheet_form = SheetForm(request.POST, prefix="sheet")
        formset = SheetGameFormSet(request.POST)
        # Both validated, so that every error of the page shows in one round.
        sheet_valid, rows_valid = sheet_form.is_valid(), formset.is_valid()
        if sheet_valid and rows_valid:
            try:
                result = _submit_sheet(request.user, formset.game_inputs(), sheet_form.cleaned_data)
            except DuplicateGamesError as error:
                duplicates = _duplicate_warnings(error)  # shown with the box to confirm
            except ServiceError as error:
                if not formset.add_service_errors(error):
                    sheet_form.add_error(None, error.message)
            else:
                games = len(result.games)
                messages.success(
                    request, f"Sheet {result.sheet.pk} saved: {games} game{'s' * (games != 1)}."
                )
                for warning in result.warnings:
                    messages.warning(request, warning)
                return redirect(result.sheet)
    else:
        sheet_form = SheetForm(prefix="sheet")
        formset = SheetGameFormSet()
    return render(
        request,
        "sheets/sheet_form.html",
        {
            "sheet_form": sheet_form,
            "formset": formset,
            "duplicates": duplicates,
            "duplicates_fingerprint": _fingerprint(duplicates) if duplicates else "",
            "player_form": PlayerCreateForm(),
            "tournament_codes": tournament_codes(),
        },
    )


@volunteer_required
@require_GET
def sheet_detail(request: HttpRequest, pk: int) -> HttpResponse:
    sheet = get_object_or_404(RecordSheet.objects.select_related("entered_by"), pk=pk)
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


def _game(pk: int) -> Game:
    return get_object_or_404(game_for_page(pk))


@volunteer_required
@require_GET
def game_detail(request: HttpRequest, pk: int) -> HttpResponse:
    game = game_with_status(_game(pk))
    audit = AuditTable(game_audit(game))
    return render(
        request,
        "games/game_detail.html",
        {
            "game": game,
            "history": GameHistoryTable(game_history(game)),
            "audit": audit,
            "pending": not game.recompute_done,
            "open_reports": list(report_selectors.open_reports_on(game)),
        },
    )


@volunteer_required
@require_http_methods(["GET", "POST"])
def game_edit(request: HttpRequest, pk: int) -> HttpResponse:
    game = _game(pk)
    if game.is_void:
        messages.error(request, f"Game {game.pk} is void: it cannot be corrected.")
        return redirect("game_detail", pk)
    conflict = None
    confirm_date = False
    if request.method == "POST":
        form = GameCorrectionForm(request.POST)
        if form.is_valid():
            try:
                game_correct(
                    user=request.user,
                    game_id=game.pk,
                    version=form.cleaned_data["version"],
                    changes=form.game_input(),
                    allow_outliers=form.cleaned_data["confirm_date"],
                )
            except ConcurrentEditError:
                # Never overwrite silently: show the current game, and what was typed.
                game = _game(pk)
                conflict = form.differences_from(game)
                form = GameCorrectionForm(initial=GameCorrectionForm.initial_for(game))
            except DuplicateGamesError as error:
                add_service_errors(form, error)
                confirm_date = True  # the box to tick if the date is right
            except ServiceError as error:
                add_service_errors(form, error)
            else:
                messages.success(request, f"Game {game.pk} corrected.")
                return redirect("game_detail", pk)
    else:
        form = GameCorrectionForm(initial=GameCorrectionForm.initial_for(game))
    return render(
        request,
        "games/game_form.html",
        {
            "game": game,
            "form": form,
            "conflict": conflict,
            "confirm_date": confirm_date,
            "tournament_codes": tournament_codes(),
        },
    )


@volunteer_required
@require_http_methods(["GET", "POST"])
def game_void(request: HttpRequest, pk: int) -> HttpResponse:
    game = _game(pk)
    if game.is_void:
        messages.info(request, f"Game {game.pk} is already void.")
        return redirect("game_detail", pk)
    changed_meanwhile = False
    if request.method == "POST":
        form = GameVoidForm(request.POST)
        if form.is_valid():
            try:
                games_services.game_void(
                    user=request.user,
                    game_id=game.pk,
                    version=form.cleaned_data["version"],
                    reason=form.cleaned_data["reason"],
                )
            except ConcurrentEditError:
                changed_meanwhile = True
                game = _game(pk)
                form = GameVoidForm(
                    initial={"reason": form.cleaned_data["reason"], "version": game.version}
                )
            except ServiceError as error:
                messages.error(request, error.message)
                return redirect("game_detail", pk)
            else:
                messages.success(request, f"Game {game.pk} is void.")
                return redirect("game_detail", pk)
    else:
        form = GameVoidForm(initial={"version": game.version})
    return render(
        request,
        "games/game_void.html",
        {"game": game, "form": form, "changed_meanwhile": changed_meanwhile},
    )


# --- players ----------------------------------------------------------------------


def _wants_json(request: HttpRequest) -> bool:
    # A browser's Accept ends in */*, which would also match JSON: compare preferences.
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


@volunteer_required
@require_http_methods(["GET", "POST"])
def player_create(request: HttpRequest) -> HttpResponse:
    """The new-player page, and the endpoint of the sheet's "new player" dialog
    (``Accept: application/json``)."""
    if request.method == "POST":
        form = PlayerCreateForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                player = players_services.player_create(
                    user=request.user,
                    username=data["username"],
                    full_name=data["full_name"],
                    club=data["club"],
                    entry_rank=data["national_rank"],
                    national_rank=data["national_rank"],
                    egd_pin=data["egd_pin"],
                )
            except ServiceError as error:
                add_service_errors(form, error)
            else:
                if _wants_json(request):
                    return JsonResponse(
                        {
                            "username": player.username,
                            "full_name": player.full_name,
                            "rank": str(player.entry_rank),
                        },
                        status=201,
                    )
                messages.success(request, f"Added {player}. Add another, or enter a sheet.")
                return redirect("player_create")
        if _wants_json(request):
            return JsonResponse({"errors": form.errors.get_json_data()}, status=400)
    else:
        form = PlayerCreateForm()
    return render(request, "players/player_form.html", {"form": form})


@volunteer_required
@require_GET
def player_lookup(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"players": players_selectors.player_lookup(request.GET.get("q", ""))})


# --- the audit trail ----------------------------------------------------------------


@volunteer_required
@require_GET
def audit_list(request: HttpRequest) -> HttpResponse:
    form = AuditFilterForm(
        request.GET or None,
        actions=audit_actions(),
        object_types=audit_object_types(),
    )
    filters = {}
    if form.is_bound and form.is_valid():
        filters = {name: value for name, value in form.cleaned_data.items() if value}
    table = AuditTable(audit_entries(**filters))
    BoundedRequestConfig(request, paginate={"per_page": AUDIT_PER_PAGE}).configure(table)
    return render(request, "audit/audit_list.html", {"form": form, "table": table})
