"""/calculator/: the what-if calculator. Two players (their current states) or typed
ranks, the game's conditions, and each algorithm's change both ways."""

import re
from datetime import date
from fractions import Fraction

import pytest

from players.public.calculator_forms import CalculatorForm
from players.services.games import record_sheet_submit
from ratings.algorithms import algorithms as algorithms_shown
from ratings.calculator import results as calculator
from ratings.models import RatingHistory
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.pages import page_html

ALGORITHMS = ["sagc", "egf-2021", "french", "anchor", "gcr"]

pytestmark = [pytest.mark.django_db, pytest.mark.algorithms(*ALGORITHMS)]


@pytest.fixture
def club(vera):
    """ann (3k) has met ben (6k) twice in her last games, cat (12k) once."""
    ann = factories.player("ann", "3k")
    ben = factories.player("ben", "6k")
    cat = factories.player("cat", "12k")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", date(2024, 1, 10), handicap=3),
            factories.game(ann, cat, "B", date(2024, 1, 17), handicap=9),
            factories.game(ben, ann, "B", date(2024, 2, 14)),
        ],
    )
    recompute_pending()
    return ann, ben, cat


def card(html: str, algorithm: str) -> str:
    section = html[html.index(f'id="whatif-{algorithm}"') :]
    return section[: section.index("</section>")]


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def test_it_shows_the_form_with_the_players_to_choose_from(client, club):
    response = client.get("/calculator/")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="calculator-form"' in html
    assert '<datalist id="calculator-player-options">' in html
    assert '<option value="ann">' in html
    assert 'list="calculator-player-options"' in html
    assert "calculator-results" not in html.split('id="calculator-form"')[1].split("</form>")[1]


def test_each_algorithm_gives_both_players_change_both_ways(client, club):
    html = client.get("/calculator/?white_player=ann&black_player=ben&handicap=3").content.decode()
    for name in ALGORITHMS:
        assert f'id="whatif-{name}"' in html
    sagc = text(card(html, "sagc"))
    assert "White ann" in sagc and "Black ben" in sagc
    assert "White wins" in sagc and "Black wins" in sagc
    assert "P(White wins)" in sagc
    assert "How each change is computed" in sagc
    assert "LF" in card(html, "sagc") and "OF" in card(html, "sagc")
    assert "rates all games at once" in text(card(html, "gcr"))


def test_the_next_real_game_changes_what_the_calculator_said(client, club, vera):
    """The calculator rates the game from the players' current states: playing it gives
    the same changes, SAGC's opponent factor included."""
    ann, ben, _cat = club
    form = CalculatorForm(
        {"white_player": "ann", "black_player": "ben", "handicap": "3"}, algorithms=ALGORITHMS
    )
    assert form.is_valid(), form.errors
    infos = algorithms_shown()
    said = {
        item.info.name: item
        for item in calculator.results(form.calculator_input(), infos, date(2024, 3, 1))
    }
    sagc = said["sagc"]
    assert (sagc.white.meetings, sagc.black.meetings) == (2, 2)
    assert sagc.outcomes[0].white.factors["opponent_factor"] == "4/5"

    record_sheet_submit(
        user=vera, games=[factories.game(ann, ben, "W", date(2024, 3, 1), handicap=3)]
    )
    recompute_pending()
    for name in ("sagc", "egf-2021", "french", "anchor"):
        played = RatingHistory.objects.filter(algorithm=name, date=date(2024, 3, 1))
        white_row, black_row = played.order_by("position")
        white_win = said[name].outcomes[0]
        assert (white_row.change, black_row.change) == (
            pytest.approx(float(white_win.white.change), abs=1e-9),
            pytest.approx(float(white_win.black.change), abs=1e-9),
        ), name


def test_it_says_the_opponent_factor_it_used(client, club):
    html = client.get("/calculator/?white_player=ann&black_player=ben").content.decode()
    note = text(card(html, "sagc"))
    assert "White met Black 2\u00d7, OF 0.8" in note
    assert "Black met White 2\u00d7, OF 0.8" in note
    first = client.get("/calculator/?white_player=ben&black_player=cat").content.decode()
    assert "White has not met Black, OF 1" in text(card(first, "sagc"))


def test_typed_ranks_start_as_new_players_and_a_value_goes_to_its_scale(client, club):
    html = client.get(
        "/calculator/?white_rank=5k&white_value=300&value_scale=sagc&black_rank=7k&handicap=2"
    ).content.decode()
    sagc = text(card(html, "sagc"))
    assert "White (White) 5k 300" in sagc
    assert "Black (Black) 7k 0" in sagc
    egf = text(card(html, "egf-2021"))
    assert "5k 1600" in egf  # the EGF start of a 5k: the SAGC index is not a GoR
    gor = client.get(
        "/calculator/?white_rank=5k&white_value=1650&value_scale=gor&black_rank=7k"
    ).content.decode()
    assert "4k 1650" in text(card(gor, "egf-2021"))  # a GoR of 1650 is a 4k's
    assert "5k \u2212500" in text(card(gor, "anchor"))  # the anchor start of a 5k


def test_a_value_an_algorithm_cannot_take_is_said_in_its_card(client, club):
    html = client.get(
        "/calculator/?white_rank=5k&white_value=12.5&value_scale=sagc&black_rank=7k"
    ).content.decode()
    assert "Cannot be rated: an SAGC index is a whole number" in text(card(html, "sagc"))
    assert "Cannot be rated" not in text(card(html, "egf-2021"))


def test_a_game_an_algorithm_does_not_rate_says_why(client, club):
    html = client.get(
        "/calculator/?white_player=ann&black_player=ben&board_size=9"
    ).content.decode()
    assert "Not rated: SAGC rates 19x19 games only" in text(card(html, "sagc"))
    assert "White wins" in text(card(html, "french"))  # the ladder rates small boards


def test_why_a_game_is_not_rated_is_said_in_the_readers_language(client, club):
    html = client.get(
        "/calculator/?white_player=ann&black_player=ben&board_size=13",
        HTTP_ACCEPT_LANGUAGE="fr",
    ).content.decode()

    assert "SAGC ne classe que les parties en 19x19, pas en 13x13" in text(card(html, "sagc"))
    assert "rates 19x19 games only" not in html


def test_komi_defaults_to_the_handicap_and_is_used_by_sagc(client, club):
    even = client.get("/calculator/?white_rank=5k&black_rank=7k").content.decode()
    assert "Effective handicap 0 (handicap 0, komi 6.5)" in card(even, "sagc")
    handicap = client.get("/calculator/?white_rank=5k&black_rank=7k&handicap=2").content.decode()
    assert "Effective handicap 2 (handicap 2, komi 0.5)" in card(handicap, "sagc")
    reverse = client.get("/calculator/?white_rank=5k&black_rank=7k&komi=-14").content.decode()
    assert "Effective handicap 2 (handicap 0, komi −14)" in card(reverse, "sagc")


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ("white_player=ann&white_rank=5k&black_rank=7k", "white_rank", "not both"),
        ("white_player=nobody&black_rank=7k", "white_player", "no player"),
        ("white_player=ann&black_player=ann", "black_player", "two different players"),
        ("black_rank=7k", "white_player", "Choose a player or type a rank"),
        ("white_value=5&black_rank=7k", "white_value", "A value needs a rank"),
        ("white_rank=5k&black_rank=7k&komi=0.3", "komi", "multiple of 0.5"),
        ("white_rank=0k&black_rank=7k", "white_rank", "not a rank"),
    ],
)
def test_bad_input_is_shown_at_its_field(client, club, query, field, message):
    response = client.get(f"/calculator/?{query}")
    assert response.status_code == 200
    form = response.context["form"]
    assert any(message in error for error in form.errors[field])
    assert response.context["results"] == []


def test_it_answers_in_a_fixed_number_of_queries(client, club, vera, django_assert_max_num_queries):
    with django_assert_max_num_queries(7) as few:
        page_html(client, "/calculator/?white_player=ann&black_player=ben")
    ann, _ben, cat = club
    record_sheet_submit(
        user=vera,
        games=[factories.game(ann, cat, "W", date(2024, 4, day)) for day in range(1, 15)],
    )
    recompute_pending()
    with django_assert_max_num_queries(len(few.captured_queries)):
        page_html(client, "/calculator/?white_player=ann&black_player=cat")


def test_the_form_parses_into_domain_values(club):
    ann, _ben, _cat = club
    form = CalculatorForm(
        {"white_player": "ann", "black_rank": "7k", "black_value": "40", "handicap": "2"},
        algorithms=ALGORITHMS,
    )
    assert form.is_valid(), form.errors
    asked = form.calculator_input()
    assert asked.white.player == ann
    assert (str(asked.black.rank), asked.black.value) == ("7k", 40.0)
    assert asked.komi == Fraction(1, 2)
    assert asked.value_algorithms == ("sagc",)  # the primary algorithm's scale
    assert (asked.status.value, asked.board_size) == ("normal", 19)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_on_a_phone_the_calculator_fits_the_screen(live_server, browser_page):
    from playwright.sync_api import expect

    ann, ben = factories.player("ann", "3k"), factories.player("ben", "6k")
    record_sheet_submit(
        user=factories.volunteer(), games=[factories.game(ann, ben, "W", date(2024, 1, 3))]
    )
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/calculator/")
    page.fill("#id_white_player", "ann")
    page.fill("#id_black_player", "ben")
    page.select_option("#id_handicap", "3")
    # The results page loaded whole: #whatif-sagc appears while the page is still being
    # read, before its text and the cards below it (whose width the last line measures).
    with page.expect_navigation():
        page.get_by_role("button", name="Calculate").click()
    expect(page.locator("#whatif-sagc")).to_contain_text("White wins")
    page.locator("#whatif-sagc summary").click()
    expect(page.locator("#whatif-sagc .how-computed").first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
