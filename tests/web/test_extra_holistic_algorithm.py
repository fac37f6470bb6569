"""A new holistic algorithm (rated as a whole over the history, like GCR) needs its module
and one line in the registry, nothing else: one defined here (``ratings.engine.holistic``'s
``count``, ``finish`` and a prediction), added to ``algorithms.ALGORITHMS`` and to the
maintained algorithms, is recomputed into current standings and month-end snapshots,
and is on the log page with its chart, the lab, the rating list and the API."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import pytest

from players.services.games import record_sheet_submit
from ratings.engine import algorithms
from ratings.engine.base import PlayerState, RatingState
from ratings.engine.description import Matchup, ValueScale, logistic
from ratings.engine.holistic import Holistic
from ratings.engine.records import Entry, GameRecord, Status, Winner
from ratings.lab import services as lab_services
from ratings.models import CurrentRating, LabReport, RatingSnapshot
from ratings.recompute.run import recompute, recompute_pending
from tests import factories
from tests.pages import page_html

pytestmark = pytest.mark.django_db

TITLE = "Score share (test holistic algorithm)"
SCORES = {Winner.WHITE: (1.0, 0.0), Winner.BLACK: (0.0, 1.0), Winner.JIGO: (0.5, 0.5)}


@dataclass(frozen=True)
class ScoreShareParams:
    prior_games: int = 2  # a newcomer counts as this many games at half a point each


@dataclass(slots=True)
class ScoreSharePlayer(PlayerState):
    score: float = 0.0


class ScoreShare(Holistic[ScoreSharePlayer]):
    """A player's value is their share of the points of all their games, in percent,
    as if they had also played ``prior_games`` games scoring half a point each."""

    name = "score-share"
    title = TITLE
    params_type = ScoreShareParams
    state_type = ScoreSharePlayer
    value_scale = ValueScale("score-share", "Share of points in percent")
    prediction_note = "The side with the larger share is favoured, 1 / (1 + e^-(Vw - Vb)/10)."

    def new_player(self, entry: Entry) -> ScoreSharePlayer:
        return ScoreSharePlayer(rank=entry.rank, value=50.0)

    def skip_reason(self, record: GameRecord) -> str:
        return "free games are not rated" if record.status is Status.FREE else ""

    def count(self, state: RatingState, record: GameRecord, times: int = 1) -> None:
        white, black = state.player(record.white), state.player(record.black)
        if record.winner is None or self.skip_reason(record):
            return
        white_score, black_score = SCORES[record.winner]
        for player, score in ((white, white_score), (black, black_score)):
            player.games += times
            player.score += score * times

    def finish(self, state: RatingState) -> None:
        prior = self.params.prior_games
        for player in state.players.values():
            player.value = 100 * (player.score + prior / 2) / (player.games + prior)

    def predict_white(self, matchup: Matchup) -> float:
        return logistic((matchup.white.value - matchup.black.value) / 10)


@pytest.fixture
def score_share(monkeypatch, settings):
    monkeypatch.setattr(algorithms, "ALGORITHMS", (*algorithms.ALGORITHMS, ScoreShare))
    settings.RATINGS_ALGORITHMS = ["sagc", "score-share"]


@pytest.fixture
def club(score_share, vera, django_capture_on_commit_callbacks):
    ann, ben = factories.player("ann", "3k"), factories.player("ben", "6k")
    cat = factories.player("cat", "9k")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", date(2024, 1, 10)),
            factories.game(ben, ann, "W", date(2024, 1, 17)),
            factories.game(ann, cat, "W", date(2024, 2, 7)),
            factories.game(ann, ben, "B", date(2024, 3, 6)),
            factories.game(ben, cat, "W", date(2024, 3, 9), status="free"),
        ],
    )
    # as the site does: the lab's task runs once the recompute commits
    with django_capture_on_commit_callbacks(execute=True):
        recompute_pending()
    return ann, ben, cat


def test_the_recompute_writes_its_standings_and_month_end_snapshots(club):
    ann, _ben, _cat = club
    current = {
        rating.player.username: (rating.value, rating.games)
        for rating in CurrentRating.objects.filter(algorithm="score-share").select_related("player")
    }
    # ann: 3 points of 4 games, plus 1 of 2 prior games; the free game counts for nobody
    assert current["ann"] == (pytest.approx(100 * 3 / 6), 4)
    assert current["cat"] == (pytest.approx(100 * 1 / 3), 1)
    snapshots = RatingSnapshot.objects.filter(algorithm="score-share", player=ann)
    # January and February end (March is the last month: its standings are current)
    assert list(snapshots.order_by("date").values_list("date", "games")) == [
        (date(2024, 1, 31), 2),
        (date(2024, 2, 29), 3),
    ]


def test_a_back_dated_game_recomputes_it_as_a_full_recompute_would(club, vera):
    ann, _ben, cat = club
    record_sheet_submit(
        user=vera, games=[factories.game(cat, ann, "W", date(2024, 2, 1))], allow_duplicates=True
    )
    recompute_pending(["score-share"])
    incremental = sorted(
        RatingSnapshot.objects.filter(algorithm="score-share").values_list(
            "player__username", "date", "value", "games"
        )
    )
    recompute("score-share", full=True)
    full = sorted(
        RatingSnapshot.objects.filter(algorithm="score-share").values_list(
            "player__username", "date", "value", "games"
        )
    )
    assert incremental == full
    february = RatingSnapshot.objects.get(algorithm="score-share", player=cat, date="2024-02-29")
    assert february.games == 2


def test_it_is_on_the_log_page_with_its_month_end_standings_and_chart(client, club):
    html = page_html(client, "/players/ann/?algorithm=score-share")

    assert TITLE in html
    assert 'id="record-sheet"' not in html  # no per-game history
    snapshots = html[html.index('id="snapshots"') :]
    assert "2024-01-31" in snapshots and "2024-02-29" in snapshots
    assert 'id="rating-chart"' in html and "<svg" in html


def test_it_is_on_the_rating_list(client, club):
    html = page_html(client, "/?algorithm=score-share")

    assert TITLE in html
    assert 'href="/players/cat/"' in html


def test_it_is_in_the_lab_with_its_predictions(client, club, vera):
    report = LabReport.objects.get(algorithm="score-share")
    html = page_html(client, "/lab/?algorithm=score-share")

    assert report.games_counted == 4  # the free game is not predicted
    assert TITLE in html
    assert ScoreShare.prediction_note[:40] in html
    # brought up to date after one more game, equal to a full run
    _ann, ben, cat = club
    record_sheet_submit(user=vera, games=[factories.game(ben, cat, "B", date(2024, 3, 20))])
    recompute_pending(["score-share"])
    updated = lab_services.update_lab_report("score-share")
    assert updated is not None and updated.games_counted == 5
    assert updated.metrics == lab_services.compute_lab_report("score-share").metrics


def test_it_is_in_the_api_as_month_end_standings(client, club):
    index = client.get("/api/v1/").json()
    history = client.get(
        "/api/v1/players/ann/history/", {"algorithm": "score-share", "order": "oldest"}
    )

    assert "score-share" in str(index)
    assert history.status_code == 200
    data = history.json()
    assert data["kind"] == "month_end"
    assert [(row["date"], row["games"]) for row in data["results"]] == [
        ("2024-01-31", 2),
        ("2024-02-29", 3),
    ]
