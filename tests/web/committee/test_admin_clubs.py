"""The admin of clubs, club roles and memberships (issue 28): the federation's (a
superuser, or a staff account on the federation's committee), never a club's committee
even with staff status; each change audited like any other write."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from players.models import AuditEntry, ClubRole, Membership
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def cape_town():
    return factories.club("Cape Town Go Club")


@pytest.fixture
def federation_staff(connie):
    connie.is_staff = True
    connie.save(update_fields=["is_staff"])
    return connie


def admin_client(account) -> Client:
    client = Client()
    client.force_login(account)
    return client


def test_the_federations_committee_lists_clubs_with_their_members_and_roles(
    federation_staff, cape_town
):
    factories.player("ann", "5k", club=cape_town)
    factories.player("ben", "8k", club=cape_town)
    factories.club_volunteer("cvol", cape_town)
    client = admin_client(federation_staff)

    page = client.get("/admin/players/club/")

    assert page.status_code == 200
    row = page.context["cl"].result_list.get()
    assert (row.name, row.member_count, row.role_count) == ("Cape Town Go Club", 2, 1)
    roles = client.get(f"/admin/players/clubrole/?club__id__exact={cape_town.pk}")
    assert [role.user.username for role in roles.context["cl"].result_list] == ["cvol"]
    listed = client.get("/admin/players/membership/?current=yes")
    assert {m.player.username for m in listed.context["cl"].result_list} == {"ann", "ben"}


def test_the_federation_gives_and_takes_a_club_role_in_the_admin_audited(
    federation_staff, cape_town, django_user_model
):
    account = django_user_model.objects.create_user("helper")
    client = admin_client(federation_staff)
    volunteers = Group.objects.get(name="volunteers")

    added = client.post(
        "/admin/players/clubrole/add/",
        {"user": account.pk, "group": volunteers.pk, "club": cape_town.pk},
    )

    assert added.status_code == 302
    role = ClubRole.objects.get(user=account)
    entry = AuditEntry.objects.get(action="admin_add_clubrole")
    assert entry.after == {"user": "helper", "role": "volunteers", "club": "Cape Town Go Club"}
    assert entry.club_id == cape_town.pk

    deleted = client.post(f"/admin/players/clubrole/{role.pk}/delete/", {"post": "yes"})

    assert deleted.status_code == 302
    assert not ClubRole.objects.exists()
    assert AuditEntry.objects.get(action="admin_delete_clubrole").before["user"] == "helper"


def test_a_memberships_start_is_corrected_but_its_club_and_end_are_not(federation_staff, cape_town):
    ann = factories.player("ann", "5k", club=cape_town)
    membership = Membership.objects.get(player=ann)
    client = admin_client(federation_staff)
    url = f"/admin/players/membership/{membership.pk}/change/"

    response = client.post(url, {"start": "2019-02-01"})

    assert response.status_code == 302
    membership.refresh_from_db()
    assert (str(membership.start), membership.club_id, membership.end) == (
        "2019-02-01",
        cape_town.pk,
        None,
    )
    assert AuditEntry.objects.get(action="admin_change_membership").after["start"] == "2019-02-01"
    assert client.get("/admin/players/membership/add/").status_code == 403


def test_a_club_committee_with_staff_status_has_no_club_admin(cape_town):
    club_committee = factories.club_committee_member("ccom", cape_town)
    club_committee.is_staff = True
    club_committee.save(update_fields=["is_staff"])
    client = admin_client(club_committee)

    for path in ("/admin/players/club/", "/admin/players/clubrole/", "/admin/players/membership/"):
        assert client.get(path).status_code == 403
    assert client.post("/admin/players/clubrole/add/", {}).status_code == 403


# --- a tournament's club changed: its imported games go with it


def _posted(form, **changes) -> dict:
    """What the admin's change form posts as shown, with ``changes`` typed in."""
    data = {}
    for name in form.fields:
        value = form[name].value()
        if value not in (None, ""):
            data[name] = value
    data.update(changes)
    return data


def test_a_tournaments_club_changed_in_the_admin_takes_its_imported_games_audited_for_both(
    cape_town, django_user_model, vera
):
    from datetime import date

    from players.models import Game, Tournament
    from players.services.games import record_sheet_submit
    from tests.engine.test_egd_format import SPRING_CUP
    from tests.web.entry.test_tournament_import import confirmation, upload

    pretoria = factories.club("Pretoria Go Club")
    importer = admin_client(vera)
    importer.post(
        "/tournaments/import/",
        confirmation(upload(importer, SPRING_CUP, club=cape_town.pk), club=cape_town.pk),
    )
    tournament = Tournament.objects.get()
    imported = set(Game.objects.filter(tournament=tournament).values_list("pk", flat=True))
    assert len(imported) == 6
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "8k")
    on_a_sheet = record_sheet_submit(
        user=vera,
        games=[factories.game(ann, ben, "W", date(2024, 3, 2), tournament=tournament, round=9)],
        club=cape_town,
    ).games[0]
    superuser = django_user_model.objects.create_superuser("root", "root@example.org", "x")
    client = admin_client(superuser)
    url = f"/admin/players/tournament/{tournament.pk}/change/"
    form = client.get(url).context["adminform"].form

    response = client.post(url, _posted(form, club=pretoria.pk, name="Spring Cup (Pretoria)"))

    assert response.status_code == 302
    tournament.refresh_from_db()
    assert (tournament.club, tournament.name) == (pretoria, "Spring Cup (Pretoria)")
    clubs = dict(Game.objects.filter(tournament=tournament).values_list("pk", "club"))
    assert {pk: club for pk, club in clubs.items() if pk in imported} == dict.fromkeys(
        imported, pretoria.pk
    )
    assert clubs[on_a_sheet.pk] == cape_town.pk, "a sheet's game stays its sheet's club's"
    entries = AuditEntry.objects.filter(action="tournament_club")
    assert sorted(entries.values_list("club", flat=True)) == sorted([cape_town.pk, pretoria.pk])
    assert {(e.before["club"], e.after["club"], e.after["games"]) for e in entries} == {
        ("Cape Town Go Club", "Pretoria Go Club", 6)
    }
    change = AuditEntry.objects.get(action="admin_change_tournament")
    assert change.after["name"] == "Spring Cup (Pretoria)"


def test_a_tournaments_club_change_is_refused_to_another_clubs_committee_and_moves_nothing(
    cape_town,
):
    from players.models import Game, Tournament
    from players.roles import ClubRefusal
    from players.services.tournaments import tournament_club_set

    pretoria = factories.club("Pretoria Go Club")
    tournament = factories.tournament("cape-open", "Cape Open", club=cape_town)
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "8k")
    pretoria_committee = factories.club_committee_member("pcom", pretoria)
    Game.objects.create(
        seq=1,
        date="2024-03-01",
        white=ann,
        black=ben,
        winner="W",
        tournament=tournament,
        club=cape_town,
        created_by=pretoria_committee,
    )

    with pytest.raises(ClubRefusal):
        tournament_club_set(user=pretoria_committee, tournament=tournament, club=pretoria)

    assert Tournament.objects.get().club == cape_town
    assert set(Game.objects.values_list("club", flat=True)) == {cape_town.pk}
    assert not AuditEntry.objects.filter(action="tournament_club").exists()
    assert tournament_club_set(user=None, tournament=tournament, club=cape_town) is False


# --- players and tournaments: a club's committee with staff status sees its club's


@pytest.fixture
def cape_staff(cape_town):
    """A Cape Town committee member given staff status and the admin's rights on
    players and tournaments by a superuser."""
    from django.contrib.auth.models import Permission

    account = factories.club_committee_member("ccom", cape_town)
    account.is_staff = True
    account.save(update_fields=["is_staff"])
    account.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="players",
            codename__in=["view_player", "change_player", "view_tournament", "change_tournament"],
        )
    )
    return account


def test_a_club_committees_admin_lists_and_opens_its_clubs_players_and_tournaments_only(
    cape_staff, cape_town
):
    pretoria = factories.club("Pretoria Go Club")
    ann = factories.player("ann", "5k", club=cape_town)
    pia = factories.player("pia", "3k", club=pretoria)
    factories.tournament("cape-open", "Cape Open", club=cape_town)
    pretoria_open = factories.tournament("pta-open", "Pretoria Open", club=pretoria)
    client = admin_client(cape_staff)

    players = client.get("/admin/players/player/").context["cl"].result_list
    tournaments = client.get("/admin/players/tournament/").context["cl"].result_list

    assert [player.username for player in players] == ["ann"]
    assert [tournament.code for tournament in tournaments] == ["cape-open"]
    assert client.get(f"/admin/players/player/{ann.pk}/change/").status_code == 200
    # Another club's row is not found (the admin sends back to its index with a message).
    assert client.get(f"/admin/players/player/{pia.pk}/change/").status_code == 302
    assert client.get(f"/admin/players/tournament/{pretoria_open.pk}/change/").status_code == 302


def test_a_club_committees_admin_offers_no_other_club_to_move_a_player_to(cape_staff, cape_town):
    from players.models import Player

    pretoria = factories.club("Pretoria Go Club")
    ann = factories.player("ann", "5k", club=cape_town)
    client = admin_client(cape_staff)
    url = f"/admin/players/player/{ann.pk}/change/"
    form = client.get(url).context["adminform"].form

    response = client.post(url, _posted(form, club=pretoria.pk))

    assert response.status_code == 200
    assert "club" in response.context["adminform"].form.errors
    assert list(form.fields["club"].queryset) == [cape_town]
    assert Player.objects.get(pk=ann.pk).club == cape_town
    assert not AuditEntry.objects.filter(action="admin_change_player").exists()


def test_a_club_committees_admin_offers_no_empty_club_for_a_tournament_and_refuses_one_at_the_field(
    cape_staff, cape_town
):
    from players.models import Tournament

    cape_open = factories.tournament("cape-open", "Cape Open", club=cape_town)
    client = admin_client(cape_staff)
    url = f"/admin/players/tournament/{cape_open.pk}/change/"
    form = client.get(url).context["adminform"].form

    # No club would be the federation's, which only its committee gives: no choice here,
    # and a post of none anyway (an old tab) is an error at the field, not a 403 page.
    response = client.post(url, _posted(form, club="", name="Cape Open 2026"))

    assert [label for _, label in form.fields["club"].choices] == ["Cape Town Go Club"]
    assert response.status_code == 200
    assert "club" in response.context["adminform"].form.errors
    assert Tournament.objects.values_list("club", "name").get(pk=cape_open.pk) == (
        cape_town.pk,
        "Cape Open",
    )


# --- what a club's committee with staff status reads of other clubs: nothing


def _club_filter(response):
    """The changelist's "By club" filter."""
    (club_filter,) = [
        spec
        for spec in response.context["cl"].filter_specs
        if getattr(spec, "field_path", None) == "club"
    ]
    return club_filter


def _club_filter_names(response) -> list[str]:
    """The clubs the changelist's "By club" filter offers."""
    return [name for _, name in _club_filter(response).lookup_choices]


def test_a_club_committees_by_club_filter_names_its_own_clubs_only(
    cape_staff, cape_town, django_user_model
):
    factories.club_role(cape_staff, "committee", factories.club("Durban Go Club"))
    factories.club("Pretoria Go Club")
    client = admin_client(cape_staff)
    superuser = admin_client(django_user_model.objects.create_superuser("root", "r@x.org", "x"))

    for path in ("/admin/players/player/", "/admin/players/tournament/"):
        page = client.get(path)
        everything = superuser.get(path)
        assert _club_filter_names(page) == ["Cape Town Go Club", "Durban Go Club"], path
        assert "Pretoria" not in page.content.decode(), path
        assert _club_filter_names(everything) == [
            "Cape Town Go Club",
            "Durban Go Club",
            "Pretoria Go Club",
        ]
    # A row of no club is the federation's: never among a club committee's rows.
    assert not _club_filter(page).include_empty_choice
    assert _club_filter(everything).include_empty_choice


@pytest.fixture
def piet(cape_town):
    """A member of Pretoria's club (the club on his record) and of Cape Town's since."""
    from datetime import date

    pretoria = factories.club("Pretoria Go Club")
    piet = factories.player("piet", "4k", club=pretoria)
    Membership.objects.create(player=piet, club=cape_town, start=date(2025, 1, 1))
    return piet


def test_a_member_of_two_clubs_is_listed_and_opened_by_both_clubs_committees(
    cape_staff, cape_town, piet
):
    import json

    client = admin_client(cape_staff)
    factories.player("ann", "5k", club=cape_town)
    factories.player("pia", "3k", club=piet.club)  # Pretoria's only

    listed = client.get("/admin/players/player/").context["cl"].result_list
    found = client.get("/admin/players/player/?q=pi").context["cl"].result_list
    looked_up = client.get(
        "/admin/autocomplete/?app_label=players&model_name=game&field_name=white&term=pi"
    )

    assert sorted(player.username for player in listed) == ["ann", "piet"]
    assert [player.username for player in found] == ["piet"]
    assert [row["text"] for row in json.loads(looked_up.content)["results"]] == [str(piet)]
    assert client.get(f"/admin/players/player/{piet.pk}/change/").status_code == 200


def test_a_member_of_two_clubs_keeps_the_other_club_when_a_club_committee_edits_him(
    cape_staff, cape_town, piet
):
    pretoria = piet.club
    client = admin_client(cape_staff)
    url = f"/admin/players/player/{piet.pk}/change/"
    form = client.get(url).context["adminform"].form

    # His club is Pretoria's committee's to change: shown, not offered. Offered Cape
    # Town alone, the form refused his club as it stood, and a browser posted "no
    # club", which took him out of Pretoria's club.
    response = client.post(url, _posted(form, family_name="Botha"))

    assert response.status_code == 302
    piet.refresh_from_db()
    assert (piet.family_name, piet.club) == ("Botha", pretoria)
    assert set(
        Membership.objects.filter(player=piet, end__isnull=True).values_list("club", flat=True)
    ) == {pretoria.pk, cape_town.pk}
    assert "club" not in form.fields


@pytest.fixture
def two_clubs_on_file(cape_town):
    """Cape Town's and Pretoria's players, games, sheets, tournaments, an adjustment,
    the ratings and the audit trail of it all; whatever is Pretoria's is named so."""
    from datetime import date

    from players.services.games import record_sheet_submit
    from ratings.recompute.run import recompute_pending

    pretoria = factories.club("Pretoria Go Club")
    ann = factories.player("ann", "5k", club=cape_town)
    ben = factories.player("ben", "8k", club=cape_town)
    pia = factories.player("piapretorius", "3k", club=pretoria, full_name="Pia Pretorius")
    pete = factories.player("petepretorius", "6k", club=pretoria, full_name="Pete Pretorius")
    factories.tournament("cape-open", "Cape Open", club=cape_town)
    factories.tournament("pretoria-open", "Pretoria Open", club=pretoria)
    cape_volunteer = factories.club_volunteer("capevol", cape_town)
    pretoria_volunteer = factories.club_volunteer("pretoriavol", pretoria)
    record_sheet_submit(user=cape_volunteer, games=[factories.game(ann, ben)], club=cape_town)
    record_sheet_submit(
        user=pretoria_volunteer,
        games=[factories.game(pia, pete, comment="Pretoria club night")],
        club=pretoria,
        note="Pretoria's evening",
    )
    federation = factories.committee_member("fedcom")
    factories.adjustment(pia, date(2024, 2, 1), "2k", user=federation, comment="Pretoria asked")
    factories.adjustment(ann, date(2024, 2, 1), "4k", user=federation)
    recompute_pending()


@pytest.fixture
def cape_staff_reading_everything(cape_staff):
    """Cape Town's committee member given the admin's right to view every model."""
    from django.contrib.auth.models import Permission

    cape_staff.user_permissions.add(*Permission.objects.filter(codename__startswith="view_"))
    return cape_staff


def test_a_club_committees_admin_shows_no_other_clubs_rows_or_names_anywhere(
    cape_staff_reading_everything, two_clubs_on_file
):
    """Every list, its filters and search, every row's page, every lookup of a related
    row: nothing of Pretoria's club. Accounts and groups aside: every committee lists
    every account (the account pages), none is a club's row."""
    import json

    from django.contrib import admin
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.urls import reverse

    client = admin_client(cape_staff_reading_everything)
    pages = []
    lookups = []
    accounts = (get_user_model(), Group)
    for model, model_admin in admin.site._registry.items():
        if model in accounts:
            continue
        meta = model._meta
        changelist = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
        page = client.get(changelist)
        pages.append((changelist, page))
        if page.status_code != 200:
            assert page.status_code == 403, changelist
            continue
        cl = page.context["cl"]
        for row in cl.result_list:
            url = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[row.pk])
            pages.append((url, client.get(url)))
        for spec in cl.filter_specs:
            for choice in spec.choices(cl):
                url = changelist + choice["query_string"]
                pages.append((url, client.get(url)))
        if model_admin.search_fields:
            found = client.get(changelist + "?q=pretori")
            assert list(found.context["cl"].result_list) == [], changelist
        for field in meta.get_fields():
            related = field.many_to_one or (field.one_to_one and field.concrete)
            if related and field.related_model not in accounts:
                lookups.append(
                    f"/admin/autocomplete/?app_label={meta.app_label}"
                    f"&model_name={meta.model_name}&field_name={field.name}&term="
                )

    assert len(pages) > 40, "rows of every kind were listed"
    for url, page in pages:
        assert "pretori" not in page.content.decode().lower(), url
    answered = 0
    for url in lookups:
        response = client.get(url)
        if response.status_code == 200:
            answered += 1
            results = json.loads(response.content)["results"]
            assert not [row for row in results if "pretori" in row["text"].lower()], url
    assert answered >= 3, "players, tournaments and games were looked up"


# --- accounts: listed to every committee, as on the account pages; opened and changed
# by the committee that manages them (``roles.check_account``)


@pytest.fixture
def cape_staff_on_accounts(cape_staff):
    """Cape Town's committee member given the admin's rights on accounts."""
    from django.contrib.auth.models import Permission

    cape_staff.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_user", "change_user"])
    )
    return cape_staff


def test_a_club_committees_admin_opens_and_changes_only_the_accounts_it_manages(
    cape_staff_on_accounts, cape_town, django_user_model
):
    pretoria_volunteer = factories.club_volunteer("pretoriavol", factories.club("Pretoria Go Club"))
    federation = factories.committee_member("fedcom")
    root = django_user_model.objects.create_superuser("root", "root@example.org", "x")
    cape_volunteer = factories.club_volunteer("capevol", cape_town)
    client = admin_client(cape_staff_on_accounts)

    taken_over = client.post(
        f"/admin/auth/user/{root.pk}/password/",
        {"password1": "taken-over-1", "password2": "taken-over-1", "usable_password": "true"},
    )

    assert taken_over.status_code == 403
    root.refresh_from_db()
    assert not root.check_password("taken-over-1")
    for account in (pretoria_volunteer, federation, root):
        for page in ("change", "password"):
            url = f"/admin/auth/user/{account.pk}/{page}/"
            assert client.get(url).status_code == 403, url
    for page in ("change", "password"):
        url = f"/admin/auth/user/{cape_volunteer.pk}/{page}/"
        assert client.get(url).status_code == 200, url


def test_a_club_committees_admin_gives_no_superuser_status_permissions_or_federation_roles(
    cape_staff_on_accounts, cape_town, django_user_model
):
    cape_volunteer = factories.club_volunteer("capevol", cape_town)
    client = admin_client(cape_staff_on_accounts)
    superuser = admin_client(django_user_model.objects.create_superuser("root", "r@x.org", "x"))
    committee = Group.objects.get(name="committee")

    for account in (cape_volunteer, cape_staff_on_accounts):
        url = f"/admin/auth/user/{account.pk}/change/"
        form = client.get(url).context["adminform"].form

        response = client.post(
            url,
            {
                "username": account.username,
                "date_joined_0": "2026-01-05",
                "date_joined_1": "10:00:00",
                "is_active": "on",
                "is_staff": "on" if account.is_staff else "",
                "is_superuser": "on",
                "groups": [committee.pk],
            },
        )

        assert response.status_code == 302, url
        account.refresh_from_db()
        assert not account.is_superuser
        assert not account.groups.exists()
        assert {"is_superuser", "groups", "user_permissions"}.isdisjoint(form.fields)
    everything = superuser.get(f"/admin/auth/user/{cape_volunteer.pk}/change/")
    assert {"is_superuser", "groups", "user_permissions"} <= set(
        everything.context["adminform"].form.fields
    )
