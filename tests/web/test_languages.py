"""Choosing the language (issue 30): the browser's Accept-Language, the switcher of every
page (Django's set_language, no JavaScript), the account's language (MailProfile.language)
applied at log-in and on each request, and mail written in its reader's language."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import translation

from clubrating.languages import CHOSEN_COOKIE_NAME
from notifications import services
from notifications.models import MailProfile, OutgoingMail

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _language_back():
    """The test client's requests leave their language active in this thread."""
    yield
    translation.activate(settings.LANGUAGE_CODE)


PASSWORD = "black stones on the 4-4 point"


def page_html(client, url: str, **headers) -> str:
    """The decoded body of GET ``url``, once it answered 200."""
    response = client.get(url, **headers)
    assert response.status_code == 200, f"GET {url} answered {response.status_code}"
    return response.content.decode()


def html_lang(html: str) -> str:
    return re.search(r'<html lang="([^"]+)"', html).group(1)


def account(username: str = "pat", language: str = ""):
    user = get_user_model().objects.create_user(username, password=PASSWORD)
    if language:
        MailProfile.objects.create(user=user, language=language)
    return user


def log_in(client, username: str = "pat", **headers) -> None:
    response = client.post(
        "/accounts/login/", {"username": username, "password": PASSWORD}, **headers
    )
    assert response.status_code == 302, response.content.decode()[:500]


@pytest.mark.parametrize(
    ("accept", "lang", "ratings"),
    [
        ("fr-FR,fr;q=0.9,en;q=0.5", "fr", "Classements"),
        ("af-ZA,af;q=0.9", "af", "Graderings"),
        ("de-DE,de;q=0.9", "en", "Ratings"),
    ],
)
def test_the_browsers_accept_language_picks_the_pages_language(client, accept, lang, ratings):
    html = page_html(client, "/tournaments/", HTTP_ACCEPT_LANGUAGE=accept)

    assert html_lang(html) == lang
    assert f">{ratings}</a>" in html


def test_every_page_has_the_switcher_each_language_named_in_itself_the_current_one_shown(
    client,
):
    html = page_html(client, "/tournaments/?page=1", HTTP_ACCEPT_LANGUAGE="fr")

    switcher = html[html.index('id="language-switcher"') : html.index("</form>")]
    assert 'action="/i18n/setlang/"' in switcher
    assert 'name="next" value="/tournaments/?page=1"' in switcher
    assert '<span class="current-language" lang="fr" aria-current="true">Français</span>' in (
        switcher
    )
    buttons = re.findall(
        r'<button type="submit"[^>]*value="(\w+)" lang="\1">([^<]+)</button>', switcher
    )
    assert buttons == [("en", "English"), ("af", "Afrikaans")]


def test_the_switcher_sets_the_language_and_goes_back_to_the_page(client):
    response = client.post("/i18n/setlang/", {"language": "af", "next": "/tournaments/"})

    assert response.status_code == 302
    assert response["Location"] == "/tournaments/"
    html = page_html(client, "/tournaments/", HTTP_ACCEPT_LANGUAGE="fr")
    assert html_lang(html) == "af"


def test_a_signed_in_persons_switch_is_kept_on_their_account_and_follows_them_elsewhere(client):
    pat = account()
    log_in(client)

    client.post("/i18n/setlang/", {"language": "fr", "next": "/"})

    assert MailProfile.objects.get(user=pat).language == "fr"
    # Another browser, which prefers English and never used the switcher.
    other = client.__class__()
    log_in(other, HTTP_ACCEPT_LANGUAGE="en")
    html = page_html(other, "/tournaments/", HTTP_ACCEPT_LANGUAGE="en")
    assert html_lang(html) == "fr"
    assert "Se déconnecter" in html


def test_the_accounts_language_comes_before_the_browsers(client):
    account(language="af")

    log_in(client, HTTP_ACCEPT_LANGUAGE="fr")
    html = page_html(client, "/", HTTP_ACCEPT_LANGUAGE="fr")

    assert html_lang(html) == "af"


def test_a_language_chosen_before_logging_in_becomes_the_accounts(client):
    pat = account()
    client.post("/i18n/setlang/", {"language": "af", "next": "/"})

    log_in(client)

    assert MailProfile.objects.get(user=pat).language == "af"


def test_a_language_chosen_before_logging_in_wins_over_the_accounts_and_is_kept_on_it(client):
    pat = account(language="fr")
    client.post("/i18n/setlang/", {"language": "af", "next": "/"})

    log_in(client, HTTP_ACCEPT_LANGUAGE="fr")
    html = page_html(client, "/", HTTP_ACCEPT_LANGUAGE="fr")

    assert html_lang(html) == "af"
    assert MailProfile.objects.get(user=pat).language == "af"
    assert client.cookies[CHOSEN_COOKIE_NAME].value == "", "taken by this log-in only"


def test_the_language_the_last_person_left_on_a_shared_laptop_changes_no_ones_account(client):
    account("pat", language="fr")
    sam = account("sam", language="af")
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    log_in(client, "pat")  # pat chose English for this visit: their account's now
    client.post("/accounts/logout/")  # the browser keeps English

    log_in(client, "sam")
    html = page_html(client, "/")

    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert html_lang(html) == "af"
    assert MailProfile.objects.get(user=sam).language == "af"


def test_after_logging_out_the_browser_keeps_the_language_it_was_reading_in(client):
    account(language="fr")
    log_in(client)

    response = client.post("/accounts/logout/", follow=True, HTTP_ACCEPT_LANGUAGE="en")

    html = response.content.decode()
    assert html_lang(html) == "fr"
    assert "Vous êtes déconnecté." in html


def test_the_settings_page_sets_the_accounts_language(client):
    pat = account()
    log_in(client)

    response = client.post("/me/mail/", {"language": "af", "email": "", "wanted": []}, follow=True)

    assert MailProfile.objects.get(user=pat).language == "af"
    html = response.content.decode()
    assert html_lang(html) == "af"
    assert "Jou instellings is gestoor." in html
    assert '<option value="af" selected>Afrikaans</option>' in html


def test_a_language_the_site_does_not_ship_is_refused_on_the_settings_page(client):
    pat = account(language="fr")
    log_in(client)

    response = client.post("/me/mail/", {"language": "de", "email": "", "wanted": []})

    assert response.status_code == 200
    assert 'id="error_1_id_language"' in response.content.decode()
    assert MailProfile.objects.get(user=pat).language == "fr"


@pytest.mark.parametrize(
    ("language", "subject", "greeting"),
    [
        ("af", "Bevestig jou adres vir", "Hallo pat,"),
        ("fr", "Confirmez votre adresse pour", "Bonjour pat,"),
        ("", "Confirm your address for", "Hello pat,"),
    ],
)
def test_a_mail_goes_out_in_its_recipients_language(language, subject, greeting):
    pat = account(language=language)

    services.email_change_request(user=pat, email="pat@example.org")

    mail = OutgoingMail.objects.get(to="pat@example.org")
    assert mail.subject.startswith(subject)
    assert mail.text.startswith(greeting)
    assert f'<html lang="{language or settings.LANGUAGE_CODE}">' in mail.html


def test_the_refusal_of_a_page_says_whom_it_is_for_and_what_to_do_in_the_readers_language(
    client,
):
    account()
    log_in(client, HTTP_ACCEPT_LANGUAGE="fr")

    response = client.get("/committee/accounts/", HTTP_ACCEPT_LANGUAGE="fr")

    assert response.status_code == 403
    # French's space before a colon (a non-breaking one) read as a space
    html = response.content.decode().replace("\N{NO-BREAK SPACE}", " ")
    assert "Cette page est réservée aux membres du comité." in html
    assert "Que faire :" in html
    assert "vous êtes peut-être connecté sous le compte de quelqu'un d'autre (pat)" in html


def test_a_missing_page_says_so_in_the_readers_language(client):
    response = client.get("/players/nobody-of-that-name/", HTTP_ACCEPT_LANGUAGE="af")

    assert response.status_code == 404
    html = response.content.decode()
    assert html_lang(html) == "af"
    assert "Daar is nie so 'n bladsy nie" in html
    assert '<a href="/">die graderingslys</a>' in html


def test_a_visitors_switch_needs_no_token_and_their_pages_carry_none():
    visitor = Client(enforce_csrf_checks=True)

    html = page_html(visitor, "/tournaments/")
    response = visitor.post("/i18n/setlang/", {"language": "fr", "next": "/tournaments/"})

    assert "csrfmiddlewaretoken" not in html
    assert response.status_code == 302
    assert html_lang(page_html(visitor, "/tournaments/")) == "fr"


def test_a_signed_in_persons_switch_without_its_token_is_refused_and_changes_nothing():
    pat = account(language="af")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(pat)

    response = browser.post("/i18n/setlang/", {"language": "fr", "next": "/"})

    assert response.status_code == 403
    assert MailProfile.objects.get(user=pat).language == "af"
    html = page_html(browser, "/tournaments/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    response = browser.post(
        "/i18n/setlang/", {"language": "fr", "next": "/", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302
    assert MailProfile.objects.get(user=pat).language == "fr"
