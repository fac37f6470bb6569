"""Merging two records of one person: preview, refusal when they played each other, and
the merge itself."""

from datetime import date

import pytest

from players.models import AuditEntry, Game, Player
from players.services.games import record_sheet_submit
from tests import factories
from tests.players.test_tournament_round_trip import PLESSIS_CUP, import_text

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]


@pytest.fixture
def club():
    ann = factories.player("ann", "5k", full_name="Ann Smith")
    ann2 = factories.player("annsmith", "5k", full_name="Ann Smith")
    ben = factories.player("ben", "3k")
    record_sheet_submit(
        user=factories.volunteer(),
        games=[
            factories.game(ann, ben, "W", date(2024, 3, 1)),
            factories.game(ben, ann2, "B", date(2024, 2, 1)),
        ],
    )
    return ann, ann2, ben


def test_the_preview_shows_both_records_and_asks_to_confirm(client, connie, club):
    response = client.get("/committee/players/merge/", {"keep": "ann", "duplicate": "AnnSmith"})

    html = response.content.decode()
    assert response.status_code == 200
    assert html.count('data-record="keep"') == 1
    assert html.count('data-record="duplicate"') == 1
    assert "<dt>First game</dt><dd>2024-02-01</dd>" in html
    assert 'name="confirm"' in html
    assert 'type="hidden" name="duplicate" value="annsmith"' in html
    assert "Merge annsmith into ann</button>" in html


def test_two_records_that_played_each_other_are_refused_with_the_reason(client, connie, club):
    response = client.get("/committee/players/merge/", {"keep": "ann", "duplicate": "ben"})

    html = response.content.decode()
    assert 'id="played-each-other"' in html
    assert 'id="games-between"' in html
    assert 'name="confirm"' not in html


def test_posting_a_merge_of_two_people_anyway_is_refused(client, connie, club):
    _ann, _ann2, ben = club

    response = client.post(
        "/committee/players/merge/", {"keep": "ann", "duplicate": "ben", "confirm": "on"}
    )

    assert response.status_code == 200
    assert response.context["confirm_form"].errors == {
        "duplicate": [
            "ann and ben played each other (1 game, the first on 2024-03-01): "
            "they are two people, not two records of one person"
        ]
    }
    assert "played each other" in response.content.decode()
    ben.refresh_from_db()
    assert ben.active


def test_a_merge_moves_the_games_and_opens_the_kept_record(client, connie, club):
    ann, ann2, _ben = club

    response = client.post(
        "/committee/players/merge/",
        {"keep": "ann", "duplicate": "annsmith", "note": "entered twice", "confirm": "on"},
    )

    assert response.status_code == 302
    assert response["Location"] == "/players/ann/"
    ann2.refresh_from_db()
    assert not ann2.active
    assert Game.objects.filter(black=ann).count() == 1
    assert AuditEntry.objects.get(action="player_merge").after["note"] == "entered twice"


def test_a_merge_needs_the_confirmation(client, connie, club):
    response = client.post("/committee/players/merge/", {"keep": "ann", "duplicate": "annsmith"})

    assert response.status_code == 200
    assert response.context["confirm_form"].errors == {
        "confirm": ["Tick this box to merge the records."]
    }
    assert Player.objects.get(username="annsmith").active


def test_the_two_records_must_differ_and_exist(client, connie, club):
    same = client.get("/committee/players/merge/", {"keep": "ann", "duplicate": "ann"})
    unknown = client.get("/committee/players/merge/", {"keep": "ann", "duplicate": "nobody"})

    assert same.context["form"].errors == {
        "duplicate": ["This is the record to keep: choose the other record."]
    }
    assert unknown.context["form"].errors == {"duplicate": ["no player 'nobody'"]}
    assert 'data-record="keep"' not in same.content.decode()


def test_posting_a_merge_of_two_players_of_one_tournament_file_is_refused_naming_it(client, connie):
    import_text(PLESSIS_CUP)  # Aya de Groot and Thabo Mokoena: lines 2 and 3, no game

    response = client.post(
        "/committee/players/merge/",
        {"keep": "aya-de-groot", "duplicate": "thabo-mokoena", "confirm": "on"},
    )

    assert response.status_code == 200
    (message,) = response.context["confirm_form"].errors["duplicate"]
    assert "both players of the imported tournament plessis-cup" in message
    assert Player.objects.get(username="thabo-mokoena").active


def test_the_preview_of_two_players_of_one_tournament_file_refuses_naming_it(client, connie):
    import_text(PLESSIS_CUP)

    response = client.get(
        "/committee/players/merge/", {"keep": "aya-de-groot", "duplicate": "thabo-mokoena"}
    )

    html = response.content.decode()
    alert = html[html.index('id="listed-together"') :]
    assert "the imported tournament plessis-cup</strong>" in alert
    assert 'name="confirm"' not in html
