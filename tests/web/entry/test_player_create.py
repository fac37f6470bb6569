"""/players/new/: add a player, as a page and as the sheet dialog's JSON endpoint."""

import pytest

from players.models import AuditEntry, Player
from ratings.engine.ranks import Rank
from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]

JSON = {"HTTP_ACCEPT": "application/json"}


def test_it_shows_the_form(client, vera):
    response = client.get("/players/new/")

    assert response.status_code == 200
    html = response.content.decode()
    for name in ("username", "full_name", "club", "national_rank"):
        assert f'name="{name}"' in html


def test_it_adds_a_player_with_the_national_rank_as_entry_rank(client, vera):
    club = factories.club()

    response = client.post(
        "/players/new/",
        {
            "username": "thandi",
            "full_name": "Thandi Nkosi",
            "club": club.pk,
            "national_rank": " 15 kyu ",
        },
        follow=True,
    )

    player = Player.objects.get(username="thandi")
    assert (player.full_name, player.club) == ("Thandi Nkosi", club)
    assert player.entry_rank == player.national_rank == Rank(-15)
    assert response.redirect_chain == [("/players/new/", 302)]
    assert "Added Thandi Nkosi (thandi)." in response.content.decode()
    entry = AuditEntry.objects.get(action="player_create")
    assert entry.user == vera
    assert entry.after["entry_rank"] == "15k"


def test_it_shows_a_bad_rank_at_its_field(client, vera):
    response = client.post(
        "/players/new/", {"username": "x", "full_name": "X", "national_rank": "0k"}
    )

    assert response.status_code == 200
    html = response.content.decode()
    assert "&#x27;0k&#x27; is not a rank: kyu ranks run from 50k to 1k" in html
    assert not Player.objects.exists()


@pytest.mark.parametrize(
    ("username", "message"),
    [
        ("Alice", "the username &#x27;Alice&#x27; is taken (by alice)"),
        ("new", "&#x27;new&#x27; is reserved"),
        ("lookup", "&#x27;lookup&#x27; is reserved"),
        ("two words", "A username has letters, digits, - and _ only: no spaces"),
    ],
)
def test_it_refuses_a_username_that_would_clash(client, vera, username, message):
    factories.player("alice")

    response = client.post(
        "/players/new/", {"username": username, "full_name": "Someone", "national_rank": "3d"}
    )

    assert response.status_code == 200
    assert message in response.content.decode()
    assert Player.objects.count() == 1


def test_it_answers_the_sheet_dialog_in_json(client, vera):
    response = client.post(
        "/players/new/",
        {"username": "lerato", "full_name": "Lerato Mokoena", "national_rank": "2d"},
        **JSON,
    )

    assert response.status_code == 201
    assert response.json() == {"username": "lerato", "full_name": "Lerato Mokoena", "rank": "2d"}
    assert Player.objects.filter(username="lerato").exists()


def test_it_gives_the_sheet_dialog_its_field_errors_in_json(client, vera):
    response = client.post(
        "/players/new/", {"username": "", "full_name": "No Name", "national_rank": "abc"}, **JSON
    )

    assert response.status_code == 400
    errors = response.json()["errors"]
    assert errors["username"] == [{"message": "This field is required.", "code": "required"}]
    assert errors["national_rank"][0]["message"] == (
        "'abc' is not a rank (expected e.g. 15k, 3d or 1p)"
    )
    assert not Player.objects.exists()


def test_it_answers_a_browser_in_html(client, vera):
    response = client.post(
        "/players/new/",
        {"username": "sipho", "full_name": "Sipho", "national_rank": "20k"},
        HTTP_ACCEPT="text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    )

    assert response.status_code == 302
