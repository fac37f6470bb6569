"""/clubs/<n>/sheet/: the printable blank record sheet of a club evening, headed with
the club's active players and their current ranks, and SAGC's handicap and komi for
each rank difference."""

import re
from fractions import Fraction
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from players.selectors import club_night
from ratings.engine.ranks import parse_rank
from ratings.models import CurrentRating
from tests import factories

pytestmark = pytest.mark.django_db


def rated(username: str, rank: str, value: float, club, **extra):
    player = factories.player(username, rank, club=club, **extra)
    CurrentRating.objects.create(
        algorithm="sagc", player=player, rank=parse_rank(rank), value=value, games=5
    )
    return player


@pytest.fixture
def club():
    club = factories.club("Durban Go Club")
    rated("kyu", "12k", 400, club, full_name="Kim Kyu")
    rated("dan", "2d", -300, club, full_name="Dee Dan")
    rated("gone", "1d", 0, club, active=False)
    rated("elsewhere", "5k", 0, factories.club("Cape Town Go Club"))
    factories.player("newbie", "25k", club=club, full_name="New Bie")
    return club


def test_the_handicap_table_follows_sagcs_effective_handicap():
    rows = club_night.handicap_table()

    assert [(row.handicap, row.komi) for row in rows[:3]] == [
        (0, Fraction(13, 2)),
        (1, Fraction(1, 2)),
        (2, Fraction(1, 2)),
    ]
    assert [club_night.effective(row) for row in rows] == list(range(10))
    assert rows[-1].difference == "9 or more"


def test_it_lists_the_clubs_active_players_strongest_first(client, club):
    html = client.get(f"/clubs/{club.pk}/sheet/").content.decode()

    table = html[html.index('id="club-players"') :]
    table = table[: table.index("</table>")]
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]
    cells = [re.findall(r"<td>(.*?)</td>", row) for row in rows]
    assert cells == [
        ["Dee Dan", "dan", "2d", "\u2212300"],
        ["Kim Kyu", "kyu", "12k", "400"],
        ["New Bie", "newbie", "25k (new)", ""],
    ]


def test_negative_values_print_with_the_minus_sign_the_other_pages_use(client, club):
    html = client.get(f"/clubs/{club.pk}/sheet/").content.decode()
    listed = client.get("/").content.decode()

    assert "<td>\u2212300</td>" in html and "<td>-300</td>" not in html
    assert "\u2212300" in listed  # the rating list prints the same value alike


def test_it_has_blank_rows_with_the_columns_to_type_in(client, club):
    html = client.get(f"/clubs/{club.pk}/sheet/").content.decode()

    games = html[html.index('id="club-night-games"') :]
    for column in ("White (username)", "Black (username)", "Handicap", "Komi", "Winner"):
        assert column in games
    assert games.count("<tr><td>") == club_night.BLANK_ROWS
    assert "6.5" in html and "9 or more" in html


def test_it_prints_with_the_static_print_stylesheet_and_no_inline_styles(client, club):
    html = client.get(f"/clubs/{club.pk}/sheet/").content.decode()

    assert '<link rel="stylesheet" href="/static/css/print.css">' in html
    assert "style=" not in html and "<style" not in html
    stylesheet = Path(finders.find("css/print.css")).read_text()
    assert "@page" in stylesheet and "size: auto" in stylesheet
    assert "@media print" in stylesheet


def test_the_club_page_links_its_sheet(client, club):
    html = client.get(f"/clubs/{club.pk}/").content.decode()

    assert f'href="/clubs/{club.pk}/sheet/"' in html


def test_an_unknown_club_is_not_found(client):
    assert client.get("/clubs/999/sheet/").status_code == 404


def test_the_sheet_takes_the_same_queries_for_three_players_or_forty(
    client, club, django_assert_max_num_queries
):
    with django_assert_max_num_queries(6) as few:
        client.get(f"/clubs/{club.pk}/sheet/")
    for number in range(37):
        rated(f"p{number:02}", "15k", number, club)

    with django_assert_max_num_queries(len(few.captured_queries)):
        html = client.get(f"/clubs/{club.pk}/sheet/").content.decode()
    assert "p36" in html


# --- a player's printable record sheet -------------------------------------------------------


def test_a_players_printable_sheet_has_every_row_and_the_print_stylesheet(client, vera):
    from datetime import date

    from players.services.games import record_sheet_submit
    from ratings.recompute.run import recompute_pending

    ann = factories.player("ann", "12k", full_name="Ann Smit")
    ben = factories.player("ben", "14k")
    games = [factories.game(ann, ben, "W", date(2024, 1, 1 + n % 28)) for n in range(60)]
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    recompute_pending()

    html = client.get("/players/ann/print/").content.decode()

    assert "Record sheet: Ann Smit (ann)" in html
    assert '<link rel="stylesheet" href="/static/css/print.css">' in html
    table = html[html.index('id="record-sheet"') :]
    assert table.count("2024-01-") == 60  # all rows, not a page of 50
    assert "?page=2" not in html
    assert 'href="/players/ann/print/"' in client.get("/players/ann/").content.decode()


def test_a_printable_sheet_of_an_algorithm_without_rows_is_not_found(client, settings):
    settings.RATINGS_ALGORITHMS = ["sagc", "gcr"]
    factories.player("ann", "12k")

    assert client.get("/players/ann/print/?algorithm=gcr").status_code == 404
    assert client.get("/players/nobody/print/").status_code == 404
