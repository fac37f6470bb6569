"""An erasure leaves no trace of the person's name, EGD PIN, national id or login
anywhere the database holds text: the whole dump (``dumpdata``) and, on SQLite, the
bytes of a compacted copy of the file (every table, modelled or not) are searched."""

import io
import json
import sqlite3
from datetime import date

import pytest
from axes.models import AccessAttempt
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection

from players.models import AuditEntry, Game, GameReport, Player, RecordSheet, TournamentPlayer
from players.services.accounts import Role, account_create
from players.services.games import record_sheet_submit
from players.services.players import player_create, player_update
from players.services.privacy import player_erase
from players.services.reports import report_create, report_resolve
from ratings.engine.ranks import parse_rank
from ratings.models import Checkpoint
from ratings.recompute.run import recompute_pending
from tests import factories

# What identifies Kofi: none of it may be left, in any case.
TRACES = ("kofi", "mensah", "13572468", "AGA90817", "kmensah", "kofi@example.org")


def _kofi_everywhere(settings):
    """Kofi Mensah as the site comes to hold him: created and corrected by the
    committee (audit snapshots with his names and PIN; the admin's log), with a login
    of his own that once failed, games whose comments and sheet note name him, a report
    he wrote and its answer, a tournament file's line, and engine checkpoints."""
    settings.RATINGS_CHECKPOINT_EVERY = 1
    connie = factories.committee_member()
    vera = factories.volunteer()
    kofi = player_create(
        user=connie,
        username="kofi-mensah",
        full_name="",
        given_name="Kofi",
        family_name="Mensah",
        entry_rank=parse_rank("12k"),
        egd_pin="13572468",
    )
    kofi = player_update(user=connie, player=kofi, national_id="AGA90817", country="GH")
    olivia = factories.player("olivia", "10k", full_name="Olivia Botha")
    ama = factories.player("ama", "14k", full_name="Ama Owusu")
    account = account_create(
        user=connie, username="kmensah", password="x-long-password-1", role=Role.READER
    )
    account.email, account.first_name, account.last_name = "kofi@example.org", "Kofi", "Mensah"
    account.save()
    Player.objects.filter(pk=kofi.pk).update(account=account)
    tournament = factories.tournament("accra-open", "Accra Open")
    record_sheet_submit(
        user=vera,
        note="Kofi brought the sheet",
        games=[
            factories.game(kofi, olivia, "W", date(2024, 2, 1), comment="Kofi Mensah came late"),
            factories.game(olivia, kofi, "W", date(2024, 2, 8), comment="mensah resigned"),
            factories.game(kofi, ama, "B", date(2024, 2, 15), comment="kofi-mensah's clock"),
            factories.game(olivia, ama, "W", date(2024, 2, 22), comment="Kofi Mensah timed"),
            factories.game(ama, olivia, "B", date(2024, 3, 1)),
        ],
    )
    TournamentPlayer.objects.create(
        tournament=tournament,
        player=kofi,
        number=1,
        rank=parse_rank("12k"),
        family_name="Mensah",
        given_name="Kofi",
        file_attributes={"agaId": "AGA90817"},
    )
    game = Game.objects.get(comment="Kofi Mensah came late")
    report = report_create(
        user=account,
        player=kofi,
        game_id=game.pk,
        kind=GameReport.Kind.OTHER,
        text="I am Kofi Mensah, EGD 13572468: I was on time",
    )
    report_resolve(
        user=vera,
        report_id=report.pk,
        resolution=GameReport.Resolution.AS_RECORDED,
        answer="Kofi, the sheet says you were late",
    )
    AccessAttempt.objects.create(
        username="kmensah",
        ip_address="192.0.2.7",
        user_agent="test",
        get_data="",
        post_data="username=kmensah",
        failures_since_start=1,
    )
    LogEntry.objects.create(
        user=connie,
        content_type=ContentType.objects.get_for_model(Player),
        object_id=str(kofi.pk),
        object_repr=str(kofi),
        action_flag=CHANGE,
        change_message='[{"changed": {"fields": ["EGD PIN"]}}]',
    )
    recompute_pending()
    assert Checkpoint.objects.filter(state__contains='"kofi-mensah"').exists()
    return connie, kofi


def _dump() -> str:
    out = io.StringIO()
    call_command("dumpdata", stdout=out)
    return out.getvalue()


def _left(text: str) -> list[str]:
    lowered = text.lower()
    return [trace for trace in TRACES if trace.lower() in lowered]


@pytest.mark.django_db
def test_the_dump_holds_every_trace_before_the_erasure(settings):
    _kofi_everywhere(settings)
    assert _left(_dump()) == list(TRACES)


@pytest.mark.django_db
def test_erasure_leaves_no_trace_in_the_database_dump(settings):
    connie, kofi = _kofi_everywhere(settings)

    player_erase(user=connie, player=kofi)

    assert _left(_dump()) == []
    recompute_pending()
    assert _left(_dump()) == []
    kofi.refresh_from_db()
    assert kofi.account is not None and not kofi.account.is_active
    assert not kofi.account.has_usable_password()
    erasure = AuditEntry.objects.get(action="player_erase")
    assert erasure.after == {"username": kofi.username, "account": kofi.account.username}
    assert Game.objects.filter(comment="Kofi Mensah timed").count() == 0
    erased = kofi.username
    assert Game.objects.filter(comment=f"{erased} timed").count() == 1
    assert RecordSheet.objects.filter(note=f"{erased} brought the sheet").exists()


@pytest.mark.django_db
def test_the_pages_volunteers_and_visitors_read_show_no_trace_after_the_erasure(client, settings):
    connie, kofi = _kofi_everywhere(settings)
    report = GameReport.objects.get()
    pages = ["/audit/", "/games.csv", "/reports/", f"/reports/{report.pk}/", "/"]
    client.force_login(connie)
    assert all(client.get(url).status_code == 200 for url in pages)
    assert "Mensah" in client.get("/audit/").content.decode()

    player_erase(user=connie, player=kofi)
    recompute_pending()

    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        text = b"".join(response.streaming_content) if response.streaming else response.content
        assert _left(text.decode()) == [], url


@pytest.mark.django_db
def test_erasure_leaves_other_players_names_alone(settings):
    connie, kofi = _kofi_everywhere(settings)
    kofi_other = factories.player("kofi-asante", "9k", full_name="Kofi Asante")
    record_sheet_submit(
        user=connie,
        games=[
            factories.game(
                kofi_other, factories.player("efua"), "W", date(2024, 4, 1), comment="Kofi won"
            )
        ],
    )

    player_erase(user=connie, player=kofi)

    assert Game.objects.filter(comment="Kofi won").exists(), "another Kofi's game"
    assert Player.objects.get(pk=kofi_other.pk).full_name == "Kofi Asante"
    assert "Olivia Botha" in _dump()


@pytest.mark.django_db
def test_erasure_renames_the_player_in_a_checkpoint_however_its_json_was_laid_out(settings):
    connie, kofi = _kofi_everywhere(settings)
    # As a jsonb column gave a state back (before the column was text): one line.
    Checkpoint.objects.create(
        algorithm="sagc",
        date=date(2020, 1, 1),
        round=0,
        seq=1,
        position=0,
        state='{"ama": {"last": "kofi-mensah"}, "kofi-mensah": {"value": 1}}',
    )

    player_erase(user=connie, player=kofi)

    erased = Player.objects.get(pk=kofi.pk).username
    assert json.loads(Checkpoint.objects.get(date=date(2020, 1, 1)).state) == {
        "ama": {"last": erased},
        erased: {"value": 1},
    }
    for state in Checkpoint.objects.values_list("state", flat=True):
        assert "kofi-mensah" not in state
        assert state.startswith("{\n") and state.endswith("\n}"), "laid out one player a line"


@pytest.mark.django_db(transaction=True)
def test_erasure_leaves_no_trace_in_the_sqlite_file(settings, tmp_path):
    if connection.vendor != "sqlite":
        pytest.skip("the bytes of an SQLite file")
    connie, kofi = _kofi_everywhere(settings)
    player_erase(user=connie, player=kofi)
    recompute_pending()

    copy = tmp_path / "copy.sqlite3"
    with connection.cursor() as cursor:
        cursor.execute("VACUUM INTO %s", [str(copy)])
    raw = copy.read_bytes()
    assert sqlite3.connect(copy).execute("SELECT count(*) FROM players_game").fetchone() == (5,)
    assert [trace for trace in TRACES if trace.lower().encode() in raw.lower()] == []


@pytest.mark.django_db
def test_a_short_national_id_is_erased_only_from_the_texts_about_the_player():
    vera = factories.volunteer()
    li = factories.player("li-wei", "3k", full_name="Li Wei", national_id="12")
    olivia, ama = factories.player("olivia"), factories.player("ama")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(li, olivia, "W", date(2024, 2, 1), comment="AGA 12"),
            factories.game(olivia, ama, "W", date(2024, 2, 1), comment="board 12"),
        ],
    )

    player_erase(user=vera, player=li)

    assert Game.objects.filter(comment=f"AGA erased-{li.pk}").exists()
    assert Game.objects.filter(comment="board 12").exists()
