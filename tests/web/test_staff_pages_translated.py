"""The volunteers' and committee's pages in French and in Afrikaans (issue 30): the
browser's Accept-Language chooses, English stays the default. Each page is read in both
languages, and a count is said with its language's plural."""

import html as html_module
import re
from datetime import date

import pytest

from players.models import Game, RecordSheet
from players.services import reports as report_services
from players.services.accounts import Role, account_create
from players.services.games import record_sheet_submit
from ratings.engine.ranks import parse_rank
from ratings.models import CurrentRating
from tests import factories
from tests.stand_in_catalogue import stand_in_translations
from tests.web.entry.test_sheet_entry import sheet_post

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]

FRENCH, AFRIKAANS = "fr", "af"


def text_of(content: bytes) -> str:
    """A page's words as a person reads them: no tags, entities decoded, spaces collapsed."""
    words = re.sub(r"<[^>]+>", " ", content.decode())
    return re.sub(r"\s+", " ", html_module.unescape(words))


def read(client, url: str, language: str, status: int = 200) -> str:
    """The words of the page at ``url`` as a browser asking for ``language`` shows it."""
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == status, f"GET {url} answered {response.status_code}"
    return text_of(response.content)


def send(client, url: str, data: dict, language: str, **extra):
    return client.post(url, data, HTTP_ACCEPT_LANGUAGE=language, **extra)


@pytest.fixture
def ann():
    return factories.player("ann", "5k", full_name="Ann Abel")


@pytest.fixture
def ben():
    return factories.player("ben", "8k", full_name="Ben Botha")


# --- the record sheet -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            FRENCH,
            [
                "Saisir une feuille de résultats",
                "Une ligne par partie.",
                "Blanc * Noir * Handicap * Komi Vainqueur *",
                "Statut * Libre Normale Tournoi Internet",
                "Taille du goban",
                "Enregistrer la feuille",
                "Nouveau joueur…",
                "Ajouter le joueur",
            ],
        ),
        (
            AFRIKAANS,
            [
                "Voer 'n uitslagblad in",
                "Een ry per spel.",
                "Wit * Swart * Voorgee * Komi Wenner *",
                "Status * Vry Normaal Toernooi Internet",
                "Bordgrootte",
                "Stoor die blad",
                "Nuwe speler…",
                "Voeg die speler by",
            ],
        ),
    ],
)
def test_the_sheet_entry_page_speaks_the_browsers_language(client, vera, language, words):
    html = read(client, "/sheets/new/", language)

    for word in words:
        assert word in html, word
    assert "Enter a record sheet" not in html and "Save the sheet" not in html


@pytest.mark.parametrize(
    ("language", "refused"),
    [
        (
            FRENCH,
            "Le joueur n&#x27;a pas pu être ajouté ({status}). Êtes-vous toujours connecté\u00a0?",
        ),
        (AFRIKAANS, "Die speler kon nie bygevoeg word nie ({status}). Is jy nog aangemeld?"),
    ],
)
def test_the_new_player_dialog_gives_its_script_the_pages_language(client, vera, language, refused):
    response = client.get("/sheets/new/", HTTP_ACCEPT_LANGUAGE=language)

    assert response.status_code == 200
    html = html_module.unescape(response.content.decode())
    # sheet.js fills {status} in; the words are the page's.
    assert f'data-refused="{html_module.unescape(refused)}"' in html


@pytest.mark.parametrize(
    ("language", "white", "black"),
    [
        (FRENCH, "W (Blanc)", "B (Noir)"),
        (AFRIKAANS, "W (Wit)", "B (Swart)"),
        ("", "W (White)", "B (Black)"),
    ],
)
def test_the_sheets_winner_letters_say_their_colour_in_the_browsers_language(
    client, vera, language, white, black
):
    # In French "B" alone reads as Blanc: the letter the paper sheet uses leads, explained.
    response = client.get("/sheets/new/", HTTP_ACCEPT_LANGUAGE=language)
    html = response.content.decode()

    assert f'<option value="W">{white}</option>' in html
    assert f'<option value="B">{black}</option>' in html


def test_the_sheet_entry_page_stays_english_by_default(client, vera):
    html = read(client, "/sheets/new/", "")

    assert "Enter a record sheet" in html and "Save the sheet" in html


@pytest.mark.parametrize(
    ("language", "problems", "own_game", "komi"),
    [
        (
            FRENCH,
            "La feuille a 2 problèmes, signalés à leurs champs. Rien n'a été enregistré.",
            "un joueur ne peut pas jouer contre lui-même",
            "7,3 n'est pas un komi : utilisez un multiple de 0,5",
        ),
        (
            AFRIKAANS,
            "Die blad het 2 probleme, by hul velde gemerk. Niks is gestoor nie.",
            "'n speler kan nie teen homself speel nie",
            "7,3 is nie 'n komi nie: gebruik 'n veelvoud van 0,5",
        ),
    ],
)
def test_a_refused_sheet_says_its_problems_in_the_browsers_language(
    client, vera, ann, ben, language, problems, own_game, komi
):
    data = sheet_post(
        {"white": "ann", "black": "ann", "winner": "W"},
        {"white": "ann", "black": "ben", "winner": "B", "komi": "7.3"},
    )

    response = send(client, "/sheets/new/", data, language)

    assert response.status_code == 200
    html = text_of(response.content)
    assert problems in html
    assert own_game in html and komi in html
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    ("language", "one", "many"),
    [
        (
            FRENCH,
            "La feuille a 1 problème, signalé à son champ.",
            "La feuille a 2 problèmes, signalés à leurs champs.",
        ),
        (
            AFRIKAANS,
            "Die blad het 1 probleem, by sy veld gemerk.",
            "Die blad het 2 probleme, by hul velde gemerk.",
        ),
    ],
)
def test_the_count_of_a_sheets_problems_takes_the_languages_plural(
    client, vera, ann, ben, language, one, many
):
    single = sheet_post({"white": "ann", "black": "ann", "winner": "W"})
    double = sheet_post(
        {"white": "ann", "black": "ann", "winner": "W"},
        {"white": "ben", "black": "ben", "winner": "B"},
    )

    assert one in text_of(send(client, "/sheets/new/", single, language).content)
    assert many in text_of(send(client, "/sheets/new/", double, language).content)


@pytest.mark.parametrize(
    ("language", "saved"),
    [
        (FRENCH, "Feuille {number} enregistrée : 2 parties."),
        (AFRIKAANS, "Blad {number} gestoor: 2 spelle."),
    ],
)
def test_a_saved_sheet_is_announced_in_the_browsers_language(
    client, vera, ann, ben, language, saved
):
    data = sheet_post(
        {"white": "ann", "black": "ben", "winner": "W", "date": "2024-03-01"},
        {"white": "ben", "black": "ann", "winner": "B", "date": "2024-03-08"},
    )

    response = send(client, "/sheets/new/", data, language, follow=True)

    sheet = RecordSheet.objects.get()
    html = text_of(response.content)
    assert saved.format(number=sheet.pk) in html
    heading = {FRENCH: "Feuille de résultats", AFRIKAANS: "Uitslagblad"}[language]
    assert f"{heading} {sheet.pk}" in html


# --- the committee's pages ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            FRENCH,
            ["Corriger la fiche de Ann Abel", "Niveau d'entrée", "Enregistrer les corrections"],
        ),
        (AFRIKAANS, ["Stel die rekord van Ann Abel reg", "Intreerang", "Stoor die regstellings"]),
    ],
)
def test_the_committees_player_edit_page_is_translated(client, connie, ann, language, words):
    html = read(client, "/committee/players/ann/edit/", language)

    for word in words:
        assert word in html


@pytest.mark.parametrize(
    ("language", "corrected"),
    [(FRENCH, "ann corrigé."), (AFRIKAANS, "ann reggestel.")],
)
def test_a_corrected_player_is_announced_in_the_browsers_language(
    client, connie, ann, language, corrected
):
    data = {
        "given_name": "Ann",
        "family_name": "Abel-Smith",
        "club": "",
        "country": "",
        "federation_club": "",
        "egd_pin": "",
        "national_id": "",
        "national_rank": "",
        "entry_rank": "5k",
        "active": "on",
    }

    response = send(client, "/committee/players/ann/edit/", data, language, follow=True)

    assert corrected in text_of(response.content)


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            FRENCH,
            [
                "Fusionner deux fiches d'une même personne",
                "Fiche à garder",
                "Fusionner ben dans ann",
                "Première partie",
            ],
        ),
        (
            AFRIKAANS,
            [
                "Smelt twee rekords van een persoon saam",
                "Rekord om te hou",
                "Smelt ben saam met ann",
                "Eerste spel",
            ],
        ),
    ],
)
def test_the_merge_preview_is_translated(client, connie, ann, ben, language, words):
    html = read(client, "/committee/players/merge/?keep=ann&duplicate=ben", language)

    for word in words:
        assert word in html


# The apply button's messages, renamed when its count was grouped the language's way
# (%(shown)s): as the catalogues hold them once made again.
APPLY_BUTTON = {
    FRENCH: {
        "Apply %(shown)s change": (
            "Appliquer %(shown)s changement",
            "Appliquer %(shown)s changements",
        )
    },
    AFRIKAANS: {
        "Apply %(shown)s change": (
            "Pas %(shown)s verandering toe",
            "Pas %(shown)s veranderinge toe",
        )
    },
}


@pytest.fixture
def apply_button_translated():
    with (
        stand_in_translations(FRENCH, APPLY_BUTTON[FRENCH]),
        stand_in_translations(AFRIKAANS, APPLY_BUTTON[AFRIKAANS]),
    ):
        yield


@pytest.mark.usefixtures("apply_button_translated")
@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            FRENCH,
            [
                "Resynchroniser avec les niveaux nationaux",
                " changé ",
                "2 joueurs avec un niveau",
                "Appliquer 2 changements",
            ],
        ),
        (
            AFRIKAANS,
            [
                "Hersinkroniseer met die nasionale range",
                " verander ",
                "2 spelers met 'n rang",
                "Pas 2 veranderinge toe",
            ],
        ),
    ],
)
def test_the_resync_preview_is_translated_with_its_plurals(
    client, connie, ann, ben, language, words
):
    response = send(
        client,
        "/committee/resync/",
        {"list_text": "ann;4k\nben;7k", "effective_date": "2024-06-01", "note": ""},
        language,
    )

    assert response.status_code == 200
    html = text_of(response.content)
    for word in words:
        assert word in html
    assert 'data-outcome="changed"' in response.content.decode()  # the data stays as it is


@pytest.mark.usefixtures("apply_button_translated")
@pytest.mark.parametrize(
    ("language", "one"),
    [(FRENCH, "Appliquer 1 changement"), (AFRIKAANS, "Pas 1 verandering toe")],
)
def test_one_resync_change_is_singular(client, connie, ann, language, one):
    response = send(
        client,
        "/committee/resync/",
        {"list_text": "ann;4k", "effective_date": "2024-06-01", "note": ""},
        language,
    )

    assert f"{one}</button>" in response.content.decode()
    assert f"{one}, " not in text_of(response.content)


# --- the volunteers' queue of reports ----------------------------------------------------


@pytest.fixture
def reported(vera, connie, ann, ben):
    account = account_create(
        user=connie, username="pat", password="a long pass phrase", role=Role.READER, player=ann
    )
    ann.refresh_from_db()
    sheet = record_sheet_submit(user=vera, games=[factories.game(ann, ben, "W", date(2024, 3, 1))])
    return report_services.report_create(
        user=account, player=ann, game_id=sheet.games[0].pk, kind="wrong_result", text=""
    )


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            FRENCH,
            [
                "Signalements d'erreurs",
                "Ouverts (1)",
                "Ce qui ne va pas",
                "Ann Abel (blanc) – Ben Botha (noir), victoire de Blanc",
            ],
        ),
        (
            AFRIKAANS,
            [
                "Verslae van foute",
                "Oop (1)",
                "Wat verkeerd is",
                "Ann Abel (wit) – Ben Botha (swart), wit het gewen",
            ],
        ),
    ],
)
def test_the_reports_queue_is_translated(client, vera, reported, language, words):
    html = read(client, "/reports/", language)

    for word in words:
        assert word in html


# --- the printable sheets -----------------------------------------------------------------


@pytest.fixture
def club_with_players():
    club = factories.club("Durban Go Club")
    for username, rank in (("kim", "12k"), ("dee", "2d")):
        player = factories.player(username, rank, club=club)
        CurrentRating.objects.create(
            algorithm="sagc", player=player, rank=parse_rank(rank), value=100, games=3
        )
    factories.player("newbie", "25k", club=club)
    return club


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            FRENCH,
            [
                "Durban Go Club : feuille de résultats de la soirée de club",
                "Pierres de handicap",
                "0 (même niveau)",
                "9 ou plus",
                "aucune (nigiri)",
                "Vainqueur (W = Blanc, B = Noir, jigo)",
                "25k (nouveau)",
            ],
        ),
        (
            AFRIKAANS,
            [
                "Durban Go Club: uitslagblad van die klubaand",
                "Voorgeeklippe",
                "0 (dieselfde rang)",
                "9 of meer",
                "geen (nigiri)",
                "Wenner (W = Wit, B = Swart, jigo)",
                "25k (nuut)",
            ],
        ),
    ],
)
def test_the_printable_club_night_sheet_prints_in_the_browsers_language(
    client, club_with_players, language, words
):
    html = read(client, f"/clubs/{club_with_players.pk}/sheet/", language)

    for word in words:
        assert word in html
    assert "club night record sheet" not in html


def test_the_printable_club_night_sheet_stays_english_by_default(client, club_with_players):
    html = read(client, f"/clubs/{club_with_players.pk}/sheet/", "")

    assert "Durban Go Club: club night record sheet" in html and "9 or more" in html


@pytest.mark.parametrize(
    ("language", "games"),
    [
        (FRENCH, "actuellement 5k, indice 100, 2 parties"),
        (AFRIKAANS, "nou 5k, indeks 100, 2 spelle"),
    ],
)
def test_a_players_printable_record_sheet_counts_their_games_in_the_language(
    client, ann, language, games
):
    CurrentRating.objects.create(
        algorithm="sagc", player=ann, rank=parse_rank("5k"), value=100, games=2
    )

    html = read(client, "/players/ann/print/", language)

    assert games in html
    assert {FRENCH: "Feuille de résultats : Ann Abel", AFRIKAANS: "Uitslagblad: Ann Abel"}[
        language
    ] in html
