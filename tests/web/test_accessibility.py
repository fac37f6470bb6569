"""Accessibility as a test: axe-core (vendored in static/vendor/axe-core, so it runs
offline) checks every HTML page of the site at a desktop (1366 px) and a phone (390 px)
width, as anonymous visitors, volunteers and committee members, and the test fails on any
critical or serious violation, listing each with its page, role, width and elements.

The pages and their sample arguments are test_permissions' ROUTES: a page declared there
once is checked here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import pytest
from django.templatetags.static import static
from django.urls import reverse

from players.services.adjustments import ResyncChange, resync_apply, resync_revert
from players.services.games import game_void, record_sheet_submit
from players.services.players import player_merge
from ratings.engine.ranks import parse_rank
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.web import test_permissions
from tests.web.browser_session import sign_in_browser
from tests.web.test_permissions import (
    COMMITTEE,
    EVERYONE,
    LOGGED_IN,
    ROUTES,
    VOLUNTEER,
    allowed,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("role_groups"),
]


# Loaded from the site itself: the Content-Security-Policy refuses inline scripts.
AXE = "vendor/axe-core/axe.min.js"
# The roles of the issue, with the highest level each may use: a player is an account
# linked to a player record (their own page and reports).
ROLES = {"anonymous": EVERYONE, "player": LOGGED_IN, "volunteer": VOLUNTEER, "committee": COMMITTEE}
WIDTHS = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}
FAILING_IMPACTS = ("critical", "serious")
# Not pages to read: downloads, JSON, the health probe and the favicon (an image).
NOT_HTML = ("_csv", "_egd", "_opengotha", "api_", "health", "player_lookup", "favicon")
# The error pages, by the role that meets them and their status.
ERROR_PAGES = {
    ("volunteer", "/committee/accounts/"): 403,
    ("anonymous", "/players/nobody-of-that-name/"): 404,
}

world = test_permissions.world


@pytest.fixture
def greyed_pages(world) -> list[tuple[str, str]]:
    """(role, URL) of pages with greyed rows, where colour contrast fails first: a sheet
    with a voided game, and a reverted resync."""
    ann, ben = world.player, world.game.black
    volunteer, committee = world.accounts["volunteer"], world.accounts["committee"]
    games = record_sheet_submit(
        user=volunteer,
        games=[
            factories.game(ann, ben, "W", date(2024, 5, 2)),
            factories.game(ann, ben, "B", date(2024, 5, 3)),
        ],
    ).games
    game_void(user=volunteer, game_id=games[0].pk, version=games[0].version, reason="entered twice")
    batch = resync_apply(
        user=committee,
        changes=[ResyncChange(ann, parse_rank("4k"))],
        effective_date=date(2024, 6, 1),
    )
    resync_revert(user=committee, batch_id=batch.pk)
    recompute_pending()
    return [
        ("volunteer", reverse("sheet_detail", args=[games[0].record_sheet_id])),
        ("committee", reverse("committee_resync_batch", args=[batch.pk])),
        ("anonymous", reverse("player_log", args=[ann.username])),
    ]


def html_pages() -> list[str]:
    return [
        name
        for name, route in ROUTES.items()
        if "GET" in route.methods and not any(part in name for part in NOT_HTML)
    ]


def roles_allowed(name: str) -> list[str]:
    return [role for role in ROLES if allowed(role, ROUTES[name])]


def sampled_checks(world) -> list[tuple[str, str, str]]:
    """(role, URL, page name): every page (and each state of its forms) as one of the
    roles allowed on it, the roles taken in turn so that each role's navigation is
    checked on many pages. Deterministic; the full matrix of roles took four minutes."""
    checks = []
    for index, name in enumerate(html_pages()):
        roles = roles_allowed(name)
        route = ROUTES[name]
        for state in ("", *route.states):
            checks.append((roles[index % len(roles)], route.url(name, world) + state, name))
    return checks


@dataclass(frozen=True)
class Violation:
    where: str
    rule: str
    impact: str
    help: str
    targets: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.where}: {self.impact} {self.rule} ({self.help}) at {'; '.join(self.targets)}"


def violations_on(page, where: str) -> list[Violation]:
    """axe-core's critical and serious violations on the page as it is now."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(url=static(AXE))
    found = page.evaluate(
        """async () => {
            const results = await axe.run(document, {resultTypes: ["violations"]});
            return results.violations.map(v => ({
                rule: v.id, impact: v.impact, help: v.help,
                targets: v.nodes.slice(0, 5).map(n => n.target.join(" ")),
            }));
        }"""
    )
    return [
        Violation(where, item["rule"], item["impact"], item["help"], tuple(item["targets"]))
        for item in found
        if item["impact"] in FAILING_IMPACTS
    ]


def test_no_page_has_a_serious_accessibility_violation_for_any_role_or_width(
    live_server, browser_page, world, greyed_pages
):
    page = browser_page
    checks = sorted(
        [(role, url) for role, url, _ in sampled_checks(world)] + greyed_pages + list(ERROR_PAGES),
        key=lambda check: list(ROLES).index(check[0]),
    )
    violations, signed_in_as = [], None
    for role, url in checks:
        if role != signed_in_as:
            account = None if role == "anonymous" else world.accounts[role]
            sign_in_browser(page, account, live_server.url)
            signed_in_as = role
        page.set_viewport_size(WIDTHS["desktop"])
        response = page.goto(live_server.url + url)
        expected = ERROR_PAGES.get((role, url), 200)
        assert response.status == expected, f"{url} as {role}: {response.status}"
        # The same page at both widths: Bootstrap's layout changes with the viewport.
        for viewport in WIDTHS.values():
            page.set_viewport_size(viewport)
            violations += violations_on(page, f"{url} as {role} at {viewport['width']} px")

    assert {role for role, _ in checks} == set(ROLES)
    assert not violations, "\n".join(map(str, violations))


def test_the_sample_covers_every_page_and_gives_each_role_its_share(world):
    checks = sampled_checks(world)

    assert {name for _, _, name in checks} == set(html_pages())
    for role in ROLES:
        assert sum(checked_role == role for checked_role, _, _ in checks) >= 3, role
    for role, url, name in checks:
        assert role in roles_allowed(name), (role, url)


def test_a_merged_records_page_and_the_record_kept_have_no_serious_violation(
    live_server, browser_page
):
    keep = factories.player("thandi", "5k", full_name="Thandi Nkosi")
    duplicate = factories.player("thandi2", "5k", full_name="Thandi Nkosi")
    player_merge(user=factories.committee_member("connie"), keep=keep, duplicate=duplicate)
    page = browser_page
    violations = []
    for url in (reverse("player_log", args=["thandi2"]), reverse("player_log", args=["thandi"])):
        page.goto(live_server.url + url)
        for viewport in WIDTHS.values():
            page.set_viewport_size(viewport)
            violations += violations_on(page, f"{url} at {viewport['width']} px")

    assert page.locator("#merged-records").count() == 1
    assert not violations, "\n".join(map(str, violations))
