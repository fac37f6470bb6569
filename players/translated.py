"""The engine's English, read in the active language.

``ratings.engine`` is pure Python and writes English: a word the pages show (an
algorithm's title, a factor's label, a scale's name) is marked with its
``gettext_noop``, and a sentence with values in it (a bad rank, a refused file's row,
an h-file's losses) is a ``ratings.engine.messages.Message``, its template marked the
same way. Both are in the catalogues; this translates them where a page shows them
(templates: ``{{ value|translated }}``, ``{% load engine_text %}``).
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext, pgettext

from ratings.engine.algorithms import registry
from ratings.engine.messages import STORED_TEMPLATES, Count, Message


def translated(text: Any) -> Any:
    """``text`` in the active language: a Message's template translated with its values
    put back (each translated too when it is a Message, a count grouped as the language
    writes numbers), a marked word translated, anything the catalogues do not hold as
    it is."""
    if isinstance(text, Count):
        return number_format(int(text), force_grouping=True)
    if isinstance(text, Message):
        values = {name: translated(value) for name, value in text.values.items()}
        return gettext(text.template) % values if values else gettext(text.template)
    if isinstance(text, str) and text:
        found = gettext(text)
        if found == text:  # not in the catalogues: a stored sentence with values?
            return _stored_sentence(text) or found
        return found
    return text


def _stored_sentence(text: str) -> str | None:
    """``text``, the English a history row stored of a sentence with values
    (``ratings.engine.messages.STORED_TEMPLATES``: a stored Message keeps its English
    only), translated with its values put back; None when it is none of those."""
    for template, pattern in _STORED_PATTERNS:
        found = pattern.fullmatch(text)
        if found is not None:
            return gettext(template) % found.groupdict()
    return None


def _pattern(template: str) -> re.Pattern[str]:
    """``template``'s English as a pattern: each ``%(name)s`` a group of that name."""
    pieces = re.split(r"%\((\w+)\)s", template)
    return re.compile(
        "".join(
            re.escape(piece) if index % 2 == 0 else f"(?P<{piece}>.+?)"
            for index, piece in enumerate(pieces)
        )
    )


_STORED_PATTERNS = [(template, _pattern(template)) for template in STORED_TEMPLATES]


def algorithm_name(code: str) -> str:
    """An algorithm's code (``french``, as the histories store it) as its tab names it in
    the active language ("Échelle française"); a code no longer registered as it is."""
    algorithm = registry().get(code)
    return gettext(algorithm().short_title) if algorithm is not None else code


# What the h-file reader names a tie-breaker column whose header tells it apart from no
# other (ratings.engine.formats.egd), kept so in the tournament's score names.
_UNNAMED_COLUMN = re.compile(r"^Column (\d+)$")


def score_name(name: str) -> str:
    """A crosstable's score column as the page names it: a file's own header as it is,
    the reader's "Column 4" for one without a name of its own in the page's language."""
    unnamed = _UNNAMED_COLUMN.match(name)
    if unnamed is None:
        return name
    return pgettext("a crosstable's unnamed column", "Column %(number)s") % {
        "number": unnamed.group(1)
    }
