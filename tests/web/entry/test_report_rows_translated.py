"""The reports' rows in French and Afrikaans: the colon between a report's kind and the
player's words, and between its resolution and the volunteer's answer, is part of the
translated sentence, so French puts its non-breaking space before it; English reads
as it always did."""

from datetime import date
from html import unescape

import pytest

from players.models import GameReport
from players.services.accounts import Role, account_create
from players.services.games import record_sheet_submit
from players.services.reports import report_create, report_resolve
from tests import factories
from tests.pages import page_html

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]

NBSP = "\u00a0"


@pytest.fixture
def reported(connie, vera):
    """Ann reported her game against Ben as a wrong opponent ("it was cat"), and a second
    game as a wrong result, which vera answered as recorded ("the sheet is signed")."""
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "8k")
    games = record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", date(2024, 3, 1)),
            factories.game(ann, ben, "B", date(2024, 3, 2)),
        ],
    ).games
    pat = account_create(user=connie, username="pat", password=None, role=Role.READER, player=ann)
    ann.refresh_from_db()
    open_report = report_create(
        user=pat,
        player=ann,
        game_id=games[0].pk,
        kind=GameReport.Kind.WRONG_OPPONENT,
        text="it was cat",
    )
    answered = report_create(
        user=pat, player=ann, game_id=games[1].pk, kind=GameReport.Kind.WRONG_RESULT
    )
    report_resolve(
        user=vera, report_id=answered.pk, resolution="as_recorded", answer="the sheet is signed"
    )
    return open_report, answered, games[0]


def page(client, url: str, language: str) -> str:
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    return unescape(page_html(client, url))


@pytest.mark.parametrize(
    ("language", "kind", "resolution"),
    [
        (
            "fr",
            f"Mauvais adversaire{NBSP}: it was cat",
            f"Maintenue telle qu'enregistrée par vera{NBSP}: the sheet is signed",
        ),
        (
            "af",
            "Verkeerde teenstander: it was cat",
            "Bly soos aangeteken deur vera: the sheet is signed",
        ),
        ("en", "Wrong opponent: it was cat", "Stands as recorded by vera: the sheet is signed"),
    ],
)
def test_the_queues_rows_put_the_colon_in_the_sentence(
    client, vera, reported, language, kind, resolution
):
    queue = page(client, "/reports/", language)

    assert kind in queue
    assert resolution in queue


def test_a_reports_page_and_the_games_page_put_the_colon_in_the_sentence_in_french(
    client, vera, reported
):
    open_report, answered, game = reported

    assert f"Mauvais adversaire{NBSP}: it was cat" in page(
        client, f"/reports/{open_report.pk}/", "fr"
    )
    assert f"{NBSP}: the sheet is signed" in page(client, f"/reports/{answered.pk}/", "fr")
    game_page = page(client, f"/games/{game.pk}/", "fr")
    assert f"Signalement {open_report.pk}</a>{NBSP}: pat" not in game_page  # who: the player
    assert f"Signalement {open_report.pk}</a>{NBSP}: ann" in game_page
    assert f"Mauvais adversaire{NBSP}: it was cat" in game_page


def test_a_reports_game_line_puts_its_colons_in_the_sentences_in_french(client, vera, reported):
    open_report, _answered, game = reported

    detail = page(client, f"/reports/{open_report.pk}/", "fr")

    assert f"Partie {game.pk}{NBSP}:</a> 2024-03-01{NBSP}: Ann (blanc)" in detail
    english = page(client, f"/reports/{open_report.pk}/", "en")
    assert f"Game {game.pk}:</a> 2024-03-01: Ann (white)" in english
