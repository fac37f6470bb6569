"""Numbers as the pages show them (players.web.numbers), for templates."""

from __future__ import annotations

from django import template

from players.web import numbers

register = template.Library()


@register.filter
def file_number(text: str) -> str | None:
    """A number a file wrote (``82.5``) in the page's language (``82,5``); None when the
    text is no plain number."""
    return numbers.file_number(str(text))


@register.filter
def decimal(number) -> str:
    """A number, or a fraction the engines keep (a komi of 13/2), as a short decimal in
    the page's language (``6,5`` in French)."""
    return numbers.decimal_text(number)


@register.filter
def change(number) -> str:
    """A stored change as the log page shows it, in the reader's language: whole for an
    index (``+45``, ``-249`` with a minus sign), else to two places (``+12,50`` in
    French); empty for none (a voided or skipped game)."""
    return "" if number is None else numbers.change_text(number)
