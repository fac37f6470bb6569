"""The Content-Security-Policy: only the site's own scripts and styles. The pages must
then hold no inline script, no style element or attribute and no event handler
attribute, which the browser would refuse (the browser tests run under the policy)."""

import re
from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from clubrating.security_headers import CONTENT_SECURITY_POLICY
from players.services.games import record_sheet_submit
from ratings.models import RecomputeState
from ratings.recompute import progress
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.engine.test_egd_format import SPRING_CUP

pytestmark = pytest.mark.django_db

INLINE = [
    (r"<script(?![^>]*\bsrc=)[^>]*>", "an inline script"),
    (r"<style\b", "a style element"),
    (r"\sstyle=", "a style attribute"),
    (r"\son[a-z]+=", "an event handler attribute"),
    (r"javascript:", "a javascript: URL"),
]


@pytest.fixture
def pages(client, django_capture_on_commit_callbacks):
    connie = factories.committee_member()
    connie.is_staff = connie.is_superuser = True
    connie.save()
    ann, ben = factories.player("ann", "3k"), factories.player("ben", "5k")
    factories.tournament()
    result = record_sheet_submit(
        user=connie,
        games=[
            factories.game(ann, ben, "W", date(2024, 2, 1)),
            factories.game(ben, ann, "B", date(2024, 2, 8)),
        ],
    )
    # The lab's report (its calibration chart) is computed once the recompute commits.
    with django_capture_on_commit_callbacks(execute=True):
        recompute_pending()
    # A recompute under way shows its progress bar.
    RecomputeState.objects.filter(algorithm="sagc").update(running_since=timezone.now())
    progress.report("sagc", 1500, 6000)
    client.force_login(connie)
    game, sheet = result.games[0], result.sheet
    yield [
        "/",
        "/players/ann/",
        "/tournaments/",
        "/tournaments/club-open/",
        "/clubs/",
        f"/games/{game.pk}/",
        f"/games/{game.pk}/edit/",
        f"/games/{game.pk}/void/",
        "/sheets/",
        "/sheets/new/",
        f"/sheets/{sheet.pk}/",
        "/tournaments/import/",
        "/tournaments/new/",
        "/players/new/",
        "/audit/",
        "/lab/?algorithm=sagc",
        "/calculator/?white_rank=3k&black_rank=5k",
        "/committee/recompute/",
        "/committee/accounts/",
        f"/committee/accounts/{connie.pk}/",
        "/committee/accounts/new/",
        "/committee/resync/",
        "/committee/players/ann/adjust/",
        "/committee/players/merge/",
        "/accounts/password_change/",
    ]
    progress.clear("sagc")


def inline_content(html: str) -> list[tuple[str, str]]:
    return [
        (what, html[match.start() : match.start() + 80])
        for pattern, what in INLINE
        for match in re.finditer(pattern, html)
    ]


def test_every_answer_carries_the_policy(client):
    response = client.get("/")

    assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert "script-src 'self';" in CONTENT_SECURITY_POLICY
    assert "style-src 'self';" in CONTENT_SECURITY_POLICY
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY


def test_the_site_pages_hold_nothing_inline_that_the_policy_refuses(client, pages):
    found = []
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        found += [(url, *inline) for inline in inline_content(response.content.decode())]
    preview = client.post(
        "/tournaments/import/", {"file": SimpleUploadedFile("spring.h9", SPRING_CUP.encode())}
    )
    found += [("import preview", *inline) for inline in inline_content(preview.content.decode())]
    lab = client.get("/lab/?algorithm=sagc").content.decode()
    recompute = client.get("/committee/recompute/").content.decode()

    assert found == []
    assert 'id="calibration-chart"' in lab
    assert "progress-width-25" in recompute
    assert 'class="import-choice"' in preview.content.decode()


def test_the_login_page_holds_nothing_inline(client):
    assert inline_content(client.get("/accounts/login/").content.decode()) == []
