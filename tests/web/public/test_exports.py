"""The downloads: a tournament as an EGD h-file (/tournaments/<code>/egd.h9), every game
as the game record CSV (/games.csv) and a player's record sheet as CSV
(/players/<username>/sheet.csv). The site gives what the commands give, and what the
command line replays to the same history."""

from __future__ import annotations

import csv
import io
import os
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command

from players.models import Game, Player, Tournament, TournamentPlayer
from players.selectors.exports import RECORD_SHEET_COLUMNS
from players.services.games import record_sheet_submit
from players.services.tournament_files import plan_tournament_import, tournament_import
from ratings.algorithms import maintained_algorithms
from ratings.engine.algorithms import get_algorithm
from ratings.engine.cli import main
from ratings.engine.formats.egd import read_egd
from ratings.engine.records import COLUMNS
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.engine.test_egd_format import SPRING_CUP, games_of

pytestmark = pytest.mark.django_db

SHARED_DATA = Path(
    os.environ.get("CLUBRATING_SHARED_DATA")
    or Path(__file__).resolve().parents[3].parent / "shared" / "data"
)
EGC2013_H9 = SHARED_DATA / "egc2013-opengotha" / "EGC2013.h9"


def import_file(text: str | bytes, user, source: str = "test.h9") -> None:
    tournament_import(user=user, plan=plan_tournament_import(read_egd(text)), source=source)


@pytest.fixture
def season(vera):
    """A tournament from an h-file; sheets with a negative komi, an internet handicap
    game, a free jigo on 13x13 and a rapid game; two adjustments; all rated."""
    import_file(SPRING_CUP, vera, "spring.h9")
    smith, thabo, anna = (
        Player.objects.get(username=name)
        for name in ("john-smith", "thabo-ndlovu", "anna-van-der-merwe")
    )
    zola = factories.player("zola", "40k", full_name="Zola Dube")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(smith, thabo, "B", date(2024, 2, 28), komi=-5.5),
            factories.game(
                zola, anna, "W", date(2024, 3, 5), handicap=9, komi=0.5, status="internet",
                comment="+2 after the recount",
            ),
            factories.game(anna, zola, "D", date(2024, 3, 6), status="free", board_size=13, komi=6),
            factories.game(thabo, anna, "W", date(2024, 3, 9), time_minutes=25, comment="@rapid"),
        ],
    )  # fmt: skip
    factories.adjustment(anna, date(2024, 3, 4), "4k", user=vera)
    factories.adjustment(
        smith, date(2024, 3, 4), "4d", user=vera, value=2450.5, algorithm="egf-2021",
        comment="-committee decision",
    )  # fmt: skip
    recompute_pending()


def content_of(response) -> str:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return body.decode("utf-8")


def command_output(*args, **options) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO(), **options)
    return out.getvalue()


def unescaped(text: str) -> str:
    """The CSV as the history prints its free text (the export escapes it)."""
    for cell in ("+2 after the recount", "@rapid", "-committee decision"):
        text = text.replace(f"'{cell}", cell)
    return text


# --- /games.csv -------------------------------------------------------------------------------


def test_all_games_replay_on_the_command_line_to_the_sites_history(
    client, season, tmp_path, capsys
):
    path = tmp_path / "games.csv"
    path.write_text(content_of(client.get("/games.csv")), encoding="utf-8")

    algorithms = [name for name in maintained_algorithms()]
    with_history = [name for name in algorithms if get_algorithm(name).has_history]
    assert len(with_history) >= 2
    for algorithm in with_history:
        stored = command_output("export_history", algorithm=algorithm)
        capsys.readouterr()
        assert main(["rate", "--algorithm", algorithm, str(path)]) == 0
        assert unescaped(capsys.readouterr().out) == stored, algorithm


def test_all_games_are_the_export_games_file_streamed(client, season):
    response = client.get("/games.csv")

    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="games-')
    assert content_of(response) == command_output("export_games")


def test_all_games_are_in_replay_order_with_entry_ranks_on_first_rows(client, season):
    rows = list(csv.DictReader(io.StringIO(content_of(client.get("/games.csv")))))

    assert list(rows[0]) == list(COLUMNS)
    assert [(r["date"], r["round"], r["white"], r["black"], r["white_rank"], r["black_rank"])
            for r in rows[:3]] == [
        ("2024-02-28", "0", "john-smith", "thabo-ndlovu", "3d", "1k"),
        ("2024-03-02", "1", "john-smith", "thabo-ndlovu", "3d", "1k"),
        ("2024-03-02", "1", "anna-van-der-merwe", "aiko-nakamura", "5k", "2k"),
    ]  # fmt: skip
    zola = next(r for r in rows if "zola" in (r["white"], r["black"]))
    assert (zola["white_rank"], zola["status"], zola["handicap"], zola["komi"]) == (
        "40k",
        "internet",
        "9",
        "0.5",
    )
    adjustments = [
        (r["date"], r["white"], r["black"], r["white_rank"], r["value"], r["algorithm"])
        for r in rows
        if r["status"] == "adjustment"
    ]
    assert adjustments == [
        ("2024-03-04", "anna-van-der-merwe", "anna-van-der-merwe", "4k", "", ""),
        ("2024-03-04", "john-smith", "john-smith", "4d", "2450.5", "egf-2021"),
    ]
    assert len(rows) == Game.objects.count() + 2


def test_all_games_escape_free_text_and_write_numbers_as_numbers(client, season):
    text = content_of(client.get("/games.csv"))

    assert "2024-02-28,john-smith,thabo-ndlovu,3d,1k,0,-5.5,B,normal,19,,,0,,,,\n" in text
    assert ",internet,19,,,0,,,,'+2 after the recount\n" in text
    assert ",D,free,13,,,0,,,,\n" in text
    assert ",normal,19,,,0,25,,,'@rapid\n" in text
    assert ",adjustment,,,,,,2450.5,egf-2021,'-committee decision\n" in text
    assert ",tournament,19,Spring-Cup-2024,B,5,,,,\n" in text


def test_all_games_take_three_queries_however_many_there_are(
    client, season, vera, django_assert_max_num_queries
):
    with django_assert_max_num_queries(3):
        few = content_of(client.get("/games.csv"))
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "6k")
    record_sheet_submit(
        user=vera, games=[factories.game(ann, ben, "W", date(2024, 4, day)) for day in range(1, 29)]
    )
    with django_assert_max_num_queries(3):
        many = content_of(client.get("/games.csv"))
    assert many.count("\n") == few.count("\n") + 28


def test_all_games_of_an_empty_site_are_the_header(client):
    assert content_of(client.get("/games.csv")) == ",".join(COLUMNS) + "\n"


# --- /players/<username>/sheet.csv ---------------------------------------------------------------


def test_a_record_sheet_has_the_log_pages_twelve_columns_oldest_first(client, season):
    rows = list(csv.reader(io.StringIO(content_of(client.get("/players/zola/sheet.csv")))))

    assert rows[0] == list(RECORD_SHEET_COLUMNS)
    assert ",".join(rows[0]) == (
        "opponent,opponent_rank,colour,handicap,komi,winner,status,change,new_value,new_rank,"
        "date,comment"
    )
    assert [row[:7] + row[10:] for row in rows[1:]] == [
        ["anna-van-der-merwe", "4k", "W", "9", "0.5", "W", "internet", "2024-03-05",
         "'+2 after the recount"],
        ["anna-van-der-merwe", "4k", "B", "0", "6", "D", "free", "2024-03-06",
         "not rated: SAGC rates 19x19 games only, not 13x13"],
    ]  # fmt: skip
    assert all(int(row[7]) == float(row[7]) for row in rows[1:])  # SAGC: whole numbers


@pytest.mark.parametrize("algorithm", ["", "egf-2021", "french"])
def test_a_record_sheet_is_what_export_record_sheet_prints(client, season, algorithm):
    query = f"?algorithm={algorithm}" if algorithm else ""
    for username in ("john-smith", "anna-van-der-merwe"):
        response = client.get(f"/players/{username}/sheet.csv{query}")
        assert response["Content-Disposition"] == (
            f'attachment; filename="{username}-{algorithm or "sagc"}.csv"'
        )
        options = {"algorithm": algorithm} if algorithm else {}
        assert content_of(response) == command_output("export_record_sheet", username, **options)


def test_a_record_sheet_has_the_numbers_of_the_history(client, season):
    text = content_of(client.get("/players/john-smith/sheet.csv?algorithm=egf-2021"))
    history = [
        line.split(",", 1)[1]
        for line in command_output("export_history", algorithm="egf-2021").splitlines()
        if line.startswith("john-smith,")
    ]

    assert unescaped(text).splitlines()[1:] == history
    adjustment = next(row for row in csv.reader(io.StringIO(text)) if row[6] == "adjustment")
    assert (adjustment[0], adjustment[8], adjustment[-1]) == (
        "john-smith",
        "2450.5",
        "'-committee decision",
    )


def test_a_record_sheet_names_the_winner_of_a_game_whose_file_gave_no_colour(client, vera):
    lindiwe, pieter = factories.player("lindiwe", "2k"), factories.player("pieter", "2k")
    # Stored with lindiwe as White (the file's first player) and Black as the winner.
    record_sheet_submit(user=vera, games=[factories.game(lindiwe, pieter, "B", colour_given=False)])
    recompute_pending()
    colour_at, winner_at = (
        RECORD_SHEET_COLUMNS.index("colour"),
        RECORD_SHEET_COLUMNS.index("winner"),
    )

    for username in ("lindiwe", "pieter"):
        response = client.get(f"/players/{username}/sheet.csv")
        rows = list(csv.reader(io.StringIO(content_of(response))))
        assert len(rows) == 2
        assert (rows[1][colour_at], rows[1][winner_at]) == ("?", "pieter")


def test_a_record_sheet_under_gcr_or_of_nobody_is_not_found(client, season):
    assert client.get("/players/zola/sheet.csv?algorithm=gcr").status_code == 404
    assert client.get("/players/zola/sheet.csv?algorithm=elo").status_code == 404
    assert client.get("/players/nobody/sheet.csv").status_code == 404


def test_a_record_sheet_takes_a_fixed_number_of_queries(
    client, season, django_assert_max_num_queries
):
    # the history, and the player's games whose file gave no colour
    with django_assert_max_num_queries(3):
        response = client.get("/players/thabo-ndlovu/sheet.csv?algorithm=anchor")
        sheet = content_of(response)

    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(sheet)))
    assert rows[0] == list(RECORD_SHEET_COLUMNS)
    assert len(rows) > 1, "the sheet has thabo-ndlovu's games"


def test_the_log_page_links_its_record_sheet(client, season):
    primary = client.get("/players/thabo-ndlovu/").content.decode()
    egf = client.get("/players/thabo-ndlovu/?algorithm=egf-2021").content.decode()

    assert 'href="/players/thabo-ndlovu/sheet.csv"' in primary
    assert 'href="/players/thabo-ndlovu/sheet.csv?algorithm=egf-2021"' in egf
    assert "Download record sheet (CSV)" in egf


# --- /tournaments/<code>/egd.h9 -----------------------------------------------------------------


def test_the_h_file_reads_back_to_the_games_imported(client, season):
    response = client.get("/tournaments/Spring-Cup-2024/egd.h9")

    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="Spring-Cup-2024.h9"'
    exported = read_egd(content_of(response))
    assert games_of(exported) == games_of(read_egd(SPRING_CUP))
    assert (exported.tournament.code, exported.tournament.tournament_class) == (
        "Spring-Cup-2024",
        "B",
    )
    assert content_of(response) == command_output("export_tournament", "Spring-Cup-2024")


def test_the_h_file_says_in_comments_what_it_cannot_carry(client, season):
    game = Game.objects.get(round=1, white__username="john-smith")
    Game.objects.filter(pk=game.pk).update(komi=Decimal("6.5"))

    text = content_of(client.get("/tournaments/Spring-Cup-2024/egd.h9"))

    assert text.startswith(
        "; Not carried by this file: round 1 john-smith-thabo-ndlovu: komi 6.5 is written as 7\n"
        "; CL[B]\n"
    )
    assert len(read_egd(text).records) == 6


def test_the_h_file_gives_the_country_asked_for_to_players_without_one(client, season):
    TournamentPlayer.objects.filter(player__username="thabo-ndlovu").update(country="")

    text = content_of(client.get("/tournaments/Spring-Cup-2024/egd.h9?country=gb"))

    countries = {player.username: player.country for player in read_egd(text).players}
    assert countries == {
        "john-smith": "ZA",
        "thabo-ndlovu": "GB",
        "anna-van-der-merwe": "ZA",
        "aiko-nakamura": "JP",
    }


def test_no_h_file_for_a_tournament_without_games_or_a_bad_country(client, season):
    factories.tournament(
        "empty-cup", "Empty Cup", start_date=date(2024, 5, 1), end_date=date(2024, 5, 1)
    )

    empty = client.get("/tournaments/empty-cup/egd.h9", follow=True)
    country = client.get("/tournaments/Spring-Cup-2024/egd.h9?country=zaf", follow=True)

    assert empty.redirect_chain == [("/tournaments/empty-cup/", 302)]
    assert (
        "No h-file: the tournament &#x27;empty-cup&#x27; has no valid games: an h-file needs at "
        "least one." in empty.content.decode()
    )
    assert 'id="egd-download"' not in empty.content.decode()
    assert country.redirect_chain == [("/tournaments/Spring-Cup-2024/", 302)]
    assert "&#x27;zaf&#x27; is not a two-letter country code" in country.content.decode()
    assert client.get("/tournaments/nope/egd.h9").status_code == 404


def test_the_tournament_page_links_its_h_file(client, season):
    html = client.get("/tournaments/Spring-Cup-2024/").content.decode()

    assert 'href="/tournaments/Spring-Cup-2024/egd.h9"' in html


def test_the_h_file_takes_a_fixed_number_of_queries(client, season, django_assert_max_num_queries):
    # the tournament, its games with their players, the file's players
    with django_assert_max_num_queries(3):
        response = client.get("/tournaments/Spring-Cup-2024/egd.h9")
        exported = read_egd(content_of(response))

    assert response.status_code == 200
    assert games_of(exported) == games_of(read_egd(SPRING_CUP))


@pytest.mark.skipif(
    not EGC2013_H9.is_file(),
    reason=f"{EGC2013_H9} not found: the real files stay in ../shared/data "
    "(set CLUBRATING_SHARED_DATA to read them elsewhere)",
)
def test_the_egc2013_h_file_goes_through_the_site_unchanged(client, vera):
    original = read_egd(EGC2013_H9.read_bytes())
    import_file(EGC2013_H9.read_bytes(), vera, "EGC2013.h9")
    code = Tournament.objects.get().code

    exported = read_egd(content_of(client.get(f"/tournaments/{code}/egd.h9")))

    assert len(exported.records) == 2226
    assert games_of(exported) == games_of(original)
    # Every player of the file, those with forfeits only among them, in the file's order.
    assert [(p.username, p.pin, p.place, p.scores, p.results) for p in exported.players] == [
        (p.username, p.pin, p.place, p.scores, p.results) for p in original.players
    ]
