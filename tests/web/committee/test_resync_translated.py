"""The resync's preview in French and Afrikaans: each count badge agrees with its count
("30 absents de la liste", "1 absent de la liste"), counts are grouped the language's way
("1 234"), and the sentence saying what was read is one message with its colon, so
French puts its non-breaking space before it.

The messages are new on this branch, so the tests give their translations as the
catalogues hold them (tests/stand_in_catalogue.py) instead of reading compiled ones."""

import html
import re

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from players.models import Player
from players.resync import Outcome, outcome_count
from tests.players.test_rank_lists import EGD_PAGE, gzipped
from tests.stand_in_catalogue import stand_in_translations
from tests.web.committee import test_resync

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]

club = test_resync.club  # the fixture: four players, two of them John Smith

NBSP = "\u00a0"
COUNTED = "resync outcome count"
FRENCH = {
    (COUNTED, "%(count)s changed"): ("%(count)s modifié", "%(count)s modifiés"),
    (COUNTED, "%(count)s not on the list"): (
        "%(count)s absent de la liste",
        "%(count)s absents de la liste",
    ),
    "Read as the %(format)s of %(day)s: %(counts)s.": (
        f"Lu comme la %(format)s du %(day)s{NBSP}: %(counts)s."
    ),
}
AFRIKAANS = {
    (COUNTED, "%(count)s changed"): ("%(count)s verander", "%(count)s verander"),
    (COUNTED, "%(count)s not on the list"): (
        "%(count)s nie op die lys nie",
        "%(count)s nie op die lys nie",
    ),
    "Read as the %(format)s of %(day)s: %(counts)s.": (
        "Gelees as die %(format)s van %(day)s: %(counts)s."
    ),
}
STAND_INS = {"fr": FRENCH, "af": AFRIKAANS, "en": {}}


@pytest.fixture(autouse=True)
def _language_back():
    """The test client's requests leave their language active in this thread."""
    yield
    translation.activate(settings.LANGUAGE_CODE)


def egd_preview_text(client, language: str) -> tuple[str, list[str]]:
    """The preview of a small EGD list (of 27 Dec 2018) as a reader of ``language``
    reads it: the sentence saying what was read, and the count badges."""
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    response = client.post(
        "/committee/resync/",
        {
            "list_file": SimpleUploadedFile("allworld_lp.html.gz", gzipped(EGD_PAGE)),
            "list_text": "",
            "effective_date": "",
            "note": "",
        },
    )
    assert response.status_code == 200
    page = response.content.decode()
    read_as = re.search(r'<p id="preview-format">(.*?)</p>', page, re.S).group(1)
    summary = page.split('id="preview-summary">')[1].split("</p>")[0]
    badges = re.findall(r'<span class="badge[^"]*">([^<]*)</span>', summary)
    return html.unescape(re.sub(r"<[^>]+>", "", read_as)), [html.unescape(b) for b in badges]


def test_the_badges_of_the_preview_agree_with_their_counts_in_french(client, connie, club):
    # thandi is Da Silva of the list (1d, a new rank); the three others are not on it
    Player.objects.filter(pk=club["thandi"].pk).update(egd_pin="18937182")

    with stand_in_translations("fr", FRENCH):
        read_as, badges = egd_preview_text(client, "fr")

    assert badges == ["1 modifié", "3 absents de la liste"]
    assert read_as.startswith(
        f"Lu comme la liste de classement de l'EGD (gzip) du 2018-12-27{NBSP}: "
    )


def test_the_badges_and_the_sentence_of_the_preview_in_afrikaans(client, connie, club):
    Player.objects.filter(pk=club["thandi"].pk).update(egd_pin="18937182")

    with stand_in_translations("af", AFRIKAANS):
        read_as, badges = egd_preview_text(client, "af")

    assert badges == ["1 verander", "3 nie op die lys nie"]
    assert read_as.startswith("Gelees as die EGD-graderingslys (gzip) van 2018-12-27: ")


def test_the_preview_says_what_it_read_in_one_english_sentence(client, connie, club):
    read_as, badges = egd_preview_text(client, "en")

    assert badges == ["4 not on the list"]
    assert read_as.startswith("Read as the EGD rating list (gzip) of 2018-12-27: ")
    assert read_as.endswith(" players with a rank.")


@pytest.mark.parametrize(
    ("language", "count", "badge"),
    [
        ("fr", 1, "1 absent de la liste"),
        ("fr", 15, "15 absents de la liste"),
        ("fr", 1234, f"1{NBSP}234 absents de la liste"),
        ("af", 1234, f"1{NBSP}234 nie op die lys nie"),
        ("en", 1234, "1,234 not on the list"),
    ],
)
def test_a_count_badge_takes_the_plural_and_grouping_of_its_language(language, count, badge):
    with stand_in_translations(language, STAND_INS[language]), translation.override(language):
        assert outcome_count(Outcome.ABSENT, count) == badge


def test_every_outcome_but_the_unknown_has_a_count_badge_in_english():
    assert outcome_count(Outcome.CONFLICT, 1) == "1 conflict"
    assert outcome_count(Outcome.CONFLICT, 2) == "2 conflicts"
    assert outcome_count(Outcome.BAD, 2) == "2 bad lines"
    for outcome in Outcome:
        if outcome != Outcome.UNKNOWN:
            assert outcome_count(outcome, 7).startswith("7 ")


@pytest.mark.parametrize(
    ("language", "found_by"),
    [("fr", "par nom"), ("af", "volgens naam"), ("en", "by name")],
)
def test_the_preview_says_how_a_line_found_its_player_in_the_readers_language(
    client, connie, club, language, found_by
):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language

    response = test_resync.preview(client, "Thandi Nkosi, 4k")

    assert response.status_code == 200
    table = response.content.decode().split('id="resync-preview"')[1].split("</table>")[0]
    assert f"<small>{found_by}</small>" in table


def test_the_revert_page_names_each_rating_by_its_algorithm_and_value_as_the_pages_do(
    client, connie, club
):
    from players.models import ResyncBatch
    from tests.web.committee.test_resync import AGA_LIST, apply, upload, upload_token

    apply(
        client,
        "",
        token=upload_token(upload(client, "tdlista.txt", AGA_LIST.encode())),
        use_ratings="on",
    )
    batch = ResyncBatch.objects.get()
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "fr"

    revert = html.unescape(client.get(f"/committee/resync/{batch.pk}/revert/").content.decode())
    listed = client.get(f"/committee/resync/{batch.pk}/").content.decode()

    # The AGA's 1810.00 as the other pages write a GoR, under the algorithm's tab name.
    assert f"EGF 2021{NBSP}: classement 1810 à partir du {test_resync.ON}" in revert
    assert "egf-2021" not in revert and "1810,0000" not in revert
    assert re.search(r"<td[^>]*>EGF 2021</td>", listed)
