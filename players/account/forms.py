"""The forms of the players' reports: a player's report of a mistake, a volunteer's
resolution of it."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from players.models import GameReport


class GameReportForm(forms.Form):
    kind = forms.ChoiceField(
        label=_("What is wrong?"), choices=GameReport.Kind.choices, widget=forms.RadioSelect
    )
    text = forms.CharField(
        label=_("Details"),
        required=False,
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_(
            "What the record should say (the right result, opponent or date). "
            "Required for “something else”."
        ),
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("kind") == GameReport.Kind.OTHER and not data.get("text", "").strip():
            self.add_error("text", _("Say what is wrong with the game."))
        return data
