"""The old French ladder (ratings/engine/french.py, docs/algorithms/french.md, seed 001)."""

from __future__ import annotations

import dataclasses
import itertools
import math
from datetime import date
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import parse_params, replay
from ratings.engine.cli import main
from ratings.engine.french import (
    FrenchParams,
    FrenchPlayer,
    apply_barrier,
    basic_changes,
    board_size_factor,
    entry_level,
    fictitious_levels,
    handicap_factor,
    level_weight,
    rank_of_level,
    time_factor,
)
from ratings.engine.ranks import Rank, parse_rank
from ratings.engine.records import Entry, GameRecord, Status, Winner

P = FrenchParams()
_seq = itertools.count(1)


def game(white: str, black: str, winner: str | None = "W", *, day: int = 1, **fields) -> GameRecord:
    return GameRecord(
        date=date(2024, 3, day),
        white=white,
        black=black,
        winner=Winner(winner) if winner else None,
        seq=next(_seq),
        **fields,
    )


def adjustment(player: str, rank: str, value: float | None = None, *, day: int = 28):
    return GameRecord(
        date=date(2024, 3, day),
        white=player,
        black=player,
        white_rank=parse_rank(rank),
        status=Status.ADJUSTMENT,
        value=Fraction(value) if value is not None else None,
        seq=next(_seq),
    )


def entries(**ranks: str) -> dict[str, Entry]:
    return {name: Entry(parse_rank(rank)) for name, rank in ranks.items()}


def rate(records, players, **params):
    algorithm = get_algorithm("french", FrenchParams(**params))
    state = algorithm.new_state(players)
    rows = list(replay(algorithm, records, players, state))
    return rows, state


def rows_of(rows, player):
    return [row for row in rows if row.player == player]


# --- levels and ranks ------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "rank"),
    [
        (0.0, "1d"),
        (99.99, "1d"),
        (100.0, "2d"),
        (199.5, "2d"),
        (-0.001, "1k"),
        (-100.0, "1k"),
        (-100.5, "2k"),
        (850.0, "9d"),
        (2500.0, "9d"),
        (-2950.0, "30k"),
        (-3400.0, "30k"),
    ],
)
def test_a_level_shows_the_rank_of_floor_level_over_100(level, rank):
    assert str(rank_of_level(level)) == rank


@pytest.mark.parametrize(
    ("rank", "level"),
    [
        ("1d", 50.0),
        ("1k", -50.0),
        ("3k", -250.0),
        ("2d", 150.0),
        ("9d", 850.0),
        ("30k", -2950.0),
        ("45k", -2950.0),
        ("3p", 850.0),
    ],
)
def test_a_new_player_enters_at_the_middle_of_their_rank(rank, level):
    assert entry_level(parse_rank(rank)) == level
    player = get_algorithm("french").new_player(Entry(parse_rank(rank)))
    assert player.value == level
    assert player.rank == rank_of_level(level)
    assert player.known is False


def test_a_level_given_in_players_is_used_and_makes_the_player_known():
    player = get_algorithm("french").new_player(Entry(parse_rank("3k"), Fraction(-180)))
    assert (player.value, str(player.rank), player.known) == (-180.0, "2k", True)


def test_a_given_level_below_the_barrier_is_an_entry_problem():
    algorithm = get_algorithm("french")
    assert "barrier" in algorithm.entry_problem(Entry(Rank(-30), Fraction(-2951)))
    assert algorithm.entry_problem(Entry(Rank(-30), Fraction(-2950))) is None
    assert algorithm.entry_problem(Entry(Rank(-30))) is None


# --- stage 1: fictitious levels and the basic change ----------------------------


def test_an_even_game_uses_the_levels_whatever_the_komi():
    assert fictitious_levels(120.0, -80.0, 0) == (120.0, -80.0)


@pytest.mark.parametrize(("handicap", "black"), [(1, 50.0), (2, 150.0), (9, 850.0)])
def test_a_handicap_raises_black_by_100_times_h_minus_half(handicap, black):
    assert fictitious_levels(300.0, 0.0, handicap) == (300.0, black)


def test_the_basic_change_is_15_plus_the_fictitious_difference_over_15():
    winner, loser = basic_changes(P, 0.0, 75.0, 0.0, 75.0)
    assert winner["basic_change_formula"] == 15 + (75.0 - 0.0) / 15 == 20.0
    assert winner["basic_change"] == 20.0
    assert loser["basic_change"] == -15.0  # the opposite, limited to -15..-1


def test_the_winner_is_limited_to_1_and_40():
    assert basic_changes(P, 0.0, 900.0, 0.0, 900.0)[0]["basic_change"] == 40.0
    winner, loser = basic_changes(P, 300.0, 0.0, 300.0, 0.0)  # 15 - 20 = -5
    assert winner["basic_change"] == 1.0
    assert loser["basic_change"] == -1.0


def test_the_loser_gets_the_opposite_of_the_winner_inside_minus_15_to_minus_1():
    winner, loser = basic_changes(P, 0.0, 30.0, 0.0, 30.0)  # 15 + 2 = 17
    assert loser["basic_change_formula"] == -17.0
    assert loser["basic_change"] == -15.0
    winner, loser = basic_changes(P, 90.0, 0.0, 90.0, 0.0)  # 15 - 6 = 9
    assert (winner["basic_change"], loser["basic_change"]) == (9.0, -9.0)


def test_a_winner_above_400_may_gain_nothing_while_the_loser_still_loses_one():
    winner, loser = basic_changes(P, 500.0, 0.0, 500.0, 0.0)  # 15 - 33.3
    assert (winner["basic_change"], loser["basic_change"]) == (0.0, -1.0)
    winner, _ = basic_changes(P, 400.0, 0.0, 400.0, 0.0)  # exactly 400 is not above
    assert winner["basic_change"] == 1.0


def test_the_strong_and_weak_tests_use_actual_levels_not_fictitious_ones():
    # Black at 350 with 2 stones is fictitiously 500, but not "above 400"
    white, black = fictitious_levels(0.0, 350.0, 2)
    winner, _ = basic_changes(P, 350.0, 0.0, black, white)
    assert winner["basic_change"] == 1.0


def test_a_loser_below_minus_2000_loses_between_0_and_1():
    winner, loser = basic_changes(P, -1990.0, -2100.0, -1990.0, -2100.0)
    assert loser["basic_change"] == -1.0
    # the winner at or above -2000 against a player below -2000 gains at most 1
    assert winner["basic_change"] == 1.0
    both_weak = basic_changes(P, -2500.0, -2100.0, -2500.0, -2100.0)
    assert both_weak[0]["basic_change"] == 40.0  # 15 + 400/15, no -1..1 limit
    assert both_weak[1]["basic_change"] == -1.0


def test_a_weak_loser_of_a_zero_change_shows_plus_zero():
    _, loser = basic_changes(P, 600.0, -2100.0, 600.0, -2100.0)
    assert loser["basic_change"] == 0.0
    assert math.copysign(1, loser["basic_change"]) == 1


def test_a_player_at_or_above_minus_2000_losing_to_one_below_loses_exactly_one():
    winner, loser = basic_changes(P, -2400.0, -2000.0, -2400.0, -2000.0)
    assert winner["basic_change"] == 40.0  # 15 + 400/15, no -1..1 limit for the weak winner
    assert loser["basic_change"] == -1.0  # -40 -> -15 by -15..-1, then -1 by -1..1
    assert (loser["mixed_min"], loser["mixed_max"]) == (-1.0, 1.0)


# --- stages 2 to 6 --------------------------------------------------------------


@pytest.mark.parametrize(("handicap", "factor"), [(0, 1.0), (1, 0.9), (2, 0.8), (9, 1 - 9 / 10)])
def test_the_handicap_factor_is_one_minus_h_over_10(handicap, factor):
    assert handicap_factor(P, 0.0, handicap) == factor


def test_a_player_below_minus_2000_has_no_handicap_factor():
    assert handicap_factor(P, -2000.5, 5) == 1.0
    assert handicap_factor(P, -2000.0, 5) == 0.5


@pytest.mark.parametrize(("size", "factor"), [(19, 1.0), (13, 0.2), (9, 0.1)])
def test_small_boards_count_a_fifth_or_a_tenth(size, factor):
    assert board_size_factor(P, 0.0, size) == factor


def test_a_player_below_minus_2000_has_no_board_size_factor():
    assert board_size_factor(P, -2001.0, 9) == 1.0
    assert board_size_factor(P, -2000.0, 9) == 0.1


@pytest.mark.parametrize(
    ("minutes", "factor"),
    [
        (None, 1.0),
        (Fraction(60), 1.0),
        (Fraction(180), 1.0),
        (Fraction(59), 0.5),
        (Fraction(30), 0.5),
        (Fraction(59, 2), None),
        (Fraction(10), None),
    ],
)
def test_rapid_games_count_half_and_faster_ones_not_at_all(minutes, factor):
    assert time_factor(P, minutes) == factor


@pytest.mark.parametrize(
    ("level", "weight"),
    [
        (0.0, 1.0),
        (150.0, 0.85),
        (-250.0, 1.25),
        (900.0, 0.1),
        (2000.0, 0.1),
        (-1500.0, 2.5),
        (-2900.0, 2.5),
        (850.0, 1 - 850.0 / 1000),
    ],
)
def test_the_level_weight_is_one_minus_level_over_1000_within_a_tenth_and_2_5(level, weight):
    assert level_weight(P, level) == weight


def test_the_barrier_keeps_a_level_at_minus_2950():
    assert apply_barrier(P, -2951.5) == -2950.0
    assert apply_barrier(P, -2949.0) == -2949.0


# --- whole games ---------------------------------------------------------------


def test_a_game_multiplies_the_stages_in_order():
    (alice, bruno) = rate(
        [game("alice", "bruno", "B", handicap=2, komi=Fraction(1, 2))],
        entries(alice="2d", bruno="3k"),
    )[0]
    assert alice.change == -15.0 * (1 - 2 / 10) * 1.0 * 1.0 * (1 - 150.0 / 1000)
    assert bruno.change == 31.666666666666668 * 0.8 * 1.0 * 1.0 * 1.25
    assert bruno.factors["fictitious_level"] == -100.0
    assert (alice.value_after, bruno.value_after) == (150.0 + alice.change, -250 + bruno.change)


def test_the_two_game_worked_example_of_the_docs():
    records = [
        game("alice", "bruno", "B", day=2, handicap=2, komi=Fraction(1, 2)),
        game("alice", "bruno", "W", day=9, board_size=13, time_minutes=Fraction(45)),
    ]
    rows, state = rate(records, entries(alice="2d", bruno="3k"))
    assert [(row.player, row.change, row.value_after) for row in rows] == [
        ("alice", -10.2, 139.8),
        ("bruno", 31.66666666666667, -218.33333333333331),
        ("alice", 0.08602, 139.88602),
        ("bruno", -0.12183333333333334, -218.45516666666666),
    ]
    second = rows[2].factors
    assert second["basic_change_formula"] == -8.875555555555554
    assert (second["board_size_factor"], second["time_factor"]) == (0.2, 0.5)
    assert second["level_weight"] == 0.8602
    assert second["threshold"] == 100.0  # known after the first game
    assert state.players["alice"].games == 2


def test_a_jigo_changes_nothing_but_counts_as_a_game():
    rows, state = rate([game("alice", "bruno", "D")], entries(alice="1d", bruno="1k"))
    assert [row.change for row in rows] == [0.0, 0.0]
    assert [row.factors["result"] for row in rows] == ["jigo", "jigo"]
    assert all(not row.skipped for row in rows)
    assert state.players["alice"].games == 1
    assert state.players["alice"].known


def test_the_barrier_stops_a_level_at_minus_2950():
    players = {"low": Entry(Rank(-30), Fraction(-2949)), "high": Entry(Rank(-25))}
    rows, state = rate([game("low", "high", "B")], players)
    low = rows[0]
    assert low.change < -1.0
    assert low.value_after == -2950.0
    assert low.factors["barrier"] == -2950.0
    assert state.players["low"].value == -2950.0


# --- skipped games -------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"status": Status.FREE}, "free games"),
        ({"time_minutes": Fraction(25)}, "faster than"),
        ({"handicap": 10}, "above 9 stones"),
        ({"board_size": 15}, "board size 15"),
        ({"winner": None}, "no result"),
    ],
)
def test_a_game_it_cannot_rate_is_listed_with_change_0_and_the_reason(fields, reason):
    winner = fields.pop("winner", "W")
    rows, state = rate([game("alice", "bruno", winner, **fields)], entries(alice="1d", bruno="5k"))
    assert len(rows) == 2
    assert [row.value_before for row in rows] == [50.0, -450.0]
    for row in rows:
        assert (row.change, row.value_after) == (0.0, row.value_before)
        assert reason in row.skipped
        assert row.factors["skipped"] == row.skipped
    assert state.players["alice"].games == 0
    assert state.players["alice"].known is False


def test_a_skipped_game_leaves_the_player_unknown_for_the_next_one():
    records = [
        game("nora", "olga", "W", day=1, status=Status.FREE),
        game("olga", "nora", "B", day=2),
    ]
    rows, _ = rate(records, entries(nora="5k", olga="1d"))
    assert rows[3].factors["threshold"] == 50.0
    assert rows[3].factors["start_correction"] == 8.0


# --- rounds of a tournament ------------------------------------------------------


def test_games_of_one_round_use_the_levels_at_the_round_start():
    records = [
        game("ann", "bob", "W", round=1, tournament="T"),
        game("ann", "cid", "W", round=1, tournament="T"),
    ]
    rows, state = rate(records, entries(ann="1d", bob="1d", cid="1d"))
    first, second = rows[0], rows[2]
    assert second.factors["level"] == 50.0  # not ann's level after the first game
    assert second.value_before == first.value_after
    assert state.players["ann"].value == 50.0 + first.change + second.change


def test_the_levels_after_a_round_are_used_for_the_next_round():
    records = [
        game("ann", "bob", "W", round=1, tournament="T"),
        game("ann", "cid", "W", round=2, tournament="T"),
    ]
    rows, _ = rate(records, entries(ann="1d", bob="1d", cid="1d"))
    assert rows[2].factors["level"] == rows[0].value_after == 50.0 + rows[0].change


def test_club_games_of_the_same_day_are_rated_one_after_the_other():
    records = [game("ann", "bob", "W"), game("ann", "cid", "W")]
    rows, _ = rate(records, entries(ann="1d", bob="1d", cid="1d"))
    assert rows[2].factors["level"] == rows[0].value_after


def test_the_barrier_applies_after_each_game_of_a_round():
    players = {
        "low": Entry(Rank(-30), Fraction(-29485, 10)),
        "a": Entry(Rank(-20)),
        "b": Entry(Rank(-20)),
    }
    records = [
        game("low", "a", "B", round=1, tournament="T"),
        game("low", "b", "B", round=1, tournament="T"),
    ]
    rows, _ = rate(records, players, max_adjustments=0)
    assert rows[0].value_after == -2950.0
    assert rows[2].value_before == -2950.0
    assert rows[2].value_after == -2950.0


# --- adjustment of the starting levels -------------------------------------------


def newcomer_tournament() -> tuple[list[GameRecord], dict[str, Entry]]:
    """A 12k who plays like a 2d wins five rounds against established players."""
    established = {f"p{i}": parse_rank(rank) for i, rank in enumerate(["1d", "2d", "1k", "1d"])}
    records = [game(a, b, "W", day=1) for a, b in [("p0", "p1"), ("p2", "p3"), ("p1", "p3")]]
    records += [
        game(name, "nora", "B", day=10, round=n + 1, tournament="OPEN")
        for n, name in enumerate(["p0", "p1", "p2", "p3", "p1"])
    ]
    players = {name: Entry(rank) for name, rank in established.items()}
    players["nora"] = Entry(parse_rank("12k"))
    return records, players


def test_an_underrated_newcomer_is_corrected_until_the_adjustment_converges():
    records, players = newcomer_tournament()
    rows, state = rate(records, players)
    first = rows_of(rows, "nora")[0].factors
    count = first["adjustments"]
    assert 0 < count < P.max_adjustments
    assert first["start_level"] == -1150.0
    assert first["corrected_start_level"] > -400.0
    # one adjustment fewer: the last correction applied was under 10, or after it
    # nobody exceeds their threshold
    earlier = rows_of(rate(records, players, max_adjustments=count - 1)[0], "nora")[0]
    last_correction = first["corrected_start_level"] - earlier.factors["corrected_start_level"]
    total = state.players["nora"].value - first["corrected_start_level"]
    assert 0 < last_correction < 10 or abs(total) <= 50
    assert last_correction > 0


def test_the_adjustment_spares_the_newcomers_opponents():
    records, players = newcomer_tournament()
    adjusted = rate(records, players)[0]
    plain = rate(records, players, max_adjustments=0)[0]
    losses = [row.change for row in adjusted if row.opponent == "nora"]
    plain_losses = [row.change for row in plain if row.opponent == "nora"]
    assert all(a >= b for a, b in zip(losses, plain_losses, strict=True))
    assert sum(losses) > sum(plain_losses)


def test_the_adjustment_stops_after_at_most_max_adjustments():
    rows, _ = rate([game("olga", "nora", "B")], entries(olga="1d", nora="20k"))
    assert rows[1].factors["adjustments"] == 50
    rows, _ = rate([game("olga", "nora", "B")], entries(olga="1d", nora="20k"), max_adjustments=3)
    assert rows[1].factors["adjustments"] == 3
    assert rows[1].factors["corrected_start_level"] == -1950.0 + 3 * 50.0


def test_each_correction_is_the_change_beyond_the_threshold():
    # a 5k beating a 1d: 40 x 1.45 = 58, corrected by 8, then 57.68 and the loop stops
    rows, state = rate([game("olga", "nora", "B")], entries(olga="1d", nora="5k"))
    nora = rows[1]
    assert nora.factors["start_correction"] == 58.0 - 50.0
    assert nora.factors["corrected_start_level"] == -442.0
    assert nora.factors["game_change"] == 57.68
    assert nora.factors["adjustments"] == 1
    assert nora.value_before == -450.0
    assert nora.change == 57.68  # the game's change; the correction is in the factors
    assert nora.value_after == state.players["nora"].value == -442.0 + 57.68
    assert rows[0].factors["opponent_level"] == -442.0


def test_only_a_change_beyond_the_threshold_is_corrected():
    # a 3k beating a 2d gains 40 x 1.25 = 50: not above 50
    rows, _ = rate([game("dan", "kyu", "B")], entries(dan="2d", kyu="3k"))
    assert rows[1].factors["game_change"] == 50.0
    assert rows[1].factors["adjustments"] == 0
    # a 4k gains 40 x 1.35 = 54: corrected by 4
    rows, _ = rate([game("dan", "kyu", "B")], entries(dan="2d", kyu="4k"))
    assert rows[1].factors["start_correction"] == pytest.approx(4.0)
    assert rows[1].factors["adjustments"] == 1


def test_a_known_player_has_the_threshold_100():
    records = [game("olga", "nora", "B", day=1), game("olga", "nora", "B", day=2)]
    rows, _ = rate(records, entries(olga="1d", nora="5k"))
    second = rows[3].factors
    assert second["threshold"] == 100.0
    assert second["game_change"] > 50.0
    assert second["start_correction"] == 0.0


def test_a_level_from_players_or_a_reset_makes_a_player_known():
    given = {"olga": Entry(parse_rank("1d")), "nora": Entry(parse_rank("5k"), Fraction(-450))}
    rows, _ = rate([game("olga", "nora", "B")], given)
    assert rows[1].factors["threshold"] == 100.0
    assert rows[1].factors["start_correction"] == 0.0
    reset = [adjustment("nora", "5k", day=1), game("olga", "nora", "B", day=2)]
    rows, _ = rate(reset, entries(olga="1d", nora="5k"))
    assert rows[2].factors["threshold"] == 100.0


def test_a_correction_down_follows_the_sign_of_the_change():
    # a strong 9d loses everything in a one-game tournament with a weight of 0.15
    players = {"top": Entry(parse_rank("9d")), "weak": Entry(parse_rank("20k"))}
    rows, _ = rate([game("top", "weak", "B")], players, known_threshold=0.0, unknown_threshold=0.0)
    top = rows[0]
    assert top.factors["start_correction"] < 0
    assert top.change < 0


def test_the_record_sheet_adds_up_from_the_level_the_player_had_and_the_correction():
    records, players = newcomer_tournament()
    rows, state = rate(records, players)
    corrected = 0
    for name in players:
        sheet = rows_of(rows, name)
        level = entry_level(players[name].rank)
        for row in sheet:
            assert row.value_before == level
            assert row.change == row.factors["game_change"]
            correction = row.factors.get("start_correction", 0.0)
            corrected += correction != 0
            expected = row.value_before + correction + row.change
            assert expected == pytest.approx(row.value_after, abs=1e-9)
            level = row.value_after
        assert level == state.players[name].value
    assert corrected, "the tournament needs corrections for this test to mean anything"


# --- committee adjustments -----------------------------------------------------


def test_an_adjustment_sets_the_default_level_of_the_new_rank():
    rows, state = rate(
        [game("ann", "bob", "W", day=1), adjustment("ann", "3k")], entries(ann="1d", bob="1d")
    )
    reset = rows[2]
    assert (reset.colour, reset.opponent, reset.value_after) == (None, "ann", -250.0)
    assert reset.change == -250.0 - rows[0].value_after
    assert str(reset.rank_after) == "3k"
    assert state.players["ann"].known


def test_an_adjustment_value_is_a_level():
    rows, _ = rate([adjustment("ann", "3d", 275.5, day=1)], entries(ann="1d"))
    assert (rows[0].value_after, str(rows[0].rank_after)) == (275.5, "3d")


def test_an_adjustment_below_the_barrier_is_skipped():
    rows, state = rate([adjustment("ann", "30k", -3000, day=1)], entries(ann="1d"))
    assert "barrier" in rows[0].skipped
    assert rows[0].value_after == 50.0
    assert state.players["ann"].known is False


# --- state, params, properties ---------------------------------------------------


def test_the_player_state_round_trips_through_data():
    player = FrenchPlayer(rank=Rank(-3), value=-218.33333333333331, games=2, known=True)
    assert FrenchPlayer.from_data(player.to_data()) == player


def test_a_replay_continued_from_a_checkpoint_gives_the_same_levels():
    records, players = newcomer_tournament()
    whole = rate(records, players)[1]
    algorithm = get_algorithm("french")
    state = algorithm.new_state(players)
    list(replay(algorithm, records[:3], players, state))
    resumed = algorithm.new_state(players)
    resumed.load(state.dump())
    list(replay(algorithm, records[3:], players, resumed))
    assert {n: p.value for n, p in resumed.players.items()} == {
        n: p.value for n, p in whole.players.items()
    }


def test_params_are_the_seeds_numbers_and_can_be_overridden():
    params = parse_params(FrenchParams, ["unknown_threshold=75", "max_adjustments=3"])
    assert (params.unknown_threshold, params.max_adjustments) == (75.0, 3)
    defaults = dataclasses.asdict(FrenchParams())
    assert defaults["winner_max"] == 40.0 and defaults["barrier"] == -2950.0
    with pytest.raises(ValueError):
        FrenchParams(weight_min=3.0)


names = st.sampled_from(["a", "b", "c", "d"])
records_strategy = st.lists(
    st.builds(
        lambda pair, winner, handicap, size, minutes, status, tournament, round_: game(
            pair[0],
            pair[1],
            winner,
            handicap=handicap,
            board_size=size,
            time_minutes=minutes,
            status=status,
            tournament=tournament,
            round=round_,
        ),
        st.tuples(names, names).filter(lambda pair: pair[0] != pair[1]),
        st.sampled_from(["W", "B", "D", None]),
        st.integers(0, 12),
        st.sampled_from([9, 13, 19, 7]),
        st.sampled_from([None, Fraction(20), Fraction(30), Fraction(45), Fraction(90)]),
        st.sampled_from([Status.NORMAL, Status.FREE, Status.TOURNAMENT, Status.INTERNET]),
        st.sampled_from(["", "", "T"]),
        st.integers(0, 3),
    ),
    max_size=12,
)
ranks_strategy = st.fixed_dictionaries(
    {name: st.integers(-40, 8).map(Rank) for name in ["a", "b", "c", "d"]}
)


@settings(max_examples=150, deadline=None)
@given(records_strategy, ranks_strategy)
def test_any_games_are_rated_or_skipped_without_crashing(records, ranks):
    players = {name: Entry(rank) for name, rank in ranks.items()}
    rows, _ = rate(records, players)
    assert len(rows) == 2 * len(records)
    for row in rows:
        assert row.value_after >= P.barrier
        assert math.isfinite(row.change)
        assert all(isinstance(v, str | int | float) for v in row.factors.values())
        if row.skipped:
            assert row.change == 0.0
            assert row.value_after == row.value_before


@settings(max_examples=150, deadline=None)
@given(
    st.floats(-2950, 2000),
    st.floats(-2950, 2000),
    st.integers(0, 9),
    st.sampled_from([9, 13, 19]),
    st.sampled_from(["W", "B"]),
)
def test_a_win_never_lowers_a_level_and_a_loss_never_raises_it(white, black, h, size, winner):
    players = {"w": Entry(Rank(0), Fraction(white)), "b": Entry(Rank(0), Fraction(black))}
    rows, _ = rate([game("w", "b", winner, handicap=h, board_size=size)], players)
    won, lost = (rows[0], rows[1]) if winner == "W" else (rows[1], rows[0])
    assert 0 <= won.change <= 40 * 2.5
    assert -15 * 2.5 <= lost.change <= 0


# --- the command line -----------------------------------------------------------

DOC_EXAMPLE = """\
date,white,black,white_rank,black_rank,handicap,komi,winner,board_size,time_minutes
2024-03-02,alice,bruno,2d,3k,2,0.5,B,19,
2024-03-09,alice,bruno,,,0,6.5,W,13,45
"""


def test_the_cli_prints_the_history_of_the_worked_example(tmp_path, capsys):
    games = tmp_path / "games.csv"
    games.write_text(DOC_EXAMPLE)
    assert main(["rate", "--algorithm", "french", str(games)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "player,opponent,opponent_rank,colour,handicap,komi,winner,status,change,new_value,"
        "new_rank,date,comment",
        "alice,bruno,3k,W,2,0.5,B,normal,-10.2,139.8,2d,2024-03-02,",
        "bruno,alice,2d,B,2,0.5,B,normal,31.66666666666667,-218.33333333333331,3k,2024-03-02,",
        "alice,bruno,3k,W,0,6.5,W,normal,0.08602,139.88602,2d,2024-03-09,",
        "bruno,alice,2d,B,0,6.5,W,normal,-0.12183333333333334,-218.45516666666666,3k,2024-03-09,",
    ]


def test_the_cli_prints_the_standings(tmp_path, capsys):
    games = tmp_path / "games.csv"
    games.write_text(DOC_EXAMPLE)
    assert main(["rate", "--algorithm", "french", "--output", "standings", str(games)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "player,rank,value,games",
        "alice,2d,139.88602,2",
        "bruno,3k,-218.45516666666666,2",
    ]


def test_the_cli_lists_a_too_fast_game_as_not_rated(tmp_path, capsys):
    games = tmp_path / "games.csv"
    games.write_text(
        "date,white,black,white_rank,black_rank,winner,time_minutes\n"
        "2024-03-02,alice,bruno,2d,3k,W,15\n"
    )
    assert main(["rate", "--algorithm", "french", str(games)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("alice,bruno,3k,W,0,6.5,W,normal,0.0,150.0,2d,2024-03-02,")
    assert "not rated: 15.0 minutes is faster than 30.0 minutes per player" in lines[1]


def test_the_cli_uses_levels_from_players(tmp_path, capsys):
    games = tmp_path / "games.csv"
    games.write_text(DOC_EXAMPLE)
    players = tmp_path / "players.csv"
    players.write_text("player,rank,rating\nalice,2d,199\nbruno,3k\n")
    args = ["rate", "--algorithm", "french", "--players", str(players), "--output", "standings"]
    assert main([*args, str(games)]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("alice,2d,1")


@pytest.mark.parametrize(
    ("extra", "csv_text", "message"),
    [
        ([], "date,white,black,winner\n2024-03-02,alice,bruno,X\n", "winner"),
        (["--params", "barrier=low"], DOC_EXAMPLE, "barrier"),
        (["--params", "weight_min=9"], DOC_EXAMPLE, "weight_min"),
        (["--params", "stones=3"], DOC_EXAMPLE, "unknown parameter"),
    ],
)
def test_the_cli_rejects_bad_input_with_exit_2(tmp_path, capsys, extra, csv_text, message):
    games = tmp_path / "games.csv"
    games.write_text(csv_text)
    assert main(["rate", "--algorithm", "french", *extra, str(games)]) == 2
    assert message in capsys.readouterr().err


def test_the_cli_rejects_a_players_level_below_the_barrier(tmp_path, capsys):
    games = tmp_path / "games.csv"
    games.write_text(DOC_EXAMPLE)
    players = tmp_path / "players.csv"
    players.write_text("alice,30k,-3000\n")
    assert main(["rate", "--algorithm", "french", "--players", str(players), str(games)]) == 2
    assert "barrier" in capsys.readouterr().err
