"""/audit/ in French and Afrikaans: each entry's summary is stored in English, as a
sentence of a marked template (players.stored_sentences), and reads in the page's
language, its counts grouped the language's way and their nouns in the plural form
each number takes (English too: the rows store "1 games"); a summary of no template,
as an older row's, shows as stored."""

import re
from datetime import date
from html import unescape

import pytest
from django.utils import translation

from players.models import AuditEntry, GameReport
from players.services.accounts import Role, account_create
from players.services.adjustments import ResyncChange, resync_apply
from players.services.games import record_sheet_submit
from players.services.players import player_merge
from players.services.reports import report_create
from players.services.tournaments import tournament_class_set
from ratings.engine.ranks import parse_rank
from tests import factories
from tests.pages import page_html

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]

NBSP = "\u00a0"


def summaries(client, language: str, **filters) -> list[str]:
    """The Summary cell of each entry of /audit/ (newest first), read in ``language``."""
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    query = "&".join(f"{name}={value}" for name, value in filters.items())
    html = page_html(client, f"/audit/?{query}")
    cells = re.findall(r'<td class="audit-summary user-text">(.*?)</td>', html, re.S)
    return [unescape(cell) for cell in cells]


@pytest.fixture
def imported(vera):
    """The audit row an import of EGC2013.h9 writes (players.services.imports): its
    English as the rows have always stored it, the count ungrouped."""
    return AuditEntry.objects.create(
        user=vera,
        action="games_import",
        object_type="import",
        object_id="",
        summary="EGC2013.h9: 2226 games, 0 adjustments",
    )


@pytest.mark.parametrize(
    ("language", "summary"),
    [
        ("fr", f"EGC2013.h9{NBSP}: 2{NBSP}226 parties, 0 ajustement"),
        ("af", f"EGC2013.h9: 2{NBSP}226 spelle, 0 aanpassings"),
        ("en", "EGC2013.h9: 2,226 games, 0 adjustments"),
    ],
)
def test_an_imports_summary_reads_in_the_pages_language_its_counts_grouped(
    client, imported, language, summary
):
    assert summaries(client, language, action="games_import") == [summary]


@pytest.mark.parametrize(
    ("language", "stored", "shown"),
    [
        ("en", "spring.h9: 1 games, 1 adjustments", "spring.h9: 1 game, 1 adjustment"),
        ("fr", "spring.h9: 1 games, 1 adjustments", f"spring.h9{NBSP}: 1 partie, 1 ajustement"),
        ("af", "spring.h9: 1 games, 1 adjustments", "spring.h9: 1 spel, 1 aanpassing"),
        ("fr", "spring.h9: 2 games, 0 adjustments", f"spring.h9{NBSP}: 2 parties, 0 ajustement"),
        ("af", "spring.h9: 0 games, 2 adjustments", "spring.h9: 0 spelle, 2 aanpassings"),
        (
            "fr",
            "Spring Cup: club none -> Stellenbosch, 1 games moved",
            f"Spring Cup{NBSP}: club aucun -> Stellenbosch, 1 partie déplacée",
        ),
        (
            "af",
            "Spring Cup: club none -> Stellenbosch, 3 games moved",
            "Spring Cup: klub geen -> Stellenbosch, 3 spelle geskuif",
        ),
        ("en", "1 adjustments voided", "1 adjustment voided"),
        ("fr", "1 adjustments voided", "1 ajustement annulé"),
        ("fr", "4 adjustments voided", "4 ajustements annulés"),
        ("af", "2 players", "2 spelers"),
        ("en", "1 players", "1 player"),
    ],
)
def test_a_summarys_counts_take_the_plural_form_of_their_number(
    client, vera, language, stored, shown
):
    AuditEntry.objects.create(
        user=vera, action="games_import", object_type="import", object_id="", summary=stored
    )

    assert summaries(client, language, action="games_import") == [shown]


def test_a_summary_of_no_template_shows_as_stored(client, vera):
    AuditEntry.objects.create(
        user=vera, action="games_import", object_type="import", summary="an older sentence"
    )

    assert summaries(client, "fr", action="games_import") == ["an older sentence"]


@pytest.mark.parametrize(
    ("language", "words"),
    [("fr", f"feuille {{sheet}}{NBSP}: 2024-03-01 ann-ben W"), ("af", "blad {sheet}: 2024-03-01")],
)
def test_a_sheets_game_reads_in_the_pages_language(client, vera, language, words):
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "8k")
    sheet = record_sheet_submit(
        user=vera, games=[factories.game(ann, ben, "W", date(2024, 3, 1))]
    ).sheet

    (summary,) = summaries(client, language, action="game_create")
    assert words.format(sheet=sheet.pk) in summary


def test_a_merge_reads_in_french(client, connie):
    keep, duplicate = factories.player("ann", "5k"), factories.player("ann2", "5k")
    player_merge(user=connie, keep=keep, duplicate=duplicate)

    assert "ann2 fusionné dans ann" in summaries(client, "fr", action="player_merge")


def test_a_resync_reads_in_french_and_afrikaans(client, connie):
    ann = factories.player("ann", "5k")
    batch = resync_apply(
        user=connie, changes=[ResyncChange(ann, parse_rank("4k"))], effective_date=date(2024, 1, 1)
    )

    assert summaries(client, "fr", action="resync_apply") == ["1 joueur"]
    assert summaries(client, "af", action="player_national_rank") == [
        f"hersinkronisasie {batch.pk}"
    ]


def test_a_report_is_stored_in_english_and_reads_in_french(client, connie, vera):
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "8k")
    (game,) = record_sheet_submit(
        user=vera, games=[factories.game(ann, ben, "W", date(2024, 3, 1))]
    ).games
    pat = account_create(user=connie, username="pat", password=None, role=Role.READER, player=ann)
    ann.refresh_from_db()
    with translation.override("fr"):  # the player reports from a page in French
        report_create(user=pat, player=ann, game_id=game.pk, kind=GameReport.Kind.WRONG_RESULT)

    assert AuditEntry.objects.get(action="report_create").summary == f"game {game.pk}: Wrong result"
    assert summaries(client, "fr", action="report_create") == [
        f"partie {game.pk}{NBSP}: Mauvais résultat"
    ]


def test_a_class_correction_and_an_account_read_in_french(client, connie):
    factories.tournament("open-2024", egf_class="A")
    tournament_class_set(
        user=connie,
        tournament=factories.tournament("open-2024"),
        egf_class="D",
        reason="online",
    )
    account_create(user=connie, username="vic", password=None, role=Role.VOLUNTEER)

    assert summaries(client, "fr", action="tournament_class") == [
        f"open-2024{NBSP}: classe A -> D (online)"
    ]
    assert summaries(client, "fr", action="account_create") == ["vic (Bénévole)"]
