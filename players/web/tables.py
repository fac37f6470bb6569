"""Table cells and column styles both apps share (numbers are ``numbers.py``'s, the "how
was this computed" panel ``explanations.py``'s)."""

from __future__ import annotations

import html
from typing import Any

from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy


def player_link(player):
    """A player's username, linked to their page."""
    return format_html('<a href="{}">{}</a>', player.get_absolute_url(), player.username)


TABLE_ATTRS = {"class": "table table-sm table-hover align-middle"}


NUMBER = {"td": {"class": "text-end"}, "th": {"class": "text-end"}}


NUMBER_WIDE_SCREENS_ONLY = {
    "td": {"class": "text-end d-none d-md-table-cell"},
    "th": {"class": "text-end d-none d-md-table-cell"},
}


# a column that a phone leaves out (the table still scrolls sideways if need be)
WIDE_SCREENS_ONLY = {
    "th": {"class": "d-none d-md-table-cell"},
    "td": {"class": "d-none d-md-table-cell"},
}


RESPONSIVE_TEMPLATE = "django_tables2/bootstrap5-responsive.html"


# a cell that keeps to one line (dates, times, results)
NO_WRAP = {"td": {"class": "text-nowrap"}}


def escaped(value: Any) -> str:
    """Any value as escaped text, as Django's ``escape`` gives it (without its lazy-text
    wrapper, which costs more than the escaping on a page of thousands of cells)."""
    return html.escape(str(value))


def escape_cell(value: Any) -> str:
    """Django's ``conditional_escape``, as cheaply: safe HTML as it is, anything else
    escaped."""
    return value.__html__() if hasattr(value, "__html__") else escaped(value)


# A stone colour as the games store it (W, B), as a page says it.
COLOURS = {"W": pgettext_lazy("stone colour", "White"), "B": pgettext_lazy("stone colour", "Black")}

COLOUR_NOT_GIVEN_TITLE = gettext_lazy(
    "The tournament file gave no colour for this game (an even game)"
)


def colour_not_given() -> str:
    """The Colour cell of a game whose file gave no colours (an even game)."""
    return format_html(
        '<span class="text-nowrap" title="{}">{}</span>',
        COLOUR_NOT_GIVEN_TITLE,
        _("not given"),
    )
