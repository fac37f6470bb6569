"""Real h-files of the go-tournaments-archive on the site (QA of issue 16): WAGC 2024
gives no colours (``30+``), KPMC 2017 has no column heading, a file imported again
shows its duplicates in the preview, and a log page says who won."""

from __future__ import annotations

import csv
import html
import importlib
import io
import re
from datetime import date
from pathlib import Path

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import Q

from players.models import Game, Player, Tournament
from players.selectors.tournaments import FileRound, tournament_crosstable
from players.services.base import system_user
from players.services.games import GameInput, find_duplicates, game_correct, record_sheet_submit
from players.services.tournament_files import (
    plan_duplicates,
    plan_tournament_import,
    tournament_import,
)
from ratings.engine.formats.egd import read_egd
from ratings.engine.formats.opengotha import read_opengotha
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.engine.test_egd_format import ARCHIVE, SHARED_DATA
from tests.players.test_tournament_round_trip import KPMC_LIKE
from tests.web.entry.test_tournament_import import confirmation
from tests.web.public.test_player_log import cells, sheet_rows

pytestmark = pytest.mark.django_db

WAGC_2024 = ARCHIVE / "wagc" / "data" / "wagc2024.txt"
KPMC_2017 = ARCHIVE / "kpmc" / "data" / "kpmc2017.txt"
needs_files = pytest.mark.skipif(
    not (WAGC_2024.is_file() and KPMC_2017.is_file()),
    reason=f"go-tournaments-archive not found in {SHARED_DATA} (set CLUBRATING_SHARED_DATA)",
)


def imported(path: Path, read=read_egd) -> Tournament:
    """The tournament of the file at ``path`` (an h-file; ``read``: its reader)."""
    file = read(path.read_bytes(), path.name)
    tournament_import(user=system_user(), plan=plan_tournament_import(file), source=path.name)
    return Tournament.objects.get(code=file.tournament.code)


def opengotha_file_needed(path: Path):
    return pytest.mark.skipif(
        not path.is_file(),
        reason=f"{path.name} not found in {path.parent} (set CLUBRATING_SHARED_DATA)",
    )


def corrected(game: Game, **changes) -> None:
    """Correct ``game`` through the service, with ``changes`` (players, winner)."""
    fields = {"white": game.white, "black": game.black, "winner": game.winner, **changes}
    correction = GameInput(
        date=game.date,
        komi=game.komi,
        status=game.status,
        tournament=game.tournament,
        round=game.round,
        **fields,
    )
    game_correct(
        user=factories.volunteer(), game_id=game.pk, version=game.version, changes=correction
    )


def crosstable_of(page: str) -> str:
    table = page[page.index('id="crosstable"') :]
    return table[: table.index("</table>")]


def headings(table: str) -> list[str]:
    return re.findall(r"<th[^>]*>\s*([^<]*?)\s*</th>", table)


# --- colours not given ------------------------------------------------------------------------


@needs_files
def test_wagc_2024_is_stored_and_shown_without_colours(client):
    tournament = imported(WAGC_2024)
    assert not tournament.games.filter(colour_given=True).exists()
    assert tournament.games.count() == 240
    recompute_pending()

    table = crosstable_of(client.get(f"/tournaments/{tournament.code}/").content.decode())
    bai = next(row for row in re.findall(r"<tr>.*?</tr>", table, re.S) if "Baoxiang Bai" in row)
    rounds = re.findall(r'<span title="([^"]*)">([^<]*)</span>', bai)
    assert [text for _, text in rounds] == ["30+", "9+", "13+", "4+", "3-", "8+", "2+", "5+"]
    assert all(title.endswith("; colour not given") for title, _ in rounds)

    log = client.get("/players/baoxiang-bai/").content.decode()
    rows = [cells(row) for row in sheet_rows(log)]
    assert {row[2] for row in rows} == {"not given"}  # the Colour column
    # round 5: he lost to Minoru Ozeki; who won is named, not an invented colour
    assert [row[5] for row in rows if row[0].startswith("Minoru Ozeki")] == [
        "Minoru Ozeki won loss"
    ]
    assert "Baoxiang Bai won win" in [row[5] for row in rows]


@needs_files
def test_head_to_head_counts_games_without_colours_apart(client):
    imported(WAGC_2024)
    page = client.get("/players/baoxiang-bai/vs/minoru-ozeki/").content.decode()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.unescape(page)))
    assert "baoxiang-bai White 0 0 0" in text
    assert "baoxiang-bai Black 0 0 0" in text
    assert "Colour not given (the tournament file gave none) 1 0 1" in text
    assert "Minoru Ozeki won" in text  # the games' Result: who won, not a colour


@needs_files
def test_the_api_and_the_record_sheet_say_the_colour_was_not_given(client):
    tournament = imported(WAGC_2024)
    recompute_pending()
    games = client.get(f"/api/v1/tournaments/{tournament.code}/").json()["games"]
    assert {game["colour_given"] for game in games} == {False}
    history = client.get("/api/v1/players/baoxiang-bai/history/").json()["results"]
    assert {(row["colour"], row["colour_given"]) for row in history} == {(None, False)}
    response = client.get("/players/baoxiang-bai/sheet.csv")
    sheet = b"".join(response.streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(sheet)))
    assert len(rows) == 8 and {row["colour"] for row in rows} == {"?"}


@needs_files
def test_wagc_2024_comes_back_out_of_export_tournament_without_colours():
    tournament = imported(WAGC_2024)
    out = io.StringIO()
    call_command("export_tournament", tournament.code, stdout=out)
    text = out.getvalue()
    assert "/w" not in text and "/b" not in text
    again = read_egd(text)
    assert len(again.records) == 240 and not any(r.colour_given for r in again.records)


@needs_files
def test_a_correction_naming_the_colours_gives_them(client):
    tournament = imported(WAGC_2024)
    game = tournament.games.get(round=1, white__username="baoxiang-bai")
    corrected(game, white=game.black, black=game.white, winner="B")  # Bai was Black
    game.refresh_from_db()
    assert game.colour_given and game.black.username == "baoxiang-bai"
    assert tournament.games.filter(colour_given=False).count() == 239


# --- KPMC 2017's tie-breaker columns --------------------------------------------------------


@needs_files
def test_kpmc_2017s_identical_columns_are_named_neutrally_and_the_sentence_names_each(client):
    tournament = imported(KPMC_2017)
    assert tournament.score_names == ["NBW", "NBW", "NBW", "SOS", "SOSOS"]
    page = client.get(f"/tournaments/{tournament.code}/").content.decode()
    table = crosstable_of(page)
    names = headings(table)
    # three columns of the same figures (6 6 6): none can be told to be the points
    assert names[names.index("R6") + 1 :][:5] == [
        "Column 1",
        "Column 2",
        "Column 3",
        "SOS",
        "SOSOS",
    ]
    assert "—" not in names and "Points" not in names
    criteria = "Column 1 then Column 2 then Column 3 then SOS then SOSOS"
    assert f"h-file gives them ({criteria})" in page
    assert table.count('title="As the tournament&#x27;s file has it') == 5
    assert "the file&#x27;s figures, not recomputed when a game is corrected" in page


@needs_files
def test_after_a_correction_kpmc_2017s_figures_are_the_files_and_the_round_is_marked(client):
    tournament = imported(KPMC_2017)
    game = tournament.games.get(round=1, white__username="yikang-zhao")
    corrected(game, winner="B")
    page = client.get(f"/tournaments/{tournament.code}/").content.decode()
    table = crosstable_of(page)
    zhao = next(row for row in re.findall(r"<tr>.*?</tr>", table, re.S) if "Yikang Zhao" in row)
    # the round as corrected, marked so
    marked = 'corrected since the import" class="text-nowrap">38-w<sup class="round-corrected"'
    assert marked in zhao
    assert zhao.count("round-corrected") == 1
    assert re.findall(r'<td class="[^"]*text-end" data-label="[^"]*">(\d+)</td>', zhao)[:5] == [
        "6",
        "6",
        "6",
        "20",
        "130",
    ]  # the file's figures
    assert table.count('title="As the tournament&#x27;s file has it') == 5
    assert "1 game corrected since the import" in page


@needs_files
def test_after_a_correction_kpmc_2017s_h_file_writes_the_round_in_its_style_without_figures():
    tournament = imported(KPMC_2017)
    corrected(tournament.games.get(round=1, white__username="yikang-zhao"), winner="B")

    text = run_export(tournament.code)

    zhao = next(line for line in text.splitlines() if "Zhao Yikang" in line)
    assert zhao.split()[6:9] == ["38-/w", "35+/b", "39+/b"]  # not "38-/w0" among "35+/b"
    heading = next(line for line in text.splitlines() if line.startswith("; Pl"))
    assert "SOS" not in heading and "NBW" not in heading  # the file's figures left out
    assert " 6 " not in zhao.split("|")[0]
    assert len(read_egd(text).records) == tournament.games.count()


def run_export(code: str) -> str:
    out = io.StringIO()
    call_command("export_tournament", code, stdout=out)
    return out.getvalue()


# --- duplicates in the preview --------------------------------------------------------------


def uploaded_again(client):
    """WAGC 2024 uploaded to the import page (imported already: the preview)."""
    file = SimpleUploadedFile("wagc2024.txt", WAGC_2024.read_bytes())
    return client.post("/tournaments/import/", {"file": file})


@needs_files
@pytest.mark.signed_in
def test_the_preview_shows_the_games_already_on_file_and_one_tick_imports_them(client, vera):
    first = imported(WAGC_2024)
    upload = uploaded_again(client)
    assert upload.context["plan"].games_on_file == 240  # under its code: another one first
    renamed = client.post("/tournaments/import/", confirmation(upload, "check", code="wagc-again"))
    duplicates = renamed.context["duplicates"]
    assert len(duplicates) == 240
    assert all("is already on file as game" in text for text in duplicates)
    # no colour in the file: the winner is named, not an invented colour
    assert "(2024-05-17, baoxiang-bai - uffe-rasmussen, baoxiang-bai won)" in duplicates[0]
    page = re.sub(r"\s+", " ", renamed.content.decode())
    assert "240 games of this file look like games already on file" in page
    assert f'href="/games/{first.games.order_by("pk").first().pk}/"' in page
    assert Game.objects.count() == 240

    stored = client.post("/tournaments/import/", confirmation(renamed, save_duplicates="on"))
    assert stored.status_code == 302
    assert Tournament.objects.get(code="wagc-again").games.count() == 240


@needs_files
@pytest.mark.signed_in
def test_a_file_imported_again_under_its_code_says_at_once_it_is_already_imported(client, vera):
    first = imported(WAGC_2024)
    upload = uploaded_again(client)
    assert upload.context["plan"].games_on_file == 240  # the code is still refused
    assert len(upload.context["duplicates_on_file"]) == 240  # and the games shown at once
    assert upload.context["already_imported"] == 240
    page = re.sub(r"\s+", " ", upload.content.decode())
    assert "already imported:</strong> 240 of its 240 games are games of" in page
    assert f'href="/tournaments/{first.code}/"' in page
    assert "give the file another code below, press Check again" in page
    assert Game.objects.count() == 240


EGC_2011 = SHARED_DATA / "egc2013-opengotha" / "egc2011.xml"


@pytest.mark.skipif(
    not EGC_2011.is_file(),
    reason=f"egc2011.xml not found in {EGC_2011.parent} (set CLUBRATING_SHARED_DATA)",
)
def test_a_rematch_in_another_round_of_one_file_is_not_a_duplicate():

    file = read_opengotha(EGC_2011.read_bytes(), EGC_2011.name)
    # the file dates every round the same day: one pair met in rounds 5 and 6
    rematch = [record for record in file.records if record.line in (2786, 3129)]
    assert sorted(record.round for record in rematch) == [5, 6]

    assert plan_duplicates(plan_tournament_import(file)) == []


def test_the_same_game_twice_in_one_round_of_a_batch_is_said_to_be_within_it():
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "6k")
    cup = factories.tournament("cup", "Cup")
    twice = [factories.game(ann, ben, "W", tournament=cup, round=3) for _ in range(2)]
    other_round = [factories.game(ann, ben, "W", tournament=cup, round=number) for number in (3, 4)]

    assert find_duplicates(twice, ["line 7", "line 9"]) == ["line 9 is the same as line 7"]
    assert find_duplicates(other_round) == []


@pytest.mark.signed_in
def test_a_new_file_shows_no_duplicates_in_its_preview(client, vera):
    upload = client.post(
        "/tournaments/import/",
        {"file": SimpleUploadedFile("prime.h9", KPMC_LIKE.encode())},
    )
    assert upload.context["duplicates"] == []
    assert 'id="duplicates"' not in upload.content.decode()


# --- the log page's Winner cell ---------------------------------------------------------------


def test_the_winner_cell_says_who_won_when_the_player_lost(client):
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "6k")
    record_sheet_submit(user=factories.volunteer(), games=[factories.game(ann, ben, "W")])
    recompute_pending()
    ben_row = cells(sheet_rows(client.get("/players/ben/").content.decode())[0])
    ann_row = cells(sheet_rows(client.get("/players/ann/").content.decode())[0])
    assert (ben_row[2], ben_row[5]) == ("Black", "White won loss")  # was "White lost"
    assert (ann_row[2], ann_row[5]) == ("White", "White won win")
    assert not Player.objects.filter(Q(username="ann") & Q(full_name="")).exists()


# --- tournaments imported before ------------------------------------------------------------


def read_back_from_the_files() -> None:
    from django.apps import apps

    migration = importlib.import_module("players.migrations.0011_game_colour_given")
    migration.read_back_from_the_files(apps, None)


@needs_files
def test_tournaments_imported_before_get_their_colours_and_column_names_back():
    wagc, kpmc = imported(WAGC_2024), imported(KPMC_2017)
    corrected(wagc.games.get(round=2, white__username="baoxiang-bai"), winner="B")
    # as the imports before stored them: invented colours, unnamed columns
    Game.objects.update(colour_given=True)
    Tournament.objects.filter(pk=kpmc.pk).update(score_names=["", "", "", "", ""])

    read_back_from_the_files()

    # every WAGC game but the corrected one (a correction may have named the colours)
    assert wagc.games.filter(colour_given=False).count() == 239
    assert not kpmc.games.filter(colour_given=False).exists()
    kpmc.refresh_from_db()
    assert kpmc.score_names == ["NBW", "NBW", "NBW", "SOS", "SOSOS"]


# --- OpenGotha's placement criteria and h-file (issue 26) ---------------------------------------

UNDER_12 = SHARED_DATA / "opengotha-2020-online" / "20201122182801_CNJ-2020-U12.xml"


@opengotha_file_needed(UNDER_12)
def test_an_opengotha_file_placed_by_direct_confrontation_says_so_and_exports_its_ties(client):
    code = imported(UNDER_12, read_opengotha).code
    page = re.sub(r"\s+", " ", html.unescape(client.get(f"/tournaments/{code}/").content.decode()))
    assert (
        "Places by the placement criteria of the tournament's OpenGotha file: "
        "Points then DC then SOS"
    ) in page
    h9 = client.get(f"/tournaments/{code}/egd.h9").content.decode()
    lines = [line for line in h9.splitlines() if line and not line.startswith(";")]
    heading = next(line for line in h9.splitlines() if line.startswith("; Pl "))
    assert " Club NBW DC SOSW " in heading
    # OpenGotha's own h9 of the file leaves 7 ex aequo places blank, and its bye
    # (genNBW2ValueBye="0") is worth nothing: 0-
    assert [line[:4].strip() for line in lines].count("") == 7
    assert not any(" 0+" in line for line in lines)


POLISH_STUDENTS = [ARCHIVE / "pagc" / "data" / f"amp{year}.txt" for year in (2006, 2008)]


@pytest.mark.skipif(
    not all(path.is_file() for path in POLISH_STUDENTS),
    reason=f"amp2006.txt and amp2008.txt not found in {ARCHIVE} (set CLUBRATING_SHARED_DATA)",
)
def test_two_editions_named_alike_without_a_tc_code_are_two_tournaments():
    # Both headers say EV[Polish Students Championship] and give no TC[...]; the second
    # was refused as "already on file" when the code was the name alone.
    first, second = (imported(path) for path in POLISH_STUDENTS)
    assert (first.code, second.code) == (
        "Polish-Students-Championship-2006",
        "Polish-Students-Championship-2008",
    )
    assert (first.name, second.name) == ("Polish Students Championship",) * 2
    assert second.games.count() == 40
    assert (second.start_date, second.end_date) == (date(2008, 7, 12), date(2008, 7, 13))


REFUSED_ARCHIVE_FILES = {
    "pwgc/data/mpk2025.txt": "line 5, column DT: the end date 2025-06-20 is before the start "
    "2025-07-19",
    "wagc/data/wagc2008.txt": "line 5, column DT: the end date 2007-05-31 is before the start "
    "2008-05-28",
    "pygc/data/mpj2012u12.txt": "line 11, column round 3: '6+/w' and '4-/w' (line 13) give "
    "both players the same colour",
}


@needs_files
@pytest.mark.parametrize("name", sorted(REFUSED_ARCHIVE_FILES))
def test_an_archive_file_broken_for_real_is_refused_saying_what_and_where(name):
    with pytest.raises(CommandError) as refused:
        call_command("import_tournament", str(ARCHIVE / name), "--yes", stdout=io.StringIO())
    assert REFUSED_ARCHIVE_FILES[name] in str(refused.value)
    assert not Tournament.objects.exists()


SEYGO_6 = SHARED_DATA / "opengotha-2020-online" / "20201124142011_SEYGO20206.xml"


@opengotha_file_needed(SEYGO_6)
def test_the_crosstable_shows_a_files_forfeits_and_byes_that_are_no_game_here(client):
    tournament = imported(SEYGO_6, read_opengotha)
    crosstable = tournament_crosstable(tournament, "sagc")
    rows = {row.player.full_name: row for row in crosstable.rows}
    daniel = next(row for name, row in rows.items() if "Dobridoreanu" in name)
    cobbold = next(row for name, row in rows.items() if "Cobbold" in name)

    # The file: round 1 a win by forfeit (RESULT_BLACKWINS_BYDEF) against Cobbold, with
    # Black; round 4 a bye. Neither is a game here; both are in his row as the h-file
    # export writes them (26+!b0, 0+), the opponent by their number in the crosstable.
    assert 1 not in daniel.rounds and 4 not in daniel.rounds
    assert daniel.file_rounds == {
        1: FileRound(f"{cobbold.number}+!b", "forfeit"),
        4: FileRound("0+", "bye"),
    }
    assert cobbold.file_rounds[1] == FileRound(f"{daniel.number}-!w", "forfeit")
    page = html.unescape(client.get(f"/tournaments/{tournament.code}/").content.decode())
    assert (
        f'<span title="won or lost by forfeit: not rated" class="text-body-secondary">'
        f"{cobbold.number}+!b</span>"
    ) in page
    assert '<span title="bye" class="text-body-secondary">0+</span>' in page


# --- OpenGotha's standings leave out the players paired in no round ---------------------

CANADIAN_OPEN = SHARED_DATA / "opengotha-2020-online" / "20201108230425_CA2020Rd6finalv1.xml"


def places_by_name(tournament: Tournament) -> dict[str, str]:
    return {
        entrant.player.full_name: entrant.place
        for entrant in tournament.entrants.select_related("player")
    }


@opengotha_file_needed(CANADIAN_OPEN)
def test_an_opengotha_file_places_its_players_as_opengotha_leaving_out_the_unpaired(client):
    tournament = imported(CANADIAN_OPEN, read_opengotha)
    places = places_by_name(tournament)

    # OpenGotha 3.51's own standings of the file (its displayNPPlayers off): 147 placed;
    # three registered players paired in no round are left out and the places below
    # them close up (the site had them at 96, 96 and 133, and everyone below lower).
    assert [places[name] for name in ("Leo Li", "Tung Siu", "Nathan Toner")] == ["", "", ""]
    assert sum(1 for place in places.values() if place) == 147
    assert places["Howard Jeddore"] == "146"
    assert places["Richard Green"] == "147"
    assert places["Daniel Motyka"] == "98"
    assert places["Matt Mennie"] == "96"
    # The crosstable lists them last, without a place.
    rows = tournament_crosstable(tournament, "sagc").rows
    assert {row.player.full_name for row in rows[-3:]} == {"Leo Li", "Tung Siu", "Nathan Toner"}
    assert [row.place for row in rows[-3:]] == ["", "", ""]


@opengotha_file_needed(CANADIAN_OPEN)
def test_the_migration_leaves_out_the_unpaired_players_of_a_stored_opengotha_tournament():
    tournament = imported(CANADIAN_OPEN, read_opengotha)
    expected = places_by_name(tournament)
    # As a tournament imported before: everyone placed, the unpaired among the others.
    entrants = list(tournament.entrants.select_related("player"))
    old = {"Leo Li": "96", "Tung Siu": "96", "Nathan Toner": "133"}
    for entrant in entrants:
        place = entrant.place
        if entrant.player.full_name in old:
            entrant.place = old[entrant.player.full_name]
        elif int(place) >= 131:  # below both places: 134 and on before
            entrant.place = str(int(place) + 3)
        elif int(place) >= 96:  # below the two at 96: 98 to 132 before
            entrant.place = str(int(place) + 2)
    type(entrants[0]).objects.bulk_update(entrants, ["place"])

    importlib.import_module(
        "players.migrations.0018_opengotha_unpaired_players_unplaced"
    ).unplace_unpaired_players(apps, None)

    assert places_by_name(tournament) == expected
