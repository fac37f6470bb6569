"""A volunteer's evening and a player's log page in French and in Afrikaans, the language
chosen with the switcher (by mouse, and by keyboard alone), in a real browser: the pages
are in that language (its html lang, the navigation and the switcher, which are the
core's strings: the pages' own texts are translated area by area), axe-core finds no
serious or critical violation on them, and in French, whose words run longest, they fit
a 390 px phone without scrolling sideways."""

from __future__ import annotations

import io
import re

import pytest
from playwright.sync_api import Page, expect

from notifications.models import MailProfile
from players.models import Game
from tests import factories
from tests.web import browser_session
from tests.web.browser_session import ensure_role_groups, sign_in_browser
from tests.web.test_accessibility import violations_on

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "black stones on the 4-4 point"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}

# What the core's strings read in each language.
WORDS = {
    "fr": {"name": "Français", "enter_sheet": "Saisie", "log_out": "Se déconnecter"},
    "af": {"name": "Afrikaans", "enter_sheet": "Nuwe blad", "log_out": "Meld af"},
}


@pytest.fixture
def players():
    return {
        "alice": factories.player("alice", "5k", full_name="Alice Moyo"),
        "bob": factories.player("bob", "8k", full_name="Bob Smit"),
    }


def log_in(page: Page, base: str) -> None:
    factories.volunteer_with_password("vera", PASSWORD)
    browser_session.log_in(page, base, "vera", PASSWORD)


def choose(page: Page, language: str, *, keyboard: bool) -> None:
    """Choose ``language`` with the switcher above the navigation, by a click or, from
    the top of the page, by Tab and Enter alone."""
    button = page.locator(f"#language-switcher button[lang={language}]")
    if keyboard:
        page.locator("body").focus()
        for _ in range(4):
            page.keyboard.press("Tab")
            if button.evaluate("element => element === document.activeElement"):
                break
        expect(button).to_be_focused()
        page.keyboard.press("Enter")
    else:
        button.click()
    expect(page.locator("html")).to_have_attribute("lang", language)


def assert_in_language(page: Page, language: str) -> None:
    words = WORDS[language]
    expect(page.locator("html")).to_have_attribute("lang", language)
    current = page.locator("#language-switcher [aria-current=true]")
    expect(current).to_have_text(words["name"])
    expect(current).to_have_attribute("lang", language)
    expect(page.locator("#main-nav")).to_contain_text(words["enter_sheet"])
    assert page.title().endswith(" · clubrating")


def assert_accessible(page: Page, where: str) -> None:
    violations = violations_on(page, where)
    assert violations == [], "\n".join(str(violation) for violation in violations)


def assert_fits_a_phone(page: Page, where: str) -> None:
    page.set_viewport_size(PHONE)
    page.reload()
    overflow = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, f"{where} scrolls {overflow} px sideways at 390 px"
    assert_accessible(page, f"{where} at 390 px")
    page.set_viewport_size(DESKTOP)
    page.reload()


@pytest.mark.parametrize(("language", "keyboard"), [("fr", False), ("af", True)])
def test_a_volunteers_evening_and_a_log_page_in_the_chosen_language(
    live_server, browser_page, players, language, keyboard
):
    page = browser_page
    page.set_viewport_size(DESKTOP)
    base = live_server.url
    log_in(page, base)
    expect(page.locator("html")).to_have_attribute("lang", "en")

    choose(page, language, keyboard=keyboard)
    assert_in_language(page, language)
    assert page.url == f"{base}/", "the switcher goes back to the page it was on"

    # The evening: the sheet's form through the translated navigation.
    page.locator("#main-nav").get_by_text(WORDS[language]["enter_sheet"]).click()
    page.wait_for_url(f"{base}/sheets/new/")
    assert_in_language(page, language)
    assert_accessible(page, f"the sheet form in {language}")
    if language == "fr":
        assert_fits_a_phone(page, "the sheet form in French")
    page.fill("#id_form-0-date", "2024-03-01")
    page.fill("#id_form-0-white", "alice")
    page.fill("#id_form-0-black", "bob")
    page.select_option("#id_form-0-winner", "W")
    page.click("#sheet-form button[type=submit]")
    page.wait_for_url(re.compile(r"/sheets/\d+/$"))
    assert Game.objects.count() == 1
    assert_in_language(page, language)
    assert_accessible(page, f"the saved sheet in {language}")

    # The log page of a player of the evening.
    page.goto(f"{base}/players/alice/")
    assert_in_language(page, language)
    assert page.title() == "Alice Moyo · clubrating"
    expect(page.locator("table tbody tr:not(.how-row)")).to_have_count(1)
    assert_accessible(page, f"the log page in {language}")
    if language == "fr":
        assert_fits_a_phone(page, "the log page in French")

    # Kept on the account: a new session of the same account reads the same language.
    page.context.clear_cookies()
    page.goto(f"{base}/accounts/login/")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.fill("#id_username", "vera")
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{base}/")
    assert_in_language(page, language)


def test_a_language_chosen_on_the_log_in_page_stays_after_logging_in(live_server, browser_page):
    ensure_role_groups()
    vera = factories.volunteer_with_password("vera", PASSWORD)
    MailProfile.objects.create(user=vera, language="af")
    page, base = browser_page, live_server.url
    page.goto(f"{base}/accounts/login/")
    choose(page, "fr", keyboard=False)

    page.fill("#id_username", "vera")
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{base}/")

    assert_in_language(page, "fr")
    assert MailProfile.objects.get(user=vera).language == "fr"


@pytest.mark.parametrize("language", ["fr", "af"])
def test_at_1366_px_the_committees_navigation_stays_on_one_line_in_each_language(
    live_server, browser_page, language
):
    ensure_role_groups()  # a transactional test before this one flushed them
    account = factories.committee_member("connie-with-a-long-username")
    page = browser_page
    page.set_viewport_size(DESKTOP)
    sign_in_browser(page, account, live_server.url)
    page.goto(f"{live_server.url}/committee/recompute/")
    choose(page, language, keyboard=False)

    tops = page.locator("#main-nav .nav-item").evaluate_all(
        "items => items.map(item => Math.round(item.getBoundingClientRect().top))"
    )
    heights = page.locator("#main-nav .nav-link").evaluate_all(
        "links => links.map(link => Math.round(link.getBoundingClientRect().height))"
    )
    assert len(tops) >= 9
    assert max(tops) - min(tops) <= 1, "every link on the first line"
    assert max(heights) == min(heights), "no label broken over two lines"
    for width in (1366, 1200, 390):
        page.set_viewport_size({"width": width, "height": 800})
        overflow = page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{overflow} px sideways at {width} px"


def test_the_switcher_is_not_printed(live_server, browser_page):
    from pypdf import PdfReader

    club = factories.club("Durban Go Club")
    page = browser_page
    page.goto(f"{live_server.url}/clubs/{club.pk}/sheet/")
    choose(page, "af", keyboard=False)
    expect(page.locator("#language-switcher")).to_be_visible()
    page.emulate_media(media="print")

    text = " ".join(sheet.extract_text() for sheet in PdfReader(io.BytesIO(page.pdf())).pages)

    assert "Durban Go Club" in text
    assert "Français" not in text and "English" not in text
