"""One number per game: the number in a game's address is the one its page, the
volunteer's messages, the tables, the duplicate warning, the audit and the API show,
even when the entry counter (shared with adjustments) has moved ahead of it."""

from datetime import date

import pytest

from players.models import AuditEntry
from players.services.base import DuplicateGamesError
from players.services.games import record_sheet_submit
from tests import factories
from tests.web.entry.test_sheet_entry import sheet_post

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]


@pytest.fixture
def game(vera):
    alice, bob = factories.player("alice", "5k"), factories.player("bob", "8k")
    for day in (1, 2, 3):  # adjustments take entry numbers too
        factories.adjustment(alice, date(2024, 1, day), "4k", user=vera)
    result = record_sheet_submit(
        user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 1))]
    )
    game = result.games[0]
    assert game.pk != game.seq, "the test needs an entry counter ahead of the game's id"
    return game


def test_the_game_page_its_title_and_its_audit_use_the_number_in_its_address(client, game):
    html = client.get(f"/games/{game.pk}/").content.decode()

    assert f"<title>Game {game.pk}" in html
    assert f"Game {game.pk}: alice" in html
    assert f"entry {game.seq}" not in html
    entry = AuditEntry.objects.get(action="game_create")
    assert entry.object_id == str(game.pk) and "seq" not in entry.after


def test_the_correction_and_void_pages_and_messages_use_it(client, game):
    assert f"Correct game {game.pk}" in client.get(f"/games/{game.pk}/edit/").content.decode()
    void_page = client.get(f"/games/{game.pk}/void/").content.decode()
    voided = client.post(
        f"/games/{game.pk}/void/", {"reason": "entered twice", "version": 1}, follow=True
    )

    assert f"Void game {game.pk}?" in void_page
    assert f"Game {game.pk} is void." in voided.content.decode()


def test_the_sheet_table_shows_the_number_and_links_to_it(client, game):
    html = client.get(f"/sheets/{game.record_sheet_id}/").content.decode()

    assert f'<a href="/games/{game.pk}/">{game.pk}</a>' in html
    assert f">{game.seq}<" not in html


def test_a_duplicate_names_the_game_on_file_by_that_number(vera, game):
    with pytest.raises(DuplicateGamesError) as refused:
        record_sheet_submit(
            user=vera, games=[factories.game(game.white, game.black, "W", game.date)]
        )

    assert refused.value.errors[0].message.endswith(f"is already on file as game {game.pk}")


def test_the_api_gives_the_number_as_id_and_its_page_address(client, game):
    data = client.get(f"/api/v1/games/{game.pk}/").json()

    assert data["id"] == game.pk
    assert data["url"].endswith(f"/api/v1/games/{game.pk}/")


def test_the_sheets_duplicate_warning_links_to_the_game_on_file(client, game):
    row = {"white": "alice", "black": "bob", "winner": "W", "date": "2024-03-01"}

    html = client.post("/sheets/new/", sheet_post(row)).content.decode()

    assert f'<a class="alert-link" href="/games/{game.pk}/">see game {game.pk}</a>' in html
