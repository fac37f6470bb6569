"""A tournament's standings by its placement criteria: points (NBW) or McMahon score
(MMS), then tie-breakers (SOS, SOSOS, SODOS), as OpenGotha and the EGD place players.

A file that prints its standings (an h-file) is shown as printed; these are for an
OpenGotha file, which keeps only the criteria, and for a tournament entered on the
site (points, then SOS, then SOSOS).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Generic, TypeVar

# OpenGotha's criteria by the score they sum (W: points, M: McMahon score); the EGD's
# short names mean the tournament's main score.
CRITERIA: dict[str, tuple[str, str]] = {
    "NBW": ("points", "Points"),
    "MMS": ("mcmahon", "MMS"),
    "SOS": ("sos", "SOS"),
    "SOSW": ("sos", "SOS"),
    "SOSM": ("sos", "SOS"),
    "SOSOS": ("sosos", "SOSOS"),
    "SOSOSW": ("sosos", "SOSOS"),
    "SOSOSM": ("sosos", "SOSOS"),
    "SODOS": ("sodos", "SODOS"),
    "SODOSW": ("sodos", "SODOS"),
    "SODOSM": ("sodos", "SODOS"),
}
# Whatever names the players: a username in the files, a player's id on the site.
PlayerKey = TypeVar("PlayerKey", bound=Hashable)

SITE_CRITERIA = ("NBW", "SOS", "SOSOS")  # a tournament entered on the site
MCMAHON_CRITERIA = ("MMS", "SOSM", "SOSOSM")


@dataclass(frozen=True, slots=True)
class Round:
    """One round of one player: the opponent (None: no game) and the points it gave
    (1 a win, ½ a jigo, a bye's or an absence's value)."""

    opponent: Hashable | None  # a username, or whatever names the players
    points: Fraction


@dataclass(frozen=True, slots=True)
class Placed(Generic[PlayerKey]):
    player: PlayerKey
    place: int  # tied players share a place
    tied: bool  # shares the place with the player above
    scores: tuple[Fraction, ...]  # one per criterion


def known_criteria(names: Sequence[str]) -> tuple[str, ...]:
    """The criteria of ``names`` these standings compute (OpenGotha's NULL and the
    criteria it alone knows, such as rating or category, left out)."""
    return tuple(name.upper() for name in names if name.upper() in CRITERIA)


def criterion_label(name: str) -> str:
    return CRITERIA[name.upper()][1] if name.upper() in CRITERIA else name


def place_players(
    rounds: Mapping[PlayerKey, Sequence[Round]],
    criteria: Sequence[str] = SITE_CRITERIA,
    *,
    start: Mapping[PlayerKey, Fraction] | None = None,
    order: Sequence[PlayerKey] = (),
) -> list[Placed[PlayerKey]]:
    """Every player of ``rounds`` placed by ``criteria`` (best first). ``start`` is each
    player's McMahon start (MMS = start + points); SOS sums the opponents' main score
    (MMS when the criteria hold MMS, else points), SOSOS their SOS, SODOS the main
    score of the opponents beaten (half for a jigo). Players equal on every criterion
    share a place and keep ``order`` between them (else the order of ``rounds``)."""
    criteria = known_criteria(criteria) or SITE_CRITERIA
    start = start or {}
    points = {name: sum((r.points for r in played), Fraction(0)) for name, played in rounds.items()}
    mcmahon = {name: start.get(name, Fraction(0)) + points[name] for name in rounds}
    main = mcmahon if any(CRITERIA[c][0] == "mcmahon" for c in criteria) else points
    sos: dict[Hashable, Fraction] = defaultdict(Fraction)
    sodos: dict[Hashable, Fraction] = defaultdict(Fraction)
    for name, played in rounds.items():
        for one in played:
            if one.opponent is None or one.opponent not in main:
                continue
            sos[name] += main[one.opponent]
            # The points of a game are 1, ½ or 0: SODOS weighs the opponent by them.
            sodos[name] += main[one.opponent] * min(one.points, Fraction(1))
    sosos: dict[Hashable, Fraction] = defaultdict(Fraction)
    for name, played in rounds.items():
        for one in played:
            if one.opponent is not None and one.opponent in main:
                sosos[name] += sos[one.opponent]
    values: dict[str, Mapping[Any, Fraction]] = {
        "points": points,
        "mcmahon": mcmahon,
        "sos": sos,
        "sosos": sosos,
        "sodos": sodos,
    }
    position = {name: index for index, name in enumerate(order)}
    scores = {name: tuple(values[CRITERIA[c][0]][name] for c in criteria) for name in rounds}
    ranked = sorted(
        rounds, key=lambda name: ([-v for v in scores[name]], position.get(name, len(order)))
    )
    placed: list[Placed[PlayerKey]] = []
    for index, name in enumerate(ranked):
        tied = bool(placed) and scores[name] == placed[-1].scores
        place = placed[-1].place if tied else index + 1
        placed.append(Placed(name, place, tied, scores[name]))
    return placed


def score_text(value: Fraction) -> str:
    """A score as an h-file column writes it: ``7``, ``3.5``."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):g}"
