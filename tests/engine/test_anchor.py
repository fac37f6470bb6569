"""The anchor system (seed 004, SPEC section 5)."""

from __future__ import annotations

import math
from datetime import date
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.engine.anchor import (
    Anchor,
    AnchorParams,
    anchor_rating,
    entry_rating,
    rank_of,
)
from ratings.engine.base import ParamsError, parse_params, replay
from ratings.engine.cli import main
from ratings.engine.ranks import Rank, parse_rank
from ratings.engine.records import Colour, Entry, GameRecord, Status, Winner

HEADER = "date,white,black,white_rank,black_rank,handicap,winner,status,board_size,value\n"
ALPHA = math.log(2) / 2


def game(
    winner: str = "W",
    handicap: int = 0,
    board_size: int = 19,
    status: Status = Status.NORMAL,
    white: str = "w",
    black: str = "b",
    day: int = 1,
) -> GameRecord:
    return GameRecord(
        date=date(2024, 1, day),
        white=white,
        black=black,
        winner=Winner(winner),
        white_rank=Rank(0),
        black_rank=Rank(0),
        handicap=handicap,
        status=status,
        board_size=board_size,
    )


def rate(
    records: list[GameRecord], ratings: dict[str, float], params: AnchorParams | None = None
) -> tuple[list, dict[str, float]]:
    """Rows and final ratings, the players starting at ``ratings``."""
    algorithm = Anchor(params)
    entries = {name: Entry(Rank(0), Fraction(value)) for name, value in ratings.items()}
    state = algorithm.new_state(entries)
    rows = list(replay(algorithm, records, entries, state))
    return rows, {name: player.value for name, player in state.players.items()}


def changes(records, ratings, params=None) -> list[float]:
    rows, _ = rate(records, ratings, params)
    return [row.change for row in rows]


# --- the seed's worked example ---------------------------------------------------


def test_seed_example_white_wins_gains_8_12():
    rows, _ = rate([game("W", handicap=2)], {"w": 360, "b": 100})
    white, black = rows
    assert round(white.change, 2) == 8.12
    assert white.change == 10 * math.exp(ALPHA * (2 - (360 - 100) / 100))
    assert black.change == -white.change
    assert white.factors["x"] == pytest.approx(-0.6)
    assert (white.value_before, white.value_after) == (360.0, 360.0 + white.change)


def test_seed_example_black_wins_gains_12_31():
    rows, _ = rate([game("B", handicap=2)], {"w": 360, "b": 100})
    white, black = rows
    assert round(black.change, 2) == 12.31
    assert black.change == 10 * math.exp(-ALPHA * (2 - (360 - 100) / 100))
    assert white.change == -black.change


def test_an_even_game_between_equal_ratings_moves_a():
    assert changes([game("W")], {"w": 0, "b": 0}) == [10.0, -10.0]
    assert changes([game("B")], {"w": 0, "b": 0}) == [-10.0, 10.0]


def test_one_rank_apart_with_one_stone_is_a_fair_game():
    assert changes([game("W", handicap=1)], {"w": 100, "b": 0}) == [10.0, -10.0]


def test_alpha_is_set_so_that_two_stones_too_few_halve_or_double_the_award():
    # x = -2: White gives two stones too few; a White win pays a/2, a Black win 2a.
    assert changes([game("W")], {"w": 200, "b": 0}) == pytest.approx([5.0, -5.0])
    assert changes([game("B")], {"w": 200, "b": 0}) == pytest.approx([-20.0, 20.0])


def test_a_and_alpha_are_parameters():
    params = parse_params(AnchorParams, ["a=12", "alpha=0.5"])
    assert changes([game("W")], {"w": 100, "b": 0}, params) == [
        12 * math.exp(0.5 * -1.0),
        -12 * math.exp(0.5 * -1.0),
    ]


def test_a_jigo_changes_nothing_but_counts_as_a_game():
    algorithm = Anchor()
    entries = {"w": Entry(Rank(2)), "b": Entry(Rank(-3))}
    state = algorithm.new_state(entries)
    rows = list(replay(algorithm, [game("D", handicap=3)], entries, state))
    assert [row.change for row in rows] == [0.0, 0.0]
    assert [row.value_after for row in rows] == [200.0, -300.0]
    assert rows[0].factors["result"] == "jigo"
    assert state.players["w"].games == state.players["b"].games == 1


# --- ratings and ranks ---------------------------------------------------------------


def test_new_players_start_at_100_per_stone_with_1d_at_0():
    assert entry_rating(parse_rank("1d")) == 0.0
    assert entry_rating(parse_rank("1k")) == -100.0
    assert entry_rating(parse_rank("5d")) == 400.0
    assert entry_rating(parse_rank("30k")) == -3000.0
    assert entry_rating(parse_rank("40k")) == -3000.0
    assert entry_rating(parse_rank("3p")) == 800.0


def test_rank_of_a_rating_is_100_points_a_rank():
    assert str(rank_of(0.0)) == "1d"
    assert str(rank_of(99.99)) == "1d"
    assert str(rank_of(-0.01)) == "1k"
    assert str(rank_of(-100.0)) == "1k"
    assert str(rank_of(-100.5)) == "2k"
    assert str(rank_of(368.1)) == "4d"
    assert str(rank_of(5000.0)) == "9d"
    assert str(rank_of(-3050.0)) == "31k"
    assert str(rank_of(-99999.0)) == "50k"


def test_a_starting_rating_from_players_is_used():
    algorithm = Anchor()
    player = algorithm.new_player(Entry(Rank(3), Fraction(250)))
    assert (player.value, str(player.rank)) == (250.0, "3d")
    assert algorithm.entry_problem(Entry(Rank(3), Fraction(250))) is None
    assert "too large" in algorithm.entry_problem(Entry(Rank(3), Fraction(10**400)))


def test_the_rank_follows_the_rating_after_a_game():
    rows, _ = rate([game("B")], {"w": 0, "b": -5})
    white, black = rows
    assert (str(white.rank_before), str(white.rank_after)) == ("1d", "1k")
    assert (str(black.rank_before), str(black.rank_after)) == ("1k", "1d")


# --- anchors -----------------------------------------------------------------------------


def test_anchors_are_off_by_default():
    params = AnchorParams()
    assert (params.fixed_anchor, params.anchor_levels, params.floating_anchor) == (
        None,
        (),
        False,
    )
    assert params.floating_gap == 300.0
    assert changes([game("B")], {"w": 800, "b": -2000})[0] < 0


def test_fixed_anchor_freezes_a_player_at_or_above_it_against_one_below():
    params = AnchorParams(fixed_anchor="550")
    rows, ratings = rate([game("B", handicap=2)], {"w": 550, "b": 300}, params)
    white, black = rows
    assert white.change == 0.0
    assert ratings["w"] == 550.0
    assert "fixed anchor" in white.factors["frozen"]
    assert white.factors["formula_change"] == -black.change
    assert black.change == 10 * math.exp(-ALPHA * (2 - 2.5))
    assert "frozen" not in black.factors


def test_fixed_anchor_leaves_games_between_players_on_one_side_alone():
    params = AnchorParams(fixed_anchor="550")
    above = changes([game("W")], {"w": 600, "b": 550}, params)
    below = changes([game("W")], {"w": 549, "b": 300}, params)
    assert above[0] > 0 and above[1] < 0
    assert below[0] > 0 and below[1] < 0


def test_fixed_anchor_may_be_given_as_a_rank():
    params = parse_params(AnchorParams, ["fixed_anchor=6d"])
    rows, _ = rate([game("W")], {"w": 450, "b": 500}, params)
    assert [row.change != 0 for row in rows] == [True, False]
    assert "500.0" in rows[1].factors["frozen"]


def test_extra_anchor_levels_freeze_across_each_level():
    params = parse_params(AnchorParams, ["anchor_levels=1d,9k"])
    assert [rating for _, rating in params.levels()] == [0.0, -900.0]
    dan_loses = changes([game("B")], {"w": 0, "b": -100}, params)
    assert dan_loses[0] == 0.0 and dan_loses[1] > 0
    nine_kyu_loses = changes([game("B")], {"w": -900, "b": -1000}, params)
    assert nine_kyu_loses[0] == 0.0 and nine_kyu_loses[1] > 0
    between_levels = changes([game("B")], {"w": -500, "b": -800}, params)
    assert between_levels[0] < 0 and between_levels[1] > 0
    # a 10k giving 5 stones to a 15k is below both levels: nothing protects the 10k
    below_levels = changes([game("B", handicap=5)], {"w": -1000, "b": -1500}, params)
    assert below_levels[0] < 0


def test_the_weaker_player_is_never_frozen_by_a_level():
    params = AnchorParams(anchor_levels=("0",))
    rows, _ = rate([game("W")], {"w": 100, "b": -100}, params)
    assert rows[0].change == 0.0
    assert rows[1].change < 0
    assert "frozen" not in rows[1].factors


def test_floating_anchor_freezes_the_higher_player_when_the_gap_exceeds_300():
    params = AnchorParams(floating_anchor=True)
    rows, _ = rate([game("B", handicap=3)], {"w": 0, "b": -301}, params)
    white, black = rows
    assert white.change == 0.0
    assert "floating anchor" in white.factors["frozen"]
    assert black.change == 10 * math.exp(-ALPHA * (3 - 3.01))
    at_the_gap = changes([game("B", handicap=3)], {"w": 0, "b": -300}, params)
    assert at_the_gap[0] < 0


def test_floating_gap_is_a_parameter():
    params = parse_params(AnchorParams, ["floating_anchor=yes", "floating_gap=100"])
    assert changes([game("W", handicap=1)], {"w": 0, "b": -150}, params) == [
        0.0,
        pytest.approx(-10 * math.exp(ALPHA * (1 - 1.5))),
    ]


def test_an_anchor_rule_uses_the_ratings_from_before_the_game():
    # Black crosses the level with this win; White is still frozen for it.
    params = AnchorParams(fixed_anchor="0")
    rows, ratings = rate([game("B")], {"w": 10, "b": -5}, params)
    assert rows[0].change == 0.0
    assert ratings["b"] > 0
    second, _ = rate([game("B"), game("B", day=2)], {"w": 10, "b": -5}, params)
    assert second[2].change < 0


@pytest.mark.parametrize("bad", ["fixed_anchor=abc", "anchor_levels=1d,0k", "fixed_anchor=inf"])
def test_a_bad_anchor_level_is_refused(bad):
    with pytest.raises(ParamsError):
        parse_params(AnchorParams, [bad])


def test_anchor_rating_reads_ratings_and_ranks():
    assert anchor_rating("550") == 550.0
    assert anchor_rating("-900") == -900.0
    assert anchor_rating("9k") == -900.0
    assert anchor_rating("1d") == 0.0
    assert anchor_rating(550) == 550.0


# --- small boards ------------------------------------------------------------------------


@pytest.mark.parametrize(("board_size", "factor"), [(19, 1.0), (13, 361 / 169), (9, 361 / 81)])
def test_small_board_handicaps_map_to_the_big_board(board_size, factor):
    rows, _ = rate([game("W", handicap=2, board_size=board_size)], {"w": 360, "b": 100})
    assert rows[0].factors["handicap_stones"] == 2 * factor
    assert rows[0].factors["x"] == 2 * factor - (360 - 100) / 100
    assert rows[0].change == 10 * math.exp(ALPHA * (2 * factor - 2.6))


def test_two_stones_on_9x9_are_about_nine_on_19x19():
    rows, _ = rate([game("W", handicap=2, board_size=9)], {"w": 0, "b": 0})
    assert rows[0].factors["handicap_stones"] == pytest.approx(8.91, abs=0.01)
    assert rows[0].factors["board_factor"] == "361/81"


def test_an_even_small_board_game_is_rated_like_a_big_one():
    assert changes([game("W", board_size=13)], {"w": 0, "b": 0}) == [10.0, -10.0]


# --- what is not rated, adjustments ---------------------------------------------------


def test_a_free_game_is_listed_with_no_change_and_the_reason():
    algorithm = Anchor()
    entries = {"w": Entry(Rank(0)), "b": Entry(Rank(-1))}
    state = algorithm.new_state(entries)
    rows = list(replay(algorithm, [game("W", status=Status.FREE)], entries, state))
    assert [row.change for row in rows] == [0.0, 0.0]
    assert all(row.skipped == "the anchor system does not rate free games" for row in rows)
    assert rows[0].factors == {"skipped": "the anchor system does not rate free games"}
    assert state.players["w"].games == 0


def test_internet_and_tournament_games_are_rated_normally():
    normal = changes([game("W")], {"w": 0, "b": -100})
    assert changes([game("W", status=Status.INTERNET)], {"w": 0, "b": -100}) == normal
    assert changes([game("W", status=Status.TOURNAMENT)], {"w": 0, "b": -100}) == normal


def test_a_change_too_large_to_compute_skips_the_game():
    params = AnchorParams(alpha=1000.0)
    rows, ratings = rate([game("B")], {"w": 100000, "b": 0}, params)
    assert all(row.change == 0.0 for row in rows)
    assert "too large" in rows[0].skipped
    assert ratings == {"w": 100000.0, "b": 0.0}


def adjustment(rank: str, value: Fraction | None) -> GameRecord:
    return GameRecord(
        date=date(2024, 1, 5),
        white="w",
        black="w",
        white_rank=parse_rank(rank),
        status=Status.ADJUSTMENT,
        value=value,
    )


def test_an_adjustment_sets_the_given_rating():
    rows, ratings = rate([game("W"), adjustment("3d", Fraction(275))], {"w": 0, "b": 0})
    row = rows[-1]
    assert row.colour is None
    assert (row.value_before, row.value_after, row.change) == (10.0, 275.0, 265.0)
    assert str(row.rank_after) == "3d"
    assert ratings["w"] == 275.0


def test_an_adjustment_without_a_value_sets_100_per_stone():
    rows, _ = rate([adjustment("5k", None)], {"w": 0})
    assert (rows[0].value_after, str(rows[0].rank_after)) == (-500.0, "5k")
    assert rows[0].factors["default_value"] == "100 x stones"


# --- properties ----------------------------------------------------------------------------

ratings_strategy = st.floats(min_value=-3000, max_value=1000, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(
    ratings_strategy,
    ratings_strategy,
    st.integers(min_value=0, max_value=9),
    st.sampled_from([9, 13, 19]),
    st.sampled_from(["W", "B"]),
)
def test_the_winner_gains_what_the_loser_loses(white, black, handicap, size, winner):
    rows, _ = rate([game(winner, handicap, size)], {"w": white, "b": black})
    winner_row, loser_row = rows if winner == "W" else rows[::-1]
    assert winner_row.change > 0
    assert loser_row.change == -winner_row.change
    assert winner_row.factors["award"] == winner_row.change


@settings(max_examples=200, deadline=None)
@given(
    ratings_strategy,
    ratings_strategy,
    st.sampled_from(["W", "B", "D"]),
    st.booleans(),
    st.lists(st.sampled_from(["1d", "9k", "5d", "-1500", "250"]), max_size=3),
)
def test_a_frozen_player_keeps_their_rating_and_the_opponent_still_moves(
    white, black, winner, floating, levels
):
    params = AnchorParams(anchor_levels=tuple(levels), floating_anchor=floating)
    rows, _ = rate([game(winner)], {"w": white, "b": black}, params)
    free_rows, _ = rate([game(winner)], {"w": white, "b": black})
    for row, free_row in zip(rows, free_rows, strict=True):
        if "frozen" in row.factors:
            assert row.change == 0.0 and row.value_after == row.value_before
            assert row.value_before >= (white if row.colour is Colour.BLACK else black)
        else:
            assert row.change == free_row.change
    assert not all("frozen" in row.factors for row in rows)


# --- the command line ----------------------------------------------------------------------


def write_games(tmp_path, rows: str):
    path = tmp_path / "games.csv"
    path.write_text(HEADER + rows, encoding="utf-8")
    return path


def test_cli_history_prints_the_seed_example(tmp_path, capsys):
    games = write_games(tmp_path, "2024-01-01,w,b,4d,2d,2,W,,,\n")
    players = tmp_path / "players.csv"
    players.write_text("player,rank,rating\nw,4d,360\nb,2d,100\n", encoding="utf-8")
    argv = ["rate", "--algorithm", "anchor", "--players", str(players), str(games)]
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines() == [
        "player,opponent,opponent_rank,colour,handicap,komi,winner,status,change,new_value,"
        "new_rank,date,comment",
        "w,b,2d,W,2,0.5,W,normal,8.122523963562355,368.12252396356234,4d,2024-01-01,",
        "b,w,4d,B,2,0.5,W,normal,-8.122523963562355,91.87747603643764,1d,2024-01-01,",
    ]


def test_cli_fixed_anchor_as_a_rank_and_standings(tmp_path, capsys):
    games = write_games(
        tmp_path,
        "2024-01-01,w,b,2d,1k,0,B,,,\n2024-01-02,w,b,2d,1k,0,W,free,,\n",
    )
    argv = ["rate", "--algorithm", "anchor", "--params", "fixed_anchor=1d"]
    assert main([*argv, "--output", "standings", str(games)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "player,rank,value,games",
        "w,2d,100.0,1",
        f"b,1k,{-100 + 10 * math.exp(-ALPHA * -2.0)!r},1",
    ]


def test_cli_free_game_history_says_why_it_was_not_rated(tmp_path, capsys):
    games = write_games(tmp_path, "2024-01-01,w,b,2d,1k,0,W,free,,\n")
    assert main(["rate", "--algorithm", "anchor", str(games)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].endswith(
        ",0.0,100.0,2d,2024-01-01,not rated: the anchor system does not rate free games"
    )


def test_cli_bad_anchor_exits_2(tmp_path, capsys):
    games = write_games(tmp_path, "2024-01-01,w,b,2d,1k,0,W,,,\n")
    argv = ["rate", "--algorithm", "anchor", "--params", "fixed_anchor=10d", str(games)]
    assert main(argv) == 2
    assert "neither a rating nor a rank" in capsys.readouterr().err
