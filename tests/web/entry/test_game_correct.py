"""/games/<id>/ and /games/<id>/edit/: correct a game, back-date it, never overwrite a
change made meanwhile."""

import re
from datetime import date
from decimal import Decimal

import pytest

from players.models import AuditEntry, Game
from players.services.games import game_correct, game_void, record_sheet_submit
from players.web.numbers import value_text
from ratings.models import CurrentRating, RatingHistory, RatingSnapshot, RecomputeState
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.pages import page_html

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]


@pytest.fixture
def alice():
    return factories.player("alice", "5k")


@pytest.fixture
def bob():
    return factories.player("bob", "8k")


@pytest.fixture
def carol():
    return factories.player("carol", "12k")


@pytest.fixture
def games(vera, alice, bob, carol, django_capture_on_commit_callbacks):
    """Three games of one sheet, rated: alice beats bob twice, then loses to carol."""
    with django_capture_on_commit_callbacks(execute=True):
        result = record_sheet_submit(
            user=vera,
            games=[
                factories.game(alice, bob, "W", date(2024, 3, 1)),
                factories.game(alice, bob, "W", date(2024, 3, 8)),
                factories.game(alice, carol, "B", date(2024, 3, 15)),
            ],
        )
    return result.games


def edit_post(game: Game, **changes) -> dict:
    data = {
        "date": game.date.isoformat(),
        "white": game.white.username,
        "black": game.black.username,
        "handicap": str(game.handicap),
        "komi": str(game.komi),
        "winner": game.winner,
        "status": game.status,
        "comment": game.comment,
        "tournament": "",
        "round": str(game.round),
        "board_size": str(game.board_size),
        "time_minutes": "",
        "version": str(game.version),
    }
    data.update(changes)
    return data


def sagc_after(game: Game, player) -> float:
    return RatingHistory.objects.get(algorithm="sagc", game=game, player=player).value_after


def test_it_shows_the_game_with_its_ratings_audit_and_buttons(client, games):
    game = games[0]

    response = client.get(f"/games/{game.pk}/")

    assert response.status_code == 200
    html = response.content.decode()
    assert f"Game {game.pk}: alice \N{EN DASH} bob" in html
    assert f'href="/games/{game.pk}/edit/"' in html
    assert f'href="/games/{game.pk}/void/"' in html
    assert "SAGC done" in html
    # Its rows in every maintained algorithm's history (alice won +18 on SAGC), and its
    # audit entry.
    cells = re.sub(r"\s+", " ", html)
    assert '<td >SAGC</td> <td ><a href="/players/alice/">alice</a></td> <td >White</td>' in cells
    assert "<td >5k</td> <td >0</td> <td >+18</td> <td >18</td>" in cells
    assert cells.count("<td >SAGC</td>") == 2
    assert "Game entered" in html


def test_it_prefills_every_field_and_the_version(client, games):
    game = games[1]

    html = client.get(f"/games/{game.pk}/edit/").content.decode()

    assert 'name="date" value="2024-03-08"' in html
    assert 'name="white" value="alice"' in html
    assert 'name="black" value="bob"' in html
    assert 'name="komi" value="6.5"' in html
    assert re.search(r'<option value="W" selected>', html)
    assert 'name="version" value="1"' in html


def test_it_corrects_a_game_and_keeps_the_before_and_after(client, vera, games, carol):
    game = games[0]

    response = client.post(
        f"/games/{game.pk}/edit/",
        edit_post(game, black="carol", winner="B", komi="7.5", comment="result misread"),
    )

    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.pk}/"
    game.refresh_from_db()
    assert (game.black, game.winner, game.komi) == (carol, "B", Decimal("7.5"))
    assert game.comment == "result misread"
    assert game.version == 2
    entry = AuditEntry.objects.get(action="game_correct")
    assert entry.user == vera
    assert (entry.before["black"], entry.after["black"]) == ("bob", "carol")
    assert (entry.before["winner"], entry.after["winner"]) == ("W", "B")


def test_it_back_dates_a_game_and_the_later_rows_change(client, games, alice):
    first, _, loss = games
    before = sagc_after(first, alice)

    response = client.post(f"/games/{loss.pk}/edit/", edit_post(loss, date="2024-02-20"))

    assert response.status_code == 302
    loss.refresh_from_db()
    assert loss.date == date(2024, 2, 20)
    assert RecomputeState.objects.get(algorithm="sagc").dirty_from == date(2024, 2, 20)
    # What the task queued on commit does (this test's transaction never commits).
    recompute_pending()
    # The loss now comes first: alice meets bob from the demotion zone.
    assert sagc_after(first, alice) != before


def test_it_refuses_a_stale_version_and_shows_the_current_game(client, vera, games, carol):
    game = games[0]
    game_correct(
        user=vera,
        game_id=game.pk,
        version=1,
        changes=factories.game(game.white, game.black, "B", game.date),
    )

    response = client.post(
        f"/games/{game.pk}/edit/", edit_post(game, black="carol", comment="mine")
    )

    assert response.status_code == 200
    html = response.content.decode()
    assert (
        "This game was changed by someone else while you were editing; here is the current version."
        in html
    )
    game.refresh_from_db()
    assert (game.black.username, game.winner, game.version, game.comment) == ("bob", "B", 2, "")
    # The form now holds the current game and version; what was typed is listed beside it.
    assert 'name="version" value="2"' in html
    assert 'name="black" value="bob"' in html
    assert re.search(r"<th scope=\"row\">Black</th><td>bob</td><td>carol</td>", html)
    assert re.search(r"<th scope=\"row\">Winner</th><td>B \(Black\)</td><td>W \(White\)</td>", html)


def test_a_stale_correction_lists_the_game_now_and_as_typed_the_way_the_fields_show_them(
    client, vera, games
):
    game = games[0]
    changes = factories.game(
        game.white, game.black, "B", game.date, komi="0.5", status="tournament"
    )
    game_correct(user=vera, game_id=game.pk, version=1, changes=changes)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "fr"

    response = client.post(f"/games/{game.pk}/edit/", edit_post(game, komi="7,5"))

    differences = re.findall(
        r'<tr><th scope="row">([^<]*)</th><td>([^<]*)</td><td>([^<]*)</td></tr>',
        response.content.decode(),
    )
    # Labels and numbers as the French page writes them, not the stored codes.
    assert differences == [
        ("Komi", "0,5", "7,5"),
        ("Vainqueur", "B (Noir)", "W (Blanc)"),
        ("Statut", "Tournoi", "Normale"),
    ]


def test_it_shows_an_unknown_player_at_the_field(client, games):
    game = games[0]

    response = client.post(f"/games/{game.pk}/edit/", edit_post(game, white="zoe"))

    assert response.status_code == 200
    html = response.content.decode()
    assert re.search(
        r'<div id="div_id_white".*?no player &#x27;zoe&#x27; — add them first', html, re.S
    )
    game.refresh_from_db()
    assert game.version == 1


def test_it_shows_the_services_errors_at_their_field(client, games):
    game = games[0]

    response = client.post(f"/games/{game.pk}/edit/", edit_post(game, black="alice"))

    html = response.content.decode()
    assert re.search(r'<div id="div_id_black".*?a player cannot play themselves', html, re.S)
    game.refresh_from_db()
    assert game.black.username == "bob"


def test_it_does_not_edit_a_void_game(client, vera, games):
    game = games[0]
    game_void(user=vera, game_id=game.pk, version=1, reason="never played")

    response = client.post(f"/games/{game.pk}/edit/", edit_post(game, winner="B", version="2"))

    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.pk}/"
    game.refresh_from_db()
    assert game.winner == "W"


def test_it_answers_404_for_a_game_that_does_not_exist(client, vera):
    assert client.get("/games/999/").status_code == 404
    assert client.get("/games/999/edit/").status_code == 404


def test_a_new_date_years_from_the_players_other_games_is_saved_only_once_confirmed(
    client, vera, games
):
    game = games[2]  # alice - carol: carol has no other game, alice's are in March 2024

    asked = client.post(f"/games/{game.pk}/edit/", edit_post(game, date="2014-03-15"))
    confirmed = client.post(
        f"/games/{game.pk}/edit/", edit_post(game, date="2014-03-15", confirm_date="on")
    )

    html = asked.content.decode()
    field = re.search(r'<div id="div_id_date".*?</div>\s*</div>', html, re.S).group(0)
    assert "the new date: 2014-03-15 is more than a year before alice&#x27;s first game" in field
    assert 'name="confirm_date"' in html
    assert confirmed.status_code == 302
    game.refresh_from_db()
    assert game.date == date(2014, 3, 15)


def test_a_date_near_the_players_games_needs_no_confirmation(client, vera, games):
    game = games[2]

    response = client.post(f"/games/{game.pk}/edit/", edit_post(game, date="2024-03-10"))

    assert response.status_code == 302
    assert 'name="confirm_date"' not in client.get(f"/games/{game.pk}/edit/").content.decode()


@pytest.fixture
def uncoloured(vera, alice, bob, django_capture_on_commit_callbacks):
    """A tournament file's even game without colours, bob (listed second) the winner,
    komi -2.5 so that every number on its page can be negative; rated."""
    with django_capture_on_commit_callbacks(execute=True):
        result = record_sheet_submit(
            user=vera,
            games=[factories.game(alice, bob, "B", date(2024, 3, 1), komi=-2.5,
                                  colour_given=False)],
        )  # fmt: skip
    return result.games[0]


def test_the_game_page_says_the_file_gave_no_colour(client, uncoloured):
    html = client.get(f"/games/{uncoloured.pk}/").content.decode()
    cells = re.sub(r"\s+", " ", html)

    assert 'id="colour-not-given"' in html
    assert "White and Black below are the file's first and second player" in html
    assert "bob (stored as Black)" in html
    # The ratings table's Colour column, on each row (both players, every algorithm), and
    # GCR's standings around the game (both players)
    rows = RatingHistory.objects.filter(game=uncoloured).count()
    assert cells.count(">not given</span></td>") == rows + 2 > 2
    assert "<td >W</td>" not in cells and "<td >B</td>" not in cells


def test_the_correction_form_says_the_file_gave_no_colour(client, uncoloured):
    html = client.get(f"/games/{uncoloured.pk}/edit/").content.decode()

    assert 'id="colour-not-given"' in html
    assert "Saving them swapped, with other players or with a handicap" in html


def test_a_game_with_its_colours_says_nothing_of_them(client, games):
    assert 'id="colour-not-given"' not in page_html(client, f"/games/{games[0].pk}/")
    edit = page_html(client, f"/games/{games[0].pk}/edit/")
    assert 'id="colour-not-given"' not in edit


def test_the_game_page_writes_negative_numbers_with_the_minus_sign(client, uncoloured):
    html = client.get(f"/games/{uncoloured.pk}/").content.decode()
    cells = re.sub(r"\s+", " ", html)

    assert "0, \N{MINUS SIGN}2.5</dd>" in cells  # handicap, komi
    changes = [
        change
        for change in RatingHistory.objects.filter(game=uncoloured).values_list("change", flat=True)
        if change < 0
    ]
    assert changes, "the loser's rows have negative changes"
    numbers = re.findall(r"<td >([^<]*\d)</td>", cells)
    assert any(number.startswith("\N{MINUS SIGN}") for number in numbers)
    assert not any(re.match(r"-\d", number) for number in numbers)


def test_a_correction_that_changes_nothing_writes_nothing_and_says_so(client, games):
    game = games[0]
    dirty_before = list(RecomputeState.objects.values_list("algorithm", "dirty_from", "generation"))

    response = client.post(f"/games/{game.pk}/edit/", edit_post(game), follow=True)

    assert f"Nothing changed: game {game.pk} is as it was." in response.content.decode()
    game.refresh_from_db()
    assert game.version == 1
    assert not AuditEntry.objects.filter(action="game_correct").exists()
    assert (
        list(RecomputeState.objects.values_list("algorithm", "dirty_from", "generation"))
        == dirty_before
    )


def test_a_correction_of_the_comment_alone_is_written(client, games):
    game = games[0]

    client.post(f"/games/{game.pk}/edit/", edit_post(game, comment="seen on the sheet"))

    game.refresh_from_db()
    assert (game.version, game.comment) == (2, "seen on the sheet")
    assert AuditEntry.objects.filter(action="game_correct").count() == 1


def test_the_game_page_shows_gcrs_month_end_standings_around_the_game_and_now(
    client, vera, games, alice, bob, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        record_sheet_submit(user=vera, games=[factories.game(bob, alice, "W", date(2024, 4, 5))])
    march_end = RatingSnapshot.objects.get(algorithm="gcr", player=alice, date=date(2024, 3, 31))
    now = CurrentRating.objects.get(algorithm="gcr", player=alice)

    html = client.get(f"/games/{games[0].pk}/").content.decode()

    table = re.sub(r"\s+", " ", html[html.index('id="standings-around"') :])
    table = table[: table.index("</table>")]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table)[1:]
    alice_row = re.sub(r"<[^>]+>", "|", rows[0])
    assert [cell.strip() for cell in alice_row.split("|") if cell.strip()] == [
        "GCR",
        "alice",
        "White",
        "—",  # no month end before her first game
        f"{march_end.rank} · {value_text(march_end.value)} (2024-03-31)",
        f"{now.rank} · {value_text(now.value)}",
    ]
    assert len(rows) == 2 and "bob" in rows[1]
    assert "rate all games at once and keep no change per game" in html


@pytest.mark.algorithms("sagc", "egf-2021", "gcr")
def test_the_game_page_says_why_an_algorithm_did_not_rate_it_in_the_pages_language(
    client, vera, alice, bob
):
    game = factories.play(vera, factories.game(alice, bob, "W", date(2024, 1, 10), status="free"))[
        0
    ]
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "fr"

    html = page_html(client, f"/games/{game.pk}/")

    assert "les parties libres ne sont pas comptées par le GoR EGF" in html
    assert "free games are not rated" not in html
