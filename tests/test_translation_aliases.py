"""A message marked through a name xgettext does not know is never extracted: it has no
translation and stays English on every page, while `make messages-check` passes (it
checks the messages extracted). `gettext as gettext_now` did this to the committee's
resync, adjustments and recompute tables and the volunteers' sheets list (issue 30)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The names makemessages extracts from Python: xgettext's own and Django's keywords.
EXTRACTED = {
    "_",
    "gettext",
    "ngettext",
    "pgettext",
    "npgettext",
    "gettext_lazy",
    "ngettext_lazy",
    "pgettext_lazy",
    "npgettext_lazy",
    "gettext_noop",
}
SOURCES = ("players", "ratings", "notifications", "clubrating")


def translation_imports():
    for package in SOURCES:
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module == "django.utils.translation":
                    for alias in node.names:
                        yield path.relative_to(ROOT), node.lineno, alias


def test_every_translation_function_is_imported_under_a_name_makemessages_extracts():
    hidden = [
        f"{path}:{line} imports {alias.name} as {alias.asname}"
        for path, line, alias in translation_imports()
        if alias.name in EXTRACTED and (alias.asname or alias.name) not in EXTRACTED
    ]

    assert hidden == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "words"),
    [("fr", ["à jour", "Recalcul complet"]), ("af", ["op datum", "Volledige herberekening"])],
)
def test_the_recompute_page_says_each_algorithms_state_in_the_language(client, language, words):
    from ratings.recompute.run import recompute_pending
    from tests import factories

    client.force_login(factories.committee_member())
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "8k")
    factories.play(factories.volunteer("vic"), factories.game(ann, ben))
    recompute_pending()

    html = client.get("/committee/recompute/", HTTP_ACCEPT_LANGUAGE=language).content.decode()

    for word in words:
        assert word in html
    assert "up to date" not in html
