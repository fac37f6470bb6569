"""/clubs/ and /clubs/<id>/: clubs with their players counted, and a club's rating list."""

import re
from datetime import date, timedelta

import pytest
from django.db import connection
from django.template import Context, Template
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from players.models import AuditEntry, Game, Membership
from players.public import club_page
from players.public.club_cache import forget_club_activity
from players.services.adjustments import ResyncChange, resync_apply
from players.services.games import game_void, record_sheet_submit
from players.services.memberships import membership_start
from players.services.players import player_update
from players.services.tournaments import tournament_club_set
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


def test_a_club_page_shows_a_page_of_its_members_sorted_and_its_csv_every_member(client):
    durban = factories.club("Durban Go Club")
    for number in range(60):
        rated(f"m{number:02d}", "5k", number, club=durban)
    rated("abe", "1d", 0, club=factories.club("Pretoria Go Club"))

    first = client.get(f"/clubs/{durban.pk}/?sort=name")
    second = client.get(f"/clubs/{durban.pk}/?sort=name&page=2")

    def members(response) -> list[str]:
        html = response.content.decode()
        table = html[html.index('id="rating-list"') : html.index("</table>")]
        return re.findall(r'href="/players/([^/]+)/"', table)

    assert first.status_code == second.status_code == 200
    assert first.context["table"].paginator.count == 60
    assert members(first) == [f"m{number:02d}" for number in range(50)]
    assert members(second) == [f"m{number:02d}" for number in range(50, 60)]
    assert "?sort=name&amp;page=2" in first.content.decode()
    assert "60 players" in first.content.decode()
    csv_text = client.get(f"/ratings.csv?sort=name&club={durban.pk}").content.decode()
    assert [line.split(",")[1] for line in csv_text.splitlines()[1:]] == [
        f"m{number:02d}" for number in range(60)
    ]


def activity_of_this_month(client, club) -> str:
    """The title of the club page's bar of this month: its games and active members."""
    response = client.get(f"/clubs/{club.pk}/")
    assert response.status_code == 200
    return response.context["activity"][-1].title.split(": ", 1)[1]


def activity_queries(client, club) -> int:
    """How many queries a visit of the club's page counts months in (the activity's)."""
    with CaptureQueriesContext(connection) as visit:
        assert client.get(f"/clubs/{club.pk}/").status_code == 200
    return sum("extract" in query["sql"].lower() for query in visit.captured_queries)


def test_a_clubs_activity_is_counted_once_then_again_after_each_write_it_counts(
    client, vera, connie
):
    today = timezone.localdate()
    durban, pretoria = factories.club("Durban Go Club"), factories.club("Pretoria Go Club")
    ann, ben = factories.player("ann", club=durban), factories.player("ben", club=durban)
    pia, vic = factories.player("pia", club=pretoria), factories.player("vic")
    assert activity_queries(client, durban) == 2
    assert activity_queries(client, durban) == 0, "kept"
    assert activity_of_this_month(client, durban) == "0 games, 0 active members"

    evening = record_sheet_submit(
        user=vera, games=[factories.game(ann, vic, "W", today)], club=durban
    ).games[0]
    assert activity_of_this_month(client, durban) == "1 game, 1 active member"
    # a member who played at another club's evening: the member's clubs count again
    record_sheet_submit(user=vera, games=[factories.game(ben, pia, "B", today)], club=pretoria)
    assert activity_of_this_month(client, durban) == "1 game, 2 active members"
    game_void(user=vera, game_id=evening.pk, version=evening.version, reason="not played")
    assert activity_of_this_month(client, durban) == "0 games, 1 active member"
    player_update(user=connie, player=ben, club=None)  # ben leaves the club
    assert activity_of_this_month(client, durban) == "0 games, 0 active members"
    # a tournament given to another club takes its imported games' count with it
    cup = factories.tournament("durban-cup", "Durban Cup", club=durban)
    Game.objects.create(
        seq=99,
        date=today,
        white=ann,
        black=vic,
        winner="W",
        tournament=cup,
        club=durban,
        created_by=vera,
    )
    forget_club_activity([durban.pk])  # as the import would have said
    assert activity_of_this_month(client, durban) == "1 game, 1 active member"
    assert activity_of_this_month(client, pretoria) == "1 game, 1 active member"
    tournament_club_set(user=connie, tournament=cup, club=pretoria)
    assert activity_of_this_month(client, durban) == "0 games, 1 active member"
    assert activity_of_this_month(client, pretoria) == "2 games, 1 active member"


def test_an_admin_edit_of_a_players_club_moves_their_membership_and_recounts_both_clubs(
    client, vera, django_user_model
):
    today = timezone.localdate()
    durban, pretoria = factories.club("Durban Go Club"), factories.club("Pretoria Go Club")
    ann, vic = factories.player("ann", "5k", club=durban), factories.player("vic")
    record_sheet_submit(user=vera, games=[factories.game(ann, vic, "W", today)], club=pretoria)
    assert activity_of_this_month(client, durban) == "0 games, 1 active member"
    assert activity_of_this_month(client, pretoria) == "1 game, 0 active members"
    admin = Client()
    admin.force_login(django_user_model.objects.create_superuser("sam", "sam@example.org", "pw"))

    saved = admin.post(
        reverse("admin:players_player_change", args=[ann.pk]),
        {
            "username": "ann",
            "full_name": "Ann",
            "club": pretoria.pk,
            "national_rank": "5k",
            "active": "on",
        },
    )

    assert saved.status_code == 302, saved.content
    # Counted again at once, not an hour later: ann is Pretoria's active member now.
    assert activity_of_this_month(client, durban) == "0 games, 0 active members"
    assert activity_of_this_month(client, pretoria) == "1 game, 1 active member"
    memberships = {(m.club_id, m.end) for m in Membership.objects.filter(player=ann)}
    assert memberships == {(durban.pk, today), (pretoria.pk, None)}
    actions = set(AuditEntry.objects.values_list("action", flat=True))
    assert {"admin_change_player", "membership_end", "membership_start"} <= actions


def test_a_player_added_in_the_admin_with_a_club_is_its_member_on_its_page(
    client, django_user_model
):
    durban = factories.club("Durban Go Club")
    admin = Client()
    admin.force_login(django_user_model.objects.create_superuser("sam", "sam@example.org", "pw"))
    assert activity_queries(client, durban) == 2

    saved = admin.post(
        reverse("admin:players_player_add"),
        {
            "username": "ann",
            "full_name": "Ann",
            "club": durban.pk,
            "entry_rank": "5k",
            "national_rank": "5k",
        },
    )

    assert saved.status_code == 302, saved.content
    assert Membership.objects.get(player__username="ann").club == durban
    assert activity_queries(client, durban) == 2, "counted again"


def test_a_clubs_activity_is_forgotten_again_once_the_write_commits(
    client, django_capture_on_commit_callbacks
):
    durban = factories.club("Durban Go Club")
    client.get(f"/clubs/{durban.pk}/")

    with django_capture_on_commit_callbacks() as callbacks:
        forget_club_activity([durban.pk])
    # What a visit between the write and its commit counted is not read after it.
    assert activity_queries(client, durban) == 2
    assert activity_queries(client, durban) == 0
    for callback in callbacks:
        callback()
    assert activity_queries(client, durban) == 2


def resyncs_section(html: str) -> str:
    match = re.search(r'<section[^>]*id="club-resyncs".*?</section>', html, re.S)
    assert match, "no resyncs section"
    return re.sub(r"\s+", " ", match.group(0))


def test_a_clubs_resyncs_count_its_current_members_of_two_clubs_not_its_former_ones(client, connie):
    today = timezone.localdate()
    durban, pretoria = factories.club("Durban Go Club"), factories.club("Pretoria Go Club")
    ann = factories.player("ann", club=durban)
    pia = factories.player("pia", club=pretoria)  # and of Durban since January
    membership_start(user=connie, player=pia, club_id=durban.pk, day=date(2024, 1, 1))
    ben = factories.player("ben", club=pretoria)  # of Durban until January
    Membership.objects.create(player=ben, club=durban, end=date(2024, 1, 1))
    vic = factories.player("vic")
    resync_apply(
        user=connie,
        changes=[ResyncChange(player, parse_rank("3k")) for player in (ann, pia, ben, vic)],
        effective_date=today,
    )

    # the same on the page of a day, which reads no other current member
    for query in ("", "?as_of=2024-06-01"):
        html = client.get(f"/clubs/{durban.pk}/{query}").content.decode()
        assert f"effective {today.isoformat()}, 2 members" in resyncs_section(html)
        html = client.get(f"/clubs/{pretoria.pk}/{query}").content.decode()
        assert f"effective {today.isoformat()}, 2 members" in resyncs_section(html)


def test_the_club_page_of_a_day_reads_a_page_of_members_in_as_many_queries_as_a_few(client, vera):
    durban = factories.club("Durban Go Club")
    rival = factories.player("rival", "5k")

    def queries_of_the_page_of_a_day(members: int) -> int:
        """The queries of the page of a day once the club has ``members`` members, each
        with a rated game (50 of them on the page, at most)."""
        joining = [
            factories.player(f"m{number:02d}", "5k", club=durban)
            for number in range(durban.players.count(), members)
        ]
        factories.play(
            vera, *(factories.game(player, rival, "W", date(2024, 1, 10)) for player in joining)
        )
        with CaptureQueriesContext(connection) as visit:
            response = client.get(f"/clubs/{durban.pk}/?as_of=2024-02-01")
        html = response.content.decode()
        table = html[html.index('id="rating-list"') : html.index("</table>")]
        assert len(re.findall(r'href="/players/([^/]+)/"', table)) == min(members, 50)
        return len(visit.captured_queries)

    assert queries_of_the_page_of_a_day(2) == queries_of_the_page_of_a_day(60)


def test_a_club_pages_filter_form_is_crispy_forms_own_written_once_per_query(client, monkeypatch):
    durban = factories.club("Durban Go Club")
    rated("ann", "2d", 0, club=durban)
    crispy = Template("{% load crispy_forms_tags %}{% crispy form %}")
    writes, write = [], club_page.render_crispy_form

    def counted(form):
        writes.append(dict(form.data))
        return write(form)

    club_page._club_filter_form_html.cache_clear()
    monkeypatch.setattr(club_page, "render_crispy_form", counted)
    wrong = "?rank_from=zz&as_of=2999-01-01"  # errors at their fields
    for query in ("", "?as_of=2024-01-31&sort=name", "?as_of=2024-01-31&sort=name&page=1", wrong):
        response = client.get(f"/clubs/{durban.pk}/{query}")
        html = response.content.decode()
        written = crispy.render(Context({"form": response.context["form"]}))
        assert response.context["form_html"] == written
        assert written in html

    assert len(writes) == 3  # the page's number is no filter
    assert "is after today" in response.context["form_html"]
