"""The committee's write services: merging two records of one person, accounts, and
asking for a full recompute."""

from datetime import date

import pytest
from django.contrib.auth import get_user_model

from players.models import Adjustment, AuditEntry, Game, Player
from players.roles import is_committee, is_volunteer
from players.services.accounts import (
    Role,
    account_create,
    account_invite,
    account_set_roles,
    invitation_send,
)
from players.services.adjustments import adjustment_apply
from players.services.base import ServiceError
from players.services.games import game_void, record_sheet_submit
from players.services.players import player_merge
from ratings.engine.ranks import parse_rank
from ratings.models import CurrentRating, RatingHistory, RecomputeState
from ratings.recompute.dirty import request_full_recompute
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.ratings.test_recompute import replayed_from_scratch, stored

pytestmark = pytest.mark.django_db

HISTORY_ALGORITHMS = ("sagc", "egf-2021", "french", "anchor")


@pytest.fixture
def club():
    """Ann and Ann's second record (entered again by mistake), with Ben and Cat."""
    vera = factories.volunteer()
    ann = factories.player("ann", "5k", full_name="Ann Smith")
    ann2 = factories.player("ann-smith", "5k", full_name="Ann Smith")
    ben = factories.player("ben", "3k")
    cat = factories.player("cat", "8k")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", date(2024, 3, 1)),
            factories.game(ben, ann2, "B", date(2024, 2, 1)),
            factories.game(ann2, cat, "W", date(2024, 4, 1)),
            factories.game(cat, ben, "W", date(2024, 1, 15)),
        ],
    )
    adjustment_apply(user=vera, player=ann2, date=date(2024, 3, 10), new_rank=parse_rank("4k"))
    recompute_pending()
    return ann, ann2, ben, cat


def test_a_merge_moves_the_duplicates_games_and_adjustments(connie, club):
    ann, ann2, *_ = club

    player_merge(user=connie, keep=ann, duplicate=ann2, note="entered twice")

    assert Game.objects.filter(white=ann2).count() + Game.objects.filter(black=ann2).count() == 0
    assert sorted(
        (g.date.isoformat(), g.white.username, g.black.username) for g in Game.objects.all()
    ) == [
        ("2024-01-15", "cat", "ben"),
        ("2024-02-01", "ben", "ann"),
        ("2024-03-01", "ann", "ben"),
        ("2024-04-01", "ann", "cat"),
    ]
    assert list(Adjustment.objects.values_list("player__username", flat=True)) == ["ann"]
    assert Game.objects.get(date=date(2024, 4, 1)).version == 2, "an open edit form is stale"
    ann.refresh_from_db()
    ann2.refresh_from_db()
    assert ann2.active is False, "the duplicate is kept, inactive, for the audit trail"
    assert ann.active is True
    assert ann.last_updated == date(2024, 4, 1)


def test_a_merge_is_audited_with_what_moved(connie, club):
    ann, ann2, *_ = club

    player_merge(user=connie, keep=ann, duplicate=ann2, note="entered twice")

    merge = AuditEntry.objects.get(action="player_merge")
    assert (merge.user, merge.object_id) == (connie, str(ann.pk))
    assert merge.after["duplicate"] == "ann-smith"
    assert len(merge.after["games"]) == 2
    assert len(merge.after["adjustments"]) == 1
    deactivated = AuditEntry.objects.get(action="player_deactivate")
    assert deactivated.before["active"] is True
    assert deactivated.after["active"] is False
    assert deactivated.after["merged_into"] == "ann"
    assert AuditEntry.objects.filter(action="game_reassign").count() == 2


def test_after_a_merge_the_recompute_leaves_no_trace_of_the_duplicate(connie, club):
    ann, ann2, *_ = club
    assert RatingHistory.objects.filter(player=ann2).exists()

    player_merge(user=connie, keep=ann, duplicate=ann2)
    recompute_pending()

    assert not RatingHistory.objects.filter(player=ann2).exists()
    assert not RatingHistory.objects.filter(opponent=ann2).exists()
    assert not CurrentRating.objects.filter(player=ann2).exists()
    assert RatingHistory.objects.filter(algorithm="sagc", player=ann).count() == 4
    for algorithm in HISTORY_ALGORITHMS:
        assert stored(algorithm) == replayed_from_scratch(algorithm), algorithm


def test_a_merge_marks_the_ratings_dirty_from_the_earliest_entry_of_either_record(
    connie, club, django_capture_on_commit_callbacks
):
    ann, ann2, *_ = club

    with django_capture_on_commit_callbacks(execute=False):
        player_merge(user=connie, keep=ann, duplicate=ann2)

    assert RecomputeState.objects.get(algorithm="sagc").dirty_from == date(2024, 2, 1)


def test_two_records_that_played_each_other_are_not_merged(connie, club):
    ann, _ann2, ben, _cat = club

    with pytest.raises(ServiceError) as error:
        player_merge(user=connie, keep=ann, duplicate=ben)

    assert error.value.message == (
        "ann and ben played each other (1 game, the first on 2024-03-01): "
        "they are two people, not two records of one person"
    )
    ben.refresh_from_db()
    assert ben.active
    assert Game.objects.filter(white=ann, black=ben).count() == 1
    assert not AuditEntry.objects.filter(action="player_merge").exists()


def test_a_void_game_between_them_stays_with_the_duplicate(connie, club):
    ann, ann2, *_ = club
    vera = factories.volunteer()
    result = record_sheet_submit(
        user=vera, games=[factories.game(ann, ann2, "W", date(2024, 5, 1))]
    )
    game = result.games[0]
    game_void(user=vera, game_id=game.pk, version=game.version, reason="a mistake")

    player_merge(user=connie, keep=ann, duplicate=ann2)

    game.refresh_from_db()
    assert (game.white, game.black) == (ann, ann2)


def test_a_record_cannot_be_merged_into_itself(connie, club):
    ann, *_ = club

    with pytest.raises(ServiceError, match="two different records"):
        player_merge(user=connie, keep=ann, duplicate=ann)


# --- accounts -------------------------------------------------------------------


def test_it_creates_a_volunteer_account_that_can_log_in(connie, client):
    account = account_create(
        user=connie, username="vic", password="long enough secret", role=Role.VOLUNTEER
    )

    assert is_volunteer(account) and not is_committee(account)
    assert client.login(username="vic", password="long enough secret")
    entry = AuditEntry.objects.get(action="account_create")
    assert entry.after["role"] == "volunteer"
    assert "secret" not in str(entry.after)


def test_usernames_are_unique_ignoring_case(connie):
    account_create(user=connie, username="vic", password="x" * 12, role=Role.READER)

    with pytest.raises(ServiceError) as error:
        account_create(user=connie, username="Vic", password="x" * 12, role=Role.READER)

    assert error.value.errors == [(None, "username", "'Vic' is taken (usernames ignore case here)")]


def test_it_changes_roles_and_keeps_other_groups(connie):
    account = factories.volunteer("vic")

    account_set_roles(user=connie, account=account, role=Role.COMMITTEE)
    account = get_user_model().objects.get(pk=account.pk)
    assert is_committee(account)
    account_set_roles(user=connie, account=account, role=Role.READER)
    account = get_user_model().objects.get(pk=account.pk)

    assert not is_volunteer(account)
    entries = AuditEntry.objects.filter(action="account_roles").order_by("id")
    assert [e.summary for e in entries] == [
        "vic: volunteer -> committee",
        "vic: committee -> reader",
    ]


def test_a_committee_member_cannot_drop_their_own_committee_role(connie):
    with pytest.raises(ServiceError) as error:
        account_set_roles(user=connie, account=connie, role=Role.VOLUNTEER)

    assert error.value.errors == [
        (None, "role", "you cannot remove your own committee role: ask another committee member")
    ]
    connie = get_user_model().objects.get(pk=connie.pk)
    assert is_committee(connie)


def test_staff_accounts_are_changed_by_staff_only(connie, delivered):
    admin = get_user_model().objects.create_superuser("root", password="x" * 12)
    staff = get_user_model().objects.create_user("stef", password="x" * 12, is_staff=True)

    for account in (admin, staff):
        with pytest.raises(ServiceError, match="only"):
            invitation_send(user=connie, account=account, email="a@example.org")
        with pytest.raises(ServiceError, match="only"):
            account_set_roles(user=connie, account=account, role=Role.READER)
    with pytest.raises(ServiceError, match="only a superuser"):
        invitation_send(user=staff, account=admin, email="a@example.org")
    invitation_send(user=admin, account=staff, email="stef@example.org")
    assert [mail.to for mail in delivered()] == [["stef@example.org"]]


def test_an_invitation_creates_an_account_with_no_password_and_audits_the_address(connie):
    account = account_invite(
        user=connie, username="vic", email="vic@example.org", role=Role.VOLUNTEER
    )

    assert not account.has_usable_password()
    entry = AuditEntry.objects.get(action="account_invitation")
    assert entry.after == {"email": "vic@example.org"} and entry.user == connie


# --- full recompute -------------------------------------------------------------


def test_a_full_recompute_marks_every_algorithm_from_the_first_entry(connie, club):
    dates = request_full_recompute(user=connie)

    assert set(dates.values()) == {date(2024, 1, 15)}
    assert RecomputeState.objects.get(algorithm="gcr").dirty_from == date(2024, 1, 15)
    entry = AuditEntry.objects.get(action="recompute_request")
    assert (entry.user, entry.object_id) == (connie, "all")


def test_a_full_recompute_of_one_algorithm_replays_only_that_one(connie, club):
    # An entry rank changed behind the site's back: only a full replay picks it up.
    Player.objects.filter(username="cat").update(entry_rank=parse_rank("6k"))

    request_full_recompute(user=connie, algorithm="anchor")
    recompute_pending()

    assert stored("anchor") == replayed_from_scratch("anchor")
    assert stored("sagc") != replayed_from_scratch("sagc"), "sagc was not replayed"


def test_a_full_recompute_with_no_games_does_nothing(connie):
    assert request_full_recompute(user=connie) == {}
    assert not AuditEntry.objects.exists()


def test_a_full_recompute_of_an_unknown_algorithm_is_refused(connie, club):
    with pytest.raises(ValueError, match="not a maintained algorithm"):
        request_full_recompute(user=connie, algorithm="elo")
