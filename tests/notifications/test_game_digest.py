"""The players' digest of an evening: one mail for the evening's games once their
ratings are final, never one per game; a correction after it makes a second."""

from __future__ import annotations

import re

import pytest

from notifications.models import OutgoingMail
from notifications.senders import game_digests_send
from notifications.services import mail_settings_save
from players.services.accounts import account_create, account_link_player
from players.services.games import game_correct, game_void, record_sheet_submit
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.notifications.conftest import later, yesterday

pytestmark = pytest.mark.django_db


@pytest.fixture
def evening(vera, pat, ann, ben, cat):
    """Three games of Ann's, entered on one sheet, recomputed."""
    sheet = record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", yesterday()),
            factories.game(cat, ann, "W", yesterday()),
            factories.game(ann, cat, "B", yesterday(), round=2),
        ],
        allow_duplicates=True,  # Ann and Cat played twice
    )
    recompute_pending()
    return sheet.games


def test_three_games_of_one_evening_make_one_mail(evening, delivered):
    assert game_digests_send(now=later()) == 1

    (mail,) = delivered()
    assert mail.to == ["ann@example.org"]
    assert mail.subject == f"Your games of {yesterday().isoformat()}"
    assert mail.body.count("against") == 3
    assert re.search(r"Ben Bo \(ben\): won, \+\d+\n", mail.body), "the index change, signed"
    assert "Cat Cho (cat): lost" in mail.body
    assert "Your club rank after the evening:" in mail.body
    assert "http://127.0.0.1:8000/me/" in mail.body
    html, mimetype = mail.alternatives[0]
    assert mimetype == "text/html" and "<table" in html


def test_the_digest_writes_each_change_as_the_log_page_does_in_the_readers_language(
    evening, pat, delivered
):
    from notifications.services import language_save

    language_save(user=pat, language="fr")

    game_digests_send(now=later())

    (mail,) = delivered()
    changes = re.findall(r"\): (?:gagnée|perdue), (\S+)\n", mail.body)
    html = mail.alternatives[0][0]
    # A SAGC index moves by whole points: "+45", "-249" (with a minus sign), never "-249.0".
    assert len(changes) == 3
    assert all(re.fullmatch(r"[+\u2212]\d+|0", change) for change in changes), changes
    assert all(f">{change}</td>" in html for change in changes)


def test_the_sweep_running_again_sends_nothing_more(evening, delivered):
    game_digests_send(now=later())
    game_digests_send(now=later())

    assert len(delivered()) == 1
    assert OutgoingMail.objects.filter(kind="games").count() == 1


def test_a_correction_after_the_digest_makes_a_second(evening, vera, delivered):
    game_digests_send(now=later())
    first = evening[0]
    game_correct(
        user=vera,
        game_id=first.pk,
        version=first.version,
        changes=factories.game(first.white, first.black, "B", first.date),
    )
    recompute_pending()

    game_digests_send(now=later())

    first_mail, second = delivered()
    assert second.subject == first_mail.subject
    assert "Ben Bo (ben): lost (corrected)" in second.body


def test_a_void_after_the_digest_makes_a_second(evening, vera, delivered):
    game_digests_send(now=later())
    game_void(user=vera, game_id=evening[1].pk, version=evening[1].version, reason="not played")
    recompute_pending()

    game_digests_send(now=later())

    assert "Cat Cho (cat): voided" in delivered()[1].body


def test_no_digest_while_the_evening_waits_for_its_recompute(vera, pat, ann, ben, delivered):
    record_sheet_submit(user=vera, games=[factories.game(ann, ben, "W", yesterday())])

    assert game_digests_send(now=later()) == 0
    recompute_pending()
    assert game_digests_send(now=later()) == 1


def test_no_digest_right_after_the_entry_a_sheet_saved_in_parts_makes_one(evening, delivered):
    assert game_digests_send() == 0, "the quiet time after an entry has not passed"


def test_a_player_who_turned_digests_off_gets_none(evening, pat, delivered):
    mail_settings_save(user=pat, wanted=["report_answer"])

    assert game_digests_send(now=later()) == 0
    assert delivered() == []


def test_a_player_without_a_confirmed_address_gets_none(evening, pat, delivered):
    pat.email = ""
    pat.save()

    assert game_digests_send(now=later()) == 0


def test_the_digest_carries_a_working_unsubscribe_link_and_headers(evening, pat, client, delivered):
    game_digests_send(now=later())
    (mail,) = delivered()

    link = mail.extra_headers["List-Unsubscribe"].strip("<>")
    assert mail.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert link in mail.body
    path = re.sub(r"^http://[^/]+", "", link)
    assert client.get(path).status_code == 200
    assert client.post(path, {"List-Unsubscribe": "One-Click"}).status_code == 200
    assert (
        "games" in type(evening[0]).objects.get(pk=evening[0].pk).white.account.mail_profile.muted
    )


def test_a_sweep_that_finds_every_digest_sent_reads_a_few_queries_whatever_the_players(
    evening, connie, ben, cat, django_assert_max_num_queries
):
    for player in (ben, cat):
        account = account_create(
            user=connie, username=f"{player.username}-own", password=None, role="reader"
        )
        account_link_player(user=connie, account=account, player=player)
        account.email = f"{player.username}@example.org"
        account.save()
    assert game_digests_send(now=later()) == 3

    with django_assert_max_num_queries(6):
        assert game_digests_send(now=later()) == 0
