"""What a walk of the site in French and Afrikaans still found in English or written
the English way: the lab's groups ("Even (0 or 1 stone)") and its percentages ("58.3%"),
a game page's colours (W and B), the recompute page's durations ("0.14 s").

Messages new on this branch are given as the catalogues will hold them
(tests/stand_in_catalogue.py); the others are the compiled catalogues' own."""

import re
from decimal import Decimal
from html import unescape

import pytest
from django.conf import settings
from django.utils import translation

from players.models import Game
from ratings.models import LabReport
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.stand_in_catalogue import stand_in_translations
from tests.web.public import test_lab
from tests.web.public.test_lab import ALGORITHMS, recompute

pytestmark = [pytest.mark.django_db, pytest.mark.algorithms(*ALGORITHMS)]

club = test_lab.club  # the fixture: five games of three players in two months

NBSP = "\u00a0"


@pytest.fixture(autouse=True)
def _language_back():
    """The test client's requests leave their language active in this thread."""
    yield
    translation.activate(settings.LANGUAGE_CODE)


def page_text(client, url: str, language: str) -> str:
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    response = client.get(url)
    assert response.status_code == 200
    # runs of ASCII white space as one space; a non-breaking one (str.split's too) kept
    return re.sub(r"[ \t\r\n]+", " ", response.content.decode())


def test_the_labs_groups_and_shares_are_said_in_french(
    client, club, django_capture_on_commit_callbacks
):
    recompute(django_capture_on_commit_callbacks)
    french = {
        "Even (0 or 1 stone)": "Partie à égalité (0 ou 1 pierre)",
        "%(percent)s%%": f"%(percent)s{NBSP}%%",
    }

    with stand_in_translations("fr", french):
        html = page_text(client, "/lab/", "fr")

    by_handicap = html[html.index('id="lab-by_handicap"') :].split("</table>")[0]
    by_status = html[html.index('id="lab-by_status"') :].split("</table>")[0]
    assert "Partie à égalité (0 ou 1 pierre)" in by_handicap
    assert "Even (0 or 1 stone)" not in html
    assert ">Tournoi<" in by_status, "a label the catalogue had already"
    assert re.search(rf">\d+,\d{NBSP}%<", by_handicap), "a share: decimal comma, space, %"


def test_the_labs_groups_stay_english_in_english(client, club, django_capture_on_commit_callbacks):
    recompute(django_capture_on_commit_callbacks)

    html = page_text(client, "/lab/", "en")

    assert "Even (0 or 1 stone)" in html and ">Tournament<" in html
    assert re.search(r">\d+\.\d%<", html)


@pytest.mark.parametrize(("language", "white"), [("fr", "Blanc"), ("af", "Wit"), ("en", "White")])
def test_a_games_rating_rows_name_the_colour_in_the_readers_language(
    client, club, vera, language, white
):
    recompute_pending()
    game = Game.objects.filter(winner="W").earliest("pk")
    client.force_login(vera)

    html = page_text(client, f"/games/{game.pk}/", language)

    assert f"<td >{game.white.username}</a></td> <td >{white}</td>" in html.replace(
        f'<a href="/players/{game.white.username}/">', ""
    )
    assert "<td >W</td>" not in html and "<td >B</td>" not in html


def test_the_recompute_page_writes_its_durations_with_the_languages_decimal_sign(client, club):
    recompute_pending()
    client.force_login(factories.committee_member())

    french = page_text(client, "/committee/recompute/", "fr")
    english = page_text(client, "/committee/recompute/", "en")

    assert re.search(r"<td[^>]*>\d+,\d\d s</td>", french)
    assert re.search(r"<td[^>]*>\d+\.\d\d s</td>", english)


@pytest.mark.parametrize(
    ("language", "even", "handicap"),
    [("fr", "6,5", "0,5"), ("af", "6,5", "0,5"), ("en", "6.5", "0.5")],
)
def test_the_sheet_shows_its_komi_and_the_komis_its_script_puts_in_the_pages_way(
    client, vera, language, even, handicap
):
    client.force_login(vera)

    html = page_text(client, "/sheets/new/", language)

    komi = re.search(r'<input type="text" name="form-0-komi"[^>]*>', html).group(0)
    assert f'value="{even}"' in komi
    assert f'data-even-komi="{even}"' in komi and f'data-handicap-komi="{handicap}"' in komi


def test_a_komi_typed_with_a_comma_is_read_and_a_bad_one_named_with_a_comma_in_french(client, vera):
    from tests.web.entry.test_sheet_entry import sheet_post

    factories.player("alice", "5k")
    factories.player("bob", "8k")
    client.force_login(vera)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "fr"
    game = {"white": "alice", "black": "bob", "winner": "W"}

    refused = client.post("/sheets/new/", sheet_post({**game, "komi": "6,3"}))
    stored = client.post("/sheets/new/", sheet_post({**game, "komi": "7,5"}))

    assert "6,3 n'est pas un komi" in unescape(refused.content.decode())
    assert stored.status_code == 302
    assert Game.objects.get().komi == Decimal("7.5")


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("fr", f"Calculé le {{when}} sur 1{NBSP}234 parties."),
        ("af", f"Bereken op {{when}} uit 1{NBSP}234 spelle."),
        ("en", "Computed on {when} from 1,234 games."),
    ],
)
def test_the_labs_count_of_games_is_grouped_the_languages_way(
    client, club, django_capture_on_commit_callbacks, language, sentence
):
    recompute(django_capture_on_commit_callbacks)
    LabReport.objects.update(games_counted=1234)
    stand_ins = {
        "fr": {
            "Computed on %(when)s from %(shown)s game.": (
                "Calculé le %(when)s sur %(shown)s partie.",
                "Calculé le %(when)s sur %(shown)s parties.",
            )
        },
        "af": {
            "Computed on %(when)s from %(shown)s game.": (
                "Bereken op %(when)s uit %(shown)s spel.",
                "Bereken op %(when)s uit %(shown)s spelle.",
            )
        },
        "en": {},
    }

    with stand_in_translations(language, stand_ins[language]):
        html = page_text(client, "/lab/", language)

    computed = re.search(r'<p class="mb-2" id="lab-computed">(.*?)<', html).group(1)
    when = re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", computed).group(0)
    assert computed.strip() == sentence.format(when=when)


@pytest.mark.parametrize(
    ("language", "french_ladder"), [("fr", "Échelle française"), ("af", "Frans"), ("en", "French")]
)
def test_a_games_rating_rows_and_badges_name_the_algorithm_as_its_tab_does(
    client, club, vera, language, french_ladder
):
    recompute_pending()
    game = Game.objects.earliest("pk")
    client.force_login(vera)

    html = page_text(client, f"/games/{game.pk}/", language)

    assert html.count(f"<td >{french_ladder}</td>") == 2, "a row for each player"
    assert f'data-algorithm="french">{french_ladder} ' in html
    assert "<td >french</td>" not in html


@pytest.mark.parametrize(
    ("language", "french_ladder"), [("fr", "Échelle française"), ("af", "Frans"), ("en", "French")]
)
def test_a_sheets_recompute_badges_name_the_algorithm_as_its_tab_does(
    client, club, vera, language, french_ladder
):
    recompute_pending()
    sheet = Game.objects.earliest("pk").record_sheet
    client.force_login(vera)

    html = page_text(client, f"/sheets/{sheet.pk}/", language)

    assert re.search(rf'data-algorithm="french" data-status="done">{french_ladder} ', html)
    assert 'data-status="done">french ' not in html


def test_the_adjust_page_names_each_algorithms_rank_as_its_tab_does_in_french(client, club):
    recompute_pending()
    client.force_login(factories.committee_member())

    html = page_text(client, "/committee/players/ann/adjust/", "fr")

    assert "<dt>Échelle française</dt>" in html and "<dt>SAGC</dt>" in html
    assert "<dt>french</dt>" not in html
