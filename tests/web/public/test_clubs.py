"""/clubs/ and /clubs/<id>/: clubs with their players counted, and a club's rating list."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from ratings.engine.ranks import parse_rank
from ratings.models import CurrentRating
from tests import factories

pytestmark = pytest.mark.django_db


def rated(username: str, rank: str, value: float, **extra):
    player = factories.player(username, rank, **extra)
    CurrentRating.objects.create(
        algorithm="sagc", player=player, rank=parse_rank(rank), value=value, games=5
    )
    return player


def test_the_list_counts_players_and_active_players(client):
    today = timezone.localdate()
    durban = factories.club("Durban Go Club")
    factories.club("Pretoria Go Club")
    # active: played within the year (an old game entered lately does not count)
    factories.player("ann", club=durban, last_played=today - timedelta(days=30), last_updated=today)
    factories.player(
        "ben", club=durban, last_played=today - timedelta(days=500), last_updated=today
    )
    factories.player("cat", club=durban)

    html = client.get("/clubs/").content.decode()

    row = re.search(r"<tr[^>]*>(?:(?!</tr>).)*Durban Go Club.*?</tr>", html, re.S).group(0)
    assert re.findall(r"<td[^>]*>\s*(\d+)\s*</td>", row) == ["3", "1"]
    assert f'href="/clubs/{durban.pk}/"' in row
    assert "Pretoria Go Club" in html


def test_the_list_is_a_fixed_number_of_queries(client, django_assert_max_num_queries):
    for number in range(20):
        club = factories.club(f"Club {number}")
        factories.player(f"p{number}", club=club)

    with django_assert_max_num_queries(2):  # the page and the count of the paginator
        assert client.get("/clubs/").status_code == 200


def test_a_club_page_lists_its_rated_members_and_names_the_others(client):
    durban = factories.club("Durban Go Club")
    rated("ann", "2d", 0, club=durban)
    rated("ben", "1d", 0, club=factories.club("Pretoria Go Club"))
    factories.player("newcomer", "20k", club=durban, full_name="New Comer")

    html = client.get(f"/clubs/{durban.pk}/").content.decode()

    table = html[html.index('id="rating-list"') : html.index("</table>")]
    assert re.findall(r'href="/players/([^/]+)/"', table) == ["ann"]
    unrated = html[html.index('id="unrated-members"') :]
    assert 'href="/players/newcomer/">New Comer</a>' in unrated
    assert 'name="club"' not in html  # the club is fixed here
    assert ">Club</a>" not in table


def test_a_club_page_filters_and_downloads_only_its_members(client):
    durban = factories.club("Durban Go Club")
    rated("ann", "2d", 0, club=durban)
    rated("amos", "5k", 0, club=durban)
    rated("abe", "1d", 0, club=factories.club("Pretoria Go Club"))

    html = client.get(f"/clubs/{durban.pk}/?rank_from=1k").content.decode()

    table = html[html.index('id="rating-list"') : html.index("</table>")]
    assert re.findall(r'href="/players/([^/]+)/"', table) == ["ann"]
    link = re.search(r'id="csv-download" href="([^"]+)"', html).group(1).replace("&amp;", "&")
    assert link == f"/ratings.csv?rank_from=1k&club={durban.pk}"
    csv_text = client.get(link).content.decode()
    assert [line.split(",")[1] for line in csv_text.splitlines()[1:]] == ["ann"]


def test_it_answers_404_for_an_unknown_club(client):
    assert client.get("/clubs/999/").status_code == 404
