"""/tournaments/import/: upload an EGD h-file or OpenGotha XML, see who each player is
and what would be stored (nothing is), confirm, and the tournament, its new players and
its games are stored in one transaction."""

from __future__ import annotations

import html
import os
import random
import re
from datetime import date, timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.db.models import Q
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from players.entry.tournament_forms import MAX_UPLOAD_BYTES
from players.models import AuditEntry, Game, Player, Tournament
from players.services.games import game_void
from ratings.engine.ranks import parse_rank
from ratings.models import RecomputeState
from tests import factories
from tests.engine.test_egd_format import SPRING_CUP
from tests.engine.test_opengotha_format import SPRING_CUP as SPRING_CUP_XML

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]

URL = "/tournaments/import/"
SHARED_DATA = Path(
    os.environ.get("CLUBRATING_SHARED_DATA")
    or Path(__file__).resolve().parents[3].parent / "shared" / "data"
)
EGC2013_H9 = SHARED_DATA / "egc2013-opengotha" / "EGC2013.h9"


def upload(client, text: str | bytes, name: str = "spring.h9", **fields):
    data = text.encode() if isinstance(text, str) else text
    return client.post(URL, {"file": SimpleUploadedFile(name, data), **fields})


def confirmation(response, action: str = "import", **changes) -> dict:
    """What the preview's form posts: its fields as shown, with ``changes`` typed in."""
    form, choices = response.context["form"], response.context["choices"]
    data = {name: form[name].value() for name in form.fields}
    data = {name: value for name, value in data.items() if value not in (None, False)}
    data["shown"] = choices["shown"].value()
    for row in response.context["rows"]:
        if row.editable:
            data[row.field.html_name] = row.field.value()
    data.update(changes)
    data["action"] = action
    return data


def player_field(response, username: str) -> str:
    """The name of the preview's field for the file player suggested as ``username``."""
    for match in response.context["plan"].matches:
        if match.file_player.username == username:
            return response.context["choices"].field_for(match).html_name
    raise KeyError(username)


def nothing_stored(players: int = 0) -> bool:
    return (
        not Tournament.objects.exists()
        and not Game.objects.exists()
        and Player.objects.count() == players
        and not AuditEntry.objects.exists()
    )


def games_of(username: str) -> int:
    return Game.objects.filter(Q(white__username=username) | Q(black__username=username)).count()


def text_of(response) -> str:
    text = re.sub(r"<[^>]+>", " ", response.content.decode())
    return re.sub(r"\s+", " ", html.unescape(text))


# --- the preview ------------------------------------------------------------------------------


def test_the_preview_shows_how_each_player_is_matched_and_stores_nothing(client, vera):
    factories.player("jsmith", "3d", full_name="J. Smith", egd_pin="12345678")
    factories.player("thabo-ndlovu", "1k", full_name="T. Ndlovu")
    factories.player("aiko", "2k", full_name="aiko  NAKAMURA")

    response = upload(client, SPRING_CUP)

    assert response.status_code == 200
    rows = {
        match.file_player.username: (match.username, row.matched_by)
        for row in response.context["rows"]
        for match in [row.match]
    }
    assert rows == {
        "john-smith": ("jsmith", "by EGD PIN"),
        "thabo-ndlovu": ("thabo-ndlovu", "by username"),
        "aiko-nakamura": ("aiko", "by exact name"),
        "anna-van-der-merwe": ("anna-van-der-merwe", "NEW"),
    }
    text = text_of(response)
    assert "Spring-Cup-2024" in response.content.decode()
    assert "2024-03-02 \N{EN DASH} 2024-03-03 · 5 rounds" in text
    assert "Games to store 6" in text
    assert (
        "1 forfeited game (marked '!') not rated; 1 game without a result ('?') not rated" in text
    )
    assert "4: 3 on file, 1 new" in text
    assert "Import 6 games and 1 new player" in text
    assert nothing_stored(players=3)


def test_the_preview_counts_the_games_whose_file_gives_no_colour(client, vera):
    # Two of the file's games ("4+" against "2-", "4-/?0" against "3+/?0") give no colour.
    text = text_of(upload(client, SPRING_CUP))
    coloured = text_of(
        upload(client, SPRING_CUP.replace("   4+ ", "   4+/w ").replace("   2- ", "   2-/b "))
    )

    assert (
        "Colours 2 games give no colour: stored in the file's order (the player listed first "
        "as White) and shown as \u201ccolour not given\u201d"
    ) in text
    assert "1 game gives no colour" in coloured


def test_namesakes_are_flagged_and_block_the_import_until_a_username_is_typed(client, vera):
    factories.player("aiko1", "2k", full_name="Aiko Nakamura")
    factories.player("aiko2", "5k", full_name="Aiko Nakamura")

    preview = upload(client, SPRING_CUP)

    aiko = next(m for m in preview.context["plan"].matches if m.username == "aiko1")
    assert aiko.conflict == "several players have this name (aiko1, aiko2)"
    assert aiko.namesakes == ("aiko2",)
    html = preview.content.decode()
    assert 'id="problems"' in html and 'id="import-button"' not in html
    assert "1 player marked below needs a username" in text_of(preview)

    field = player_field(preview, "aiko-nakamura")
    checked = client.post(URL, confirmation(preview, "check", **{field: "aiko2"}))
    assert 'id="problems"' not in checked.content.decode()
    row = next(r for r in checked.context["rows"] if r.match.username == "aiko2")
    assert (row.matched_by, row.match.namesakes) == ("your choice", ("aiko1",))

    stored = client.post(URL, confirmation(checked))
    assert stored.status_code == 302
    assert games_of("aiko2") == 4 and games_of("aiko1") == 0


def test_a_new_player_is_created_under_the_username_typed_for_them(client, vera):
    preview = upload(client, SPRING_CUP)
    field = player_field(preview, "anna-van-der-merwe")

    checked = client.post(URL, confirmation(preview, "check", **{field: "anna-vdm"}))
    row = next(r for r in checked.context["rows"] if r.match.username == "anna-vdm")
    assert row.matched_by == "NEW"
    client.post(URL, confirmation(checked))

    anna = Player.objects.get(username="anna-vdm")
    assert (anna.full_name, anna.entry_rank) == ("Anna Van der Merwe", parse_rank("5k"))
    assert not Player.objects.filter(username="anna-van-der-merwe").exists()


def test_a_typed_username_that_cannot_be_a_players_is_an_error_at_its_row(client, vera):
    factories.player("old", "5k", full_name="Old Record", active=False)
    preview = upload(client, SPRING_CUP)
    anna = player_field(preview, "anna-van-der-merwe")
    aiko = player_field(preview, "aiko-nakamura")

    checked = client.post(URL, confirmation(preview, "import", **{anna: "new", aiko: "old"}))

    errors = checked.context["choices"].errors
    assert errors[anna] == ["'new' is reserved: choose another username"]
    assert errors[aiko] == ["old is an inactive record (merged into another)"]
    assert nothing_stored(players=1)


def test_two_players_given_one_new_username_are_refused(client, vera):
    preview = upload(client, SPRING_CUP)
    anna = player_field(preview, "anna-van-der-merwe")
    aiko = player_field(preview, "aiko-nakamura")

    checked = client.post(URL, confirmation(preview, "import", **{anna: "same", aiko: "same"}))

    conflicts = [m.conflict for m in checked.context["plan"].matches if m.conflict]
    assert conflicts == ["the username 'same' is also chosen for line 13"]
    assert 'id="import-button"' not in checked.content.decode()
    assert nothing_stored()


def test_an_opengotha_file_is_recognised_from_its_content(client, vera):
    preview = upload(client, SPRING_CUP_XML, name="spring.xml")

    assert preview.context["file_format"] == "OpenGotha XML"
    assert preview.context["info"].code == "spring-cup"
    client.post(URL, confirmation(preview))
    assert Game.objects.count() == 4
    assert set(Game.objects.values_list("time_minutes", flat=True)) == {40}


def test_why_a_files_class_is_what_it_is_is_said_in_the_pages_language(client, vera, monkeypatch):
    """The class's reason is the engine's Message, its parts Messages too: the page
    translates each (the catalogue's French, here a stand-in)."""
    from players import translated

    def french(message):
        return {
            "class %(letter)s: %(details)s (%(needs)s)": "classe %(letter)s\u00a0: %(details)s",
        }.get(message, message.replace("basic time", "temps de base"))

    monkeypatch.setattr(translated, "gettext", french)

    preview = upload(client, SPRING_CUP_XML, name="spring.xml")
    reason = " ".join(
        preview.content.decode().split('id="class-reason">')[1].split("</p>")[0].split()
    )

    assert reason.startswith("Classe ") and "temps de base 40 min" in reason
    assert "basic time" not in reason


def test_the_chosen_format_code_and_class_are_used(client, vera):
    preview = upload(client, SPRING_CUP, file_format="egd", code="spring-b", tournament_class="C")

    assert preview.context["info"].code == "spring-b"
    client.post(URL, confirmation(preview))
    assert Tournament.objects.get().egf_class == "C"
    assert Tournament.objects.get().code == "spring-b"


# --- storing ----------------------------------------------------------------------------------


def test_import_stores_the_tournament_new_players_and_games_at_once(client, vera):
    factories.player("jsmith", "3d", full_name="J. Smith", egd_pin="12345678")
    preview = upload(client, SPRING_CUP)

    response = client.post(URL, confirmation(preview))

    assert response.status_code == 302
    assert response["Location"] == "/tournaments/Spring-Cup-2024/"
    tournament = Tournament.objects.get()
    assert (tournament.name, tournament.egf_class, tournament.start_date, tournament.end_date) == (
        "Spring Cup 2024",
        "B",
        date(2024, 3, 2),
        date(2024, 3, 3),
    )
    assert tournament.games.count() == 6
    assert set(Player.objects.values_list("username", flat=True)) == {
        "jsmith",
        "thabo-ndlovu",
        "anna-van-der-merwe",
        "aiko-nakamura",
    }
    first = Game.objects.order_by("seq").first()
    assert (first.white.username, first.black.username, first.status, first.created_by) == (
        "jsmith",
        "thabo-ndlovu",
        "tournament",
        vera,
    )
    audit = AuditEntry.objects.filter(user=vera)
    assert {"tournament_create", "player_create", "games_import"} <= set(
        audit.values_list("action", flat=True)
    )
    assert audit.get(action="games_import").summary == "spring.h9: 6 games, 0 adjustments"
    assert set(RecomputeState.objects.values_list("dirty_from", flat=True)) == {date(2024, 3, 2)}
    page = client.get(response["Location"])
    assert "Imported 6 games and 3 new players" in page.content.decode()


def test_a_confirmation_is_for_the_plan_it_was_shown(client, vera):
    preview = upload(client, SPRING_CUP)
    # Meanwhile someone adds Anna: the file's Anna is now her, not a new player.
    factories.player("anna", "5k", full_name="Anna Van der Merwe")

    response = client.post(URL, confirmation(preview))

    assert 'id="plan-changed"' in response.content.decode()
    assert nothing_stored(players=1)
    row = next(r for r in response.context["rows"] if r.match.username == "anna")
    assert row.matched_by == "by exact name"
    client.post(URL, confirmation(response))
    assert Game.objects.filter(white__username="anna").exists()


def test_the_file_sent_back_is_read_again_not_trusted(client, vera):
    preview = upload(client, SPRING_CUP)
    data = confirmation(preview)

    response = client.post(URL, {**data, "content": data["content"][:-8]})

    assert response.status_code == 200
    assert "The file did not come back intact: upload it again." in response.content.decode()
    assert nothing_stored()


def test_a_tournament_on_file_with_games_needs_another_code_then_duplicates_a_tick(client, vera):
    client.post(URL, confirmation(upload(client, SPRING_CUP)))
    assert Game.objects.count() == 6

    again = upload(client, SPRING_CUP)
    assert again.context["plan"].games_on_file == 6
    assert "is already on file with 6 games" in text_of(again)
    assert 'id="import-button"' not in again.content.decode()

    renamed = client.post(URL, confirmation(again, "check", code="spring-again"))
    assert 'id="import-button"' in renamed.content.decode()
    refused = client.post(URL, confirmation(renamed))
    assert refused.status_code == 200
    assert len(refused.context["duplicates"]) == 6
    assert "is already on file as game" in refused.context["duplicates"][0]
    assert Game.objects.count() == 6

    stored = client.post(URL, confirmation(refused, save_duplicates="on"))
    assert stored.status_code == 302
    assert Tournament.objects.get(code="spring-again").games.count() == 6


def test_a_file_imported_again_after_a_void_names_the_line_that_matches_the_voided_game(
    client, vera
):
    client.post(URL, confirmation(upload(client, SPRING_CUP)))
    voided = Game.objects.get(round=1, white__username="john-smith")
    game_void(user=vera, game_id=voided.pk, version=voided.version, reason="never played")

    again = upload(client, SPRING_CUP)
    assert again.context["already_imported"] == 5  # the valid ones
    assert again.context["voided_of_the_tournament"] == 1
    [said] = again.context["duplicates_voided"]
    assert said.game_id == voided.pk
    today = timezone.localdate()
    assert said == (
        f"line 11 (round 1, 2024-03-02, john-smith - thabo-ndlovu, winner W) matches game "
        f"{voided.pk}, voided on {today} by {vera.username} (reason: never played): importing "
        f"it stores it again as a new game that counts; game {voided.pk} stays voided"
    )
    assert said in text_of(again)
    assert "1 more matches a game of it voided since" in text_of(again)
    assert "1 matches a game voided on this site" in text_of(again)


def test_a_line_matching_a_voided_game_needs_the_tick_and_leaves_the_void_as_it_is(client, vera):
    client.post(URL, confirmation(upload(client, SPRING_CUP)))
    voided = Game.objects.get(round=1, white__username="john-smith")
    game_void(user=vera, game_id=voided.pk, version=voided.version, reason="never played")
    renamed = client.post(URL, confirmation(upload(client, SPRING_CUP), "check", code="again"))

    refused = client.post(URL, confirmation(renamed))
    assert refused.status_code == 200
    assert [w.game_id for w in refused.context["duplicates_voided"]] == [voided.pk]
    assert not Tournament.objects.filter(code="again").exists()

    stored = client.post(URL, confirmation(refused, save_duplicates="on"))
    assert stored.status_code == 302
    assert Tournament.objects.get(code="again").games.valid().count() == 6
    voided.refresh_from_db()
    assert (voided.is_void, voided.void_reason) == (True, "never played")


def test_a_line_like_a_valid_game_is_not_also_said_to_match_a_voided_one(client, vera):
    client.post(URL, confirmation(upload(client, SPRING_CUP)))
    voided = Game.objects.get(round=1, white__username="john-smith")
    game_void(user=vera, game_id=voided.pk, version=voided.version, reason="typed twice")
    renamed = client.post(URL, confirmation(upload(client, SPRING_CUP), "check", code="again"))
    client.post(URL, confirmation(client.post(URL, confirmation(renamed)), save_duplicates="on"))
    assert Game.objects.valid().count() == 11  # 5 + 6: line 11 stored again, valid

    third = upload(client, SPRING_CUP)
    assert third.context["duplicates_voided"] == []
    assert len(third.context["duplicates_on_file"]) == 6


def test_a_file_dated_in_the_future_is_refused_at_the_preview_with_one_message(client, vera):
    tomorrow = timezone.localdate() + timedelta(days=1)
    text = SPRING_CUP.replace("2024-03-02,2024-03-03", f"{tomorrow},{tomorrow}")

    preview = upload(client, text)

    assert preview.status_code == 200
    assert preview.context["plan"].problems == [
        f"the file is dated {tomorrow} to {tomorrow} (its DT header): {tomorrow} is in the "
        f"future; a tournament is accepted from 1900-01-01 to today ({timezone.localdate()}): "
        "correct the file's dates and import it again"
    ]
    assert "Import 6 games" not in text_of(preview)
    response = client.post(URL, confirmation(preview))  # a confirmation forced through
    assert "store_errors" not in response.context
    assert nothing_stored()


def test_a_file_dated_year_one_is_refused_at_the_preview_with_one_message(client, vera):
    text = SPRING_CUP.replace("2024-03-02,2024-03-03", "0001-01-01,0001-01-02")

    preview = upload(client, text)

    problems = preview.context["plan"].problems
    assert problems == [
        "the file is dated 0001-01-01 to 0001-01-02 (its DT header): 0001-01-01 is before "
        "1900-01-01, the earliest date a game can have; a tournament is accepted from "
        f"1900-01-01 to today ({timezone.localdate()}): correct the file's dates and import "
        "it again"
    ]
    assert problems[0] in text_of(preview)
    client.post(URL, confirmation(preview))
    assert nothing_stored()


def test_an_opengotha_file_with_absurd_dates_names_its_opengotha_dates(client, vera):
    text = SPRING_CUP_XML.replace(
        'beginDate="2024-03-02" endDate="2024-03-03"', 'beginDate="0001-01-01" endDate="0001-01-02"'
    )

    preview = upload(client, text, name="spring.xml")

    [problem] = preview.context["plan"].problems
    assert problem.startswith(
        "the file is dated 0001-01-01 to 0001-01-02 (the OpenGotha dates (beginDate, endDate))"
    )
    assert nothing_stored()


def test_a_tournament_of_the_seventies_imports_into_a_club_with_no_games(client, vera):
    text = SPRING_CUP.replace("2024-03-02,2024-03-03", "1979-06-02,1979-06-03")
    preview = upload(client, text)
    assert preview.context["plan"].problems == []

    client.post(URL, confirmation(preview))

    assert Game.objects.filter(date__year=1979).count() == 6


def test_a_tournament_added_without_games_receives_the_files_games(client, vera):
    factories.tournament("Spring-Cup-2024", "Our spring cup", egf_class="A")
    preview = upload(client, SPRING_CUP)

    assert 'id="tournament-on-file"' in preview.content.decode()
    client.post(URL, confirmation(preview))
    tournament = Tournament.objects.get()
    assert (tournament.name, tournament.games.count()) == ("Our spring cup", 6)


# --- files that cannot be imported -------------------------------------------------------------


def test_a_broken_file_shows_its_errors_with_line_numbers_and_stores_nothing(client, vera):
    broken = SPRING_CUP.replace("   2-   1=/b0", "   2+   1=/b0").replace(
        "2024-03-03]", "2024-02-03]"
    )

    response = upload(client, broken, name="broken.h9")

    assert response.status_code == 200
    errors = [(e.line, e.column) for e in response.context["file_errors"]]
    assert errors == [(4, "DT")]
    text = text_of(response)
    assert "broken.h9 has 1 error; nothing was stored." in text
    assert "4 DT the end date 2024-02-03 is before the start 2024-03-02" in text
    assert nothing_stored()

    pairing = upload(client, SPRING_CUP.replace("   2-   1=/b0", "   2+   1=/b0"))
    assert [(e.line, e.column) for e in pairing.context["file_errors"]] == [(12, "round 2")]


def test_a_file_that_is_not_a_tournament_file_is_refused(client, vera):
    response = upload(client, "<html><body>hello</body></html>", name="page.html")

    assert [e.message for e in response.context["file_errors"]] == [
        "not an OpenGotha file: the root element is not <Tournament>"
    ]
    assert nothing_stored()


def test_a_binary_file_is_refused_as_not_a_tournament_file(client, vera):
    noise = random.Random(16).randbytes(200_000)

    response = upload(client, noise, name="photo.h9")

    assert response.context["form"].errors["file"] == [
        "This is not a tournament file (it holds binary data): upload an EGD "
        "tournament result file (h9, h4…) or an OpenGotha XML file, as text."
    ]
    assert "players" not in response.content.decode()
    assert nothing_stored()


def test_an_upload_over_the_limit_is_refused_with_the_limit(client, vera):
    too_big = SPRING_CUP.encode() + b";" * MAX_UPLOAD_BYTES

    response = upload(client, too_big)

    assert response.context["form"].errors["file"] == [
        "The file is 5.0 MB; the limit is 5 MB. Tournament files are far smaller: "
        "is this the right file?"
    ]
    assert nothing_stored()


def test_readers_may_not_import(client):
    client.force_login(factories.user("rita"))

    assert client.get(URL).status_code == 403
    assert upload(client, SPRING_CUP).status_code == 403
    assert nothing_stored()


def test_a_tournament_too_big_for_a_field_each_gets_fields_for_those_who_need_a_look(
    client, vera, settings
):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 22  # room for two players' fields
    factories.player("jsmith", "3d", full_name="J. Smith", egd_pin="12345678")
    factories.player("thabo-ndlovu", "1k", full_name="T. Ndlovu")

    preview = upload(client, SPRING_CUP)

    editable = {row.match.username for row in preview.context["rows"] if row.editable}
    assert editable == {"anna-van-der-merwe", "aiko-nakamura"}
    html = preview.content.decode()
    assert html.count('class="form-control form-control-sm') == 2
    assert client.post(URL, confirmation(preview)).status_code == 302
    assert Game.objects.filter(white__username="jsmith").exists()


# --- queries -----------------------------------------------------------------------------------


def test_the_preview_takes_a_fixed_number_of_queries(client, vera, django_assert_max_num_queries):
    for number in range(40):
        factories.player(f"member-{number}", "10k", full_name=f"Member {number}")
    with django_assert_max_num_queries(12):
        preview = upload(client, SPRING_CUP)
    with django_assert_max_num_queries(16):
        client.post(URL, confirmation(preview, "check"))


def rounds_h9(rounds: int, dates: str) -> str:
    """An h-file of two new players meeting ``rounds`` times, dated ``dates``."""
    results = " ".join("2+/w0" if r % 2 else "2-/b0" for r in range(1, rounds + 1))
    theirs = " ".join("1-/b0" if r % 2 else "1+/w0" for r in range(1, rounds + 1))
    return (
        f"; EV[Marathon]\n; DT[{dates}]\n; KM[6.5]\n;\n"
        f"   1 Marathonone Given 10k ZA CTGC 1 0 {results}\n"
        f"   2 Marathontwo Given 10k ZA CTGC 1 0 {theirs}\n"
    )


def test_a_file_giving_one_date_to_more_rounds_than_a_day_holds_is_said_in_the_preview(
    client, vera
):
    one_day = text_of(upload(client, rounds_h9(6, "2024-03-02,2024-03-02")))
    assert (
        "The file gives one date, 2024-03-02, for 6 rounds: all 6 games are dated that day"
    ) in one_day
    assert "The file gives one date" not in text_of(
        upload(client, rounds_h9(6, "2024-03-02,2024-03-03"))
    )
    assert "The file gives one date" not in text_of(
        upload(client, rounds_h9(5, "2024-03-02,2024-03-02"))
    )
    assert nothing_stored()


def test_the_one_date_warning_is_said_in_the_pages_language(client, vera, monkeypatch):
    """The warning is the engine's Message, so the page translates its template and puts
    its values back (the catalogue's French, here a stand-in)."""
    from players import translated

    def french(message):
        if message.startswith("The file gives one date, %(day)s"):
            return "Le fichier donne une seule date, %(day)s, pour %(rounds)s rondes"
        return message

    monkeypatch.setattr(translated, "gettext", french)

    one_day = text_of(upload(client, rounds_h9(6, "2024-03-02,2024-03-02")))

    assert "Le fichier donne une seule date, 2024-03-02, pour 6 rondes" in one_day
    assert "The file gives one date" not in one_day


def league_h9(players: int, code: str) -> str:
    """An h-file of one round between new players: 1 beats 2, 3 beats 4, ..."""
    lines = [f"; EV[{code}]", "; DT[2024-03-02,2024-03-02]", "; KM[6.5]", ";"]
    for number in range(1, players + 1):
        opponent, result = (number + 1, "+/w0") if number % 2 else (number - 1, "-/b0")
        name = f"{code.replace('-', '')}{number:04d} Given"
        lines.append(f"{number:4d} {name} 10k ZA CTGC 1 0 {opponent}{result}")
    return "\n".join(lines) + "\n"


def test_importing_takes_the_same_queries_for_ten_new_players_or_sixty(client, vera):
    queries = []
    # League-0 first: the first import into an empty club skips the checks that look at
    # games already on file (a date far from a player's other games).
    for players, code in ((10, "League-0"), (10, "League-A"), (60, "League-B")):
        preview = upload(client, league_h9(players, code), code=code)
        with CaptureQueriesContext(connection) as captured:
            response = client.post(URL, confirmation(preview))
        assert response.status_code == 302
        queries.append(len(captured))
    assert Tournament.objects.get(code="League-B").games.count() == 30
    assert Tournament.objects.get(code="League-B").player_count == 60
    assert AuditEntry.objects.filter(action="player_create").count() == 10 + 10 + 60
    # None per player or game; SQLite's limit on a statement's parameters splits the
    # bulk insert of 60 players' many columns in two.
    assert queries[2] - queries[1] <= 1


# --- a real file -------------------------------------------------------------------------------


@pytest.mark.skipif(
    not EGC2013_H9.is_file(),
    reason=f"{EGC2013_H9} not found: the real files stay in ../shared/data "
    "(set CLUBRATING_SHARED_DATA to read them elsewhere)",
)
def test_the_egc2013_h_file_previews_and_imports(client, vera):
    factories.player("fan", "7d", full_name="Hui Fan")

    preview = upload(client, EGC2013_H9.read_bytes(), name="EGC2013.h9")

    plan = preview.context["plan"]
    assert (len(plan.file.records), len(plan.matches), len(plan.new_players)) == (2226, 594, 593)
    assert plan.problems == []
    assert next(m for m in plan.matches if m.username == "fan").how == "name"
    response = client.post(URL, confirmation(preview))
    assert response.status_code == 302
    assert Tournament.objects.get().games.count() == 2226
    assert Player.objects.count() == 594


@pytest.mark.skipif(
    not EGC2013_H9.is_file(),
    reason=f"{EGC2013_H9} not found: the real files stay in ../shared/data "
    "(set CLUBRATING_SHARED_DATA to read them elsewhere)",
)
@pytest.mark.parametrize(("language", "games"), [("en", "2,226"), ("fr", "2\u00a0226")])
def test_the_preview_groups_its_count_of_games_as_its_import_button_does(
    client, vera, language, games
):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language

    preview = upload(client, EGC2013_H9.read_bytes(), name="EGC2013.h9")

    page = preview.content.decode()
    assert re.search(rf'id="games-to-store">{games}\s*</dd>', page)
    assert f"{games} " in re.search(r'<button[^>]*value="import"[^>]*>([^<]*)<', page).group(1)


@pytest.mark.skipif(
    not EGC2013_H9.is_file(),
    reason=f"{EGC2013_H9} not found: the real files stay in ../shared/data "
    "(set CLUBRATING_SHARED_DATA to read them elsewhere)",
)
def test_the_imported_tournaments_page_groups_its_counts_in_the_readers_language(client, vera):
    preview = upload(client, EGC2013_H9.read_bytes(), name="EGC2013.h9")
    client.post(URL, confirmation(preview))
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "fr"

    page = client.get("/tournaments/EGC2013main/").content.decode()

    counts = re.search(r'id="tournament-counts">\s*([^<]*?)\s*<', page).group(1)
    assert counts == "2\u00a0226 · 589"
