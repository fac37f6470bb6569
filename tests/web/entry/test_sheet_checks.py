"""The record sheet's checks as a volunteer meets them: every error at its field in one
round, dates typed by keyboard, and games to confirm (a game entered again with the
colours swapped, a date a year away from a player's other games)."""

import re
from datetime import date

import pytest
from django.utils import timezone

from players.models import Game
from players.services.games import record_sheet_submit
from tests import factories
from tests.web.entry.test_sheet_entry import field_block, sheet_post

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]


@pytest.fixture
def alice():
    return factories.player("alice", "5k", full_name="Alice Moyo")


@pytest.fixture
def bob():
    return factories.player("bob", "8k", full_name="Bob Smit")


def test_every_error_of_the_sheet_shows_in_one_round(client, vera, alice, bob):
    response = client.post(
        "/sheets/new/",
        sheet_post(
            {"white": "alice", "black": "alice", "winner": "W", "handicap": "12", "komi": "60"},
            {"white": "bob", "black": "nobody", "winner": "", "date": "31/2"},
            received_on="soon",
        ),
    )

    html = response.content.decode()
    assert "a player cannot play themselves" in field_block(html, "id_form-0-black")
    assert "Ensure this value is less than or equal to 9" in field_block(html, "id_form-0-handicap")
    assert "60 is not a komi: it lies between -50 and 50" in field_block(html, "id_form-0-komi")
    assert "no player &#x27;nobody&#x27;" in field_block(html, "id_form-1-black")
    assert "This field is required" in field_block(html, "id_form-1-winner")
    assert "&#x27;31/2&#x27; is not a date" in field_block(html, "id_form-1-date")
    assert "&#x27;soon&#x27; is not a date" in field_block(html, "id_sheet-received_on")
    assert Game.objects.count() == 0


def test_a_future_date_is_an_error_at_its_field_with_the_others(client, vera, alice, bob):
    response = client.post(
        "/sheets/new/",
        sheet_post({"white": "bob", "black": "bob", "winner": "W", "date": "2999-01-01"}),
    )

    html = response.content.decode()
    assert "2999-01-01 is in the future" in field_block(html, "id_form-0-date")
    assert "a player cannot play themselves" in field_block(html, "id_form-0-black")


def test_dates_are_typed_in_short_forms_and_t_is_today(client, vera, alice, bob):
    today = timezone.localdate()
    response = client.post(
        "/sheets/new/",
        sheet_post(
            {"white": "alice", "black": "bob", "winner": "W", "date": "t"},
            {"white": "bob", "black": "alice", "winner": "W", "date": "1 Mar 2024"},
            {"white": "alice", "black": "bob", "winner": "B", "date": "02032024"},
            received_on="t",
            save_duplicates="",
        ),
    )

    assert response.status_code == 302, response.content.decode()[:3000]
    dates = list(Game.objects.order_by("seq").values_list("date", flat=True))
    assert dates == [today, date(2024, 3, 1), date(2024, 3, 2)]


def test_the_date_field_is_a_text_input_with_today_for_the_script(client, vera):
    html = client.get("/sheets/new/").content.decode()

    field = re.search(r'<input[^>]*name="form-0-date"[^>]*>', html).group(0)
    assert 'type="text"' in field and "data-date-field" in field
    assert f'data-today="{timezone.localdate().isoformat()}"' in field
    assert "js/date-field.js" in html


def test_a_game_entered_again_with_the_colours_swapped_asks_for_confirmation(
    client, vera, alice, bob
):
    stored = record_sheet_submit(
        user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 1))]
    )
    row = {"white": "bob", "black": "alice", "winner": "B", "date": "2024-03-01"}

    warned = client.post("/sheets/new/", sheet_post(row))

    html = warned.content.decode()
    assert f"is already on file as game {stored.games[0].pk}" in html
    assert Game.objects.count() == 1


def test_a_date_ten_years_early_is_saved_only_once_confirmed(client, vera, alice, bob):
    record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 1))])
    row = {"white": "alice", "black": "bob", "winner": "B", "date": "2014-03-01"}

    warned = client.post("/sheets/new/", sheet_post(row))
    html = warned.content.decode()
    fingerprint = re.search(r'name="sheet-duplicates_seen" value="(\w+)"', html).group(1)
    saved = client.post(
        "/sheets/new/", sheet_post(row, save_duplicates="on", duplicates_seen=fingerprint)
    )

    assert "2014-03-01 is more than a year before alice&#x27;s first game (2024-03-01)" in html
    assert saved.status_code == 302
    assert Game.objects.filter(date=date(2014, 3, 1)).count() == 1


def test_a_jigo_with_a_half_point_komi_is_an_error_at_its_winner(client, vera, alice, bob):
    response = client.post(
        "/sheets/new/",
        sheet_post(
            {"white": "alice", "black": "bob", "winner": "W"},
            {"white": "bob", "black": "alice", "winner": "D", "komi": "6.5"},
        ),
    )

    html = response.content.decode()
    assert "a jigo (D) needs an integer komi; komi 6.5 cannot end in a jigo" in field_block(
        html, "id_form-1-winner"
    )
    assert Game.objects.count() == 0


def test_a_sheet_shows_its_field_errors_the_jigo_check_and_its_doubts_in_one_round(
    client, vera, alice, bob
):
    factories.player("carol", "12k")
    record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 1))])
    rows = [
        {"white": "alice", "black": "nobdy", "winner": "W", "date": "2024-03-08"},  # a typo
        {"white": "bob", "black": "carol", "winner": "D", "komi": "6.5", "date": "2024-03-08"},
        {"white": "alice", "black": "bob", "winner": "W", "date": "2024-03-01"},  # again
        {"white": "carol", "black": "alice", "winner": "B", "date": "2014-03-08"},  # the year
    ]

    first = client.post("/sheets/new/", sheet_post(*rows)).content.decode()

    assert "no player &#x27;nobdy&#x27;" in field_block(first, "id_form-0-black")
    assert "a jigo (D) needs an integer komi" in field_block(first, "id_form-1-winner")
    warning = first[first.index('id="duplicate-warning"') :]
    assert "game 3 (2024-03-01, alice - bob, winner W) is already on file" in warning
    assert "game 4: 2014-03-08 is more than a year before alice&#x27;s first game" in warning
    fingerprint = re.search(r'name="sheet-duplicates_seen" value="(\w+)"', first).group(1)

    # The volunteer fixes the two rows, confirms the two games, and the sheet is saved.
    rows[0]["black"] = "carol"
    rows[1]["komi"] = "7"
    second = client.post(
        "/sheets/new/", sheet_post(*rows, save_duplicates="on", duplicates_seen=fingerprint)
    )

    assert second.status_code == 302, second.content.decode()
    assert Game.objects.count() == 5


def test_a_jigo_with_a_half_point_komi_is_refused_beside_another_rows_field_error(
    client, vera, alice, bob
):
    response = client.post(
        "/sheets/new/",
        sheet_post(
            {"white": "alice", "black": "nobody", "winner": "W"},
            {"white": "bob", "black": "alice", "winner": "D", "handicap": "2", "komi": ""},
        ),
    )

    html = response.content.decode()
    assert "komi 0.5 cannot end in a jigo" in field_block(html, "id_form-1-winner")
