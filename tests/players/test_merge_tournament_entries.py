"""A merge of two records of one person moves the duplicate's lines in imported
tournament files (``TournamentPlayer``) with its games: the tournament then lists the
person once, on the file's line, with every round, in its page, its API document and
both exports; the EGF algorithms still start them at the GoR the file declared."""

from __future__ import annotations

from datetime import date

import pytest

from players.models import AuditEntry, Player, Tournament, TournamentPlayer
from players.selectors.tournaments import crosstable_fingerprint, tournament_crosstable
from players.services.base import ServiceError, system_user
from players.services.games import record_sheet_submit
from players.services.players import player_merge
from players.services.privacy import ERASED_NAME, player_erase
from ratings.engine.formats.egd import read_egd
from ratings.engine.formats.opengotha import read_opengotha
from ratings.models import RatingHistory
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.engine.test_opengotha_format import standings_of as opengotha_standings
from tests.players.test_tournament_round_trip import EGC2013_XML, PLESSIS_CUP, import_text, run
from tests.web.public.test_tournaments import crosstable_rows

pytestmark = pytest.mark.django_db

real_file = pytest.mark.skipif(
    not EGC2013_XML.is_file(),
    reason=f"{EGC2013_XML} not found: the real files stay in ../shared/data "
    "(set CLUBRATING_SHARED_DATA to read them elsewhere)",
)


@pytest.fixture
def egc2013():
    """EGC 2013 from its OpenGotha file, as read (Fan Hui: line 1, GoR 2796)."""
    return import_text(EGC2013_XML.read_bytes(), read_opengotha, "egc2013.xml")


def club_record_of_fan_hui(on: date) -> Player:
    """Fan Hui entered again by a club's record sheet: another record, one club game."""
    record = factories.player("fan-hui-club", "7d", full_name="Hui Fan")
    clubmate = factories.player("clubmate", "1k", full_name="Club Mate")
    record_sheet_submit(user=factories.volunteer(), games=[factories.game(record, clubmate, on=on)])
    return record


def lines_of(text: str) -> dict[str, tuple[str, ...]]:
    """Each line of an exported h-file by the username its name reads as (the file's
    name, not the record's): its rounds as written."""
    return {player.username: player.results for player in read_egd(text).players}


@real_file
@pytest.mark.parametrize("entrant_kept", [True, False], ids=["entrant-kept", "entrant-merged"])
def test_after_a_merge_the_h_file_has_one_line_for_the_person_with_every_round(
    egc2013, entrant_kept
):
    fan = Player.objects.get(egd_pin="12633346")
    club_record = club_record_of_fan_hui(date(2014, 3, 1))
    before = lines_of(run("export_tournament", "EGC2013"))
    keep, duplicate = (fan, club_record) if entrant_kept else (club_record, fan)
    number = TournamentPlayer.objects.get(player=fan).number

    player_merge(user=factories.committee_member(), keep=keep, duplicate=duplicate)

    after = lines_of(run("export_tournament", "EGC2013"))
    assert after == before  # the same lines, named as the file named them, every round
    assert "0-" not in after["hui-fan"]  # ten games, none lost to the merge
    entry = TournamentPlayer.objects.get(tournament__code="EGC2013", number=number)
    assert entry.player == keep
    assert not TournamentPlayer.objects.filter(player=duplicate).exists()


@real_file
def test_an_entrant_merged_away_keeps_its_opengotha_line_and_standings(egc2013):
    fan = Player.objects.get(egd_pin="12633346")
    club_record = club_record_of_fan_hui(date(2014, 3, 1))
    before = read_opengotha(run("export_tournament", "EGC2013", "--format", "opengotha"))

    player_merge(user=factories.committee_member(), keep=club_record, duplicate=fan)

    after = read_opengotha(run("export_tournament", "EGC2013", "--format", "opengotha"))
    assert len(after.players) == len(before.players)
    # The EGD PIN is the record's, and the club's record has none (the merge moves no
    # field of the records, the committee edits the record kept).
    assert without_pins(opengotha_standings(after)) == without_pins(opengotha_standings(before))


def without_pins(standings: list[tuple]) -> list[tuple]:
    return [line[:5] + line[6:] for line in standings]


@real_file
def test_an_entrant_merged_away_leaves_one_crosstable_row_with_the_files_place_and_rounds(
    client, egc2013
):
    fan = Player.objects.get(egd_pin="12633346")
    club_record = club_record_of_fan_hui(date(2014, 3, 1))
    tournament = Tournament.objects.get(code="EGC2013")
    rows_before = crosstable_rows(client.get("/tournaments/EGC2013/").content.decode())
    player_count = client.get("/api/v1/tournaments/EGC2013/").json()["player_count"]
    fingerprint = crosstable_fingerprint(tournament, "egf-2021")

    player_merge(user=factories.committee_member(), keep=club_record, duplicate=fan)

    assert crosstable_fingerprint(tournament, "egf-2021") != fingerprint
    rows_after = crosstable_rows(client.get("/tournaments/EGC2013/").content.decode())
    assert len(rows_after) == len(rows_before)
    assert rows_after[0] == rows_before[0]  # Fan Hui first, every round won
    crosstable = tournament_crosstable(tournament, "egf-2021")
    first = crosstable.rows[0]
    assert (first.player.pk, first.place, first.games) == (club_record.pk, "1", 10)
    assert duplicate_row_count(crosstable, fan) == 0
    document = client.get("/api/v1/tournaments/EGC2013/").json()
    assert document["player_count"] == player_count
    sides = [(game["white"], game["black"]) for game in document["games"]]
    assert sum("fan-hui-club" in pair for pair in sides) == 10
    assert not any("hui-fan" in pair for pair in sides)


def duplicate_row_count(crosstable, player: Player) -> int:
    return sum(row.player.pk == player.pk for row in crosstable.rows)


@real_file
def test_a_merge_moving_a_tournament_line_is_audited(egc2013):
    fan = Player.objects.get(egd_pin="12633346")
    club_record = club_record_of_fan_hui(date(2014, 3, 1))
    number = TournamentPlayer.objects.get(player=fan).number

    player_merge(user=factories.committee_member(), keep=club_record, duplicate=fan)

    moved = AuditEntry.objects.get(action="tournament_entry_reassign")
    assert moved.before["player"] == "hui-fan"
    assert moved.after["player"] == "fan-hui-club"
    assert moved.after["tournament"] == "EGC2013"
    assert moved.after["number"] == number
    merge = AuditEntry.objects.get(action="player_merge")
    assert merge.after["tournament_entries"] == ["EGC2013"]


@real_file
def test_the_record_kept_starts_at_the_gor_of_the_merged_entrants_earlier_file(egc2013):
    fan = Player.objects.get(egd_pin="12633346")
    club_record = club_record_of_fan_hui(date(2014, 3, 1))  # after EGC 2013

    player_merge(user=factories.committee_member(), keep=club_record, duplicate=fan)
    recompute_pending()

    club_record.refresh_from_db()
    assert club_record.declared_rating == 2796
    first = (
        RatingHistory.objects.filter(algorithm="egf-2021", player=club_record)
        .order_by("position")
        .first()
    )
    assert first.game.tournament.code == "EGC2013"
    assert first.value_before == 2796


@real_file
def test_a_gor_declared_after_the_kept_records_first_game_does_not_become_its_start(egc2013):
    fan = Player.objects.get(egd_pin="12633346")
    club_record = club_record_of_fan_hui(date(2012, 3, 1))  # before EGC 2013

    player_merge(user=factories.committee_member(), keep=club_record, duplicate=fan)

    club_record.refresh_from_db()
    assert club_record.declared_rating is None


@real_file
def test_a_merge_of_two_entrants_of_one_tournament_is_refused_naming_it(egc2013):
    fan = Player.objects.get(egd_pin="12633346")
    tournament = Tournament.objects.get(code="EGC2013")
    opponents = set(tournament.games.filter(white=fan).values_list("black", flat=True))
    opponents |= set(tournament.games.filter(black=fan).values_list("white", flat=True))
    other = tournament.entrants.exclude(player__in=[fan.pk, *opponents]).first().player
    games = sorted(tournament.games.values_list("pk", "white_id", "black_id"))

    with pytest.raises(ServiceError, match="EGC2013") as refused:
        player_merge(user=factories.committee_member(), keep=fan, duplicate=other)

    assert "both" in refused.value.message
    other.refresh_from_db()
    assert other.active
    assert sorted(tournament.games.values_list("pk", "white_id", "black_id")) == games
    assert tournament.entrants.filter(player=other).exists()


# --- the same on a small file, without the real ones -----------------------------------------


def test_a_small_files_line_follows_its_player_merged_away_with_its_rounds():
    import_text(PLESSIS_CUP)
    thabo = Player.objects.get(username="thabo-mokoena")
    thabo_again = factories.player("thabo-again", "3k", full_name="Thabo Mokoena")
    before = run("export_tournament", "plessis-cup")

    player_merge(user=factories.committee_member(), keep=thabo_again, duplicate=thabo)

    entry = TournamentPlayer.objects.get(tournament__code="plessis-cup", number=3)
    assert entry.player == thabo_again
    assert run("export_tournament", "plessis-cup") == before  # his line, once, as it was


def test_two_lines_of_one_small_file_are_refused_as_two_people():
    import_text(PLESSIS_CUP)
    aya, thabo = (Player.objects.get(username=name) for name in ("aya-de-groot", "thabo-mokoena"))

    with pytest.raises(ServiceError) as refused:
        player_merge(user=factories.committee_member(), keep=aya, duplicate=thabo)

    assert refused.value.message == (
        "aya-de-groot and thabo-mokoena are both players of the imported tournament "
        "plessis-cup: a tournament file lists each player once, so they are two people, "
        "not two records of one person"
    )


def test_erasing_the_record_kept_erases_the_merged_entrants_name_from_the_files_list():
    import_text(PLESSIS_CUP)
    thabo = Player.objects.get(username="thabo-mokoena")
    thabo_again = factories.player("thabo-again", "3k", full_name="Thabo Mokoena")
    player_merge(user=factories.committee_member(), keep=thabo_again, duplicate=thabo)

    player_erase(user=system_user(), player=thabo_again)

    entry = TournamentPlayer.objects.get(tournament__code="plessis-cup", number=3)
    assert (entry.family_name, entry.given_name) == (str(thabo_again.pk), ERASED_NAME)
    assert "Mokoena" not in run("export_tournament", "plessis-cup")
