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
from collections.abc import Callable, Mapping
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext, pgettext

from players.stored_sentences import COUNTED, SITE_TEMPLATES, CountedSentence
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
        counted = COUNTED.get(text.template)
        if counted is not None:
            return _counted(counted, text.values, translated)
        values = {name: translated(value) for name, value in text.values.items()}
        return _filled(gettext(text.template), values)
    if isinstance(text, str) and text:
        found = gettext(text)
        if found == text:  # not in the catalogues: a stored sentence with values?
            return _stored_sentence(text) or found
        return found
    return text


def _stored_sentence(text: str) -> str | None:
    """``text``, the English a row stored of a sentence with values (a stored Message
    keeps its English only: ``ratings.engine.messages.STORED_TEMPLATES``, the audit's
    summaries and a resync's comment in ``players.stored_sentences``), translated with
    its values put back, each a word the catalogues translate or as it is, a count
    (``%(name)d``) grouped as the language writes numbers; None when it is none of
    those."""
    for template, pattern, counts in _STORED_PATTERNS:
        found = pattern.fullmatch(text)
        if found is None:
            continue
        counted = COUNTED.get(template)
        if counted is not None:
            return _counted(counted, found.groupdict(), _word)
        translation = gettext(template)
        # Untranslated (English), the counts stay as stored: the text reads as it did.
        grouped = translation != template
        values = {
            name: (_grouped(value) if grouped else value) if name in counts else _word(value)
            for name, value in found.groupdict().items()
        }
        return _filled(translation, values)
    return None


def _counted(
    counted: CountedSentence, values: Mapping[str, Any], word: Callable[[Any], Any]
) -> str:
    """A sentence of :data:`~players.stored_sentences.COUNTED` with ``values`` put in:
    each count as its phrase, in the plural form its number takes and grouped as the
    language writes numbers; any other value as ``word`` gives it."""
    return counted.sentence() % {
        name: counted.phrases[name](int(value)) % {"count": _grouped(value)}
        if name in counted.phrases
        else word(value)
        for name, value in values.items()
    }


def _grouped(count: str | int) -> str:
    return number_format(int(count), force_grouping=True)


def _word(value: str) -> str:
    """A stored value in the active language when it is a marked word ("none", a role's
    label), as it is otherwise (a name, a code, a date)."""
    return gettext(value) if value else value


# A count's placeholder: the English writes it as a whole number (as the rows always
# stored it), the page puts in its text grouped as the language writes numbers.
_COUNT = re.compile(r"%\((\w+)\)d")


def _filled(translation: str, values: dict[str, Any]) -> str:
    """``translation`` with ``values`` put in, a count's among them already text."""
    if not values:
        return translation
    return _COUNT.sub(r"%(\1)s", translation) % values


def _pattern(template: str) -> tuple[re.Pattern[str], frozenset[str]]:
    """``template``'s English as a pattern, each ``%(name)s`` a group of that name (a
    name said twice the same text both times), each ``%(name)d`` a group of digits; and
    the names of those counts."""
    pieces = re.split(r"%\((\w+)\)([sd])", template)
    parts, seen, counts = [], set(), set()
    for at in range(0, len(pieces), 3):
        parts.append(re.escape(pieces[at]))
        if at + 1 == len(pieces):
            break
        name, kind = pieces[at + 1], pieces[at + 2]
        if name in seen:
            parts.append(f"(?P={name})")
        else:
            parts.append(f"(?P<{name}>\\d+)" if kind == "d" else f"(?P<{name}>.+?)")
        seen.add(name)
        if kind == "d":
            counts.add(name)
    return re.compile("".join(parts)), frozenset(counts)


# (A note of a tournament file's reader, COUNTED's, may come back as its English too.)
_STORED_PATTERNS = [
    (template, *_pattern(template))
    for template in dict.fromkeys((*STORED_TEMPLATES, *SITE_TEMPLATES, *COUNTED))
]


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
