"""A player's data on request: the export, and erasure that keeps the games."""

import io
import json
import re
from datetime import date

import pytest
from django.core.management import call_command

from players.models import AuditEntry, Game, Player
from players.services.games import record_sheet_submit
from players.services.players import player_merge
from players.services.privacy import player_data_export, player_erase
from ratings.models import RatingHistory
from ratings.recompute.run import recompute_pending
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def li_and_olivia():
    vera = factories.volunteer()
    li = factories.player("li", "3k", full_name="Li Wei")
    olivia = factories.player("olivia", "5k", full_name="Olivia Botha")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(li, olivia, "W", date(2024, 2, 1)),
            factories.game(olivia, li, "W", date(2024, 2, 8)),
        ],
    )
    recompute_pending()
    return vera, li, olivia


def test_the_export_holds_the_profile_games_and_history(li_and_olivia):
    _, li, _ = li_and_olivia
    data = player_data_export(li)
    assert data["player"]["full_name"] == "Li Wei"
    assert [game["date"] for game in data["games"]] == ["2024-02-01", "2024-02-08"]
    assert {row["algorithm"] for row in data["history"]} >= {"sagc", "egf-2021"}
    json.dumps(data)


def test_the_export_command_prints_json(li_and_olivia):
    out = io.StringIO()
    call_command("export_player_data", "li", stdout=out)
    assert json.loads(out.getvalue())["player"]["username"] == "li"


def test_erasure_replaces_the_name_and_keeps_the_games_for_the_opponent(li_and_olivia):
    vera, li, olivia = li_and_olivia
    olivia_before = list(
        RatingHistory.objects.filter(player=olivia)
        .order_by("algorithm", "position")
        .values_list("algorithm", "value_after")
    )
    player_erase(user=vera, player=li)
    recompute_pending()
    li.refresh_from_db()
    assert li.username == f"erased-{li.pk}" and "Li Wei" not in li.full_name
    assert not li.active and li.erased_at is not None
    assert Game.objects.filter(white=li).count() == 1
    olivia_after = list(
        RatingHistory.objects.filter(player=olivia)
        .order_by("algorithm", "position")
        .values_list("algorithm", "value_after")
    )
    assert olivia_after == olivia_before


def test_erasure_redacts_the_name_from_the_audit_trail_but_not_other_names(li_and_olivia):
    vera, li, _ = li_and_olivia
    player_erase(user=vera, player=li)
    text = json.dumps(list(AuditEntry.objects.values("summary", "before", "after")))
    assert '"li"' not in text and "Li Wei" not in text
    assert "olivia" in text, "a name that merely contains 'li' is left alone"
    assert AuditEntry.objects.filter(action="player_erase").exists()


def test_the_erase_command_only_acts_with_yes(li_and_olivia):
    out = io.StringIO()
    call_command("erase_player", "li", stdout=out)
    assert "Would erase" in out.getvalue()
    assert Player.objects.filter(username="li").exists()
    call_command("erase_player", "li", "--yes", stdout=out)
    assert not Player.objects.filter(username="li").exists()


def test_erasure_redacts_the_username_from_game_summaries_next_to_the_dash(li_and_olivia):
    vera, li, _olivia = li_and_olivia
    summaries = list(
        AuditEntry.objects.filter(action="game_create").values_list("summary", flat=True)
    )
    assert any("li-olivia" in summary for summary in summaries), summaries

    player_erase(user=vera, player=li)

    every_text = [
        json.dumps([entry.summary, entry.before, entry.after]) for entry in AuditEntry.objects.all()
    ]
    erased = f"erased-{li.pk}"
    assert not [text for text in every_text if re.search(r"(?<![\w.])li(?![\w.])", text)]
    assert not [text for text in every_text if "Li Wei" in text]
    summaries = list(
        AuditEntry.objects.filter(action="game_create").values_list("summary", flat=True)
    )
    assert summaries and all(
        f"{erased}-olivia" in summary or f"olivia-{erased}" in summary for summary in summaries
    )


def test_erasure_leaves_a_longer_username_holding_the_name_alone(li_and_olivia):
    vera, li, olivia = li_and_olivia
    li_wei = factories.player("li-wei", "8k", full_name="Wei Li")
    record_sheet_submit(user=vera, games=[factories.game(li_wei, olivia, "B", date(2024, 3, 1))])

    player_erase(user=vera, player=li)

    summaries = AuditEntry.objects.filter(action="game_create").values_list("summary", flat=True)
    assert any("li-wei-olivia" in summary for summary in summaries)


def test_erasure_also_erases_the_records_merged_into_the_player(client, li_and_olivia):
    vera, li, olivia = li_and_olivia
    duplicate = factories.player("liwei", "4k", full_name="Li Wei", egd_pin="12345678")
    record_sheet_submit(
        user=vera, games=[factories.game(duplicate, olivia, "W", date(2024, 1, 10))]
    )
    player_merge(user=factories.committee_member(), keep=li, duplicate=duplicate)

    player_erase(user=vera, player=li)

    duplicate.refresh_from_db()
    assert duplicate.erased_at is not None
    assert duplicate.username == f"erased-{duplicate.pk}"
    assert "Li Wei" not in duplicate.full_name and duplicate.egd_pin == ""
    for url in (
        f"/players/{duplicate.username}/",
        f"/api/v1/players/{duplicate.username}/",
        "/api/v1/players/",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "Li Wei" not in response.content.decode(), url
        assert "liwei" not in response.content.decode(), url
    assert client.get("/players/liwei/").status_code == 404
    text = json.dumps(list(AuditEntry.objects.values("summary", "before", "after")))
    assert "Li Wei" not in text and '"liwei"' not in text
