"""Signing a browser in without the login form (for browser tests about other things)."""

from django.conf import settings
from django.test import Client


def sign_in_browser(page, account, base_url: str) -> None:
    """The browser takes over a session made by Django's test client; None signs out."""
    page.context.clear_cookies()
    if account is None:
        return
    client = Client()
    client.force_login(account)
    name = settings.SESSION_COOKIE_NAME
    page.context.add_cookies([{"name": name, "value": client.cookies[name].value, "url": base_url}])


def log_in(page, base_url: str, username: str, password: str) -> None:
    """Logs in through the login form, as a person does, and waits for the home page that
    a login without ``next`` leads to."""
    page.goto(f"{base_url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{base_url}/")


def ensure_role_groups() -> None:
    """The role groups, which a data migration makes: a transactional test before this one
    flushed them, and the factories add accounts only to groups that exist."""
    from django.contrib.auth.models import Group

    from players.roles import COMMITTEE, VOLUNTEERS

    for name in (VOLUNTEERS, COMMITTEE):
        Group.objects.get_or_create(name=name)
