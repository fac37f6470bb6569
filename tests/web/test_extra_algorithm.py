"""A new algorithm needs its module and one line in the registry, nothing else: each
defined here, added to ``algorithms.ALGORITHMS`` and to the maintained algorithms, is on
the rating list, the log page (its explanations and chart), the lab, the calculator,
``python -m ratings algorithms`` and the API.

Two kinds: a per-game algorithm with float values (net wins), and an integer-valued one
whose change is a product of factors, with its own value label and status factors
(stakes), the kind only SAGC was before."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from fractions import Fraction

import pytest

from players.services.games import record_sheet_submit
from ratings.engine import algorithms
from ratings.engine.base import Algorithm, HistoryRow, PlayerState, RatingState
from ratings.engine.cli import main
from ratings.engine.description import (
    FormulaFactor,
    Matchup,
    RankScale,
    StatusFactors,
    ValueScale,
    logistic,
)
from ratings.engine.explanation import Step, StoredChange
from ratings.engine.ranks import Rank
from ratings.engine.records import Colour, Entry, GameRecord, Status, Winner
from ratings.engine.rows import adjustment_row, game_row
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.pages import page_html

pytestmark = pytest.mark.django_db

TITLE = "Net wins (test algorithm)"


@dataclass(frozen=True)
class NetWinsParams:
    points_per_win: int = 1


class NetWins(Algorithm[PlayerState]):
    """A player's value is their wins minus their losses; a reset sets it."""

    name = "net-wins"
    title = TITLE
    params_type = NetWinsParams
    value_scale = ValueScale("net-wins", "Count of net wins")
    factor_labels = {"points_per_win": "Points a win (net wins)"}
    prediction_note = "The side with more net wins is favoured, 1 / (1 + e^-(Vw - Vb))."

    def new_player(self, entry: Entry) -> PlayerState:
        return PlayerState(rank=entry.rank, value=0.0)

    def predict_white(self, matchup: Matchup) -> float:
        return logistic(matchup.white.value - matchup.black.value)

    def rate_unit(
        self, state: RatingState[PlayerState], unit: Sequence[GameRecord]
    ) -> list[HistoryRow]:
        (record,) = unit
        if record.is_adjustment:
            return [reset(state, record, float(record.value or 0))]
        rows = []
        points = self.params.points_per_win
        for colour, player, other, result in sides(state, record):
            change = points * result
            before = player.value
            player.value = before + change
            player.games += 1
            rows.append(
                game_row(
                    record,
                    colour=colour,
                    opponent_rank=other.rank,
                    rank_before=player.rank,
                    value_before=before,
                    change=change,
                    rank_after=player.rank,
                    value_after=player.value,
                    factors={"points_per_win": points},
                )
            )
        return rows


def reset(state: RatingState[PlayerState], record: GameRecord, value: float) -> HistoryRow:
    """A committee reset of the player to ``value`` (and the rank it names)."""
    player = state.player(record.white)
    before, rank_before = player.value, player.rank
    player.value = value
    player.rank = record.white_rank or player.rank
    return adjustment_row(
        record,
        rank_before=rank_before,
        value_before=before,
        change=player.value - before,
        rank_after=player.rank,
        value_after=player.value,
        factors={"adjustment": True},
    )


def sides(state: RatingState[PlayerState], record: GameRecord):
    """Each side of a game: its colour, its player's state, the opponent's, and its
    result (1 a win, -1 a loss, 0 a jigo)."""
    for colour, name, opponent in (
        (Colour.WHITE, record.white, record.black),
        (Colour.BLACK, record.black, record.white),
    ):
        won = record.winner is not None and record.winner.value == colour.value
        result = 0 if record.winner is Winner.JIGO else (1 if won else -1)
        yield colour, state.player(name), state.player(opponent), result


STAKES_TITLE = "Stakes (test algorithm)"
STAKES_WEIGHTS = StatusFactors(
    "W",
    {
        Status.FREE: Fraction(0),
        Status.NORMAL: Fraction(1),
        Status.TOURNAMENT: Fraction(2),
        Status.INTERNET: Fraction(1, 2),
    },
)


@dataclass(frozen=True)
class StakesParams:
    stake: int = 10


class Stakes(Algorithm[PlayerState]):
    """A whole number of points a rank: a game's change is S x W x R, the stake, the
    weight of the game's status and the result (+1, -1, 0 for a jigo), rounded half
    away from zero; 100 points take a player up a rank."""

    name = "stakes"
    title = STAKES_TITLE
    params_type = StakesParams
    integer_values = True
    value_label = "stake points"
    value_scale = ValueScale("stakes", "Stake points (100 a rank)")
    rank_scale = RankScale("points", bottom_of_1d=0.0)
    formula = (
        FormulaFactor("S", "stake", "stake"),
        FormulaFactor("W", "status weight", "weight"),
        FormulaFactor("R", "result", "result"),
    )
    status_factors = STAKES_WEIGHTS
    prediction_note = "More stake points favour a side, 1 / (1 + e^-((Vw - Vb) / 100))."

    def new_player(self, entry: Entry) -> PlayerState:
        return PlayerState(rank=entry.rank, value=0)

    def explain(self, change: StoredChange) -> tuple[Step, ...]:
        """The generic explanation, then a step of its own kind, which no page words."""
        steps = super().explain(change)
        if change.factors.get("weight") == "1/2":
            return (*steps, Step("half_stake", {"weight": "1/2"}))
        return steps

    def predict_white(self, matchup: Matchup) -> float:
        return logistic((matchup.white.value - matchup.black.value) / 100)

    def rate_unit(
        self, state: RatingState[PlayerState], unit: Sequence[GameRecord]
    ) -> list[HistoryRow]:
        (record,) = unit
        if record.is_adjustment:
            return [reset(state, record, int(record.value or 0))]
        weight = STAKES_WEIGHTS.by_status[record.status]
        rows = []
        for colour, player, other, result in sides(state, record):
            product = self.params.stake * weight * result
            change = int(product + (Fraction(1, 2) if product >= 0 else Fraction(-1, 2)))
            before, rank_before = player.value, player.rank
            player.value = before + change
            if player.value >= 100:
                player.rank, player.value = Rank(player.rank.stones + 1), player.value - 100
            player.games += 1
            rows.append(
                game_row(
                    record,
                    colour=colour,
                    opponent_rank=other.rank,
                    rank_before=rank_before,
                    value_before=before,
                    change=change,
                    rank_after=player.rank,
                    value_after=player.value,
                    factors={
                        "stake": str(self.params.stake),
                        "weight": str(weight),
                        "result": str(result),
                        "product": str(product),
                    },
                )
            )
        return rows


@pytest.fixture
def net_wins(monkeypatch, settings):
    monkeypatch.setattr(algorithms, "ALGORITHMS", (*algorithms.ALGORITHMS, NetWins, Stakes))
    settings.RATINGS_ALGORITHMS = ["sagc", "net-wins", "stakes"]


@pytest.fixture
def club(net_wins, vera, django_capture_on_commit_callbacks):
    ann, ben = factories.player("ann", "3k"), factories.player("ben", "6k")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", date(2024, 1, 10)),
            factories.game(ben, ann, "W", date(2024, 1, 17)),
            factories.game(ann, ben, "B", date(2024, 2, 7)),
            factories.game(ann, ben, "W", date(2024, 2, 14), status="internet"),
        ],
    )
    # as the site does: the lab's task runs once the recompute commits
    with django_capture_on_commit_callbacks(execute=True):
        recompute_pending()
    return ann, ben


def test_it_is_on_the_rating_list(client, club):
    html = client.get("/?algorithm=net-wins").content.decode()

    assert TITLE in html
    assert 'href="/players/ben/"' in html


def test_it_is_on_the_log_page_with_its_changes_and_factor_labels(client, club):
    response = client.get("/players/ben/?algorithm=net-wins")

    assert response.status_code == 200
    html = response.content.decode()
    assert TITLE in html
    assert "Points a win (net wins)" in html  # its own factor label, in the explanation


def test_it_is_in_the_lab_with_its_prediction_note(client, club):
    html = client.get("/lab/?algorithm=net-wins").content.decode()

    assert TITLE in html
    assert NetWins.prediction_note[:40] in html


def test_it_is_in_the_calculator_with_its_value_scale(client, club):
    response = client.get("/calculator/", {"white_player": "ann", "black_player": "ben"})

    assert response.status_code == 200
    html = response.content.decode()
    assert TITLE in html
    assert "Count of net wins" in html  # the value scale a typed value may be in


def test_it_is_listed_by_the_command_line(net_wins, capsys):
    assert main(["algorithms"]) == 0

    out = capsys.readouterr().out
    assert f"net-wins: {TITLE}" in out
    assert "points_per_win (int) = 1" in out


def test_it_is_in_the_api_with_the_players_values(client, club):
    index = client.get("/api/v1/").json()
    player = client.get("/api/v1/players/ben/").json()
    history = client.get(
        "/api/v1/players/ben/history/", {"algorithm": "net-wins", "order": "oldest"}
    )

    assert "net-wins" in str(index)
    assert "net-wins" in str(player)
    assert history.status_code == 200
    assert [row["value_after"] for row in history.json()["results"]] == [-1, 0, 1, 0]


def how_text(html: str) -> list[str]:
    """The text of each "how was this computed" panel of a page."""
    panels = re.findall(r'<div class="how-computed small">(.*?)</div>\s*</(?:td|div)>', html, re.S)
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", panel)).strip() for panel in panels]


def test_an_integer_valued_one_is_on_the_rating_list_under_its_value_label(client, club):
    html = page_html(client, "/?algorithm=stakes")

    assert STAKES_TITLE in html
    assert re.search(r"<th[^>]*>\s*(<a[^>]*>)?\s*Stake points", html)
    assert re.search(r'href="/players/ben/".*?data-label="Stake points">5</td>', html, re.S)


def test_an_integer_valued_one_explains_its_product_and_shows_its_status_factors(client, club):
    html = page_html(client, "/players/ben/?algorithm=stakes")

    headers = re.findall(r"<th[^>]*>\s*(.*?)\s*</th>", html[html.index('id="record-sheet"') :])
    assert headers[6:9] == ["W", "Change", "New stake points"]  # its status factor column
    assert ">0.5</td>" in html  # the internet game's weight, not its status
    # the newest game first: an internet loss, 10 x 0.5 x -1 = -5
    assert how_text(html)[0] == (
        "10 S \u00d7 0.5 W \u00d7 \u22121 R = \u22125 product \u2192 \u22125 change"
        " Half stake: weight 0.5."  # its own kind of step, shown with no page edited
    )
    assert 'aria-label="S \u00d7 W \u00d7 R"' in html


def test_an_integer_valued_one_is_charted_on_its_rank_scale(client, club):
    html = page_html(client, "/players/ben/?algorithm=stakes")

    chart = html[html.index('id="rating-chart"') :]
    assert "2024-01-10: 6k, \u221210" in chart  # a point: the rank, then the whole value
    assert "2024-02-14: 6k, 5" in chart


def test_an_integer_valued_one_is_in_the_lab_and_the_calculator(client, club):
    lab = page_html(client, "/lab/?algorithm=stakes")
    calculator = page_html(client, "/calculator/?white_player=ann&black_player=ben")

    assert STAKES_TITLE in lab and Stakes.prediction_note[:40] in lab
    assert STAKES_TITLE in calculator
    assert "Stake points (100 a rank)" in calculator  # its value scale
    card = calculator[calculator.index('id="whatif-stakes"') :]
    assert 'aria-label="S \u00d7 W \u00d7 R"' in card  # its product, explained


def test_an_integer_valued_one_is_in_the_api_with_whole_values(client, club):
    index = client.get("/api/v1/").json()
    history = client.get("/api/v1/players/ben/history/", {"algorithm": "stakes", "order": "oldest"})

    listed = {item["name"]: item for item in index["algorithms"]}
    assert listed["stakes"]["values"] == "integer"
    assert history.status_code == 200
    assert [row["value_after"] for row in history.json()["results"]] == [-10, 0, 10, 5]
    assert all(type(row["change"]) is int for row in history.json()["results"])


def test_an_integer_valued_one_is_listed_by_the_command_line(net_wins, capsys):
    assert main(["algorithms"]) == 0

    out = capsys.readouterr().out
    assert f"stakes: {STAKES_TITLE}" in out
    assert "stake (int) = 10" in out
