"""The old French ladder (seed 001, SPEC section 5), registered as ``french``.

A player's level is a float, 100 points a rank: ``0..99 = 1d``, ``-100..-1 = 1k``.
Each game goes through the seed's six stages (basic change, handicap, board size,
rapid games, weight by level, the -2950 barrier). A tournament is rated as one
block, round by round: every game of a round uses the levels at the round's start.
Club games without a tournament are each their own one-game tournament.

After the block's complete calculation, every player whose total change exceeds
the threshold (50 for a player unknown to the ladder, 100 for a known one) has
their starting level corrected by ``sign(change)·(|change| - threshold)`` and the
block is calculated again, until nobody exceeds the threshold or every correction
just applied was under 10 (at most 50 corrections).

The formulas are kept literally as the seed writes them, in binary floats, so that
an independent implementation of the same formulas gives the same bits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .base import Algorithm, HistoryRow, PlayerState, RatingState
from .description import Matchup, RankScale, ValueScale, gettext_noop
from .egf import GRADE_BORDER, reference_curve
from .messages import BELOW_THE_BARRIER, Message, refused
from .ranks import FLOOR_STONES, STRONGEST_AMATEUR_STONES, Rank
from .records import Colour, Entry, GameRecord, Status, Winner
from .rows import adjustment_row, game_row

LEVEL_PER_RANK = 100  # 0..99 = 1d, 100..199 = 2d, -100..-1 = 1k
RATED_BOARD_SIZES = (9, 13, 19)


@dataclass(frozen=True)
class FrenchParams:
    """The seed's numbers, stage by stage."""

    # stage 1: 15 + (NFP - NFG)/15, the winner in 1..40, the loser in -15..-1
    base_change: float = 15.0
    difference_divisor: float = 15.0
    winner_min: float = 1.0
    winner_max: float = 40.0
    loser_min: float = -15.0
    loser_max: float = -1.0
    # a winner above 400 has 0..40
    strong_level: float = 400.0
    strong_winner_min: float = 0.0
    # a loser below -2000 has -1..0; at or above -2000 against below -2000: -1..1
    weak_level: float = -2000.0
    weak_loser_min: float = -1.0
    weak_loser_max: float = 0.0
    mixed_limit: float = 1.0
    # stage 2: x (1 - H/10); more than 9 stones do not count
    handicap_divisor: float = 10.0
    max_handicap: int = 9
    # stage 3
    board_13_factor: float = 0.2
    board_9_factor: float = 0.1
    # stage 4: an hour or more counts x1, 30 minutes or more x0.5, faster not at all
    normal_time_minutes: float = 60.0
    minimum_time_minutes: float = 30.0
    rapid_factor: float = 0.5
    # stage 5: x (1 - N/1000) limited to 0.1..2.5
    weight_divisor: float = 1000.0
    weight_min: float = 0.1
    weight_max: float = 2.5
    # stage 6
    barrier: float = -2950.0
    # adjustment of the starting levels
    unknown_threshold: float = 50.0
    known_threshold: float = 100.0
    convergence: float = 10.0
    max_adjustments: int = 50

    def __post_init__(self) -> None:
        for low, high in (
            ("winner_min", "winner_max"),
            ("strong_winner_min", "winner_max"),
            ("loser_min", "loser_max"),
            ("weak_loser_min", "weak_loser_max"),
            ("weight_min", "weight_max"),
            ("minimum_time_minutes", "normal_time_minutes"),
        ):
            if getattr(self, low) > getattr(self, high):
                raise ValueError(f"{low} must not be above {high}")
        for name in ("difference_divisor", "handicap_divisor", "weight_divisor"):
            if getattr(self, name) == 0:
                raise ValueError(f"{name} must not be 0")
        for name in ("mixed_limit", "unknown_threshold", "known_threshold", "convergence"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} must be 0 or more")
        if not 0 <= self.max_handicap <= 9:
            raise ValueError("max_handicap must be between 0 and 9")
        if not 0 <= self.max_adjustments <= 1000:
            raise ValueError("max_adjustments must be between 0 and 1000")
        for name, value in vars(self).items():
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number")


# The calculator's scale of a typed French level, which the anchor system shares.
LADDER_SCALE = ValueScale("ladder", gettext_noop("French level / anchor rating (1d = 0…99)"))
LEVEL_TO_GOR = GRADE_BORDER  # a level of 0 (the bottom of 1d) is GoR 2050


@dataclass(slots=True)
class FrenchPlayer(PlayerState):
    value: float  # the level
    # known to the ladder: a game rated by it, a level given in --players, or a reset
    known: bool = False


FrenchState = RatingState[FrenchPlayer]


def clamp(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)


_RANKS = {stones: Rank(stones) for stones in range(FLOOR_STONES, STRONGEST_AMATEUR_STONES + 1)}


def rank_of_level(level: float) -> Rank:
    """``stones = floor(level/100)``, shown no stronger than 9d and no weaker than 30k."""
    stones = int(level // LEVEL_PER_RANK)
    return _RANKS[max(FLOOR_STONES, min(STRONGEST_AMATEUR_STONES, stones))]


def entry_level(rank: Rank) -> float:
    """``100·stones + 50``: 1d -> 50, 1k -> -50; below 30k as 30k, pros as 9d."""
    return float(LEVEL_PER_RANK * rank.floored(FLOOR_STONES).stones + LEVEL_PER_RANK // 2)


def fictitious_levels(white_level: float, black_level: float, handicap: int) -> tuple[float, float]:
    """(NFB, NFN): White's level, and Black's raised by ``100(H - 0.5)`` unless H = 0."""
    if handicap == 0:
        return white_level, black_level
    return white_level, black_level + LEVEL_PER_RANK * (handicap - 0.5)


def basic_changes(
    params: FrenchParams,
    winner_level: float,
    loser_level: float,
    winner_fictitious: float,
    loser_fictitious: float,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Stage 1: the winner's and the loser's basic change, with the intervals used.

    The differences use the fictitious levels; the tests "above 400" and "below -2000"
    use the actual levels (SPEC section 5).
    """
    p = params
    raw = p.base_change + (loser_fictitious - winner_fictitious) / p.difference_divisor
    if winner_level > p.strong_level:
        winner_low, winner_rule = p.strong_winner_min, "winner above strong_level"
    else:
        winner_low, winner_rule = p.winner_min, "winner"
    winner_change = clamp(raw, winner_low, p.winner_max)
    loser_raw = -winner_change
    if loser_level < p.weak_level:
        loser_low, loser_high = p.weak_loser_min, p.weak_loser_max
        loser_rule = "loser below weak_level"
    else:
        loser_low, loser_high = p.loser_min, p.loser_max
        loser_rule = "loser"
    # + 0.0: a zero change is +0.0, never -0.0
    loser_change = clamp(loser_raw, loser_low, loser_high) + 0.0
    winner = {
        "basic_change_formula": raw,
        "basic_rule": winner_rule,
        "basic_min": winner_low,
        "basic_max": p.winner_max,
    }
    loser = {
        "basic_change_formula": loser_raw,
        "basic_rule": loser_rule,
        "basic_min": loser_low,
        "basic_max": loser_high,
    }
    # then a player at or above -2000 against one below -2000 is limited to -1..1
    if winner_level >= p.weak_level > loser_level:
        winner_change = clamp(winner_change, -p.mixed_limit, p.mixed_limit)
        winner.update(mixed_min=-p.mixed_limit, mixed_max=p.mixed_limit)
    if loser_level >= p.weak_level > winner_level:
        loser_change = clamp(loser_change, -p.mixed_limit, p.mixed_limit)
        loser.update(mixed_min=-p.mixed_limit, mixed_max=p.mixed_limit)
    winner["basic_change"] = winner_change
    loser["basic_change"] = loser_change
    return winner, loser


def handicap_factor(params: FrenchParams, level: float, handicap: int) -> float:
    """Stage 2: ``1 - H/10``; 1 for a player below -2000."""
    if level < params.weak_level:
        return 1.0
    return 1 - handicap / params.handicap_divisor


def board_size_factor(params: FrenchParams, level: float, board_size: int) -> float:
    """Stage 3: 0.2 on 13x13, 0.1 on 9x9; 1 on 19x19 and for a player below -2000
    (the seed's "below 2000" read as "below -2000", SPEC section 5)."""
    if level < params.weak_level or board_size == 19:
        return 1.0
    return params.board_13_factor if board_size == 13 else params.board_9_factor


def time_factor(params: FrenchParams, time_minutes: Any) -> float | None:
    """Stage 4: x1 for an unknown time or an hour or more, x0.5 from 30 minutes;
    None for a faster game, which is not rated."""
    if time_minutes is None or time_minutes >= params.normal_time_minutes:
        return 1.0
    if time_minutes >= params.minimum_time_minutes:
        return params.rapid_factor
    return None


def level_weight(params: FrenchParams, level: float) -> float:
    """Stage 5: ``1 - N/1000`` limited to 0.1..2.5, N the player's own level."""
    return clamp(1 - level / params.weight_divisor, params.weight_min, params.weight_max)


def apply_barrier(params: FrenchParams, level: float) -> float:
    """Stage 6: a level that descends beneath -2950 remains at -2950."""
    return params.barrier if level < params.barrier else level


def game_changes(
    params: FrenchParams, record: GameRecord, white_level: float, black_level: float
) -> tuple[tuple[float, dict[str, Any]], tuple[float, dict[str, Any]]]:
    """Stages 1 to 5 of one rateable game: (change, factors) for White, then Black."""
    white_fictitious, black_fictitious = fictitious_levels(
        white_level, black_level, record.handicap
    )
    sides = (
        (white_level, white_fictitious, black_level, black_fictitious),
        (black_level, black_fictitious, white_level, white_fictitious),
    )
    factors: list[dict[str, Any]] = [
        {
            "level": level,
            "fictitious_level": fictitious,
            "opponent_level": opponent_level,
            "opponent_fictitious_level": opponent_fictitious,
        }
        for level, fictitious, opponent_level, opponent_fictitious in sides
    ]
    if record.winner is Winner.JIGO:
        for side_factors in factors:
            side_factors.update(result="jigo", game_change=0.0)
        return (0.0, factors[0]), (0.0, factors[1])
    winner_side = 0 if record.winner is Winner.WHITE else 1
    winner_level, winner_fictitious = sides[winner_side][:2]
    loser_level, loser_fictitious = sides[1 - winner_side][:2]
    basics = basic_changes(params, winner_level, loser_level, winner_fictitious, loser_fictitious)
    time = time_factor(params, record.time_minutes)
    if time is None:
        raise ValueError("a game faster than minimum_time_minutes is not rated")
    changes = []
    for side, (level, *_rest) in enumerate(sides):
        basic = basics[0] if side == winner_side else basics[1]
        hf = handicap_factor(params, level, record.handicap)
        sf = board_size_factor(params, level, record.board_size)
        wf = level_weight(params, level)
        after_handicap = basic["basic_change"] * hf
        after_board = after_handicap * sf
        after_time = after_board * time
        change = after_time * wf
        factors[side].update(
            result="win" if side == winner_side else "loss",
            **basic,
            handicap_factor=hf,
            change_after_handicap=after_handicap,
            board_size_factor=sf,
            change_after_board_size=after_board,
            time_factor=time,
            change_after_time=after_time,
            level_weight=wf,
            game_change=change,
        )
        changes.append(change)
    return (changes[0], factors[0]), (changes[1], factors[1])


@dataclass(slots=True)
class _Side:
    """One player's part of one game in one calculation of a block."""

    level_before: float
    change: float
    level_after: float
    opponent_level: float
    factors: dict[str, Any]


@dataclass(slots=True)
class _Calculation:
    levels: dict[str, float]
    sides: list[tuple[_Side, _Side]]  # per game of the block: White's, Black's


class French(Algorithm[FrenchPlayer]):
    name = "french"
    short_name = gettext_noop("French")
    title = gettext_noop("French ladder (old system)")
    params_type = FrenchParams
    state_type = FrenchPlayer
    rates_tournaments_as_blocks = True
    value_scale = LADDER_SCALE
    value_label = gettext_noop("level")
    rank_scale = RankScale("points", bottom_of_1d=0.0)  # a level of 0..99 is 1d
    factor_labels = {
        "level": gettext_noop("Level before"),
        "fictitious_level": gettext_noop("Fictitious level"),
        "opponent_level": gettext_noop("Opponent's level"),
        "opponent_fictitious_level": gettext_noop("Opponent's fictitious level"),
        "result": gettext_noop("Result"),
        "basic_change_formula": gettext_noop("Basic change by the formula"),
        "basic_rule": gettext_noop("Limits used"),
        "basic_min": gettext_noop("Lowest basic change"),
        "basic_max": gettext_noop("Highest basic change"),
        "mixed_min": gettext_noop("Lowest change against a player below −2000"),  # noqa: RUF001
        "mixed_max": gettext_noop("Highest change against a player below −2000"),  # noqa: RUF001
        "basic_change": gettext_noop("Basic change"),
        "handicap_factor": gettext_noop("Handicap factor"),
        "change_after_handicap": gettext_noop("After the handicap"),
        "board_size_factor": gettext_noop("Board size factor"),
        "change_after_board_size": gettext_noop("After the board size"),
        "time_factor": gettext_noop("Time factor"),
        "change_after_time": gettext_noop("After the thinking time"),
        "level_weight": gettext_noop("Level weight"),
        "game_change": gettext_noop("Change of the game"),
        "start_level": gettext_noop("Level before the tournament"),
        "corrected_start_level": gettext_noop("Corrected starting level"),
        "start_correction": gettext_noop("Correction of the starting level"),
        "threshold": gettext_noop("Correction threshold"),
        "adjustments": gettext_noop("Corrections of the tournament"),
        "barrier": gettext_noop("Barrier"),
    }
    prediction_note = gettext_noop(
        "The ladder states no probability. Its fictitious levels (Black + 100 (H − 0.5)) "  # noqa: RUF001
        "put on the EGF scale as GoR 2050 + level (both call 0..99 and 2050..2149 1d), then "
        "the EGF 2021 curve. Komi plays no part. Within a tournament: the levels at its "
        "start (the ladder corrects a tournament's starting levels after seeing its results)."
    )

    def default_value(self, rank: Rank) -> float:
        """The level of the rank on entry, 100 x stones + 50 (1d = 50)."""
        return entry_level(rank)

    def predict_white(self, matchup: Matchup) -> float:
        """The EGF 2021 curve at ``2050 + fictitious level`` (komi plays no part)."""
        white, black = fictitious_levels(matchup.white.value, matchup.black.value, matchup.handicap)
        return reference_curve(white + LEVEL_TO_GOR, black + LEVEL_TO_GOR)

    def new_player(self, entry: Entry) -> FrenchPlayer:
        if entry.value is None:
            level = entry_level(entry.rank)
            return FrenchPlayer(rank=rank_of_level(level), value=level)
        level = self._checked_level(entry.value)
        return FrenchPlayer(rank=rank_of_level(level), value=level, known=True)

    def entry_problem(self, entry: Entry) -> str | None:
        if entry.value is None:
            return None
        try:
            self._checked_level(entry.value)
        except ValueError as error:
            return refused(error)
        return None

    def _checked_level(self, value: Any) -> float:
        level = float(value)
        if level < self.params.barrier:
            raise ValueError(
                Message(BELOW_THE_BARRIER, barrier=repr(self.params.barrier), level=repr(level))
            )
        return level

    def rate_unit(self, state: FrenchState, unit: Sequence[GameRecord]) -> list[HistoryRow]:
        if unit[0].is_adjustment:
            return [self._adjust(state, record) for record in unit]
        return self._rate_block(state, unit)

    # --- adjustments --------------------------------------------------------------

    def _adjust(self, state: FrenchState, record: GameRecord) -> HistoryRow:
        player = state.player(record.white)
        rank_before, level_before = player.rank, player.value
        skipped = ""
        if record.value is not None:
            try:
                level = self._checked_level(record.value)
            except ValueError as error:
                skipped = refused(error)
                level = level_before
        else:
            level = self.default_value(record.white_rank or player.rank)
        factors: dict[str, Any] = {"adjustment": True}
        if skipped:
            factors["skipped"] = skipped
        else:
            player.value, player.rank, player.known = level, rank_of_level(level), True
            factors["level"] = level
        return adjustment_row(
            record,
            rank_before=rank_before,
            value_before=level_before,
            change=player.value - level_before + 0.0,
            rank_after=player.rank,
            value_after=player.value,
            factors=factors,
            skipped=skipped,
        )

    # --- games --------------------------------------------------------------------

    def skip_reason(self, record: GameRecord) -> str:
        """Why the ladder does not rate this game, or "" when it does."""
        p = self.params
        if record.status is Status.FREE:
            return gettext_noop("free games are not rated by the French ladder")
        if record.winner is None:
            return gettext_noop("the game has no result")
        if record.white == record.black:
            return f"'{record.white}' cannot play themselves"
        if not 0 <= record.handicap <= p.max_handicap:
            return f"a handicap of {record.handicap} stones is above {p.max_handicap} stones"
        if record.board_size not in RATED_BOARD_SIZES:
            return f"board size {record.board_size} is not rated (only 9, 13 and 19)"
        if record.time_minutes is not None and time_factor(p, record.time_minutes) is None:
            return (
                f"{float(record.time_minutes)!r} minutes is faster than "
                f"{p.minimum_time_minutes!r} minutes per player"
            )
        return ""

    def _calculate(
        self,
        start: dict[str, float],
        rounds: list[list[int]],
        unit: Sequence[GameRecord],
        skipped: list[str],
    ) -> _Calculation:
        """Stages 1 to 6 of every game of the block, round by round."""
        levels = dict(start)
        sides: list[Any] = [None] * len(unit)
        for round_games in rounds:
            at_round_start = dict(levels)
            for index in round_games:
                record = unit[index]
                white, black = record.white, record.black
                if skipped[index]:
                    reason = skipped[index]
                    sides[index] = (
                        _Side(
                            levels[white], 0.0, levels[white], levels[black], {"skipped": reason}
                        ),
                        _Side(
                            levels[black], 0.0, levels[black], levels[white], {"skipped": reason}
                        ),
                    )
                    continue
                white_start, black_start = at_round_start[white], at_round_start[black]
                outcome = game_changes(self.params, record, white_start, black_start)
                pair = []
                for name, opponent_start, (change, factors) in (
                    (white, black_start, outcome[0]),
                    (black, white_start, outcome[1]),
                ):
                    before = levels[name]
                    after = apply_barrier(self.params, before + change)
                    if after != before + change:
                        factors["barrier"] = self.params.barrier
                    levels[name] = after
                    pair.append(_Side(before, change, after, opponent_start, factors))
                sides[index] = (pair[0], pair[1])
        return _Calculation(levels, sides)

    def _rate_block(self, state: FrenchState, unit: Sequence[GameRecord]) -> list[HistoryRow]:
        p = self.params
        players: dict[str, FrenchPlayer] = {}
        for record in unit:
            for name in (record.white, record.black):
                if name not in players:
                    players[name] = state.player(name)
        original = {name: float(player.value) for name, player in players.items()}
        thresholds = {
            name: p.known_threshold if player.known else p.unknown_threshold
            for name, player in players.items()
        }
        skipped = [self.skip_reason(record) for record in unit]
        rounds = _rounds(unit)

        start = dict(original)
        calculation = self._calculate(start, rounds, unit, skipped)
        adjustments = 0
        for _ in range(p.max_adjustments):
            corrections = {}
            for name, final in calculation.levels.items():
                total = final - start[name]
                threshold = thresholds[name]
                if abs(total) > threshold:
                    excess = abs(total) - threshold
                    corrections[name] = excess if total > 0 else -excess
            if not corrections:
                break
            for name, correction in corrections.items():
                start[name] = start[name] + correction
            adjustments += 1
            calculation = self._calculate(start, rounds, unit, skipped)
            if all(abs(correction) < p.convergence for correction in corrections.values()):
                break

        rows = self._rows(unit, skipped, calculation, original, start, thresholds, adjustments)
        for name, player in players.items():
            player.value = calculation.levels[name]
            player.rank = rank_of_level(player.value)
        for index, record in enumerate(unit):
            if not skipped[index]:
                for player in (players[record.white], players[record.black]):
                    player.games += 1
                    player.known = True
        return rows

    def _rows(
        self,
        unit: Sequence[GameRecord],
        skipped: list[str],
        calculation: _Calculation,
        original: dict[str, float],
        start: dict[str, float],
        thresholds: dict[str, float],
        adjustments: int,
    ) -> list[HistoryRow]:
        """The record sheet rows of the final calculation.

        A corrected starting level is shown on the player's first rated row of the
        block: its value_before is the level the player had, its change the game's own
        change (SPEC section 3: the algorithm's change for that game; the new value is
        the level after it, the correction included, as after a barrier or a reset),
        and its factors give the correction.
        """
        rows = []
        started: set[str] = set()
        for index, record in enumerate(unit):
            white_side, black_side = calculation.sides[index]
            for colour, name, _opponent, side in (
                (Colour.WHITE, record.white, record.black, white_side),
                (Colour.BLACK, record.black, record.white, black_side),
            ):
                factors = side.factors  # the final calculation's own dict
                value_before, change = side.level_before, side.change
                value_after = side.level_after
                if name not in started:
                    value_before = original[name]
                    if skipped[index]:
                        value_after = value_before
                    else:
                        started.add(name)
                        correction = start[name] - original[name]
                        factors.update(
                            start_level=original[name],
                            corrected_start_level=start[name],
                            start_correction=correction,
                            threshold=thresholds[name],
                            adjustments=adjustments,
                        )
                rows.append(
                    game_row(
                        record,
                        colour=colour,
                        opponent_rank=rank_of_level(side.opponent_level),
                        rank_before=rank_of_level(value_before),
                        value_before=value_before,
                        change=change + 0.0,
                        rank_after=rank_of_level(value_after),
                        value_after=value_after,
                        factors=factors,
                        skipped=skipped[index],
                    )
                )
        return rows


def _rounds(unit: Sequence[GameRecord]) -> list[list[int]]:
    """The block's games (by position) grouped into rounds: consecutive games, in
    replay order, that share a date and a round number."""
    rounds: list[list[int]] = []
    key = None
    for index, record in enumerate(unit):
        if (record.date, record.round) != key:
            key = (record.date, record.round)
            rounds.append([])
        rounds[-1].append(index)
    return rounds
