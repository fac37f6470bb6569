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
  to 0..100; GCR has no handicap. It is holistic and keeps no per-game history, so
  its games (as any holistic algorithm's) are predicted month by month from the
  ratings at the previous month's end (:func:`holistic_predictions`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .algorithms import registry
from .base import Algorithm, RatingState
from .description import Matchup, Side  # noqa: F401  (Side: the lab's callers build matchups)
from .holistic import Holistic, lab_games
from .messages import gettext_noop
from .ranks import Rank
from .records import Entry, GameRecord, Status, Winner

LOG_LOSS_CLIP = 1e-6  # probabilities are kept in [1e-6, 1 - 1e-6] for the log loss
CALIBRATION_BINS = 10
# a prediction this close to 0.5 names no favourite
NO_FAVOURITE_TOLERANCE = 1e-12

# The groups of the breakdowns, in the order the page shows them; the labels in English,
# marked for the page to translate (the reports store them).
RANK_BANDS = (
    ("ddk", gettext_noop("Double-digit kyu (10k and weaker)")),
    ("sdk", gettext_noop("Single-digit kyu (9k–1k)")),  # noqa: RUF001
    ("dan", gettext_noop("Dan (1d and stronger)")),
)
HANDICAP_GROUPS = (
    ("even", gettext_noop("Even (0 or 1 stone)")),
    ("2-4", gettext_noop("2–4 stones")),  # noqa: RUF001
    ("5-9", gettext_noop("5–9 stones")),  # noqa: RUF001
)
STATUS_GROUPS = (
    (Status.NORMAL.value, gettext_noop("Normal")),
    (Status.TOURNAMENT.value, gettext_noop("Tournament")),
    (Status.INTERNET.value, gettext_noop("Internet")),
)


# --- what a prediction is made from ---------------------------------------------------


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


# --- the predictors ---------------------------------------------------------------------


def predictor(algorithm: Algorithm) -> Predictor | None:
    """P(White wins) under ``algorithm``, or None for an algorithm that makes no
    prediction (each algorithm makes its own: ``Algorithm.predict_white``)."""
    if type(algorithm).predict_white is Algorithm.predict_white:
        return None
    return algorithm.predict_white


def prediction_notes() -> dict[str, str]:
    """What the lab says of each algorithm's prediction, by algorithm name."""
    return {name: cls.prediction_note for name, cls in registry().items()}


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
    return summary_of_sums(
        games=games,
        jigo=jigo,
        won=won,
        lost=lost,
        no_favourite=no_favourite,
        log_loss=log_loss,
        brier=brier,
        predicted=predicted,
        observed=observed,
    )


def summary_of_sums(
    *,
    games: float,
    jigo: float,
    won: float,
    lost: float,
    no_favourite: float,
    log_loss: float,
    brier: float,
    predicted: float,
    observed: float,
) -> dict[str, Any]:
    """:func:`summary` from its counts and sums (the site keeps them per tournament and
    adds them up, ``ratings.lab.tallies``)."""
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


# --- Holistic algorithms (Game Courier Ratings) ----------------------------------------


def holistic_predictions(
    algorithm: Holistic, records: Iterable[GameRecord], entries: Mapping[str, Entry]
) -> tuple[list[LabGame], RatingState]:
    """The games a holistic algorithm rates, each with both players' value at the end
    of the month before its own (the initial value for a player with no earlier
    games), and the final state (``holistic.lab_games``). The rank of a side is the
    player's entry rank."""
    games, state = lab_games(algorithm, records, entries)
    made = [
        LabGame(matchup, record.winner, record.status)
        for record, matchup in games
        if record.winner is not None  # lab_games gives only games with a result
    ]
    return made, state
