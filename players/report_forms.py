"""The forms of the players' reports: a player's report of a mistake, a volunteer's
resolution of it."""

from __future__ import annotations

from django import forms

from .models import GameReport


class GameReportForm(forms.Form):
    kind = forms.ChoiceField(
        label="What is wrong?", choices=GameReport.Kind.choices, widget=forms.RadioSelect
    )
    text = forms.CharField(
        label="Details",
        required=False,
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="What the record should say (the right result, opponent or date). "
        "Required for \u201csomething else\u201d.",
    )

    def clean(self):
        data = super().clean()
        if data.get("kind") == GameReport.Kind.OTHER and not data.get("text", "").strip():
            self.add_error("text", "Say what is wrong with the game.")
        return data


class ReportResolveForm(forms.Form):
    resolution = forms.ChoiceField(
        label="What was done",
        choices=GameReport.Resolution.choices,
        widget=forms.RadioSelect,
        help_text="Correct or void the game first (on the game's page); "
        "\u201cstands as recorded\u201d needs an answer saying why.",
    )
    answer = forms.CharField(
        label="Answer to the player",
        required=False,
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def clean(self):
        data = super().clean()
        if (
            data.get("resolution") == GameReport.Resolution.AS_RECORDED
            and not data.get("answer", "").strip()
        ):
            self.add_error("answer", "Tell the player why the game stands as recorded.")
        return data
