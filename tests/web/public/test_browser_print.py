"""The club-night sheet printed by Chromium (Playwright's page.pdf, as "Print to PDF"
does) on A4 and on Letter: the text is on the paper, the site's navigation is not."""

import io

import pytest

from ratings.engine.ranks import parse_rank
from ratings.models import CurrentRating
from tests import factories

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_the_club_night_sheet_prints_its_players_and_handicaps(live_server, browser_page, paper):
    from pypdf import PdfReader

    club = factories.club("Durban Go Club")
    player = factories.player("thandi", "3k", club=club, full_name="Thandi Nkosi")
    CurrentRating.objects.create(
        algorithm="sagc", player=player, rank=parse_rank("3k"), value=120, games=8
    )

    browser_page.goto(f"{live_server.url}/clubs/{club.pk}/sheet/")
    browser_page.emulate_media(media="print")
    pdf = browser_page.pdf(format=paper, prefer_css_page_size=True)

    pages = PdfReader(io.BytesIO(pdf)).pages
    text = " ".join(page.extract_text() for page in pages)
    assert "Durban Go Club: club night record sheet" in text
    assert "Thandi Nkosi" in text and "thandi" in text and "3k" in text
    assert "Handicap and komi (SAGC)" in text and "9 or more" in text and "6.5" in text
    assert "White (username)" in text and "Winner (W/B/jigo)" in text
    assert "Print this page" not in text  # the screen-only note
    assert "Tournaments" not in text  # no site navigation on paper
    points_wide = {"A4": 595, "Letter": 612}[paper]  # 210 mm, 8.5 in
    assert float(pages[0].mediabox.width) == pytest.approx(points_wide, abs=2)
