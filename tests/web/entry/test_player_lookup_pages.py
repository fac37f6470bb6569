"""The one player lookup on every page that names a player: the record sheet, the
adjust chooser, the merge, the calculator and the rating list's search; a new player
is warned of similar names and refused a PIN already on file."""

from datetime import date

import pytest

from players.models import Game, Player
from ratings.models import CurrentRating
from tests import factories
from tests.web.entry.test_sheet_entry import field_block, sheet_post

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]


@pytest.fixture
def elsa():
    return factories.player("elsab4", "6k", full_name="Elsa Botha", egd_pin="12345678")


@pytest.fixture
def kagiso():
    return factories.player("kagisop16", "9k", full_name="Kagiso Phiri")


def test_the_sheet_takes_a_full_name_in_either_order_and_a_pin(client, vera, elsa, kagiso):
    response = client.post(
        "/sheets/new/",
        sheet_post(
            {"date": "2024-03-01", "white": "Elsa Botha", "black": "Phiri Kagiso", "winner": "W"},
            {"date": "2024-03-01", "white": "12345678", "black": "kagisop16", "winner": "B"},
        ),
    )

    assert response.status_code == 302
    games = list(Game.objects.order_by("seq").values_list("white__username", "black__username"))
    assert games == [("elsab4", "kagisop16"), ("elsab4", "kagisop16")]


def test_the_sheet_answers_a_typo_with_did_you_mean(client, vera, elsa, kagiso):
    response = client.post(
        "/sheets/new/",
        sheet_post({"white": "elsab4", "black": "kagisop61", "winner": "W"}),
    )

    block = field_block(response.content.decode(), "id_form-0-black")
    assert "did you mean kagisop16 (Kagiso Phiri)?" in block
    assert Game.objects.count() == 0


def test_the_adjust_chooser_finds_a_player_by_name(client, connie, elsa):
    response = client.get("/committee/players/adjust/", {"player": "botha elsa"})

    assert response.status_code == 302
    assert response["Location"] == "/committee/players/elsab4/adjust/"


def test_the_merge_takes_names_and_pins(client, connie, elsa, kagiso):
    html = client.get(
        "/committee/players/merge/", {"keep": "12345678", "duplicate": "Kagiso Phiri"}
    ).content.decode()

    assert 'name="confirm"' in html
    assert 'value="elsab4"' in html and 'value="kagisop16"' in html


def test_the_calculator_takes_a_name_and_suggests_on_a_typo(client, elsa, kagiso):
    found = client.get("/calculator/", {"white_player": "Elsa Botha", "black_player": "kagisop16"})
    typo = client.get("/calculator/", {"white_player": "elsa bota", "black_player": "kagisop16"})

    assert found.context["form"].errors == {}
    assert "did you mean elsab4 (Elsa Botha)?" in typo.context["form"].errors["white_player"][0]


def test_the_rating_list_search_ignores_accents_and_word_order(client):
    renee = factories.player("renee", "5k", full_name="Renée Dubé")
    CurrentRating.objects.create(
        algorithm="sagc", player=renee, rank=renee.entry_rank, value=0, games=1
    )

    assert 'href="/players/renee/"' in client.get("/?search=dube renee").content.decode()
    html = client.get("/?search=rene dubbe").content.decode()
    assert 'id="did-you-mean"' in html and 'href="/players/renee/"' in html


def test_a_new_player_with_a_similar_name_is_held_until_confirmed(client, vera):
    factories.player("nomvulam", full_name="Nomvula Mahlangu")
    typed = {"username": "nomvula2", "full_name": "Nomvula  mahlangu", "national_rank": "12k"}

    held = client.post("/players/new/", typed)
    confirmed = client.post("/players/new/", {**typed, "someone_else": "on"})

    block = field_block(held.content.decode(), "id_full_name")
    assert "similar names on file: nomvulam (Nomvula Mahlangu)" in block
    assert confirmed.status_code == 302
    assert Player.objects.filter(username="nomvula2").exists()


def test_add_them_anyway_is_offered_only_with_the_similar_names(client, vera):
    factories.player("nomvulam", full_name="Nomvula Mahlangu")
    anyway = "This is someone else: add them anyway"
    typed = {"username": "sipho", "full_name": "Sipho Dube", "national_rank": "12k"}

    blank = client.get("/players/new/").content.decode()
    other_error = client.post("/players/new/", {**typed, "username": "no spaces"})
    similar = client.post("/players/new/", {**typed, "full_name": "Nomvula Mahlangu"})
    ticked = client.post(
        "/players/new/", {**typed, "username": "", "full_name": "X Y", "someone_else": "on"}
    )

    assert anyway not in blank
    assert anyway not in other_error.content.decode()
    assert anyway in similar.content.decode()
    assert anyway in ticked.content.decode()  # it stays while ticked


def test_a_new_player_with_a_pin_on_file_is_refused(client, vera, elsa):
    response = client.post(
        "/players/new/",
        {
            "username": "eb",
            "full_name": "Someone Else",
            "national_rank": "5k",
            "egd_pin": "12345678",
        },
    )

    block = field_block(response.content.decode(), "id_egd_pin")
    assert "the EGD PIN 12345678 is already on file, for Elsa Botha (elsab4)" in block
    assert not Player.objects.filter(username="eb").exists()


def test_the_typeahead_finds_a_name_in_another_order(client, vera, elsa):
    players = client.get("/players/lookup/", {"q": "botha elsa"}).json()["players"]

    assert [player["username"] for player in players] == ["elsab4"]


def test_a_merged_record_on_the_sheet_says_where_it_went(client, vera, elsa, kagiso):
    factories.player("elsa-old", full_name="E Botha", active=False, merged_into=elsa)

    response = client.post(
        "/sheets/new/",
        sheet_post(
            {
                "date": date(2024, 3, 1).isoformat(),
                "white": "elsa-old",
                "black": "kagisop16",
                "winner": "W",
            }
        ),
    )

    block = field_block(response.content.decode(), "id_form-0-white")
    assert "elsa-old was merged into elsab4: use elsab4" in block


def test_a_new_players_errors_show_in_one_round(client, vera, elsa):
    response = client.post(
        "/players/new/",
        {
            "username": "new",
            "full_name": "Elsa Botha",
            "national_rank": "0k",
            "egd_pin": "12345678",
        },
    )

    html = response.content.decode()
    assert "&#x27;new&#x27; is reserved" in field_block(html, "id_username")
    assert "similar names on file: elsab4 (Elsa Botha)" in field_block(html, "id_full_name")
    assert "is not a rank" in field_block(html, "id_national_rank")
    assert "the EGD PIN 12345678 is already on file" in field_block(html, "id_egd_pin")
