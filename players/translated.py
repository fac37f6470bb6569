"""The engine's English, read in the active language.

``ratings.engine`` is pure Python and writes English: a word the pages show (an
algorithm's title, a factor's label, a scale's name) is marked with its
``gettext_noop``, and a sentence with values in it (a bad rank, a refused file's row,
an h-file's losses) is a ``ratings.engine.messages.Message``, its template marked the
same way. Both are in the catalogues; this translates them where a page shows them
(templates: ``{{ value|translated }}``, ``{% load engine_text %}``).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from ratings.engine.messages import Message


def translated(text: Any) -> Any:
    """``text`` in the active language: a Message's template translated with its values
    put back (each translated too when it is a Message), a marked word translated,
    anything the catalogues do not hold as it is."""
    if isinstance(text, Message):
        values = {name: translated(value) for name, value in text.values.items()}
        return gettext(text.template) % values if values else gettext(text.template)
    if isinstance(text, str) and text:
        return gettext(text)
    return text
