"""Players' own accounts and their reports of mistakes: the committee links an account
to a player record, the player reports a game from their own log page, a volunteer
resolves the report (correcting or voiding the game, or answering "as recorded") and
the player reads the answer on their page."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from players.models import AuditEntry, GameReport, Player
from players.services import reports as report_services
from players.services.accounts import Role, account_create, account_link_player
from players.services.base import ServiceError
from players.services.games import game_correct, game_void, record_sheet_submit
from players.services.players import player_merge
from tests import factories

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"


@pytest.fixture
def ann():
    return factories.player("ann", "5k")


@pytest.fixture
def ben():
    return factories.player("ben", "8k")


@pytest.fixture
def game(vera, ann, ben):
    return record_sheet_submit(
        user=vera, games=[factories.game(ann, ben, "W", date(2024, 3, 1))]
    ).games[0]


@pytest.fixture
def pat(connie, ann):
    """Ann's own account (role player), linked by the committee."""
    account = account_create(
        user=connie, username="pat", password=PASSWORD, role=Role.READER, player=ann
    )
    ann.refresh_from_db()
    return account


def report(pat, ann, game, kind=GameReport.Kind.WRONG_RESULT, text=""):
    return report_services.report_create(
        user=pat, player=ann, game_id=game.pk, kind=kind, text=text
    )


# --- item 1: accounts linked to player records --------------------------------------


def test_creating_an_account_for_a_player_links_it_and_audits_both(connie, ann):
    account = account_create(
        user=connie, username="pat", password=PASSWORD, role=Role.READER, player=ann
    )

    assert Player.objects.get(username="ann").account == account
    actions = list(AuditEntry.objects.filter(object_id=str(account.pk)).values_list("action"))
    assert sorted(actions) == [("account_create",), ("account_player",)]


def test_a_player_record_takes_one_account_only(connie, pat, ann):
    other = factories.user("oscar")

    with pytest.raises(ServiceError, match="ann already has an account \\(pat\\)"):
        account_link_player(user=connie, account=other, player=ann)
    with pytest.raises(ServiceError, match="ann already has an account"):
        account_create(user=connie, username="olga", password=PASSWORD, role="reader", player=ann)
    assert Player.objects.get(username="ann").account == pat


def test_linking_an_account_to_another_record_moves_it_and_unlinking_clears_it(
    connie, pat, ann, ben
):
    account_link_player(user=connie, account=pat, player=ben)
    assert Player.objects.get(username="ben").account == pat
    assert Player.objects.get(username="ann").account is None

    account_link_player(user=connie, account=pat, player=None)
    assert not Player.objects.filter(account=pat).exists()
    last = AuditEntry.objects.filter(action="account_player").first()
    assert (last.before, last.after) == ({"player": "ben"}, {"player": None})


def test_the_committee_links_an_account_on_its_page(client, connie, ann):
    client.force_login(connie)
    rita = factories.user("rita")

    response = client.post(f"/committee/accounts/{rita.pk}/player/", {"player": "ann"})

    assert response.status_code == 302
    assert Player.objects.get(username="ann").account == rita
    page = client.get(f"/committee/accounts/{rita.pk}/").content.decode()
    assert 'The own account of\n      <a href="/players/ann/">' in page
    listing = client.get("/committee/accounts/").content.decode()
    assert re.search(r">rita</a></td>\s*<td[^>]*><span[^>]*>player</span>", listing)


def test_the_link_form_says_which_record_is_taken(client, connie, pat):
    client.force_login(connie)
    rita = factories.user("rita")

    response = client.post(f"/committee/accounts/{rita.pk}/player/", {"player": "ann"})

    assert response.status_code == 200
    assert "ann already has an account (pat); unlink it first" in response.content.decode()
    assert Player.objects.get(username="ann").account == pat


def test_the_committee_invites_a_player_to_their_own_account(client, connie, ann, delivered):
    client.force_login(connie)

    response = client.post(
        "/committee/accounts/new/",
        {"username": "pat", "role": "reader", "player": "ann", "email": "ann@example.org"},
    )

    assert response.status_code == 302
    assert [mail.to for mail in delivered()] == [["ann@example.org"]]
    assert Player.objects.get(username="ann").account.username == "pat"


def test_a_linked_player_has_my_page_in_the_navigation_and_nothing_more(client, pat, game):
    client.force_login(pat)

    page = client.get("/").content.decode()

    assert 'id="nav-my-page"' in page
    assert "Enter sheet" not in page and 'id="nav-reports"' not in page
    assert client.get(f"/games/{game.pk}/").status_code == 403
    assert client.get(f"/games/{game.pk}/edit/").status_code == 403
    assert client.post(f"/games/{game.pk}/void/", {"reason": "x"}).status_code == 403
    assert client.get("/reports/").status_code == 403


def test_my_page_lists_the_games_awaiting_the_recompute(client, pat, game):
    client.force_login(pat)

    page = client.get("/me/").content.decode()

    assert 'href="/players/ann/"' in page
    assert re.search(r'id="awaiting-games">\s*<li>2024-03-01: Ann \(white\)', page)


def awaiting_dates(client) -> list[str]:
    page = client.get("/me/").content.decode()
    if 'id="awaiting-games"' not in page:
        return []
    listed = page[
        page.index('id="awaiting-games"') : page.index("</ul>", page.index('id="awaiting-games"'))
    ]
    return re.findall(r"<li>(\d{4}-\d\d-\d\d):", listed)


def test_my_page_lists_only_my_games_the_recompute_has_still_to_rate(
    client, vera, pat, ann, ben, game
):
    from ratings.recompute.run import recompute_pending

    cat = factories.player("cat", "10k")
    recompute_pending()  # game (2024-03-01) is rated and on Ann's log page
    client.force_login(pat)
    assert awaiting_dates(client) == []

    record_sheet_submit(
        user=vera,
        games=[
            factories.game(ben, ann, "B", date(2024, 2, 1)),  # back-dated: pending from it
            factories.game(ben, cat, "W", date(2024, 2, 2)),  # not Ann's
        ],
    )  # fmt: skip

    assert awaiting_dates(client) == ["2024-02-01"]  # not 2024-03-01: rated already
    recompute_pending()
    assert awaiting_dates(client) == []


def test_my_page_lists_my_game_corrected_since_the_last_recompute(client, vera, pat, game):
    from ratings.recompute.run import recompute_pending

    recompute_pending()
    game_correct(
        user=vera, game_id=game.pk, version=1,
        changes=factories.game(game.white, game.black, "B", game.date),
    )  # fmt: skip
    client.force_login(pat)

    assert awaiting_dates(client) == ["2024-03-01"]


def test_my_page_of_an_unlinked_account_says_to_ask_the_committee(client):
    client.force_login(factories.user("rita"))

    page = client.get("/me/").content.decode()

    assert 'id="no-player"' in page
    assert 'id="nav-my-page"' not in page


# --- item 2: reports -----------------------------------------------------------------


def test_a_report_is_stored_and_audited(pat, ann, game):
    stored = report(pat, ann, game, GameReport.Kind.WRONG_DATE, " it was the 2nd ")

    assert (stored.kind, stored.text, stored.game_revision, stored.is_open) == (
        "wrong_date",
        "it was the 2nd",
        0,
        True,
    )
    entry = AuditEntry.objects.get(action="report_create")
    assert entry.object_id == str(stored.pk) and entry.after["kind"] == "wrong_date"


def test_one_open_report_per_game_and_player(pat, ann, game):
    report(pat, ann, game)

    with pytest.raises(ServiceError, match="already reported this game"):
        report(pat, ann, game, GameReport.Kind.WRONG_DATE)
    with pytest.raises(IntegrityError), transaction.atomic():
        GameReport.objects.create(
            game=game, player=ann, kind="wrong_date", game_revision=0, created_by=pat
        )
    assert GameReport.objects.count() == 1


def test_a_player_reports_again_once_the_first_report_is_resolved(vera, pat, ann, game):
    first = report(pat, ann, game)
    report_services.report_resolve(
        user=vera, report_id=first.pk, resolution="as_recorded", answer="The sheet says so."
    )

    second = report(pat, ann, game, GameReport.Kind.WRONG_DATE)

    assert second.is_open


def test_a_player_cannot_report_a_game_they_did_not_play(pat, ann, vera, ben):
    cat = factories.player("cat", "9k")
    theirs = record_sheet_submit(
        user=vera, games=[factories.game(ben, cat, "B", date(2024, 3, 2))]
    ).games[0]

    with pytest.raises(ServiceError, match="is not one of ann's games"):
        report(pat, ann, theirs)


def test_something_else_needs_a_text(pat, ann, game):
    with pytest.raises(ServiceError, match="say what is wrong"):
        report(pat, ann, game, GameReport.Kind.OTHER)


def test_resolving_as_voided_needs_the_game_void_first(vera, pat, ann, game):
    open_report = report(pat, ann, game, GameReport.Kind.DID_NOT_PLAY)

    with pytest.raises(ServiceError, match="is not void: void it first"):
        report_services.report_resolve(user=vera, report_id=open_report.pk, resolution="voided")
    game_void(user=vera, game_id=game.pk, version=1, reason="ann was away")
    resolved = report_services.report_resolve(
        user=vera, report_id=open_report.pk, resolution="voided", answer="Voided."
    )

    assert (resolved.resolution, resolved.resolved_by, resolved.is_open) == ("voided", vera, False)
    assert AuditEntry.objects.filter(action="report_resolve", object_id=str(resolved.pk)).exists()


def test_resolving_as_corrected_needs_the_game_changed_since_the_report(vera, pat, ann, game):
    open_report = report(pat, ann, game)

    with pytest.raises(ServiceError, match="has not changed since it was reported"):
        report_services.report_resolve(user=vera, report_id=open_report.pk, resolution="corrected")
    changes = factories.game(game.white, game.black, "B", game.date)
    game_correct(user=vera, game_id=game.pk, version=1, changes=changes)

    resolved = report_services.report_resolve(
        user=vera, report_id=open_report.pk, resolution="corrected"
    )
    assert resolved.resolution == "corrected"


def test_a_merge_of_the_reporters_records_is_no_correction_of_the_reported_game(
    connie, vera, pat, ann, game
):
    open_report = report(pat, ann, game)
    ann_again = factories.player("ann2", "5k")
    player_merge(user=connie, keep=ann_again, duplicate=ann)

    game.refresh_from_db()
    assert game.version == 2, "the merge re-pointed the game"
    with pytest.raises(ServiceError, match="has not changed since it was reported"):
        report_services.report_resolve(user=vera, report_id=open_report.pk, resolution="corrected")


def test_a_comment_alone_is_no_correction_of_the_reported_game(vera, pat, ann, game):
    open_report = report(pat, ann, game)
    changes = factories.game(game.white, game.black, "W", game.date, comment="checked")
    game_correct(user=vera, game_id=game.pk, version=1, changes=changes)

    with pytest.raises(ServiceError, match="has not changed since it was reported"):
        report_services.report_resolve(user=vera, report_id=open_report.pk, resolution="corrected")


def test_a_correction_undone_leaves_the_reported_game_unchanged(vera, pat, ann, game):
    open_report = report(pat, ann, game)
    wrong = factories.game(game.white, game.black, "B", game.date)
    game_correct(user=vera, game_id=game.pk, version=1, changes=wrong)
    undone = factories.game(game.white, game.black, "W", game.date)
    game_correct(user=vera, game_id=game.pk, version=2, changes=undone)

    with pytest.raises(ServiceError, match="has not changed since it was reported"):
        report_services.report_resolve(user=vera, report_id=open_report.pk, resolution="corrected")


def test_as_recorded_needs_an_answer_and_a_report_resolves_once(vera, pat, ann, game):
    open_report = report(pat, ann, game)

    with pytest.raises(ServiceError, match="why the game stands as recorded"):
        report_services.report_resolve(
            user=vera, report_id=open_report.pk, resolution="as_recorded"
        )
    report_services.report_resolve(
        user=vera, report_id=open_report.pk, resolution="as_recorded", answer="Checked."
    )
    with pytest.raises(ServiceError, match="resolved already"):
        report_services.report_resolve(
            user=vera, report_id=open_report.pk, resolution="as_recorded", answer="Again."
        )


# --- item 2: the pages -----------------------------------------------------------------


def test_the_own_log_page_has_a_report_link_on_each_game_row(client, pat, game):
    from ratings.recompute.run import recompute_pending

    recompute_pending()
    client.force_login(pat)

    own = client.get("/players/ann/").content.decode()
    others = client.get("/players/ben/").content.decode()

    assert f'href="/games/{game.pk}/report/">Report</a>' in own
    assert "/report/" not in others


def test_the_report_page_stores_the_report_and_shows_it_on_my_page(client, pat, game):
    client.force_login(pat)

    response = client.post(
        f"/games/{game.pk}/report/", {"kind": "wrong_result", "text": "I won this one"}
    )

    assert response.status_code == 302 and response["Location"] == "/me/"
    page = client.get("/me/").content.decode()
    assert "Wrong result: I won this one" in page and "awaiting a volunteer" in page
    again = client.get(f"/games/{game.pk}/report/").content.decode()
    assert 'id="already-open"' in again


def test_the_reports_pages_name_the_winner_of_a_game_whose_file_gave_no_colour(
    client, vera, pat, ann, ben
):
    uncoloured = record_sheet_submit(
        user=vera, games=[factories.game(ann, ben, "B", date(2024, 3, 2), colour_given=False)]
    ).games[0]
    filed = report(pat, ann, uncoloured, text="the other way round")
    line = "2024-03-02: Ann – Ben, Ben won (colours not given)"

    client.force_login(pat)
    my_page = client.get("/me/").content.decode()
    report_form = client.get(f"/games/{uncoloured.pk}/report/").content.decode()
    client.force_login(vera)
    queue = client.get("/reports/").content.decode()
    detail = client.get(f"/reports/{filed.pk}/").content.decode()

    assert my_page.count(line) == 2  # awaiting the recompute, and "My reports"
    for page in (report_form, queue, detail):
        assert line in page
    for page in (my_page, report_form, queue, detail):
        assert "(white)" not in page and "black won" not in page


def test_the_report_form_says_what_is_missing(client, pat, game):
    client.force_login(pat)

    response = client.post(f"/games/{game.pk}/report/", {"kind": "other", "text": ""})

    assert response.status_code == 200
    assert "Say what is wrong with the game." in response.content.decode()
    assert not GameReport.objects.exists()


def test_a_player_gets_404_for_a_game_that_is_not_theirs(client, pat, vera, ben):
    cat = factories.player("cat", "9k")
    theirs = record_sheet_submit(
        user=vera, games=[factories.game(ben, cat, "B", date(2024, 3, 2))]
    ).games[0]
    client.force_login(pat)

    assert client.get(f"/games/{theirs.pk}/report/").status_code == 404


def test_volunteers_see_the_count_the_queue_and_the_report_on_the_game_page(
    client, vera, pat, ann, game
):
    open_report = report(pat, ann, game, GameReport.Kind.WRONG_OPPONENT, "it was cat")
    client.force_login(vera)

    home = client.get("/").content.decode()
    queue = client.get("/reports/").content.decode()
    game_page = client.get(f"/games/{game.pk}/").content.decode()

    assert re.search(r'id="open-report-count"[^>]*>1<', home)
    assert f'href="/reports/{open_report.pk}/"' in queue and "Wrong opponent: it was cat" in queue
    assert 'id="game-reports"' in game_page and "Wrong opponent: it was cat" in game_page


def test_the_navigation_count_is_one_query(vera, pat, ann, game, django_assert_num_queries):
    from players.selectors.reports import navigation_facts

    report(pat, ann, game)

    with django_assert_num_queries(1):
        facts = navigation_facts(vera, volunteer=True)
    assert (facts.my_player, facts.open_reports) == (None, 1)
    assert navigation_facts(pat, volunteer=False).my_player == "ann"


def test_a_volunteer_answers_as_recorded_and_the_player_reads_it(client, vera, pat, ann, game):
    open_report = report(pat, ann, game)
    client.force_login(vera)

    missing = client.post(f"/reports/{open_report.pk}/", {"resolution": "as_recorded"})
    assert "Tell the player why the game stands as recorded." in missing.content.decode()
    done = client.post(
        f"/reports/{open_report.pk}/",
        {"resolution": "as_recorded", "answer": "Both players signed the sheet."},
    )

    assert done.status_code == 302
    client.force_login(pat)
    page = client.get("/me/").content.decode()
    assert "Stands as recorded" in page and "Both players signed the sheet." in page


def test_the_resolve_form_says_to_void_the_game_first(client, vera, pat, ann, game):
    open_report = report(pat, ann, game, GameReport.Kind.DID_NOT_PLAY)
    client.force_login(vera)

    response = client.post(f"/reports/{open_report.pk}/", {"resolution": "voided"})

    assert response.status_code == 200
    assert f"game {game.pk} is not void: void it first" in response.content.decode()
    assert GameReport.objects.get().is_open


def test_a_merge_moves_the_players_own_account_to_the_record_kept(connie, pat, ann, ben):
    player_merge(user=connie, keep=ben, duplicate=ann)

    assert Player.objects.get(username="ben").account == pat
    assert Player.objects.get(username="ann").account is None


# --- issue 25, item 19: a rate limit, and the queue in pages ----------------------------


@pytest.fixture
def many_games(vera, ann, ben):
    """Sixty games of ann's."""
    return record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", date(2024, 1, 1 + n % 28), round=n) for n in range(60)
        ],
    ).games


def test_a_player_sends_at_most_ten_reports_an_hour(pat, ann, many_games):
    for game in many_games[: report_services.REPORTS_PER_HOUR]:
        report(pat, ann, game)

    with pytest.raises(ServiceError, match="10 reports in the last hour"):
        report(pat, ann, many_games[report_services.REPORTS_PER_HOUR])

    assert GameReport.objects.count() == report_services.REPORTS_PER_HOUR


def test_reports_older_than_an_hour_do_not_count_against_the_limit(pat, ann, many_games):
    for game in many_games[: report_services.REPORTS_PER_HOUR]:
        report(pat, ann, game)
    GameReport.objects.update(created_at=timezone.now() - timedelta(hours=1, minutes=1))

    report(pat, ann, many_games[report_services.REPORTS_PER_HOUR])


def test_the_queue_of_open_reports_is_shown_in_pages(client, vera, pat, ann, many_games):
    GameReport.objects.bulk_create(
        GameReport(
            game=game,
            player=ann,
            kind=GameReport.Kind.WRONG_RESULT,
            game_revision=game.revision,
            created_by=pat,
        )
        for game in many_games
    )
    client.force_login(vera)

    first = client.get("/reports/").content.decode()
    second = client.get("/reports/", {"page": "2"}).content.decode()

    assert "Open (60)" in first
    assert first.split('id="open-reports"')[1].count('href="/reports/') == 50
    assert second.split('id="open-reports"')[1].count('href="/reports/') == 10
    assert "Page 2 of 2" in second
    for page in ("abc", "-1", "99999999999999999999"):
        assert client.get("/reports/", {"page": page}).status_code == 200
