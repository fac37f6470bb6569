"""EGF GoR: egf-2021, egf-2020 and egf-legacy (ratings/engine/egf.py, egf.md, seed 003)."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from datetime import date
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import parse_params, replay
from ratings.engine.cli import main
from ratings.engine.egf import (
    EgfLegacyParams,
    a_legacy,
    bonus_2020,
    bonus_2021,
    con_2020,
    con_2021,
    con_legacy,
    grade_rating,
    rating_stones,
    se_2020,
    se_2021,
    se_legacy,
)
from ratings.engine.ranks import Rank, parse_rank
from ratings.engine.records import Entry, GameRecord, Status, Winner

EGF_SETS = ("egf-2021", "egf-2020", "egf-legacy")
_seq = itertools.count(1)


def game(white: str, black: str, winner: str = "W", *, day: int = 1, **fields) -> GameRecord:
    fields.setdefault("komi", Fraction(13, 2) if not fields.get("handicap") else Fraction(1, 2))
    return GameRecord(
        date=date(2024, 3, day),
        white=white,
        black=black,
        winner=Winner(winner) if winner else None,
        seq=next(_seq),
        **fields,
    )


def adjustment(player: str, rank: str, value: float | None = None, **fields) -> GameRecord:
    return GameRecord(
        date=date(2024, 3, fields.pop("day", 28)),
        white=player,
        black=player,
        white_rank=parse_rank(rank),
        status=Status.ADJUSTMENT,
        value=Fraction(value) if value is not None else None,
        seq=next(_seq),
        **fields,
    )


def at(rating: float, rank: str = "1d") -> Entry:
    return Entry(parse_rank(rank), Fraction(rating))


def rate(name: str, records, entries, **params):
    algorithm = get_algorithm(name)
    if params:
        algorithm = get_algorithm(name, dataclasses.replace(algorithm.params, **params))
    state = algorithm.new_state(entries)
    rows = list(replay(algorithm, records, entries, state))
    return rows, state


def truncated(value: float, places: int = 3) -> float:
    """The published checks are truncated, not rounded, to three decimals."""
    return math.floor(value * 10**places) / 10**places


# --- egf-2021: the published numbers ---------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "published"),
    [
        (100, 84.448),
        (500, 68.203),
        (1000, 49.787),
        (1500, 33.634),
        (2100, 17.580),
        (2700, 5.799),
        (3100, 1.000),
    ],
)
def test_con_2021_matches_the_published_table(rating, published):
    assert truncated(con_2021(rating)) == published


def test_se_2021_matches_the_published_even_and_handicap_numbers():
    assert se_2021(100, 100) == 0.5
    assert truncated(se_2021(100, 500)) == 0.281
    # receiving 2 stones: Black's rating raised by 150 in the expected result only
    assert truncated(se_2021(100 + 150, 100)) == 0.583


def test_a_2100_beating_a_2100_ends_at_2109_306_in_2021():
    rows, state = rate("egf-2021", [game("w", "b", "W")], {"w": at(2100), "b": at(2100)})
    assert truncated(state.players["w"].value) == 2109.306
    assert rows[0].factors["se"] == 0.5
    assert rows[0].factors["con"] == con_2021(2100)
    assert rows[0].factors["bonus"] == bonus_2021(2100)


def test_a_handicap_game_uses_the_published_expectation_of_the_receiver():
    rows, _ = rate(
        "egf-2021",
        [game("w", "b", "B", handicap=2)],
        {"w": at(100, "20k"), "b": at(100, "20k")},
    )
    white, black = rows
    assert truncated(black.factors["se"]) == 0.583
    assert black.factors["own_adjusted"] == 250
    assert white.factors["opponent_adjusted"] == 250
    assert white.factors["own_adjusted"] == 100
    # con and the bonus use the player's own, unadjusted rating
    assert black.factors["con"] == con_2021(100)


# --- egf-legacy: the EGD's worked examples ----------------------------------------------


@pytest.mark.parametrize(
    ("white", "black", "handicap", "winner", "new_white", "new_black"),
    [
        (400, 320, 0, "B", 340, 383),
        (2400, 2400, 0, "W", 2407.5, 2392.5),
        (2400, 1850, 5, "B", 2389, 1875),
    ],
)
def test_legacy_reproduces_the_egd_worked_examples_with_eps_0(
    white, black, handicap, winner, new_white, new_black
):
    records = [game("w", "b", winner, handicap=handicap)]
    _, state = rate("egf-legacy", records, {"w": at(white), "b": at(black)}, eps=0.0)
    # the EGD publishes these rounded to the integer, or exactly when they are exact
    for name, published in (("w", new_white), ("b", new_black)):
        places = 0 if float(published).is_integer() else 1
        assert round(state.players[name].value, places) == published


def test_legacy_with_eps_gives_2407_62_and_2392_62():
    _, state = rate("egf-legacy", [game("w", "b", "W")], {"w": at(2400), "b": at(2400)})
    assert state.players["w"].value == pytest.approx(2407.62, abs=1e-9)
    assert state.players["b"].value == pytest.approx(2392.62, abs=1e-9)


def test_legacy_a_and_con_follow_the_table_and_its_limits():
    assert a_legacy(320) == 189
    assert a_legacy(2700) == a_legacy(3000) == 70
    assert a_legacy(100) == a_legacy(-500) == 200
    assert con_legacy(320) == pytest.approx(104)
    assert con_legacy(1850) == pytest.approx(33)
    assert con_legacy(100) == con_legacy(-900) == 116
    assert con_legacy(2700) == con_legacy(2950) == 10
    assert con_legacy(1400) == 51


def test_legacy_lowers_each_expectation_by_half_eps():
    lower, a = se_legacy(320, 400, 0.016)
    upper, a_upper = se_legacy(400, 320, 0.016)
    assert a == a_upper == 189  # a comes from the lower rating, for both players
    assert lower + upper == pytest.approx(1 - 0.016)
    assert se_legacy(1000, 1000, 0.016)[0] == pytest.approx(0.492)


# --- egf-2020: its own formula at chosen points ------------------------------------------


def test_2020_formulas_at_chosen_points():
    assert con_2020(2000) == pytest.approx(26)  # 0.13 * 1200 / 6
    assert bonus_2020(2150) == pytest.approx(0.0017 * 750 / 2 - 0.3)  # 0.3375
    assert bonus_2020(2900) == pytest.approx(-0.3)
    assert se_2020(2000, 2000) == 0.5
    assert se_2020(2100, 2000) == pytest.approx(1 / (1 + (11 / 12) ** 6))


def test_a_2000_beating_a_2000_in_2020_gains_half_con_plus_the_bonus():
    _, state = rate("egf-2020", [game("w", "b", "W")], {"w": at(2000), "b": at(2000)})
    bonus = 0.0017 * 900 / (1 + math.exp(-150 / 200)) - 0.3
    assert state.players["w"].value == pytest.approx(2000 + 13 + bonus)
    assert state.players["b"].value == pytest.approx(2000 - 13 + bonus)


@given(st.floats(-900, 3199.99))
def test_se_of_equal_ratings_is_one_half_in_2020(rating):
    assert se_2020(rating, rating) == 0.5


@given(st.floats(-900, 3100), st.floats(-900, 3100), st.floats(-900, 3100))
def test_se_rises_with_the_own_rating_in_2020(own, higher, opponent):
    low, high = sorted((own, higher))
    assert se_2020(low, opponent) <= se_2020(high, opponent)


@given(st.floats(-900, 3100), st.floats(-900, 3100))
def test_the_2020_bonus_falls_with_rating_up_to_3100(one, other):
    # Past about 3100 it turns back up towards its limit of -0.3 (see the docs).
    low, high = sorted((one, other))
    assert bonus_2020(low) >= bonus_2020(high)


# --- properties ------------------------------------------------------------------------


@given(st.floats(-900, 3299.999))
def test_se_of_equal_adjusted_ratings_is_one_half_in_2021(rating):
    assert se_2021(rating, rating) == 0.5


@given(st.integers(-900, 2500), st.integers(1, 9))
def test_a_handicap_that_levels_the_ratings_gives_one_half_in_2021(black, stones):
    white = black + 100 * stones - 50
    rows, _ = rate(
        "egf-2021", [game("w", "b", "W", handicap=stones)], {"w": at(white), "b": at(black)}
    )
    assert rows[0].factors["se"] == rows[1].factors["se"] == 0.5


@settings(max_examples=200)
@given(
    st.floats(100, 3000),
    st.floats(100, 3000),
    st.integers(0, 9),
    st.sampled_from("ABCD"),
    st.floats(0, 0.1),
    st.booleans(),
)
def test_a_win_never_lowers_a_legacy_rating(own, opponent, handicap, klass, eps, own_is_black):
    white, black = ("opp", "me") if own_is_black else ("me", "opp")
    winner = "B" if own_is_black else "W"
    records = [game(white, black, winner, handicap=handicap, tournament_class=klass)]
    rows, state = rate("egf-legacy", records, {"me": at(own), "opp": at(opponent)}, eps=eps)
    (mine,) = [row for row in rows if row.player == "me"]
    assert mine.change > 0
    assert state.players["me"].value >= own


def _random_records(seed: int) -> list[GameRecord]:
    rng = random.Random(seed)
    names = [f"p{index}" for index in range(6)]
    records = []
    for _ in range(rng.randint(1, 30)):
        white, black = rng.sample(names, 2)
        code = rng.choice(["", "", "cup", "league"])
        records.append(
            game(
                white,
                black,
                rng.choice("WWBBD"),
                day=rng.randint(1, 27),
                handicap=rng.choice([0, 0, 1, 2, 5, 9]),
                tournament=code,
                tournament_class=rng.choice("ABCD"),
                round=rng.randint(1, 5) if code else 0,
            )
        )
    if rng.random() < 0.5:
        records.append(adjustment(rng.choice(names), rng.choice(["45k", "30k", "3k"])))
    return records


@settings(max_examples=60)
@given(
    st.integers(0, 10**6),
    st.sampled_from(EGF_SETS),
    st.sampled_from([None, -900.0, -500.0, 100.0]),
    st.lists(st.sampled_from(["50k", "35k", "30k", "25k", "20k", "10k", "2d"]), min_size=6),
)
def test_the_floor_holds_for_every_row(seed, name, floor, ranks):
    entries = {f"p{index}": Entry(parse_rank(rank)) for index, rank in enumerate(ranks[:6])}
    params = {"floor": floor} if floor is not None else {}
    rows, state = rate(name, _random_records(seed), entries, **params)
    lowest = floor if floor is not None else get_algorithm(name).params.floor
    assert all(row.value_after >= lowest for row in rows)
    assert all(player.value >= lowest for player in state.players.values())


@settings(max_examples=60)
@given(st.integers(0, 10**6), st.sampled_from(EGF_SETS), st.randoms())
def test_a_tournaments_result_does_not_depend_on_the_order_of_its_rounds(seed, name, rng):
    tournament = [record for record in _random_records(seed) if not record.is_adjustment] or [
        game("p0", "p1")
    ]
    tournament = [dataclasses.replace(record, tournament="open") for record in tournament]
    rounds = sorted({record.round for record in tournament})
    shuffled = rounds[:]
    rng.shuffle(shuffled)
    relabelled = [
        dataclasses.replace(record, round=shuffled[rounds.index(record.round)])
        for record in tournament
    ]
    entries = {f"p{index}": Entry(Rank(-25 + 5 * index)) for index in range(6)}
    _, state = rate(name, tournament, entries)
    _, again = rate(name, relabelled, entries)
    assert {n: p.value for n, p in state.players.items()} == {
        n: p.value for n, p in again.players.items()
    }


# --- tournaments as one block -------------------------------------------------------------


def test_every_game_of_a_tournament_uses_the_ratings_at_its_start():
    entries = {"a": at(2000, "1k"), "b": at(2000, "1k"), "c": at(1500, "6k")}
    tournament = [
        game("a", "b", "W", tournament="t", round=1),
        game("a", "c", "W", tournament="t", round=2, day=2),
    ]
    rows, state = rate("egf-2021", tournament, entries)
    alone, _ = rate("egf-2021", [game("a", "c", "W")], entries)
    second = [row for row in rows if row.player == "a"][1]
    assert second.change == alone[0].change
    assert second.factors["start_rating"] == 2000
    assert state.players["a"].value == 2000 + rows[0].change + second.change


def test_a_tournament_is_rated_at_the_position_of_its_first_game():
    entries = {"a": at(2000, "1k"), "b": at(2000, "1k"), "c": at(2000, "1k")}
    records = [
        game("a", "b", "W", day=1, tournament="t", round=1),
        game("a", "c", "W", day=2),  # a club game during the tournament
        game("c", "a", "W", day=3, tournament="t", round=2),
    ]
    rows, _ = rate("egf-2021", records, entries)
    assert [row.seq for row in rows[::2]] == [records[0].seq, records[2].seq, records[1].seq]
    club = rows[4]
    assert club.factors["start_rating"] == rows[3].value_after  # after the whole tournament


def test_the_floor_is_not_carried_into_the_next_running_sum():
    entries = {"low": at(100, "20k"), "x": at(100, "20k"), "y": at(100, "20k")}
    tournament = [
        game("x", "low", "W", tournament="t", round=1),
        game("y", "low", "B", tournament="t", round=2),
    ]
    rows, state = rate("egf-legacy", tournament, entries)
    loss, win = [row for row in rows if row.player == "low"]
    assert loss.value_after == 100 and loss.factors["floored"]
    assert win.value_after == max(100, 100 + loss.change + win.change)
    assert win.value_after < 100 + win.change  # the floor's lift is not kept
    assert state.players["low"].value == win.value_after


def test_the_class_weight_multiplies_the_change_bonus_included():
    entries = {"w": at(1500, "6k"), "b": at(1400, "7k")}
    (full, _), _ = rate("egf-2021", [game("w", "b", "B", tournament_class="A")], entries)
    for klass, weight in (("B", 0.75), ("C", 0.5), ("D", 0.25)):
        (row, _), _ = rate("egf-2021", [game("w", "b", "B", tournament_class=klass)], entries)
        assert row.change == pytest.approx(weight * full.change)
        assert row.factors["class_weight"] == weight
        unweighted = row.factors["con"] * (row.factors["score"] - row.factors["se"])
        assert row.change == pytest.approx(weight * (unweighted + row.factors["bonus"]))


def test_komi_plays_no_part_and_one_stone_counts_fifty_points():
    entries = {"w": at(1800, "3k"), "b": at(1700, "4k")}
    (even, _), _ = rate("egf-2021", [game("w", "b", "W", komi=Fraction(13, 2))], entries)
    (no_komi, _), _ = rate("egf-2021", [game("w", "b", "W", komi=Fraction(-5))], entries)
    assert even.change == no_komi.change
    (one_stone, _), _ = rate("egf-2021", [game("w", "b", "W", handicap=1)], entries)
    assert one_stone.factors["opponent_adjusted"] == 1750


@pytest.mark.parametrize("name", EGF_SETS)
def test_jigo_scores_one_half(name):
    rows, _ = rate(name, [game("w", "b", "D")], {"w": at(1800), "b": at(1800)})
    assert [row.factors["score"] for row in rows] == [0.5, 0.5]
    assert rows[0].change == rows[1].change


def test_a_tournament_is_listed_in_round_order_whatever_the_dates():
    entries = {"a": at(2000, "1k"), "b": at(2000, "1k")}
    tournament = [
        game("a", "b", "W", day=5, tournament="t", round=1),
        game("b", "a", "W", day=4, tournament="t", round=2),
    ]
    rows, _ = rate("egf-2021", tournament, entries)
    assert [row.round for row in rows] == [1, 1, 2, 2]
    assert rows[2].value_before == rows[1].value_after  # b's running rating after round 1


# --- games the sets do not rate -----------------------------------------------------------


@pytest.mark.parametrize("name", EGF_SETS)
@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"board_size": 9}, "19x19 games only, not 9x9"),
        ({"board_size": 13}, "not 13x13"),
        ({"status": Status.FREE}, "free games"),
        ({"handicap": 12, "komi": Fraction(1, 2)}, "more than 9 handicap stones (12 given)"),
        ({"tournament_class": "E"}, "'E' is not a tournament class"),
    ],
)
def test_a_game_it_cannot_rate_is_listed_with_the_reason(name, fields, reason):
    records = [game("w", "b", "W", tournament="t", **fields), game("w", "b", "W")]
    rows, state = rate(name, records, {"w": at(1800), "b": at(1800)})
    skipped = rows[:2]
    for row in skipped:
        assert reason in row.skipped
        assert row.factors["skipped"] == row.skipped
        assert row.change == 0 and row.value_after == row.value_before == 1800
    assert state.players["w"].games == 1


def test_a_game_without_a_result_is_skipped_not_a_crash():
    rows, _ = rate("egf-2021", [game("w", "b", "")], {"w": at(1800), "b": at(1800)})
    assert rows[0].skipped == "the game has no result"


def test_max_handicap_is_a_parameter():
    records = [game("w", "b", "B", handicap=6)]
    entries = {"w": at(1800), "b": at(1200)}
    rows, _ = rate("egf-legacy", records, entries, max_handicap=5)
    assert "more than 5 handicap stones" in rows[0].skipped
    rows, _ = rate("egf-legacy", records, entries)
    assert not rows[0].skipped


# --- grades, the floor and the true entry grade ------------------------------------------


def test_gor_to_grade_puts_the_border_at_2050_and_caps_at_9d():
    assert rating_stones(2049.999) == -1  # 1k
    assert rating_stones(2050) == 0  # 1d
    assert rating_stones(2100) == 0
    assert rating_stones(-900) == -30
    assert rating_stones(3500) == 8  # 9d at most
    assert rating_stones(-5000) == -50


def test_grades_start_at_their_gor_and_pros_at_2700_plus_30_a_grade():
    assert grade_rating(parse_rank("1d")) == 2100
    assert grade_rating(parse_rank("20k")) == 100
    assert grade_rating(parse_rank("30k")) == -900
    assert grade_rating(parse_rank("7d")) == 2700
    assert grade_rating(parse_rank("1p")) == 2700
    assert grade_rating(parse_rank("9p")) == 2940


def test_a_professional_keeps_showing_the_professional_grade():
    player = get_algorithm("egf-2021").new_player(Entry(parse_rank("3p")))
    assert player.value == 2760
    assert str(player.rank) == "3p"


@pytest.mark.parametrize(("name", "floor"), [("egf-2021", -900), ("egf-2020", -900)])
def test_a_35k_starts_at_the_floor_and_keeps_showing_35k(name, floor):
    entries = {"kid": Entry(parse_rank("35k")), "tutor": at(1000, "11k")}
    records = [game("tutor", "kid", "W", day=day) for day in range(1, 4)]
    rows, state = rate(name, records, entries)
    kid = state.players["kid"]
    assert [str(row.rank_after) for row in rows if row.player == "kid"] == ["35k"] * 3
    assert floor <= kid.value < floor + 50  # still within the floor's grade (30k)
    assert str(kid.rank) == "35k"


def test_the_true_grade_gives_way_once_the_rating_reaches_a_grade_above_the_floor():
    entries = {"kid": Entry(parse_rank("35k")), "peer": at(-900, "30k")}
    rows, state = rate("egf-legacy", [game("peer", "kid", "B")], entries, floor=-900.0)
    # a win from the floor lifts a legacy rating by about 58: into 29k
    assert state.players["kid"].value > -850
    assert str(state.players["kid"].rank) == "29k"
    assert str(rows[1].rank_before) == "35k"


def test_legacy_shows_a_30k_entrant_as_30k_at_its_20k_floor():
    # The seed's example: Eriksson entered at 30 kyu and the EGD showed 20 kyu.
    player = get_algorithm("egf-legacy").new_player(Entry(parse_rank("30k")))
    assert player.value == 100
    assert str(player.rank) == "30k"


def test_a_starting_rating_below_the_floor_is_raised_to_it():
    player = get_algorithm("egf-2021").new_player(Entry(parse_rank("28k"), Fraction(-1200)))
    assert player.value == -900
    assert str(player.rank) == "30k"  # a 28k declared above the floor shows the GoR's grade


# --- adjustments -------------------------------------------------------------------------


@pytest.mark.parametrize("name", EGF_SETS)
def test_an_adjustment_resets_a_rating_down_as_well_as_up(name):
    entries = {"p": at(2300, "3d")}
    rows, state = rate(name, [adjustment("p", "1k", day=1), adjustment("p", "2d", day=2)], entries)
    down, up = rows
    assert (down.value_before, down.value_after, str(down.rank_after)) == (2300, 2000, "1k")
    assert down.change == -300 and down.colour is None and down.opponent == "p"
    assert (up.value_after, str(up.rank_after)) == (2200, "2d")
    assert state.players["p"].games == 0


def test_an_adjustment_takes_a_given_value_and_raises_it_to_the_floor():
    entries = {"p": at(1500, "6k")}
    rows, _ = rate("egf-2021", [adjustment("p", "5k", 1650.5, day=1)], entries)
    assert rows[0].value_after == 1650.5
    rows, _ = rate("egf-2021", [adjustment("p", "40k", day=1)], entries)
    assert rows[0].value_after == -900
    assert str(rows[0].rank_after) == "40k"
    assert rows[0].factors["raised_to_floor"]


def test_an_adjustment_the_set_cannot_hold_is_skipped_with_the_reason():
    rows, state = rate("egf-2020", [adjustment("p", "9d", 3250)], {"p": at(2000, "1k")})
    assert "must be below 3200" in rows[0].skipped
    assert state.players["p"].value == 2000


def test_an_adjustment_for_another_algorithm_is_ignored():
    records = [adjustment("p", "1k", algorithm="egf-legacy", day=1), game("p", "q", "W", day=2)]
    rows, _ = rate("egf-2021", records, {"p": at(2300), "q": at(2300)})
    assert not any(row.is_adjustment for row in rows)
    assert rows[0].value_before == 2300


# --- parameters, state and the command line ----------------------------------------------


def test_params_defaults_and_validation():
    assert get_algorithm("egf-2021").params.floor == -900
    assert get_algorithm("egf-2020").params.adjusted_max == 3199.999
    assert get_algorithm("egf-legacy").params == EgfLegacyParams(floor=100, eps=0.016)
    with pytest.raises(ValueError, match="floor"):
        EgfLegacyParams(floor=5000)
    with pytest.raises(ValueError, match="adjusted_min"):
        parse_params(get_algorithm("egf-2021").params_type, ["floor=-1500"])


def test_the_state_of_a_35k_survives_a_dump_and_load():
    algorithm = get_algorithm("egf-2021")
    entries = {"kid": Entry(parse_rank("35k")), "pro": Entry(parse_rank("2p"))}
    state = algorithm.new_state(entries)
    list(replay(algorithm, [game("pro", "kid", "W")], entries, state))
    again = algorithm.new_state(entries)
    again.load(state.dump())
    assert again.players == state.players
    assert str(again.players["kid"].rank) == "35k"


def _write(tmp_path, text: str):
    path = tmp_path / "games.csv"
    path.write_text(text, encoding="utf-8")
    return str(path)


GAMES_CSV = """\
date,white,black,white_rank,black_rank,handicap,winner,tournament,round
2024-03-02,anna,ben,1d,1d,0,W,,
2024-03-09,anna,carl,,5k,4,B,SPRING,1
2024-03-10,carl,ben,,,0,D,SPRING,2
"""


def test_cli_history_shows_full_precision_ratings(tmp_path, capsys):
    assert main(["rate", "--algorithm", "egf-2021", _write(tmp_path, GAMES_CSV)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("player,opponent,opponent_rank,colour")
    assert lines[1] == (
        f"anna,ben,1d,W,0,6.5,W,normal,{9.306246101609077!r},{2109.306246101609!r},1d,2024-03-02,"
    )
    assert len(lines) == 7


def test_cli_standings_and_params(tmp_path, capsys):
    path = _write(tmp_path, GAMES_CSV)
    args = ["rate", "--algorithm", "egf-legacy", "--params", "eps=0", "--output", "standings"]
    assert main([*args, path]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "player,rank,value,games"
    assert [line.split(",")[0] for line in lines[1:]] == ["anna", "ben", "carl"]


@pytest.mark.parametrize(
    "args",
    [
        ["--params", "floor=abc"],
        ["--params", "floor=9000"],
        ["--params", "eps=0.1"],  # eps is not a parameter of egf-2021
    ],
)
def test_cli_bad_params_exit_2(tmp_path, capsys, args):
    path = _write(tmp_path, GAMES_CSV)
    assert main(["rate", "--algorithm", "egf-2021", *args, path]) == 2
    assert "--params" in capsys.readouterr().err


def test_cli_rejects_a_starting_rating_the_set_cannot_hold(tmp_path, capsys):
    players = tmp_path / "players.csv"
    players.write_text("player,rank,rating\nanna,9d,3400\n", encoding="utf-8")
    path = _write(tmp_path, GAMES_CSV)
    assert main(["rate", "--algorithm", "egf-2021", "--players", str(players), path]) == 2
    assert "must be below 3300" in capsys.readouterr().err
