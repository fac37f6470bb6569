"""/games/<id>/void/: void a game with a reason; it stays on file, marked void."""

from datetime import date

import pytest

from players.models import AuditEntry
from players.services.games import game_correct, game_void, record_sheet_submit
from ratings.models import RatingHistory, RecomputeState
from ratings.recompute.run import recompute_pending
from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]


@pytest.fixture
def game(vera, django_capture_on_commit_callbacks):
    alice, bob = factories.player("alice", "5k"), factories.player("bob", "8k")
    with django_capture_on_commit_callbacks(execute=True):
        result = record_sheet_submit(
            user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 1))]
        )
    return result.games[0]


def test_it_asks_for_confirmation_and_a_reason(client, game):
    response = client.get(f"/games/{game.pk}/void/")

    assert response.status_code == 200
    html = response.content.decode()
    assert f"Void game {game.pk}?" in html
    assert 'name="reason"' in html
    assert 'name="version" value="1"' in html
    assert 'method="post"' in html
    game.refresh_from_db()
    assert not game.is_void, "showing the page changes nothing"


def test_it_voids_the_game_and_keeps_it_visible_marked_void(client, vera, game):
    response = client.post(
        f"/games/{game.pk}/void/", {"reason": "  played with the wrong handicap ", "version": "1"}
    )

    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.pk}/"
    game.refresh_from_db()
    assert game.is_void
    assert (game.voided_by, game.void_reason) == (vera, "played with the wrong handicap")
    entry = AuditEntry.objects.get(action="game_void")
    assert (entry.before["voided"], entry.after["voided"]) == (False, True)
    assert RecomputeState.objects.get(algorithm="sagc").dirty_from == date(2024, 3, 1)

    recompute_pending()  # what the task queued on commit does
    html = client.get(f"/games/{game.pk}/").content.decode()
    assert 'id="game-void"' in html
    assert "by vera: played with the wrong handicap." in html
    assert f'href="/games/{game.pk}/edit/"' not in html
    assert "A void game has no rating rows." in html
    assert not RatingHistory.objects.filter(game=game).exists()


def test_it_requires_a_reason(client, game):
    response = client.post(f"/games/{game.pk}/void/", {"reason": "   ", "version": "1"})

    assert response.status_code == 200
    assert "This field is required." in response.content.decode()
    game.refresh_from_db()
    assert not game.is_void


def test_it_does_not_void_a_game_changed_meanwhile(client, vera, game):
    game_correct(
        user=vera,
        game_id=game.pk,
        version=1,
        changes=factories.game(game.white, game.black, "B", game.date),
    )

    response = client.post(f"/games/{game.pk}/void/", {"reason": "mistake", "version": "1"})

    assert response.status_code == 200
    html = response.content.decode()
    assert "This game was changed by someone else while you were looking at it" in html
    assert 'name="version" value="2"' in html
    assert "mistake</textarea>" in html
    game.refresh_from_db()
    assert not game.is_void


def test_it_says_so_when_the_game_is_already_void(client, vera, game):
    game_void(user=vera, game_id=game.pk, version=1, reason="first")

    response = client.post(
        f"/games/{game.pk}/void/", {"reason": "second", "version": "2"}, follow=True
    )

    assert f"Game {game.pk} is already void." in response.content.decode()
    game.refresh_from_db()
    assert game.void_reason == "first"


def test_it_shows_void_games_on_their_sheet(client, vera, game):
    game_void(user=vera, game_id=game.pk, version=1, reason="never played")

    html = client.get(f"/sheets/{game.record_sheet_id}/").content.decode()

    assert '<span class="badge text-bg-danger">void</span>' in html
    assert '<tr class="table-secondary even" data-game' in html
