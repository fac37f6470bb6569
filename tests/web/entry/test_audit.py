"""/audit/: the audit trail, filterable, newest first, each entry's before and after."""

import re
from datetime import date, timedelta

import pytest
from django.utils import timezone

from players.models import AuditEntry
from players.selectors.audit import Change, audit_diff
from players.services.games import game_correct, record_sheet_submit
from players.services.players import player_create
from ratings.engine.ranks import parse_rank
from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]


@pytest.fixture
def corrected_game(vera):
    """A game entered by vera and corrected by connie (the result was misread)."""
    alice, bob = factories.player("alice", "5k"), factories.player("bob", "8k")
    game = record_sheet_submit(
        user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 1))]
    ).games[0]
    game_correct(
        user=factories.committee_member(),
        game_id=game.pk,
        version=1,
        changes=factories.game(alice, bob, "B", date(2024, 3, 1)),
    )
    return game


def rows(html: str) -> list[str]:
    """The markup of each audit entry's row (with its nested before/after table)."""
    return re.split(r"<tr [^>]*data-audit=", html)[1:]


def test_it_lists_the_trail_newest_first_with_who_and_what(client, corrected_game):
    html = client.get("/audit/").content.decode()

    entries = rows(html)
    assert len(entries) == 2  # the factory's players are not audited: only the game is
    assert "Game corrected" in entries[0] and "connie" in entries[0]
    assert "Game entered" in entries[1] and "vera" in entries[1]
    assert f'href="/games/{corrected_game.pk}/"' in entries[0]


def test_it_shows_before_and_after_side_by_side_with_the_changes_marked(client, corrected_game):
    html = client.get("/audit/", {"action": "game_correct"}).content.decode()

    assert "<summary>2 changed</summary>" in html  # the winner and the version
    changed = re.findall(
        r'<tr class="table-warning" data-changed>\s*<th scope="row">(\w+)</th>'
        r"\s*<td>(.*?)</td>\s*<td>(.*?)</td>",
        html,
    )
    # (sorted: PostgreSQL's jsonb keeps the keys in an order of its own)
    assert sorted(changed) == [("version", "1", "2"), ("winner", "W", "B")]
    assert re.search(r'<tr>\s*<th scope="row">white</th>\s*<td>alice</td>\s*<td>alice</td>', html)
    # An empty comment and a missing time are told apart.
    assert re.search(r'<th scope="row">comment</th>\s*<td>&quot;&quot;</td>', html)
    assert re.search(r'<th scope="row">time_minutes</th>\s*<td>—</td>', html)


def test_it_filters_by_action_user_object_and_dates(client, vera, corrected_game):
    connie = factories.committee_member()
    player = player_create(
        user=vera, username="carol", full_name="Carol", entry_rank=parse_rank("3k")
    )
    old = AuditEntry.objects.get(action="player_create")
    AuditEntry.objects.filter(pk=old.pk).update(at=timezone.now() - timedelta(days=40))

    codes = {"Game entered": "game_create", "Game corrected": "game_correct"}
    codes["Player added"] = "player_create"

    def actions(**filters) -> list[str]:
        html = client.get("/audit/", filters).content.decode()
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", html)
        return [codes[cell] for cell in cells if cell in codes]

    assert actions(action="game_correct") == ["game_correct"]
    assert actions(user="connie") == ["game_correct"]
    assert actions(user=vera.username) == ["game_create", "player_create"]
    assert actions(object_type="player") == ["player_create"]
    assert actions(object_type="game", object_id=str(corrected_game.pk)) == [
        "game_correct",
        "game_create",
    ]
    today = timezone.localdate()
    assert actions(since=str(today - timedelta(days=1))) == ["game_correct", "game_create"]
    assert actions(until=str(today - timedelta(days=30))) == ["player_create"]
    assert player.username == "carol" and connie.username == "connie"


def test_it_says_when_the_date_range_is_backwards(client, vera):
    response = client.get("/audit/", {"since": "2024-03-10", "until": "2024-03-01"})

    assert response.status_code == 200
    assert "2024-03-01 is before 2024-03-10" in response.content.decode()


def test_it_pages_the_trail_with_a_bounded_number_of_queries(
    client, vera, django_assert_max_num_queries
):
    alice, bob = factories.player("alice"), factories.player("bob")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(alice, bob, "W", date(2024, 1, 1) + timedelta(days=n)) for n in range(70)
        ],
    )

    with django_assert_max_num_queries(11):  # 10, and the club filter's clubs
        first = client.get("/audit/")
    second = client.get("/audit/", {"page": 2})

    assert len(rows(first.content.decode())) == 50
    assert len(rows(second.content.decode())) == 20


def test_it_is_read_only(client, vera, corrected_game):
    assert client.post("/audit/", {"action": "game_correct"}).status_code == 405
    assert AuditEntry.objects.count() == 2


def test_the_diff_marks_changed_added_and_removed_keys_in_the_order_stored():
    changes = audit_diff(
        {"date": "2024-03-01", "winner": "W", "gone": 1},
        {"date": "2024-03-01", "winner": "B", "new": 2},
    )

    assert changes == [
        Change("date", "2024-03-01", "2024-03-01", False),
        Change("winner", "W", "B", True),
        Change("gone", 1, None, True),
        Change("new", None, 2, True),
    ]


def test_the_diff_of_a_creation_lists_every_key_as_new():
    assert audit_diff(None, {"username": "alice"}) == [Change("username", None, "alice", True)]
    assert audit_diff(None, None) == [Change("", None, None, False)]
