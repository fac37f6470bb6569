"""Form helpers both apps share: errors from the services shown at their fields, the
text input that names a player, the confirmation of games that look like duplicates, and
a club chosen among the clubs one acts for."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from django import forms
from django.utils.translation import gettext as _

from players.lookup import player_from_text
from players.models import Club, Player
from players.services.base import DuplicateGamesError, ServiceError

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise

Stored = TypeVar("Stored")


def add_field_error(form: forms.Form, field_name: str | None, message: str) -> None:
    """An error at the field a service named, or for the whole form if it has no such field."""
    form.add_error(field_name if field_name in form.fields else None, message)


def add_service_errors(form: forms.Form, error: ServiceError) -> None:
    """Put a refused write's problems on the form, each at its field."""
    for problem in error.errors:
        add_field_error(form, problem.field, problem.message)
    if not error.errors:
        form.add_error(None, error.message)


def sentence(message: str) -> str:
    """A field's message as a sentence of a page's message: a full stop added, unless it
    ends with its own ("did you mean ben?")."""
    return message if message.endswith((".", "?", "!")) else f"{message}."


def focus_first_error(form: forms.Form) -> None:
    """Give the first field with an error ``autofocus``: a refused form far down a long
    page (the resync's apply, under its preview) then opens at its error, not at the
    top. Call after validation."""
    for name in form.fields:
        if name in form.errors:
            form.fields[name].widget.attrs["autofocus"] = True
            return


# --- a player typed in --------------------------------------------------------------


def player_input(datalist_id: str, **attrs: _StrOrPromise) -> forms.TextInput:
    """A text input for a username, offered the page's <datalist> of usernames (an
    attribute may be lazy text, a placeholder translated when the page is drawn)."""
    return forms.TextInput(
        attrs={"list": datalist_id, "autocomplete": "off", "autocapitalize": "none", **attrs}
    )


class PlayerField(forms.CharField):
    """A player typed in; cleans to the Player (None when left empty, if optional).
    ``find`` reads the text: by default a username, name or EGD PIN
    (``players.lookup.player_from_text``, which says which players the text could name).
    With ``datalist_id`` the input offers the page's <datalist> of usernames."""

    def __init__(
        self,
        *,
        datalist_id: str | None = None,
        find: Callable[[str], Player] = player_from_text,
        **kwargs,
    ):
        kwargs.setdefault("max_length", 150)
        if datalist_id is not None:
            kwargs.setdefault("widget", player_input(datalist_id))
        super().__init__(**kwargs)
        self.find = find

    def clean(self, value) -> Player | None:
        text = super().clean(value)
        if not text and not self.required:
            return None
        return self.find(text)


# --- games that look like duplicates ------------------------------------------------


def duplicate_warnings(error: DuplicateGamesError) -> list[str]:
    """The sentences to show, one a problem."""
    return [problem.message for problem in error.errors]


def warnings_fingerprint(warnings: list[str]) -> str:
    """What the page sends back with "save anyway", naming the warnings it showed."""
    return hashlib.sha256("\n".join(warnings).encode()).hexdigest()[:16] if warnings else ""


def store_confirming_duplicates(
    store: Callable[..., Stored], *, save_anyway: bool, warnings_seen: str
) -> Stored:
    """Call ``store()``. Games that look like duplicates are refused (the
    DuplicateGamesError goes up) unless the user ticked "save anyway" for the very
    warnings they were shown; then ``store(allow_duplicates=True)``."""
    try:
        return store()
    except DuplicateGamesError as error:
        warnings = duplicate_warnings(error)
        seen = bool(warnings) and warnings_seen == warnings_fingerprint(warnings)
        if not (save_anyway and seen):
            raise
    return store(allow_duplicates=True)


# --- a club chosen among the clubs one acts for -------------------------------------


class ClubChoiceField(forms.ModelChoiceField):
    """A club among those the page offers (the clubs the user acts for, set as the
    field's queryset by the form). Another club of the site, posted anyway (an old tab,
    a crafted request), is refused at the field with its name and the clubs offered,
    never with Django's "Select a valid choice" nor a 403 from the service behind."""

    def to_python(self, value):
        try:
            return super().to_python(value)
        except forms.ValidationError as error:
            if error.code != "invalid_choice":
                raise
            other = _other_club(value)
            if other is None:
                raise
            offered = self.queryset if self.queryset is not None else Club.objects.none()
            words = {"club": other.name, "offered": ", ".join(club.name for club in offered)}
            if words["offered"]:
                message = _(
                    "%(club)s is not one of the clubs you act for here; you may choose %(offered)s."
                )
            else:
                message = _("%(club)s is not one of the clubs you act for here.")
            raise forms.ValidationError(message % words, code="not_your_club") from error


def _other_club(value) -> Club | None:
    """The club ``value`` names (a club's id as posted), or None for no club of the site."""
    try:
        return Club.objects.filter(pk=int(value)).first()
    except (TypeError, ValueError):
        return None
