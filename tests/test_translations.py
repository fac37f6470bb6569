"""The committed catalogues ship ready (issue 30): every language of LANGUAGES but English
has its catalogue, every message in it is translated (none empty, none fuzzy), with the
same placeholders as the English, and the compiled .mo beside it holds exactly what the
.po says (a .po edited without `make messages` leaves a stale .mo: the site would show the
old text). Read with polib, so this runs on a laptop with no GNU gettext; `make
messages-check` adds what needs gettext (the catalogues current with the code)."""

from __future__ import annotations

import re
from pathlib import Path

import polib
import pytest
from django.conf import settings

LOCALE = Path(settings.BASE_DIR) / "locale"
SHIPPED = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
# %(name)s, %s and {name}: what a translation must keep, in any order.
PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]|%[sd]|\{[a-z_]+\}")


def catalogue(code: str) -> polib.POFile:
    path = LOCALE / code / "LC_MESSAGES" / "django.po"
    assert path.exists(), f"{code} is in LANGUAGES but has no catalogue {path}"
    return polib.pofile(str(path))


def placeholders(text: str) -> list[str]:
    return sorted(PLACEHOLDER.findall(text))


def translations(entry) -> list[str]:
    if entry.msgid_plural:
        return [entry.msgstr_plural[index] for index in sorted(entry.msgstr_plural)]
    return [entry.msgstr]


@pytest.mark.parametrize("code", SHIPPED)
def test_every_message_is_translated(code):
    po = catalogue(code)
    assert po.metadata.get("Language") == code, "the catalogue's header names its language"
    missing = [
        entry.msgid
        for entry in po
        if not entry.obsolete
        and ("fuzzy" in entry.flags or not all(text.strip() for text in translations(entry)))
    ]
    assert missing == [], f"{code}: not translated (or fuzzy): {missing}"


@pytest.mark.parametrize("code", SHIPPED)
def test_every_translation_keeps_the_placeholders_of_its_message(code):
    wrong = []
    for entry in catalogue(code):
        if entry.obsolete:
            continue
        originals = [entry.msgid, entry.msgid_plural] if entry.msgid_plural else [entry.msgid]
        for index, text in enumerate(translations(entry)):
            if not text:  # untranslated: test_every_message_is_translated says so
                continue
            # A plural form's translation may leave the count out ("One report…").
            expected = placeholders(originals[min(index, len(originals) - 1)])
            found = placeholders(text)
            if found != expected and not (entry.msgid_plural and set(found) <= set(expected)):
                wrong.append((entry.msgid, text))
    assert wrong == [], f"{code}: placeholders differ from the English: {wrong}"


def stale_messages(po: polib.POFile, mo: polib.MOFile) -> list[str]:
    """The messages whose compiled translation differs from the source's."""

    def messages(entries) -> dict:
        return {
            (entry.msgctxt, entry.msgid): tuple(translations(entry))
            for entry in entries
            if entry.msgid
            and not entry.obsolete
            and "fuzzy" not in entry.flags
            and all(translations(entry))  # msgfmt leaves an untranslated message out
        }

    source, compiled = messages(po), messages(mo)
    keys = source.keys() | compiled.keys()
    return sorted(str(key[1]) for key in keys if source.get(key) != compiled.get(key))


@pytest.mark.parametrize("code", SHIPPED)
def test_the_compiled_catalogue_holds_what_its_source_says(code):
    po = catalogue(code)
    mo_path = LOCALE / code / "LC_MESSAGES" / "django.mo"
    assert mo_path.exists(), f"{mo_path} is missing: run make messages"
    mo = polib.mofile(str(mo_path))

    assert stale_messages(po, mo) == [], f"{mo_path} is stale against its .po: run make messages"
    assert mo.metadata.get("Plural-Forms") == po.metadata.get("Plural-Forms")


def test_a_translation_changed_after_compiling_is_stale():
    po = catalogue(SHIPPED[0])
    mo = polib.mofile(str(LOCALE / SHIPPED[0] / "LC_MESSAGES" / "django.mo"))
    entry = next(entry for entry in po if entry.msgstr)
    entry.msgstr += " (changed)"
    added = polib.POEntry(msgid="A message marked since", msgstr="Un message")
    po.append(added)

    assert stale_messages(po, mo) == sorted([entry.msgid, added.msgid])
