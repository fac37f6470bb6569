"""The services' and readers' messages come out in the reader's language: a refused
sheet, a duplicate warning, a refused tournament file, a resync preview's lines and a
count's plural, in French and Afrikaans (the catalogues of locale/), English when no
language is chosen."""

from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from players.models import Player
from players.resync import format_label, match_rank_list, parse_rank_list
from players.services.base import DuplicateGamesError, ServiceError
from players.services.games import record_sheet_submit
from players.services.players import player_merge, players_create
from players.services.tournament_files import tournament_file_problem
from ratings.engine.ranks import parse_rank
from tests import factories

pytestmark = pytest.mark.django_db

NBSP = "\u00a0"  # French puts a no-break space before : ; ? and inside « »


@pytest.fixture
def pair():
    """Two players of the club, alice and bob."""
    return factories.player("alice", "5k"), factories.player("bob", "8k")


@pytest.mark.parametrize(
    ("language", "refusal", "problem"),
    [
        (
            "fr",
            f"la feuille contient des erreurs{NBSP}; rien n'a été enregistré",
            "un joueur ne peut pas jouer contre lui-même",
        ),
        (
            "af",
            "die blad het foute; niks is gestoor nie",
            "'n speler kan nie teen homself speel nie",
        ),
        ("en", "the sheet has errors; nothing was stored", "a player cannot play themselves"),
    ],
)
def test_a_refused_sheet_says_why_in_the_readers_language(vera, pair, language, refusal, problem):
    alice, _bob = pair
    with translation.override(language), pytest.raises(ServiceError) as refused:
        record_sheet_submit(user=vera, games=[factories.game(alice, alice, "W")])

    assert refused.value.message == refusal
    assert [tuple(error) for error in refused.value.errors] == [(1, "black", problem)]


@pytest.mark.parametrize(
    ("language", "refusal", "warning"),
    [
        (
            "fr",
            "ces parties méritent un second regard",
            "partie 1 (2024-03-01, alice - bob, gagnant W) est déjà enregistrée comme partie {}",
        ),
        (
            "af",
            "hierdie spelle verdien 'n tweede kyk",
            "spel 1 (2024-03-01, alice - bob, wenner W) is reeds op rekord as spel {}",
        ),
    ],
)
def test_a_duplicate_warning_is_in_the_readers_language(vera, pair, language, refusal, warning):
    alice, bob = pair
    stored = record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W")]).games[0]

    with translation.override(language), pytest.raises(DuplicateGamesError) as doubtful:
        record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W")])

    assert doubtful.value.message == refusal
    assert [error.message for error in doubtful.value.errors] == [warning.format(stored.pk)]
    # The warning still names the game on file, for the page's link.
    assert doubtful.value.errors[0].message.game_id == stored.pk


@pytest.mark.parametrize(
    ("language", "empty", "utf16"),
    [
        (
            "fr",
            f"Le fichier est vide{NBSP}: il ne contient aucun tournoi.",
            f"Le fichier est enregistré en UTF-16{NBSP}: enregistrez-le en UTF-8 (ou en "
            "ISO-8859-15, comme OpenGotha écrit les fichiers h) et importez-le à nouveau.",
        ),
        (
            "af",
            "Die lêer is leeg: daar is geen toernooi in nie.",
            "Die lêer is as UTF-16 gestoor: stoor dit as UTF-8 (of ISO-8859-15, soos "
            "OpenGotha h-lêers skryf) en voer dit weer in.",
        ),
        (
            "en",
            "The file is empty: there is no tournament in it.",
            "The file is saved as UTF-16: save it as UTF-8 (or ISO-8859-15, as OpenGotha "
            "writes h-files) and import it again.",
        ),
    ],
)
def test_a_refused_tournament_file_is_told_in_the_readers_language(language, empty, utf16):
    with translation.override(language):
        assert tournament_file_problem(b" \r\n") == empty
        assert tournament_file_problem("; h9\n".encode("utf-16")) == utf16


@pytest.mark.parametrize(
    ("language", "unknown", "label", "future"),
    [
        (
            "fr",
            "aucun joueur n'a ce nom d'utilisateur ou ce nom",
            "inconnu",
            "la date 2099-01-01 est dans le futur",
        ),
        (
            "af",
            "geen speler het hierdie gebruikersnaam of naam nie",
            "onbekend",
            "die datum 2099-01-01 is in die toekoms",
        ),
    ],
)
def test_the_resync_previews_lines_are_in_the_readers_language(language, unknown, label, future):
    with translation.override(language):
        rank_list = parse_rank_list(
            "nobody,4k\nalice,3k,2099-01-01", default_date=date(2024, 6, 1), today=date(2024, 6, 30)
        )
        preview = match_rank_list(rank_list, [])
        rows = {row.line: row for row in preview.rows}

        assert (rows[1].note, rows[1].outcome.label) == (unknown, label)
        assert rows[2].note == future
        assert format_label(rank_list) == {"fr": "liste simple", "af": "eenvoudige lys"}[language]
    # The outcome's value stays the code the pages select rows by.
    assert rows[1].outcome.value == "unknown"


@pytest.mark.parametrize(
    ("language", "one", "two"),
    [
        # French counts 0 and 1 as singular, Afrikaans only 1.
        (
            "fr",
            "le nom d'utilisateur alice est déjà pris",
            "les noms d'utilisateur alice, bob sont déjà pris",
        ),
        (
            "af",
            "die gebruikersnaam alice is reeds geneem",
            "die gebruikersname alice, bob is reeds geneem",
        ),
        ("en", "the username alice is taken", "the usernames alice, bob are taken"),
    ],
)
def test_a_count_takes_the_plural_of_the_readers_language(connie, pair, language, one, two):
    def refusal(usernames):
        new = [
            Player(username=name, full_name=name, entry_rank=parse_rank("9k")) for name in usernames
        ]
        with translation.override(language), pytest.raises(ServiceError) as refused:
            players_create(user=connie, players=new, summary="a test")
        return refused.value.message

    assert refusal(["alice"]) == one
    assert refusal(["alice", "bob"]) == two


def test_a_merge_refused_for_one_game_between_them_says_it_in_the_singular(connie, pair):
    alice, bob = pair
    record_sheet_submit(user=connie, games=[factories.game(alice, bob, "W")])

    with translation.override("fr"), pytest.raises(ServiceError) as refused:
        player_merge(user=connie, keep=alice, duplicate=bob)

    assert refused.value.message == (
        f"alice et bob ont joué l'un contre l'autre (1 partie, la première le 2024-03-01){NBSP}: "
        "ce sont deux personnes, pas deux fiches d'une même personne"
    )


@pytest.mark.parametrize(
    ("accept_language", "refusal"),
    [
        ("fr-FR,fr;q=0.9", f"Le fichier est vide{NBSP}: il ne contient aucun tournoi."),
        ("af", "Die lêer is leeg: daar is geen toernooi in nie."),
    ],
)
def test_the_import_page_refuses_an_empty_tournament_file_in_the_browsers_language(
    client, vera, accept_language, refusal
):
    client.force_login(vera)

    response = client.post(
        "/tournaments/import/",
        {"file": SimpleUploadedFile("spring.h9", b"\n")},
        HTTP_ACCEPT_LANGUAGE=accept_language,
    )

    assert response.status_code == 200
    assert response.context["form"].errors["file"] == [refusal]
