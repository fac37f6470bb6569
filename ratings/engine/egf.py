"""The EGF GoR rating systems (seed 003, SPEC section 5, ``egf.md``).

Three parameter sets share one rating procedure:

- ``egf-2021``: the system in force since 2021 (Bradley-Terry with
  ``beta(r) = -7 ln(3300 - r)``, ``con = ((3300 - r)/200)^1.6`` and a bonus);
- ``egf-2020``: the rating commission's interim recommendation (seed 003);
- ``egf-legacy``: the Elo-like system used before 2021 (``a``, ``eps``, con table).

What they share: ratings of 100 points a grade (1d = 2100), Black's rating raised
by ``100 (H - 0.5)`` in the expected result only, a tournament rated as one block
from the ratings at its start, the class weight (A 1, B 0.75, C 0.5, D 0.25)
multiplying each change, a configurable floor, the true entry grade shown below
the floor, and committee resets up or down.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from .base import Algorithm, HistoryRow, PlayerState, RatedGame, RatingState, RowSide
from .description import Matchup, RankScale, ValueScale, gettext_noop
from .messages import (
    NOT_A_TOURNAMENT_CLASS,
    NOT_THE_RATED_BOARD,
    TOO_MANY_HANDICAP_STONES,
    Message,
    board,
)
from .ranks import STRONGEST_AMATEUR_STONES, WEAKEST_STONES, Rank
from .records import Colour, Entry, GameRecord, Status, Winner
from .rows import adjustment_row, game_row

GOR_1D = 2100
POINTS_PER_GRADE = 100
GRADE_BORDER = 2050  # the GoR between 1k and 1d
GOR_1P = 2700
POINTS_PER_PRO_GRADE = 30
WEAKEST_GOR = GOR_1D + POINTS_PER_GRADE * WEAKEST_STONES  # 50k, the weakest entry grade
STRONGEST_FLOOR = GOR_1D - POINTS_PER_GRADE  # 1k: a floor above it would make no sense
EGF_BOARD_SIZE = 19
MAX_HANDICAP = 9

CLASS_WEIGHTS = {"A": 1.0, "B": 0.75, "C": 0.5, "D": 0.25}

# egf-legacy: con at GoR 100, 200, ..., 2700 (116 below 100, 10 above 2700)
LEGACY_CON_TABLE = (
    116, 110, 105, 100, 95, 90, 85, 80, 75, 70, 65, 60, 55, 51,
    47, 43, 39, 35, 31, 27, 24, 21, 18, 15, 13, 11, 10,
)  # fmt: skip
LEGACY_CON_FROM = 100
LEGACY_CON_STEP = 100
LEGACY_CON_TO = LEGACY_CON_FROM + LEGACY_CON_STEP * (len(LEGACY_CON_TABLE) - 1)  # 2700


# --- grades and ratings -------------------------------------------------------------


def grade_rating(rank: Rank) -> float:
    """The GoR of a declared grade: ``2100 + 100 stones``; a pro ``2700 + 30 (n - 1)``."""
    if rank.pro:
        return float(GOR_1P + POINTS_PER_PRO_GRADE * (rank.pro - 1))
    return float(GOR_1D + POINTS_PER_GRADE * rank.stones)


def rating_stones(rating: float) -> int:
    """``floor((r - 2050) / 100)``, within the grades a rank can hold (50k..9d)."""
    stones = math.floor((rating - GRADE_BORDER) / POINTS_PER_GRADE)
    return max(WEAKEST_STONES, min(STRONGEST_AMATEUR_STONES, stones))


def handicap_points(handicap: int) -> float:
    """What Black's rating is raised by in the expected result: ``100 (H - 0.5)``."""
    return POINTS_PER_GRADE * (handicap - 0.5) if handicap >= 1 else 0.0


# --- the formulas of each set ---------------------------------------------------------


def beta_2021(rating: float) -> float:
    return -7 * math.log(3300 - rating)


def se_2021(own_adjusted: float, opponent_adjusted: float) -> float:
    return 1 / (1 + math.exp(beta_2021(opponent_adjusted) - beta_2021(own_adjusted)))


def con_2021(rating: float) -> float:
    return ((3300 - rating) / 200) ** 1.6


def bonus_2021(rating: float) -> float:
    return math.log(1 + math.exp((2300 - rating) / 80)) / 5


def a_2020(rating: float) -> float:
    return (3200 - rating) / 6


def b_2020(rating: float) -> float:
    return -6 * math.log(3200 - rating)


def se_2020(own_adjusted: float, opponent_adjusted: float) -> float:
    return 1 / (1 + math.exp(b_2020(opponent_adjusted) - b_2020(own_adjusted)))


def con_2020(rating: float) -> float:
    return 0.13 * a_2020(rating)


def bonus_2020(rating: float) -> float:
    # The seed's bracket is unbalanced; the 0.3 is read as outside the fraction.
    return 0.0017 * (2900 - rating) / (1 + math.exp((rating - 2150) / 200)) - 0.3


def a_legacy(rating: float) -> float:
    """``205 - r/20``: 70 at or above 2700, 200 at or below 100."""
    return min(200.0, max(70.0, 205 - rating / 20))


def se_legacy(own_adjusted: float, opponent_adjusted: float, eps: float) -> tuple[float, float]:
    """The expected result of the own side and the ``a`` used.

    ``a`` comes from the lower adjusted rating (player A); A's expectation is
    ``1 / (exp(D/a) + 1) - eps/2``, B's ``1 - Se(A) - eps``.
    """
    if own_adjusted <= opponent_adjusted:
        a = a_legacy(own_adjusted)
        return 1 / (math.exp((opponent_adjusted - own_adjusted) / a) + 1) - eps / 2, a
    a = a_legacy(opponent_adjusted)
    lower = 1 / (math.exp((own_adjusted - opponent_adjusted) / a) + 1) - eps / 2
    return 1 - lower - eps, a


def con_legacy(rating: float) -> float:
    """Linear interpolation in the con table; 116 below 100, 10 above 2700."""
    if rating <= LEGACY_CON_FROM:
        return float(LEGACY_CON_TABLE[0])
    if rating >= LEGACY_CON_TO:
        return float(LEGACY_CON_TABLE[-1])
    position = int((rating - LEGACY_CON_FROM) // LEGACY_CON_STEP)
    low = LEGACY_CON_FROM + LEGACY_CON_STEP * position
    below, above = LEGACY_CON_TABLE[position], LEGACY_CON_TABLE[position + 1]
    return below + (above - below) * (rating - low) / LEGACY_CON_STEP


# --- parameters -----------------------------------------------------------------------


def _check_common(floor: float, max_handicap: int) -> None:
    if not (math.isfinite(floor) and WEAKEST_GOR <= floor <= STRONGEST_FLOOR):
        raise ValueError(
            f"floor must be a GoR between {WEAKEST_GOR} (50k) and {STRONGEST_FLOOR} (1k), "
            f"not {floor}"
        )
    if not 0 <= max_handicap <= MAX_HANDICAP:
        raise ValueError(f"max_handicap must be between 0 and {MAX_HANDICAP}, not {max_handicap}")


def _check_clamp(floor: float, adjusted_min: float, adjusted_max: float, ceiling: int) -> None:
    if not (math.isfinite(adjusted_min) and math.isfinite(adjusted_max)):
        raise ValueError("adjusted_min and adjusted_max must be finite")
    if not adjusted_min < adjusted_max < ceiling:
        raise ValueError(
            f"need adjusted_min < adjusted_max < {ceiling} (got {adjusted_min} and {adjusted_max})"
        )
    if adjusted_min > floor:
        raise ValueError(
            f"adjusted_min ({adjusted_min}) is above the floor ({floor}): ratings between "
            "them would all count as adjusted_min; lower adjusted_min with the floor"
        )


@dataclass(frozen=True)
class Egf2021Params:
    """egf-2021. Adjusted ratings are clamped into [adjusted_min, adjusted_max] before
    Se, since ``beta`` is undefined at 3300 and above."""

    floor: float = -900.0
    adjusted_min: float = -900.0
    adjusted_max: float = 3299.999
    max_handicap: int = MAX_HANDICAP

    def __post_init__(self) -> None:
        _check_common(self.floor, self.max_handicap)
        _check_clamp(self.floor, self.adjusted_min, self.adjusted_max, 3300)


@dataclass(frozen=True)
class Egf2020Params:
    """egf-2020, the commission's interim recommendation; clamped like egf-2021 but
    below its own pole at 3200."""

    floor: float = -900.0
    adjusted_min: float = -900.0
    adjusted_max: float = 3199.999
    max_handicap: int = MAX_HANDICAP

    def __post_init__(self) -> None:
        _check_common(self.floor, self.max_handicap)
        _check_clamp(self.floor, self.adjusted_min, self.adjusted_max, 3200)


@dataclass(frozen=True)
class EgfLegacyParams:
    """egf-legacy: the 20-kyu floor and eps of the EGD before 2021 (floor=-900 gives
    the commission's 30-kyu floor)."""

    floor: float = 100.0
    eps: float = 0.016
    max_handicap: int = MAX_HANDICAP

    def __post_init__(self) -> None:
        _check_common(self.floor, self.max_handicap)
        if not (math.isfinite(self.eps) and 0 <= self.eps < 1):
            raise ValueError(f"eps must be at least 0 and below 1, not {self.eps}")


# --- the players ----------------------------------------------------------------------


@dataclass(slots=True)
class EgfPlayer(PlayerState):
    """``rank`` is the rank shown: the GoR's grade unless ``grade_shown`` is set.

    ``grade_shown`` is a professional grade (kept for good: GoR has no pro grades), or
    a true grade weaker than the floor's grade (the grade of the floor's GoR, 30k for
    -900), kept until the GoR first reaches a grade above the floor's.
    """

    value: float  # the GoR
    grade_shown: Rank | None = None


EgfState = RatingState[EgfPlayer]


class EgfAlgorithm(Algorithm[EgfPlayer]):
    """The procedure the three sets share; each set supplies Se, con and the bonus."""

    state_type = EgfPlayer
    rates_tournaments_as_blocks = True
    starts_at_declared_rating = True
    # the rating at which the set's formulas break down (None: they never do)
    rating_ceiling: ClassVar[float | None] = None
    value_scale = ValueScale("gor", gettext_noop("EGF GoR (1d = 2100)"))
    value_label = gettext_noop("GoR")
    rank_scale = RankScale("points", bottom_of_1d=float(GRADE_BORDER))  # GoR 2050..2149: 1d
    factor_labels = {
        "start_rating": gettext_noop("Rating before (a tournament's: at its start)"),
        "opponent_start_rating": gettext_noop("Opponent's rating before"),
        "handicap_points": gettext_noop("Handicap in rating points"),
        "own_adjusted": gettext_noop("Own rating with the handicap"),
        "opponent_adjusted": gettext_noop("Opponent's rating with the handicap"),
        "se": gettext_noop("Expected result (Se)"),
        "score": gettext_noop("Result (1 win, ½ jigo, 0 loss)"),
        "con": gettext_noop("Factor con"),
        "bonus": gettext_noop("Bonus"),
        "class": gettext_noop("Tournament class"),
        "class_weight": gettext_noop("Class weight"),
        "a": gettext_noop("Factor a"),
        "eps": gettext_noop("Epsilon"),
        "beta": gettext_noop("Beta"),
        "floored": gettext_noop("Raised to the floor"),
        "requested_value": gettext_noop("Requested value"),
        "raised_to_floor": gettext_noop("Raised to the floor"),
    }

    def default_value(self, rank: Rank) -> float:
        """The GoR of the grade: 2100 + 100 x stones, a pro 2700 + 30 (n - 1)."""
        return grade_rating(rank)

    def predict_white(self, matchup: Matchup) -> float:
        """The set's own Se of White; Black's rating raised by ``100 (H - 0.5)``."""
        black_adjusted = matchup.black.value + handicap_points(matchup.handicap)
        return self.expected(matchup.white.value, black_adjusted)[0]

    @abstractmethod
    def expected(self, own_adjusted: float, opponent_adjusted: float) -> tuple[float, dict]:
        """Se of the own side from both handicap-adjusted ratings, and extra factors."""

    @abstractmethod
    def con(self, rating: float) -> float: ...

    @abstractmethod
    def bonus(self, rating: float) -> float: ...

    # --- starting values and resets ---------------------------------------------------

    def new_player(self, entry: Entry) -> EgfPlayer:
        value = grade_rating(entry.rank) if entry.value is None else float(entry.value)
        declared = self.declared_start(entry)
        if declared is not None:
            value = declared
        player = EgfPlayer(rank=entry.rank, value=value)
        self._place(player, entry.rank, value)
        return player

    def declared_start(self, entry: Entry) -> float | None:
        """The GoR a tournament file declared for a player new to this algorithm, when
        it is their start: no ``value`` given and the GoR one this algorithm accepts
        (else the grade's rating, as for any new player)."""
        if entry.value is not None or entry.declared_rating is None:
            return None
        declared = float(entry.declared_rating)
        return None if self._rating_problem(declared) else declared

    def entry_problem(self, entry: Entry) -> str | None:
        if entry.value is None:
            return None
        return self._rating_problem(float(entry.value))

    def _rating_problem(self, value: float) -> str | None:
        ceiling = self.rating_ceiling
        if not math.isfinite(value):
            return f"{value} is not a GoR"
        if ceiling is not None and value >= ceiling:
            return f"a GoR in {self.name} must be below {ceiling:g}, not {value:g}"
        return None

    def _place(self, player: EgfPlayer, grade: Rank, value: float) -> None:
        """Set a player to ``value`` (raised to the floor) with ``grade`` declared."""
        floor = self.params.floor
        player.value = max(floor, value)
        floor_grade = rating_stones(floor)
        below_floor = grade.stones < floor_grade and rating_stones(player.value) <= floor_grade
        player.grade_shown = grade if grade.pro or below_floor else None
        player.rank = self.shown_rank(player)

    def shown_rank(self, player: EgfPlayer) -> Rank:
        shown = player.grade_shown
        stones = rating_stones(player.value)
        if shown is not None and not shown.pro and stones > rating_stones(self.params.floor):
            # Risen a grade above the floor's: from now on the GoR says more than the
            # entry grade. (Not "above the floor value": egf-2021's bonus lifts a player
            # off the floor with every game, even a lost one.)
            player.grade_shown = shown = None
        return shown if shown is not None else Rank(stones)

    # --- rating ------------------------------------------------------------------------

    def rate_unit(self, state: EgfState, unit: Sequence[GameRecord]) -> list[HistoryRow]:
        if len(unit) == 1 and unit[0].is_adjustment:
            return [self._adjust(state, unit[0])]
        if len(unit) > 1:
            unit = sorted(unit, key=lambda record: (record.round, record.date, record.seq))
        return _Block(self, state).rate(unit)

    def rate_sides(self, state: EgfState, unit: Sequence[GameRecord]) -> list[RatedGame] | None:
        if len(unit) > 1 or unit[0].is_adjustment:
            return None  # a block's rows name the opponents' ranks at its start: rate_unit's
        return [_Block(self, state).game(unit[0])[0]]

    def skip_reason(self, record: GameRecord) -> str:
        """Why this set does not rate ``record``; empty when it does."""
        if record.status is Status.FREE:
            return gettext_noop("free games are not rated by EGF GoR")
        if record.board_size != EGF_BOARD_SIZE:
            return Message(NOT_THE_RATED_BOARD, algorithm="EGF GoR", board=board(record.board_size))
        if not 0 <= record.handicap <= self.params.max_handicap:
            return Message(
                TOO_MANY_HANDICAP_STONES, most=self.params.max_handicap, given=record.handicap
            )
        if record.winner is None:
            return gettext_noop("the game has no result")
        if record.white == record.black:
            return gettext_noop("a player cannot play themselves")
        if record.tournament_class not in CLASS_WEIGHTS:
            return Message(NOT_A_TOURNAMENT_CLASS, given=record.tournament_class)
        return ""

    def change(
        self, start: float, opponent_start: float, colour: Colour, record: GameRecord
    ) -> tuple[float, dict[str, Any]]:
        """One side's weighted change, from both players' ratings at the unit's start."""
        points = handicap_points(record.handicap)
        own_adjusted = start + points if colour is Colour.BLACK else start
        opponent_adjusted = opponent_start + points if colour is Colour.WHITE else opponent_start
        se, extra = self.expected(own_adjusted, opponent_adjusted)
        if record.winner is Winner.JIGO:
            score = 0.5
        else:
            score = 1.0 if record.winner == colour.value else 0.0
        con = self.con(start)
        bonus = self.bonus(start)
        weight = CLASS_WEIGHTS[record.tournament_class]
        change = weight * (con * (score - se) + bonus)
        factors: dict[str, Any] = {
            "start_rating": start,
            "opponent_start_rating": opponent_start,
            "handicap_points": points,
            "own_adjusted": own_adjusted,
            "opponent_adjusted": opponent_adjusted,
            **extra,
            "se": se,
            "score": score,
            "con": con,
            "bonus": bonus,
            "class": record.tournament_class,
            "class_weight": weight,
        }
        return change, factors

    def _adjust(self, state: EgfState, record: GameRecord) -> HistoryRow:
        player = state.player(record.white)
        value_before, rank_before = player.value, player.rank
        grade = record.white_rank or rank_before
        requested = float(record.value) if record.value is not None else self.default_value(grade)
        skipped = self._rating_problem(requested) or ""
        factors: dict[str, Any] = {"adjustment": True, "requested_value": requested}
        if skipped:
            factors["skipped"] = skipped
        else:
            self._place(player, grade, requested)
            factors["raised_to_floor"] = requested < self.params.floor
        return adjustment_row(
            record,
            rank_before=rank_before,
            value_before=value_before,
            change=player.value - value_before,
            rank_after=player.rank,
            value_after=player.value,
            factors=factors,
            skipped=skipped,
        )


class _Block:
    """One unit of games rated from the ratings at its start (SPEC section 5).

    Row k of a player shows ``max(floor, start + c1 + ... + ck)``; the sum is exact
    (rounded once), so the result does not depend on the order of the rounds, and the
    floor is not carried into the next sum.
    """

    def __init__(self, algorithm: EgfAlgorithm, state: EgfState) -> None:
        self.algorithm = algorithm
        self.state = state
        self.starts: dict[str, tuple[float, Rank]] = {}
        # A player's changes so far in the block: the float of the first, then their exact
        # sum as a Fraction once a second comes (most units are one game: no Fraction).
        self.sums: dict[str, float | Fraction] = {}

    def rate(self, games: Sequence[GameRecord]) -> list[HistoryRow]:
        rows: list[HistoryRow] = []
        for record in games:
            (_, white, black, reason), white_opponent_rank = self.game(record)
            black_opponent_rank = self.starts[record.white][1]
            for colour, opponent_rank, side in (
                (Colour.WHITE, white_opponent_rank, white),
                (Colour.BLACK, black_opponent_rank, black),
            ):
                rank_before, value_before, change, rank_after, value_after, factors = side
                rows.append(
                    game_row(
                        record,
                        colour=colour,
                        opponent_rank=opponent_rank,
                        rank_before=rank_before,
                        value_before=value_before,
                        change=change,
                        rank_after=rank_after,
                        value_after=value_after,
                        factors=factors,
                        skipped=reason,
                    )
                )
        return rows

    def game(self, record: GameRecord) -> tuple[RatedGame, Rank]:
        """A game of the block rated: its sides, and Black's rank at the block's start
        (each row's opponent rank is the opponent's at the start: in a unit of one
        game, the rank before it, which ``rows.game_rows`` of the sides gives)."""
        players = (self._player(record.white), self._player(record.black))
        reason = self.algorithm.skip_reason(record)
        outcomes: list[tuple[float, dict[str, Any]]] = []
        if reason:
            outcomes = [(0.0, {"skipped": reason})] * 2
        else:
            white_start = self.starts[record.white][0]
            black_start = self.starts[record.black][0]
            outcomes = [
                self.algorithm.change(white_start, black_start, Colour.WHITE, record),
                self.algorithm.change(black_start, white_start, Colour.BLACK, record),
            ]
        sides: list[RowSide] = []
        for name, player, (change, factors) in zip(
            (record.white, record.black), players, outcomes, strict=True
        ):
            value_before, rank_before = player.value, player.rank
            if not reason:
                self._apply(name, player, change, factors)
            sides.append((rank_before, value_before, change, player.rank, player.value, factors))
        return (record, sides[0], sides[1], reason), self.starts[record.black][1]

    def _player(self, name: str) -> EgfPlayer:
        player = self.state.player(name)
        if name not in self.starts:
            self.starts[name] = (player.value, player.rank)
        return player

    def _apply(self, name: str, player: EgfPlayer, change: float, factors: dict) -> None:
        start = self.starts[name][0]
        if name in self.sums:
            total = self.sums[name] = Fraction(self.sums[name]) + Fraction(change)
            running = float(Fraction(start) + total)
        else:
            # first game of the block: one float addition is already the exact sum rounded
            # once, so the common one-game unit needs no fractions
            self.sums[name] = change
            running = start + change
        floor = self.algorithm.params.floor
        if running < floor:
            factors["floored"] = True
        player.value = max(floor, running)
        player.games += 1
        player.rank = self.algorithm.shown_rank(player)


class _BradleyTerrySet(EgfAlgorithm):
    """egf-2021 and egf-2020: the same shape, different functions. Ratings are clamped
    into [adjusted_min, adjusted_max] before the formulas, which have a pole at the
    set's ceiling (ratings never get near it in play; the clamp keeps a bad value
    from crashing)."""

    se_function: ClassVar[staticmethod[[float, float], float]]
    con_function: ClassVar[staticmethod[[float], float]]
    bonus_function: ClassVar[staticmethod[[float], float]]

    def clamped(self, rating: float) -> float:
        return min(self.params.adjusted_max, max(self.params.adjusted_min, rating))

    def expected(self, own_adjusted: float, opponent_adjusted: float) -> tuple[float, dict]:
        return self.se_function(self.clamped(own_adjusted), self.clamped(opponent_adjusted)), {}

    def con(self, rating: float) -> float:
        return self.con_function(self.clamped(rating))

    def bonus(self, rating: float) -> float:
        return self.bonus_function(self.clamped(rating))


class Egf2021(_BradleyTerrySet):
    name = "egf-2021"
    title = gettext_noop("EGF GoR (2021 system)")
    params_type = Egf2021Params
    prediction_note = gettext_noop(
        "Its own expected result Se = 1 / (1 + exp(β(Rb') − β(Rw'))), "  # noqa: RUF001
        "β(r) = −7 ln(3300 − r), Black's rating raised by 100 (H − 0.5) "  # noqa: RUF001
        "for H ≥ 1. Within a tournament: the ratings at its start, as the set rates it."
    )
    rating_ceiling = 3300
    se_function = staticmethod(se_2021)
    con_function = staticmethod(con_2021)
    bonus_function = staticmethod(bonus_2021)


class Egf2020(_BradleyTerrySet):
    name = "egf-2020"
    title = gettext_noop("EGF GoR (2020 commission recommendation)")
    params_type = Egf2020Params
    prediction_note = gettext_noop(
        "Its own expected result Se = 1 / (1 + exp(B(Rb') − B(Rw'))), "  # noqa: RUF001
        "B(r) = −6 ln(3200 − r), Black's rating raised by 100 (H − 0.5). "  # noqa: RUF001
        "Within a tournament: the ratings at its start."
    )
    rating_ceiling = 3200
    se_function = staticmethod(se_2020)
    con_function = staticmethod(con_2020)
    bonus_function = staticmethod(bonus_2020)


class EgfLegacy(EgfAlgorithm):
    name = "egf-legacy"
    short_name = gettext_noop("EGF Legacy")
    title = gettext_noop("EGF GoR (legacy system, before 2021)")
    params_type = EgfLegacyParams
    prediction_note = gettext_noop(
        "Its own expected result 1 / (exp(D/a) + 1) for the weaker side, D the gap of the "
        "handicap-adjusted ratings, a = 205 − r/20 of the weaker; without eps (0.016, "  # noqa: RUF001
        "a deflation that makes the two sides' Se add up to less than 1). Within a "
        "tournament: the ratings at its start."
    )

    def predict_white(self, matchup: Matchup) -> float:
        """Se of White without eps; Black's rating raised by ``100 (H - 0.5)``."""
        black_adjusted = matchup.black.value + handicap_points(matchup.handicap)
        return se_legacy(matchup.white.value, black_adjusted, 0.0)[0]

    def expected(self, own_adjusted: float, opponent_adjusted: float) -> tuple[float, dict]:
        se, a = se_legacy(own_adjusted, opponent_adjusted, self.params.eps)
        return se, {"a": a, "eps": self.params.eps}

    def con(self, rating: float) -> float:
        return con_legacy(rating)

    def bonus(self, rating: float) -> float:
        return 0.0


# The EGF 2021 curve, the fixed reference for the algorithms without a probability of
# their own (default parameters: adjusted ratings clamped into [-900, 3299.999]).
_REFERENCE = Egf2021()


def reference_curve(white_gor: float, black_gor: float) -> float:
    """P(White wins) by the EGF 2021 curve from two (handicap-adjusted) GoRs."""
    return _REFERENCE.expected(white_gor, black_gor)[0]
