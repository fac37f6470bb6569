"""A model field that stores a Go rank as one sortable integer, and the form fields of
a rank and of a date typed by keyboard.

Amateur ranks are their stones (30k = -30 … 9d = 8); professional ranks follow 9d
(1p = 9 … 9p = 17), so ``ORDER BY`` and range filters sort by strength.
"""

from __future__ import annotations

import functools
from datetime import date

from django import forms
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.expressions import Combinable
from django.utils import timezone
from django.utils.translation import gettext_lazy, pgettext

from ratings.engine.ranks import STRONGEST_AMATEUR_STONES, Rank, RankError, parse_rank

from .dates import TYPED_DATE_HELP, TypedDateError, parse_typed_date
from .translated import translated


def rank_to_code(rank: Rank) -> int:
    return STRONGEST_AMATEUR_STONES + rank.pro if rank.pro else rank.stones


@functools.lru_cache(maxsize=64)
def code_to_rank(code: int) -> Rank:
    """The rank a stored code stands for; ranks are immutable, so each is made once
    (a tournament's page reads thousands)."""
    if code > STRONGEST_AMATEUR_STONES:
        return Rank.pro_rank(code - STRONGEST_AMATEUR_STONES)
    return Rank(code)


class RankFormField(forms.Field):
    """A rank typed as ``15k``, ``3 dan`` or ``2p``; cleans to a :class:`Rank`."""

    widget = forms.TextInput

    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", gettext_lazy("e.g. 15k, 3d or 1p"))
        for integer_option in ("max_value", "min_value", "step_size"):
            kwargs.pop(integer_option, None)
        super().__init__(**kwargs)

    def widget_attrs(self, widget):
        return {
            **super().widget_attrs(widget),
            "maxlength": "20",
            "autocomplete": "off",
            "autocapitalize": "none",
        }

    def prepare_value(self, value):
        if isinstance(value, int) and not isinstance(value, bool):
            value = code_to_rank(value)
        return str(value) if isinstance(value, Rank) else value

    def to_python(self, value):
        if value in self.empty_values or not str(value).strip():
            return None
        try:
            return parse_rank(str(value))
        except RankError as error:
            raise ValidationError(translated(error.message), code="invalid_rank") from None


class TypedDateInput(forms.DateInput):
    """A text input for a date (the browser's date input swallows typed digits into its
    segments): the page's script adds a "Today" button, with today in the club's time
    zone; without the script, "t" typed in the field is today too."""

    input_type = "text"

    def __init__(self, attrs=None):
        super().__init__(
            attrs={
                "autocomplete": "off",
                "spellcheck": "false",
                "data-date-field": "",
                "size": "12",
                **(attrs or {}),
            },
            format="%Y-%m-%d",
        )

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        today = timezone.localdate().isoformat()
        attrs = context["widget"]["attrs"]
        attrs["data-today"] = today
        # the script's button, in the page's language
        attrs["data-today-label"] = pgettext("date field's button", "Today")
        attrs["data-today-aria-label"] = pgettext("date field's button", "Today (%(date)s)") % {
            "date": today
        }
        return context


class TypedDateField(forms.DateField):
    """A date typed as the volunteer likes (``players.dates``); cleans to a date."""

    widget = TypedDateInput

    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", TYPED_DATE_HELP)
        super().__init__(**kwargs)

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if isinstance(value, date):
            return value
        try:
            return parse_typed_date(str(value), timezone.localdate())
        except TypedDateError as error:
            raise ValidationError(str(error), code="invalid") from None


class RankField(models.SmallIntegerField):
    description = "A Go rank (30k … 9d, 1p … 9p)"
    # For django-stubs: the field reads a Rank and takes a Rank (or its code, or an
    # expression), not the int of SmallIntegerField. Narrowing these two descriptor types
    # is how the stubs type a custom field; they are declared (not generic) on the base.
    _pyi_private_set_type: Rank | int | Combinable  # type: ignore[assignment]
    _pyi_private_get_type: Rank  # type: ignore[assignment]

    @property
    def validators(self):
        # The integer range validators of SmallIntegerField would compare a Rank with
        # an int; Rank checks its own range.
        return []

    def formfield(self, **kwargs):
        return super(models.SmallIntegerField, self).formfield(
            **{"form_class": RankFormField, **kwargs}
        )

    def from_db_value(self, value, expression, connection):
        return None if value is None else code_to_rank(value)

    def to_python(self, value):
        if value is None or isinstance(value, Rank):
            return value
        if isinstance(value, int):
            return code_to_rank(value)
        try:
            return parse_rank(str(value))
        except RankError as error:
            raise ValidationError(translated(error.message), code="invalid_rank") from None

    def get_prep_value(self, value):
        if value is None:
            return None
        if isinstance(value, Rank):
            return rank_to_code(value)
        if isinstance(value, str):
            return rank_to_code(parse_rank(value))
        return int(value)

    def value_to_string(self, obj):
        value = self.value_from_object(obj)
        return "" if value is None else str(value)


class FiniteDecimalField(forms.DecimalField):
    """A DecimalField that refuses NaN and infinities as it reads them. Django's
    refuses them only when validating, after ``has_changed()`` has compared the value
    with the initial one, which raises on a signalling NaN (``sNaN``). With
    ``decimal_comma``, "7,5" reads as 7.5, as French and Afrikaans write it (for a
    value with no thousands, such as a komi)."""

    def __init__(self, *, decimal_comma: bool = False, **kwargs):
        self.decimal_comma = decimal_comma
        super().__init__(**kwargs)

    def to_python(self, value):
        if self.decimal_comma and isinstance(value, str) and value.count(",") == 1:
            value = value.replace(",", ".") if "." not in value else value
        value = super().to_python(value)
        if value is not None and not value.is_finite():
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return value
