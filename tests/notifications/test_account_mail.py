"""Mail about accounts: the invitation, "forgot your password?", confirming a new
address, and the notice to the old address when the address or password changes. The
links work, once, and expire after INVITATION_DAYS."""

from __future__ import annotations

import re
import time
from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.core import signing

from players.services.accounts import Role, account_invite
from tests import factories

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"
NEW = {"new_password1": PASSWORD, "new_password2": PASSWORD}


@pytest.fixture
def days_later(monkeypatch, settings):
    """Make the signed links read as if ``INVITATION_DAYS`` days and an hour passed."""

    def travel():
        later = time.time() + settings.INVITATION_DAYS * 86400 + 3600
        monkeypatch.setattr(signing, "time", SimpleNamespace(time=lambda: later))

    return travel


def link(mail, path: str) -> str:
    """The site-relative path of the link to ``path`` in the mail's text."""
    return re.search(rf"http://[^/\s]+({path}\S*/)", mail.body).group(1)


def test_an_invitation_reaches_its_address_and_its_link_works_once(client, connie, delivered):
    account_invite(user=connie, username="vic", email="vic@example.org", role=Role.VOLUNTEER)
    (mail,) = delivered()
    assert mail.to == ["vic@example.org"]
    assert mail.subject == "Your account on the Go club ratings"
    assert "vic (Volunteer)" in mail.body and "List-Unsubscribe" not in mail.extra_headers

    path = link(mail, "/accounts/invitation/")
    assert client.post(path, NEW).status_code == 302
    vic = get_user_model().objects.get(username="vic")
    assert vic.check_password(PASSWORD) and vic.email == "vic@example.org"

    again = client.get(path)
    assert again.status_code == 404 and 'id="bad-link"' in again.content.decode()


def test_an_invitation_expires_after_the_days_it_says(
    client, connie, delivered, settings, days_later
):
    account_invite(user=connie, username="vic", email="vic@example.org", role=Role.VOLUNTEER)
    path = link(delivered()[0], "/accounts/invitation/")
    assert f"{settings.INVITATION_DAYS} days" in delivered()[0].body

    days_later()
    response = client.post(path, NEW)

    assert response.status_code == 404
    assert not get_user_model().objects.get(username="vic").has_usable_password()


def test_a_forged_invitation_is_refused(client, connie):
    response = client.get("/accounts/invitation/not-a-signed-token/")

    assert response.status_code == 404


def test_forgot_your_password_mails_a_link_to_the_confirmed_address(client, delivered):
    vera = factories.volunteer_with_password("vera", "forgotten one")
    vera.email = "vera@example.org"
    vera.save()

    response = client.post("/accounts/password_reset/", {"email": "VERA@example.org"})
    assert response["Location"] == "/accounts/password_reset/done/"
    (mail,) = delivered()
    assert mail.to == ["vera@example.org"]
    assert mail.subject == "A new password for your account on the Go club ratings"

    path = link(mail, "/accounts/reset/")
    form = client.get(path, follow=True)  # Django moves the token into the session
    done = client.post(form.redirect_chain[-1][0], NEW)
    assert done["Location"] == "/accounts/reset/done/"
    vera.refresh_from_db()
    assert vera.check_password(PASSWORD)
    notice = delivered()[-1]
    assert notice.to == ["vera@example.org"]
    assert "The password of your account was changed." in notice.body


def test_forgot_your_password_sends_nothing_to_an_unknown_or_unconfirmed_address(client, delivered):
    vera = factories.volunteer("vera")
    client.force_login(vera)
    client.post("/me/mail/", {"email": "vera@example.org"})  # typed, never confirmed
    client.logout()
    sent_before = len(delivered())

    response = client.post("/accounts/password_reset/", {"email": "vera@example.org"})

    assert response.status_code == 302, "no hint of whether the address is known"
    assert len(delivered()) == sent_before == 1


def test_a_new_address_is_used_once_confirmed_and_the_old_one_is_told(client, delivered):
    vera = factories.volunteer("vera")
    vera.email = "old@example.org"
    vera.save()
    client.force_login(vera)

    client.post("/me/mail/", {"email": "new@example.org", "wanted": ["open_reports"]})
    (confirm,) = delivered()
    assert confirm.to == ["new@example.org"]
    vera.refresh_from_db()
    assert vera.email == "old@example.org", "not used before it is confirmed"

    path = link(confirm, "/mail/confirm/")
    assert client.get(path).status_code == 200
    assert client.post(path).status_code == 302
    vera.refresh_from_db()
    assert vera.email == "new@example.org"
    notice = delivered()[-1]
    assert notice.to == ["old@example.org"]
    assert "now new@example.org" in notice.body


def test_a_confirmation_link_expires(client, delivered, days_later):
    vera = factories.volunteer("vera")
    client.force_login(vera)
    client.post("/me/mail/", {"email": "new@example.org"})
    path = link(delivered()[0], "/mail/confirm/")

    days_later()
    assert client.post(path).status_code == 404

    vera.refresh_from_db()
    assert vera.email == ""


def test_changing_ones_password_tells_the_address(client, delivered):
    vera = factories.volunteer_with_password("vera", "an old password here")
    vera.email = "vera@example.org"
    vera.save()
    client.force_login(vera)

    client.post("/accounts/password_change/", {"old_password": "an old password here", **NEW})

    (notice,) = delivered()
    assert notice.to == ["vera@example.org"]
    assert notice.subject == "The password of your account on 127.0.0.1:8000 changed"
