"""A new algorithm needs its module and one line in the registry, nothing else: one
defined here, added to ``algorithms.ALGORITHMS`` and to the maintained algorithms, is on
the rating list, the log page, the lab, the calculator, ``python -m ratings algorithms``
and the API."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import pytest

from players.services.games import record_sheet_submit
from ratings.engine import algorithms
from ratings.engine.base import Algorithm, HistoryRow, PlayerState, RatingState
from ratings.engine.cli import main
from ratings.engine.description import Matchup, ValueScale, logistic
from ratings.engine.records import Colour, Entry, GameRecord, Winner
from ratings.engine.rows import adjustment_row, game_row
from ratings.recompute.run import recompute_pending
from tests import factories

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
            player = state.player(record.white)
            before, rank_before = player.value, player.rank
            player.value = float(record.value or 0)
            player.rank = record.white_rank or player.rank
            return [
                adjustment_row(
                    record,
                    rank_before=rank_before,
                    value_before=before,
                    change=player.value - before,
                    rank_after=player.rank,
                    value_after=player.value,
                    factors={"adjustment": True},
                )
            ]
        rows = []
        points = self.params.points_per_win
        for colour, name, opponent in (
            (Colour.WHITE, record.white, record.black),
            (Colour.BLACK, record.black, record.white),
        ):
            player, other = state.player(name), state.player(opponent)
            won = record.winner is not None and record.winner.value == colour.value
            change = 0 if record.winner is Winner.JIGO else (points if won else -points)
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


@pytest.fixture
def net_wins(monkeypatch, settings):
    monkeypatch.setattr(algorithms, "ALGORITHMS", (*algorithms.ALGORITHMS, NetWins))
    settings.RATINGS_ALGORITHMS = ["sagc", "net-wins"]


@pytest.fixture
def club(net_wins, vera, django_capture_on_commit_callbacks):
    ann, ben = factories.player("ann", "3k"), factories.player("ben", "6k")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", date(2024, 1, 10)),
            factories.game(ben, ann, "W", date(2024, 1, 17)),
            factories.game(ann, ben, "B", date(2024, 2, 7)),
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
    assert [row["value_after"] for row in history.json()["results"]] == [-1, 0, 1]
