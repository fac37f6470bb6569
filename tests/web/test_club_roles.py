"""Roles held for one club: a club's volunteers enter sheets for their club and correct
its games, its committee acts on its members and its accounts' club roles; acting for
another club is a 403 that names the club and whom to ask; a tournament is created or
imported for a club, whose volunteers then correct its games. Roles held for every club
(the groups, as every role was before) act for every club."""

import html
import importlib
import re
from datetime import date, timedelta

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client
from django.utils import timezone

from players.models import AuditEntry, ClubRole, Game, Membership, Player, Tournament
from players.roles import ClubRefusal, is_federation_committee, may_act_for
from players.selectors.players import club_members
from players.services import reports as report_services
from players.services.accounts import club_role_grant, club_role_revoke
from players.services.adjustments import ResyncChange, resync_apply
from players.services.base import ServiceError
from players.services.games import record_sheet_submit
from players.services.players import player_merge, player_update
from ratings.engine.ranks import parse_rank
from tests import factories
from tests.engine.test_egd_format import SPRING_CUP
from tests.pages import page_html
from tests.web.committee.test_player_edit import form_data
from tests.web.entry.test_game_correct import edit_post
from tests.web.entry.test_sheet_entry import sheet_post
from tests.web.entry.test_tournament_create import autumn
from tests.web.entry.test_tournament_import import confirmation, upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def cape_town():
    return factories.club("Cape Town Go Club")


@pytest.fixture
def pretoria():
    return factories.club("Pretoria Go Club")


@pytest.fixture
def cape_volunteer(cape_town):
    return factories.club_volunteer("cvol", cape_town)


@pytest.fixture
def cape_committee(cape_town):
    return factories.club_committee_member("ccom", cape_town)


@pytest.fixture
def pretoria_volunteer(pretoria):
    return factories.club_volunteer("pvol", pretoria)


@pytest.fixture
def pretoria_committee(pretoria):
    return factories.club_committee_member("pcom", pretoria)


@pytest.fixture
def members(cape_town, pretoria):
    """Two Cape Town members, a Pretoria member and a visitor of no club."""
    return {
        "ann": factories.player("ann", "5k", club=cape_town),
        "ben": factories.player("ben", "8k", club=cape_town),
        "pia": factories.player("pia", "3k", club=pretoria),
        "vic": factories.player("vic", "9k"),
    }


@pytest.fixture
def cape_game(cape_volunteer, cape_town, members):
    """A Cape Town evening's game, entered by its volunteer."""
    return record_sheet_submit(
        user=cape_volunteer,
        games=[factories.game(members["ann"], members["ben"], "W", date(2024, 3, 1))],
        club=cape_town,
    ).games[0]


def logged_in(account) -> Client:
    client = Client()
    client.force_login(account)
    return client


def test_a_club_volunteer_enters_a_sheet_for_their_club_with_a_visitor(
    cape_volunteer, cape_town, members
):
    client = logged_in(cape_volunteer)
    page = client.get("/sheets/new/").content.decode()
    # Their one club is chosen already; no federation choice is offered.
    assert f'<option value="{cape_town.pk}" selected>Cape Town Go Club</option>' in page
    assert "the federation&#x27;s" not in page

    row = {"white": "ann", "black": "vic", "winner": "B"}
    response = client.post("/sheets/new/", sheet_post(row, club=str(cape_town.pk)))

    assert response.status_code == 302
    game = Game.objects.get()
    assert game.club == cape_town
    assert game.record_sheet.club == cape_town
    assert AuditEntry.objects.get(action="game_create").club == cape_town


def test_a_club_volunteer_cannot_enter_a_sheet_for_another_club_or_none(
    cape_volunteer, pretoria, members
):
    client = logged_in(cape_volunteer)
    row = {"white": "ann", "black": "vic", "winner": "B"}

    other = client.post("/sheets/new/", sheet_post(row, club=str(pretoria.pk)))
    none = client.post("/sheets/new/", sheet_post(row, club=""))

    assert other.status_code == 200
    assert other.context["sheet_form"].errors["club"] == [
        "Pretoria Go Club is not one of the clubs you act for here; you may choose "
        "Cape Town Go Club."
    ]
    assert none.status_code == 200
    assert "This field is required" in none.content.decode()
    assert not Game.objects.exists()
    with pytest.raises(ClubRefusal, match="Pretoria Go Club's"):
        record_sheet_submit(
            user=cape_volunteer,
            games=[factories.game(members["ann"], members["vic"], "B")],
            club=pretoria,
        )


def test_a_club_volunteer_corrects_their_clubs_game(cape_volunteer, cape_game):
    client = logged_in(cape_volunteer)

    response = client.post(f"/games/{cape_game.pk}/edit/", edit_post(cape_game, winner="B"))

    assert response.status_code == 302
    cape_game.refresh_from_db()
    assert cape_game.winner == "B"
    assert AuditEntry.objects.get(action="game_correct").club_id == cape_game.club_id


def test_another_clubs_volunteer_is_refused_with_the_club_and_whom_to_ask(
    pretoria_volunteer, cape_committee, cape_game
):
    client = logged_in(pretoria_volunteer)

    for path in (f"/games/{cape_game.pk}/edit/", f"/games/{cape_game.pk}/void/"):
        response = client.get(path)
        assert response.status_code == 403
        page = response.content.decode()
        assert "Game" in page and "Cape Town Go Club&#x27;s" in page
        assert "Cape Town Go Club&#x27;s committee (ccom)" in page
    posted = client.post(
        f"/games/{cape_game.pk}/void/", {"version": cape_game.version, "reason": "wrong"}
    )
    assert posted.status_code == 403
    cape_game.refresh_from_db()
    assert not cape_game.is_void
    # Reading the game is every volunteer's; its buttons are its club's.
    game_page = client.get(f"/games/{cape_game.pk}/").content.decode()
    assert "This game is Cape Town Go Club's: its volunteers correct it." in game_page
    assert f"/games/{cape_game.pk}/edit/" not in game_page


def test_another_clubs_game_page_shows_neither_its_audit_trail_nor_its_reports(
    pretoria_volunteer, cape_volunteer, cape_game, members, django_user_model
):
    ann = members["ann"]
    ann.account = django_user_model.objects.create_user("ann-login")
    ann.save(update_fields=["account"])
    report_services.report_create(
        user=ann.account,
        player=ann,
        game_id=cape_game.pk,
        kind="wrong_result",
        text="Ben resigned, I won",
    )

    theirs = logged_in(pretoria_volunteer).get(f"/games/{cape_game.pk}/").content.decode()
    ours = logged_in(cape_volunteer).get(f"/games/{cape_game.pk}/").content.decode()

    # A club's volunteers read their clubs' audit entries and reports (as /audit/ and
    # /reports/ show them): the game's page is every volunteer's, those are not.
    assert "Ben resigned, I won" not in theirs
    assert 'id="game-reports"' not in theirs
    assert "Audit trail" not in theirs and "audit-table" not in theirs
    assert "Ben resigned, I won" in ours
    assert "Audit trail" in ours and "audit-table" in ours


def test_the_federations_roles_act_for_every_club(vera, connie, cape_game, cape_town):
    assert may_act_for(vera, "volunteers", cape_town.pk)
    assert may_act_for(vera, "volunteers", None)
    assert is_federation_committee(connie)
    client = logged_in(vera)

    response = client.post(f"/games/{cape_game.pk}/edit/", edit_post(cape_game, winner="B"))

    assert response.status_code == 302


def test_a_club_volunteer_may_not_change_the_federations_games(cape_volunteer, vera, members):
    game = record_sheet_submit(
        user=vera, games=[factories.game(members["ann"], members["ben"], "W")]
    ).games[0]
    assert game.club is None

    response = logged_in(cape_volunteer).get(f"/games/{game.pk}/edit/")

    assert response.status_code == 403
    assert "the federation&#x27;s" in response.content.decode()


def test_a_club_committee_edits_its_members_only(cape_committee, pretoria_committee, members):
    player_update(user=cape_committee, player=members["ann"], country="ZA")

    assert logged_in(cape_committee).get("/committee/players/ann/edit/").status_code == 200
    assert logged_in(pretoria_committee).get("/committee/players/ann/edit/").status_code == 403
    assert logged_in(pretoria_committee).get("/committee/players/ann/adjust/").status_code == 403
    with pytest.raises(ClubRefusal):
        player_update(user=pretoria_committee, player=members["ann"], country="NA")
    with pytest.raises(ClubRefusal):
        player_merge(user=cape_committee, keep=members["ann"], duplicate=members["pia"])
    # A visitor of no club is the federation committee's.
    with pytest.raises(ClubRefusal, match="the federation's"):
        player_update(user=cape_committee, player=members["vic"], country="NA")


def test_another_clubs_committee_is_refused_with_the_players_name_not_a_capitalised_username(
    pretoria_committee, cape_town
):
    factories.player("siphoz21", "5k", club=cape_town, full_name="Sipho Zulu")

    client = logged_in(pretoria_committee)

    page = html.unescape(page_html(client, "/committee/players/siphoz21/edit/", status=403))
    assert "Sipho Zulu's record is " in page
    assert "Siphoz21" not in page


def test_a_club_committee_resyncs_its_members_only(cape_committee, members):
    resync_apply(
        user=cape_committee,
        changes=[ResyncChange(members["ann"], parse_rank("4k"))],
        effective_date=date(2024, 4, 1),
    )

    with pytest.raises(ClubRefusal):
        resync_apply(
            user=cape_committee,
            changes=[ResyncChange(members["pia"], parse_rank("2k"))],
            effective_date=date(2024, 4, 1),
        )
    members["ann"].refresh_from_db()
    assert str(members["ann"].national_rank) == "4k"


def test_a_club_committees_preview_does_not_deny_another_clubs_player_exists(
    cape_committee, connie, members
):
    def note_of(account, line: str) -> str:
        response = logged_in(account).post(
            "/committee/resync/", {"list_text": line, "effective_date": "2024-04-01", "note": ""}
        )
        (row,) = response.context["preview"].rows
        return row.note

    # Pia is Pretoria's: unknown among Cape Town's members, not unknown to the site.
    assert note_of(cape_committee, "pia, 2k") == "no member of your clubs has this username or name"
    assert note_of(connie, "nobody, 2k") == "no player has this username or name"


def test_moving_a_member_ends_one_membership_and_starts_another(
    connie, cape_town, pretoria, members
):
    player_update(user=connie, player=members["ben"], club=pretoria)

    memberships = {
        (m.club_id, m.end is None) for m in Membership.objects.filter(player__username="ben")
    }
    assert memberships == {(cape_town.pk, False), (pretoria.pk, True)}
    actions = set(AuditEntry.objects.values_list("action", flat=True))
    assert {"membership_end", "membership_start", "player_update"} <= actions
    # The trail names the clubs, not their numbers.
    summaries = dict(
        AuditEntry.objects.filter(action__startswith="membership").values_list("action", "summary")
    )
    assert summaries["membership_end"].startswith("ben leaves club Cape Town Go Club on ")
    assert summaries["membership_start"].startswith("ben joins club Pretoria Go Club from ")


def test_a_club_committee_gives_and_takes_its_clubs_roles(
    cape_committee, pretoria, cape_town, django_user_model
):
    rita = django_user_model.objects.create_user("rita")

    grant = club_role_grant(user=cape_committee, account=rita, club=cape_town, role="volunteers")

    assert grant.group == Group.objects.get(name="volunteers")
    assert may_act_for(rita, "volunteers", cape_town.pk)
    assert not may_act_for(rita, "volunteers", pretoria.pk)
    with pytest.raises(ClubRefusal):
        club_role_grant(user=cape_committee, account=rita, club=pretoria, role="volunteers")
    # Through the account page too: the page offers the clubs the committee manages.
    client = logged_in(cape_committee)
    page = client.get(f"/committee/accounts/{rita.pk}/").content.decode()
    assert "Volunteer of" in page and "Pretoria" not in page
    assert 'name="role"' in page and "Save the role" not in page
    response = client.post(
        f"/committee/accounts/{rita.pk}/clubs/",
        {"club": cape_town.pk, "role": "volunteers", "action": "revoke"},
    )
    assert response.status_code == 302
    assert not ClubRole.objects.filter(user=rita).exists()
    actions = list(AuditEntry.objects.order_by("id").values_list("action", "club_id"))
    assert actions == [("club_role_grant", cape_town.pk), ("club_role_revoke", cape_town.pk)]
    club_role_revoke(user=cape_committee, account=rita, club=cape_town, role="volunteers")


def test_a_club_committee_may_not_give_or_take_a_staff_accounts_club_roles(
    cape_committee, connie, cape_town, django_user_model
):
    admin = django_user_model.objects.create_user("admin", is_staff=True)
    boss = django_user_model.objects.create_superuser("boss")
    factories.club_role(admin, "volunteers", cape_town)

    for user in (cape_committee, connie):  # a club's committee, the federation's
        with pytest.raises(ServiceError, match="admin is a staff account: only staff"):
            club_role_grant(user=user, account=admin, club=cape_town, role="committee")
        with pytest.raises(ServiceError, match="admin is a staff account: only staff"):
            club_role_revoke(user=user, account=admin, club=cape_town, role="volunteers")
        with pytest.raises(ServiceError, match="boss is a superuser: only a superuser"):
            club_role_grant(user=user, account=boss, club=cape_town, role="volunteers")
    # Posted to the account's page (which offers no form for it): the page says why,
    # and nothing changed.
    response = logged_in(cape_committee).post(
        f"/committee/accounts/{admin.pk}/clubs/",
        {"club": cape_town.pk, "role": "volunteers", "action": "revoke"},
    )
    assert response.status_code == 200
    assert "Admin is a staff account: only staff may change this account." in html.unescape(
        response.content.decode()
    )
    assert list(ClubRole.objects.filter(user=admin).values_list("group__name", flat=True)) == [
        "volunteers"
    ]
    assert not AuditEntry.objects.filter(action__startswith="club_role").exists()
    # A superuser may.
    club_role_revoke(user=boss, account=admin, club=cape_town, role="volunteers")
    assert not ClubRole.objects.filter(user=admin).exists()


def test_a_club_committee_may_not_manage_an_account_holding_another_clubs_roles_too(
    cape_committee, pretoria_committee, cape_town, pretoria, members
):
    # A volunteer of both clubs, and a Cape Town member who is Pretoria's volunteer: a
    # link to choose their password sent by Cape Town's committee to an address of its
    # choosing would give it their rights in Pretoria.
    both = factories.club_role(factories.club_volunteer("vboth", cape_town), "volunteers", pretoria)
    ann = members["ann"]
    ann.account = factories.club_volunteer("ann-login", pretoria)
    ann.save(update_fields=["account"])
    client = logged_in(cape_committee)

    for account in (both, ann.account):
        page = client.get(f"/committee/accounts/{account.pk}/")
        sent = client.post(
            f"/committee/accounts/{account.pk}/password/", {"email": "mine@example.org"}
        )

        assert page.status_code == 403, account.username
        assert "Pretoria Go Club&#x27;s" in page.content.decode()
        assert sent.status_code == 403, account.username
    # Pretoria's committee may not either (they are Cape Town's too); the federation's
    # committee may.
    assert logged_in(pretoria_committee).get(f"/committee/accounts/{both.pk}/").status_code == 403


def test_a_club_committee_cannot_give_a_role_for_every_club(cape_committee, django_user_model):
    rita = django_user_model.objects.create_user("rita")
    client = logged_in(cape_committee)

    response = client.post(f"/committee/accounts/{rita.pk}/role/", {"role": "committee"})

    assert response.status_code == 403
    assert not rita.groups.exists()


def test_a_clubs_page_names_its_people_and_shows_its_games_evenings_activity_and_resyncs(
    client, cape_town, cape_committee, cape_volunteer, cape_game, members
):
    today = timezone.localdate()
    recent = record_sheet_submit(
        user=cape_volunteer,
        games=[factories.game(members["ann"], members["vic"], "B", today)],
        club=cape_town,
        allow_duplicates=True,  # far from ann's game of 2024
    ).games[0]
    resync_apply(
        user=cape_committee,
        changes=[ResyncChange(members["ben"], parse_rank("7k"))],
        effective_date=today,
    )

    html = client.get(f"/clubs/{cape_town.pk}/").content.decode()

    people = section(html, "club-people")
    assert "Committee: ccom" in people and "Volunteers: cvol" in people
    games = section(html, "club-recent-games")
    assert games.index(today.isoformat()) < games.index("2024-03-01")
    assert "Vic" in games  # a visitor's game at the club's evening
    evenings = section(html, "club-evenings")
    assert f"Evening of {today.isoformat()}: 1 game" in evenings
    assert "sheet" not in evenings.lower().replace("no sheet", "")  # links for volunteers only
    resyncs = re.sub(r"\s+", " ", section(html, "club-resyncs"))
    assert f"effective {today.isoformat()}, 1 member" in resyncs
    activity = section(html, "club-activity")
    assert f"{today:%Y-%m}: 1 game, 1 active member" in activity  # vic is no member
    assert recent.club == cape_town


def test_a_clubs_list_as_of_a_day_has_its_members_of_that_day(connie, cape_town, pretoria, members):
    player_update(user=connie, player=members["ben"], club=pretoria)
    moved = Membership.objects.get(player=members["ben"], club=cape_town)
    moved.end = date(2024, 6, 1)  # he left in June
    moved.save()

    def listed(club, day=None) -> set[str]:
        members = Player.objects.filter(club_members(club, day))
        return set(members.values_list("username", flat=True))

    assert listed(cape_town, date(2024, 5, 1)) == {"ann", "ben"}
    assert listed(cape_town, date(2024, 7, 1)) == {"ann"}
    assert listed(cape_town) == {"ann"}
    assert listed(pretoria) == {"ben", "pia"}
    assert "vic" not in listed(pretoria) | listed(cape_town)


def section(html: str, section_id: str) -> str:
    match = re.search(rf'<section[^>]*id="{section_id}".*?</section>', html, re.S)
    assert match, f"no section {section_id}"
    return match.group(0)


def test_a_clubs_roles_read_their_clubs_audit_and_reports_and_the_federation_filters_by_club(
    vera, pretoria_volunteer, cape_volunteer, cape_game, pretoria, members, django_user_model
):
    pretoria_game = record_sheet_submit(
        user=pretoria_volunteer,
        games=[factories.game(members["pia"], members["vic"], "W", date(2024, 3, 2))],
        club=pretoria,
    ).games[0]
    for game, player in ((cape_game, members["ann"]), (pretoria_game, members["pia"])):
        account = django_user_model.objects.create_user(f"{player.username}-login")
        player.account = account
        player.save(update_fields=["account"])
        report_services.report_create(
            user=account, player=player, game_id=game.pk, kind="wrong_result"
        )

    def audit_games(account, query="") -> set[str]:
        html = logged_in(account).get(f"/audit/{query}").content.decode()
        return set(re.findall(r'href="/games/(\d+)/"', html))

    def reported(account, query="") -> set[str]:
        html = logged_in(account).get(f"/reports/{query}").content.decode()
        return set(re.findall(r'href="/games/(\d+)/"', html))

    cape, other = str(cape_game.pk), str(pretoria_game.pk)
    assert audit_games(cape_volunteer) == {cape}
    assert audit_games(vera) == {cape, other}
    assert audit_games(vera, f"?club={pretoria.pk}") == {other}
    # A club not among the user's is no choice: the filter says so, nothing leaks.
    assert audit_games(cape_volunteer, f"?club={pretoria.pk}") == {cape}
    assert reported(cape_volunteer) == {cape}
    assert reported(vera) == {cape, other}
    assert reported(vera, f"?club={pretoria.pk}") == {other}
    assert reported(cape_volunteer, f"?club={pretoria.pk}") == {cape}


def test_the_queue_of_reports_refuses_a_club_not_among_the_volunteers_by_name(
    cape_volunteer, cape_town, pretoria
):
    client = logged_in(cape_volunteer)

    refused = client.get(f"/reports/?club={pretoria.pk}")
    chosen = client.get(f"/reports/?club={cape_town.pk}")
    garbled = client.get("/reports/?club=99999999999999999999999")

    error = re.search(r'id="report-club-error">([^<]*)<', refused.content.decode())
    assert error and pretoria.name in error.group(1) and cape_town.name in error.group(1)
    assert 'id="report-club-error"' not in chosen.content.decode()
    assert garbled.status_code == 200
    assert 'id="report-club-error"' in garbled.content.decode()


def test_a_club_committees_resync_preview_matches_its_members_only(cape_committee, members):
    client = logged_in(cape_committee)

    response = client.post(
        "/committee/resync/",
        {"list_text": "ann,4k\npia,2k", "effective_date": "2024-04-01"},
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert 'href="/players/ann/"' in html
    assert 'href="/players/pia/"' not in html  # Pretoria's: as if not here


def test_the_federations_list_offers_each_club_with_its_count_of_players(client, members):
    html = client.get("/").content.decode()

    assert re.search(r'<option value="\d+">Cape Town Go Club \(2\)</option>', html)
    assert re.search(r'<option value="\d+">Pretoria Go Club \(1\)</option>', html)


def test_a_club_volunteer_adds_a_player_to_their_club_or_to_none(cape_volunteer, pretoria):
    client = logged_in(cape_volunteer)
    page = client.get("/players/new/").content.decode()
    assert "Cape Town Go Club" in page and "Pretoria Go Club" not in page

    refused = client.post(
        "/players/new/",
        {"username": "zed", "full_name": "Zed", "club": pretoria.pk, "national_rank": "9k"},
    )
    visitor = client.post(
        "/players/new/", {"username": "vis", "full_name": "Vis", "club": "", "national_rank": "9k"}
    )

    assert refused.context["form"].errors["club"] == [
        "Pretoria Go Club is not one of the clubs you act for here; you may choose "
        "Cape Town Go Club."
    ]
    assert visitor.status_code == 302
    assert set(Player.objects.values_list("username", flat=True)) == {"vis"}
    assert not Membership.objects.filter(player__username="vis").exists()


def test_a_club_committee_sees_its_clubs_games_and_members_awaiting_the_recompute(
    cape_committee, pretoria_committee, connie, cape_town, pretoria, members
):
    from ratings.recompute.run import recompute_pending

    recompute_pending()  # nothing waits before tonight's sheets
    cape = record_sheet_submit(
        user=cape_committee,
        games=[
            factories.game(members["ann"], members["ben"], "W", date(2024, 3, 1)),
            factories.game(members["ben"], members["vic"], "B", date(2024, 3, 1)),
        ],
        club=cape_town,
    ).games
    record_sheet_submit(
        user=pretoria_committee,
        games=[factories.game(members["pia"], members["ann"], "W", date(2024, 3, 2))],
        club=pretoria,
    )

    html = logged_in(cape_committee).get("/committee/recompute/").content.decode()
    waiting = section(html, "club-waiting")
    assert "2 games entered for Cape Town Go Club await the SAGC index recompute" in waiting
    assert set(re.findall(r'href="/games/(\d+)/"', waiting)) == {str(g.pk) for g in cape}
    members_shown = re.search(r'id="club-waiting-members".*?</ul>', waiting, re.S).group(0)
    # ann played twice (once at Pretoria's evening), ben twice; Pretoria's pia and the
    # visitor are no member of Cape Town's
    assert re.findall(r'href="/players/(\w+)/"', members_shown) == ["ann", "ben"]
    assert "2 games" in members_shown and "pia" not in members_shown
    assert "Full recompute of every algorithm" not in html

    # Another club's is no choice for a club's committee; the federation's sees any club.
    refused = logged_in(pretoria_committee).get(f"/committee/recompute/?club={cape_town.pk}")
    assert refused.status_code == 200
    assert "await the" not in section(refused.content.decode(), "club-waiting")
    federation = logged_in(connie).get(f"/committee/recompute/?club={pretoria.pk}")
    assert "1 game entered for Pretoria Go Club awaits" in federation.content.decode()

    recompute_pending()
    html = logged_in(cape_committee).get("/committee/recompute/").content.decode()
    assert "Nothing of Cape Town Go Club is waiting" in section(html, "club-waiting")


# --- a tournament's club: created or imported for a club; existing ones by migration 0017

NEW, IMPORT = "/tournaments/new/", "/tournaments/import/"


def test_a_club_volunteer_creates_a_tournament_of_their_club_listed_on_its_page(
    cape_volunteer, cape_town, pretoria
):
    client = logged_in(cape_volunteer)
    form = client.get(NEW).context["form"]
    assert list(form.fields["club"].queryset) == [cape_town]
    assert form["club"].value() == cape_town.pk, "their one club is chosen already"

    response = client.post(NEW, autumn(club=cape_town.pk))

    assert response.status_code == 302
    tournament = Tournament.objects.get()
    assert tournament.club == cape_town
    entry = AuditEntry.objects.get(action="tournament_create")
    assert (entry.after["club"], entry.club_id) == ("Cape Town Go Club", cape_town.pk)
    page = client.get(f"/clubs/{cape_town.pk}/").content.decode()
    assert 'href="/tournaments/autumn-open-2024/"' in page
    facts = client.get("/tournaments/autumn-open-2024/").content.decode()
    assert re.search(
        rf'id="tournament-club"><a href="/clubs/{cape_town.pk}/">Cape Town Go Club</a>', facts
    )
    other = client.get(f"/clubs/{pretoria.pk}/").content.decode()
    assert "/tournaments/autumn-open-2024/" not in other


def test_a_club_volunteer_may_not_create_a_tournament_of_another_club_or_none(
    cape_volunteer, pretoria
):
    client = logged_in(cape_volunteer)

    for club in (pretoria.pk, ""):
        response = client.post(NEW, autumn(club=club))
        assert response.status_code == 200
        assert response.context["form"].errors["club"]
    assert not Tournament.objects.exists()


def test_the_federations_volunteers_create_a_tournament_of_any_club_or_none(
    vera, cape_town, pretoria
):
    client = logged_in(vera)
    assert set(client.get(NEW).context["form"].fields["club"].queryset) == {cape_town, pretoria}

    client.post(NEW, autumn(club=pretoria.pk))
    client.post(NEW, autumn(code="federation-cup"))

    assert dict(Tournament.objects.values_list("code", "club")) == {
        "autumn-open-2024": pretoria.pk,
        "federation-cup": None,
    }


def test_an_imported_tournaments_games_are_its_clubs_to_correct_and_void(
    cape_volunteer, pretoria_volunteer, cape_town
):
    client = logged_in(cape_volunteer)
    form = client.get(IMPORT).context["form"]
    assert form["club"].value() == cape_town.pk, "their one club is chosen already"
    preview = upload(client, SPRING_CUP, club=cape_town.pk)
    assert preview.context["form"]["club"].value() == cape_town.pk

    response = client.post(IMPORT, confirmation(preview))

    assert response.status_code == 302
    tournament = Tournament.objects.get()
    assert tournament.club == cape_town
    games = Game.objects.filter(tournament=tournament)
    assert games.count() == 6
    assert set(games.values_list("club", flat=True)) == {cape_town.pk}
    game = games.order_by("seq").first()
    refused = logged_in(pretoria_volunteer).post(
        f"/games/{game.pk}/void/", {"version": game.version, "reason": "not played"}
    )
    assert refused.status_code == 403
    assert "Cape Town Go Club&#x27;s" in refused.content.decode()
    voided = client.post(
        f"/games/{game.pk}/void/", {"version": game.version, "reason": "not played"}
    )
    assert voided.status_code == 302
    game.refresh_from_db()
    assert game.is_void


def test_a_clubs_import_is_in_its_clubs_audit_trail(cape_volunteer, cape_town):
    client = logged_in(cape_volunteer)
    preview = upload(client, SPRING_CUP, club=cape_town.pk)

    client.post(IMPORT, confirmation(preview))

    assert AuditEntry.objects.get(action="games_import").club == cape_town
    trail = client.get("/audit/", {"action": "games_import"}).content.decode()
    assert "spring.h9: 6 games" in trail


def test_the_federations_volunteer_imports_a_tournament_of_no_club(vera, cape_town):
    client = logged_in(vera)
    preview = upload(client, SPRING_CUP)
    assert preview.context["form"]["club"].value() is None

    client.post(IMPORT, confirmation(preview))

    assert Tournament.objects.get().club is None
    assert set(Game.objects.values_list("club", flat=True)) == {None}


def test_a_club_volunteer_may_not_add_games_to_another_clubs_tournament(
    cape_volunteer, cape_town, pretoria
):
    factories.tournament("Spring-Cup-2024", "Pretoria's spring cup", club=pretoria)
    client = logged_in(cape_volunteer)
    preview = upload(client, SPRING_CUP, club=cape_town.pk)
    assert "Club: Pretoria Go Club" in preview.content.decode()
    # What the browser posts back: the volunteer's club, so the refusal names Pretoria's.
    assert f'<input type="hidden" name="club" value="{cape_town.pk}">' in preview.content.decode()

    response = client.post(IMPORT, confirmation(preview))

    assert response.status_code == 403
    assert "Pretoria Go Club&#x27;s" in response.content.decode()
    assert not Game.objects.exists()


def test_a_club_volunteers_sheet_may_not_add_games_to_another_clubs_tournament(
    cape_volunteer, cape_town, pretoria, members
):
    factories.tournament("pretoria-cup", "Pretoria cup", club=pretoria)
    factories.tournament("cape-open", "Cape open", club=cape_town)
    client = logged_in(cape_volunteer)
    rows = (
        {"white": "ann", "black": "ben", "winner": "W", "tournament": "cape-open"},
        {"white": "ben", "black": "ann", "winner": "B", "tournament": "pretoria-cup"},
    )

    response = client.post("/sheets/new/", sheet_post(*rows, club=str(cape_town.pk)))

    # As for a file added to it: only its club's volunteers (or the federation's) add
    # games to a tournament; the row says so at its field, with whom to ask.
    assert response.status_code == 200
    errors = response.context["formset"].forms[1].errors["tournament"]
    assert errors[0].startswith(
        "The tournament pretoria-cup is Pretoria Go Club's: only Pretoria Go Club's "
        "volunteers may change it"
    )
    assert response.context["formset"].forms[0].errors == {}
    assert not Game.objects.exists()


def test_a_club_volunteers_correction_may_not_move_a_game_to_another_clubs_tournament(
    cape_volunteer, cape_game, pretoria
):
    factories.tournament("pretoria-cup", "Pretoria cup", club=pretoria)
    client = logged_in(cape_volunteer)

    response = client.post(
        f"/games/{cape_game.pk}/edit/",
        edit_post(cape_game, tournament="pretoria-cup", round="1"),
    )

    assert response.status_code == 200
    assert (
        response.context["form"]
        .errors["tournament"][0]
        .startswith("The tournament pretoria-cup is Pretoria Go Club's")
    )
    cape_game.refresh_from_db()
    assert cape_game.tournament is None


def test_games_added_to_a_tournament_on_file_are_its_clubs(vera, pretoria, cape_town):
    factories.tournament("Spring-Cup-2024", "Pretoria's spring cup", club=pretoria)
    client = logged_in(vera)
    preview = upload(client, SPRING_CUP)

    client.post(IMPORT, confirmation(preview, club=cape_town.pk))

    assert set(Game.objects.values_list("club", flat=True)) == {pretoria.pk}
    assert Tournament.objects.get().club == pretoria


def test_a_volunteer_of_several_clubs_adds_a_file_to_their_tournament_on_file_choosing_no_club(
    cape_town, pretoria
):
    volunteer = factories.club_volunteer("twoclubs", cape_town)
    factories.club_role(volunteer, "volunteers", pretoria)
    factories.tournament("Spring-Cup-2024", "Pretoria's spring cup", club=pretoria)
    client = logged_in(volunteer)

    preview = upload(client, SPRING_CUP)

    assert preview.status_code == 200
    assert preview.context["form"].errors == {}
    page = preview.content.decode()
    assert "Club: Pretoria Go Club" in page
    response = client.post(IMPORT, confirmation(preview))
    assert response.status_code == 302, response.context["form"].errors
    assert Game.objects.count() == 6
    assert set(Game.objects.values_list("club", flat=True)) == {pretoria.pk}
    assert Tournament.objects.get().club == pretoria


def test_a_volunteer_of_several_clubs_still_chooses_the_club_of_a_new_tournament(
    cape_town, pretoria
):
    volunteer = factories.club_volunteer("twoclubs", cape_town)
    factories.club_role(volunteer, "volunteers", pretoria)
    client = logged_in(volunteer)

    response = upload(client, SPRING_CUP)

    assert response.status_code == 200
    assert "club" in response.context["form"].errors
    assert not Tournament.objects.exists()


def test_the_migration_gives_a_tournament_the_club_of_most_of_its_sheets(vera, cape_town, pretoria):
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "8k")
    mostly_cape, tied, held = (
        factories.tournament("mostly-cape"),
        factories.tournament("tied"),
        factories.tournament("held", club=pretoria),
    )

    def sheet(club, tournament, games: int) -> None:
        record_sheet_submit(
            user=vera,
            games=[
                factories.game(ann, ben, "W", date(2024, 3, day), tournament=tournament, round=day)
                for day in range(1, games + 1)
            ],
            club=club,
            allow_duplicates=True,  # the same pair on the same days at another sheet
        )

    sheet(cape_town, mostly_cape, 2)
    sheet(pretoria, mostly_cape, 1)
    sheet(cape_town, tied, 1)
    sheet(pretoria, tied, 1)
    imported = [
        Game.objects.create(
            seq=1000 + number,
            date=date(2024, 3, 9),
            white=ann,
            black=ben,
            winner="B",
            tournament=tournament,
            created_by=vera,
        )
        for number, tournament in enumerate((mostly_cape, tied, held))
    ]

    importlib.import_module(
        "players.migrations.0017_tournament_clubs"
    ).tournament_clubs_from_sheets(apps, None)

    clubs = dict(Tournament.objects.values_list("code", "club"))
    assert clubs == {"mostly-cape": cape_town.pk, "tied": None, "held": pretoria.pk}
    for game in imported:
        game.refresh_from_db()
    assert [game.club_id for game in imported] == [cape_town.pk, None, pretoria.pk]
    # Games entered on sheets keep their sheet's club.
    assert set(
        Game.objects.filter(tournament=mostly_cape, record_sheet__isnull=False).values_list(
            "club", flat=True
        )
    ) == {cape_town.pk, pretoria.pk}


def test_a_clubs_activity_counts_each_member_once_a_month_whatever_colour_or_club(
    vera, cape_town, pretoria, members
):
    from players.selectors.clubs import club_activity

    today = timezone.localdate()
    this_month = today.replace(day=1)
    last_month = (this_month - timedelta(days=1)).replace(day=1)
    ann, ben, pia, vic = (members[name] for name in ("ann", "ben", "pia", "vic"))
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", this_month),
            factories.game(ben, ann, "B", this_month, round=2),  # both again, other colours
            factories.game(vic, ann, "W", last_month),
        ],
        club=cape_town,
    )
    # ben at Pretoria's evening: active for Cape Town, a game of Pretoria's
    record_sheet_submit(
        user=vera, games=[factories.game(pia, ben, "W", last_month, round=3)], club=pretoria
    )

    months = {row.month: (row.games, row.members) for row in club_activity(cape_town, today)}

    assert len(months) == 24
    assert months[this_month] == (2, 2)
    assert months[last_month] == (1, 2)
    assert sum(games for games, _ in months.values()) == 3
    # The chart names the years: under the first month and under each January.
    from players.web.charts import activity_bars, activity_svg

    rows = club_activity(cape_town, today)
    svg = activity_svg(activity_bars(rows)[0])
    years = re.findall(r">(\d{4})</text>", svg)
    assert years == [str(rows[0].month.year)] + [
        str(row.month.year) for row in rows[1:] if row.month.month == 1
    ]
    assert "<title>" + f"{this_month:%Y-%m}: 2 games, 2 active members" in svg
    pretoria_months = {row.month: row for row in club_activity(pretoria, today)}
    assert (pretoria_months[last_month].games, pretoria_months[last_month].members) == (1, 1)


def club_options(page: str) -> list[str]:
    """The clubs the page's ``club`` select offers, by name."""
    select = re.search(r'<select name="club".*?</select>', page, re.S)
    assert select is not None, "the page has a club select"
    return re.findall(r"<option value=\"\d+\"[^>]*>([^<]+)</option>", select.group(0))


def test_a_club_committees_player_form_offers_its_clubs_and_refuses_another_at_the_field(
    cape_committee, connie, cape_town, pretoria, members
):
    client = logged_in(cape_committee)
    ann = members["ann"]

    page = client.get("/committee/players/ann/edit/").content.decode()
    refused = client.post("/committee/players/ann/edit/", form_data(ann, club=pretoria.pk))

    assert club_options(page) == ["Cape Town Go Club"]
    assert club_options(logged_in(connie).get("/committee/players/ann/edit/").content.decode()) == [
        "Cape Town Go Club",
        "Pretoria Go Club",
    ]
    assert refused.status_code == 200
    assert refused.context["form"].errors["club"] == [
        "Pretoria Go Club is not one of the clubs you act for here; you may choose "
        "Cape Town Go Club."
    ]
    ann.refresh_from_db()
    assert ann.club == cape_town
    assert not Membership.objects.filter(player=ann, club=pretoria).exists()


def test_a_member_of_two_clubs_leaves_a_club_only_by_its_committee(
    pretoria_committee, cape_town, pretoria, members
):
    ann = members["ann"]  # of Cape Town (their record's club), and of Pretoria too
    Membership.objects.create(player=ann, club=pretoria)
    client = logged_in(pretoria_committee)

    page = client.get("/committee/players/ann/edit/").content.decode()
    moved = client.post("/committee/players/ann/edit/", form_data(ann, club=pretoria.pk))

    assert club_options(page) == ["Cape Town Go Club"]
    assert re.search(r'<select name="club"[^>]*disabled', page)
    assert "Cape Town Go Club's committee (or the federation's) moves Ann" in html.unescape(page)
    assert moved.status_code == 302, "the rest of the record is theirs to correct"
    ann.refresh_from_db()
    assert ann.club == cape_town
    assert Membership.objects.get(player=ann, club=cape_town).end is None
    with pytest.raises(ClubRefusal, match="Ann's membership of Cape Town Go Club is Cape Town"):
        player_update(user=pretoria_committee, player=ann, club=None)


def test_the_merge_preview_of_another_clubs_player_says_whose_it_is_and_offers_no_merge(
    cape_committee, pretoria_committee, members
):
    client = logged_in(cape_committee)

    response = client.get("/committee/players/merge/", {"keep": "ann", "duplicate": "pia"})

    page = html.unescape(response.content.decode())
    assert response.status_code == 200
    assert 'data-record="duplicate"' in page, "the preview shows both records"
    assert 'id="not-yours"' in page
    assert "Pia's record is Pretoria Go Club's: only Pretoria Go Club's committee" in page
    assert "Pretoria Go Club's committee (pcom)" in page
    assert 'name="confirm"' not in page
    assert "Merge pia into ann" not in page
    own = client.get("/committee/players/merge/", {"keep": "ann", "duplicate": "ben"})
    assert "Merge ben into ann</button>" in own.content.decode()


def test_another_clubs_player_and_tournament_offer_no_committee_link_to_a_club_committee(
    cape_committee, pretoria_committee, members, pretoria
):
    factories.tournament("pta-open", "Pretoria Open", club=pretoria)
    client = logged_in(cape_committee)

    own = client.get("/players/ann/").content.decode()
    other = client.get("/players/pia/").content.decode()
    cup = client.get("/tournaments/pta-open/").content.decode()

    assert 'href="/committee/players/ann/edit/"' in own
    assert "/committee/players/pia/" not in other
    assert 'id="correct-class"' not in cup
    assert (
        'id="correct-class"'
        in logged_in(pretoria_committee).get("/tournaments/pta-open/").content.decode()
    )


def test_the_adjust_chooser_says_whose_another_clubs_player_is_at_the_field(
    cape_committee, pretoria_committee, members
):
    client = logged_in(cape_committee)

    refused = client.get("/committee/players/adjust/", {"player": "pia"})
    own = client.get("/committee/players/adjust/", {"player": "ann"})

    assert refused.status_code == 200
    (error,) = refused.context["form"].errors["player"]
    assert error.startswith("Pia's record is Pretoria Go Club's: only Pretoria Go Club's committee")
    assert "Pretoria Go Club's committee (pcom)" in error
    assert own.status_code == 302


def test_a_club_committee_creates_a_players_account_and_is_told_at_the_field_what_it_may_not(
    cape_committee, members, pretoria
):
    client = logged_in(cape_committee)
    new = "/committee/accounts/new/"

    form = client.get(new).context["form"]
    volunteer = client.post(new, {"username": "vic", "role": "volunteer", "email": "v@example.org"})
    pias = client.post(
        new, {"username": "pia1", "role": "reader", "email": "p@example.org", "player": "pia"}
    )
    anns = client.post(
        new, {"username": "ann1", "role": "reader", "email": "a@example.org", "player": "ann"}
    )

    assert [value for value, _label in form.fields["role"].choices] == ["reader"]
    assert "the federation's committee gives them" in volunteer.context["form"].errors["role"][0]
    assert pias.status_code == 200
    assert pias.context["form"].errors["player"][0].startswith("Pia's record is Pretoria Go Club's")
    assert anns.status_code == 302
    assert set(
        get_user_model()
        .objects.filter(username__in=["vic", "pia1", "ann1"])
        .values_list("username", flat=True)
    ) == {"ann1"}
    rita = get_user_model().objects.create_user("rita")
    linked = client.post(f"/committee/accounts/{rita.pk}/player/", {"player": "pia"})
    assert linked.status_code == 200
    assert linked.context["player_form"].errors["player"][0].startswith("Pia's record is Pretoria")


def test_a_resync_of_another_clubs_players_offers_its_revert_only_to_their_committee(
    connie, cape_committee, members
):
    ranks = [("ann", "4k"), ("pia", "2k")]
    both = resync_apply(
        user=connie,
        changes=[ResyncChange(members[name], parse_rank(rank)) for name, rank in ranks],
        effective_date=date(2024, 4, 1),
    )
    own = resync_apply(
        user=cape_committee,
        changes=[ResyncChange(members["ben"], parse_rank("7k"))],
        effective_date=date(2024, 4, 2),
    )
    client = logged_in(cape_committee)

    page = html.unescape(client.get(f"/committee/resync/{both.pk}/").content.decode())
    ours = client.get(f"/committee/resync/{own.pk}/").content.decode()

    assert f"/committee/resync/{both.pk}/revert/" not in page
    assert "Resync " in page and "is Pretoria Go Club's: only Pretoria Go Club's committee" in page
    assert f"/committee/resync/{own.pk}/revert/" in ours
    assert client.get(f"/committee/resync/{both.pk}/revert/").status_code == 403
