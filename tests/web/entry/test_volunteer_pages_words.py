"""Words a volunteer and a reader met in English on the French and Afrikaans pages, or
met wrong, in a walk through the site as its users (issues 28 and 30): the date
fields' "Today" button, a sheet's unknown player, a saved sheet's club and its
Ratings column, the log's "New <value>" column."""

import re
from datetime import date
from decimal import Decimal

import pytest

from players.models import Game, RecordSheet
from players.services.games import record_sheet_submit
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.web.entry.test_sheet_entry import field_block, sheet_post
from tests.web.test_staff_pages_translated import AFRIKAANS, FRENCH, read, send, text_of

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]


@pytest.mark.parametrize(
    ("language", "label", "description"),
    [
        ("en", "Today", "Today ("),
        (FRENCH, "Aujourd&#x27;hui", "Aujourd&#x27;hui ("),
        (AFRIKAANS, "Vandag", "Vandag ("),
    ],
)
def test_a_date_fields_today_button_is_worded_in_the_pages_language(
    client, vera, language, label, description
):
    # the button is the script's (static/js/date-field.js): the field gives it its words
    html = client.get("/sheets/new/", HTTP_ACCEPT_LANGUAGE=language).content.decode()

    assert f'data-today-label="{label}"' in html
    assert f'data-today-aria-label="{description}{date.today().isoformat()})"' in html


@pytest.mark.parametrize(
    ("language", "message"),
    [
        (FRENCH, "aucun joueur « zoe » — ajoutez ce joueur d'abord"),
        (AFRIKAANS, "geen speler 'zoe' nie — voeg die speler eers by"),
    ],
)
def test_a_sheets_unknown_player_is_told_wholly_in_the_pages_language(
    client, vera, language, message
):
    factories.player("ann", "5k")
    data = sheet_post({"white": "ann", "black": "zoe", "winner": "W"})

    response = send(client, "/sheets/new/", data, language)

    assert message in text_of(field_block(response.content.decode(), "id_form-0-black").encode())


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (FRENCH, ["Club Stellenbosch Go Club", "Classements"]),
        (AFRIKAANS, ["Klub Stellenbosch Go Club", "Graderings"]),
    ],
)
def test_a_saved_sheet_says_whose_club_it_is_in_the_pages_language(client, vera, language, words):
    club = factories.club("Stellenbosch Go Club")
    factories.player("ann", "5k")
    factories.player("ben", "8k")
    data = sheet_post({"white": "ann", "black": "ben", "winner": "W"}, club=str(club.pk))

    send(client, "/sheets/new/", data, language)
    sheet = RecordSheet.objects.get()
    detail = read(client, f"/sheets/{sheet.pk}/", language)
    listing = read(client, "/sheets/", language)

    assert sheet.club == club
    for word in words:
        assert word in detail
    assert "Ratings" not in detail
    assert "Stellenbosch Go Club" in listing


@pytest.fixture
def one_evening(vera, settings, django_capture_on_commit_callbacks):
    settings.RATINGS_ALGORITHMS = ["sagc", "egf-2021", "french"]
    ann = factories.player("ann", "5k", full_name="Ann Abel")
    ben = factories.player("ben", "8k", full_name="Ben Botha")
    record_sheet_submit(user=vera, games=[factories.game(ann, ben, "W", date(2024, 4, 6))])
    with django_capture_on_commit_callbacks(execute=True):
        recompute_pending()


@pytest.mark.parametrize(
    ("language", "algorithm", "value_header", "rank_header"),
    [
        (FRENCH, "sagc", "Nouvel indice", "Nouveau niveau"),
        (FRENCH, "egf-2021", "Nouveau GoR", "Nouveau niveau"),
        (FRENCH, "french", "Nouvelle valeur d'échelle", "Nouveau niveau"),
        (AFRIKAANS, "sagc", "Nuwe indeks", "Nuwe rang"),
        (AFRIKAANS, "french", "Nuwe vlak", "Nuwe rang"),
        ("en", "french", "New level", "New rank"),
    ],
)
def test_the_logs_new_value_column_reads_right_beside_the_new_rank(
    client, one_evening, language, algorithm, value_header, rank_header
):
    response = client.get(f"/players/ann/?algorithm={algorithm}", HTTP_ACCEPT_LANGUAGE=language)

    headers = [
        text_of(cell.encode()).strip()
        for cell in re.findall(r"<th\b[^>]*>(.*?)</th>", response.content.decode(), re.S)
    ]
    assert value_header in headers
    assert headers.count(rank_header) == 1


def test_a_tournament_files_player_count_needs_no_agreement_in_french(client, vera):
    from tests.web.entry.test_tournament_import import SPRING_CUP, upload

    factories.player("jsmith", "3k", full_name="John Smith", egd_pin="12345678")
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = FRENCH

    text = text_of(upload(client, SPRING_CUP).content)

    # "1 déjà enregistrés" read wrong: the words now agree with any count
    assert (
        "4 : 1 déjà sur ce site, 3 à ajouter" in text
    )  # text_of makes the no-break space one space


def test_the_afrikaans_rating_list_starts_its_sentence_about_the_index_with_a_capital(
    client, one_evening
):
    # "'n" is never capitalised, so "'n indeks tel…" began the sentence in lower case
    text = read(client, "/", AFRIKAANS)

    assert "Elke indeks tel net binne sy rang" in text
    assert "'n indeks tel" not in text


@pytest.mark.parametrize("language", [FRENCH, AFRIKAANS, "en"])
def test_a_komi_typed_with_a_decimal_comma_is_the_komi_the_page_writes(client, vera, language):
    # the page says "6,5 à égalité"; a number input turned a typed "7,5" into 75
    factories.player("ann", "5k")
    factories.player("ben", "8k")
    page = client.get("/sheets/new/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    data = sheet_post({"white": "ann", "black": "ben", "winner": "W", "komi": "7,5"})

    response = send(client, "/sheets/new/", data, language)

    assert re.search(r'<input type="text" name="form-0-komi"[^>]*inputmode="decimal"', page)
    assert response.status_code == 302
    assert [game.komi for game in Game.objects.all()] == [Decimal("7.5")]
