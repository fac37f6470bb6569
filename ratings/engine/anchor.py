"""The anchor system (seed 004, SPEC section 5), registered as ``anchor``.

Ratings are 100 points a rank with ``1d = 0`` (``1k = -100``); a new player starts
at ``100·stones`` of their entry rank. For each game::

    x = H - (Rw - Rb)/100

where ``H`` is the handicap in stones, multiplied by 361/169 on 13x13 and 361/81
on 9x9. If White wins, White gains ``a·e^(alpha·x)`` and Black loses as much; if Black
wins, Black gains ``a·e^(-alpha·x)`` and White loses as much; a jigo changes nothing.
``a = 10`` and ``alpha = ln 2 / 2`` by default.

The anchor rules, site-wide settings that are all off by default, freeze a player
(their change is 0 while the opponent's is unchanged):

- fixed anchor and extra anchor levels: a player at or above a level is frozen in
  games against a player below that level;
- floating anchor: the higher-rated player is frozen when the gap exceeds
  ``floating_gap`` (300).

The formulas are kept literally as written, in binary floats.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .base import Algorithm, HistoryRow, PlayerState, RatedGame, RatingState, RowSide
from .description import Matchup, RankScale, gettext_noop, logistic
from .french import LADDER_SCALE
from .messages import NO_RULE_FOR_THE_BOARD, Message, board
from .ranks import STRONGEST_AMATEUR_STONES, WEAKEST_STONES, Rank, RankError, parse_rank
from .records import Entry, GameRecord, Status, Winner
from .rows import adjustment_row, game_rows

RATING_PER_RANK = 100
# Small boards map their handicap to the big board by the ratio of the areas.
BOARD_FACTORS: dict[int, float] = {19: 1.0, 13: 361 / 169, 9: 361 / 81}
BOARD_FACTOR_TEXT = {19: "1", 13: "361/169", 9: "361/81"}


def entry_rating(rank: Rank) -> float:
    """``100·stones`` of a rank; below 30k counts as 30k (-3000), a pro as 9d (800)."""
    return float(RATING_PER_RANK * rank.floored().stones)


def rank_of(rating: float) -> Rank:
    """The rank a rating falls in (``0..99 = 1d``, ``-100..-1 = 1k``), within 50k..9d."""
    stones = math.floor(rating / RATING_PER_RANK)
    return Rank(max(WEAKEST_STONES, min(STRONGEST_AMATEUR_STONES, stones)))


def anchor_rating(setting: str | float | int) -> float:
    """An anchor level as a rating: a number of rating points (``550``) or a rank,
    which stands for the bottom of that rank (``1d`` = 0, ``9k`` = -900)."""
    if isinstance(setting, int | float):
        value = float(setting)
    else:
        try:
            value = float(setting)
        except ValueError:
            try:
                return entry_rating(parse_rank(setting))
            except RankError:
                raise ValueError(
                    f"anchor level '{setting}' is neither a rating nor a rank (e.g. 550 or 1d)"
                ) from None
    if not math.isfinite(value):
        raise ValueError(f"anchor level {setting} is not a finite rating")
    return value


@dataclass(frozen=True)
class AnchorParams:
    """The seed's numbers; the anchor rules are off unless set."""

    a: float = 10.0
    alpha: float = math.log(2) / 2
    # players at or above it are frozen against players below it: a rating or a rank
    fixed_anchor: str | None = None
    # more levels that work the same way, e.g. "1d,9k" (0 and -900)
    anchor_levels: tuple[str, ...] = ()
    floating_anchor: bool = False
    floating_gap: float = 300.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.a) and self.a > 0):
            raise ValueError("a must be a positive number")
        if not (math.isfinite(self.alpha) and self.alpha >= 0):
            raise ValueError("alpha must be a number, 0 or more")
        if not (math.isfinite(self.floating_gap) and self.floating_gap >= 0):
            raise ValueError("floating_gap must be a number, 0 or more")
        self.levels()  # every level must read as a rating

    def levels(self) -> list[tuple[str, float]]:
        """Every anchor level as (what it is, rating): the fixed anchor first."""
        levels = []
        if self.fixed_anchor is not None:
            levels.append(("fixed anchor", anchor_rating(self.fixed_anchor)))
        levels += [("anchor level", anchor_rating(level)) for level in self.anchor_levels]
        return levels


def frozen_reason(
    own: float, opponent: float, levels: Sequence[tuple[str, float]], params: AnchorParams
) -> str:
    """Why a player rated ``own`` is frozen against one rated ``opponent``, or ""."""
    for kind, level in levels:
        if own >= level > opponent:
            return f"{kind} {level!r}: at or above it against a player below it"
    if params.floating_anchor and own - opponent > params.floating_gap:
        gap = own - opponent
        return f"floating anchor: {gap!r} above the opponent, more than {params.floating_gap!r}"
    return ""


@dataclass(slots=True)
class AnchorPlayer(PlayerState):
    value: float  # the rating


AnchorState = RatingState[AnchorPlayer]


class Anchor(Algorithm[AnchorPlayer]):
    name = "anchor"
    short_name = gettext_noop("Anchor")
    title = gettext_noop("Anchor system")
    params_type = AnchorParams
    state_type = AnchorPlayer
    value_scale = LADDER_SCALE
    rank_scale = RankScale("points", bottom_of_1d=0.0)  # a rating of 0..99 is 1d
    factor_labels = {
        "handicap_stones": gettext_noop("Handicap stones (board-scaled)"),
        "board_factor": gettext_noop("Board factor"),
        "x": gettext_noop("x = handicap − (Rw − Rb)/100"),  # noqa: RUF001
        "a": gettext_noop("Factor a"),
        "alpha": gettext_noop("Alpha"),
        "award": gettext_noop("Award"),
        "frozen": gettext_noop("Frozen by the anchor"),
        "formula_change": gettext_noop("Change by the formula"),
        "default_value": gettext_noop("Default value"),
    }
    prediction_note = gettext_noop(
        "The probability at which White's expected change is zero: with "
        "x = H − (Rw − Rb)/100 (H scaled on small boards), a win gains "  # noqa: RUF001
        "a·e^(αx) and a loss costs a·e^(−αx), which balance at "  # noqa: RUF001
        "P(White) = 1 / (1 + e^(2αx)); "  # noqa: RUF001
        "with α = ln 2 / 2 each stone of x halves White's odds."  # noqa: RUF001
    )

    def default_value(self, rank: Rank) -> float:
        """100 x stones: the bottom of the rank."""
        return entry_rating(rank)

    def predict_white(self, matchup: Matchup) -> float:
        """Where White's expected change is zero: ``p a e^(ax) = (1 - p) a e^(-ax)``."""
        return logistic(-2 * self.params.alpha * anchor_x(matchup))

    def __init__(self, params: AnchorParams | None = None) -> None:
        super().__init__(params)
        self.levels = self.params.levels()

    def new_player(self, entry: Entry) -> AnchorPlayer:
        value = entry_rating(entry.rank) if entry.value is None else float(entry.value)
        return AnchorPlayer(rank=rank_of(value), value=value)

    def entry_problem(self, entry: Entry) -> str | None:
        if entry.value is not None:
            return _rating_problem(entry.value)
        return None

    def rate_unit(self, state: AnchorState, unit: Sequence[GameRecord]) -> list[HistoryRow]:
        (record,) = unit
        if record.is_adjustment:
            return [self._adjust(state, record)]
        return game_rows(*self._rate_game(state, record))

    def rate_sides(self, state: AnchorState, unit: Sequence[GameRecord]) -> list[RatedGame] | None:
        (record,) = unit
        if record.status is Status.ADJUSTMENT:
            return None  # rate_unit's
        return [self._rate_game(state, record)]

    def skip_reason(self, record: GameRecord) -> str:
        if record.status is Status.FREE:
            return gettext_noop("the anchor system does not rate free games")
        if record.board_size not in BOARD_FACTORS:
            return Message(NO_RULE_FOR_THE_BOARD, board=board(record.board_size))
        if record.winner is None:
            return gettext_noop("a game needs a winner (W, B or D for jigo)")
        return ""

    def _rate_game(self, state: AnchorState, record: GameRecord) -> RatedGame:
        white, black = state.player(record.white), state.player(record.black)
        # Both changes and both anchor tests use the ratings from before the game.
        before = [(white.rank, white.value), (black.rank, black.value)]
        skipped = self.skip_reason(record)
        changes: tuple[float, float] = (0.0, 0.0)
        factors: dict[str, Any] = {"skipped": skipped}
        if not skipped:
            try:
                changes, factors = self._changes(record, white.value, black.value)
            except OverflowError:
                skipped = gettext_noop(
                    "the change is too large to compute (check a, alpha and the ratings)"
                )
                factors = {"skipped": skipped}
        rated: list[RowSide] = []
        for side, player in enumerate((white, black)):
            rank_before, value_before = before[side]
            change, player_factors = changes[side], dict(factors)
            if not skipped:
                frozen = frozen_reason(value_before, before[1 - side][1], self.levels, self.params)
                if frozen:
                    player_factors.update(frozen=frozen, formula_change=change)
                    change = 0.0
                player.value = value_before + change
                player.rank = rank_of(player.value)
                player.games += 1
            rated.append(
                (rank_before, value_before, change, player.rank, player.value, player_factors)
            )
        return record, rated[0], rated[1], skipped

    def _changes(
        self, record: GameRecord, white_rating: float, black_rating: float
    ) -> tuple[tuple[float, float], dict]:
        """(White's change, Black's change) by the formula, and the numbers behind it."""
        params = self.params
        stones = record.handicap * BOARD_FACTORS[record.board_size]
        x = stones - (white_rating - black_rating) / RATING_PER_RANK
        factors: dict = {
            "handicap_stones": stones,
            "board_factor": BOARD_FACTOR_TEXT[record.board_size],
            "x": x,
            "a": params.a,
            "alpha": params.alpha,
        }
        if record.winner is Winner.JIGO:
            factors.update(result="jigo", award=0.0)
            return (0.0, 0.0), factors
        if record.winner is Winner.WHITE:
            award = params.a * math.exp(params.alpha * x)
            factors.update(result="white wins", award=award)
            return (award, -award), factors
        award = params.a * math.exp(-params.alpha * x)
        factors.update(result="black wins", award=award)
        return (-award, award), factors

    def _adjust(self, state: AnchorState, record: GameRecord) -> HistoryRow:
        player = state.player(record.white)
        rank_before, value_before = player.rank, player.value
        new_rank = record.white_rank or player.rank
        skipped = ""
        factors: dict = {"adjustment": True}
        if record.value is None:
            new_value = self.default_value(new_rank)
            factors["default_value"] = "100 x stones"
        elif problem := _rating_problem(record.value):
            skipped = problem
            factors["skipped"] = problem
            new_value = value_before
        else:
            new_value = float(record.value)
        player.value = new_value
        player.rank = rank_of(new_value)
        return adjustment_row(
            record,
            rank_before=rank_before,
            value_before=value_before,
            change=new_value - value_before,
            rank_after=player.rank,
            value_after=new_value,
            factors=factors,
            skipped=skipped,
        )


def _rating_problem(value: Fraction) -> str | None:
    try:
        float(value)
    except OverflowError:
        return f"a rating of {value} is too large"
    return None


def anchor_x(matchup: Matchup) -> float:
    """The anchor system's ``x = H - (Rw - Rb)/100``, H scaled on small boards."""
    stones = matchup.handicap * BOARD_FACTORS.get(matchup.board_size, 1.0)
    return stones - (matchup.white.value - matchup.black.value) / RATING_PER_RANK
