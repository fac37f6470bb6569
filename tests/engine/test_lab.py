"""The algorithm lab's maths: each algorithm's P(White wins) and the metrics."""

import math
from datetime import date
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.engine import lab
from ratings.engine.algorithms import get_algorithm
from ratings.engine.egf import reference_curve
from ratings.engine.gcr import Gcr, accuracy, month_end_snapshots
from ratings.engine.lab import LabGame, Matchup, Prediction, Side
from ratings.engine.ranks import Rank, parse_rank
from ratings.engine.records import Entry, GameRecord, Status, Winner

NAMES = ("sagc", "egf-2021", "egf-2020", "egf-legacy", "french", "anchor", "gcr")
# a value each algorithm might hold for a player of the rank (SAGC: the index)
ALGORITHM_SCALE = {
    "sagc": lambda stones, offset: offset * 9.99,
    "egf-2021": lambda stones, offset: 2100 + 100 * stones + offset,
    "egf-2020": lambda stones, offset: 2100 + 100 * stones + offset,
    "egf-legacy": lambda stones, offset: 2100 + 100 * stones + offset,
    "french": lambda stones, offset: 100 * stones + 50 + offset,
    "anchor": lambda stones, offset: 100 * stones + offset,
    "gcr": lambda stones, offset: 1500 + 10 * stones + offset,
}


def side(name: str, stones: int, offset: float) -> Side:
    return Side(Rank(stones), ALGORITHM_SCALE[name](stones, offset))


def p_white(name: str, white: Side, black: Side, **game) -> float:
    return lab.predictor(get_algorithm(name))(Matchup(white, black, **game))


sides = st.tuples(st.integers(-30, 8), st.floats(-99, 99))
komis = st.sampled_from([Fraction(13, 2), Fraction(1, 2), Fraction(0), Fraction(-5), Fraction(15)])


@pytest.mark.parametrize("name", NAMES)
@given(
    white=sides,
    black=sides,
    handicap=st.integers(0, 9),
    komi=komis,
    board=st.sampled_from([9, 13, 19]),
)
def test_every_prediction_is_a_probability(name, white, black, handicap, komi, board):
    p = p_white(
        name,
        side(name, *white),
        side(name, *black),
        handicap=handicap,
        komi=komi,
        board_size=board,
    )
    assert 0.0 <= p <= 1.0


@pytest.mark.parametrize("name", NAMES)
@given(white=sides, black=sides, komi=st.sampled_from([Fraction(13, 2), Fraction(1, 2)]))
def test_swapping_colours_in_an_even_game_swaps_the_chances(name, white, black, komi):
    a, b = side(name, *white), side(name, *black)
    forward = p_white(name, a, b, komi=komi)
    backward = p_white(name, b, a, komi=komi)
    assert forward + backward == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_equal_players_in_an_even_game_are_a_coin(name):
    player = side(name, -5, 20.0)
    assert p_white(name, player, player) == pytest.approx(0.5, abs=1e-15)


@pytest.mark.parametrize("name", ["egf-2021", "egf-2020", "egf-legacy", "french", "anchor", "gcr"])
def test_komi_plays_no_part_where_the_algorithm_ignores_it(name):
    white, black = side(name, -3, 10.0), side(name, -6, -40.0)
    chances = {
        p_white(name, white, black, handicap=handicap, komi=komi)
        for handicap in (2,)
        for komi in (Fraction(1, 2), Fraction(13, 2), Fraction(-10), Fraction(20))
    }
    assert len(chances) == 1


def test_komi_moves_the_sagc_prediction_through_the_effective_handicap():
    white, black = Side(parse_rank("5k"), 0), Side(parse_rank("7k"), 0)
    # komi -14: eff = trunc(0 - (-14 - 6)/10) = 2, the fair handicap for two ranks
    assert p_white("sagc", white, black, komi=Fraction(-14)) == pytest.approx(0.5)
    assert p_white("sagc", white, black, komi=Fraction(13, 2)) > 0.6


def test_a_stronger_player_is_the_favourite_under_every_algorithm():
    for name in NAMES:
        strong, weak = side(name, -2, 50.0), side(name, -8, -50.0)
        assert p_white(name, strong, weak) > 0.5, name
        assert p_white(name, weak, strong) < 0.5, name


def test_the_egf_sets_predict_their_published_se():
    # egf.md, truncated to 3 decimals as published: Se(100 vs 500, even) = 0.281 and
    # Se(100 vs 100, receiving 2 stones) = 0.583
    weaker = p_white("egf-2021", Side(Rank(-20), 100.0), Side(Rank(-16), 500.0))
    assert math.floor(weaker * 1000) / 1000 == 0.281
    giving = p_white("egf-2021", Side(Rank(-20), 100.0), Side(Rank(-20), 100.0), handicap=2)
    assert math.floor((1 - giving) * 1000) / 1000 == 0.583


def test_the_legacy_prediction_leaves_eps_out():
    player = Side(Rank(3), 2400.0)
    assert p_white("egf-legacy", player, player) == 0.5
    # 2400 against 2300: 1 - 1/(exp(100/a) + 1) with a = 205 - 2300/20 = 90
    expected = 1 - 1 / (math.exp(100 / 90) + 1)
    assert p_white("egf-legacy", player, Side(Rank(2), 2300.0)) == pytest.approx(expected)


def test_the_anchor_prediction_is_where_the_expected_change_is_zero():
    anchor = get_algorithm("anchor")
    white, black = Side(Rank(3), 360.0), Side(Rank(1), 100.0)
    matchup = Matchup(white, black, handicap=2, komi=Fraction(1, 2))
    p = lab.predictor(anchor)(matchup)
    # the seed's example: White's win +8.12, Black's win +12.31
    white_win, black_win = (
        10 * math.exp(math.log(2) / 2 * -0.6),
        10 * math.exp(-math.log(2) / 2 * -0.6),
    )
    assert (white_win, black_win) == (
        pytest.approx(8.12, abs=0.005),
        pytest.approx(12.31, abs=0.005),
    )
    assert p * white_win - (1 - p) * black_win == pytest.approx(0.0, abs=1e-12)
    assert p == pytest.approx(1 / (1 + 2**-0.6))  # each stone of x halves White's odds


def test_the_anchor_prediction_scales_the_handicap_on_small_boards():
    player = Side(Rank(-5), -500.0)
    on_9x9 = p_white("anchor", player, player, handicap=2, board_size=9)
    assert on_9x9 == pytest.approx(1 / (1 + 2 ** (2 * 361 / 81)))


def test_a_sagc_index_is_a_fraction_of_a_stone_continuous_across_promotion():
    before = Side(parse_rank("5k"), 999)
    after = Side(parse_rank("4k"), 0)
    opponent = Side(parse_rank("5k"), 0)
    assert p_white("sagc", before, opponent) == pytest.approx(
        p_white("sagc", after, opponent), abs=1e-3
    )
    # the fair handicap of SAGC is a coin: 5k against 7k with two stones and 0.5 komi
    assert p_white(
        "sagc", opponent, Side(parse_rank("7k"), 0), handicap=2, komi=Fraction(1, 2)
    ) == pytest.approx(0.5)


def test_the_sagc_prediction_is_the_egf_2021_curve_at_the_players_level():
    white, black = Side(parse_rank("2d"), 250), Side(parse_rank("1d"), -100)
    expected = reference_curve(2100 + 100 * 1.25, 2100 + 100 * -0.1)
    assert p_white("sagc", white, black) == expected


def test_the_french_prediction_uses_its_fictitious_levels_on_the_egf_curve():
    white, black = Side(Rank(-5), -450.0), Side(Rank(-7), -600.0)
    # two stones raise Black by 150: level for level
    assert p_white("french", white, black, handicap=2) == pytest.approx(0.5)
    assert p_white("french", white, black) == reference_curve(2050 - 450, 2050 - 600)


def test_the_gcr_prediction_is_its_expected_percentage():
    white, black = Side(Rank(0), 1700.0), Side(Rank(0), 1500.0)
    assert p_white("gcr", white, black) == pytest.approx(0.75)
    assert p_white("gcr", white, black, handicap=9) == pytest.approx(0.75)  # no handicap
    assert p_white("gcr", Side(Rank(0), 1900.0), black) == 1.0


# --- the metrics ---------------------------------------------------------------------------


def prediction(p: float, score: float, band="sdk", handicap="even", status="normal"):
    return Prediction(p, score, band, handicap, status)


def test_a_perfect_predictor_has_accuracy_one_and_a_tiny_log_loss():
    items = [prediction(1.0, 1.0), prediction(0.0, 0.0), prediction(1.0, 1.0)]
    summary = lab.summary(items)
    assert summary["favourite_share"] == 1.0
    assert summary["log_loss"] == pytest.approx(-math.log(1 - 1e-6))
    assert summary["log_loss"] < 1e-5
    assert summary["brier"] == 0.0


def test_a_coin_has_log_loss_ln_2_and_names_no_favourite():
    items = [prediction(0.5, 1.0), prediction(0.5, 0.0), prediction(0.5, 0.5)]
    summary = lab.summary(items)
    assert summary["log_loss"] == pytest.approx(math.log(2))
    assert summary["brier"] == pytest.approx((0.25 + 0.25 + 0) / 3)
    assert summary["favourite_share"] is None
    assert (summary["no_favourite"], summary["jigo"], summary["decisive"]) == (2, 1, 2)


def test_the_metrics_of_a_small_hand_computed_example():
    items = [prediction(0.8, 1.0), prediction(0.8, 0.0), prediction(0.3, 0.0), prediction(0.6, 0.5)]
    summary = lab.summary(items)
    assert (summary["favourite_won"], summary["favourite_lost"]) == (2, 1)
    assert summary["favourite_share"] == pytest.approx(2 / 3)
    log_loss = (
        -math.log(0.8) - math.log(0.2) - math.log(0.7) - (0.5 * math.log(0.6) + 0.5 * math.log(0.4))
    ) / 4
    assert summary["log_loss"] == pytest.approx(log_loss)
    assert summary["brier"] == pytest.approx((0.04 + 0.64 + 0.09 + 0.01) / 4)
    assert summary["mean_predicted"] == pytest.approx(2.5 / 4)
    assert summary["white_score"] == pytest.approx(1.5 / 4)


def test_a_certain_prediction_that_fails_costs_the_clipped_log_loss():
    assert lab.game_log_loss(1.0, 0.0) == pytest.approx(-math.log(1e-6))
    assert lab.game_log_loss(0.0, 1.0) == pytest.approx(-math.log(1e-6))


@given(st.lists(st.tuples(st.floats(0, 1), st.sampled_from([0.0, 0.5, 1.0])), max_size=60))
def test_calibration_bins_count_every_game_once(pairs):
    items = [prediction(p, score) for p, score in pairs]
    bins = lab.calibration(items)
    assert len(bins) == 10
    assert sum(item["games"] for item in bins) == len(items)
    for item in bins:
        if item["games"]:
            assert item["low"] <= item["predicted"] <= item["high"]
        else:
            assert item["predicted"] is None and item["observed"] is None


def test_the_extremes_fall_in_the_first_and_last_bins():
    bins = lab.calibration([prediction(0.0, 0.0), prediction(1.0, 1.0), prediction(0.55, 0.0)])
    assert [item["games"] for item in bins] == [1, 0, 0, 0, 0, 1, 0, 0, 0, 1]
    assert bins[5]["observed"] == 0.0


def test_the_breakdowns_keep_their_order_and_count_each_game_in_its_group():
    items = [
        prediction(0.7, 1.0, band="dan", handicap="even", status="tournament"),
        prediction(0.7, 0.0, band="ddk", handicap="5-9", status="normal"),
        prediction(0.2, 0.0, band="ddk", handicap="5-9", status="internet"),
    ]
    report = lab.evaluate(items)
    assert [row["group"] for row in report["by_rank_band"]] == ["ddk", "sdk", "dan"]
    assert [row["games"] for row in report["by_rank_band"]] == [2, 0, 1]
    assert [row["games"] for row in report["by_handicap"]] == [1, 0, 2]
    assert [row["group"] for row in report["by_status"]] == ["normal", "tournament", "internet"]
    assert report["by_rank_band"][0]["favourite_share"] == 0.5
    assert report["by_rank_band"][1]["log_loss"] is None


def matchup_game(white: str, black: str, winner=Winner.WHITE, handicap=0, status=Status.NORMAL):
    return LabGame(
        Matchup(Side(parse_rank(white), 0), Side(parse_rank(black), 0), handicap=handicap),
        winner,
        status,
    )


def test_predictions_group_by_the_weaker_player_and_leave_free_games_out():
    games = [
        matchup_game("2d", "12k", handicap=9),
        matchup_game("3k", "1d", handicap=1),
        matchup_game("5k", "5k", status=Status.FREE),
        matchup_game("5k", "7k", handicap=2, winner=Winner.JIGO, status=Status.INTERNET),
    ]
    made = lab.predictions(get_algorithm("sagc"), games)
    assert [(p.rank_band, p.handicap_group, p.status) for p in made] == [
        ("ddk", "5-9", "normal"),
        ("sdk", "even", "normal"),
        ("sdk", "2-4", "internet"),
    ]
    assert [p.white_score for p in made] == [1.0, 1.0, 0.5]


# --- Game Courier Ratings, month by month -----------------------------------------------------


def record(day: date, white: str, black: str, winner=Winner.WHITE, seq=0, **extra) -> GameRecord:
    return GameRecord(date=day, white=white, black=black, winner=winner, seq=seq, **extra)


def test_gcr_predicts_each_month_from_the_previous_month_end():
    entries = {name: Entry(parse_rank(rank)) for name, rank in (("ann", "5k"), ("ben", "7k"))}
    records = [
        record(date(2024, 1, 5), "ann", "ben", seq=1),
        record(date(2024, 1, 20), "ann", "ben", seq=2),  # same month: still from 1500
        record(date(2024, 2, 3), "ann", "ben", Winner.BLACK, seq=3),
        record(date(2024, 2, 4), "ann", "ben", seq=4, board_size=9),  # GCR skips it
        record(date(2024, 2, 5), "ann", "ben", seq=5, status=Status.FREE),  # and this
    ]
    games, state = lab.holistic_predictions(Gcr(), records, entries)
    assert len(games) == 3
    first, second, third = (lab.predictor(get_algorithm("gcr"))(game.matchup) for game in games)
    assert first == second == 0.5
    (_, january), _february = month_end_snapshots(records, entries)
    ratings = {standing.player: standing.value for standing in january}
    assert third == pytest.approx(0.5 + (ratings["ann"] - ratings["ben"]) / 800)
    assert third > 0.5
    assert games[2].matchup.white.rank == parse_rank("5k")  # the entry rank
    assert accuracy(state).pairs == 1


def test_gcr_predictions_of_no_games_are_empty():
    games, state = lab.holistic_predictions(Gcr(), [], {})
    assert games == [] and state.players == {}
