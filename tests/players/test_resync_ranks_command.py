"""manage.py resync_ranks: the committee's resync from the command line."""

import gzip
from datetime import date
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from players.models import Adjustment, AuditEntry, Player, ResyncBatch
from players.services.adjustments import egf_algorithms
from ratings.engine.ranks import parse_rank
from tests import factories

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
EGD_2018 = DATA / "egd-ratinglists" / "allworld_lp_2018-12-27.html.gz"
EGD_LIST = (
    "(27 Dec 2018)\n"
    "   PIN          Name                  Club     Grade P&D    GoR    NT appearance\n"
    " 13633719  Aagren Thomas              SE  Upp     6k   --   1484     1  T040529C\n"
    " 14986906  Nkosi Thandi               ZA  Cpt     4k   --   1850     3  T171028F\n"
    " 15813842  Botha Pieter               ZA  Cpt    12k   --   1029     2  T181019Q\n"
)


@pytest.fixture
def club():
    return {
        "thandi": factories.player("thandi", "5k", full_name="Thandi Nkosi"),
        "pieter": factories.player("pieter", "12k", full_name="Pieter Botha"),
        "lerato": factories.player("lerato", "9k", full_name="Lerato Mokoena"),
    }


def run(*args) -> str:
    out = StringIO()
    call_command("resync_ranks", *map(str, args), stdout=out)
    return out.getvalue()


@pytest.fixture
def egd_file(tmp_path):
    path = tmp_path / "allworld_lp.html.gz"
    path.write_bytes(gzip.compress(EGD_LIST.encode("latin-1")))
    return path


def test_it_prints_the_preview_and_stores_nothing_without_apply(club, egd_file):
    output = run(egd_file)

    assert "EGD rating list (gzip) of 2018-12-27, 3 players with a rank" in output
    assert "      1 changed" in output
    assert "      1 unchanged" in output
    assert "      1 players in none of the clubs (not listed)" in output
    assert "      1 not on the list" in output
    assert "Aagren" not in output, "players in none of the clubs are counted, not listed"
    assert "thandi (by name)" in output and "5k -> 4k GoR 1850" in output
    assert "Nothing stored: add --apply" in output
    assert not ResyncBatch.objects.exists()


def test_apply_stores_one_audited_batch_as_the_page_does(club, egd_file):
    connie = factories.committee_member()

    output = run(egd_file, "--apply", "--user", "connie", "--date", "2019-06-01")

    batch = ResyncBatch.objects.get()
    assert f"Resync #{batch.pk} applied: 1 players reset from 2019-06-01" in output
    assert (batch.created_by, batch.effective_date) == (connie, date(2019, 6, 1))
    assert [
        (a.player.username, str(a.new_rank), a.algorithm, a.value) for a in Adjustment.objects.all()
    ] == [("thandi", "4k", "", None)]
    assert Player.objects.get(username="thandi").national_rank == parse_rank("4k")
    assert AuditEntry.objects.filter(action="resync_apply", user=connie).count() == 1


def test_apply_with_ratings_starts_the_egf_algorithms_from_the_gor(club, egd_file):
    run(egd_file, "--apply", "--ratings")

    values = {
        (a.player.username, a.algorithm): a.value for a in Adjustment.objects.exclude(algorithm="")
    }
    assert values == {
        **{("thandi", name): Decimal(1850) for name in egf_algorithms()},
        **{("pieter", name): Decimal(1029) for name in egf_algorithms()},
    }
    assert Adjustment.objects.filter(algorithm="").count() == 1, "only thandi's rank changes"
    assert ResyncBatch.objects.get().effective_date == date(2018, 12, 27), "the list's date"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--date", "June"], "--date 'June' is not a date"),
        (["--date", "2999-01-01"], "--date 2999-01-01 is in the future"),
        (["--user", "nobody"], "no user 'nobody'"),
    ],
)
def test_bad_options_are_refused(club, egd_file, args, message):
    with pytest.raises(CommandError, match=message):
        run(egd_file, *args)


def test_a_missing_file_or_a_file_that_is_no_list_is_refused(tmp_path):
    binary = tmp_path / "photo.jpg"
    binary.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" * 50)

    with pytest.raises(CommandError, match="No such file"):
        run(tmp_path / "missing.txt")
    with pytest.raises(CommandError, match=r"photo\.jpg: This is not a text file"):
        run(binary)


def test_applying_a_list_that_changes_nobody_stores_nothing(club, tmp_path):
    path = tmp_path / "list.csv"
    path.write_text("thandi,5k\n")

    with pytest.raises(CommandError, match="nothing stored: Nobody's national rank changes"):
        run(path, "--apply")
    assert not ResyncBatch.objects.exists()


@pytest.mark.skipif(not EGD_2018.exists(), reason=f"{EGD_2018} is not on this machine")
def test_the_real_egd_list_is_previewed_from_the_command_line(club):
    Player.objects.filter(username="thandi").update(egd_pin="13633719")  # Aagren Thomas, 6k

    output = run(EGD_2018, "--date", "2024-06-01")

    assert "EGD rating list (gzip) of 2018-12-27, 45172 players with a rank" in output
    assert "  45171 players in none of the clubs (not listed)" in output
    assert "thandi (by EGD PIN)" in output and "5k -> 6k GoR 1484" in output


@pytest.mark.django_db
def test_a_list_resyncs_the_clubs_players_not_those_seen_only_at_imported_tournaments():
    from players.selectors.adjustments import resync_candidates

    member = factories.player("member", "5k", egd_pin="111", club=factories.club("Durban"))
    regular = factories.player("regular", "6k", egd_pin="222")  # club games, no club
    visitor = factories.player("visitor", "7k", egd_pin="333", tournament_only=True)
    erased = factories.player("gone", "8k", egd_pin="444", erased_at=timezone.now())

    candidates = set(resync_candidates())

    assert {member, regular} <= candidates
    assert visitor not in candidates and erased not in candidates


@pytest.mark.django_db
def test_an_entrant_with_no_game_is_not_resynced_but_a_clubs_newcomer_without_one_is():
    """Someone an imported tournament lists with byes or forfeits only, and no game
    anywhere, is seen only at that tournament, like a visitor with tournament games;
    a newcomer a volunteer added, who has not played yet, is the club's."""
    from players.models import TournamentPlayer
    from players.selectors.adjustments import resync_candidates

    cup = factories.tournament("cup-2023", "Cup 2023")
    entrant = factories.player("entrant", "30k", full_name="Joong-Ja Kim")
    TournamentPlayer.objects.create(tournament=cup, player=entrant, number=1, rank=-30)
    newcomer = factories.player("newcomer", "25k")
    member = factories.player("member", "20k", club=factories.club("Durban"))
    TournamentPlayer.objects.create(tournament=cup, player=member, number=2, rank=-20)

    candidates = set(resync_candidates())

    assert entrant not in candidates
    assert {newcomer, member} <= candidates, "a club of the site makes an entrant the club's"
