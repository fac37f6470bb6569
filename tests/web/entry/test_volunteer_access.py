"""Every volunteer page checks the role on the server: anonymous users are sent to log
in, logged-in users who are not volunteers get 403, committee members are volunteers."""

from datetime import date
from urllib.parse import quote

import pytest

from players.models import Game, Player
from players.services.games import record_sheet_submit
from tests import factories

pytestmark = pytest.mark.django_db

PAGES = [
    "/sheets/",
    "/sheets/new/",
    "/sheets/{sheet}/",
    "/games/{game}/",
    "/games/{game}/edit/",
    "/games/{game}/void/",
    "/players/new/",
    "/players/lookup/?q=al",
    "/audit/",
]
FORMS = ["/sheets/new/", "/games/{game}/edit/", "/games/{game}/void/", "/players/new/"]


@pytest.fixture
def ids():
    alice, bob = factories.player("alice"), factories.player("bob")
    game = record_sheet_submit(
        user=factories.volunteer(), games=[factories.game(alice, bob, "W", date(2024, 3, 1))]
    ).games[0]
    return {"sheet": game.record_sheet_id, "game": game.pk}


@pytest.mark.parametrize("page", PAGES)
def test_it_sends_anonymous_users_to_log_in(client, ids, page):
    url = page.format(**ids)

    response = client.get(url)

    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={quote(url, safe='/')}"


@pytest.mark.parametrize("page", PAGES)
def test_it_refuses_users_who_are_not_volunteers(client, ids, page):
    client.force_login(factories.user("rita"))

    assert client.get(page.format(**ids)).status_code == 403


@pytest.mark.parametrize("page", FORMS)
def test_it_stores_nothing_posted_by_users_who_are_not_volunteers(client, ids, page):
    client.force_login(factories.user("rita"))
    data = {
        "username": "mallory",
        "full_name": "M",
        "national_rank": "1d",
        "reason": "x",
        "version": "1",
        "white": "bob",
        "black": "alice",
        "winner": "B",
        "date": "2024-03-01",
        "handicap": "0",
        "board_size": "19",
        "status": "normal",
    }

    response = client.post(page.format(**ids), data)

    assert response.status_code == 403
    game = Game.objects.get()
    assert (game.version, game.is_void) == (1, False)
    assert not Player.objects.filter(username="mallory").exists()


@pytest.mark.parametrize("page", PAGES)
def test_it_lets_committee_members_in(client, ids, page):
    client.force_login(factories.committee_member())

    assert client.get(page.format(**ids)).status_code == 200


def test_it_shows_the_volunteer_links_to_volunteers_only(client):
    assert 'href="/sheets/new/"' not in client.get("/accounts/login/").content.decode()

    client.force_login(factories.user("rita"))
    assert 'href="/audit/"' not in client.get("/accounts/login/").content.decode()

    client.force_login(factories.volunteer())
    html = client.get("/accounts/login/").content.decode()
    assert ">Enter sheet</a>" in html and ">Audit</a>" in html
