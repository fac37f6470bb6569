"""What was still English on the French and Afrikaans pages (issue 30): the models'
choices, the engine's titles, scales, factor labels and prediction notes, the engine's
messages (a bad rank, a refused file's rows), the fragments of the permission refusals,
the date field's button and an invitation to a new account. Each in both languages,
and English where English is asked for."""

from datetime import date

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import translation

from players.fields import RankFormField
from players.services.games import record_sheet_submit
from players.translated import translated
from ratings.engine.messages import Message
from ratings.engine.ranks import RankError, parse_rank
from tests import factories
from tests.engine.test_egd_format import SPRING_CUP
from tests.web.test_staff_pages_translated import read, text_of

pytestmark = [pytest.mark.django_db]

FRENCH, AFRIKAANS, ENGLISH = "fr", "af", "en"


def signed_in(account) -> Client:
    client = Client()
    client.force_login(account)
    return client


@pytest.fixture
def game(vera):
    ann = factories.player("ann", "5k", full_name="Ann Abel")
    ben = factories.player("ben", "8k", full_name="Ben Botha")
    games = [factories.game(ann, ben, "W", date(2024, 3, 1), status="internet")]
    return record_sheet_submit(user=vera, games=games).games[0]


# --- 1. the models' choices -------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "winner", "status"),
    [
        (FRENCH, "Vainqueur Blanc", "Statut Internet"),
        (AFRIKAANS, "Wenner Wit", "Status Internet"),
        (ENGLISH, "Winner White", "Status Internet"),
    ],
)
def test_the_game_page_names_its_winner_and_status_in_the_readers_language(
    vera, game, language, winner, status
):
    text = read(signed_in(vera), f"/games/{game.pk}/", language)

    assert winner in text
    assert status in text


@pytest.mark.parametrize(
    ("language", "kind", "resolution"),
    [
        (FRENCH, "Mauvais résultat", "Maintenue telle qu'enregistrée"),
        (AFRIKAANS, "Verkeerde uitslag", "Bly soos aangeteken"),
    ],
)
def test_a_reports_kind_and_resolution_are_translated_choices(language, kind, resolution):
    from players.models import GameReport

    with translation.override(language):
        assert str(GameReport.Kind.WRONG_RESULT.label) == kind
        assert str(GameReport.Resolution.AS_RECORDED.label) == resolution


def test_a_tournaments_egf_class_is_shown_in_french(client):
    tournament = factories.tournament("spring", "Spring Cup", egf_class="B")

    text = read(client, tournament.get_absolute_url(), FRENCH)

    assert "B (poids 0,75)" in text


# --- 2. the engine's titles, short names, scales and prediction notes -------------------


@pytest.mark.parametrize(
    ("language", "title", "note"),
    [
        (FRENCH, "Indice SAGC", "SAGC n'énonce aucune probabilité."),
        (AFRIKAANS, "SAGC-indeks", "SAGC gee geen waarskynlikheid nie."),
        (ENGLISH, "SAGC index", "SAGC states no probability."),
    ],
)
def test_the_lab_shows_the_algorithms_title_and_prediction_note_translated(
    client, language, title, note
):
    text = read(client, "/lab/?algorithm=sagc", language)

    assert title in text
    assert note in text


@pytest.mark.parametrize(("language", "tab"), [(FRENCH, "Échelle française"), (AFRIKAANS, "Frans")])
def test_the_algorithm_tabs_name_the_french_ladder_in_the_readers_language(client, language, tab):
    factories.player("ann", "5k")

    response = client.get("/players/ann/?algorithm=french", HTTP_ACCEPT_LANGUAGE=language)

    assert response.status_code == 200
    assert f">{tab}</a>" in response.content.decode()


def test_the_calculators_value_scales_are_translated():
    from players.public.calculator_forms import CalculatorForm

    with translation.override(FRENCH):
        form = CalculatorForm(algorithms=["sagc", "french"])
        labels = dict(form.fields["value_scale"].choices)

    assert labels["sagc"] == "Indice SAGC (−999…999 dans le niveau)"
    assert labels["ladder"] == "Valeur d'échelle française / classement à ancres (1d = 0…99)"


def test_a_factor_label_of_the_engine_is_translated_where_it_is_shown():
    from ratings.engine.french import French

    with translation.override(AFRIKAANS):
        assert translated(French.factor_label("handicap_factor")) == "Voorgeefaktor"
    with translation.override(FRENCH):
        assert translated(French.factor_label("level")) == "Valeur d'échelle avant"


# --- 3. the engine's messages -----------------------------------------------------------


def test_a_bad_rank_keeps_its_english_in_the_engine_and_is_translated_in_a_form():
    with pytest.raises(RankError) as raised:
        parse_rank("60k")
    assert str(raised.value) == "'60k' is not a rank: kyu ranks run from 50k to 1k"

    for language, expected in [
        (FRENCH, "«\u00a060k\u00a0» n'est pas un niveau\u00a0: les niveaux kyu vont de 50k à 1k"),
        (AFRIKAANS, "'60k' is nie 'n rang nie: kyu-range loop van 50k tot 1k"),
    ]:
        with translation.override(language), pytest.raises(ValidationError) as refused:
            RankFormField().clean("60k")
        assert refused.value.messages == [expected]


def test_a_message_translates_its_template_and_keeps_its_values():
    message = Message("%(name)s: %(problem)s", name="Ann", problem=Message("a rank is required"))

    assert message == "Ann: a rank is required"
    with translation.override(FRENCH):
        assert translated(message) == "Ann\u00a0: un niveau est requis"
    with translation.override(AFRIKAANS):
        assert translated(message) == "Ann: 'n rang word vereis"


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (FRENCH, "4 DT la date de fin 2024-02-03 précède le début 2024-03-02"),
        (AFRIKAANS, "4 DT die einddatum 2024-02-03 is voor die begin 2024-03-02"),
        (ENGLISH, "4 DT the end date 2024-02-03 is before the start 2024-03-02"),
    ],
)
def test_a_refused_h_files_errors_are_shown_in_the_volunteers_language(vera, language, expected):
    client = signed_in(vera)
    broken = SPRING_CUP.replace("2024-03-03]", "2024-02-03]")

    response = client.post(
        "/tournaments/import/",
        {"file": SimpleUploadedFile("broken.h9", broken.encode())},
        HTTP_ACCEPT_LANGUAGE=language,
    )

    assert response.status_code == 200
    assert expected in text_of(response.content)


def test_a_resync_line_with_a_bad_rank_is_explained_in_french():
    from players.resync import parse_rank_list

    with translation.override(FRENCH):
        read = parse_rank_list("ann,60k\n", default_date=None, today=date(2026, 1, 1))

    assert [bad.reason for bad in read.bad] == [
        "«\u00a060k\u00a0» n'est pas un niveau\u00a0: les niveaux kyu vont de 50k à 1k"
    ]


# --- 4. the refusals' fragments, the date field, an invitation -------------------------


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        (FRENCH, "La partie {pk} relève de Cape Town Go Club"),
        (AFRIKAANS, "Spel {pk} behoort aan Cape Town Go Club"),
    ],
)
def test_another_clubs_game_is_refused_in_one_sentence_of_the_readers_language(language, sentence):
    cape_town, pretoria = factories.club("Cape Town Go Club"), factories.club("Pretoria Go Club")
    cape_volunteer = factories.club_volunteer("cvol", cape_town)
    ann = factories.player("ann", "5k", club=cape_town)
    ben = factories.player("ben", "8k", club=cape_town)
    game = record_sheet_submit(
        user=cape_volunteer,
        games=[factories.game(ann, ben, "W", date(2024, 3, 1))],
        club=cape_town,
    ).games[0]
    client = signed_in(factories.club_volunteer("pvol", pretoria))

    text = read(client, f"/games/{game.pk}/edit/", language, status=403)

    assert sentence.format(pk=game.pk) in text
    if language == FRENCH:  # whom to ask, in a sentence French writes
        assert "Voyez avec le comité de la fédération : ils peuvent le faire pour vous" in text


@pytest.mark.parametrize(
    ("language", "label"), [(FRENCH, "Aujourd&#x27;hui"), (AFRIKAANS, "Vandag"), (ENGLISH, "Today")]
)
def test_the_date_fields_today_button_is_labelled_in_the_page_language(vera, language, label):
    response = signed_in(vera).get("/sheets/new/", HTTP_ACCEPT_LANGUAGE=language)

    assert response.status_code == 200
    assert f'data-today-label="{label}"' in response.content.decode()


@pytest.mark.parametrize(
    ("language", "subject"),
    [
        (FRENCH, "Votre compte sur les classements des clubs de go"),
        (AFRIKAANS, "Jou rekening op die Go-klubgraderings"),
    ],
)
def test_an_invitation_to_a_new_account_is_written_in_the_inviting_persons_language(
    connie, delivered, language, subject
):
    response = signed_in(connie).post(
        "/committee/accounts/new/",
        {"username": "vic", "role": "volunteer", "email": "vic@example.org"},
        HTTP_ACCEPT_LANGUAGE=language,
    )

    assert response.status_code == 302
    assert [mail.subject for mail in delivered()] == [subject]


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        (FRENCH, ": les parties libres ne sont pas comptées par le GoR EGF."),
        (AFRIKAANS, "vrye spelle word nie deur EGF GoR gegradeer nie."),
        (ENGLISH, "Not rated: free games are not rated by EGF GoR."),
    ],
)
def test_why_a_game_was_not_rated_is_said_in_the_readers_language(language, sentence):
    from players.web.explanations import how_html
    from ratings.engine.egf import Egf2021
    from ratings.engine.explanation import StoredChange

    rank = parse_rank("5k")
    change = StoredChange(
        factors={},
        value_before=1700,
        change=0,
        value_after=1700,
        rank_before=rank,
        rank_after=rank,
        skipped="free games are not rated by EGF GoR",
    )

    with translation.override(language):
        assert sentence in text_of(how_html(Egf2021(), change).encode())


@pytest.mark.parametrize(
    ("language", "role"), [(FRENCH, "Bénévole"), (AFRIKAANS, "Vrywilliger"), (ENGLISH, "Volunteer")]
)
def test_the_invitation_names_the_role_in_its_language(connie, delivered, language, role):
    signed_in(connie).post(
        "/committee/accounts/new/",
        {"username": "vic", "role": "volunteer", "email": "vic@example.org"},
        HTTP_ACCEPT_LANGUAGE=language,
    )

    (mail,) = delivered()
    assert f"vic ({role})" in mail.body


def test_the_audit_trail_names_the_new_accounts_role_in_english(connie):
    from players.models import AuditEntry

    signed_in(connie).post(
        "/committee/accounts/new/",
        {"username": "vic", "role": "volunteer", "email": "vic@example.org"},
        HTTP_ACCEPT_LANGUAGE=FRENCH,
    )

    assert AuditEntry.objects.get(action="account_create").summary == "vic (Volunteer)"


@pytest.mark.parametrize(
    ("language", "help_text"),
    [(FRENCH, "t pour aujourd'hui"), (AFRIKAANS, "t vir vandag"), (ENGLISH, "t for today")],
)
def test_the_committees_date_help_is_read_in_the_page_language(language, help_text):
    from players.committee.forms import AdjustmentForm

    with translation.override(language):
        shown = str(AdjustmentForm.base_fields["date"].help_text)

    assert help_text in shown
