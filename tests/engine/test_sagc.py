"""The SAGC index (seed 000, SPEC section 4, ratings/engine/sagc.py).

Every expected number here was worked out by hand from the seed's formulas and
tables (exact fractions, rounded half away from zero), not by calling the engine's
helpers. The usual subject is a 10k, whose level factor is
``16² + 1.5·16 + 55 + 16⁵/30000 = 693661/1875 = 369.9525…``.
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import math
import subprocess
import sys
from datetime import date
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bench import sagc_reference
from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import replay
from ratings.engine.cli import main
from ratings.engine.ranks import Rank, parse_rank
from ratings.engine.records import Entry, GameRecord, Status, Winner
from ratings.engine.sagc import SagcParams, effective_handicap, loss_barrier

ROOT = Path(__file__).resolve().parents[2]
LF_10K = Fraction(693661, 1875)


class Club:
    """Games built one by one in replay order, players entered at a rank and index."""

    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}
        self.records: list[GameRecord] = []

    def player(self, name: str, rank: str, index: int | None = None) -> str:
        self.entries[name] = Entry(parse_rank(rank), None if index is None else Fraction(index))
        return name

    def game(
        self,
        white: str,
        black: str,
        winner: str = "W",
        *,
        handicap: int = 0,
        komi: str | None = None,
        status: str = "normal",
        board_size: int = 19,
    ) -> None:
        if komi is None:
            komi = "6.5" if handicap == 0 else "0.5"
        self._add(
            white=white,
            black=black,
            winner=Winner(winner),
            handicap=handicap,
            komi=Fraction(komi),
            status=Status(status),
            board_size=board_size,
        )

    def adjust(self, name: str, rank: str, value: int | None = None) -> None:
        self._add(
            white=name,
            black=name,
            white_rank=parse_rank(rank),
            status=Status.ADJUSTMENT,
            value=None if value is None else Fraction(value),
        )

    def _add(self, **fields) -> None:
        self.records.append(GameRecord(date=date(2024, 1, 1), seq=len(self.records) + 1, **fields))

    def rows(self):
        algorithm = get_algorithm("sagc")
        return list(replay(algorithm, self.records, self.entries))

    def rows_of(self, name: str):
        return [row for row in self.rows() if row.player == name]

    def last(self, name: str):
        return self.rows_of(name)[-1]


def half_away(value: Fraction) -> int:
    """Rounding half away from zero: 0.5 → 1, -0.5 → -1."""
    magnitude = math.floor(abs(value) + Fraction(1, 2))
    return magnitude if value >= 0 else -magnitude


def one_game(white_rank: str, black_rank: str, winner: str, **game) -> tuple:
    """(White's row, Black's row) of one game between newcomers at index 0, unless
    ``white_index`` / ``black_index`` say otherwise."""
    club = Club()
    club.player("w", white_rank, game.pop("white_index", None))
    club.player("b", black_rank, game.pop("black_index", None))
    club.game("w", "b", winner, **game)
    white_row, black_row = club.rows()
    return white_row, black_row


# --- level factor --------------------------------------------------------------------

SEED_LEVEL_FACTORS = [
    ("3d", 77),
    ("1k", 115),
    ("4k", 173),
    ("7k", 256),
    ("10k", 370),
    ("14k", 592),
    ("18k", 932),
    ("22k", 1455),
]


@pytest.mark.parametrize(("rank", "table"), SEED_LEVEL_FACTORS)
def test_a_plain_win_earns_the_level_factor_of_the_seeds_table(rank, table):
    # Even game (eff 0, HF 1), differential 0, promotion zone (GRF 1), normal, new opponent.
    white, _ = one_game(rank, rank, "W")
    assert white.change == table


@pytest.mark.parametrize(
    ("rank", "exact"),
    [
        ("3d", Fraction(144439, 1875)),  # x = 4: 16 + 6 + 55 + 1024/30000
        ("14k", Fraction(1775, 3)),  # x = 20: 591⅔
        ("10k", LF_10K),
        ("7d", Fraction(55)),  # x = 0
        ("9d", Fraction(55)),  # stronger than 7d: x stays 0
        ("2p", Fraction(55)),  # a professional is a 9d
    ],
)
def test_the_level_factor_is_used_unrounded(rank, exact):
    white, _ = one_game(rank, rank, "W")
    assert Fraction(white.factors["level_factor"]) == exact
    assert white.change == half_away(exact)


# --- game status factor ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "change"),
    [("normal", 370), ("tournament", 555), ("internet", 185), ("free", 0)],
)
def test_the_game_status_weighs_the_change(status, change):
    # 369.95 * 1, * 1.5 = 554.93, * 0.5 = 184.98, * 0
    white, _ = one_game("10k", "10k", "W", status=status)
    assert white.change == change


# --- game result factor: every cell, through whole games ------------------------------

# A 10k against an opponent ``differential`` stones stronger in an even game; the
# expected change is round(369.9525… * GRF): promotion win, promotion loss, demotion
# win, demotion loss. The ">+3" and "<-3" rows are distinct from "+3" and "-3".
GAME_RESULT_CHANGES = {
    4: (1295, 0, 1295, 0),  # >+3: 3.5, -0, 3.5, -0
    3: (1295, -33, 1295, 0),  # 3.5, -0.09, 3.5, -0
    2: (814, -174, 814, -11),  # 2.2, -0.47, 2.2, -0.03
    1: (555, -300, 592, -104),  # 1.5, -0.81, 1.6, -0.28
    0: (370, -433, 518, -222),  # 1, -1.17, 1.4, -0.6
    -1: (200, -533, 259, -277),  # 0.54, -1.44, 0.7, -0.75
    -2: (48, -666, 137, -370),  # 0.13, -1.8, 0.37, -1
    -3: (33, -999, 44, -703),  # 0.09, -2.7, 0.12, -1.9
    -4: (0, -999, 0, -703),  # <-3: 0, -2.7, 0, -1.9
}
CELLS = [
    (differential, zone, result, GAME_RESULT_CHANGES[differential][column])
    for differential in GAME_RESULT_CHANGES
    for column, (zone, result) in enumerate(
        [("promotion", "win"), ("promotion", "loss"), ("demotion", "win"), ("demotion", "loss")]
    )
]


@pytest.mark.parametrize(("differential", "zone", "result", "change"), CELLS)
def test_every_cell_of_the_game_result_table(differential, zone, result, change):
    opponent = Rank(-10 + differential)
    white, _ = one_game(
        "10k",
        str(opponent),
        "W" if result == "win" else "B",
        white_index=0 if zone == "promotion" else -1,
    )
    assert (white.factors["differential"], white.factors["zone"]) == (differential, zone)
    assert white.change == change


@pytest.mark.parametrize("gap", [5, 7, 12, -5, -7, -12])
@pytest.mark.parametrize("result", ["win", "loss"])
def test_a_differential_beyond_three_reads_the_beyond_three_rows(gap, result):
    own = "15k" if gap > 0 else "3k"
    opponent = str(Rank(parse_rank(own).stones + gap))
    white, _ = one_game(own, opponent, "W" if result == "win" else "B")
    # the promotion-zone columns of the ">+3" and "<-3" rows
    win, loss = ("3.5", "-0") if gap > 0 else ("0", "-2.7")
    grf = Fraction(win if result == "win" else loss)
    assert white.factors["differential"] == gap
    assert white.change == half_away(Fraction(white.factors["level_factor"]) * grf)


def test_a_scratch_game_two_stones_apart_reads_plus_two_and_minus_two():
    # The seed's 14k/16k example, read from the table (SPEC section 4): the 16k
    # reads +2, the 14k -2.
    white, black = one_game("14k", "16k", "B", white_index=0, black_index=0)
    assert (white.factors["differential"], black.factors["differential"]) == (-2, 2)
    assert white.change == -1065  # 591⅔ * -1.8 = -1065
    assert black.change == 1636  # 16k: x = 22, LF = 743.79; * 2.2 = 1636.33


def test_a_stronger_player_never_loses_points_to_a_handicap_three_stones_too_large():
    # The seed: "you cannot be demoted for losing a game that has 3 stones too many
    # against you" (demotion zone, differential +3: GRF -0).
    white, _ = one_game("5k", "5k", "B", handicap=3, white_index=-990)
    assert white.factors["differential"] == 3
    assert (white.change, white.value_after, white.rank_after) == (0, -990, Rank(-5))


# --- effective handicap and handicap factor -------------------------------------------


@pytest.mark.parametrize(
    ("handicap", "komi", "eff"),
    [
        (0, "6.5", 0),
        (0, "0.5", 0),  # 0.55 → 0
        (0, "-3.5", 0),  # 0.95 → 0
        (0, "-4.5", 1),  # 1.05 → 1
        (0, "15.5", 0),  # -0.95 → 0: toward zero, not down
        (0, "16.5", -1),  # -1.05 → -1
        (0, "50", -4),  # -4.4 → -4
        (0, "-50", 5),  # 5.6 → 5
        (1, "0.5", 1),  # 1.55 → 1
        (2, "0.5", 2),
        (9, "0.5", 9),
        (9, "-20.5", 11),  # 11.65 → 11
        (3, "6", 3),
    ],
)
def test_the_effective_handicap_truncates_toward_zero(handicap, komi, eff):
    assert effective_handicap(handicap, Fraction(komi)) == eff


@pytest.mark.parametrize(
    ("handicap", "komi", "white_change", "black_change"),
    [
        (0, "6.5", 370, -433),  # eff 0: HF 1, differentials 0 / 0
        (0, "-4.5", 527, -506),  # eff 1: HF 0.95; White +1 (1.5), Black -1 (-1.44)
        (0, "-3.5", 370, -433),  # eff 0
        (0, "15.5", 370, -433),  # eff 0 (-0.95 truncated toward zero)
        (0, "16.5", 210, -315),  # eff -1: HF 1.05; White -1 (0.54), Black +1 (-0.81)
        (0, "36.5", 38, -38),  # eff -3: HF 1.15; White -3 (0.09), Black +3 (-0.09)
        (0, "-50", 971, -749),  # eff 5: HF 0.75; White >+3 (3.5), Black <-3 (-2.7)
        (2, "0.5", 733, -599),  # eff 2: HF 0.9; White +2 (2.2), Black -2 (-1.8)
        (9, "-20.5", 583, -449),  # eff 11: HF 0.45
        (1, "0.5", 527, -506),  # one stone: eff 1
    ],
)
def test_komi_and_stones_give_the_effective_handicap_of_a_whole_game(
    handicap, komi, white_change, black_change
):
    white, black = one_game("10k", "10k", "W", handicap=handicap, komi=komi)
    assert (white.change, black.change) == (white_change, black_change)


def test_the_handicap_factor_is_five_hundredths_less_a_stone_and_never_below_a_tenth():
    white, _ = one_game("10k", "10k", "W", handicap=9, komi="-50")  # eff 14: 1 - 0.7
    assert Fraction(white.factors["handicap_factor"]) == Fraction(3, 10)
    # The floor needs more reverse komi than a file may hold (eff 29 here).
    white, _ = one_game("10k", "10k", "W", handicap=9, komi="-200")
    assert Fraction(white.factors["handicap_factor"]) == Fraction(1, 10)


# --- opponent factor ------------------------------------------------------------------


def opponent_factor_club() -> Club:
    club = Club()
    for name in ("a", "b", *(f"o{n}" for n in range(12))):
        club.player(name, "10k")
    return club


@pytest.mark.parametrize(
    ("free_games_together", "change"),
    [(0, 370), (1, 333), (3, 259), (9, 37), (10, 37), (12, 37)],
)
def test_free_games_count_for_the_opponent_factor(free_games_together, change):
    # 369.95 * (1 - 0.1·n), at least 0.1; free games leave the index at 0
    club = opponent_factor_club()
    for _ in range(free_games_together):
        club.game("a", "b", "W", status="free")
    club.game("a", "b", "W")
    assert club.last("a").change == change


def test_the_opponent_factor_counts_each_players_own_last_ten_games():
    club = opponent_factor_club()
    club.game("a", "b", "W", status="free")
    for n in range(10):
        club.game("b", f"o{n}", "W", status="free")
    club.game("a", "b", "W")
    assert club.last("a").change == 333  # b is among a's last ten games: 0.9
    assert club.last("b").change == -433  # a is no longer among b's: 1


def test_only_the_last_ten_games_count_for_the_opponent_factor():
    club = opponent_factor_club()
    club.game("a", "b", "W", status="free")
    for n in range(10):
        club.game("a", f"o{n}", "W", status="free")
    club.game("a", "b", "W")
    assert club.last("a").change == 370


def test_an_adjustment_takes_no_place_among_the_last_ten_games():
    club = opponent_factor_club()
    club.game("a", "b", "W", status="free")
    for n in range(9):
        club.game("a", f"o{n}", "W", status="free")
    club.adjust("a", "10k")
    club.game("a", "b", "W")
    assert club.last("a").change == 333


def test_a_jigo_counts_as_a_game_for_the_opponent_factor():
    club = opponent_factor_club()
    club.game("a", "b", "D")
    club.game("a", "b", "W")
    assert club.last("a").change == 333


def test_an_unrated_small_board_game_takes_no_place_among_the_last_ten_games():
    club = opponent_factor_club()
    club.game("a", "b", "W", board_size=9)
    club.game("a", "b", "W")
    assert club.last("a").change == 370


# --- rounding and exactness -----------------------------------------------------------


def test_the_specs_example_minus_319_5_rounds_to_minus_320():
    # A 14k (591⅔) takes two stones from a 12k (differential 0, HF 0.9) and loses
    # from a negative index: 591⅔ * -0.6 * 0.9 = -319.5 → -320.
    _, black = one_game("12k", "14k", "W", handicap=2, black_index=-10)
    assert black.factors["product"] == "-639/2"
    assert (black.change, black.value_after) == (-320, -330)


def test_a_positive_half_rounds_up_to_320():
    # A 14k beats a 15k in an even game from the promotion zone: 591⅔ * 0.54 = 319.5.
    white, _ = one_game("14k", "15k", "W")
    assert white.factors["product"] == "639/2"
    assert (white.change, white.value_after) == (320, 320)


def test_binary_floats_would_round_the_specs_example_the_wrong_way():
    # Why the engine computes exactly: in floats this product depends on the order.
    factors = [591 + 2 / 3, 1.0, 1.0, -0.6, 0.9]
    floats = {round(math.prod(order)) for order in itertools.permutations(factors)}
    assert floats == {-319, -320}


GRF_TABLE = {
    4: ("3.5", "-0", "3.5", "-0"),
    3: ("3.5", "-0.09", "3.5", "-0"),
    2: ("2.2", "-0.47", "2.2", "-0.03"),
    1: ("1.5", "-0.81", "1.6", "-0.28"),
    0: ("1", "-1.17", "1.4", "-0.6"),
    -1: ("0.54", "-1.44", "0.7", "-0.75"),
    -2: ("0.13", "-1.8", "0.37", "-1"),
    -3: ("0.09", "-2.7", "0.12", "-1.9"),
    -4: ("0", "-2.7", "0", "-1.9"),
}
STATUS_WEIGHTS = {"free": "0", "normal": "1", "tournament": "1.5", "internet": "0.5"}

kyu_or_dan = st.integers(-30, 8).map(Rank)


@settings(max_examples=150, deadline=None)
@given(
    rank=kyu_or_dan,
    opponent=kyu_or_dan,
    index=st.integers(-999, 999),
    handicap=st.integers(0, 9),
    komi=st.integers(-100, 100).map(lambda halves: Fraction(halves, 2)),
    status=st.sampled_from(sorted(STATUS_WEIGHTS)),
    meetings=st.integers(0, 12),
    won=st.booleans(),
    black=st.booleans(),
)
@example(Rank(-14), Rank(-12), -10, 2, Fraction(1, 2), "normal", 0, False, False)  # -319.5
@example(Rank(-14), Rank(-15), 0, 0, Fraction(13, 2), "normal", 0, True, False)  # +319.5
def test_no_result_depends_on_the_order_of_multiplication(
    rank, opponent, index, handicap, komi, status, meetings, won, black
):
    """The engine multiplies integers over one fixed denominator; every order of the
    five factors as Fractions gives the same change, and the same product it reports."""
    club = Club()
    club.entries["p"] = Entry(rank, Fraction(index))
    club.entries["q"] = Entry(opponent, Fraction(0))
    for _ in range(meetings):  # earlier free games against the same opponent
        club.game("p", "q", "W", status="free")
    p_colour = "B" if black else "W"
    q_colour = "W" if black else "B"
    white, black_player = ("q", "p") if black else ("p", "q")
    winner = p_colour if won else q_colour
    club.game(white, black_player, winner, handicap=handicap, komi=str(komi), status=status)
    row = club.last("p")

    # The five factors, from the seed's formulas and tables.
    x = max(0, 6 - rank.stones)
    lf = Fraction(x**2) + Fraction(3, 2) * x + 55 + Fraction(x**5, 30000)
    gsf = Fraction(STATUS_WEIGHTS[status])
    of = max(Fraction(1, 10), 1 - Fraction(min(meetings, 10), 10))
    eff = math.trunc(handicap - (komi - 6) / 10)
    differential = (opponent.stones - rank.stones) + (-eff if black else eff)
    column = (0 if won else 1) + (0 if index >= 0 else 2)
    grf = Fraction(GRF_TABLE[max(-4, min(4, differential))][column])
    hf = max(Fraction(1, 10), 1 - Fraction(5, 100) * eff)

    for order in itertools.permutations([lf, gsf, of, grf, hf]):
        assert row.change == half_away(math.prod(order, start=Fraction(1)))
    assert Fraction(row.factors["product"]) == lf * gsf * of * grf * hf


# --- loss barriers --------------------------------------------------------------------


def drive_down(rank: str, losses: int) -> list:
    """The player's rows after ``losses`` of the largest losses the rules allow: White
    in a tournament giving 44 komi (eff -4: differential -4, HF 1.2), each against a
    new opponent of the same rank, so GRF -2.7 / -1.9 and OF 1."""
    club = Club()
    club.player("p", rank)
    for n in range(losses):
        club.game("p", club.player(f"o{n}", rank), "B", komi="50", status="tournament")
    return club.rows_of("p")


@pytest.mark.parametrize(
    ("rank", "indexes", "demoted_to"),
    [
        ("29k", [-800, -850, -900, -950, -999], "30k"),  # 25k-29k: 6 losses
        ("24k", [-850, -900, -950, -999], "25k"),  # 20k-24k: 5
        ("19k", [-900, -950, -999], "20k"),  # 10k-19k: 4
        ("9k", [-950, -999], "10k"),  # 5k-9k: 3
        ("4k", [-842], "5k"),  # dan-4k: 2
    ],
)
def test_the_minimum_number_of_losses_before_demotion(rank, indexes, demoted_to):
    rows = drive_down(rank, len(indexes) + 1)
    assert [row.value_after for row in rows[:-1]] == indexes
    assert all(row.rank_after == parse_rank(rank) for row in rows[:-1])
    assert (rows[-1].rank_after, rows[-1].value_after) == (parse_rank(demoted_to), 0)


@pytest.mark.parametrize("rank", ["29k", "24k", "19k", "9k"])
def test_each_loss_on_the_way_down_was_large_enough_to_pass_its_barrier(rank):
    rows = drive_down(rank, 6)
    for row in rows:
        if row.rank_after != row.rank_before:
            break
        assert row.value_before + row.change < row.value_after  # the barrier held it


def test_the_largest_loss_of_a_4k_cannot_reach_minus_999_from_zero():
    # 173⅓ * 1.5 * -2.7 * 1.2 = -842.4: for dan-4k the first barrier (-999) never
    # binds, and the second loss (from -842: 173⅓ * 1.5 * -1.9 * 1.2 = -592.8) demotes.
    first, second = drive_down("4k", 2)
    assert (first.change, first.value_after) == (-842, -842)
    assert (second.change, second.rank_after, second.value_after) == (-593, Rank(-5), 0)


@pytest.mark.parametrize(
    ("start", "after"),
    [
        (500, -900),  # from a non-negative index: not below the first mark
        (0, -900),
        (-1, -950),  # from -1…-900: not below -950
        (-900, -950),
        (-901, -999),  # from -901…-950: not below -999
        (-950, -999),
        (-951, None),  # from -951…-999: demotion possible
        (-999, None),
    ],
)
def test_the_seeds_11k_barrier_example(start, after):
    club = Club()
    club.player("p", "11k", start)
    club.game("p", club.player("o", "11k"), "B", komi="50", status="tournament")
    (row,) = club.rows_of("p")
    if after is None:
        assert (row.rank_after, row.value_after) == (Rank(-12), 0)
    else:
        assert (row.rank_after, row.value_after) == (Rank(-11), after)


def test_an_11k_can_be_demoted_only_on_the_fourth_loss():
    rows = drive_down("11k", 4)
    assert [(str(row.rank_after), row.value_after) for row in rows] == [
        ("11k", -900),
        ("11k", -950),
        ("11k", -999),
        ("12k", 0),
    ]


def test_a_loss_smaller_than_the_gap_to_the_barrier_is_not_changed():
    club = Club()
    club.player("p", "10k", -100)
    club.game("p", club.player("o", "10k"), "B")
    (row,) = club.rows_of("p")
    assert (row.change, row.value_after) == (-222, -322)  # demotion loss: 369.95 * -0.6


@pytest.mark.parametrize(
    ("stones", "index", "barrier"),
    [(-4, 0, -999), (-4, -1, None), (3, 999, -999), (-25, -801, -900), (-30, -5, -999)],
)
def test_the_barrier_function_agrees_with_the_marks(stones, index, barrier):
    assert loss_barrier(Rank(stones), index) == barrier


# --- promotion, demotion, limits, the 30k floor ---------------------------------------


def test_passing_plus_999_promotes_one_rank_with_index_zero():
    white, _ = one_game("10k", "10k", "W", white_index=630)  # 630 + 370 = 1000
    assert (white.change, white.rank_after, white.value_after) == (370, Rank(-9), 0)
    assert white.factors["promoted"] is True


def test_reaching_exactly_999_does_not_promote():
    white, _ = one_game("10k", "10k", "W", white_index=629)
    assert (white.rank_after, white.value_after) == (Rank(-10), 999)


def test_passing_minus_999_demotes_one_rank_with_index_zero():
    # A 4k at -990 loses in the demotion zone: 173⅓ * -0.6 = -104 → -1094.
    white, _ = one_game("4k", "4k", "B", white_index=-990)
    assert (white.change, white.rank_after, white.value_after) == (-104, Rank(-5), 0)
    assert white.factors["demoted"] is True


def test_reaching_exactly_minus_999_does_not_demote():
    white, _ = one_game("4k", "4k", "B", white_index=-895)
    assert (white.rank_after, white.value_after) == (Rank(-4), -999)


def test_a_30k_is_never_demoted_and_never_goes_below_minus_999():
    rows = drive_down("30k", 5)
    assert [(row.rank_after, row.value_after) for row in rows] == [(Rank(-30), -999)] * 5
    assert all(row.change < -999 for row in rows)  # each loss alone would pass -999


def test_an_entry_below_30k_starts_at_30k():
    white, black = one_game("42k", "30k", "W")
    assert (white.rank_before, black.opponent_rank) == (Rank(-30), Rank(-30))
    # x = 36: 1296 + 54 + 55 + 36⁵/30000 = 3420.54, a plain win promotes.
    assert (white.change, white.rank_after, white.value_after) == (3421, Rank(-29), 0)


def test_an_adjustment_below_30k_sets_30k():
    club = Club()
    club.player("p", "25k", 100)
    club.adjust("p", "35k")
    (row,) = club.rows_of("p")
    assert (row.rank_after, row.value_after) == (Rank(-30), 0)


def test_a_9d_is_never_promoted_and_stops_at_plus_999():
    white, _ = one_game("9d", "9d", "W", white_index=990)  # 990 + 55
    assert (white.change, white.rank_after, white.value_after) == (55, Rank(8), 999)
    assert white.factors["limit"] == 999


def test_a_professional_is_rated_as_a_9d():
    white, black = one_game("3p", "9d", "W", white_index=980)
    assert (white.rank_before, black.opponent_rank) == (Rank(8), Rank(8))
    assert (white.change, white.rank_after, white.value_after) == (55, Rank(8), 999)


def test_both_changes_use_the_ranks_and_indexes_from_before_the_game():
    # White's win promotes him, but Black's loss is still against a 10k (differential
    # 0) from Black's index before the game.
    white, black = one_game("10k", "10k", "W", white_index=900, black_index=0)
    assert white.rank_after == Rank(-9)
    assert (black.opponent_rank, black.factors["differential"], black.change) == (
        Rank(-10),
        0,
        -433,
    )


def test_a_jigo_changes_nothing_but_is_a_game_played():
    club = Club()
    club.player("p", "10k", 40)
    club.player("q", "12k", -40)
    club.game("p", "q", "D")
    white, black = club.rows()
    assert (white.change, white.value_after, black.change, black.value_after) == (0, 40, 0, -40)
    state = get_algorithm("sagc").new_state(club.entries)
    list(replay(state.algorithm, club.records, club.entries, state))
    assert state.players["p"].games == 1


def test_a_small_board_game_is_listed_unrated_with_its_reason():
    white, black = one_game("10k", "12k", "W", board_size=13, white_index=5)
    assert (white.change, white.value_after, black.change) == (0, 5, 0)
    assert white.skipped == "SAGC rates 19x19 games only, not 13x13"


# --- adjustments ----------------------------------------------------------------------


def test_an_adjustment_sets_the_rank_and_index_and_lists_the_change():
    club = Club()
    club.player("p", "10k", 300)
    club.adjust("p", "8k", -250)
    (row,) = club.rows_of("p")
    assert (row.opponent, row.colour, row.status) == ("p", None, Status.ADJUSTMENT)
    assert (row.rank_before, row.value_before) == (Rank(-10), 300)
    assert (row.rank_after, row.value_after, row.change) == (Rank(-8), -250, -550)


def test_an_adjustment_without_a_value_resets_the_index_to_zero():
    club = Club()
    club.player("p", "10k", 300)
    club.adjust("p", "10k")
    assert club.last("p").value_after == 0


def test_an_adjustment_outside_the_index_range_is_listed_and_not_applied():
    club = Club()
    club.player("p", "10k", 300)
    club.adjust("p", "5k", 2100)
    row = club.last("p")
    assert (row.rank_after, row.value_after, row.change) == (Rank(-10), 300, 0)
    assert "whole number in -999..999" in row.skipped


def test_a_starting_index_outside_the_range_is_an_entry_problem():
    algorithm = get_algorithm("sagc")
    assert algorithm.entry_problem(Entry(Rank(-3), Fraction(500))) is None
    assert "not 1000" in algorithm.entry_problem(Entry(Rank(-3), Fraction(1000)))
    assert "not 5/2" in algorithm.entry_problem(Entry(Rank(-3), Fraction(5, 2)))


def test_the_parameters_default_to_the_seeds_numbers():
    assert SagcParams() == SagcParams(index_limit=999, opponent_memory=10)


# --- properties -----------------------------------------------------------------------

NAMES = ("ann", "bob", "carl", "dave", "eve")

entries_strategy = st.fixed_dictionaries(
    {
        name: st.builds(
            Entry,
            st.one_of(st.integers(-50, 8).map(Rank), st.integers(1, 9).map(Rank.pro_rank)),
            st.integers(-999, 999).map(Fraction),
        )
        for name in NAMES
    }
)
game_strategy = st.tuples(
    st.sampled_from(NAMES),
    st.sampled_from(NAMES),
    st.sampled_from("WBD"),
    st.integers(0, 9),
    st.integers(-100, 100).map(lambda halves: Fraction(halves, 2)),
    st.sampled_from(["normal", "tournament", "internet", "free"]),
).filter(lambda game: game[0] != game[1])


def records_of(games, first_seq: int = 1) -> list[GameRecord]:
    return [
        GameRecord(
            date=date(2024, 1, 1),
            white=white,
            black=black,
            winner=Winner(winner),
            handicap=handicap,
            komi=komi,
            status=Status(status),
            seq=seq,
        )
        for seq, (white, black, winner, handicap, komi, status) in enumerate(games, first_seq)
    ]


@settings(max_examples=100, deadline=None)
@given(entries=entries_strategy, games=st.lists(game_strategy, max_size=40))
def test_the_index_is_always_within_999_after_a_game(entries, games):
    for row in replay(get_algorithm("sagc"), records_of(games), entries):
        assert -999 <= row.value_after <= 999
        assert Rank(-30) <= row.rank_after <= Rank(8)


@settings(max_examples=100, deadline=None)
@given(entries=entries_strategy, games=st.lists(game_strategy, max_size=40))
def test_a_win_never_lowers_rank_and_index_and_a_loss_never_raises_them(entries, games):
    for row in replay(get_algorithm("sagc"), records_of(games), entries):
        before = (row.rank_before.stones, row.value_before)
        after = (row.rank_after.stones, row.value_after)
        if row.winner is Winner.JIGO:
            assert after == before
        elif row.winner.value == row.colour.value:
            assert after >= before
        else:
            assert after <= before


@settings(max_examples=100, deadline=None)
@given(entries=entries_strategy, games=st.lists(game_strategy, max_size=30))
def test_a_free_game_never_changes_an_index(entries, games):
    records = records_of(games)
    for row in replay(get_algorithm("sagc"), records, entries):
        if row.status is Status.FREE:
            assert row.change == 0
            assert (row.rank_after, row.value_after) == (row.rank_before, row.value_before)


@settings(max_examples=50, deadline=None)
@given(entries=entries_strategy, games=st.lists(game_strategy, max_size=30))
def test_replaying_the_same_games_twice_gives_identical_rows(entries, games):
    records = records_of(games)
    algorithm = get_algorithm("sagc")
    assert list(replay(algorithm, records, entries)) == list(replay(algorithm, records, entries))


GROUP_A, GROUP_B = ("ann", "bob", "carl"), ("dave", "eve", "fred")
group_game = st.tuples(
    st.integers(0, 2),
    st.integers(0, 2),
    st.sampled_from("WBD"),
    st.integers(0, 9),
    st.just(Fraction(1, 2)),
    st.sampled_from(["normal", "tournament", "free"]),
).filter(lambda game: game[0] != game[1])


@settings(max_examples=60, deadline=None)
@given(
    games_a=st.lists(group_game, max_size=15),
    games_b=st.lists(group_game, max_size=15),
    interleaving=st.lists(st.booleans(), max_size=30),
    ranks=st.lists(st.integers(-30, 8), min_size=6, max_size=6),
)
def test_the_order_of_independent_players_games_does_not_matter(
    games_a, games_b, interleaving, ranks
):
    entries = {
        name: Entry(Rank(stones)) for name, stones in zip(GROUP_A + GROUP_B, ranks, strict=True)
    }

    def named(games, group):
        return [(group[w], group[b], *rest) for w, b, *rest in games]

    a, b = named(games_a, GROUP_A), named(games_b, GROUP_B)
    separate = a + b
    mixed, queue_a, queue_b = [], list(a), list(b)
    for take_a in interleaving + [True] * len(a) + [False] * len(b):
        queue = queue_a if take_a else queue_b
        if queue:
            mixed.append(queue.pop(0))

    def per_player(games):
        rows = replay(get_algorithm("sagc"), records_of(games), entries)
        sheet: dict[str, list] = {}
        for row in rows:
            sheet.setdefault(row.player, []).append(
                (row.opponent, row.change, row.value_after, row.rank_after, row.factors)
            )
        return sheet

    assert per_player(mixed) == per_player(separate)


# --- cross-checks with the independent reference (bench/sagc_reference.py) --------------


def history_of(main_function, argv: list[str]) -> list[list[str]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main_function(argv) == 0
    return list(csv.reader(io.StringIO(out.getvalue())))


def engine_history(path: Path) -> list[list[str]]:
    return history_of(main, ["rate", "--algorithm", "sagc", str(path)])


def reference_history(path: Path) -> list[list[str]]:
    return history_of(sagc_reference.main, [str(path)])


def without_comments(sheet: list[list[str]]) -> list[list[str]]:
    return [row[:-1] for row in sheet]


def test_the_engine_and_the_reference_agree_on_5000_generated_club_games(tmp_path):
    games = tmp_path / "games.csv"
    settings = ["--games", "5000", "--players", "80", "--years", "3"]
    subprocess.run(
        [sys.executable, "-m", "bench.generate", *settings, str(games)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    ours = engine_history(games)
    assert len(ours) > 10_000
    assert without_comments(ours) == without_comments(reference_history(games))


extreme_rank = st.sampled_from(
    [f"{n}k" for n in (50, 35, 30, 29, 25, 24, 20, 19, 11, 10, 9, 5, 4, 1)]
    + ["1d", "7d", "8d", "9d", "1p", "9p"]
)
extreme_game = st.tuples(
    st.sampled_from(NAMES),
    st.sampled_from(NAMES),
    st.sampled_from(["W", "B", "D", "white", "black"]),
    st.sampled_from(["", "0", "1", "2", "5", "9"]),
    st.sampled_from(["", "6.5", "0.5", "-0.5", "15.5", "16.5", "-50", "50", "7", "-20.5"]),
    st.sampled_from(["", "normal", "tournament", "internet", "free", "adjustment"]),
    st.sampled_from(["19", "19", "19", "9"]),
    st.integers(1, 3),
    st.one_of(st.none(), st.integers(-999, 999)),
    extreme_rank,
    extreme_rank,
)


CROSS_CHECK_COLUMNS = (
    "date", "white", "black", "white_rank", "black_rank", "handicap", "komi", "winner",
    "status", "board_size", "value",
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(games=st.lists(extreme_game, min_size=1, max_size=60))
def test_the_engine_and_the_reference_agree_on_arbitrary_games(games, tmp_path_factory):
    path = tmp_path_factory.mktemp("cross") / "games.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(CROSS_CHECK_COLUMNS)
        for white, black, winner, handicap, komi, status, board, day, value, wr, br in games:
            played = f"2024-01-0{day}"
            if status == "adjustment":
                value = "" if value is None else value
                writer.writerow([played, white, white, wr, "", "", "", "", status, "19", value])
            elif white != black:
                writer.writerow([played, white, black, wr, br, handicap, komi, winner, status,
                                 board, ""])  # fmt: skip
    assert without_comments(engine_history(path)) == without_comments(reference_history(path))
