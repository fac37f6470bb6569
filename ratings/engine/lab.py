"""The algorithm lab: how well each algorithm predicts the games it rates.

Pure Python, no Django. Each algorithm gets a *predictor*: the probability that
White wins a game, from both players' states just before it (rank and value),
the handicap, komi and board size. The metrics then compare the predictions with
the results (``evaluate``).

How each prediction is made (docs/lab.md explains them in full):

- EGF GoR sets: their own expected result Se, with Black's rating raised by
  ``100 (H - 0.5)``, the same functions ``egf.py`` rates with. egf-legacy's eps
  (each side's Se lowered by 0.008, so that ratings do not inflate) is left out:
  with it the two sides' expectations do not add up to 1.
- Anchor system: the probability at which White's expected change is zero. With
  ``x = H - (Rw - Rb)/100`` White gains ``a e^(ax)`` on a win and loses
  ``a e^(-ax)`` on a loss, which balance at ``P(White) = 1 / (1 + e^(2 alpha x))``:
  with the default ``alpha = ln 2 / 2``, each stone of ``x`` halves White's odds.
- SAGC and the French ladder state no probability. Their players' strengths are
  put on the EGF's GoR scale and read off the EGF 2021 curve, a fixed curve
  published by the EGF from European tournament games (not fitted to the club's
  games, which it is then judged on). SAGC: ``2100 + 100 (stones + index/1000)``,
  Black raised by ``100 x`` SAGC's own effective handicap (at which the seed calls
  a game fair). French: ``2050 + fictitious level`` (its fictitious levels are the
  EGF's handicap adjustment, and its 0..99 = 1d is the EGF's 2050..2149).
- Game Courier Ratings: its own expected percentage ``50 + (Rw - Rb)/8``, clamped
  to 0..100; GCR has no handicap. It keeps no per-game history, so its games are
  predicted month by month from the ratings at the previous month's end
  (:func:`gcr_predictions`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .anchor import BOARD_FACTORS, RATING_PER_RANK, Anchor
from .base import Algorithm, RatingState, replay
from .egf import GOR_1D, GRADE_BORDER, EgfAlgorithm, EgfLegacy, handicap_points, se_legacy
from .egf import Egf2021 as _Egf2021
from .french import French, fictitious_levels
from .gcr import Gcr, GcrParams, GcrPlayer, month_ends
from .ranks import Rank
from .records import DEFAULT_EVEN_KOMI, Entry, GameRecord, Status, Winner
from .sagc import Sagc, effective_handicap

LOG_LOSS_CLIP = 1e-6  # probabilities are kept in [1e-6, 1 - 1e-6] for the log loss
CALIBRATION_BINS = 10
SAGC_INDEX_PER_STONE = 1000  # rank + index/1000: +999 meets the next rank's 0
FRENCH_LEVEL_TO_GOR = GRADE_BORDER  # a French level of 0 (the bottom of 1d) is GoR 2050
# a prediction this close to 0.5 names no favourite
NO_FAVOURITE_TOLERANCE = 1e-12

# The groups of the breakdowns, in the order the page shows them.
RANK_BANDS = (
    ("ddk", "Double-digit kyu (10k and weaker)"),
    ("sdk", "Single-digit kyu (9k\u20131k)"),
    ("dan", "Dan (1d and stronger)"),
)
HANDICAP_GROUPS = (
    ("even", "Even (0 or 1 stone)"),
    ("2-4", "2\u20134 stones"),
    ("5-9", "5\u20139 stones"),
)
STATUS_GROUPS = (
    (Status.NORMAL.value, "Normal"),
    (Status.TOURNAMENT.value, "Tournament"),
    (Status.INTERNET.value, "Internet"),
)


# --- what a prediction is made from ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Side:
    """One player's state just before a game, in the algorithm's own terms."""

    rank: Rank
    value: float


@dataclass(frozen=True, slots=True)
class Matchup:
    """What a prediction may use: both players before the game and its conditions."""

    white: Side
    black: Side
    handicap: int = 0
    komi: Fraction = DEFAULT_EVEN_KOMI
    board_size: int = 19


@dataclass(frozen=True, slots=True)
class LabGame:
    """A rated game as the lab sees it: the matchup, its result and its status."""

    matchup: Matchup
    winner: Winner
    status: Status


@dataclass(frozen=True, slots=True)
class Prediction:
    """One game's predicted chance for White, White's score, and its groups."""

    p_white: float
    white_score: float  # 1 White won, 0 Black won, 0.5 jigo
    rank_band: str
    handicap_group: str
    status: str


Predictor = Callable[[Matchup], float]


def logistic(z: float) -> float:
    """``1 / (1 + e^-z)`` without overflow for large ``|z|``."""
    if z >= 0:
        return 1 / (1 + math.exp(-z))
    exp_z = math.exp(z)
    return exp_z / (1 + exp_z)


# --- the predictors ---------------------------------------------------------------------

# The EGF 2021 curve, the fixed reference for the algorithms without a probability of
# their own (default parameters: adjusted ratings clamped into [-900, 3299.999]).
_REFERENCE = _Egf2021()


def reference_curve(white_gor: float, black_gor: float) -> float:
    """P(White wins) by the EGF 2021 curve from two (handicap-adjusted) GoRs."""
    return _REFERENCE.expected(white_gor, black_gor)[0]


def predict_egf(algorithm: EgfAlgorithm, matchup: Matchup) -> float:
    """The set's own Se of White; Black's rating raised by ``100 (H - 0.5)``."""
    black_adjusted = matchup.black.value + handicap_points(matchup.handicap)
    if isinstance(algorithm, EgfLegacy):
        return se_legacy(matchup.white.value, black_adjusted, 0.0)[0]
    return algorithm.expected(matchup.white.value, black_adjusted)[0]


def sagc_strength(rank: Rank, index: float) -> float:
    """A SAGC rank and index as a strength in stones: ``stones + index/1000``.

    Continuous across promotions and demotions: a 5k at +999 and a 4k at 0 are
    within a thousandth of a stone of each other."""
    return rank.stones + index / SAGC_INDEX_PER_STONE


def sagc_gor(rank: Rank, index: float) -> float:
    return GOR_1D + RATING_PER_RANK * sagc_strength(rank, index)


def predict_sagc(algorithm: Sagc, matchup: Matchup) -> float:
    """The EGF 2021 curve at ``2100 + 100 (stones + index/1000)``, Black raised by
    SAGC's effective handicap in ranks (the handicap the seed calls fair)."""
    eff = effective_handicap(matchup.handicap, Fraction(matchup.komi))
    white = sagc_gor(matchup.white.rank, matchup.white.value)
    black = sagc_gor(matchup.black.rank, matchup.black.value) + RATING_PER_RANK * eff
    return reference_curve(white, black)


def predict_french(algorithm: French, matchup: Matchup) -> float:
    """The EGF 2021 curve at ``2050 + fictitious level`` (komi plays no part)."""
    white, black = fictitious_levels(matchup.white.value, matchup.black.value, matchup.handicap)
    return reference_curve(white + FRENCH_LEVEL_TO_GOR, black + FRENCH_LEVEL_TO_GOR)


def anchor_x(matchup: Matchup) -> float:
    """The anchor system's ``x = H - (Rw - Rb)/100``, H scaled on small boards."""
    stones = matchup.handicap * BOARD_FACTORS.get(matchup.board_size, 1.0)
    return stones - (matchup.white.value - matchup.black.value) / RATING_PER_RANK


def predict_anchor(algorithm: Anchor, matchup: Matchup) -> float:
    """Where White's expected change is zero: ``p a e^(ax) = (1 - p) a e^(-ax)``."""
    return logistic(-2 * algorithm.params.alpha * anchor_x(matchup))


def predict_gcr(algorithm: Gcr, matchup: Matchup) -> float:
    """GCR's expected share ``clamp(50 + (Rw - Rb)/8, 0, 100) / 100``."""
    return algorithm.expected(matchup.white.value - matchup.black.value)


_PREDICTORS: tuple[tuple[type[Algorithm], Callable[[Any, Matchup], float]], ...] = (
    (EgfAlgorithm, predict_egf),
    (Sagc, predict_sagc),
    (French, predict_french),
    (Anchor, predict_anchor),
    (Gcr, predict_gcr),
)


def predictor(algorithm: Algorithm) -> Predictor | None:
    """P(White wins) under ``algorithm``, or None for an algorithm the lab does not know."""
    for kind, function in _PREDICTORS:
        if isinstance(algorithm, kind):
            return lambda matchup: function(algorithm, matchup)
    return None


PREDICTION_NOTES: dict[str, str] = {
    "egf-2021": (
        "Its own expected result Se = 1 / (1 + exp(\u03b2(Rb') \u2212 \u03b2(Rw'))), "
        "\u03b2(r) = \u22127 ln(3300 \u2212 r), Black's rating raised by 100 (H \u2212 0.5) "
        "for H \u2265 1. Within a tournament: the ratings at its start, as the set rates it."
    ),
    "egf-2020": (
        "Its own expected result Se = 1 / (1 + exp(B(Rb') \u2212 B(Rw'))), "
        "B(r) = \u22126 ln(3200 \u2212 r), Black's rating raised by 100 (H \u2212 0.5). "
        "Within a tournament: the ratings at its start."
    ),
    "egf-legacy": (
        "Its own expected result 1 / (exp(D/a) + 1) for the weaker side, D the gap of the "
        "handicap-adjusted ratings, a = 205 \u2212 r/20 of the weaker; without eps (0.016, "
        "a deflation that makes the two sides' Se add up to less than 1). Within a "
        "tournament: the ratings at its start."
    ),
    "sagc": (
        "SAGC states no probability. Strength in stones = rank + index/1000, put on the "
        "EGF scale as GoR 2100 + 100 \u00d7 strength; Black is raised by 100 \u00d7 the "
        "effective handicap trunc(H \u2212 (komi \u2212 6)/10), the handicap SAGC calls fair; "
        "then the EGF 2021 curve, a fixed published curve (not fitted to these games)."
    ),
    "french": (
        "The ladder states no probability. Its fictitious levels (Black + 100 (H \u2212 0.5)) "
        "put on the EGF scale as GoR 2050 + level (both call 0..99 and 2050..2149 1d), then "
        "the EGF 2021 curve. Komi plays no part. Within a tournament: the levels at its "
        "start (the ladder corrects a tournament's starting levels after seeing its results)."
    ),
    "anchor": (
        "The probability at which White's expected change is zero: with "
        "x = H \u2212 (Rw \u2212 Rb)/100 (H scaled on small boards), a win gains "
        "a\u00b7e^(\u03b1x) and a loss costs a\u00b7e^(\u2212\u03b1x), which balance at "
        "P(White) = 1 / (1 + e^(2\u03b1x)); "
        "with \u03b1 = ln 2 / 2 each stone of x halves White's odds."
    ),
    "gcr": (
        "Its own expected percentage 50 + (Rw \u2212 Rb)/8, clamped to 0..100; GCR has no "
        "handicap. It keeps no per-game history: each month's games are predicted from a "
        "full GCR of the games up to the previous month's end (everyone 1500 before)."
    ),
}


# --- grouping -----------------------------------------------------------------------------


def rank_band(rank: Rank) -> str:
    """The band of a rank: ``ddk`` (10k and weaker), ``sdk`` (9k-1k), ``dan``."""
    if rank.stones >= 0:
        return "dan"
    return "sdk" if rank.stones >= -9 else "ddk"


def handicap_group(handicap: int) -> str:
    if handicap <= 1:
        return "even"
    return "2-4" if handicap <= 4 else "5-9"


def white_score(winner: Winner) -> float:
    if winner is Winner.JIGO:
        return 0.5
    return 1.0 if winner is Winner.WHITE else 0.0


def predictions(algorithm: Algorithm, games: Iterable[LabGame]) -> list[Prediction]:
    """Each game's prediction under ``algorithm``, grouped by the weaker player's rank
    band, the handicap and the status. Free games are left out (nothing rates them
    but SAGC, with weight 0)."""
    predict = predictor(algorithm)
    if predict is None:
        raise KeyError(f"the lab has no prediction for '{algorithm.name}'")
    made = []
    for game in games:
        if game.status is Status.FREE:
            continue
        matchup = game.matchup
        weaker = min(matchup.white.rank, matchup.black.rank)
        made.append(
            Prediction(
                p_white=predict(matchup),
                white_score=white_score(game.winner),
                rank_band=rank_band(weaker),
                handicap_group=handicap_group(matchup.handicap),
                status=game.status.value,
            )
        )
    return made


# --- the metrics ------------------------------------------------------------------------


def clipped(probability: float) -> float:
    return min(1 - LOG_LOSS_CLIP, max(LOG_LOSS_CLIP, probability))


def game_log_loss(p_white: float, score: float) -> float:
    """``-(s ln p + (1 - s) ln(1 - p))``: a jigo (s = 1/2) counts half for each outcome."""
    p = clipped(p_white)
    return -(score * math.log(p) + (1 - score) * math.log(1 - p))


def summary(items: Sequence[Prediction]) -> dict[str, Any]:
    """The headline figures of some predictions (JSON-able).

    ``favourite_share`` is over the decisive games with a favourite (p not 0.5); the
    decisive games without one are counted in ``no_favourite``. Log loss (natural
    log) and the Brier score are means over every game, a jigo scoring 1/2.
    """
    games = len(items)
    won = lost = no_favourite = jigo = 0
    log_loss = brier = predicted = observed = 0.0
    for item in items:
        p, score = item.p_white, item.white_score
        log_loss += game_log_loss(p, score)
        brier += (p - score) ** 2
        predicted += p
        observed += score
        if score == 0.5:
            jigo += 1
        elif abs(p - 0.5) <= NO_FAVOURITE_TOLERANCE:
            no_favourite += 1
        elif (p > 0.5) == (score == 1.0):
            won += 1
        else:
            lost += 1
    with_favourite = won + lost
    return {
        "games": games,
        "decisive": games - jigo,
        "jigo": jigo,
        "favourite_won": won,
        "favourite_lost": lost,
        "no_favourite": no_favourite,
        "favourite_share": won / with_favourite if with_favourite else None,
        "log_loss": log_loss / games if games else None,
        "brier": brier / games if games else None,
        "mean_predicted": predicted / games if games else None,
        "white_score": observed / games if games else None,
    }


def calibration(items: Sequence[Prediction], bins: int = CALIBRATION_BINS) -> list[dict]:
    """Predicted against observed in ``bins`` equal bins of P(White): each game in
    exactly one bin (1.0 in the last), with the mean prediction and White's mean
    score of the bin's games (None for an empty bin)."""
    counts = [0] * bins
    predicted = [0.0] * bins
    observed = [0.0] * bins
    for item in items:
        index = min(bins - 1, max(0, int(item.p_white * bins)))
        counts[index] += 1
        predicted[index] += item.p_white
        observed[index] += item.white_score
    return [
        {
            "low": index / bins,
            "high": (index + 1) / bins,
            "games": counts[index],
            "predicted": predicted[index] / counts[index] if counts[index] else None,
            "observed": observed[index] / counts[index] if counts[index] else None,
        }
        for index in range(bins)
    ]


def breakdown(
    items: Sequence[Prediction], attribute: str, groups: Sequence[tuple[str, str]]
) -> list[dict]:
    """The summary per group, in the order of ``groups`` (lists keep their order in
    every database's JSON; PostgreSQL's jsonb reorders an object's keys)."""
    by_group: dict[str, list[Prediction]] = {key: [] for key, _label in groups}
    for item in items:
        by_group.setdefault(getattr(item, attribute), []).append(item)
    return [{"group": key, "label": label, **summary(by_group[key])} for key, label in groups]


def evaluate(items: Sequence[Prediction]) -> dict[str, Any]:
    """Every figure of the lab for one algorithm (JSON-able)."""
    return {
        **summary(items),
        "calibration": calibration(items),
        "by_rank_band": breakdown(items, "rank_band", RANK_BANDS),
        "by_handicap": breakdown(items, "handicap_group", HANDICAP_GROUPS),
        "by_status": breakdown(items, "status", STATUS_GROUPS),
    }


# --- Game Courier Ratings ------------------------------------------------------------------


def gcr_predictions(
    records: Iterable[GameRecord], entries: Mapping[str, Entry], params: GcrParams | None = None
) -> tuple[list[LabGame], RatingState[GcrPlayer]]:
    """The games GCR rates, each with both players' GCR at the end of the month
    before its own (1500 for a player with no earlier games), and the final state.

    GCR rates the whole table at once and keeps no per-game history; this replays it
    month by month as :func:`ratings.engine.gcr.month_end_snapshots` does. The rank
    of a side is the player's entry rank (GCR has no ranks of its own).
    """
    algorithm = Gcr(params)
    ordered = sorted(records, key=lambda record: record.order_key)
    state = algorithm.new_state(entries)
    games: list[LabGame] = []
    if not ordered:
        return games, state
    position = 0
    for last_day in month_ends(ordered[0].date, ordered[-1].date):
        start = position
        while position < len(ordered) and ordered[position].date <= last_day:
            position += 1
        month = ordered[start:position]
        for record in month:
            # A game always has a winner; only an adjustment has none.
            if record.winner is None or record.is_adjustment or algorithm.skip_reason(record):
                continue
            white, black = state.player(record.white), state.player(record.black)
            matchup = Matchup(
                white=Side(white.rank, white.value),
                black=Side(black.rank, black.value),
                handicap=record.handicap,
                komi=record.komi,
                board_size=record.board_size,
            )
            games.append(LabGame(matchup, record.winner, record.status))
        for _ in replay(algorithm, month, entries, state):
            pass
    return games, state
