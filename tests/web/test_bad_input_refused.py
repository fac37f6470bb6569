"""Issue 25 item 15: inputs that made a server error are answered with a page, a
clear message or a refusal, and store nothing."""

import io

import pytest
from django.core.management import CommandError, call_command

from players.models import Player
from players.resync import parse_rank_list
from ratings.engine.formats.ranklists import MAX_LINE_LENGTH
from tests import factories
from tests.web.committee.test_player_edit import form_data

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]

# Every page that takes a username in its path (the API's are in test_api.py).
NUL_URLS = [
    "/players/%00/",
    "/players/%00/print/",
    "/players/%00/sheet.csv",
    "/players/%00/vs/",
    "/players/ann/vs/%00/",
    "/committee/players/%00/edit/",
    "/committee/players/%00/adjust/",
]


def test_a_negative_per_page_on_the_head_to_head_page_gives_the_page(client):
    factories.player("ann", "3k")
    factories.player("ben", "5k")

    response = client.get("/players/ann/vs/ben/", {"per_page": "-1"})

    assert response.status_code == 200


@pytest.mark.parametrize("url", NUL_URLS)
def test_a_nul_in_the_path_is_not_found_without_reading_the_database(
    client, url, django_assert_num_queries
):
    factories.player("ann", "3k")

    # PostgreSQL refuses a NUL in a query: the request must never reach one.
    with django_assert_num_queries(0):
        response = client.get(url)

    assert response.status_code == 404


def test_a_page_number_past_64_bits_in_the_games_api_is_a_400(client):
    response = client.get("/api/v1/games/", {"page": "9223372036854775807"})

    assert response.status_code == 400
    assert response.json()["error"]["field"] == "page"


def test_a_page_number_past_64_bits_in_the_players_api_is_a_400(client):
    response = client.get("/api/v1/players/", {"page": "9223372036854775807"})

    assert response.status_code == 400


def test_a_new_players_name_whose_family_name_is_too_long_is_refused_at_its_field(client, vera):
    response = client.post(
        "/players/new/", {"username": "long", "full_name": "x" * 151, "national_rank": "10k"}
    )

    assert response.status_code == 200
    assert "at most 150 fit" in response.content.decode()
    assert not Player.objects.filter(username="long").exists()


def test_a_committee_edit_whose_full_name_is_too_long_is_refused(client, connie):
    thandi = factories.player("thandi", "12k", full_name="Thandi Nkosi")

    response = client.post(
        "/committee/players/thandi/edit/",
        form_data(thandi, given_name="g" * 150, family_name="f" * 150),
    )

    assert response.status_code == 200
    assert "the full name would be 301 characters; at most 200 fit" in response.content.decode()
    thandi.refresh_from_db()
    assert thandi.full_name == "Thandi Nkosi"


def test_a_resync_line_longer_than_the_csv_field_limit_is_a_bad_line(client, connie):
    factories.player("ann", "3k")
    text = "ann,4k\n" + "x" * 200_000 + ",3k\n"

    response = client.post(
        "/committee/resync/", {"list_text": text, "effective_date": "2024-06-01", "note": ""}
    )

    assert response.status_code == 200
    assert f"a player&#x27;s line has at most {MAX_LINE_LENGTH:,}" in response.content.decode()


def test_a_quoted_field_past_the_csv_limit_is_a_bad_line_not_a_csv_error():
    line = '"' + "x" * 140_000 + '",3k'

    # Under the line limit the csv module's own limit (131,072) is the one reached.
    listed = parse_rank_list(line, default_date=None, today=None)

    assert listed.bad and not listed.listed
    assert len(listed.bad[0].text) < 300


def test_import_games_refuses_a_nul_in_a_username_with_its_line(tmp_path):
    factories.user("system")
    path = tmp_path / "games.csv"
    path.write_text("date,white,black,white_rank,black_rank,winner\n2024-01-01,a\x00b,c,3k,4k,W\n")

    with pytest.raises(CommandError, match=r"line 2.*NUL"):
        call_command("import_games", str(path), stdout=io.StringIO())

    assert not Player.objects.exists()
