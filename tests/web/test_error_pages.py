"""403, 404 and 500 pages in the site's layout, saying what to do, with DEBUG off."""

import pytest

from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def debug_off(settings):
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["testserver"]


def test_a_page_not_for_the_account_says_whom_it_is_for_and_what_to_do(client):
    client.force_login(factories.volunteer("vera"))

    response = client.get("/committee/accounts/")

    assert response.status_code == 403
    page = response.content.decode()
    assert 'id="main-nav"' in page  # the site's layout
    assert 'data-status="403"' in page
    assert "This page is for committee members." in page
    assert "ask a committee member to give your account the role" in page
    assert "vera" in page


def test_a_missing_page_offers_the_lists_to_look_in(client):
    response = client.get("/players/nobody-of-that-name/")

    assert response.status_code == 404
    page = response.content.decode()
    assert 'id="main-nav"' in page
    assert 'data-status="404"' in page
    assert "/players/nobody-of-that-name/" in page
    assert 'href="/"' in page and 'href="/tournaments/"' in page


@pytest.mark.urls("tests.web.urls_failing")
def test_a_server_error_shows_the_layout_and_says_to_try_again(client):
    client.raise_request_exception = False

    response = client.get("/failing/")

    assert response.status_code == 500
    page = response.content.decode()
    assert 'id="main-nav"' in page
    assert 'data-status="500"' in page
    assert "Try again in a minute" in page
    assert "RuntimeError" not in page and "a bug in a view" not in page


def test_a_volunteer_without_a_linked_player_is_told_to_have_the_account_linked(client):
    client.force_login(factories.volunteer("vera"))

    response = client.get("/games/1/report/")  # refused before the game is looked up

    assert response.status_code == 403
    page = response.content.decode()
    assert "link your account to your player record" in page
    assert "give your account the role" not in page


@pytest.mark.parametrize("path", ["/no/such/page/", "/players/nobody-of-that-name/"])
def test_with_debug_on_a_missing_page_is_still_the_sites_not_djangos_url_list(
    client, settings, path
):
    settings.DEBUG = True  # make run's set-up, on the club laptop

    response = client.get(path)

    assert response.status_code == 404
    page = response.content.decode()
    assert 'data-status="404"' in page and 'id="main-nav"' in page
    assert "URLconf" not in page and "committee/accounts" not in page


def test_with_debug_on_the_apis_404_stays_json(client, settings):
    settings.DEBUG = True

    response = client.get("/api/v1/players/nobody-of-that-name/")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
