"""The engine's English words, read in the page's language.

The engine is pure Python: an algorithm's title, short name, prediction note and
scales' names are English, marked with its ``gettext_noop`` so that ``makemessages``
extracts them; a template shows them with ``|translated``
(``{% blocktranslate with algorithm=algorithm.title|translated %}``).
"""

from __future__ import annotations

from django import template

from players import translated as translated_module
from players.translated import translated as translated_text

register = template.Library()


@register.filter
def algorithm_name(code: str) -> str:
    """An algorithm's code as its tab names it in the page's language."""
    return translated_module.algorithm_name(code)


@register.filter
def translated(text):
    """``text`` in the active language (itself if the catalogue has no entry)."""
    return translated_text(text)
