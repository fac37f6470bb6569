"""A club's page on a phone (390 px) with its members' long names, in French, whose
"Résultat" and "Handicap" headers are wider than English's: its recent games scroll
inside their own region, the page never sideways (found with the demo's visitors)."""

from datetime import date

import pytest

from players.services.games import record_sheet_submit
from tests import factories
from tests.web.browser_session import ensure_role_groups
from tests.web.test_layout import PHONE, sideways_overflow

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _role_groups(transactional_db):
    ensure_role_groups()


@pytest.mark.parametrize("language", ["fr", "af"])
def test_on_a_phone_a_clubs_recent_games_of_long_names_stay_inside_the_screen(
    live_server, browser_page, vera, language
):
    club = factories.club("Cape Town Go Club")
    visitor = factories.player("visitor", "5k", full_name="Visiteur Étranger Longuenom")
    member = factories.player("member", "7k", full_name="Kagiso du Plessis-Mokoena", club=club)
    record_sheet_submit(
        user=vera,
        club=club,
        games=[factories.game(visitor, member, "B", date(2024, 4, 6), handicap=2)],
    )
    page = browser_page
    page.set_extra_http_headers({"Accept-Language": language})
    page.set_viewport_size(PHONE)

    page.goto(f"{live_server.url}/clubs/{club.pk}/")

    assert page.locator("#club-recent-games tbody tr").count() == 1
    assert sideways_overflow(page) <= 0
