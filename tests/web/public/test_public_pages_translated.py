"""The public pages in French and in Afrikaans (issue 30): the language the browser asks
for (Accept-Language) gives the page's headings, table headers, chart labels and
counts in that language, with the plural its count takes; English stays the default."""

import re
from datetime import date

import pytest
from django.utils import translation

from players.public.lab_tables import share_text
from players.services.games import record_sheet_submit
from players.web.charts import _month_ticks
from players.web.numbers import decimal_text, file_number, shown_change
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.pages import page_html
from tests.stand_in_catalogue import stand_in_translations
from tests.web.entry.test_tournament_import import SPRING_CUP, upload

pytestmark = [pytest.mark.django_db, pytest.mark.algorithms("sagc", "egf-2021", "gcr")]
LANGS = ("en", "fr", "af")

# The counts these pages say, their messages renamed when the counts were grouped the
# language's way (%(shown)s, "1 234"): as the catalogues hold them once made again.
COUNTS = {
    "fr": {
        "%(shown)s player": ("%(shown)s joueur", "%(shown)s joueurs"),
        "%(shown)s game": ("%(shown)s partie", "%(shown)s parties"),
        "Computed on %(when)s from %(shown)s game.": (
            "Calculé le %(when)s sur %(shown)s partie.",
            "Calculé le %(when)s sur %(shown)s parties.",
        ),
    },
    "af": {
        "%(shown)s player": ("%(shown)s speler", "%(shown)s spelers"),
        "%(shown)s game": ("%(shown)s spel", "%(shown)s spelle"),
        "Computed on %(when)s from %(shown)s game.": (
            "Bereken op %(when)s uit %(shown)s spel.",
            "Bereken op %(when)s uit %(shown)s spelle.",
        ),
    },
}


@pytest.fixture(autouse=True)
def _counts_translated():
    with stand_in_translations("fr", COUNTS["fr"]), stand_in_translations("af", COUNTS["af"]):
        yield


def club_and_tournament(vera) -> dict:
    """A club of three, a tournament of two rounds and a club evening, entered (not yet
    recomputed)."""
    club = factories.club("Cape Town Go Club")
    ann, ben, cat = (
        factories.player(name, rank, full_name=name.title(), club=club)
        for name, rank in [("ann", "3k"), ("ben", "5k"), ("cat", "8k")]
    )
    cup = factories.tournament("spring-cup", "Spring Cup", egf_class="B")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", date(2024, 4, 6), tournament=cup, round=1),
            factories.game(ben, cat, "B", date(2024, 4, 7), tournament=cup, round=2),
            factories.game(ann, cat, "W", date(2024, 5, 2), handicap=3),
        ],
    )
    return {"club": club, "ann": ann, "cup": cup, "game": cup.games.order_by("date").first()}


@pytest.fixture
def games(vera, django_capture_on_commit_callbacks):
    """``club_and_tournament``, recomputed, with the lab's reports (their task runs once
    the recompute commits)."""
    made = club_and_tournament(vera)
    with django_capture_on_commit_callbacks(execute=True):
        recompute_pending()
    return made


def page_in(client, url: str, language: str) -> str:
    """The page as a browser asking for ``language`` reads it, its white space made one
    space (a table header reads ``> Rang </th>``)."""
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    return " ".join(page_html(client, url).split())


def test_the_rating_list_speaks_french_and_afrikaans_when_asked(client, games):
    english = page_in(client, "/", "en")
    french = page_in(client, "/", "fr")
    afrikaans = page_in(client, "/", "af")

    assert ">Ratings</h1>" in english and "3 players" in english
    # the heading, the column headers, the filter's labels and the count's plural
    assert ">Classements</h1>" in french
    assert ">Niveau</a>" in french and ">Parties</a>" in french, "sortable headers"
    assert "Trouver un joueur" in french and "3 joueurs" in french
    assert ">Graderings</h1>" in afrikaans
    assert ">Rang</a>" in afrikaans and ">Spelle</a>" in afrikaans
    assert "Soek &#x27;n speler" in afrikaans or "Soek 'n speler" in afrikaans
    assert "3 spelers" in afrikaans


def test_the_count_takes_the_singular_each_language_gives_it(client, games):
    # one player found: French and Afrikaans say it in the singular, as English does
    assert "1 player ·" in page_in(client, "/?search=ann", "en")
    assert "1 joueur ·" in page_in(client, "/?search=ann", "fr")
    assert "1 speler ·" in page_in(client, "/?search=ann", "af")


# Each page's headings, headers and counts as French and Afrikaans readers see them
# (white space made one space: a table header reads "> Pays </th>").
PAGES = {
    "log page": (
        "/players/ann/",
        {
            "fr": [
                "<dt>Niveau national</dt>",
                "Feuille de résultats <small",
                "> Adversaire </th>",
                "> Vainqueur </th>",
                "> Nouvel indice </th>",
                "Blanc a gagné",
                "Niveau au fil du temps (",  # the chart's title
            ],
            "af": [
                "<dt>Nasionale rang</dt>",
                "Uitslagblad <small",
                "> Teenstander </th>",
                "> Wenner </th>",
                "Wit het gewen",
                "Rang oor tyd (",
            ],
        },
    ),
    "tournament page": (
        "/tournaments/spring-cup/",
        {
            # the crosstable's headers too: it is kept once per language
            "fr": [
                ">Classe EGF</dt>",
                ">Télécharger le fichier h</a>",
                "> Pays </th>",
            ],
            "af": [">EGF-klas</dt>", ">Laai h-lêer af</a>", "> Land </th>", "> EGF 2021 na </th>"],
        },
    ),
    "lab": (
        "/lab/",
        {
            # the sentence under the algorithm counts its games: 3, a plural
            "fr": [
                ">Laboratoire des algorithmes</h1>",
                "> Favori vainqueur </th>",
                "sur 3 parties.",
            ],
            "af": [">Algoritme-laboratorium</h1>", "> Gunsteling het gewen </th>", "uit 3 spelle."],
        },
    ),
    "calculator": (
        "/calculator/?white_player=ann&black_rank=5k&handicap=0",
        {
            "fr": [">Simulateur</h1>", ">Blanc gagne</th>", "Si la partie était jouée maintenant"],
            "af": [">Wat-as-sakrekenaar</h1>", ">Wit wen</th>", "As die spel nou gespeel word"],
        },
    ),
    "club page": (
        "/clubs/{club}/",
        {
            "fr": ["Parties et membres actifs par mois", ">Qui le gère</h2>"],
            "af": ["Spelle en aktiewe lede per maand", ">Wie bestuur dit</h2>"],
        },
    ),
    "game page": (
        "/games/{game}/",
        {
            "fr": [
                "Partie {game} : ann – ben",
                ">Noir</dt>",
                ">Journal des modifications</h2>",
            ],
            "af": ["Spel {game}: ann – ben", ">Voorgee, komi</dt>", ">Ouditspoor</h2>"],
        },
    ),
}


@pytest.mark.parametrize("language", ["fr", "af"])
@pytest.mark.parametrize("page", list(PAGES))
def test_a_public_page_speaks_the_language_the_browser_asks_for(
    client, vera, games, page, language
):
    client.force_login(vera)  # a game's page is the volunteers'
    numbers = {"club": games["club"].pk, "game": games["game"].pk}
    url, expected = PAGES[page]
    html = page_in(client, url.format(**numbers), language)
    english = page_in(client, url.format(**numbers), "en")

    for text in expected[language]:
        assert text.format(**numbers) in html
        assert text.format(**numbers) not in english  # English stays the default


def test_the_chart_names_its_months_in_the_pages_language(client, games):
    with translation.override("fr"):
        french = [label for _day, label in _month_ticks(date(2024, 3, 15), 120)]
    with translation.override("af"):
        afrikaans = [label for _day, label in _month_ticks(date(2024, 3, 15), 120)]

    assert french[0] == "Avr 2024" and "Mai" in french
    assert afrikaans[0] == "Apr 2024" and "Mei" in afrikaans


def test_the_calculator_speaks_french_and_afrikaans_with_its_form_errors(client, games):
    query = "?white_player=ann&black_rank=5k&handicap=0"
    french = page_in(client, "/calculator/" + query, "fr")
    afrikaans = page_in(client, "/calculator/" + query, "af")

    assert ">Simulateur</h1>" in french and "Si la partie était jouée maintenant" in french
    assert ">Blanc gagne</th>" in french and ">Noir gagne</th>" in french
    assert ">Wat-as-sakrekenaar</h1>" in afrikaans and ">Wit wen</th>" in afrikaans
    assert "<legend>Blanc</legend>" in french or ">Blanc</legend>" in french

    both = "?white_player=ann&white_rank=3k&black_rank=5k"
    assert "Donnez un joueur ou un niveau, pas les deux." in page_in(
        client, "/calculator/" + both, "fr"
    )
    assert "Gee &#x27;n speler of &#x27;n rang, nie albei nie." in page_in(
        client, "/calculator/" + both, "af"
    )


def test_the_club_page_counts_its_evenings_games_in_each_language(client, games):
    url = f"/clubs/{games['club'].pk}/"
    assert "Games and active members per month" in page_in(client, url, "en")
    french = page_in(client, url, "fr")
    afrikaans = page_in(client, url, "af")
    assert "Parties et membres actifs par mois" in french and ">Qui le gère</h2>" in french
    assert "Spelle en aktiewe lede per maand" in afrikaans


COORDINATE = re.compile(r'\b(?:x|y|x1|x2|y1|y2|cx|cy|r|width|height|viewBox)="([^"]*)"')


@pytest.mark.parametrize("url", ["/players/ann/", "/lab/", "/clubs/{club}/"])
def test_a_charts_coordinates_stay_numbers_where_the_language_writes_a_decimal_comma(
    client, games, url
):
    """French writes 12,5: a chart's SVG must still read 12.5 (the browser's number)."""
    html = page_in(client, url.format(club=games["club"].pk), "fr")
    svg = html[html.index("<svg") : html.index("</svg>")]

    coordinates = COORDINATE.findall(svg)
    assert coordinates
    assert not [value for value in coordinates if "," in value]


def test_a_tournament_files_preview_counts_its_games_in_french_and_afrikaans(client, vera):
    client.force_login(vera)
    previews = {}
    for language in ("fr", "af"):
        client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
        response = upload(client, SPRING_CUP)
        assert response.status_code == 200
        previews[language] = " ".join(response.content.decode().split())

    # five rounds, six games and four new players: plurals in both languages
    assert (
        "5 rondes" in previews["fr"]
        and "Importer 6 parties et 4 nouveaux joueurs" in previews["fr"]
    )
    assert ">Parties à enregistrer</dt>" in previews["fr"]
    assert "5 rondtes" in previews["af"] and "Voer 6 spelle en 4 nuwe spelers in" in previews["af"]
    assert ">Spelle om te stoor</dt>" in previews["af"]


def test_a_number_shown_on_a_page_takes_the_languages_decimal_sign():
    shown = {}
    # French puts a non-breaking space before the per cent sign (the catalogue's, here)
    with stand_in_translations("fr", {"%(percent)s%%": "%(percent)s\u00a0%%"}):
        for language in ("en", "fr", "af"):
            with translation.override(language):
                shown[language] = (
                    decimal_text("13/2", 1),
                    shown_change(-8.125, False),
                    share_text(0.485),
                )
    assert shown["en"] == ("6.5", "\u22128.12", "48.5%")
    assert shown["fr"] == ("6,5", "\u22128,12", "48,5\u00a0%")
    # Afrikaans writes a decimal comma too (clubrating/formats/af, as CLDR's af)
    assert shown["af"] == ("6,5", "\u22128,12", "48,5%")


def test_a_tournaments_adjusted_time_takes_the_languages_decimal_sign(client, games):
    cup = games["cup"]
    cup.adjusted_time = "82.5"
    cup.save(update_fields=["adjusted_time"])

    shown = {language: page_in(client, "/tournaments/spring-cup/", language) for language in LANGS}

    assert "adjusted time 82.5 min" in shown["en"]
    assert "temps ajusté 82,5 min" in shown["fr"]
    assert "aangepaste tyd 82,5 min" in shown["af"]


def test_an_adjusted_time_that_is_no_number_is_shown_as_the_file_wrote_it(client, games):
    cup = games["cup"]
    cup.adjusted_time = "3h"
    cup.save(update_fields=["adjusted_time"])

    english = page_in(client, "/tournaments/spring-cup/", "en")

    assert "adjusted time 3h" in english and "3h min" not in english


def test_a_files_number_is_read_in_the_pages_language_and_anything_else_is_none():
    with translation.override("fr"):
        assert [file_number(text) for text in ("82.5", " 80 ", "-2.5", "3h", "..", "")] == [
            "82,5",
            "80",
            "\u22122,5",
            None,
            None,
            None,
        ]


def test_a_tables_page_links_speak_afrikaans_which_django_tables2_does_not(client, games):
    afrikaans = page_in(client, "/?per_page=1&page=2", "af")
    french = page_in(client, "/?per_page=1&page=2", "fr")

    assert 'aria-label="Bladsye van die tabel"' in afrikaans
    assert "&laquo;</span> vorige </a>" in afrikaans and "> volgende <span" in afrikaans
    assert "&laquo;</span> précédente </a>" in french


def test_an_h_files_unnamed_column_is_named_in_the_pages_language(monkeypatch):
    """The reader's "Column 4" (a header that tells no column apart) is the site's
    word, so the page says it in its language (the catalogue's, here a stand-in); a
    file's own header stays as the file wrote it."""
    from players import translated

    def french(context, message):
        return "Colonne %(number)s" if message == "Column %(number)s" else message

    monkeypatch.setattr(translated, "pgettext", french)

    assert translated.score_name("Column 4") == "Colonne 4"
    assert translated.score_name("Points") == "Points"
    assert translated.score_name("Column four") == "Column four"
