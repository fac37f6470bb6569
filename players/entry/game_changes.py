"""The two pages that change a stored game, a correction and a void: one shape. GET
shows the form at the game's version; POST writes through the service; a game changed
meanwhile is shown again as it is now, never overwritten."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from players.entry.forms import GameCorrectionForm, GameVoidForm
from players.models import Game
from players.roles import VOLUNTEERS, check_club, game_refused
from players.selectors.games import game_for_page
from players.selectors.tournaments import tournament_codes
from players.services import games as games_services
from players.services.base import ConcurrentEditError, DuplicateGamesError, ServiceError
from players.web.forms import add_service_errors
from players.web.numbers import decimal_text

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise


def game_or_404(pk: int) -> Game:
    return get_object_or_404(game_for_page(pk))


class GameChangePage(ABC):
    """What the two pages share; each subclass says its form, its write and its words."""

    form_class: type[forms.Form]
    template: str
    done: _StrOrPromise  # the success message (gettext_lazy), with %(number)s

    def __init__(self, request: HttpRequest, pk: int) -> None:
        self.request, self.pk = request, pk
        self.game = game_or_404(pk)
        check_club(request.user, VOLUNTEERS, self.game.club_id, game_refused(pk))

    def response(self) -> HttpResponse:
        if self.game.is_void:
            self.refuse_void()
            return redirect("game_detail", self.pk)
        if self.request.method != "POST":
            return self.render(self.form_class(initial=self.initial()))
        form = self.form_class(self.request.POST)
        if form.is_valid():
            try:
                self.write(form)
            except ConcurrentEditError:
                self.game = game_or_404(self.pk)
                form = self.changed_meanwhile(form)
            except ServiceError as error:
                refused = self.refused(form, error)
                if refused is not None:
                    return refused
            else:
                messages.success(self.request, str(self.done) % {"number": self.pk})
                return redirect("game_detail", self.pk)
        return self.render(form)

    def render(self, form: forms.Form) -> HttpResponse:
        context = {"game": self.game, "form": form, **self.context()}
        return render(self.request, self.template, context)

    @abstractmethod
    def refuse_void(self) -> None:
        """Say why a void game cannot be changed here."""

    @abstractmethod
    def initial(self) -> dict:
        """The form's values for the game as it is now."""

    @abstractmethod
    def write(self, form) -> None:
        """The change, through its service."""

    @abstractmethod
    def changed_meanwhile(self, form) -> forms.Form:
        """The form to show again over the game as it is now."""

    @abstractmethod
    def refused(self, form, error: ServiceError) -> HttpResponse | None:
        """The response to a refused write; None shows the form again."""

    def context(self) -> dict:
        return {}


class GameCorrectionPage(GameChangePage):
    form_class = GameCorrectionForm
    template = "games/game_form.html"
    done = gettext_lazy("Game %(number)s corrected.")

    conflict = None
    confirm_date = False

    def refuse_void(self) -> None:
        messages.error(
            self.request,
            _("Game %(number)s is void: it cannot be corrected.") % {"number": self.pk},
        )

    def initial(self) -> dict:
        return GameCorrectionForm.initial_for(self.game)

    def write(self, form) -> None:
        games_services.game_correct(
            user=self.request.user,
            game_id=self.pk,
            version=form.cleaned_data["version"],
            changes=form.game_input(),
            allow_outliers=form.cleaned_data["confirm_date"],
        )

    def changed_meanwhile(self, form) -> forms.Form:
        # Show the current game, and what was typed.
        self.conflict = form.differences_from(self.game)
        return GameCorrectionForm(initial=self.initial())

    def refused(self, form, error: ServiceError) -> HttpResponse | None:
        if isinstance(error, games_services.NothingChangedError):
            messages.info(
                self.request,
                _("Nothing changed: game %(number)s is as it was.") % {"number": self.pk},
            )
            return redirect("game_detail", self.pk)
        add_service_errors(form, error)
        if isinstance(error, DuplicateGamesError):
            self.confirm_date = True  # the box to tick if the date is right
        return None

    def context(self) -> dict:
        return {
            "conflict": self.conflict,
            "confirm_date": self.confirm_date,
            "tournament_codes": tournament_codes(),
        }


class GameVoidPage(GameChangePage):
    form_class = GameVoidForm
    template = "games/game_void.html"
    done = gettext_lazy("Game %(number)s is void.")

    changed = False

    def refuse_void(self) -> None:
        messages.info(self.request, _("Game %(number)s is already void.") % {"number": self.pk})

    def initial(self) -> dict:
        return {"version": self.game.version}

    def write(self, form) -> None:
        data = form.cleaned_data
        games_services.game_void(
            user=self.request.user, game_id=self.pk, version=data["version"], reason=data["reason"]
        )

    def changed_meanwhile(self, form) -> forms.Form:
        self.changed = True
        return GameVoidForm(initial={"reason": form.cleaned_data["reason"], **self.initial()})

    def refused(self, form, error: ServiceError) -> HttpResponse:
        messages.error(self.request, error.message)
        return redirect("game_detail", self.pk)

    def context(self) -> dict:
        return {"changed_meanwhile": self.changed, "komi": decimal_text(self.game.komi, 1)}
