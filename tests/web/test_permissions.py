"""The permission matrix: every URL the site resolves, for every role, enforced on the
server (not just hidden links).

``ROUTES`` declares, for each URL name, who may use it, which methods the view accepts
and sample arguments. A page missing from it fails the first test: a new page must say
who it is for. Then, for each role, every page is requested with GET and POST:

- a role the page is for gets 200 or a redirect (not to the login page), or 405 for a
  method the view does not accept;
- an anonymous visitor of a protected page is sent to log in, whatever the method;
- a logged-in user without the role gets 403, whatever the method.

Two clubs share the site: the game, the report and the player the pages act on are club
A's. A role held for one club (``volunteer_a``, ``committee_b``...) admits its holder to
a page of its level only for its own club's records (``Route.club``): club B's roles
get 403 on club A's game, report and player, and only the federation's roles (held for
every club) act on the federation's records (an account holding a role for every club,
a resync of players of no club).

Every form that posts carries a CSRF token, and a POST without one is refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from notifications import tokens
from notifications.services import email_change_request
from players.models import Game
from players.services import reports as report_services
from players.services.accounts import Role, account_create
from players.services.adjustments import ResyncChange, resync_apply
from players.services.games import record_sheet_submit
from ratings.engine.ranks import parse_rank
from ratings.recompute import liveness
from ratings.recompute.run import recompute_pending
from tests import factories

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"

# Who may use a page, weakest first; each role may use the levels up to its own.
EVERYONE, LOGGED_IN, VOLUNTEER, COMMITTEE = "everyone", "logged in", "volunteer", "committee"
# Whose records a page acts on: club A's, or the federation's (roles for every club).
A, B, FEDERATION = "club A", "club B", "federation"
LEVELS = (EVERYONE, LOGGED_IN, VOLUNTEER, COMMITTEE)
# The roles, with the highest level each may use. Staff (a superuser) may do everything.
# "volunteer" and "committee" hold their role for every club (the federation's).
ROLES = {
    "anonymous": EVERYONE,
    "reader": LOGGED_IN,
    "player": LOGGED_IN,  # a reader whose account is linked to a player record (ann)
    "volunteer": VOLUNTEER,
    "committee": COMMITTEE,
    "staff": COMMITTEE,
    "volunteer_a": VOLUNTEER,
    "committee_a": COMMITTEE,
    "volunteer_b": VOLUNTEER,
    "committee_b": COMMITTEE,
}
# The club each club role is held for.
CLUB_OF_ROLE = {"volunteer_a": A, "committee_a": A, "volunteer_b": B, "committee_b": B}
GET, POST = ("GET",), ("POST",)
GET_POST = ("GET", "POST")


@dataclass
class World:
    """Demo-like rows, so that every URL's arguments resolve."""

    accounts: dict[str, Any]
    sam: Any  # an account for the account pages to act on
    club: Any
    player: Any
    tournament: Any
    game: Game
    batch: Any
    report: Any  # ann's report on the game, by her own account
    club_b: Any


@dataclass(frozen=True)
class Route:
    level: str
    kwargs: Callable[[World], dict] = lambda world: {}
    methods: tuple[str, ...] = GET
    query: str = ""
    post_data: Callable[[World], dict] = lambda world: {}
    # Further GET requests (query strings) that show the page's forms in another state.
    states: tuple[str, ...] = ()
    # Instead of a level: exactly these roles (a page for the players of one game).
    roles: frozenset[str] | None = None
    # Whose records the page acts on (A or FEDERATION); None: anyone's of the level.
    club: str | None = None

    def url(self, name: str, world: World) -> str:
        return reverse(name, kwargs=self.kwargs(world)) + self.query


def _pk(attribute: str) -> Callable[[World], dict]:
    return lambda world: {"pk": getattr(world, attribute).pk}


ROUTES: dict[str, Route] = {
    # Public pages (players/public/urls.py) and the site's own.
    "home": Route(EVERYONE, states=("?as_of=2024-03-01", "?as_of=2024-02-30")),
    "rating_list_csv": Route(EVERYONE, states=("?as_of=2024-03-01",)),
    "player_log": Route(EVERYONE, lambda world: {"username": world.player.username}),
    "player_sheet_print": Route(EVERYONE, lambda world: {"username": world.player.username}),
    "head_to_head_choose": Route(
        EVERYONE, lambda world: {"username": world.player.username}, query="?opponent=ben"
    ),
    "head_to_head": Route(
        EVERYONE,
        lambda world: {
            "username": world.game.white.username,
            "opponent": world.game.black.username,
        },
    ),
    "game_search": Route(EVERYONE, states=("?player=ann&since=2024-01-01", "?until=bad")),
    "tournament_list": Route(EVERYONE),
    "club_list_opengotha": Route(EVERYONE, lambda world: {"kind": "egf"}),
    "tournament_detail": Route(EVERYONE, lambda world: {"code": world.tournament.code}),
    "club_list": Route(EVERYONE),
    "club_detail": Route(EVERYONE, _pk("club")),
    "club_night_sheet": Route(EVERYONE, _pk("club")),
    "health": Route(EVERYONE),
    "favicon": Route(EVERYONE),  # to the stone of static/
    # Downloads (players/public/downloads.py): the data is on the public pages already.
    "games_export_csv": Route(EVERYONE),
    "player_sheet_csv": Route(EVERYONE, lambda world: {"username": world.player.username}),
    "tournament_export_egd": Route(EVERYONE, lambda world: {"code": world.tournament.code}),
    "tournament_export_opengotha": Route(EVERYONE, lambda world: {"code": world.tournament.code}),
    # The algorithm lab and the what-if calculator (players/public/urls.py).
    "lab": Route(EVERYONE),
    "calculator": Route(EVERYONE, states=("?white_player=ann&black_player=ben&handicap=2",)),
    # The read-only JSON API (players/api/urls.py): GET for everyone, no CSRF (no writes).
    "api_index": Route(EVERYONE),
    "api_players": Route(EVERYONE, states=("?as_of=2024-03-01",)),
    "api_player": Route(EVERYONE, lambda world: {"username": world.player.username}),
    "api_player_history": Route(EVERYONE, lambda world: {"username": world.player.username}),
    "api_games": Route(EVERYONE),
    "api_game": Route(EVERYONE, _pk("game")),
    "api_tournaments": Route(EVERYONE),
    "api_tournament": Route(EVERYONE, lambda world: {"code": world.tournament.code}),
    # Accounts (django.contrib.auth): log in and out, change one's own password.
    "login": Route(
        EVERYONE,
        methods=GET_POST,
        post_data=lambda world: {"username": world.sam.username, "password": PASSWORD},
    ),
    "logout": Route(EVERYONE, methods=POST),
    # The language switcher of every page (Django's set_language, kept on the account).
    "set_language": Route(
        EVERYONE, methods=POST, post_data=lambda world: {"language": "fr", "next": "/"}
    ),
    "password_change": Route(LOGGED_IN, methods=GET_POST),
    "password_change_done": Route(LOGGED_IN),
    # Forgot your password? (Django's reset views) and the links mail carries
    # (notifications/urls.py): signed tokens, no log-in.
    "password_reset": Route(
        EVERYONE, methods=GET_POST, post_data=lambda world: {"email": "sam@example.org"}
    ),
    "password_reset_done": Route(EVERYONE),
    "password_reset_confirm": Route(
        EVERYONE, lambda world: {"uidb64": "MQ", "token": "bad-token"}, GET_POST
    ),
    "password_reset_complete": Route(EVERYONE),
    "mail_settings": Route(LOGGED_IN, methods=GET_POST),
    "mail_unsubscribe": Route(
        EVERYONE,
        lambda world: {"token": tokens.unsubscribe_token(world.sam.pk, "open_reports")},
        GET_POST,
    ),
    "mail_confirm": Route(
        EVERYONE,
        lambda world: {"token": tokens.confirm_email_token(world.sam.pk, "sam@example.org")},
        GET_POST,
    ),
    "invitation_accept": Route(
        EVERYONE,
        lambda world: {"token": tokens.invitation_token(world.sam, "sam@example.org")},
        GET_POST,
    ),
    # A player's own page and reports (players/account/urls.py): the report page is for
    # the accounts linked to a player of the game only, whatever their other roles.
    "my_page": Route(LOGGED_IN),
    "game_report": Route(
        LOGGED_IN,
        _pk("game"),
        GET_POST,
        post_data=lambda world: {"kind": "wrong_date", "text": "it was the 2nd"},
        roles=frozenset({"player"}),
    ),
    "report_list": Route(VOLUNTEER),
    "report_detail": Route(
        VOLUNTEER,
        _pk("report"),
        GET_POST,
        post_data=lambda world: {"resolution": "as_recorded", "answer": "as on the sheet"},
        club=A,
    ),
    # Volunteer pages (players/entry/urls.py).
    "sheet_list": Route(VOLUNTEER),
    "sheet_new": Route(VOLUNTEER, methods=GET_POST),
    "sheet_detail": Route(VOLUNTEER, lambda world: {"pk": world.game.record_sheet_id}),
    "game_detail": Route(VOLUNTEER, _pk("game")),
    "game_edit": Route(VOLUNTEER, _pk("game"), GET_POST, club=A),
    "game_void": Route(VOLUNTEER, _pk("game"), GET_POST, club=A),
    "player_create": Route(VOLUNTEER, methods=GET_POST),
    "player_lookup": Route(VOLUNTEER, query="?q=an"),
    "audit_list": Route(VOLUNTEER),
    "tournament_create": Route(
        VOLUNTEER,
        methods=GET_POST,
        post_data=lambda world: {
            "code": "autumn-open",
            "name": "Autumn Open",
            "start_date": "2024-09-07",
            "egf_class": "B",
        },
    ),
    "tournament_import": Route(VOLUNTEER, methods=GET_POST),
    # Committee pages (players/committee/urls.py).
    "committee_resync": Route(
        COMMITTEE, methods=GET_POST, post_data=lambda world: {"list_text": "ann,3k"}
    ),
    "committee_resync_apply": Route(
        COMMITTEE,
        methods=POST,
        post_data=lambda world: {
            "upload": "00000000-0000-0000-0000-000000000000",
            "effective_date": "2024-05-01",
        },
    ),
    "committee_resync_batches": Route(COMMITTEE),
    "committee_resync_batch": Route(COMMITTEE, _pk("batch")),
    # The batch resynced ben, of no club: the federation's.
    "committee_resync_revert": Route(COMMITTEE, _pk("batch"), GET_POST, club=FEDERATION),
    "committee_accounts": Route(COMMITTEE),
    "committee_account_create": Route(COMMITTEE, methods=GET_POST),
    # sam is a volunteer of every club: an account for the federation's committee.
    "committee_account": Route(COMMITTEE, _pk("sam"), club=FEDERATION),
    "committee_account_role": Route(COMMITTEE, _pk("sam"), POST, club=FEDERATION),
    "committee_account_club_role": Route(COMMITTEE, _pk("sam"), POST, club=FEDERATION),
    "committee_account_password": Route(
        COMMITTEE,
        _pk("sam"),
        POST,
        post_data=lambda world: {"email": "sam@example.org"},
        club=FEDERATION,
    ),
    "committee_account_player": Route(
        COMMITTEE,
        _pk("sam"),
        POST,
        post_data=lambda world: {"player": "cat"},
        club=FEDERATION,
    ),
    "committee_adjust_choose": Route(COMMITTEE),
    "committee_adjust": Route(
        COMMITTEE, lambda world: {"username": world.player.username}, GET_POST, club=A
    ),
    "committee_player_edit": Route(
        COMMITTEE, lambda world: {"username": world.player.username}, GET_POST, club=A
    ),
    "committee_merge": Route(
        COMMITTEE,
        methods=GET_POST,
        states=("?keep=ann&duplicate=cat", "?keep=ann&duplicate=ben"),
    ),
    "committee_recompute": Route(COMMITTEE),
    # The spring open is of no club: the federation's.
    "committee_tournament_class": Route(
        COMMITTEE,
        lambda world: {"code": world.tournament.code},
        methods=GET_POST,
        club=FEDERATION,
    ),
    # A replay of every club's ratings: the federation committee's.
    "committee_recompute_full": Route(COMMITTEE, methods=POST, club=FEDERATION),
}


def resolved_names() -> dict[str, str]:
    """Every URL name the site resolves, with its pattern (admin/ left out: Django's)."""
    names: dict[str, str] = {}

    def walk(patterns, prefix: str) -> None:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if route.startswith("admin/"):
                continue
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern):
                names.setdefault(pattern.name or f"(unnamed) {route}", route)

    walk(get_resolver().url_patterns, "")
    return names


@pytest.fixture
def world(django_user_model) -> World:
    # With a broker (the services leg of CI) /health/ answers 503 until a worker beats:
    # this matrix is about who may see it, so a worker is alive here.
    liveness.worker_beat("permission-matrix@test")
    accounts = {
        "reader": factories.user("rita"),
        "volunteer": factories.volunteer("vera"),
        "committee": factories.committee_member("connie"),
        "staff": django_user_model.objects.create_superuser("root", password=PASSWORD),
    }
    sam = factories.volunteer("sam")
    sam.set_password(PASSWORD)
    sam.save()
    club = factories.club()
    club_b = factories.club("Pretoria Go Club")
    accounts["volunteer_a"] = factories.club_volunteer("vala", club)
    accounts["committee_a"] = factories.club_committee_member("cola", club)
    accounts["volunteer_b"] = factories.club_volunteer("valb", club_b)
    accounts["committee_b"] = factories.club_committee_member("colb", club_b)
    ann = factories.player("ann", "5k", club=club)
    ben = factories.player("ben", "8k")
    factories.player("cat", "12k")
    tournament = factories.tournament("spring-open", "Spring Open")
    game = record_sheet_submit(
        user=accounts["volunteer"],
        games=[
            factories.game(
                ann, ben, "W", date(2024, 3, 1), tournament=tournament, status="tournament"
            )
        ],
        club=club,
    ).games[0]
    batch = resync_apply(
        user=accounts["committee"],
        changes=[ResyncChange(ben, parse_rank("7k"))],
        effective_date=date(2024, 4, 1),
    )
    recompute_pending()
    accounts["player"] = account_create(
        user=accounts["committee"],
        username="pat",
        password=PASSWORD,
        role=Role.READER,
        player=ann,
    )
    report = report_services.report_create(
        user=accounts["player"], player=ann, game_id=game.pk, kind="wrong_result"
    )
    email_change_request(user=sam, email="sam@example.org")
    return World(accounts, sam, club, ann, tournament, game, batch, report, club_b)


def client_as(role: str, world: World, **options) -> Client:
    client = Client(**options)
    if role != "anonymous":
        client.force_login(world.accounts[role])
    return client


def allowed(role: str, route: Route) -> bool:
    if route.roles is not None:
        return role in route.roles
    if LEVELS.index(ROLES[role]) < LEVELS.index(route.level):
        return False
    club = CLUB_OF_ROLE.get(role)
    return club is None or route.club is None or route.club == club


def request(client: Client, method: str, url: str, data: dict):
    return client.get(url) if method == "GET" else client.post(url, data)


def problem(route: Route, role: str, method: str, response) -> str | None:
    """What is wrong with the response, or None."""
    status, location = response.status_code, response.get("Location", "")
    to_login = status == 302 and location.startswith("/accounts/login/?next=")
    if allowed(role, route):
        if method not in route.methods:
            return None if status == 405 else f"{status}, expected 405 (method not accepted)"
        if status == 200 or (status == 302 and not to_login):
            return None
        return f"{status} {location}, expected 200 or a redirect"
    if role == "anonymous":
        return None if to_login else f"{status} {location}, expected a redirect to log in"
    if method not in route.methods and role in CLUB_OF_ROLE and status == 405:
        return None  # a role of the page's level: the method is refused before the club
    return None if status == 403 else f"{status} {location}, expected 403"


def test_every_url_the_site_resolves_declares_who_may_use_it():
    names = resolved_names()

    undeclared = sorted(f"{name}: {route}" for name, route in names.items() if name not in ROUTES)
    assert undeclared == [], "add these pages to ROUTES with the role they are for"
    assert sorted(set(ROUTES) - set(names)) == [], "these pages are gone: remove them"


@pytest.mark.parametrize("role", ROLES)
def test_each_page_admits_exactly_the_roles_it_declares(role, world):
    failures = []
    for name, route in ROUTES.items():
        url = route.url(name, world)
        for method in ("GET", "POST"):
            # A fresh client each time: a POST may log out or change what comes next.
            response = request(client_as(role, world), method, url, route.post_data(world))
            found = problem(route, role, method, response)
            if found:
                failures.append(f"{method} {url} as {role} ({name}): {found}")
    assert failures == []


def _forms_without_csrf(html: str) -> list[str]:
    forms = re.findall(r"<form\b[^>]*>.*?</form>", html, flags=re.S | re.I)
    return [
        form[:120]
        for form in forms
        if re.search(r"method=[\"']post[\"']", form[: form.index(">")], re.I)
        and 'name="csrfmiddlewaretoken"' not in form
    ]


@pytest.mark.parametrize("role", ROLES)
def test_every_form_that_posts_carries_a_csrf_token(role, world):
    pages_with_forms = 0
    failures = []
    for name, route in ROUTES.items():
        if not allowed(role, route):
            continue
        url = route.url(name, world)
        attempts = [("GET", url + state, {}) for state in ("", *route.states)]
        if "POST" in route.methods:
            attempts.append(("POST", url, route.post_data(world)))
        for method, target, data in attempts:
            if method not in route.methods:
                continue
            response = request(client_as(role, world), method, target, data)
            if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
                continue
            html = response.content.decode()
            if role == "anonymous":  # a visitor's language switcher needs no token
                html = re.sub(r'<form[^>]*id="language-switcher".*?</form>', "", html, flags=re.S)
            pages_with_forms += 'method="post"' in html
            failures += [f"{method} {target}: {form}" for form in _forms_without_csrf(html)]
    assert failures == []
    assert pages_with_forms, "the check found forms to look at"


# Mail programs post the one-click unsubscribe (RFC 8058) with no cookie: its signed
# token is the whole authority, and all it can do is stop one kind of mail.
# A visitor's language switch only sets the language cookie (a signed-in person's, which
# writes to their account, is refused without its token: tests/web/test_languages.py).
CSRF_EXEMPT = {"mail_unsubscribe", "set_language"}


def test_a_post_without_the_csrf_token_is_refused(world):
    refused = []
    for name, route in ROUTES.items():
        if "POST" not in route.methods or name in CSRF_EXEMPT:
            continue
        role = next(role for role in ROLES if allowed(role, route))
        client = client_as(role, world, enforce_csrf_checks=True)
        response = client.post(route.url(name, world), route.post_data(world))
        refused.append((name, response.status_code))
    assert [(name, status) for name, status in refused if status != 403] == []
    assert get_user_model().objects.get(username="sam").check_password(PASSWORD)


# Every query parameter a page or the API reads (and a few it does not).
QUERY_PARAMETERS = [
    "q",
    "algorithm",
    "country",
    "player",
    "keep",
    "duplicate",
    "page",
    "sort",
    "search",
    "club",
    "active_months",
    "action",
    "user",
    "object_type",
    "object_id",
    "since",
    "until",
    "white_player",
    "black_player",
    "handicap",
    "komi",
    "status",
    "board_size",
    "value_scale",
    "rank",
    "name",
    "date",
]


def strange_parameter_cases(pages: list[str], offset: int) -> list[tuple[str, str]]:
    """(page, parameter) pairs, a few per page: page i gets the next PARAMETERS_PER_PAGE
    parameters from position i * PARAMETERS_PER_PAGE + offset, so that every page is asked
    and, as the pages outnumber the parameters, every parameter too. The same cases on
    every run; another ``offset`` pairs the pages with other parameters."""
    count = len(QUERY_PARAMETERS)
    return [
        (page, QUERY_PARAMETERS[(index * PARAMETERS_PER_PAGE + offset + step) % count])
        for index, page in enumerate(pages)
        for step in range(PARAMETERS_PER_PAGE)
    ]


PARAMETERS_PER_PAGE = 3


def test_the_strange_parameter_cases_ask_every_page_and_every_parameter():
    pages = [name for name, route in ROUTES.items() if "GET" in route.methods]
    for offset in (0, len(QUERY_PARAMETERS) // 2):
        cases = strange_parameter_cases(pages, offset)
        assert {page for page, _ in cases} == set(pages)
        assert {parameter for _, parameter in cases} == set(QUERY_PARAMETERS)


# Each value pairs the pages with other parameters (the second starts half-way round).
@pytest.mark.parametrize(
    ("value", "offset"), [("a\x00b", 0), ("9" * 30, len(QUERY_PARAMETERS) // 2)]
)
def test_no_page_fails_on_a_strange_query_parameter(world, value, offset):
    # A NUL character reaches PostgreSQL as an error ("text fields cannot contain NUL"):
    # each page must refuse it, or leave it out of its queries, as with any bad value.
    failures = []
    client = client_as("staff", world, raise_request_exception=False)
    pages = [name for name, route in ROUTES.items() if "GET" in route.methods]
    for name, parameter in strange_parameter_cases(pages, offset):
        base = reverse(name, kwargs=ROUTES[name].kwargs(world))
        response = client.get(base, {parameter: value})
        if response.status_code >= 500:
            failures.append(f"{base}?{parameter}={value!r}: {response.status_code}")
    assert failures == []


def _form_as_it_comes(html: str) -> dict[str, str]:
    """The values a browser posts for a form left untouched: text inputs' values and the
    ticked radio buttons (enough for the account form)."""
    data = {}
    for tag in re.findall(r"<input\b[^>]*>", html):
        name = re.search(r'\bname="([^"]+)"', tag)
        value = re.search(r'\bvalue="([^"]*)"', tag)
        if not name or name.group(1) == "csrfmiddlewaretoken":
            continue
        if 'type="radio"' in tag and " checked" not in tag:
            continue
        data[name.group(1)] = value.group(1) if value else ""
    return data


def test_a_player_account_created_with_the_role_left_as_it_came_cannot_enter_games(world):
    committee = client_as("committee", world)
    data = _form_as_it_comes(committee.get(reverse("committee_account_create")).content.decode())
    data.update(username="bea", email="bea@example.org", player=world.game.black.username)

    response = committee.post(reverse("committee_account_create"), data)

    assert response.status_code == 302, response.content.decode()
    bea = Client()
    bea.force_login(get_user_model().objects.get(username="bea"))
    for name in ("sheet_new", "game_edit", "game_void"):
        route = ROUTES[name]
        assert bea.get(route.url(name, world)).status_code == 403, name
    assert bea.get(reverse("my_page")).status_code == 200


# Every form with a club choice, as club A's roles post it naming club B anyway (an old
# tab, a crafted request): the form's name in the page's context, and what it posts.
CLUB_CHOICES = {
    "sheet_new": ("volunteer_a", "sheet_form", lambda world, club: {"sheet-club": club}),
    "player_create": (
        "volunteer_a",
        "form",
        lambda world, club: (
            {"username": "zed", "full_name": "Zed", "national_rank": "9k"} | {"club": club}
        ),
    ),
    "tournament_create": (
        "volunteer_a",
        "form",
        lambda world, club: (
            {"code": "autumn", "name": "Autumn", "start_date": "2024-04-01"} | {"club": club}
        ),
    ),
    "committee_player_edit": (
        "committee_a",
        "form",
        lambda world, club: {"family_name": "Ann", "entry_rank": "5k", "club": club},
    ),
}


@pytest.mark.parametrize("name", CLUB_CHOICES)
def test_another_club_posted_to_a_club_choice_is_an_error_at_the_field(world, name):
    role, form_name, data = CLUB_CHOICES[name]
    kwargs = {"username": world.player.username} if name == "committee_player_edit" else {}
    client = client_as(role, world)

    response = client.post(reverse(name, kwargs=kwargs), data(world, world.club_b.pk))

    assert response.status_code == 200, (name, response.status_code)
    assert response.context[form_name].errors["club"] == [
        f"Pretoria Go Club is not one of the clubs you act for here; you may choose "
        f"{world.club.name}."
    ]
