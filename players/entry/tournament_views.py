"""The volunteers' tournament pages: create one, import an h-file or OpenGotha file
(upload, preview, confirm)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import partial
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods

from players.entry.tournament_forms import (
    FORMAT_LABELS,
    FilePlayersForm,
    TournamentCreateForm,
    TournamentImportForm,
    TournamentUploadForm,
)
from players.permissions import volunteer_required
from players.resync import name_key
from players.roles import EVERY_CLUB, VOLUNTEERS, role_clubs
from players.selectors.clubs import clubs_among
from players.services.base import DuplicateGamesError, ServiceError
from players.services.games import VoidedGameOnFile
from players.services.imports import ImportResult
from players.services.tournament_files import (
    ImportPlan,
    PlayerMatch,
    games_of_the_tournament_on_file,
    plan_duplicates,
    plan_tournament_import,
    tournament_import,
)
from players.services.tournaments import tournament_create
from players.web.forms import (
    add_service_errors,
    duplicate_warnings,
    store_confirming_duplicates,
    warnings_fingerprint,
)
from players.web.numbers import count_text
from ratings.engine.formats import one_day_warning

# The preview form's fields besides the players' (token, action, file, code...), with room.
OTHER_FORM_FIELDS = 20


# How a player of the file was matched, as the preview says it.
MATCHED_BY = {
    "EGD PIN": gettext_lazy("by EGD PIN"),
    "username": gettext_lazy("by username"),
    "name": gettext_lazy("by exact name"),
    "--map": gettext_lazy("your choice"),
}


@dataclass(frozen=True)
class PreviewRow:
    match: PlayerMatch
    field: forms.BoundField
    editable: bool  # with a field to type another username in
    file_namesake: bool  # another player of the file has the same name

    @property
    def matched_by(self) -> str:
        if self.match.is_new:
            return _("NEW")
        return str(MATCHED_BY.get(self.match.how, self.match.how))


def _editable(plan: ImportPlan, choices: FilePlayersForm) -> set[int]:
    """The file players (by number) shown with a username field: everyone, unless the
    fields would pass Django's limit on a form's fields (a tournament of a thousand);
    then first those who need a look: conflicts, typed-over and new players."""
    limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
    budget = len(plan.matches) if limit is None else limit - OTHER_FORM_FIELDS
    if len(plan.matches) <= budget:
        return {match.file_player.number for match in plan.matches}
    first = sorted(
        plan.matches,
        key=lambda match: (
            not match.conflict,
            not choices.field_for(match).errors,
            match.how != "--map",
            not match.is_new,
        ),
    )
    return {match.file_player.number for match in first[:budget]}


def _clubs(request: HttpRequest) -> dict:
    """The clubs a tournament may be created or imported for: the volunteer's own (their
    one club chosen already); any or none for the roles held for every club."""
    clubs = role_clubs(request.user, VOLUNTEERS)
    return {"clubs": clubs_among(clubs), "every_club": clubs is EVERY_CLUB}


def _render_upload(request: HttpRequest, form: forms.Form) -> HttpResponse:
    return render(
        request,
        "tournaments/import_upload.html",
        {"form": form, "file_errors": getattr(form, "file_errors", [])},
    )


def _render_preview(
    request: HttpRequest,
    plan: ImportPlan,
    form: TournamentImportForm,
    choices: FilePlayersForm,
    **context,
) -> HttpResponse:
    names = Counter(name_key(match.file_player.full_name) for match in plan.matches)
    editable = _editable(plan, choices)
    rows = [
        PreviewRow(
            match,
            choices.field_for(match),
            match.file_player.number in editable,
            names[name_key(match.file_player.full_name)] > 1,
        )
        for match in plan.matches
    ]
    return render(
        request,
        "tournaments/import_preview.html",
        {
            "plan": plan,
            "info": plan.file.tournament,
            "form": form,
            "choices": choices,
            "rows": rows,
            "conflicts": sum(bool(match.conflict) for match in plan.matches),
            "no_colour": sum(not record.colour_given for record in plan.file.records),
            "one_day": one_day_warning(plan.file),
            "file_format": FORMAT_LABELS.get(form["file_format"].value(), ""),
            **_duplicates_context(plan, context.get("duplicates", [])),
            **context,
        },
    )


def _duplicates_context(plan: ImportPlan, duplicates: list[str]) -> dict:
    """The duplicates said apart: like stored games (each names one), like games voided
    since (each names one, when and why), like another game of the same file; and how
    many are the games of the tournament under the file's code."""
    voided = [warning for warning in duplicates if isinstance(warning, VoidedGameOnFile)]
    on_file = [
        warning
        for warning in duplicates
        if getattr(warning, "game_id", None) and not isinstance(warning, VoidedGameOnFile)
    ]
    return {
        "duplicates_on_file": on_file,
        "duplicates_voided": voided,
        "duplicates_in_file": [w for w in duplicates if not getattr(w, "game_id", None)],
        "duplicates_alike": len(duplicates) - len(voided),
        "already_imported": games_of_the_tournament_on_file(plan, on_file),
        "voided_of_the_tournament": games_of_the_tournament_on_file(plan, voided),
    }


def _confirmation(
    request: HttpRequest,
    form: TournamentImportForm,
    plan: ImportPlan,
    automatic: ImportPlan,
    duplicates: list[str],
):
    """The forms that confirm exactly ``plan`` (made from the matching ``automatic``):
    its fingerprint, its club and its usernames."""
    data = form.cleaned_data
    initial = TournamentImportForm.initial_for(
        data["content"], data["file_format"], data["filename"], plan.file, data.get("club")
    )
    confirm = TournamentImportForm(
        initial={
            **initial,
            "fingerprint": plan.fingerprint(),
            "duplicates_seen": warnings_fingerprint(duplicates),
        },
        **_clubs(request),
    )
    return confirm, FilePlayersForm(matches=plan.matches, automatic=automatic.matches)


def _store(user, plan: ImportPlan, data: dict) -> ImportResult:
    """Store the plan; games that look like stored ones need the volunteer's "import
    anyway" for the very warnings they were shown."""
    store = partial(
        tournament_import, user=user, plan=plan, source=data["filename"], club=data.get("club")
    )
    return store_confirming_duplicates(
        store, save_anyway=data["save_duplicates"], warnings_seen=data["duplicates_seen"]
    )


def _import(
    request: HttpRequest, plan: ImportPlan, data: dict[str, Any]
) -> HttpResponse | dict[str, Any]:
    """Import the plan the volunteer confirmed; if refused, what the preview says why."""
    if data["fingerprint"] != plan.fingerprint():
        return {"changed": True}
    try:
        result = _store(request.user, plan, data)
    except DuplicateGamesError as error:
        return {"duplicates": duplicate_warnings(error)}
    except ServiceError as error:
        return {
            "store_errors": [" ".join(str(p) for p in e if p) for e in error.errors],
            "store_error": error.message,
        }
    new = len(result.new_players)
    # Two counts: each its own plural, in one sentence.
    games = ngettext("%(count)s game", "%(count)s games", result.games) % {
        "count": count_text(result.games)
    }
    players = ngettext("%(count)s new player", "%(count)s new players", new) % {
        "count": count_text(new)
    }
    messages.success(
        request,
        _("Imported %(games)s and %(players)s; the ratings are recomputed.")
        % {"games": games, "players": players},
    )
    return redirect("tournament_detail", plan.file.tournament.code)


def _preview_upload(request: HttpRequest) -> HttpResponse:
    """The preview of a file just uploaded."""
    upload = TournamentUploadForm(request.POST, request.FILES, **_clubs(request))
    if not upload.is_valid():
        return _render_upload(request, upload)
    data = upload.cleaned_data
    tournament_file = upload.tournament_file
    assert tournament_file is not None  # a valid upload was read (clean refuses a file it cannot)
    plan = plan_tournament_import(tournament_file)
    duplicates = _duplicates(plan)
    initial = TournamentImportForm.initial_for(
        data["file"], data["file_format"], data["filename"], tournament_file, data["club"]
    )
    form = TournamentImportForm(
        initial={
            **initial,
            "fingerprint": plan.fingerprint(),
            "duplicates_seen": warnings_fingerprint(duplicates),
        },
        **_clubs(request),
    )
    return _render_preview(
        request, plan, form, FilePlayersForm(matches=plan.matches), duplicates=duplicates
    )


def _duplicates(plan: ImportPlan) -> list[str]:
    """The file's games that look like stored ones, said in the preview. A plan with
    problems cannot be imported: nothing to say of its games yet, unless its only
    problem is its code already on file (its players all matched): then the games say
    at once whether the file was simply imported before."""
    code_taken_only = plan.games_on_file and len(plan.problems) == 1
    return [] if plan.problems and not code_taken_only else plan_duplicates(plan)


def _preview_posted(request: HttpRequest) -> HttpResponse:
    """The preview posted back with the file: check the choices again, or import."""
    form = TournamentImportForm(request.POST, **_clubs(request))
    form.is_valid()
    if form.tournament_file is None:  # only an edited or truncated page gets here
        messages.error(request, _("The file did not come back intact: upload it again."))
        return _render_upload(request, TournamentUploadForm(**_clubs(request)))
    automatic = plan_tournament_import(form.tournament_file)
    choices = FilePlayersForm(request.POST, matches=automatic.matches)
    if not (form.is_valid() and choices.is_valid()):
        return _render_preview(request, automatic, form, choices)
    plan = plan_tournament_import(form.tournament_file, choices.mapping, choices.new_usernames)
    context: dict[str, Any] = {}
    if request.POST.get("action") == "import" and not plan.problems:
        outcome = _import(request, plan, form.cleaned_data)
        if isinstance(outcome, HttpResponse):
            return outcome
        context = outcome
        context["refused"] = "duplicates" in context
    if "duplicates" not in context:
        context["duplicates"] = _duplicates(plan)
    confirm, choices = _confirmation(request, form, plan, automatic, context["duplicates"])
    return _render_preview(request, plan, confirm, choices, **context)


@volunteer_required
@require_http_methods(["GET", "POST"])
def tournament_import_view(request: HttpRequest) -> HttpResponse:
    """Upload a file (POST with ``file``) to see the preview; the preview posts the file
    back (``content``) to check the choices again or to import it."""
    if request.method != "POST":
        return _render_upload(request, TournamentUploadForm(**_clubs(request)))
    if "content" not in request.POST:
        return _preview_upload(request)
    return _preview_posted(request)


@volunteer_required
@require_http_methods(["GET", "POST"])
def tournament_create_view(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = TournamentCreateForm(request.POST, **_clubs(request))
        if form.is_valid():
            try:
                tournament = tournament_create(user=request.user, **form.cleaned_data)
            except ServiceError as error:
                add_service_errors(form, error)
            else:
                messages.success(
                    request,
                    _("Added the tournament %(code)s: record sheets can name it now.")
                    % {"code": tournament.code},
                )
                return redirect(tournament)
    else:
        form = TournamentCreateForm(**_clubs(request))
    return render(request, "tournaments/tournament_form.html", {"form": form})
