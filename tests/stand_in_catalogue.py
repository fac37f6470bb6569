"""Translations a test puts in a language's catalogue for as long as it runs.

A message added or changed on a branch has no compiled translation until the catalogues
are made again (``make messages``), so a test of how a page says it in French cannot
read the catalogue's. It gives the translation itself instead, as the catalogue will
hold it, and checks what the page does with it: that the whole sentence is one
message, that the plural form follows the count, that the count is grouped the
language's way.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from django.utils.translation import trans_real

# A message: its msgid, or (msgctxt, msgid); a translation: its text, or its two plural
# forms (the one and the many) keyed by the msgid of the singular.
Key = str | tuple[str, str]
Translation = str | Sequence[str]


@contextmanager
def stand_in_translations(language: str, messages: Mapping[Key, Translation]) -> Iterator[None]:
    """``messages`` translated in ``language``'s catalogue inside the block, as they were
    after it (Django keeps one catalogue a language for the whole process)."""
    catalogue = trans_real.translation(language)._catalog
    # The first of the merged catalogues takes the new entries: a lookup reads it first.
    entries = catalogue._catalogs[0]  # type: ignore[attr-defined]
    plural = catalogue._plurals[0]  # type: ignore[attr-defined]
    added: dict[object, object] = {}
    for key, translation in messages.items():
        msgid = key if isinstance(key, str) else f"{key[0]}\x04{key[1]}"
        if isinstance(translation, str):
            added[msgid] = translation
        else:
            one, many = translation
            added[(msgid, plural(1))] = one
            added[(msgid, plural(2))] = many
    saved = {key: entries[key] for key in added if key in entries}
    entries.update(added)
    try:
        yield
    finally:
        for key in added:
            entries.pop(key, None)
        entries.update(saved)
