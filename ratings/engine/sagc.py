"""The South African Go Clubs index system (seed 000, SPEC section 4).

Every player has a rank and an index in -999..999. The change of a game is
``LF x GSF x OF x GRF x HF`` rounded half away from zero. Every factor is a
rational number with a small denominator, so the product is computed exactly as
an integer over a fixed common denominator (no binary floats before rounding):

    LF  = (60000x^2 + 90000x + 3300000 + 2x^5) / 60000
    GSF = gsf2 / 2,  OF = of10 / 10,  GRF = grf100 / 100,  HF = hf100 / 100
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from .base import Algorithm, HistoryRow, PlayerState, RatedGame, RatingState
from .description import (
    INDEX_SCALE,
    FormulaFactor,
    Matchup,
    StatusFactors,
    ValueScale,
    gettext_noop,
)
from .egf import GOR_1D, POINTS_PER_GRADE, reference_curve
from .explanation import Step, StoredChange, factor_steps, opening_steps, product_step
from .messages import NOT_AN_SAGC_INDEX, NOT_THE_RATED_BOARD, Message, board, refused
from .ranks import FLOOR_STONES, STRONGEST_AMATEUR_STONES, Rank
from .records import Colour, Entry, GameRecord, Status, Winner
from .rows import adjustment_row, game_rows

INDEX_LIMIT = 999
OPPONENT_MEMORY = 10  # the opponent factor looks at the player's last ten games

_LF_DENOMINATOR = 60000
_GSF_DENOMINATOR = 2
_OF_DENOMINATOR = 10
_GRF_DENOMINATOR = 100
_HF_DENOMINATOR = 100
_DENOMINATOR = (
    _LF_DENOMINATOR * _GSF_DENOMINATOR * _OF_DENOMINATOR * _GRF_DENOMINATOR * _HF_DENOMINATOR
)

# Game result factors in hundredths, by differential (clamped to -4..+4, where +4 is
# the ">+3" row and -4 the "<-3" row): (promotion win, promotion loss, demotion win,
# demotion loss). The seed's table is normative (SPEC section 4).
GAME_RESULT_FACTORS: dict[int, tuple[int, int, int, int]] = {
    4: (350, 0, 350, 0),
    3: (350, -9, 350, 0),
    2: (220, -47, 220, -3),
    1: (150, -81, 160, -28),
    0: (100, -117, 140, -60),
    -1: (54, -144, 70, -75),
    -2: (13, -180, 37, -100),
    -3: (9, -270, 12, -190),
    -4: (0, -270, 0, -190),
}

GAME_STATUS_FACTORS_DOUBLED = {
    Status.FREE: 0,
    Status.NORMAL: 2,
    Status.TOURNAMENT: 3,
    Status.INTERNET: 1,
}


@dataclass(frozen=True)
class SagcParams:
    """The seed's numbers. Loss barriers are fixed by the seed's table."""

    index_limit: int = INDEX_LIMIT
    opponent_memory: int = OPPONENT_MEMORY

    def __post_init__(self) -> None:
        if not 1 <= self.index_limit <= 100_000:
            raise ValueError("index_limit must be between 1 and 100000")
        if not 1 <= self.opponent_memory <= 100:
            raise ValueError("opponent_memory must be between 1 and 100")


@dataclass(slots=True)
class SagcPlayer(PlayerState):
    value: int  # the SAGC index
    recent_opponents: list[str] = field(default_factory=list)


SagcState = RatingState[SagcPlayer]


def level_factor_60000(rank: Rank) -> int:
    """The level factor times 60000 (an integer): ``x^2 + 1.5x + 55 + x^5/30000``."""
    return _level_factor_60000(rank.stones)


@functools.cache
def _level_factor_60000(stones: int) -> int:
    x = max(0, 6 - stones)
    return 60000 * x * x + 90000 * x + 3_300_000 + 2 * x**5


def level_factor(rank: Rank) -> Fraction:
    return Fraction(level_factor_60000(rank), _LF_DENOMINATOR)


def effective_handicap(handicap: int, komi: Fraction) -> int:
    """``trunc(handicap - (komi - 6)/10)``, toward zero (the seed's Perl ``int``).

    With ``komi = p/q`` that is ``trunc(((10·handicap + 6)·q - p) / (10·q))``, done
    in integers because it runs for every game.
    """
    if not isinstance(komi, Fraction):
        komi = Fraction(komi)
    numerator = (10 * handicap + 6) * komi.denominator - komi.numerator
    denominator = 10 * komi.denominator
    if numerator >= 0:
        return numerator // denominator
    return -(-numerator // denominator)


def handicap_factor_100(eff: int) -> int:
    return max(10, 100 - 5 * eff)


def differential(own: Rank, opponent: Rank, colour: Colour, eff: int) -> int:
    """Positive when the game is harder than the correct handicap for this player."""
    taken = eff if colour is Colour.BLACK else -eff
    return (opponent.stones - own.stones) - taken


def game_result_factor_100(diff: int, index: int, won: bool) -> int:
    row = GAME_RESULT_FACTORS[-4 if diff < -4 else 4 if diff > 4 else diff]
    promotion_zone = index >= 0
    if promotion_zone:
        return row[0] if won else row[1]
    return row[2] if won else row[3]


def fraction_text(numerator: int, denominator: int) -> str:
    """``str(Fraction(numerator, denominator))`` for a positive denominator, without
    building the Fraction (the factors of every game are reported this way)."""
    divisor = math.gcd(numerator, denominator)
    if divisor == denominator:
        return str(numerator // divisor)
    return f"{numerator // divisor}/{denominator // divisor}"


_factor_text = functools.cache(fraction_text)  # for the few distinct values of a factor


def round_half_away_from_zero(numerator: int, denominator: int) -> int:
    magnitude = (2 * abs(numerator) + denominator) // (2 * denominator)
    return magnitude if numerator >= 0 else -magnitude


def first_barrier(rank: Rank) -> int | None:
    """The first loss barrier of the rank's category; None for 30k (no marks)."""
    stones = rank.stones
    if stones <= FLOOR_STONES:
        return None
    if stones <= -25:
        return -800
    if stones <= -20:
        return -850
    if stones <= -10:
        return -900
    if stones <= -5:
        return -950
    return -999


@functools.cache
def _barrier_marks(stones: int, limit: int) -> tuple[int, ...]:
    """The first mark, then every 50 down, the last being ``-limit``."""
    first = first_barrier(Rank(stones))
    if first is None:
        return ()
    return (*range(first, -limit, -50), -limit)


def loss_barrier(rank: Rank, index: int, limit: int = INDEX_LIMIT) -> int | None:
    """How low a loss may take this index, or None when demotion is possible.

    From index >= 0 a loss stops at the first mark; from a negative index it stops at
    the next mark under the band the index is in; from the last band it may demote.
    """
    marks = _barrier_marks(rank.stones, limit)
    if not marks:
        return -limit  # 30k: never below -999 and never demoted
    if index >= 0:
        return marks[0]
    for position, mark in enumerate(marks):
        if index >= mark:
            return marks[position + 1] if position + 1 < len(marks) else None
    return None


_BARRIER_TABLE_LIMIT = 10_000  # a larger index_limit walks the marks (see _loss_barriers)


@functools.cache
def _loss_barriers(stones: int, limit: int) -> tuple[int | None, ...]:
    """``loss_barrier`` of this rank for every index from ``-limit`` to ``limit``, by
    ``index + limit`` (a loss looks its barrier up instead of walking the marks)."""
    rank = Rank(stones)
    return tuple(loss_barrier(rank, index, limit) for index in range(-limit, limit + 1))


def sagc_rank(rank: Rank) -> Rank:
    """SAGC's own rank of a declared one: professionals are 9d, below 30k is 30k."""
    return rank.floored(FLOOR_STONES)


class _GameFactors:
    """What both players' changes share: the factors that depend on the game only.

    Immutable once made, and shared by every game with the same handicap, komi,
    status and winner (see :func:`_game_factors`).
    """

    __slots__ = ("black_won", "changes", "eff", "gsf2", "gsf_text", "hf100", "hf_text", "white_won")

    def __init__(self, handicap: int, komi: Fraction, status: Status, winner: Winner) -> None:
        self.eff = effective_handicap(handicap, komi)
        self.gsf2 = GAME_STATUS_FACTORS_DOUBLED[status]
        self.gsf_text = _factor_text(self.gsf2, _GSF_DENOMINATOR)
        self.hf100 = handicap_factor_100(self.eff)
        self.hf_text = _factor_text(self.hf100, _HF_DENOMINATOR)
        # A player's change and factors in this game, by Sagc._play's key.
        self.changes: dict[int, tuple[int, dict]] = {}
        if winner is Winner.JIGO:
            self.white_won = self.black_won = None
        else:
            self.white_won = winner is Winner.WHITE
            self.black_won = not self.white_won


@functools.cache
def _cached_game_factors(
    handicap: int, komi_numerator: int, komi_denominator: int, status: Status, winner: Winner
) -> _GameFactors:
    return _GameFactors(handicap, Fraction(komi_numerator, komi_denominator), status, winner)


def _game_factors(record: GameRecord) -> _GameFactors:
    """A game's shared factors; the few combinations a club plays are made once (the key
    holds komi as two integers: hashing a Fraction costs more than the factors).

    Found first by the komi object itself: a file's records share a few, and even a
    Fraction's numerator is a property call. The entry holds the komi, so that its id
    stays its own."""
    komi = record.komi
    # status and winner by id too: an enum member hashes through Python code, and is a
    # singleton living as long as its class
    key = (record.handicap, id(komi), id(record.status), id(record.winner))
    known = _GAMES_BY_KOMI_OBJECT.get(key)
    if known is not None and known[0] is komi:
        return known[1]
    value = komi if isinstance(komi, Fraction) else Fraction(komi)
    game = _cached_game_factors(
        record.handicap, value.numerator, value.denominator, record.status, record.winner
    )
    if len(_GAMES_BY_KOMI_OBJECT) < 4096:
        _GAMES_BY_KOMI_OBJECT[key] = (komi, game)
    return game


_GAMES_BY_KOMI_OBJECT: dict[tuple, tuple[object, _GameFactors]] = {}


class Sagc(Algorithm[SagcPlayer]):
    name = "sagc"
    title = gettext_noop("SAGC index")
    params_type = SagcParams
    state_type = SagcPlayer
    integer_values = True
    value_label = gettext_noop("index")
    status_factors = StatusFactors(
        "GSF",
        {
            status: Fraction(doubled, _GSF_DENOMINATOR)
            for status, doubled in GAME_STATUS_FACTORS_DOUBLED.items()
        },
    )
    value_scale = ValueScale("sagc", gettext_noop("SAGC index (−999…999 within the rank)"))  # noqa: RUF001
    rank_scale = INDEX_SCALE
    formula = (
        FormulaFactor("LF", gettext_noop("level factor"), "level_factor"),
        FormulaFactor("GSF", gettext_noop("game status factor"), "game_status_factor"),
        FormulaFactor("OF", gettext_noop("opponent factor"), "opponent_factor"),
        FormulaFactor("GRF", gettext_noop("game result factor"), "game_result_factor"),
        FormulaFactor("HF", gettext_noop("handicap factor"), "handicap_factor"),
    )
    prediction_note = gettext_noop(
        "SAGC states no probability. Strength in stones = rank + index/1000, put on the "
        "EGF scale as GoR 2100 + 100 × strength; Black is raised by 100 × the "  # noqa: RUF001
        "effective handicap trunc(H − (komi − 6)/10), the handicap SAGC calls fair; "  # noqa: RUF001
        "then the EGF 2021 curve, a fixed published curve (not fitted to these games)."
    )

    def default_value(self, rank: Rank) -> int:
        """A reset without an index starts the rank at 0."""
        return 0

    def explain(self, change: StoredChange) -> tuple[Step, ...]:
        """The product LF x GSF x OF x GRF x HF, then what the seed says of the game:
        a jigo, the effective handicap and the rank/handicap differential, the zone the
        index was in, and the loss barrier, limit, promotion or demotion it met."""
        steps = opening_steps(change)
        product = product_step(self.formula, change)
        if product is None:  # an adjustment, a game not rated
            labels = {key: self.factor_label(key) for key in change.factors}
            return tuple(steps + factor_steps(change, labels))
        steps.append(product)
        factors = change.factors
        if factors.get("result") == "jigo":
            steps.append(Step("jigo"))
        if change.handicap is not None:
            steps.append(
                Step(
                    "effective_handicap",
                    {
                        "effective": factors.get("effective_handicap"),
                        "handicap": change.handicap,
                        "komi": change.komi,
                    },
                )
            )
        if factors.get("differential") is not None:
            steps.append(Step("differential", {"differential": factors["differential"]}))
        if factors.get("zone"):
            steps.append(
                Step(
                    "zone",
                    {
                        "zone": factors["zone"],
                        "index": change.value_before,
                        "rank": change.rank_before,
                    },
                )
            )
        if "barrier" in factors:
            unbarred = int(change.value_before + change.change)
            steps.append(
                Step("loss_barrier", {"barrier": factors["barrier"], "unbarred": unbarred})
            )
        limit = self.params.index_limit
        if factors.get("promoted"):
            steps.append(Step("promoted", {"limit": limit, "rank": change.rank_after}))
        if factors.get("demoted"):
            steps.append(Step("demoted", {"limit": limit, "rank": change.rank_after}))
        if "limit" in factors:
            steps.append(Step("index_limit", {"limit": factors["limit"]}))
        return tuple(steps)

    def predict_white(self, matchup: Matchup) -> float:
        """The EGF 2021 curve at ``2100 + 100 (stones + index/1000)``, Black raised by
        SAGC's effective handicap in ranks (the handicap the seed calls fair)."""
        eff = effective_handicap(matchup.handicap, Fraction(matchup.komi))
        white = sagc_gor(matchup.white.rank, matchup.white.value)
        black = sagc_gor(matchup.black.rank, matchup.black.value) + POINTS_PER_GRADE * eff
        return reference_curve(white, black)

    def new_player(self, entry: Entry) -> SagcPlayer:
        index = 0
        if entry.value is not None:
            index = self._checked_index(entry.value)
        return SagcPlayer(rank=sagc_rank(entry.rank), value=index)

    def entry_problem(self, entry: Entry) -> str | None:
        if entry.value is None:
            return None
        try:
            self._checked_index(entry.value)
        except ValueError as error:
            return refused(error)
        return None

    def _checked_index(self, value: Fraction) -> int:
        limit = self.params.index_limit
        if value.denominator != 1 or not -limit <= value <= limit:
            raise ValueError(Message(NOT_AN_SAGC_INDEX, limit=limit, value=str(value)))
        return int(value)

    def rate_unit(self, state: SagcState, unit: Sequence[GameRecord]) -> list[HistoryRow]:
        (record,) = unit
        if record.status is Status.ADJUSTMENT:
            return [self._adjust(state, record)]
        return game_rows(*self._rate_game(state, record))

    def rate_sides(self, state: SagcState, unit: Sequence[GameRecord]) -> list[RatedGame] | None:
        (record,) = unit
        if record.status is Status.ADJUSTMENT:
            return None  # rate_unit's
        return [self._rate_game(state, record)]

    def _adjust(self, state: SagcState, record: GameRecord) -> HistoryRow:
        player = state.player(record.white)
        rank_before, index_before = player.rank, player.value
        new_rank = sagc_rank(record.white_rank or player.rank)
        skipped = ""
        new_index = self.default_value(new_rank)
        if record.value is not None:
            try:
                new_index = self._checked_index(record.value)
            except ValueError as error:
                skipped = refused(error)
                new_rank, new_index = rank_before, index_before
        player.rank, player.value = new_rank, new_index
        return adjustment_row(
            record,
            rank_before=rank_before,
            value_before=index_before,
            change=new_index - index_before,
            rank_after=new_rank,
            value_after=new_index,
            factors={"adjustment": True, "skipped": skipped} if skipped else {"adjustment": True},
            skipped=skipped,
        )

    def _rate_game(self, state: SagcState, record: GameRecord) -> RatedGame:
        white_name, black_name = record.white, record.black
        players = state.players
        white = players.get(white_name) or state.player(white_name)
        black = players.get(black_name) or state.player(black_name)
        # Both changes use the ranks and indexes from before the game; a game is between
        # two players, so rating White first leaves Black's as they were.
        white_rank, white_index = white.rank, white.value
        black_rank, black_index = black.rank, black.value
        if record.board_size != 19:
            skipped: str = Message(
                NOT_THE_RATED_BOARD, algorithm="SAGC", board=board(record.board_size)
            )
            white_change, white_factors = 0, {"skipped": skipped}
            black_change, black_factors = 0, {"skipped": skipped}
        else:
            skipped = ""
            game = _game_factors(record)
            # differential(): the stones Black is weaker by, less the handicap it takes
            # (White's, and the opposite for Black).
            stronger_by = white_rank.stones - black_rank.stones - game.eff
            white_change, white_factors = self._play(
                game, white, black_name, -stronger_by, game.white_won
            )
            black_change, black_factors = self._play(
                game, black, white_name, stronger_by, game.black_won
            )
        return (
            record,
            (white_rank, white_index, white_change, white.rank, white.value, white_factors),
            (black_rank, black_index, black_change, black.rank, black.value, black_factors),
            skipped,
        )

    def _play(
        self,
        game: _GameFactors,
        player: SagcPlayer,
        opponent_name: str,
        diff: int,
        won: bool | None,
    ) -> tuple[int, dict]:
        """One player's game (``won`` is None for a jigo): the change and its factors,
        the player's new rank and index, the opponent remembered."""
        rank, index = player.rank, player.value
        memory = player.recent_opponents
        of10 = 10 - memory.count(opponent_name)
        if of10 < 1:
            of10 = 1
        # The change and factors follow from these alone, and a club's games repeat a
        # few thousand combinations: each game's shared factors keep theirs, by an
        # integer that packs the rest (a tuple key hashed slower than the rest took).
        key = ((((rank.stones + 64) * 16 + of10) * 1024 + diff + 512) * 2 + (index >= 0)) * 3 + (
            2 if won is None else won
        )
        known = game.changes.get(key)
        if known is None:
            known = _change_and_factors(game, rank, index, of10, diff, won)
            if len(game.changes) < _CHANGES_LIMIT:
                game.changes[key] = known
        # The factors are shared by every row of the same combination (rows are read,
        # never changed); _apply copies them to add what the change came up against.
        change, factors = known
        if change > 0 and index + change <= self.params.index_limit:
            player.value = index + change  # the common case of _apply, without a call
        elif change:
            factors = self._apply(player, change, factors)
        player.games += 1
        memory.append(opponent_name)
        size = self.params.opponent_memory
        if len(memory) > size:
            del memory[:-size]
        return change, factors

    def _apply(self, player: SagcPlayer, change: int, factors: dict) -> dict:
        """The change made to the player's rank and index; returns the factors, with
        the barrier, limit, promotion or demotion it met if it met one."""
        limit = self.params.index_limit
        rank, index = player.rank, player.value
        new_index = index + change
        if change < 0:
            if limit <= _BARRIER_TABLE_LIMIT and -limit <= index <= limit:
                barrier = _loss_barriers(rank.stones, limit)[index + limit]
            else:
                barrier = loss_barrier(rank, index, limit)
            if barrier is not None and new_index < barrier:
                new_index = barrier
                factors = {**factors, "barrier": barrier}
            if new_index < -limit:
                player.rank, player.value = Rank(rank.stones - 1), 0
                return {**factors, "demoted": True}
        elif new_index > limit:
            if rank.stones >= STRONGEST_AMATEUR_STONES:
                new_index = limit
                factors = {**factors, "limit": limit}
            else:
                player.rank, player.value = Rank(rank.stones + 1), 0
                return {**factors, "promoted": True}
        player.value = new_index
        return factors


_CHANGES_LIMIT = 10_000  # per combination of a game's factors


def _change_and_factors(
    game: _GameFactors, rank: Rank, index: int, of10: int, diff: int, won: bool | None
) -> tuple[int, dict]:
    """One player's change and its factors (see :meth:`Sagc._change`)."""
    lf = _level_factor_60000(rank.stones)
    factors: dict = {
        "level_factor": _factor_text(lf, _LF_DENOMINATOR),
        "game_status_factor": game.gsf_text,
        "opponent_factor": _factor_text(of10, _OF_DENOMINATOR),
        "handicap_factor": game.hf_text,
        "effective_handicap": game.eff,
        "differential": diff,
        "zone": "promotion" if index >= 0 else "demotion",
    }
    if won is None:
        factors.update(result="jigo", game_result_factor="0", product="0")
        return 0, factors
    grf100 = game_result_factor_100(diff, index, won)
    numerator = lf * game.gsf2 * of10 * grf100 * game.hf100
    factors["result"] = "win" if won else "loss"
    factors["game_result_factor"] = _factor_text(grf100, _GRF_DENOMINATOR)
    factors["product"] = fraction_text(numerator, _DENOMINATOR)
    return round_half_away_from_zero(numerator, _DENOMINATOR), factors


# --- the lab's view of an index -------------------------------------------------------

INDEX_PER_STONE = 1000  # rank + index/1000: +999 meets the next rank's 0


def sagc_strength(rank: Rank, index: float) -> float:
    """A SAGC rank and index as a strength in stones: ``stones + index/1000``.

    Continuous across promotions and demotions: a 5k at +999 and a 4k at 0 are
    within a thousandth of a stone of each other."""
    return rank.stones + index / INDEX_PER_STONE


def sagc_gor(rank: Rank, index: float) -> float:
    return GOR_1D + POINTS_PER_GRADE * sagc_strength(rank, index)


def opponent_factor(meetings: int) -> float:
    """The opponent factor of a player who met this opponent ``meetings`` times in
    their remembered games: 1 - 0.1 per meeting, at least 0.1 (``of10 / 10`` of ``Sagc``)."""
    return max(1, 10 - meetings) / 10
