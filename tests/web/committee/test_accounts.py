"""Accounts: the committee lists, creates (by invitation) and changes logins, and sends
someone who forgot their password a link to choose one; everyone changes their own
password. The mails themselves: tests/notifications/."""

import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from players.models import AuditEntry
from players.roles import is_committee, is_volunteer
from players.services.base import system_user
from tests import factories
from tests.pages import page_html

pytestmark = pytest.mark.django_db

GOOD_PASSWORD = "correct horse battery staple"


@pytest.fixture
def connie(connie, client):
    """The committee member with a known password (the pages that change it check the
    old one), logged in after it is set: a later change would end the session."""
    connie.set_password(GOOD_PASSWORD)
    connie.save()
    client.force_login(connie)
    return connie


def account(username: str):
    return get_user_model().objects.get(username=username)


def invitation_link(mail) -> str:
    return re.search(r"http://\S+/accounts/invitation/\S+/", mail.body).group(0)


def test_it_lists_the_roles_held_for_one_club_naming_the_club(
    client, connie, django_assert_max_num_queries
):
    cape_town, stellenbosch = factories.club("Cape Town Go Club"), factories.club("Stellenbosch")
    factories.club_committee_member("cora", cape_town)
    factories.club_role(factories.user("vic"), "volunteers", stellenbosch)

    with django_assert_max_num_queries(8):
        response = client.get("/committee/accounts/")

    html = response.content.decode()
    rows = re.findall(r"<tr[^>]*>\s*<td[^>]*><a [^>]*>([^<]+)</a></td>\s*<td[^>]*>(.*?)</td>", html)
    roles = {name: " ".join(re.sub(r"<[^>]+>", "", role).split()) for name, role in rows}
    assert roles["cora"] == "Committee of Cape Town Go Club"
    assert roles["vic"] == "Volunteer of Stellenbosch"
    assert roles["connie"] == "committee"
    assert f'href="{cape_town.get_absolute_url()}"' in html


def test_it_lists_the_accounts_with_their_roles_but_not_the_system_account(
    client, connie, django_assert_max_num_queries
):
    factories.volunteer("vera")
    factories.user("rita")
    get_user_model().objects.create_superuser("root", password=GOOD_PASSWORD)
    system_user()

    with django_assert_max_num_queries(7):
        response = client.get("/committee/accounts/")

    html = response.content.decode()
    rows = re.findall(r"<tr[^>]*>\s*<td[^>]*><a [^>]*>([^<]+)</a></td>\s*<td[^>]*>(.*?)</td>", html)
    assert [(name, re.sub(r"<[^>]+>", "", role)) for name, role in rows] == [
        ("connie", "committee"),
        ("rita", "reader"),
        ("root", "reader"),
        ("vera", "volunteer"),
    ]
    assert "superuser" in html
    assert ">system<" not in html


def test_the_accounts_list_shows_the_roles_held_for_one_club(
    client, connie, django_assert_max_num_queries
):
    from django.contrib.auth.models import Group

    from players.models import Club, ClubRole
    from players.roles import COMMITTEE, VOLUNTEERS

    cape = Club.objects.create(name="Cape Town Go Club")
    paarl = Club.objects.create(name="Paarl Go Club")
    for username, club, group in (("cleo", cape, VOLUNTEERS), ("cleo", paarl, COMMITTEE)):
        ClubRole.objects.create(
            user=get_user_model().objects.get_or_create(username=username)[0],
            club=club,
            group=Group.objects.get(name=group),
        )
    factories.user("rita")

    with django_assert_max_num_queries(8):
        html = client.get("/committee/accounts/").content.decode()

    rows = re.findall(r"<tr[^>]*>\s*<td[^>]*><a [^>]*>([^<]+)</a></td>\s*<td[^>]*>(.*?)</td>", html)
    roles = {name: re.sub(r"<[^>]+>", "", role).strip() for name, role in rows}
    assert roles["cleo"] == "Volunteer of Cape Town Go Club Committee of Paarl Go Club"
    assert roles["rita"] == "reader"


def test_an_accounts_page_says_the_roles_it_holds_for_one_club(client, connie):
    from django.contrib.auth.models import Group

    from players.models import Club, ClubRole
    from players.roles import VOLUNTEERS

    cleo = factories.user("cleo")
    ClubRole.objects.create(
        user=cleo,
        club=Club.objects.create(name="Cape Town Go Club"),
        group=Group.objects.get(name=VOLUNTEERS),
    )

    html = page_html(client, f"/committee/accounts/{cleo.pk}/")

    facts = re.search(r'id="account-facts">(.*?)</p>', html, re.S).group(1)
    assert " ".join(facts.split()).startswith("volunteer of Cape Town Go Club ·")
    assert "no volunteer role" not in facts


def test_it_creates_an_account_by_inviting_its_owner_by_mail(client, connie, delivered):
    response = client.post(
        "/committee/accounts/new/",
        {"username": "vic", "role": "volunteer", "email": "vic@example.org"},
        follow=True,
    )

    vic = account("vic")
    assert response.redirect_chain == [(f"/committee/accounts/{vic.pk}/", 302)]
    assert is_volunteer(vic) and not is_committee(vic)
    assert not vic.has_usable_password(), "no password until its owner chooses one"
    assert vic.email == "", "the address is theirs once the link is followed"
    assert "invitation to choose a password is on its way to vic@example.org" in (
        response.content.decode()
    )
    assert AuditEntry.objects.get(action="account_create").user == connie
    assert [mail.to for mail in delivered()] == [["vic@example.org"]]


def test_the_invited_owner_chooses_a_password_and_logs_in(client, connie, delivered):
    client.post(
        "/committee/accounts/new/",
        {"username": "cora", "role": "committee", "email": "cora@example.org"},
    )
    client.logout()
    link = invitation_link(delivered()[0])

    response = client.post(
        link, {"new_password1": GOOD_PASSWORD, "new_password2": GOOD_PASSWORD}, follow=True
    )

    assert response.redirect_chain == [("/accounts/login/", 302)]
    assert account("cora").email == "cora@example.org"
    assert client.login(username="cora", password=GOOD_PASSWORD)


def test_it_refuses_a_taken_username_and_a_bad_address_at_their_fields(client, connie):
    factories.volunteer("vera")

    taken = client.post(
        "/committee/accounts/new/",
        {"username": "Vera", "role": "volunteer", "email": "v@example.org"},
    )
    bad = client.post(
        "/committee/accounts/new/", {"username": "vic", "role": "volunteer", "email": "vic@"}
    )
    nameless = client.post(
        "/committee/accounts/new/", {"username": "", "role": "volunteer", "email": "v@example.org"}
    )

    assert taken.status_code == 200
    assert taken.context["form"].errors == {
        "username": ["'Vera' is taken (usernames ignore case here)"]
    }
    assert bad.context["form"].errors == {"email": ["Enter a valid email address."]}
    assert nameless.context["form"].errors == {"username": ["This field is required."]}
    assert not get_user_model().objects.filter(username="vic").exists()


def test_it_changes_a_role(client, connie):
    vera = factories.volunteer("vera")

    response = client.post(f"/committee/accounts/{vera.pk}/role/", {"role": "committee"})

    assert response.status_code == 302
    assert is_committee(account("vera"))
    assert AuditEntry.objects.get(action="account_roles").summary == (
        "vera: volunteer -> committee"
    )


def test_a_committee_member_cannot_remove_their_own_committee_role(client, connie):
    response = client.post(f"/committee/accounts/{connie.pk}/role/", {"role": "volunteer"})

    assert response.status_code == 200
    assert response.context["role_form"].errors == {
        "role": ["you cannot remove your own committee role: ask another committee member"]
    }
    assert is_committee(account("connie"))


def test_staff_accounts_are_not_changed_by_committee_members(client, connie):
    root = get_user_model().objects.create_superuser("root", password=GOOD_PASSWORD)

    page = client.get(f"/committee/accounts/{root.pk}/")
    response = client.post(
        f"/committee/accounts/{root.pk}/password/", {"email": "root@example.org"}
    )

    assert "only a superuser may change this account" in page.content.decode()
    assert 'action="/committee/accounts/' not in page.content.decode(), "no forms offered"
    assert response.status_code == 200
    root.refresh_from_db()
    assert root.check_password(GOOD_PASSWORD)


def test_a_forgotten_password_gets_a_link_that_replaces_it(client, connie, delivered):
    vera = factories.volunteer("vera")
    vera.set_password("forgotten")
    vera.save()

    response = client.post(
        f"/committee/accounts/{vera.pk}/password/", {"email": "vera@example.org"}, follow=True
    )
    assert "A link to choose a password is on its way to vera@example.org" in (
        response.content.decode()
    )
    client.logout()
    client.post(
        invitation_link(delivered()[0]),
        {"new_password1": GOOD_PASSWORD, "new_password2": GOOD_PASSWORD},
    )

    vera.refresh_from_db()
    assert vera.check_password(GOOD_PASSWORD)
    assert not vera.check_password("forgotten")


def test_a_link_to_choose_a_password_needs_an_address(client, connie, delivered):
    vera = factories.volunteer("vera")

    response = client.post(f"/committee/accounts/{vera.pk}/password/", {"email": "vera"})

    assert response.status_code == 200
    assert response.context["password_form"].errors["email"]
    assert delivered() == []


def test_the_system_account_has_no_page(client, connie):
    assert client.get(f"/committee/accounts/{system_user().pk}/").status_code == 404


def test_anyone_logged_in_changes_their_own_password(client):
    vera = factories.volunteer("vera")
    vera.set_password("temporary-1234-pass")
    vera.save()
    client.force_login(vera)

    page = client.get("/accounts/password_change/")
    response = client.post(
        "/accounts/password_change/",
        {
            "old_password": "temporary-1234-pass",
            "new_password1": GOOD_PASSWORD,
            "new_password2": GOOD_PASSWORD,
        },
        follow=True,
    )

    assert [t.name for t in page.templates][:2] == [
        "registration/password_change_form.html",
        "base.html",
    ]
    assert response.redirect_chain == [("/accounts/password_change/done/", 302)]
    assert 'id="password-changed"' in response.content.decode()
    vera.refresh_from_db()
    assert vera.check_password(GOOD_PASSWORD)


def test_the_navigation_offers_the_committee_menu_only_to_the_committee(client, connie):
    assert 'id="committee-menu"' in client.get("/committee/accounts/").content.decode()
    client.force_login(factories.volunteer("vera"))
    html = client.get("/").content.decode()
    assert 'id="committee-menu"' not in html
    assert 'href="/accounts/password_change/"' in html


@pytest.mark.parametrize("username", ["system", "System", "ｓｙｓｔｅｍ"])
def test_nobody_can_create_the_reserved_system_account(client, connie, username):
    response = client.post(
        "/committee/accounts/new/",
        {"username": username, "role": "committee", "email": "s@example.org"},
    )

    assert response.status_code == 200
    assert response.context["form"].errors == {
        "username": [f"'{username}' is reserved for the site's own account"]
    }
    assert not get_user_model().objects.filter(username__iexact="system").exists()


@pytest.mark.parametrize("twin", ["ＡＤＭＩＮ", "ａｄｍｉｎ", "Admin"])
def test_a_full_width_twin_of_a_username_is_refused_not_a_server_error(client, connie, twin):
    factories.user("admin")

    response = client.post(
        "/committee/accounts/new/",
        {"username": twin, "role": "volunteer", "email": "a@example.org"},
    )

    assert response.status_code == 200
    assert response.context["form"].errors == {
        "username": [f"'{twin}' is taken (usernames ignore case here)"]
    }
    assert list(get_user_model().objects.values_list("username", flat=True).order_by("pk")) == [
        "connie",
        "admin",
    ]


def test_the_system_account_cannot_be_promoted(client, connie):
    system = system_user()

    response = client.post(f"/committee/accounts/{system.pk}/role/", {"role": "committee"})

    assert response.status_code == 404
    assert not is_committee(account("system"))


def test_a_system_account_made_a_login_before_is_disarmed_when_imports_use_it(client, tmp_path):
    legacy = factories.committee_member("system")
    legacy.set_password(GOOD_PASSWORD)
    legacy.is_staff = True
    legacy.save()
    games = tmp_path / "games.csv"
    games.write_text(
        "date,white,black,white_rank,black_rank,handicap,komi,winner,status,tournament,round\n"
        "2024-01-06,ann,ben,3k,5k,0,6.5,W,normal,,0\n"
    )
    factories.player("ann", "3k")
    factories.player("ben", "5k")

    call_command("import_games", str(games), stdout=io.StringIO())

    system = account("system")
    entry = AuditEntry.objects.get(action="games_import")
    assert entry.user == system
    assert not system.is_active and not system.is_staff
    assert not system.has_usable_password()
    assert not is_volunteer(system)
    login = client.post("/accounts/login/", {"username": "system", "password": GOOD_PASSWORD})
    assert "_auth_user_id" not in client.session
    assert login.status_code == 200


def test_a_fresh_system_account_has_no_usable_password():
    system = system_user()

    assert not system.is_active
    assert not system.has_usable_password()


def test_the_admin_refuses_the_reserved_name_and_twins(client):
    root = get_user_model().objects.create_superuser("root", password=GOOD_PASSWORD)
    client.force_login(root)
    system = system_user()

    for username in ("System", "ＲＯＯＴ"):
        response = client.post(
            "/admin/auth/user/add/",
            {"username": username, "password1": GOOD_PASSWORD, "password2": GOOD_PASSWORD},
        )
        assert response.status_code == 200
        assert response.context["adminform"].form.errors["username"]
    edit = client.post(f"/admin/auth/user/{system.pk}/change/", {"username": "system"})
    assert edit.status_code == 403
    assert get_user_model().objects.count() == 2


def test_the_accounts_page_gives_each_of_its_forms_fields_an_id_of_its_own():
    from players.committee.forms import AccountRoleForm, ClubRoleForm

    ids = [field.auto_id for form in (AccountRoleForm(), ClubRoleForm()) for field in form]

    assert len(ids) == len(set(ids))
