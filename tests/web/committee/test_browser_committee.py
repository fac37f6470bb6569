"""A committee member in a real browser: log in, paste a resync list for two players, read
the preview, apply it, and find the adjustment rows on the batch page and on a player's
log page (the player as their own opponent)."""

import re
from datetime import date

import pytest
from playwright.sync_api import expect

from players.models import Adjustment, ResyncBatch
from players.services.games import record_sheet_submit
from tests import factories
from tests.conftest import TEST_OUTPUT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "three stones in the corner"


@pytest.fixture
def club():
    thandi = factories.player("thandi", "5k", full_name="Thandi Nkosi")
    pieter = factories.player("pieter", "12k", full_name="Pieter Botha")
    factories.player("lerato", "9k", full_name="Lerato Mokoena")
    record_sheet_submit(
        user=factories.volunteer_with_password("vera", PASSWORD),
        games=[factories.game(thandi, pieter, "W", date(2024, 3, 1), handicap=7)],
    )
    return thandi, pieter


def test_it_resyncs_two_players_and_shows_the_adjustment_rows(live_server, browser_page, club):
    page = browser_page
    base = live_server.url
    factories.committee_with_password("connie", PASSWORD)

    page.goto(f"{base}/committee/resync/")
    page.wait_for_url(re.compile(r"/accounts/login/\?next="))
    page.fill("#id_username", "connie")
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{base}/committee/resync/")

    page.fill("#id_list_text", "name;rank\nthandi;4k\nPieter Botha;11k\nlerato;9k\nNobody;3k")
    page.fill("#id_effective_date", "2024-06-01")
    page.fill("#id_note", "National list of June")
    page.get_by_role("button", name="Preview", exact=True).click()
    preview = page.locator("#resync-preview tbody tr")
    expect(preview).to_have_count(4)
    expect(page.locator('#resync-preview tr[data-outcome="changed"]')).to_have_count(2)
    expect(page.locator('#resync-preview tr[data-outcome="unchanged"]')).to_contain_text("lerato")
    expect(page.locator('#resync-preview tr[data-outcome="unknown"]')).to_contain_text("Nobody")
    page.screenshot(path=TEST_OUTPUT / "committee-resync-preview.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=TEST_OUTPUT / "committee-resync-preview-phone.png", full_page=True)
    assert not Adjustment.objects.exists(), "the preview stores nothing"

    # On a phone the apply form is far below the top: the refusal opens at its error.
    page.get_by_role("button", name="Apply 2 changes").click()
    error = page.locator(".invalid-feedback, .text-danger").first
    expect(error).to_contain_text("Tick this box to apply the changes.")
    expect(error).to_be_in_viewport()
    page.set_viewport_size({"width": 1280, "height": 900})
    page.check("#id_confirm")
    page.get_by_role("button", name="Apply 2 changes").click()
    page.wait_for_url(re.compile(r"/committee/resync/\d+/$"))  # the batch exists once it opens
    batch = ResyncBatch.objects.get()
    assert page.url == f"{base}/committee/resync/{batch.pk}/"
    expect(page.locator(".alert-success")).to_contain_text(f"Resync #{batch.pk} applied")
    rows = page.locator("#adjustments tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("pieter")
    expect(rows.nth(0)).to_contain_text("11k")
    expect(rows.nth(1)).to_contain_text("thandi")
    expect(rows.nth(1)).to_contain_text("4k")
    page.screenshot(path=TEST_OUTPUT / "committee-resync-batch.png", full_page=True)

    page.goto(f"{base}/players/thandi/")
    adjustment_row = page.locator("#record-sheet tbody tr:not(.how-row)", has_text="adjustment")
    expect(adjustment_row).to_have_count(1)
    expect(adjustment_row).to_contain_text("Thandi Nkosi")  # her own opponent
    expect(adjustment_row).to_contain_text("2024-06-01")
    expect(adjustment_row).to_contain_text("4k")
