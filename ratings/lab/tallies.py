"""The lab's figures as sums that can be kept and added: a tally per run of games.

Every figure of ``ratings.engine.lab.evaluate`` is a count or a mean over games, so
the sums behind them, kept per run of games, let a report be brought up to date from a
place in the replay order: the runs before it are added from what is stored, only the
games from there on are predicted again (``ratings.lab.services``). ``metrics`` turns
a tally into the dictionary ``lab.evaluate`` makes (the same keys, the same counts, the
same means to within 1e-20 of each sum).

The sums are whole numbers: each float a game adds (its log loss, Brier score,
prediction and score) is counted in units of ``2**-SCALE_BITS`` (:func:`fixed`), so
adding tallies is exact and does not depend on their order or on where the runs were
cut: a report brought up to date from any place has exactly the figures of one
computed in full, however its runs were cut.

A tally is JSON: ``{"all": S, "calibration": [[games, predicted, observed], ...],
"by_rank_band": {group: S}, "by_handicap": {...}, "by_status": {...}}`` with ``S`` the
list of sums ``_SUMS``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ratings.engine import lab

# The sums of one group, in this order.
_SUMS = (
    "games",
    "jigo",
    "favourite_won",
    "favourite_lost",
    "no_favourite",
    "log_loss",
    "brier",
    "predicted",
    "observed",
)
_GAMES, _JIGO, _WON, _LOST, _NO_FAVOURITE, _LOG_LOSS, _BRIER, _PREDICTED, _OBSERVED = range(9)

# Tally key -> the Prediction attribute it groups by, and the groups in page order.
BREAKDOWNS: dict[str, tuple[str, Sequence[tuple[str, str]]]] = {
    "by_rank_band": ("rank_band", lab.RANK_BANDS),
    "by_handicap": ("handicap_group", lab.HANDICAP_GROUPS),
    "by_status": ("status", lab.STATUS_GROUPS),
}


# A float sum is kept as a whole number of 2**-96: a game adds at most about 14 (a log
# loss at the clip), so a million games sum below 2**120, and each value is off by less
# than 2**-96 (1.3e-29).
SCALE_BITS = 96
_SCALE = float(2**SCALE_BITS)
_DIVISOR = 2**SCALE_BITS


def fixed(value: float) -> int:
    """``value`` in whole units of ``2**-SCALE_BITS`` (rounded toward zero)."""
    return int(value * _SCALE)


def unfixed(total: int) -> float:
    """A sum of :func:`fixed` values as a float (correctly rounded)."""
    return total / _DIVISOR


def empty() -> dict[str, Any]:
    return {
        "all": [0] * len(_SUMS),
        "calibration": [[0, 0, 0] for _ in range(lab.CALIBRATION_BINS)],
        **{key: {} for key in BREAKDOWNS},
    }


def _add_prediction(sums: list, item: lab.Prediction, values: tuple[int, int, int, int]) -> None:
    """``lab.summary``'s accumulation, for one game: ``values`` its log loss, Brier
    score, prediction and score, :func:`fixed`."""
    p, score = item.p_white, item.white_score
    log_loss, brier, predicted, observed = values
    sums[_GAMES] += 1
    sums[_LOG_LOSS] += log_loss
    sums[_BRIER] += brier
    sums[_PREDICTED] += predicted
    sums[_OBSERVED] += observed
    if score == 0.5:
        sums[_JIGO] += 1
    elif abs(p - 0.5) <= lab.NO_FAVOURITE_TOLERANCE:
        sums[_NO_FAVOURITE] += 1
    elif (p > 0.5) == (score == 1.0):
        sums[_WON] += 1
    else:
        sums[_LOST] += 1


def tally(items: Iterable[lab.Prediction]) -> dict[str, Any]:
    """The sums of some predictions."""
    result = empty()
    bins = lab.CALIBRATION_BINS
    for item in items:
        p, score = item.p_white, item.white_score
        values = (
            fixed(lab.game_log_loss(p, score)),
            fixed((p - score) ** 2),
            fixed(p),
            fixed(score),
        )
        _add_prediction(result["all"], item, values)
        cell = result["calibration"][min(bins - 1, max(0, int(p * bins)))]
        cell[0] += 1
        cell[1] += values[2]
        cell[2] += values[3]
        for key, (attribute, _groups) in BREAKDOWNS.items():
            group = getattr(item, attribute)
            sums = result[key].setdefault(group, [0] * len(_SUMS))
            _add_prediction(sums, item, values)
    return result


def games(tally: dict[str, Any]) -> int:
    """How many games a tally counts."""
    return tally["all"][_GAMES]


def combined(tallies: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The sum of several tallies (months added up)."""
    result = empty()
    total, calibration = result["all"], result["calibration"]
    for part in tallies:
        _add_sums(total, part["all"])
        for mine, theirs in zip(calibration, part["calibration"], strict=True):
            _add_sums(mine, theirs)
        for key in BREAKDOWNS:
            groups = result[key]
            for group, sums in part[key].items():
                mine = groups.get(group)
                if mine is None:
                    groups[group] = list(sums)
                else:
                    _add_sums(mine, sums)
    return result


def _add_sums(mine: list[int], theirs: Sequence[int]) -> None:
    """``theirs`` added to ``mine``, in place (a report adds up a few dozen runs at each
    update: new lists for each sum cost it a tenth of its fixed part)."""
    if len(mine) != len(theirs):
        raise ValueError(f"sums of {len(theirs)} added to sums of {len(mine)}")
    for index, value in enumerate(theirs):
        mine[index] += value


def _summary(sums: Sequence[int]) -> dict[str, Any]:
    """What ``lab.summary`` gives, from the sums."""
    return lab.summary_of_sums(
        games=sums[_GAMES],
        jigo=sums[_JIGO],
        won=sums[_WON],
        lost=sums[_LOST],
        no_favourite=sums[_NO_FAVOURITE],
        log_loss=unfixed(sums[_LOG_LOSS]),
        brier=unfixed(sums[_BRIER]),
        predicted=unfixed(sums[_PREDICTED]),
        observed=unfixed(sums[_OBSERVED]),
    )


def metrics(total: dict[str, Any]) -> dict[str, Any]:
    """The figures of ``lab.evaluate`` from a tally."""
    bins = lab.CALIBRATION_BINS
    return {
        **_summary(total["all"]),
        "calibration": [
            {
                "low": index / bins,
                "high": (index + 1) / bins,
                "games": count,
                "predicted": unfixed(predicted) / count if count else None,
                "observed": unfixed(observed) / count if count else None,
            }
            for index, (count, predicted, observed) in enumerate(total["calibration"])
        ],
        **{
            key: [
                {
                    "group": group,
                    "label": label,
                    **_summary(total[key].get(group, [0] * len(_SUMS))),
                }
                for group, label in groups
            ]
            for key, (_attribute, groups) in BREAKDOWNS.items()
        },
    }
