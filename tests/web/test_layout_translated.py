"""The public pages on a phone (390 px) in French and Afrikaans, whose words are longer
than English's ("Perte logarithmique", "Gunsteling het gewen"): nothing widens a page
past the screen, and the log page's stacked record sheet keeps each cell inside it."""

import pytest

from ratings.recompute.run import recompute_pending
from tests.conftest import TEST_OUTPUT
from tests.web.public.test_public_pages_translated import club_and_tournament
from tests.web.test_layout import PHONE, sideways_overflow

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("role_groups"),
]


@pytest.fixture
def club(vera):
    made = club_and_tournament(vera)
    recompute_pending()
    return made["club"]


@pytest.mark.parametrize("language", ["fr", "af"])
def test_on_a_phone_the_translated_public_pages_fit_the_screen(
    live_server, browser_page, club, language
):
    page = browser_page
    page.set_extra_http_headers({"Accept-Language": language})
    page.set_viewport_size(PHONE)
    paths = (
        "/",
        "/players/ann/",
        "/players/ann/vs/cat/",
        "/tournaments/",
        "/tournaments/spring-cup/",
        "/clubs/",
        f"/clubs/{club.pk}/",
        "/games/",
        "/lab/",
        "/calculator/?white_player=ann&black_rank=5k",
    )
    for path in paths:
        page.goto(live_server.url + path)
        assert sideways_overflow(page) <= 0, path

    page.goto(f"{live_server.url}/players/ann/")
    expected = {"fr": "Adversaire", "af": "Teenstander"}[language]
    headers = [text.strip() for text in page.locator("#record-sheet thead th").all_text_contents()]
    assert headers[0] == expected
    cells = page.locator("#record-sheet tbody tr:not(.how-row)").first.locator("td")
    for index in range(cells.count()):
        box = cells.nth(index).bounding_box()
        assert box is not None and box["x"] + box["width"] <= PHONE["width"], headers[index]
    page.screenshot(path=TEST_OUTPUT / f"layout-log-page-phone-{language}.png", full_page=True)
