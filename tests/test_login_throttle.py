"""Log-in lockout (django-axes, clubrating/login_lockout.py): repeated failures lock
the pair of username and client address, never the whole site; the client address is
read behind the configured number of proxies; usernames are compared normalised; a
link to choose a new password lifts the lock; Redis being down changes
nothing."""

import re

import pytest
from axes.models import AccessAttempt
from django.core.cache.backends.base import BaseCache
from django.urls import reverse

from tests import factories

pytestmark = pytest.mark.django_db

PASSWORD = "right-password"
PROXY = "10.0.0.2"  # the TLS proxy: every request reaches the site from it


@pytest.fixture
def mallory(django_user_model):
    return django_user_model.objects.create_user("mallory", password=PASSWORD)


@pytest.fixture
def limit_of_five(settings):
    settings.AXES_FAILURE_LIMIT = 5


def log_in(client, password, username="mallory", path=None, client_address=None):
    extra = {}
    if client_address is not None:
        extra = {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": client_address}
    return client.post(
        path or reverse("login"), {"username": username, "password": password}, **extra
    )


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_it_refuses_even_the_right_password_after_five_failures(client, mallory, limit_of_five):
    for _ in range(4):
        assert log_in(client, "guess").status_code == 200

    assert log_in(client, "guess").status_code == 429
    response = log_in(client, PASSWORD)

    assert response.status_code == 429
    html = response.content.decode()
    assert "Too many failed log-ins" in html
    assert "link to choose a new password" in html
    assert 'class="navbar-brand"' in html  # the site's layout, with the login form
    assert 'name="username"' in html
    assert not logged_in(client)


def test_a_successful_login_clears_the_failures(client, mallory, limit_of_five):
    for _ in range(4):
        log_in(client, "guess")
    assert log_in(client, PASSWORD).status_code == 302
    client.post(reverse("logout"))
    for _ in range(4):
        log_in(client, "guess")
    assert log_in(client, PASSWORD).status_code == 302


def test_the_admin_login_is_locked_too(client, mallory, settings):
    settings.AXES_FAILURE_LIMIT = 2
    for _ in range(2):
        log_in(client, "guess", path="/admin/login/")

    response = log_in(client, PASSWORD, path="/admin/login/")

    assert response.status_code == 429
    assert not logged_in(client)


def test_failures_behind_the_proxy_lock_only_that_user_from_that_address(
    client, mallory, limit_of_five, settings, django_user_model
):
    settings.TRUSTED_PROXY_COUNT = 1
    django_user_model.objects.create_user("connie", password=PASSWORD)
    # Twenty failures for assorted names from one visitor, all through the one proxy.
    for attempt in range(20):
        log_in(client, "guess", username=f"user{attempt % 4}", client_address="203.0.113.5")
    for _ in range(5):
        log_in(client, "guess", client_address="203.0.113.5")
    assert log_in(client, PASSWORD, client_address="203.0.113.5").status_code == 429

    # Another user behind the same proxy, and mallory herself from elsewhere, log in.
    assert log_in(client, PASSWORD, "connie", client_address="198.51.100.7").status_code == 302
    client.post(reverse("logout"))
    assert log_in(client, PASSWORD, client_address="198.51.100.8").status_code == 302


def test_addresses_the_client_adds_to_x_forwarded_for_do_not_escape_the_lock(
    client, mallory, limit_of_five, settings
):
    settings.TRUSTED_PROXY_COUNT = 1
    for attempt in range(5):
        log_in(client, "guess", client_address=f"192.0.2.{attempt}, 203.0.113.5")

    response = log_in(client, PASSWORD, client_address="192.0.2.99, 203.0.113.5")

    assert response.status_code == 429


def test_a_full_width_or_capitalised_username_is_the_same_lock(
    client, limit_of_five, django_user_model
):
    django_user_model.objects.create_user("volunteer", password=PASSWORD)
    for spelling in ("volunteer", "VOLUNTEER", "Volunteer", "ｖｏｌｕｎｔｅｅｒ", "volunteer"):
        log_in(client, "guess", username=spelling)

    response = log_in(client, PASSWORD, username="ｖｏｌｕｎｔｅｅｒ")

    assert response.status_code == 429
    assert not logged_in(client)


def test_a_link_from_the_committee_to_choose_a_password_lifts_the_lock(
    client, mallory, limit_of_five, settings, delivered
):
    settings.TRUSTED_PROXY_COUNT = 1
    for address in ("203.0.113.5", "203.0.113.6"):
        for _ in range(5):
            log_in(client, "guess", client_address=address)
    connie = factories.committee_member()
    client.force_login(connie)

    response = client.post(
        f"/committee/accounts/{mallory.pk}/password/", {"email": "mallory@example.org"}
    )
    assert response.status_code == 302
    client.post(reverse("logout"))
    link = re.search(r"http://\S+(/accounts/invitation/\S+/)", delivered()[0].body).group(1)
    new_password = {
        "new_password1": "a-new-chosen-password",
        "new_password2": "a-new-chosen-password",
    }
    assert client.post(link, new_password).status_code == 302

    for address in ("203.0.113.5", "203.0.113.6"):
        response = log_in(client, "a-new-chosen-password", client_address=address)
        assert response.status_code == 302
        client.post(reverse("logout"))


def test_odd_usernames_are_refused_or_counted_never_a_server_error(client, mallory, limit_of_five):
    for username in ("mal\x00lory", "m" * 300, "", "ｍａｌｌｏｒｙ\u0301", "<script>"):
        assert log_in(client, "guess", username=username).status_code in (200, 429)

    assert log_in(client, PASSWORD).status_code == 302


class UnreachableCache(BaseCache):
    """A cache whose server is down: every call raises, as RedisCache does then."""

    def __init__(self, location, params):
        super().__init__(params)

    def _down(self, *args, **kwargs):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    add = get = set = touch = delete = clear = get_many = set_many = delete_many = _down
    incr = decr = has_key = _down


def test_logins_keep_working_and_locking_while_the_cache_is_down(
    client, mallory, limit_of_five, settings
):
    settings.CACHES = {"default": {"BACKEND": f"{__name__}.UnreachableCache"}}

    assert log_in(client, PASSWORD).status_code == 302
    client.post(reverse("logout"))
    for _ in range(5):
        assert log_in(client, "guess").status_code in (200, 429)
    assert log_in(client, PASSWORD).status_code == 429


# --- issue 25, items 11 and 12 --------------------------------------------------------


@pytest.fixture
def behind_the_proxy(settings):
    settings.TRUSTED_PROXY_COUNT = 1


def test_a_locked_out_client_posting_on_grows_no_row_and_keeps_its_cool_off(
    client, mallory, limit_of_five
):
    junk = "x" * 1000
    for _ in range(5):
        client.post(reverse("login"), {"username": "mallory", "password": "g", "junk": junk})
    attempt = AccessAttempt.objects.get()
    locked_at = attempt.attempt_time

    for _ in range(30):
        response = client.post(
            reverse("login"), {"username": "mallory", "password": "g", "junk": junk}
        )
        assert response.status_code == 429

    attempt = AccessAttempt.objects.get()
    # axes' separators between the five failures, and nothing the client sent
    assert "x" not in attempt.post_data and len(attempt.post_data) < 100
    assert len(attempt.get_data) < 100
    assert attempt.failures_since_start == 5
    assert attempt.attempt_time == locked_at


def test_guesses_spread_over_addresses_lock_the_account_at_the_account_limit(
    client, mallory, limit_of_five, behind_the_proxy, settings
):
    settings.LOGIN_ACCOUNT_FAILURE_LIMIT = 20
    for n in range(19):
        assert log_in(client, "guess", client_address=f"198.51.100.{n}").status_code == 200
    assert log_in(client, "guess", client_address="198.51.100.19").status_code == 429

    response = log_in(client, PASSWORD, client_address="198.51.100.200")

    assert response.status_code == 429
    assert "Too many failed log-ins for this username." in response.content.decode()
    assert not logged_in(client)


def test_the_account_limit_leaves_other_accounts_alone(
    client, mallory, limit_of_five, behind_the_proxy, settings, django_user_model
):
    settings.LOGIN_ACCOUNT_FAILURE_LIMIT = 20
    django_user_model.objects.create_user("vera", password=PASSWORD)
    for n in range(20):
        log_in(client, "guess", client_address=f"198.51.100.{n}")

    assert (
        log_in(client, PASSWORD, username="vera", client_address="198.51.100.1").status_code == 302
    )


def test_guesses_from_one_ipv6_network_are_one_address(
    client, mallory, limit_of_five, behind_the_proxy
):
    for n in range(1, 6):
        log_in(client, "guess", client_address=f"2001:db8:1:2::{n:x}")

    assert log_in(client, PASSWORD, client_address="2001:db8:1:2:ffff::9").status_code == 429
    assert log_in(client, PASSWORD, client_address="2001:db8:1:3::1").status_code == 302


def test_a_link_from_the_committee_to_choose_a_password_lifts_the_account_lock(
    client, mallory, limit_of_five, behind_the_proxy, settings, delivered
):
    settings.LOGIN_ACCOUNT_FAILURE_LIMIT = 20
    for n in range(20):
        log_in(client, "guess", client_address=f"198.51.100.{n}")
    assert log_in(client, PASSWORD, client_address="198.51.100.200").status_code == 429
    client.force_login(factories.committee_member())
    client.post(f"/committee/accounts/{mallory.pk}/password/", {"email": "mallory@example.org"})
    client.post(reverse("logout"))
    link = re.search(r"http://\S+(/accounts/invitation/\S+/)", delivered()[0].body).group(1)
    chosen = {"new_password1": "a-new-chosen-password", "new_password2": "a-new-chosen-password"}
    assert client.post(link, chosen).status_code == 302

    response = log_in(client, "a-new-chosen-password", client_address="198.51.100.201")

    assert response.status_code == 302
