"""The what-if calculator's form: it parses the query string into a ``CalculatorInput``."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any, cast

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Column, Fieldset, Layout, Row, Submit
from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from players.fields import FiniteDecimalField, RankFormField
from players.lookup import LazyIndex, player_from_text
from players.models import Player
from players.web.forms import player_input
from ratings.calculator.results import CalculatorInput, SideInput
from ratings.engine.algorithms import registry
from ratings.engine.records import Status, default_komi

PLAYER_OPTIONS = "calculator-player-options"  # the id of the page's <datalist>
SIDES = ("white", "black")
# the legends of the two sides' fieldsets, in the order of SIDES
SIDE_LEGENDS = (pgettext_lazy("player", "White"), pgettext_lazy("player", "Black"))


def value_scales() -> list[tuple[str, str, tuple[str, ...]]]:
    """The scales a typed value can be in, and the algorithms that use each: (key,
    label, names), in the registry's order, as each algorithm describes its scale."""
    scales: dict[str, tuple[str, list[str]]] = {}
    for name, algorithm in registry().items():
        scale = algorithm.value_scale
        scales.setdefault(scale.key, (scale.label, []))[1].append(name)
    return [(key, label, tuple(names)) for key, (label, names) in scales.items()]


def _player_field() -> forms.CharField:
    return forms.CharField(
        required=False,
        max_length=150,
        label=_("Player"),
        widget=player_input(PLAYER_OPTIONS, placeholder=_("username or name")),
    )


def _rank_field() -> RankFormField:
    return RankFormField(
        required=False,
        label=_("or a rank"),
        help_text="",
        widget=forms.TextInput(attrs={"placeholder": _("e.g. 5k")}),
    )


def _value_field() -> forms.FloatField:
    return forms.FloatField(
        required=False,
        label=_("and a value"),
        widget=forms.NumberInput(attrs={"placeholder": _("optional"), "step": "any"}),
    )


class CalculatorForm(forms.Form):
    """GET form: a side is a player (their current state under each algorithm) or a
    rank with an optional value in one algorithm's scale."""

    white_player = _player_field()
    white_rank = _rank_field()
    white_value = _value_field()
    black_player = _player_field()
    black_rank = _rank_field()
    black_value = _value_field()
    value_scale = forms.ChoiceField(
        required=False,
        label=_("A typed value is a"),
        help_text=_("The other algorithms start a typed rank as a new player of that rank."),
    )
    # A link may leave out any of the game's fields: each has a default.
    handicap = forms.TypedChoiceField(
        required=False,
        coerce=int,
        empty_value=None,  # clean_handicap: 0
        initial=0,
        label=_("Handicap"),
        choices=[(0, _("0 (even)")), (1, _("1 (no komi)"))] + [(h, str(h)) for h in range(2, 10)],
    )
    komi = FiniteDecimalField(
        required=False,
        max_digits=3,
        decimal_places=1,
        min_value=Decimal(-50),
        max_value=Decimal(50),
        label=_("Komi"),
        help_text=_("Empty: 6.5 in an even game, 0.5 with a handicap."),
        widget=forms.NumberInput(attrs={"step": "0.5", "placeholder": _("default")}),
    )
    status = forms.TypedChoiceField(
        required=False,
        empty_value=Status.NORMAL.value,
        initial=Status.NORMAL.value,
        label=_("Status"),
        choices=[
            (Status.NORMAL.value, pgettext_lazy("game status", "Normal")),
            (Status.TOURNAMENT.value, pgettext_lazy("game status", "Tournament")),
            (Status.INTERNET.value, pgettext_lazy("game status", "Internet")),
            (Status.FREE.value, pgettext_lazy("game status", "Free")),
        ],
    )
    board_size = forms.TypedChoiceField(
        required=False,
        coerce=int,
        empty_value=None,  # clean_board_size: 19
        initial=19,
        label=_("Board"),
        choices=[(19, "19\u00d719"), (13, "13\u00d713"), (9, "9\u00d79")],
    )

    def __init__(self, *args, algorithms: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        scales = value_scales()
        self.scales = {
            key: names for key, _label, names in scales if any(name in algorithms for name in names)
        }
        # The form's copy of ``value_scale`` declared above: a ChoiceField.
        value_scale = cast(forms.ChoiceField, self.fields["value_scale"])
        value_scale.choices = [
            (key, gettext(label)) for key, label, _names in scales if key in self.scales
        ]
        # a typed value is in the primary algorithm's scale unless another is chosen
        self.default_scale = next(
            (key for key, names in self.scales.items() if algorithms[0] in names), ""
        )
        self.fields["value_scale"].initial = self.default_scale
        self.helper = FormHelper()
        self.helper.form_method = "get"
        self.helper.disable_csrf = True
        self.helper.form_id = "calculator-form"
        self.helper.form_action = "#calculator-results"  # a phone scrolls to the results
        self.helper.layout = Layout(
            *[
                Fieldset(
                    legend,
                    Row(
                        Column(f"{colour}_player", css_class="col-12 col-md-5"),
                        Column(f"{colour}_rank", css_class="col-6 col-md-3"),
                        Column(f"{colour}_value", css_class="col-6 col-md-4"),
                        css_class="g-2",
                    ),
                    css_id=f"{colour}-side",
                )
                for colour, legend in zip(SIDES, SIDE_LEGENDS, strict=True)
            ],
            Row(
                Column("handicap", css_class="col-6 col-md-3"),
                Column("komi", css_class="col-6 col-md-3"),
                Column("status", css_class="col-6 col-md-3"),
                Column("board_size", css_class="col-6 col-md-3"),
                css_class="g-2",
            ),
            Row(Column("value_scale", css_class="col-12 col-md-6"), css_class="g-2"),
            Submit("", _("Calculate"), css_class="btn-primary"),
        )

    def clean_komi(self) -> Decimal | None:
        komi = self.cleaned_data.get("komi")
        if komi is not None and (komi * 2) % 1:
            raise ValidationError(_("Komi is a multiple of 0.5."))
        return komi

    def clean_handicap(self) -> int:
        handicap = self.cleaned_data["handicap"]
        return 0 if handicap is None else handicap

    def clean_board_size(self) -> int:
        board_size = self.cleaned_data["board_size"]
        return 19 if board_size is None else board_size

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        usernames = {colour: (data.get(f"{colour}_player") or "").strip() for colour in SIDES}
        found: dict[str, Player] = {}
        index = LazyIndex()  # built only if a side is not typed as a username
        for colour in SIDES:
            username, rank = usernames[colour], data.get(f"{colour}_rank")
            value = data.get(f"{colour}_value")
            if username:
                try:
                    found[username] = player_from_text(username, index)
                except ValidationError as error:
                    self.add_error(f"{colour}_player", error)
            if username and (rank is not None or value is not None):
                self.add_error(f"{colour}_rank", _("Give a player or a rank, not both."))
            elif not username and rank is None and f"{colour}_rank" not in self.errors:
                self.add_error(f"{colour}_player", _("Choose a player or type a rank."))
            if value is not None and rank is None and not username:
                self.add_error(f"{colour}_value", _("A value needs a rank."))
            data[f"{colour}_player"] = found.get(username)
        white, black = data["white_player"], data["black_player"]
        if white is not None and black is not None and white.pk == black.pk:
            self.add_error("black_player", _("White and Black must be two different players."))
        return data

    def calculator_input(self) -> CalculatorInput:
        """What was asked, as domain values (call after ``is_valid``)."""
        data = self.cleaned_data
        handicap = data["handicap"]
        komi = data.get("komi")
        scale = data.get("value_scale") or self.default_scale
        return CalculatorInput(
            white=SideInput(data["white_player"], data.get("white_rank"), data.get("white_value")),
            black=SideInput(data["black_player"], data.get("black_rank"), data.get("black_value")),
            value_algorithms=tuple(self.scales.get(scale, ())),
            handicap=handicap,
            komi=default_komi(handicap) if komi is None else Fraction(komi),
            status=Status(data["status"]),
            board_size=data["board_size"],
        )
