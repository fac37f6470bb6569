"""The report flow in a real browser: a player reports a mistake from their own log
page, a volunteer finds it in the queue (count in the navigation) and answers "as
recorded", and the player reads the answer on their page."""

from datetime import date

import pytest
from playwright.sync_api import Page, expect

from players.services.accounts import account_create
from players.services.games import record_sheet_submit
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.web import browser_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "white stones on the 3-3 point"


def log_out(page: Page) -> None:
    # Bootstrap's script, the last thing on the page, opens the account menu: a click
    # while the page is still loading is lost, and "Log out" never shows.
    page.wait_for_load_state()
    page.click("#account-menu")  # the account menu holds "Log out"
    # Logged out before the next log-in: a page.goto() would cut the POST short.
    with page.expect_navigation():
        page.click("form[action*=logout] button")


def test_a_player_reports_a_game_a_volunteer_answers_and_the_player_reads_it(
    live_server, browser_page
):
    page, base = browser_page, live_server.url
    vera = factories.volunteer_with_password("vera", PASSWORD)
    alice = factories.player("alice", "5k", full_name="Alice Moyo")
    bob = factories.player("bob", "8k", full_name="Bob Smit")
    record_sheet_submit(user=vera, games=[factories.game(alice, bob, "B", date(2024, 3, 1))])
    recompute_pending()
    account_create(user=vera, username="alice-own", password=PASSWORD, role="reader", player=alice)

    browser_session.log_in(page, base, "alice-own", PASSWORD)
    page.click("#nav-my-page")
    page.click("#my-log a")
    page.click("a.report-link")
    page.check("input[name=kind][value=wrong_result]")
    page.fill("#id_text", "I won by 3.5 points")
    page.click("text=Send the report")
    expect(page.locator("#my-reports")).to_contain_text("Wrong result: I won by 3.5 points")
    expect(page.locator("#my-reports")).to_contain_text("awaiting a volunteer")
    log_out(page)

    browser_session.log_in(page, base, "vera", PASSWORD)
    expect(page.locator("#open-report-count")).to_have_text("1")
    page.click("#nav-reports")
    page.click("#open-reports tbody a >> nth=0")
    page.check("input[name=resolution][value=as_recorded]")
    page.fill("#id_answer", "Bob's copy of the sheet says black won; ask him at the club.")
    page.click("text=Resolve the report")
    expect(page.locator("#no-open-reports")).to_be_visible()
    expect(page.locator("#open-report-count")).to_have_count(0)
    log_out(page)

    browser_session.log_in(page, base, "alice-own", PASSWORD)
    page.click("#nav-my-page")
    expect(page.locator("#my-reports")).to_contain_text("Stands as recorded")
    expect(page.locator("#my-reports")).to_contain_text("Bob's copy of the sheet says black won")
