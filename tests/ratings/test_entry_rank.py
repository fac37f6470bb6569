"""The entry rank (SPEC section 2): declared on a player's earliest game or adjustment
that carries one, else recorded at creation; importing older games moves it back, and
the recompute replays from there, as ``python -m ratings`` does on the exported file."""

import csv
import io
from datetime import date

import pytest
from django.core.management import CommandError, call_command

from players.models import Player
from players.selectors.exports import game_record_rows
from players.services.games import game_void, record_sheet_submit
from players.services.imports import ImportResult, games_import
from ratings.engine.cli import main
from ratings.engine.formats.games import read_games
from ratings.engine.ranks import parse_rank
from ratings.models import CurrentRating, RatingHistory, RecomputeState
from ratings.recompute.run import recompute_pending
from ratings.selectors import player_entries, player_entries_and_ids, player_ids
from tests import factories

pytestmark = pytest.mark.django_db

HEADER = "date,white,black,white_rank,black_rank,winner,tournament,round\n"


def import_csv(text: str, user) -> ImportResult:
    return games_import(user=user, records=read_games(HEADER + text).records)


def first_rank_before(username: str, algorithm: str = "sagc") -> str:
    row = (
        RatingHistory.objects.filter(algorithm=algorithm, player__username=username)
        .order_by("position")
        .first()
    )
    return str(row.rank_before)


def dirty_dates() -> dict[str, date | None]:
    return dict(RecomputeState.objects.values_list("algorithm", "dirty_from"))


@pytest.fixture
def wagc_then_egc():
    """Han enters the site through a 2023 tournament as a 3d; then a 2013 tournament
    where he played as a 2k is imported."""
    vera = factories.volunteer()
    import_csv(
        "2023-07-01,han,ito,3d,4d,B,WAGC2023,1\n2023-07-02,lee,han,2d,3d,W,WAGC2023,2\n", vera
    )
    recompute_pending()
    assert first_rank_before("han") == "3d"
    import_csv(
        "2013-07-27,han,olsen,2k,5k,W,EGC2013,1\n2013-07-28,berg,han,1k,2k,B,EGC2013,2\n", vera
    )
    return vera


def test_older_games_imported_move_the_entry_rank_to_the_rank_declared_then(wagc_then_egc):
    assert Player.objects.get(username="han").entry_rank == parse_rank("3d")
    assert player_entries()["han"].rank == parse_rank("2k")
    recompute_pending()
    assert first_rank_before("han") == "2k"
    assert first_rank_before("han", "egf-2021") == "2k"
    history = RatingHistory.objects.filter(algorithm="sagc", player__username="han")
    assert [row.date.year for row in history.order_by("position")] == [2013, 2013, 2023, 2023]


def test_the_site_and_the_command_line_agree_after_the_older_import(
    wagc_then_egc, tmp_path, capsys
):
    recompute_pending()
    path = tmp_path / "all.csv"
    with path.open("w", newline="", encoding="utf-8") as out:
        csv.writer(out, lineterminator="\n").writerows(game_record_rows())
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    assert (rows[0]["white"], rows[0]["white_rank"]) == ("han", "2k")
    assert main(["rate", "--algorithm", "sagc", "--output", "standings", str(path)]) == 0
    standings = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    stored = {
        rating.player.username: rating.value
        for rating in CurrentRating.objects.filter(algorithm="sagc")
    }
    assert {row["player"]: float(row["value"]) for row in standings} == stored


def test_a_ranked_game_imported_after_sheet_games_replays_from_the_first_sheet_game():
    vera = factories.volunteer()
    kim, tan = factories.player("kim", "10k"), factories.player("tan", "10k")
    record_sheet_submit(user=vera, games=[factories.game(kim, tan, "W", date(2020, 5, 1))])
    recompute_pending()
    assert first_rank_before("kim") == "10k"
    import_csv("2023-03-04,kim,sato,5k,5k,B,CUP2023,1\n", vera)
    assert set(dirty_dates().values()) == {date(2020, 5, 1)}
    recompute_pending()
    assert first_rank_before("kim") == "5k"
    assert first_rank_before("tan") == "10k"


def test_voiding_the_game_that_declared_the_rank_gives_back_the_rank_at_creation():
    vera = factories.volunteer()
    kim, tan = factories.player("kim", "10k"), factories.player("tan", "10k")
    record_sheet_submit(user=vera, games=[factories.game(kim, tan, "W", date(2020, 5, 1))])
    import_csv("2023-03-04,kim,sato,5k,5k,B,CUP2023,1\n", vera)
    recompute_pending()
    assert first_rank_before("kim") == "5k"
    declared = kim.games_as_white.get(date=date(2023, 3, 4))
    game_void(user=vera, game_id=declared.pk, version=declared.version, reason="typo")
    assert set(dirty_dates().values()) == {date(2020, 5, 1)}
    recompute_pending()
    assert first_rank_before("kim") == "10k"


def test_a_game_that_declares_the_same_rank_later_changes_nothing_before_it():
    vera = factories.volunteer()
    kim, tan = factories.player("kim", "10k"), factories.player("tan", "10k")
    record_sheet_submit(user=vera, games=[factories.game(kim, tan, "W", date(2020, 5, 1))])
    recompute_pending()
    import_csv("2023-03-04,kim,sato,10k,5k,B,CUP2023,1\n", vera)
    assert set(dirty_dates().values()) == {date(2023, 3, 4)}


def test_a_sheet_game_before_a_first_row_adjustment_takes_the_entry_from_it():
    vera = factories.volunteer()
    kim, tan = factories.player("kim", "10k"), factories.player("tan", "10k")
    factories.adjustment(kim, date(2023, 1, 1), "4k", user=vera)
    assert player_entries()["kim"].rank == parse_rank("4k")
    record_sheet_submit(user=vera, games=[factories.game(kim, tan, "W", date(2022, 6, 1))])
    assert player_entries()["kim"].rank == parse_rank("10k")
    assert Player.objects.get(username="kim").declared_rank is None


def test_check_ratings_reports_a_stored_entry_rank_the_games_do_not_give(wagc_then_egc):
    recompute_pending()
    out = io.StringIO()
    call_command("check_ratings", algorithm="sagc", stdout=out)
    assert "entry ranks: OK" in out.getvalue()
    Player.objects.filter(username="han").update(declared_rank=parse_rank("3d"))
    with pytest.raises(CommandError):
        call_command("check_ratings", algorithm="sagc", stdout=out)
    assert "declared entry rank of han: stored 3d, from the games 2k" in out.getvalue()


def test_the_entries_and_ids_read_together_are_those_read_apart(wagc_then_egc):
    """Han's declared 2k, Ito's rank at creation, and a GoR an h-file declared."""
    factories.player("gor", "1d", declared_rating=2150)
    factories.player("gus", "1d")
    entries, ids = player_entries_and_ids()

    assert entries == player_entries()
    assert ids == player_ids()
    assert entries["han"].rank == parse_rank("2k")
    assert entries["gor"].declared_rating == 2150
    assert entries["gus"].declared_rating is None
