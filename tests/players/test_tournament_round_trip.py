"""Tournaments as their files had them: names as federations write them, countries and
clubs, standings, declared GoRs, and every archive h-file back out of export_tournament
as the same tournament."""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import io
import re
from datetime import date
from pathlib import Path
from xml.etree import ElementTree

import pytest
from django.core.management import call_command

from players.models import Player, Tournament, TournamentPlayer, split_full_name
from players.rank_lists import read_rank_list
from players.resync import match_rank_list
from players.services.base import system_user
from players.services.games import game_correct, game_void, record_sheet_submit
from players.services.players import player_merge
from players.services.privacy import player_erase
from players.services.tournament_files import plan_tournament_import, tournament_import
from ratings.engine.cli import main
from ratings.engine.formats.egd import read_egd
from ratings.engine.formats.opengotha import read_opengotha
from ratings.engine.records import GameFileError
from ratings.models import RatingHistory
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.engine.test_egd_format import (
    ARCHIVE,
    BROKEN_ARCHIVE_FILES,
    SHARED_DATA,
    colours_of,
    games_of,
)
from tests.engine.test_opengotha_format import standings_of as opengotha_standings

pytestmark = pytest.mark.django_db

BROKEN = set(BROKEN_ARCHIVE_FILES)  # refused by the reader for real
ARCHIVE_FILES = sorted(ARCHIVE.rglob("*.txt")) if ARCHIVE.is_dir() else []

# Places 1 and 2 tie on points; the file puts the player with fewer wins first (its own
# tie-breaker), which points-then-SOS would swap. Line 4 ties with line 3 (blank place).
PLESSIS_CUP = """\
; CL[B]
; EV[Plessis Cup]
; TC[plessis-cup]
; PC[ZA, Stellenbosch]
; DT[2024-05-04,2024-05-05]
; HA[h9]
; KM[6.5]
; TM[60]
;
; Pl Name                          Rk Co Club  MMS  SOS  SOSOS   1      2      3
   1 du_Plessis Sofia              2k ZA StGo    2    5     11   2-/w0  3+/b0  4+/w0 |12000001
   2 Groot Aya_de                  1k NL DHaa    2    4     12   1+/b0  4+/w0  0+    |12000002
   3 Mokoena Thabo                 3k ZA xxxx    1    4     10   4+/w0  1-/w0  0-
     Nakamura Aiko                 3k JP Toky    1    4     10   3-/b0  2-/b0  1-/b0
"""


def run(*args, **options) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, **options)
    return out.getvalue()


def import_text(text: str | bytes, reader=read_egd, source: str = "test.h9"):
    file = reader(text, source)
    tournament_import(user=system_user(), plan=plan_tournament_import(file), source=source)
    return file


def standings_of(file) -> list[tuple]:
    return [
        (
            p.place,
            p.surname,
            p.given_name,
            p.rank,
            p.country,
            p.club,
            p.pin,
            p.scores,
            p.results,
            p.after_rounds,
        )
        for p in file.players
    ]


def header_of(file) -> tuple:
    info = file.tournament
    return (
        info.code,
        info.name,
        info.tournament_class,
        info.place,
        info.start,
        info.end,
        info.handicap_rule,
        info.komi,
        info.time,
        info.score_names,
        info.after_round_names,
    )


# --- names ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("full_name", "given", "family"),
    [
        ("Sofia du Plessis", "Sofia", "du Plessis"),
        ("Anna van der Merwe", "Anna", "van der Merwe"),
        ("Fan Hui", "Fan", "Hui"),
        ("Madonna", "", "Madonna"),
        ("Jean Pierre  Martin", "Jean Pierre", "Martin"),
        ("", "", ""),
    ],
)
def test_a_full_name_splits_into_given_and_family_name(full_name, given, family):
    assert split_full_name(full_name) == (given, family)


def test_the_full_name_is_derived_from_the_family_and_given_names():
    player = factories.player("sofia", "2k", full_name="Sofia Plessis")
    player.family_name = "du Plessis"
    player.save()
    player.refresh_from_db()
    assert player.full_name == "Sofia du Plessis"
    player.full_name = "Sofie van Wyk"  # a form that knows only the full name
    player.save()
    player.refresh_from_db()
    assert (player.given_name, player.family_name) == ("Sofie", "van Wyk")


def test_an_import_fills_names_country_club_and_the_files_list():
    import_text(PLESSIS_CUP)
    sofia = Player.objects.get(egd_pin="12000001")
    assert (sofia.given_name, sofia.family_name, sofia.full_name) == (
        "Sofia",
        "du Plessis",
        "Sofia du Plessis",
    )
    assert (sofia.country, sofia.federation_club) == ("ZA", "StGo")
    aya = Player.objects.get(egd_pin="12000002")
    assert (aya.given_name, aya.family_name, aya.country) == ("Aya de", "Groot", "NL")
    entrants = TournamentPlayer.objects.filter(tournament__code="plessis-cup").order_by("number")
    assert [(e.number, e.place, e.family_name, e.scores) for e in entrants] == [
        (1, "1", "du Plessis", ["2", "5", "11"]),
        (2, "2", "Groot", ["2", "4", "12"]),
        (3, "3", "Mokoena", ["1", "4", "10"]),
        (4, "", "Nakamura", ["1", "4", "10"]),
    ]


def test_a_matched_player_gets_the_country_and_club_they_lacked():
    known = factories.player("sofia", "2k", full_name="Sofia du Plessis", egd_pin="12000001")
    import_text(PLESSIS_CUP)
    known.refresh_from_db()
    assert (known.country, known.federation_club) == ("ZA", "StGo")


# --- export ---------------------------------------------------------------------------------


def test_the_exported_h_file_is_the_imported_one():
    original = import_text(PLESSIS_CUP)
    text = run("export_tournament", "plessis-cup")
    assert "   1 du_Plessis Sofia" in text  # not "Plessis Sofia_du"
    assert "       0+" in text  # the bye stays a bye
    exported = read_egd(text)
    assert standings_of(exported) == standings_of(original)
    assert header_of(exported) == header_of(original)
    assert games_of(exported) == games_of(original)
    assert colours_of(exported) == colours_of(original)


def test_a_site_tournament_exports_the_players_names_country_and_club():
    sofia = factories.player("sofia", "2k", full_name="Sofia du Plessis")
    sofia.country, sofia.federation_club = "ZA", "StGo"
    sofia.save()
    thabo = factories.player("thabo", "3k", full_name="Thabo Mokoena")
    cup = factories.tournament("site-cup", "Site Cup")
    record_sheet_submit(
        user=factories.volunteer(),
        games=[factories.game(sofia, thabo, "W", date(2024, 5, 4), tournament=cup, round=1)],
    )
    exported = read_egd(run("export_tournament", "site-cup"))
    assert [(p.place, p.surname, p.given_name, p.country, p.club) for p in exported.players] == [
        ("1", "du Plessis", "Sofia", "ZA", "StGo"),
        ("2", "Mokoena", "Thabo", "XX", ""),
    ]
    assert exported.tournament.score_names == ("NBW", "SOS", "SOSOS")


@pytest.mark.skipif(
    not ARCHIVE_FILES,
    reason=f"go-tournaments-archive not found in {SHARED_DATA} (set CLUBRATING_SHARED_DATA)",
)
@pytest.mark.parametrize(
    "path",
    [path for path in ARCHIVE_FILES if path.name not in BROKEN],
    ids=lambda path: path.name,
)
def test_every_archive_h_file_comes_back_out_of_export_tournament_as_written(path: Path):
    original = read_egd(path.read_bytes(), path.name)
    import_text(path.read_bytes(), source=path.name)
    exported = read_egd(run("export_tournament", original.tournament.code), "exported")
    assert header_of(exported) == header_of(original)
    assert standings_of(exported) == standings_of(original)
    assert games_of(exported) == games_of(original)
    # a game whose file gave no colour (WAGC 2024's "30+") comes back without one
    assert colours_of(exported) == colours_of(original)


def test_the_archive_holds_every_file_the_round_trip_expects():
    if not ARCHIVE_FILES:
        pytest.skip(f"go-tournaments-archive not found in {SHARED_DATA}")
    unreadable = []
    for path in ARCHIVE_FILES:
        try:
            read_egd(path.read_bytes(), path.name)
        except GameFileError:
            unreadable.append(path.name)
    assert set(unreadable) == BROKEN


# --- standings ------------------------------------------------------------------------------


PLESSIS_NAMES = ("Sofia du Plessis", "Aya de Groot", "Thabo Mokoena", "Aiko Nakamura")


def crosstable_names(html: str) -> list[str]:
    """The players in the order the crosstable lists them."""
    table = html[html.index('id="crosstable"') :]
    return sorted((name for name in PLESSIS_NAMES if name in table), key=table.index)


def test_an_imported_h_file_is_placed_as_the_file_places_it(client):
    import_text(PLESSIS_CUP)
    html = client.get("/tournaments/plessis-cup/").content.decode()
    assert crosstable_names(html) == [
        "Sofia du Plessis",
        "Aya de Groot",
        "Thabo Mokoena",
        "Aiko Nakamura",
    ]
    assert "Places and tie-breakers as the tournament&#x27;s h-file gives them" in html
    headings = re.findall(r"<th[^>]*>\s*([^<]*?)\s*</th>", html)
    assert headings[:12] == [
        "#",
        "Place",
        "Player",
        "Rank",
        "Country",
        "Club",
        "R1",
        "R2",
        "R3",
        "MMS",
        "SOS",
        "SOSOS",
    ]


KPMC_LIKE = """\
; CL[C]
; EV[Prime Cup]
; DT[2021-08-02,2021-08-03]
;Pl Name  Gr Co Club Rt R1 R2 NBW Place Pin
 1 Kim Seung-Gu    7d KR  xxxx  2700 2+     0+      2  1       |20374134
 2 Huang Qiuxuan   6d CN  xxxx  2600 1-     0+      1  2       |20398136
"""


def test_columns_after_the_rounds_are_kept_shown_and_written_back(client):
    original = import_text(KPMC_LIKE, source="prime.h9")
    assert original.tournament.after_round_names == ("NBW", "Place")
    assert [p.after_rounds for p in original.players] == [("2", "1"), ("1", "2")]
    assert [e.after_rounds for e in TournamentPlayer.objects.order_by("number")] == [
        ["2", "1"],
        ["1", "2"],
    ]
    text = run("export_tournament", "Prime-Cup-2021")
    assert re.search(r"R2 +NBW +Place\n", text)
    again = read_egd(text)
    assert standings_of(again) == standings_of(original)
    assert header_of(again) == header_of(original)
    html = client.get("/tournaments/Prime-Cup-2021/").content.decode()
    table = html[html.index('id="crosstable"') :]
    headings = re.findall(r"<th[^>]*>\s*([^<]*?)\s*</th>", table)
    # round 2 is both players' bye: a column of its own (0+), as the file has it
    assert headings[headings.index("R1") + 1 :][:4] == ["R2", "Rt", "NBW", "Place"]


def test_an_opengotha_tournament_is_placed_by_its_criteria(client):
    import_text(DECLARED, read_opengotha, "declared.xml")
    html = client.get("/tournaments/declared-open/").content.decode()
    assert "placement criteria of the tournament&#x27;s OpenGotha file: MMS then SOS" in html
    table = html[html.index('id="crosstable"') :]
    # Fan Hui won both games; Tormanen (6d) starts a McMahon point above Nowak (5d... bar)
    assert table.index("Hui Fan") < table.index("Antti Tormanen") < table.index("Jan Nowak")


def test_a_site_tournament_says_it_is_placed_by_points_sos_and_sosos(client):
    factories.tournament("site-cup", "Site Cup")
    html = client.get("/tournaments/site-cup/").content.decode()
    assert "in order of points" in html and "then SOSOS" in html


# --- declared ratings -----------------------------------------------------------------------

DECLARED = """\
<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<Tournament dataVersion="201">
<Players>
<Player club="75Op" country="FR" egfPin="10000001" firstName="Hui" name="Fan" rank="7D" rating="2796"/>
<Player club="eGo" country="FI" egfPin="10000002" firstName="Antti" name="Tormanen" rank="6D" rating="2650"/>
<Player club="" country="PL" firstName="Jan" name="Nowak" rank="5D"/>
</Players>
<Games>
<Game blackPlayer="TORMANENANTTI" handicap="0" result="RESULT_WHITEWINS" roundNumber="1" tableNumber="1" whitePlayer="FANHUI"/>
<Game blackPlayer="NOWAKJAN" handicap="0" result="RESULT_WHITEWINS" roundNumber="2" tableNumber="1" whitePlayer="FANHUI"/>
</Games>
<TournamentParameterSet>
<GeneralParameterSet beginDate="2013-07-28" endDate="2013-07-29" genMMBar="9D" genMMFloor="20K" genMMZero="30K" komi="6.5" name="Declared Open" numberOfRounds="2" shortName="declared-open" size="19"/>
<PlacementParameterSet>
<PlacementCriteria>
<PlacementCriterion name="MMS" number="1"/>
<PlacementCriterion name="SOSM" number="2"/>
<PlacementCriterion name="NULL" number="3"/>
</PlacementCriteria>
</PlacementParameterSet>
</TournamentParameterSet>
</Tournament>
"""  # noqa: E501


def first_value(algorithm: str, username: str) -> float:
    row = (
        RatingHistory.objects.filter(algorithm=algorithm, player__username=username)
        .order_by("position")
        .first()
    )
    return float(row.value_before)


def test_a_declared_gor_is_where_the_egf_algorithms_start_a_new_player(client, tmp_path):
    import_text(DECLARED, read_opengotha, "declared.xml")
    fan = Player.objects.get(egd_pin="10000001")
    assert fan.declared_rating == 2796
    recompute_pending()
    assert first_value("egf-2021", fan.username) == 2796
    assert first_value("egf-2021", "jan-nowak") == 2500  # 5d without a declared GoR

    html = client.get(f"/players/{fan.username}/?algorithm=egf-2021").content.decode()
    assert 'id="declared-rating"' in html and "GoR <strong>2796</strong>" in html
    assert "Declared Open" in html

    # python -m ratings on the same file starts him at the same GoR
    path = tmp_path / "declared.xml"
    path.write_text(DECLARED, encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["rate", "--algorithm", "egf-2021", "--format", "opengotha", str(path)]) == 0
    lines = out.getvalue().splitlines()
    header = lines[0].split(",")
    first = next(line.split(",") for line in lines[1:] if line.startswith("hui-fan,"))
    new_value, change = (float(first[header.index(column)]) for column in ("new_value", "change"))
    assert new_value - change == pytest.approx(2796)


# --- OpenGotha export -----------------------------------------------------------------------

EGC2013_XML = SHARED_DATA / "egc2013-opengotha" / "egc2013.xml"


def test_an_imported_opengotha_tournament_exports_as_the_same_opengotha_file(client):
    original = import_text(DECLARED, read_opengotha, "declared.xml")
    text = run("export_tournament", "declared-open", "--format", "opengotha")
    again = read_opengotha(text)
    assert opengotha_standings(again) == opengotha_standings(original)
    assert games_of(again) == games_of(original)
    download = client.get("/tournaments/declared-open/opengotha.xml")
    assert download["Content-Disposition"] == 'attachment; filename="declared-open.xml"'
    assert download.content.decode() == text
    assert 'id="opengotha-download"' in client.get("/tournaments/declared-open/").content.decode()


def test_an_h_file_tournament_exports_as_opengotha_with_its_games_and_byes():
    original = import_text(PLESSIS_CUP)
    again = read_opengotha(run("export_tournament", "plessis-cup", "--format", "opengotha"))
    assert games_of(again.renamed(tournament_class="B")) == games_of(original)
    assert [(p.surname, p.given_name, p.country, p.club) for p in again.players] == [
        (p.surname, p.given_name, p.country, p.club) for p in original.players
    ]
    assert again.players[1].results[2] == "0+"  # Aya de Groot's bye


@pytest.mark.skipif(
    not EGC2013_XML.is_file(),
    reason=f"{EGC2013_XML} not found: the real files stay in ../shared/data "
    "(set CLUBRATING_SHARED_DATA to read them elsewhere)",
)
def test_egc2013_goes_through_the_site_to_the_same_opengotha_file(client):
    original = import_text(EGC2013_XML.read_bytes(), read_opengotha, "egc2013.xml")
    fan = Player.objects.get(egd_pin="12633346")
    assert (fan.full_name, fan.country, fan.federation_club, fan.declared_rating) == (
        "Hui Fan",
        "FR",
        "75Op",
        2796,
    )
    again = read_opengotha(run("export_tournament", "EGC2013", "--format", "opengotha"))
    assert opengotha_standings(again) == opengotha_standings(original)
    assert games_of(again) == games_of(original)
    assert again.notes == original.notes
    html = client.get("/tournaments/EGC2013/").content.decode()
    table = html[html.index('id="crosstable"') :]
    # the standings OpenGotha printed: Fan Hui, Tormanen, Lisy; no 15k second
    assert table.index("Hui Fan") < table.index("Antti Tormanen") < table.index("Pavol Lisy")


@pytest.mark.skipif(
    not EGC2013_XML.is_file(),
    reason=f"{EGC2013_XML} not found: the real files stay in ../shared/data "
    "(set CLUBRATING_SHARED_DATA to read them elsewhere)",
)
def test_egc2013_exported_as_an_h_file_pairs_every_game_as_opengotha_did():
    original = import_text(EGC2013_XML.read_bytes(), read_opengotha, "egc2013.xml")
    text = run("export_tournament", "EGC2013")
    exported = read_egd(text, "exported")

    def pairings(file) -> list[tuple]:
        return sorted((r.round, r.white, r.black, r.winner.value, r.handicap) for r in file.records)

    assert pairings(exported) == pairings(original)
    # Lines by place, each numbered by its position but an ex aequo's, left blank as
    # OpenGotha's own export leaves its 139: Fan Hui first.
    numbers = [line[:4].strip() for line in text.splitlines() if not line.startswith(";")]
    assert [n for n in numbers if n] == [
        str(position) for position, n in enumerate(numbers, start=1) if n
    ]
    assert (len(numbers), numbers.count("")) == (len(original.players), 139)
    assert (exported.players[0].surname, exported.players[0].given_name) == ("Fan", "Hui")


# Every real OpenGotha file: names with spaces (Campeonato Iberoamericano) or "_"
# (EGC 2013's de_Groot), AGA IDs (Canadian Open, Virginia, NOVA Pumpkin), FFG
# licences (LGO), blank countries (CA2020, CoQ), a 28K (Iberoamericano).
REAL_OPENGOTHA_FILES = [
    *(
        sorted((SHARED_DATA / "opengotha-2020-online").glob("*.xml"))
        or [SHARED_DATA / "opengotha-2020-online" / "(none)"]
    ),
    EGC2013_XML,
    SHARED_DATA / "aga-tdlist" / "NOVA_Pumpkin_Oct14.xml",
]
PLAYER_ATTRIBUTES = (
    "name",
    "firstName",
    "rank",
    "grade",
    "country",
    "club",
    "egfPin",
    "agaId",
    "agaExpirationDate",
    "ffgLicence",
    "ffgLicenceStatus",
)


def opengotha_grade(element: ElementTree.Element) -> str:
    """The grade as OpenGotha reads it: the rank it says (" 1D": 1D), else (none,
    "99K", "20") the player's rank."""
    grade = element.get("grade", "").strip().upper()
    return grade if re.fullmatch(r"([1-9]|[12][0-9]|30)K|[1-9][DP]", grade) else element.get("rank")


def opengotha_players(text: bytes | str) -> list[tuple[str, ...]]:
    """Each Player element's attributes as written, in file order."""
    return [
        tuple(
            opengotha_grade(element) if name == "grade" else element.get(name, "")
            for name in PLAYER_ATTRIBUTES
        )
        for element in ElementTree.fromstring(text).iter("Player")
    ]


def opengotha_games(text: bytes | str) -> list[tuple[str, ...]]:
    """Each Game element: round, White's key, Black's key, handicap, result, whether
    its colours are known."""
    return sorted(
        (
            element.get("roundNumber"),
            element.get("whitePlayer"),
            element.get("blackPlayer"),
            element.get("handicap", "0"),
            element.get("result"),
            element.get("knownColor", "true"),
        )
        for element in ElementTree.fromstring(text).iter("Game")
    )


def needs(path: Path):
    return pytest.mark.skipif(
        not path.is_file(),
        reason=f"{path} not found: the real files stay in ../shared/data "
        "(set CLUBRATING_SHARED_DATA to read them elsewhere)",
    )


@pytest.mark.parametrize(
    "path", [pytest.param(path, marks=needs(path), id=path.name) for path in REAL_OPENGOTHA_FILES]
)
def test_a_real_opengotha_file_comes_back_from_its_download_as_the_file_had_it(client, path):
    data = path.read_bytes()
    original = import_text(data, read_opengotha, path.name)
    download = client.get(f"/tournaments/{original.tournament.code}/opengotha.xml")
    assert download.status_code == 200
    text = download.content.decode()

    # the players' names (spaces and "_"), ranks, countries (blank too), clubs and
    # ids as written, in the file's order
    assert opengotha_players(text) == opengotha_players(data)
    again = read_opengotha(text, "download.xml")
    assert [
        (p.surname, p.given_name, p.rank, p.country, p.club, p.pin, p.national_id)
        for p in again.players
    ] == [
        (p.surname, p.given_name, p.rank, p.country, p.club, p.pin, p.national_id)
        for p in original.players
    ]
    # every game: its players by key, colours, handicap and result, forfeits and
    # games without a result too
    assert opengotha_games(text) == opengotha_games(data)
    assert games_of(again) == games_of(original)
    assert colours_of(again) == colours_of(original)


NOVA_PUMPKIN = SHARED_DATA / "aga-tdlist" / "NOVA_Pumpkin_Oct14.xml"
AGA_TDLIST = SHARED_DATA / "aga-tdlist" / "tdlista_2014-11-09.txt.gz"


@needs(NOVA_PUMPKIN)
@needs(AGA_TDLIST)
def test_players_imported_from_an_opengotha_file_are_found_by_their_aga_id_on_the_aga_list():
    original = import_text(NOVA_PUMPKIN.read_bytes(), read_opengotha, NOVA_PUMPKIN.name)
    aga_ids = {p.national_id for p in original.players}
    assert len(aga_ids) == len(original.players) and "" not in aga_ids
    assert set(Player.objects.values_list("national_id", flat=True)) == aga_ids

    listed = read_rank_list(
        AGA_TDLIST.read_bytes(), default_date=date(2014, 11, 9), today=date(2026, 1, 1)
    )
    preview = match_rank_list(listed, Player.objects.all())

    on_the_list = aga_ids & {line.national_id for line in listed.listed}
    assert on_the_list
    by_id = {row.player.national_id for row in preview.rows if row.how == "national id"}
    # each of them found by their AGA ID (a namesake's line, with another id, is a
    # conflict: a namesake)
    assert by_id == on_the_list


def test_an_aga_id_of_the_file_finds_the_player_on_file_and_is_written_back():
    factories.player("jan", "5d", full_name="Jan Kowalski", national_id="99001")
    text = DECLARED.replace(
        'firstName="Jan" name="Nowak"', 'agaId="99001" firstName="Jan" name="Nowak"'
    )
    plan = plan_tournament_import(read_opengotha(text, "declared.xml"))
    nowak = next(m for m in plan.matches if m.file_player.surname == "Nowak")
    assert (nowak.username, nowak.how) == ("jan", "national id")
    tournament_import(user=system_user(), plan=plan, source="declared.xml")
    exported = read_opengotha(run("export_tournament", "declared-open", "--format", "opengotha"))
    assert [(p.surname, p.national_id) for p in exported.players] == [
        ("Fan", ""),
        ("Tormanen", ""),
        ("Nowak", "99001"),
    ]


def replace_old_standings() -> None:
    from django.apps import apps

    migration = importlib.import_module("players.migrations.0009_opengotha_standings_replaced")
    migration.replace_opengotha_standings(apps, None)


@pytest.mark.skipif(
    not EGC2013_XML.is_file(),
    reason=f"{EGC2013_XML} not found: the real files stay in ../shared/data "
    "(set CLUBRATING_SHARED_DATA to read them elsewhere)",
)
def test_an_opengotha_tournament_imported_with_the_old_standings_is_placed_again():
    import_text(EGC2013_XML.read_bytes(), read_opengotha, "egc2013.xml")
    entrants = TournamentPlayer.objects.filter(tournament__code="EGC2013").order_by("number")
    right = [(e.place, e.scores, e.results) for e in entrants]
    # as imports stored it before OpenGotha's scoring was followed: other places and
    # scores, forfeits without their colour
    old = list(entrants)
    for entrant in old:
        entrant.place, entrant.scores = str(len(old) + 1 - entrant.number), ["1", "2"]
        entrant.results = [re.sub(r"!([wb])\d", "!", token) for token in entrant.results]
    TournamentPlayer.objects.bulk_update(old, ["place", "scores", "results"])
    replace_old_standings()
    again = [(e.place, e.scores) for e in entrants.all()]
    assert again == [(place, scores) for place, scores, _ in right]  # OpenGotha's h9's
    # the rounds stay as stored (an old forfeit's colour cannot be told)
    assert [e.results for e in entrants.all()] == [o.results for o in old]


def test_placing_again_leaves_tournaments_imported_since_as_they_are():
    import_text(DECLARED, read_opengotha, "declared.xml")
    entrants = TournamentPlayer.objects.filter(tournament__code="declared-open")
    before = list(entrants.order_by("number").values_list("place", "scores", "results"))
    replace_old_standings()
    assert list(entrants.order_by("number").values_list("place", "scores", "results")) == before


def test_erasing_a_player_erases_them_from_the_files_lists_too():
    import_text(PLESSIS_CUP)
    sofia = Player.objects.get(egd_pin="12000001")
    player_erase(user=system_user(), player=sofia)
    sofia.refresh_from_db()
    assert (sofia.country, sofia.federation_club, sofia.family_name) == ("", "", str(sofia.pk))
    entrant = TournamentPlayer.objects.get(player=sofia)
    assert (entrant.family_name, entrant.country, entrant.club) == (str(sofia.pk), "", "")
    assert "du_Plessis" not in run("export_tournament", "plessis-cup")


def test_erasing_a_player_erases_what_the_opengotha_file_wrote_of_them_too():
    text = DECLARED.replace('firstName="Jan"', 'agaId="99001" firstName="Jan_Maria"').replace(
        '"NOWAKJAN"', '"NOWAKJAN_MARIA"'
    )
    import_text(text, read_opengotha, "declared.xml")
    nowak = Player.objects.get(national_id="99001")
    assert nowak.given_name == "Jan Maria"
    player_erase(user=system_user(), player=nowak)
    exported = run("export_tournament", "declared-open", "--format", "opengotha")
    assert "Jan_Maria" not in exported and "99001" not in exported
    assert 'firstName="Hui"' in exported  # the others as the file had them


def test_a_game_added_on_the_site_to_an_imported_tournament_keeps_the_files_standings():
    original = import_text(PLESSIS_CUP)
    newcomer = factories.player("newcomer", "5k", full_name="Lindiwe Dube")
    sofia = Player.objects.get(egd_pin="12000001")
    cup = Tournament.objects.get(code="plessis-cup")
    record_sheet_submit(
        user=factories.volunteer(),
        games=[factories.game(sofia, newcomer, "W", date(2024, 5, 5), tournament=cup, round=4)],
    )
    exported = read_egd(run("export_tournament", "plessis-cup"))
    assert [p.place for p in exported.players] == ["1", "2", "3", "", "5"]
    assert exported.players[4].surname == "Dube"
    assert [p.scores for p in exported.players[:4]] == [p.scores for p in original.players]
    assert exported.players[0].results[3] == "5+/w0"


# --- a voided game in the h-file --------------------------------------------------------------

EGC2013_H9 = SHARED_DATA / "egc2013-opengotha" / "EGC2013.h9"


@pytest.mark.skipif(
    not EGC2013_H9.is_file(),
    reason=f"{EGC2013_H9} not found: the real files stay in ../shared/data "
    "(set CLUBRATING_SHARED_DATA to read them elsewhere)",
)
def test_a_voided_egc2013_game_is_written_as_a_round_not_played_and_nothing_else_moves():
    """The EGF's h-file format writes a round in which a player had no game as ``0-``
    ("a free round": no game, no point), ``0=`` adding half a point and ``0+`` a whole
    one (a bye). A voided game is a game that did not count: neither player gets a
    point for it, so both sides of it are ``0-``."""
    original = import_text(EGC2013_H9.read_bytes(), read_egd, "EGC2013.h9")
    tournament = Tournament.objects.get()
    # Fan Hui (line 1) beat line 23 in round 1: "23+/w0".
    game = tournament.games.get(round=1, white__username="hui-fan")
    opponent = game.black.username
    game_void(user=system_user(), game_id=game.pk, version=game.version, reason="QA")

    exported = read_egd(run("export_tournament", tournament.code), "exported")

    by_name = {p.username: p for p in exported.players}
    assert original.players[0].results[0] == "23+/w0"
    assert by_name["hui-fan"].results[0] == by_name[opponent].results[0] == "0-"
    assert not [r for r in exported.records if r.round == 1 and "hui-fan" in (r.white, r.black)]
    voided = (game.round, game.white.username, game.black.username)
    kept = [r for r in original.records if (r.round, r.white, r.black) != voided]
    assert len(kept) == len(original.records) - 1
    assert games_of(exported) == games_of(dataclasses.replace(original, records=kept))
    # Every other round of every player as the file wrote it.
    originals = {p.username: p for p in original.players}
    for player in exported.players:
        rounds = list(originals[player.username].results)
        if player.username in ("hui-fan", opponent):
            rounds[0] = "0-"
        assert list(player.results) == rounds, player.username
    # The file's MMS and SOS no longer describe the games: left out, not written stale.
    assert {player.scores for player in exported.players} == {()}


def corrected_result(game, winner: str) -> None:
    changes = factories.game(
        game.white,
        game.black,
        winner,
        game.date,
        tournament=game.tournament,
        round=game.round,
        status=game.status,
        komi=game.komi,
    )
    game_correct(user=factories.volunteer(), game_id=game.pk, version=game.version, changes=changes)


def test_after_a_correction_the_h_file_keeps_the_final_placing_and_leaves_out_the_figures():
    original = import_text(PLESSIS_CUP)
    cup = Tournament.objects.get(code="plessis-cup")
    sofia = Player.objects.get(egd_pin="12000001")
    corrected_result(cup.games.get(round=2, black=sofia), "W")  # Sofia lost to Thabo

    exported = read_egd(run("export_tournament", "plessis-cup"))

    # the tournament's placing, as its file gave it (blank: tied with the line above)
    assert [(p.place, p.surname) for p in exported.players] == [
        (p.place, p.surname) for p in original.players
    ]
    assert [p.scores for p in exported.players] == [()] * 4  # stale figures left out
    assert exported.players[0].results[1] == "3-/b0"  # the corrected round


def test_after_a_correction_a_place_column_after_the_rounds_stays_with_the_first_column():
    import_text(KPMC_LIKE, source="prime.h9")
    cup = Tournament.objects.get(code="Prime-Cup-2021")
    corrected_result(cup.games.get(round=1), "B")  # Huang beat Kim

    text = run("export_tournament", "Prime-Cup-2021")

    assert re.search(r"R2 +Place\n", text)  # the points (NBW) left out, the place kept
    exported = read_egd(text)
    assert [(p.place, p.after_rounds) for p in exported.players] == [("1", ("1",)), ("2", ("2",))]
    assert [p.scores for p in exported.players] == [(), ()]  # the declared GoR column too


def test_a_merge_of_a_players_records_keeps_the_files_figures_in_the_h_file():
    original = import_text(PLESSIS_CUP)
    sofia = Player.objects.get(egd_pin="12000001")
    sofia_again = factories.player("sofia-again", "2k")
    player_merge(user=factories.committee_member(), keep=sofia_again, duplicate=sofia)

    text = run("export_tournament", "plessis-cup")

    assert "MMS" in text
    exported = read_egd(text)
    assert [p.scores for p in exported.players[:4]] == [p.scores for p in original.players]
