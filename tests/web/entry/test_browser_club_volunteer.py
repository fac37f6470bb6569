"""A club volunteer's evening in a real browser: enter their club's sheet with a visitor
of no club, correct a game of their club, and be refused another club's game with a
page that names the club and whom to ask."""

import re
from datetime import date

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from players.models import Game
from players.services.games import record_sheet_submit
from tests import factories
from tests.conftest import TEST_OUTPUT
from tests.web import browser_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "black stones on the 4-4 point"


def test_a_club_volunteers_evening(live_server, browser_page):
    page, base = browser_page, live_server.url
    cape, pretoria = factories.club("Cape Town Go Club"), factories.club("Pretoria Go Club")
    factories.player("alice", "5k", full_name="Alice Moyo", club=cape)
    factories.player("bob", "8k", full_name="Bob Smit", club=cape)
    factories.player("vic", "9k", full_name="Vic Visitor")  # of no club
    pia = factories.player("pia", "3k", full_name="Pia Kruger", club=pretoria)
    pieter = factories.player("pieter", "4k", full_name="Pieter Botha", club=pretoria)
    accounts = get_user_model().objects
    cvol = accounts.create_user("cvol", password=PASSWORD)
    factories.club_role(cvol, "volunteers", cape)
    factories.club_role(accounts.create_user("ccom", password=PASSWORD), "committee", cape)
    pvol = factories.club_role(accounts.create_user("pvol"), "volunteers", pretoria)
    pretoria_game = record_sheet_submit(
        user=pvol, games=[factories.game(pia, pieter, "W", date(2024, 3, 1))], club=pretoria
    ).games[0]
    browser_session.log_in(page, base, "cvol", PASSWORD)

    page.click("text=Enter sheet")
    page.wait_for_url(f"{base}/sheets/new/")
    # Their one club is the sheet's already.
    expect(page.locator("#id_sheet-club option:checked")).to_have_text("Cape Town Go Club")
    for index, (white, black, winner) in enumerate([("alice", "bob", "W"), ("vic", "alice", "B")]):
        prefix = f"#id_form-{index}-"
        page.fill(prefix + "date", "2024-03-06")
        page.fill(prefix + "white", white)
        page.fill(prefix + "black", black)
        page.select_option(prefix + "winner", winner)
    page.click("text=Save the sheet")
    page.wait_for_url(re.compile(r"/sheets/\d+/$"))
    expect(page.locator(".alert-success")).to_contain_text("saved: 2 games")
    visitor_game = Game.objects.get(white__username="vic")
    assert visitor_game.club == cape

    page.goto(f"{base}/games/{visitor_game.pk}/")
    page.click("text=Correct or back-date")
    page.select_option("#id_winner", "W")
    page.click("text=Save the correction")
    page.wait_for_url(f"{base}/games/{visitor_game.pk}/")
    expect(page.locator(".alert-success")).to_contain_text("corrected")
    visitor_game.refresh_from_db()
    assert visitor_game.winner == "W"

    # Pretoria's game: readable, but not theirs to change.
    page.goto(f"{base}/games/{pretoria_game.pk}/edit/")
    refusal = page.locator("#error-page")
    expect(refusal).to_have_attribute("data-status", "403")
    expect(refusal).to_contain_text(f"Game {pretoria_game.pk} is Pretoria Go Club's")
    expect(refusal).to_contain_text("the federation's committee")
    page.screenshot(path=TEST_OUTPUT / "club_volunteer_refused.png", full_page=True)
    pretoria_game.refresh_from_db()
    assert pretoria_game.version == 1
