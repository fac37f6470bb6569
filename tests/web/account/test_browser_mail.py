"""In a real browser: a player who forgot their password asks for a link on the log-in
page, follows it from the mail and logs in with the new password; a committee member
invites a volunteer, who follows the invitation, chooses a password and logs in."""

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tests import factories
from tests.conftest import TEST_OUTPUT
from tests.web import browser_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "three stones in the corner"
NEW_PASSWORD = "a ladder that works for white"


def path_in(mail, prefix: str) -> str:
    return re.search(rf"http://[^/\s]+({prefix}\S*/)", mail.body).group(1)


def test_a_forgotten_password_is_reset_through_the_mailed_link(
    live_server, browser_page, mailoutbox
):
    page = browser_page
    base = live_server.url
    vera = factories.volunteer_with_password("vera", PASSWORD)
    vera.email = "vera@example.org"
    vera.save()

    page.goto(f"{base}/accounts/login/")
    page.click("#forgot-password")
    page.fill("#id_email", "vera@example.org")
    page.get_by_role("button", name="Mail me a link").click()
    expect(page.locator("#reset-sent")).to_contain_text("Check your mail")
    (mail,) = mailoutbox

    page.goto(base + path_in(mail, "/accounts/reset/"))
    page.fill("#id_new_password1", NEW_PASSWORD)
    page.fill("#id_new_password2", NEW_PASSWORD)
    page.get_by_role("button", name="Save my password").click()
    expect(page.locator("#reset-complete")).to_contain_text("Password saved")
    page.screenshot(path=TEST_OUTPUT / "password-reset-complete.png", full_page=True)

    browser_session.log_in(page, base, "vera", NEW_PASSWORD)
    expect(page.locator("#signed-in-as")).to_have_text("vera")
    assert mailoutbox[-1].subject.startswith("The password of your account")


def test_an_invited_volunteer_chooses_a_password_and_logs_in(live_server, browser_page, mailoutbox):
    page = browser_page
    base = live_server.url
    factories.committee_with_password("connie", PASSWORD)

    browser_session.log_in(page, base, "connie", PASSWORD)
    page.goto(f"{base}/committee/accounts/new/")
    page.fill("#id_username", "vic")
    page.check("input[name=role][value=volunteer]")
    page.fill("#id_email", "vic@example.org")
    page.get_by_role("button", name="Create the account and send the invitation").click()
    expect(page.locator(".alert-success")).to_contain_text("on its way to vic@example.org")
    page.click("#account-menu")
    page.get_by_role("button", name="Log out").click()
    (mail,) = mailoutbox
    assert mail.to == ["vic@example.org"]

    page.goto(base + path_in(mail, "/accounts/invitation/"))
    expect(page.locator("main")).to_contain_text("Your username is vic")
    page.fill("#id_new_password1", NEW_PASSWORD)
    page.fill("#id_new_password2", NEW_PASSWORD)
    page.get_by_role("button", name="Save my password").click()
    expect(page.locator(".alert-success")).to_contain_text("log in as vic")
    page.screenshot(path=TEST_OUTPUT / "invitation-accepted.png", full_page=True)

    browser_session.log_in(page, base, "vic", NEW_PASSWORD)
    expect(page.locator("#signed-in-as")).to_have_text("vic")
    assert get_user_model().objects.get(username="vic").email == "vic@example.org"
