"""/ (the rating list) and /ratings.csv: everyone's rank under the selected algorithm,
filtered, sorted and paginated, and the same view as a CSV."""

import csv
import io
import re
from datetime import date, timedelta

import pytest
from django.contrib.staticfiles import finders
from django.utils import timezone

from players.models import TournamentPlayer
from players.public.forms import RatingListFilterForm
from players.selectors.ratings import months_before
from players.services.games import record_sheet_submit
from ratings.engine.ranks import parse_rank
from ratings.models import CurrentRating, RecomputeState
from ratings.recompute.run import recompute_pending
from tests import factories

pytestmark = pytest.mark.django_db


def rated(username: str, rank: str, value: float, *, algorithm: str = "sagc", games=10, **extra):
    """A player with a current rating (the recompute's output, written directly)."""
    player = factories.player(username, rank, **extra)
    CurrentRating.objects.create(
        algorithm=algorithm, player=player, rank=parse_rank(rank), value=value, games=games
    )
    return player


def listed(html: str) -> list[str]:
    """The usernames of the rating list's rows, in order."""
    table = html[html.index('id="rating-list"') :]
    table = table[: table.index("</table>")]
    return re.findall(r'href="/players/([^/]+)/"', table)


def csv_rows(response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(response.content.decode())))


# --- the home page ---------------------------------------------------------------------


def test_it_is_the_home_page(client):
    response = client.get("/")

    assert response.status_code == 200
    assert [t.name for t in response.templates][:2] == ["players/rating_list.html", "base.html"]
    html = response.content.decode()
    assert "<title>Go club ratings · clubrating</title>" in html
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert 'href="/accounts/login/"' in html
    assert 'href="/tournaments/">Tournaments</a>' in html
    assert 'href="/clubs/">Clubs</a>' in html


def test_it_loads_every_asset_from_the_site_itself(client):
    html = client.get("/").content.decode()

    assets = re.findall(r'<(?:link|script)[^>]*(?:href|src)="([^"]+)"', html)
    assert assets == [
        "/static/favicon.ico",
        "/static/favicon.svg",
        "/static/vendor/bootstrap/css/bootstrap.min.css",
        "/static/css/site.css",
        "/static/vendor/bootstrap/js/bootstrap.bundle.min.js",
        "/static/js/date-field.js",
        "/static/js/scroll-hint.js",
    ]
    for asset in assets:
        assert finders.find(asset.removeprefix("/static/")), asset


def test_it_serves_the_vendored_bootstrap(client):
    response = client.get("/static/vendor/bootstrap/css/bootstrap.min.css")

    assert response.status_code == 200
    assert b"Bootstrap  v5.3." in b"".join(response.streaming_content)[:200]


# --- the list ------------------------------------------------------------------------------


def test_it_lists_players_by_rank_then_index(client):
    rated("kyu_low", "12k", 400)
    rated("dan", "2d", -300)
    rated("kyu_high", "12k", 800)
    rated("weak", "25k", 999)

    html = client.get("/").content.decode()

    assert listed(html) == ["dan", "kyu_high", "kyu_low", "weak"]


def test_it_shows_each_column_of_a_player(client):
    club = factories.club("Durban Go Club")
    rated(
        "thandi",
        "15k",
        -120,
        games=34,
        full_name="Thandi Nkosi",
        club=club,
        last_updated=date(2024, 5, 2),
    )

    html = client.get("/").content.decode()

    row = re.search(r"<tr[^>]*>\s*<td[^>]*>15k</td>.*?</tr>", html, re.S).group(0)
    assert '<a href="/players/thandi/">Thandi Nkosi</a>' in row
    assert "Durban Go Club" in row
    assert ">\u2212120</td>" in row
    assert ">34</td>" in row
    assert "2024-05-02" in row
    assert "<th" in html and "Index</a>" in html


def test_it_shows_another_algorithms_list_with_values_rounded(client):
    rated("ann", "2d", 2213.6789, algorithm="egf-2021")
    rated("ben", "3k", -100, algorithm="sagc")

    html = client.get("/?algorithm=egf-2021").content.decode()

    assert listed(html) == ["ann"]
    assert ">2214</td>" in html
    assert "GoR</a>" in html  # the value column under EGF's own label
    assert 'aria-current="page"' in html and ">EGF 2021</a>" in html


def test_it_refuses_an_algorithm_the_site_does_not_keep(client, settings):
    settings.RATINGS_ALGORITHMS = ["sagc", "egf-2021"]

    assert client.get("/?algorithm=french").status_code == 404
    assert client.get("/?algorithm=nonsense").status_code == 404
    assert client.get("/ratings.csv?algorithm=nonsense").status_code == 404


def test_it_offers_a_tab_for_every_maintained_algorithm_keeping_the_filters(client, settings):
    settings.RATINGS_ALGORITHMS = ["sagc", "egf-2021", "french"]

    html = client.get("/?search=ann&page=1").content.decode()

    tabs = re.findall(r'class="nav-link[^"]*"[^>]*href="([^"]*)"[^>]*>([^<]+)</a>', html)
    assert ("?search=ann", "SAGC") in tabs
    assert ("?search=ann&amp;algorithm=egf-2021", "EGF 2021") in tabs
    assert ("?search=ann&amp;algorithm=french", "French") in tabs


def test_it_does_not_list_players_the_algorithm_has_not_rated(client):
    rated("ann", "2d", 0)
    factories.player("newcomer", "20k")

    assert listed(client.get("/").content.decode()) == ["ann"]


# --- filters ---------------------------------------------------------------------------------


def test_it_filters_by_club(client):
    durban = factories.club("Durban Go Club")
    rated("ann", "2d", 0, club=durban)
    rated("ben", "3k", 0, club=factories.club("Pretoria Go Club"))

    html = client.get(f"/?club={durban.pk}").content.decode()

    assert listed(html) == ["ann"]


def test_it_filters_by_a_rank_range_in_either_order(client):
    for username, rank in [("a", "3d"), ("b", "1k"), ("c", "10k"), ("d", "11k")]:
        rated(username, rank, 0)

    assert listed(client.get("/?rank_from=10k&rank_to=1d").content.decode()) == ["b", "c"]
    assert listed(client.get("/?rank_from=1d&rank_to=10k").content.decode()) == ["b", "c"]
    assert listed(client.get("/?rank_to=1k").content.decode()) == ["b", "c", "d"]


def test_it_filters_by_activity_within_months_on_the_latest_game_played(client):
    today = timezone.localdate()
    rated("recent", "5k", 0, last_played=today - timedelta(days=20))
    # an old game entered lately moves "last updated", not the activity
    rated(
        "lapsed",
        "5k",
        0,
        last_played=today - timedelta(days=400),
        last_updated=today - timedelta(days=400 * 10),
    )
    rated("never", "5k", 0)

    assert listed(client.get("/?active_months=6").content.decode()) == ["recent"]


def test_activity_follows_the_latest_game_when_older_games_are_entered(client):
    vera = factories.volunteer()
    today = timezone.localdate()
    han, ito = rated("han", "3d", 0), rated("ito", "4d", 0)
    record_sheet_submit(
        user=vera, games=[factories.game(han, ito, "B", today - timedelta(days=30))]
    )
    record_sheet_submit(  # ten years back: confirmed as the sheet would ask
        user=vera,
        games=[factories.game(han, ito, "W", today - timedelta(days=3650))],
        allow_duplicates=True,
    )
    han.refresh_from_db()
    assert han.last_updated == today - timedelta(days=3650)
    assert han.last_played == today - timedelta(days=30)
    assert listed(client.get("/?active_months=6").content.decode()) == ["ito", "han"]


def test_it_lists_the_clubs_players_and_tournament_only_players_one_filter_away(client):
    vera = factories.volunteer()
    cup = factories.tournament("cup-2023", "Cup 2023")
    member = rated("member", "1d", 0, club=factories.club("Durban Go Club"))
    regular, visitor = rated("regular", "2d", 0), rated("visitor", "3d", 0)
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(member, visitor, "W", date(2023, 5, 1), tournament=cup),
            factories.game(regular, visitor, "W", date(2023, 5, 2), tournament=cup),
            factories.game(regular, member, "W", date(2023, 6, 1)),
        ],
    )
    visitor.refresh_from_db()
    assert visitor.tournament_only

    assert listed(client.get("/").content.decode()) == ["regular", "member"]
    everyone = client.get("/?players=all").content.decode()
    assert listed(everyone) == ["visitor", "regular", "member"]
    assert [row[1] for row in csv_rows(client.get("/ratings.csv"))[1:]] == ["regular", "member"]


def test_a_clubs_player_given_a_rank_is_listed_before_a_game_an_entrant_with_none_is_not(
    client, settings
):
    """A row with no game is deliberate: a club that starts from the national list sees
    its players at their rank before they play. Someone an imported tournament lists
    with no game (byes, forfeits) is no club's player, even with a rank recorded for
    them: the clubs' list is of people who play here; the whole list shows them."""
    settings.RATINGS_ALGORITHMS = ["sagc"]
    connie = factories.committee_member()
    newcomer = factories.player("newcomer", "25k")
    entrant = factories.player("entrant", "30k")
    cup = factories.tournament("cup-2013", "Cup 2013")
    TournamentPlayer.objects.create(tournament=cup, player=entrant, number=1, rank=-30)
    for player, rank in ((newcomer, "12k"), (entrant, "20k")):
        factories.adjustment(player, date(2024, 6, 1), rank, user=connie)
    recompute_pending()
    assert CurrentRating.objects.get(player=entrant).games == 0

    assert listed(client.get("/").content.decode()) == ["newcomer"]
    rows = csv_rows(client.get("/ratings.csv"))[1:]
    assert [(row[0], row[1], row[5]) for row in rows] == [("12k", "newcomer", "0")]
    assert listed(client.get("/?as_of=2024-06-30").content.decode()) == ["newcomer"]
    assert listed(client.get("/?players=all").content.decode()) == ["newcomer", "entrant"]


def test_it_searches_usernames_and_names(client):
    rated("thandi", "5k", 0, full_name="Thandi Nkosi")
    rated("pieter", "5k", 0, full_name="Pieter Botha")
    rated("nkosi2", "5k", 0, full_name="Sipho Dlamini")

    assert listed(client.get("/?search=NKOSI").content.decode()) == ["nkosi2", "thandi"]


def test_it_shows_a_bad_rank_at_its_field_and_applies_the_other_filters(client):
    rated("thandi", "5k", 0)
    rated("pieter", "5k", 0)

    html = client.get("/?rank_from=0k&search=thandi").content.decode()

    field = re.search(r'<div id="div_id_rank_from".*?</div>\s*</div>', html, re.S).group(0)
    assert "is-invalid" in field
    assert "&#x27;0k&#x27; is not a rank" in field
    assert listed(html) == ["thandi"]


def test_the_form_hands_the_view_domain_values():
    club = factories.club()
    form = RatingListFilterForm(
        {
            "club": str(club.pk),
            "rank_from": "3 dan",
            "rank_to": "15 kyu",
            "active_months": "3",
            "search": " ann ",
        }
    )
    assert form.is_valid(), form.errors

    filters = form.filters(date(2024, 5, 31))

    assert filters.club == club
    assert (filters.weakest, filters.strongest) == (parse_rank("15k"), parse_rank("3d"))
    assert filters.active_since == date(2024, 2, 29)
    assert filters.search == "ann"


def test_months_before_keeps_the_day_or_takes_the_months_last():
    assert months_before(date(2024, 3, 15), 1) == date(2024, 2, 15)
    assert months_before(date(2024, 3, 31), 1) == date(2024, 2, 29)
    assert months_before(date(2024, 1, 10), 13) == date(2022, 12, 10)


# --- sorting and pages ------------------------------------------------------------------------


def test_it_sorts_by_a_column(client):
    rated("zed", "2d", 0, full_name="Aaron Zed")
    rated("amy", "5k", 0, full_name="Zoe Amy")

    assert listed(client.get("/?sort=name").content.decode()) == ["zed", "amy"]
    assert listed(client.get("/?sort=-name").content.decode()) == ["amy", "zed"]
    assert listed(client.get("/?sort=rank").content.decode()) == ["amy", "zed"]


def test_it_shows_fifty_players_a_page(client):
    for number in range(60):
        rated(f"p{number:02d}", "10k", number)

    first = client.get("/").content.decode()
    second = client.get("/?page=2").content.decode()

    assert len(listed(first)) == 50
    assert listed(second) == [f"p{number:02d}" for number in range(9, -1, -1)]
    assert "60 players" in first


def test_a_page_takes_the_same_queries_for_five_players_or_sixty(
    client, django_assert_max_num_queries
):
    clubs = [factories.club("Durban Go Club"), factories.club("Pretoria Go Club")]
    for number in range(5):
        rated(f"p{number}", "10k", number, club=clubs[number % 2])
    with django_assert_max_num_queries(4) as few:
        client.get("/")
    for number in range(5, 60):
        rated(f"p{number}", "10k", number, club=clubs[number % 2])

    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get("/")

    assert len(listed(response.content.decode())) == 50


# --- the CSV ------------------------------------------------------------------------------------


def test_the_csv_has_every_matching_row_in_the_pages_order(client):
    club = factories.club("Durban Go Club")
    for number in range(60):
        rated(f"p{number:02d}", "10k", number, club=club)
    rated("elsewhere", "10k", 99)

    response = client.get(f"/ratings.csv?club={club.pk}&sort=name&page=2")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    rows = csv_rows(response)
    assert rows[0] == ["rank", "username", "name", "club", "value", "games", "last_updated"]
    assert [row[1] for row in rows[1:]] == [f"p{number:02d}" for number in range(60)]


def test_the_csv_link_keeps_the_filters_and_order(client):
    html = client.get("/?search=ann&sort=-games&page=2").content.decode()

    link = re.search(r'id="csv-download" href="([^"]+)"', html).group(1)
    assert link == "/ratings.csv?search=ann&amp;sort=-games"


def test_the_csv_escapes_formulas_and_writes_numbers(client):
    rated(
        "mallory",
        "12k",
        -345,
        games=7,
        full_name="=HYPERLINK(1)",
        club=factories.club("+27 Go Club"),
        last_updated=date(2024, 5, 2),
    )

    rows = csv_rows(client.get("/ratings.csv"))

    assert rows[1] == [
        "12k",
        "mallory",
        "'=HYPERLINK(1)",
        "'+27 Go Club",
        "-345",
        "7",
        "2024-05-02",
    ]


def test_the_csv_keeps_ratings_at_full_precision(client):
    rated("ann", "2d", 2213.678912345, algorithm="egf-2021")

    rows = csv_rows(client.get("/ratings.csv?algorithm=egf-2021"))

    assert rows[1][4] == "2213.678912345"


# --- the recompute notice --------------------------------------------------------------------


def test_it_says_when_ratings_are_being_recomputed(client):
    rated("ann", "2d", 0)
    RecomputeState.objects.create(algorithm="sagc", dirty_from=date(2024, 3, 1))

    html = client.get("/").content.decode()

    assert "Ratings are being recomputed: recent changes may not be shown yet" in html
    assert "2024-03-01" in html
    assert "being recomputed" not in client.get("/?algorithm=egf-2021").content.decode()


def test_sorting_by_index_sorts_by_rank_then_index_and_says_so(client):
    rated("low", "23k", -900)
    rated("mid", "15k", -999)
    rated("top", "12k", -863)
    rated("mid_high", "15k", 400)

    ascending = client.get("/?sort=value").content.decode()
    descending = client.get("/?sort=-value").content.decode()

    assert listed(ascending) == ["low", "mid", "mid_high", "top"]
    assert listed(descending) == ["top", "mid_high", "mid", "low"]
    assert "sorting by Index sorts by rank, then by index" in " ".join(ascending.split())


def test_a_rating_on_one_scale_sorts_by_itself_and_has_no_note(client):
    rated("amy", "5k", 1700.0, algorithm="egf-2021")
    rated("bob", "4k", 1650.0, algorithm="egf-2021")  # a rank above, a lower GoR

    html = client.get("/?algorithm=egf-2021&sort=-value").content.decode()

    assert listed(html) == ["amy", "bob"]
    assert 'id="index-within-rank"' not in html
