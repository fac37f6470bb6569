"""Login throttling: repeated failures for one username lock it out for a while."""

import pytest
from django.core.cache import cache
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.fixture
def mallory(django_user_model):
    cache.delete_many(["login-failures:user:mallory", "login-failures:address:127.0.0.1"])
    yield django_user_model.objects.create_user("mallory", password="right-password")
    cache.delete_many(["login-failures:user:mallory", "login-failures:address:127.0.0.1"])


def log_in(client, password):
    return client.post(reverse("login"), {"username": "mallory", "password": password})


def test_it_refuses_even_the_right_password_after_five_failures(client, mallory, settings):
    settings.LOGIN_FAILURE_LIMIT = 5
    for _ in range(5):
        assert log_in(client, "guess").status_code == 200
    response = log_in(client, "right-password")
    assert response.status_code == 429
    assert "Too many failed log-ins" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_successful_login_clears_the_failures(client, mallory, settings):
    settings.LOGIN_FAILURE_LIMIT = 5
    for _ in range(4):
        log_in(client, "guess")
    assert log_in(client, "right-password").status_code == 302
    client.post(reverse("logout"))
    for _ in range(4):
        log_in(client, "guess")
    assert log_in(client, "right-password").status_code == 302


def test_the_admin_login_is_throttled_too(client, mallory, settings):
    settings.LOGIN_FAILURE_LIMIT = 2
    for _ in range(2):
        client.post("/admin/login/", {"username": "mallory", "password": "guess"})
    response = client.post("/admin/login/", {"username": "mallory", "password": "right-password"})
    assert response.status_code == 429
