"""A tournament's standings by its placement criteria: points (NBW) or McMahon score
(MMS), then tie-breakers (SOS, SOSOS, SODOS), as OpenGotha and the EGD place players.

A file that prints its standings (an h-file) is shown as printed; these are for an
OpenGotha file, which keeps only the criteria, and for a tournament entered on the
site (points, then SOS, then SOSOS).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Generic, TypeVar

# OpenGotha's criteria (PlacementParameterSet, by the names its files write) and the
# EGD's short names, by the score they sum (W: points, M: McMahon score; the short
# names mean the tournament's main score) and the label the page gives them. The
# kinds "points" to "sodos" are those a site tournament is placed by too
# (:func:`place_players`); "gotha" ones only OpenGotha files (:func:`gotha_placed`).
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
    "SOS-1": ("gotha", "SOS-1"),
    "SOSW-1": ("gotha", "SOS-1"),
    "SOSM-1": ("gotha", "SOS-1"),
    "SOS-2": ("gotha", "SOS-2"),
    "SOSW-2": ("gotha", "SOS-2"),
    "SOSM-2": ("gotha", "SOS-2"),
    "CUSS": ("gotha", "CUSS"),
    "CUSSW": ("gotha", "CUSS"),
    "CUSSM": ("gotha", "CUSS"),
    "EXT": ("gotha", "EXT"),
    "EXR": ("gotha", "EXR"),
    "DC": ("gotha", "DC"),
    "SDC": ("gotha", "SDC"),
    "RANK": ("gotha", "Rank"),
    "RATING": ("gotha", "Rating"),
}
# The short names by OpenGotha's own, for the tournament's main score.
_BY_MAIN_SCORE = {
    name: (f"{name[:-2]}W{name[-2:]}", f"{name[:-2]}M{name[-2:]}") for name in ("SOS-1", "SOS-2")
} | {name: (f"{name}W", f"{name}M") for name in ("SOS", "SOSOS", "SODOS", "CUSS")}
# OpenGotha's criteria it alone has and these standings do not compute: category
# (its limits), the Strasbourg and cup scores (their own tournament systems).
UNCOMPUTED_CRITERIA = ("CAT", "STS", "SOSTS", "CPS")
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
    """The criteria of ``names`` these standings compute, as OpenGotha names them
    (``SOSM-1``, ``Rating`` as ``RATING``); OpenGotha's NULL and the criteria of
    :data:`UNCOMPUTED_CRITERIA` left out."""
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
    criteria = (
        tuple(c for c in known_criteria(criteria) if CRITERIA[c][0] != "gotha") or SITE_CRITERIA
    )
    start = start or {}
    # Summed as integers over the points' common denominator, made fractions once at
    # the end: Fraction arithmetic cost a quarter of a second for EGC 2013's 6,000
    # rounds (the crosstable page reads these on every request).
    scale = math.lcm(
        1,
        *{one.points.denominator for played in rounds.values() for one in played},
        *{value.denominator for value in start.values()},
    )
    values = _scaled_sums(rounds, start, scale, criteria)
    sums = [values[CRITERIA[c][0]] for c in criteria]
    # the scaled sums order and tie the players as the fractions would
    order_key = {name: tuple(summed[name] for summed, _ in sums) for name in rounds}
    fractions: dict[tuple[int, int], Fraction] = {}  # a few distinct values, made once each

    def fraction(numerator: int, denominator: int) -> Fraction:
        key = (numerator, denominator)
        if key not in fractions:
            fractions[key] = Fraction(numerator, denominator)
        return fractions[key]

    scores = {
        name: tuple(fraction(summed[name], denominator) for summed, denominator in sums)
        for name in rounds
    }
    return _ranked(scores, order, order_key)


def _scaled_sums(
    rounds: Mapping[PlayerKey, Sequence[Round]],
    start: Mapping[PlayerKey, Fraction],
    scale: int,
    criteria: Sequence[str],
) -> dict[str, tuple[Mapping[Any, int], int]]:
    """Each kind of criterion's value of every player, times ``scale`` (a multiple of
    every denominator of the points and starts), with the scale it is summed at
    (SODOS weighs points by points: ``scale`` squared)."""
    # each player's rounds as (opponent, points times scale); only games against a
    # player of ``rounds`` count towards SOS, SOSOS and SODOS
    scaled = {
        name: [
            (one.opponent, one.points.numerator * (scale // one.points.denominator))
            for one in played
        ]
        for name, played in rounds.items()
    }
    points = {name: sum(value for _, value in played) for name, played in scaled.items()}
    mcmahon = {name: _scaled(start.get(name, 0), scale) + points[name] for name in rounds}
    main = mcmahon if any(CRITERIA[c][0] == "mcmahon" for c in criteria) else points
    sos = {
        name: sum(main[opponent] for opponent, _ in played if opponent in main)
        for name, played in scaled.items()
    }
    sosos = {
        name: sum(sos[opponent] for opponent, _ in played if opponent in main)
        for name, played in scaled.items()
    }
    # The points of a game are 1, ½ or 0: SODOS weighs the opponent by them (scale squared).
    sodos = {
        name: sum(
            main[opponent] * min(value, scale) for opponent, value in played if opponent in main
        )
        for name, played in scaled.items()
    }
    return {
        "points": (points, scale),
        "mcmahon": (mcmahon, scale),
        "sos": (sos, scale),
        "sosos": (sosos, scale),
        "sodos": (sodos, scale * scale),
    }


def _scaled(value: Fraction | int, scale: int) -> int:
    """``value`` times ``scale``, a multiple of its denominator."""
    value = Fraction(value)
    return value.numerator * (scale // value.denominator)


def _ranked(
    scores: Mapping[PlayerKey, tuple[Fraction, ...]],
    order: Sequence[PlayerKey],
    order_key: Mapping[PlayerKey, tuple[int, ...]] | None = None,
) -> list[Placed[PlayerKey]]:
    """The players by their scores, best first; players equal on every score share a
    place and keep ``order`` between them (else the order of ``scores``). ``order_key``:
    the scores as integers that order and tie the players as the scores do (quicker
    to compare than fractions)."""
    keys = order_key if order_key is not None else scores
    position = {name: index for index, name in enumerate(order)}
    ranked = sorted(
        scores, key=lambda name: ([-v for v in keys[name]], position.get(name, len(order)))
    )
    placed: list[Placed[PlayerKey]] = []
    previous = None
    for index, name in enumerate(ranked):
        tied = bool(placed) and keys[name] == previous
        previous = keys[name]
        place = placed[-1].place if tied else index + 1
        placed.append(Placed(name, place, tied, scores[name]))
    return placed


def score_text(value: Fraction) -> str:
    """A score as an h-file column writes it: ``7``, ``3.5``."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):g}"


@dataclass(frozen=True, slots=True)
class GothaRound(Generic[PlayerKey]):
    """One round of one player as OpenGotha scores it: a game (``opponent`` set, the
    points it gave doubled, the handicap stones the player gave: negative as Black), a
    bye, an absence (the player's participating flag off) or a round the player was
    not paired in though present (``free``: no points). ``by_default``: a game's result
    was given, not played (a forfeit; OpenGotha's ``_BYDEF``)."""

    kind: str  # "game", "bye", "absent" or "free"
    opponent: PlayerKey | None = None
    points_x2: int = 0  # a game's: 2 a win (forfeits too), 1 a jigo, 0 a loss
    handicap_given: int = 0
    by_default: bool = False


@dataclass(frozen=True, slots=True)
class GothaRules:
    """OpenGotha's general parameters that score the rounds without a game, doubled
    (genMMS2ValueBye...), and whether their sum is rounded down to whole points
    (genRoundDownNBWMMS)."""

    bye_nbw_x2: int = 2
    absent_nbw_x2: int = 0
    bye_mms_x2: int = 2
    absent_mms_x2: int = 1
    round_down: bool = True


# Direct confrontation among the players tied on the criteria before it.
DIRECT_CRITERIA = ("DC", "SDC")


def gotha_placed(
    rounds: Mapping[PlayerKey, Sequence[GothaRound[PlayerKey]]],
    criteria: Sequence[str],
    start: Mapping[PlayerKey, int],
    rules: GothaRules,
    *,
    order: Sequence[PlayerKey] = (),
    ranks: Mapping[PlayerKey, int] | None = None,
    ratings: Mapping[PlayerKey, int] | None = None,
) -> list[Placed[PlayerKey]]:
    """The players placed as OpenGotha places them (its Tournament scoring, at the last
    round), by every criterion of :data:`GOTHA_CRITERIA`. Points and McMahon score
    count byes and absences at the file's values, their sum rounded down to whole
    points when the file says so. The SOS family sums the opponents' final score over
    the rounds: the McMahon ones (SOSM...) count a round without a game as the
    player's own McMahon start and correct an opponent's score by the handicap (plus
    the stones given, minus those received), the points ones count it 0; SOS-1 and
    SOS-2 leave out the one or two lowest of those rounds. SOSOS sums the opponents'
    SOS, SODOS weighs each opponent's score by the game's points, CUSS sums the
    player's score after each round, EXT and EXR the points of the opponents the
    player met (and beat) at a handicap harder than the ranks call for. DC and SDC
    are computed among the players tied on every criterion before them
    (:func:`_direct`). ``ranks`` are OpenGotha's rank numbers (1D = 0, 1K = -1),
    ``ratings`` the file's ratings. Ties keep ``order``."""
    criteria = gotha_criteria(criteria) or MCMAHON_CRITERIA
    scores = gotha_scores(rounds, start, rules, ranks=ranks or {}, ratings=ratings or {})
    values = {name: [scores[name][c] for c in criteria] for name in rounds}
    direct = [index for index, c in enumerate(criteria) if c in DIRECT_CRITERIA]
    if direct:
        _direct(rounds, criteria, values, direct[0], order)
    return _ranked(
        {name: tuple(values[name]) for name in rounds},
        order,
    )


def gotha_criteria(names: Sequence[str]) -> tuple[str, ...]:
    """The criteria of ``names`` these standings compute, each by OpenGotha's own name:
    a short name (SOS, SOS-1, CUSS...) for the variant of the main score (McMahon's
    when the criteria hold MMS)."""
    known = known_criteria(names)
    mcmahon = "MMS" in known
    return tuple(
        _BY_MAIN_SCORE[name][mcmahon] if name in _BY_MAIN_SCORE else name for name in known
    )


def gotha_scores(
    rounds: Mapping[PlayerKey, Sequence[GothaRound[PlayerKey]]],
    start: Mapping[PlayerKey, int],
    rules: GothaRules,
    *,
    ranks: Mapping[PlayerKey, int],
    ratings: Mapping[PlayerKey, int],
) -> dict[PlayerKey, dict[str, Fraction]]:
    """Each player's value of every criterion OpenGotha computes before direct
    confrontation (see :func:`gotha_placed`), as fractions."""
    count = max((len(played) for played in rounds.values()), default=0)
    nbw, mms = _scores_by_round(rounds, start, rules, count)
    last = count - 1
    final_nbw = {name: nbw[name][last] if count else 0 for name in rounds}
    final_mms = {name: mms[name][last] if count else 2 * start.get(name, 0) for name in rounds}
    by_round = {name: _paired(played, rounds, count) for name, played in rounds.items()}
    sos_w: dict[PlayerKey, int] = {}
    sos_m: dict[PlayerKey, int] = {}
    values: dict[PlayerKey, dict[str, Fraction]] = {}
    for name, pairings in by_round.items():
        own = 2 * start.get(name, 0)
        # each round's opponent score (OpenGotha's oswX2, osmX2)
        osw = [final_nbw[game[0]] if game else 0 for game in pairings]
        osm = [
            final_mms[game[0]] + 2 * game[1].handicap_given if game else own for game in pairings
        ]
        sos_w[name], sos_m[name] = sum(osw), sum(osm)
        rank = ranks.get(name, 0)
        ext, exr = _harder_games(pairings, rank, ranks, final_nbw)
        values[name] = {
            "NBW": Fraction(final_nbw[name], 2),
            "MMS": Fraction(final_mms[name], 2),
            "CUSSW": Fraction(sum(nbw[name]), 2),
            "CUSSM": Fraction(sum(mms[name]), 2),
            **_opponent_sums(osw, osm, pairings),
            "EXT": Fraction(ext, 2),
            "EXR": Fraction(exr, 2),
            "RANK": Fraction(rank),
            "RATING": Fraction(ratings.get(name, 0)),
            "DC": Fraction(0),
            "SDC": Fraction(0),
        }
    for name, pairings in by_round.items():
        values[name]["SOSOSW"] = Fraction(sum(sos_w[game[0]] for game in pairings if game), 2)
        values[name]["SOSOSM"] = Fraction(
            sum(sos_m[game[0]] for game in pairings if game)
            + 2 * start.get(name, 0) * count * sum(1 for game in pairings if game is None),
            2,
        )
    return values


def _scores_by_round(
    rounds: Mapping[PlayerKey, Sequence[GothaRound[PlayerKey]]],
    start: Mapping[PlayerKey, int],
    rules: GothaRules,
    count: int,
) -> tuple[dict[PlayerKey, list[int]], dict[PlayerKey, list[int]]]:
    """Each player's points and McMahon score after each of ``count`` rounds, doubled
    (OpenGotha's nbwX2[r], mmsX2[r]): the games' points, and the byes' and absences'
    values, rounded down to whole points when ``rules`` say so."""
    nbw: dict[PlayerKey, list[int]] = {}
    mms: dict[PlayerKey, list[int]] = {}
    for name, played in rounds.items():
        games = extra_nbw = extra_mms = 0
        nbw[name], mms[name] = [], []
        for index in range(count):
            one = played[index] if index < len(played) else GothaRound("free")
            if one.kind == "game":
                games += one.points_x2
            elif one.kind == "bye":
                extra_nbw, extra_mms = extra_nbw + rules.bye_nbw_x2, extra_mms + rules.bye_mms_x2
            elif one.kind == "absent":
                extra_nbw += rules.absent_nbw_x2
                extra_mms += rules.absent_mms_x2
            rounded_nbw, rounded_mms = extra_nbw, extra_mms
            if rules.round_down:
                rounded_nbw, rounded_mms = extra_nbw // 2 * 2, extra_mms // 2 * 2
            nbw[name].append(games + rounded_nbw)
            mms[name].append(2 * start.get(name, 0) + games + rounded_mms)
    return nbw, mms


# A round's game against a player of the standings: (opponent, the round); None for a
# round without one.
_Paired = tuple[PlayerKey, GothaRound[PlayerKey]] | None


def _paired(
    played: Sequence[GothaRound[PlayerKey]],
    rounds: Mapping[PlayerKey, Sequence[GothaRound[PlayerKey]]],
    count: int,
) -> list[_Paired[PlayerKey]]:
    """A player's ``count`` rounds: each game against a player of ``rounds`` with its
    opponent, None for any other round."""
    paired: list[_Paired[PlayerKey]] = []
    for one in list(played)[:count]:
        opponent = one.opponent
        if one.kind == "game" and opponent is not None and opponent in rounds:
            paired.append((opponent, one))
        else:
            paired.append(None)
    return paired + [None] * (count - len(played))


def _harder_games(
    pairings: Sequence[_Paired[PlayerKey]],
    rank: int,
    ranks: Mapping[PlayerKey, int],
    final_nbw: Mapping[PlayerKey, int],
) -> tuple[int, int]:
    """EXT and EXR, doubled: the points of the opponents met (and beaten) at a handicap
    harder than the ranks call for, weighed by how much harder (up to 3)."""
    ext = exr = 0
    for game in pairings:
        if game is None:
            continue
        opponent, one = game
        harder = one.handicap_given - (rank - ranks.get(opponent, 0))
        coefficient = 0 if harder < 0 else min(harder + 1, 3)
        ext += final_nbw[opponent] * coefficient
        if one.points_x2 == 2:
            exr += final_nbw[opponent] * coefficient
    return ext, exr


def _opponent_sums(
    osw: Sequence[int], osm: Sequence[int], pairings: Sequence[_Paired[PlayerKey]]
) -> dict[str, Fraction]:
    """The SOS family from each round's opponent score, points (``osw``) and McMahon
    (``osm``), doubled: SOS, SOS-1, SOS-2 and SODOS."""
    return {
        "SOSW": Fraction(sum(osw), 2),
        "SOSM": Fraction(sum(osm), 2),
        "SOSW-1": Fraction(_without_lowest(osw, 1, mcmahon=False), 2),
        "SOSW-2": Fraction(_without_lowest(osw, 2, mcmahon=False), 2),
        "SOSM-1": Fraction(_without_lowest(osm, 1, mcmahon=True), 2),
        "SOSM-2": Fraction(_without_lowest(osm, 2, mcmahon=True), 2),
        "SODOSW": Fraction(
            sum(o * game[1].points_x2 for o, game in zip(osw, pairings, strict=True) if game), 4
        ),
        "SODOSM": Fraction(
            sum(o * game[1].points_x2 for o, game in zip(osm, pairings, strict=True) if game), 4
        ),
    }


def _without_lowest(scores: Sequence[int], dropped: int, *, mcmahon: bool) -> int:
    """The sum of ``scores`` but the ``dropped`` lowest, as OpenGotha computes SOS-1 and
    SOS-2 after the last round: none before the third round for the McMahon ones (it
    leaves them 0), after two rounds the better one for SOS-1 and 0 for SOS-2."""
    if len(scores) <= 1 or (mcmahon and len(scores) <= 2):
        return 0
    if len(scores) == 2:
        return max(scores) if dropped == 1 else 0
    return sum(scores) - sum(sorted(scores)[:dropped])


def _direct(
    rounds: Mapping[PlayerKey, Sequence[GothaRound[PlayerKey]]],
    criteria: Sequence[str],
    values: dict[PlayerKey, list[Fraction]],
    first: int,
    order: Sequence[PlayerKey],
) -> None:
    """DC and SDC set in ``values``, as OpenGotha sets them: among each group of players
    tied on the criteria before the first of them, the games won (not by default)
    between them. SDC counts the others a player beat, when every two of the group
    met; DC places the group by who beat whom (Matthieu Walraet's confrontation graph:
    players who beat each other in a cycle count as one, the others below each
    player they lost to), the criteria after DC breaking what the games leave open."""
    wins: dict[tuple[PlayerKey, PlayerKey], int] = {}
    for name, played in rounds.items():
        for index, one in enumerate(played):
            opponent = one.opponent
            if one.kind != "game" or one.by_default or one.points_x2 != 2 or opponent is None:
                continue
            theirs = rounds.get(opponent, ())
            their = theirs[index] if index < len(theirs) else None
            if their is not None and their.kind == "game" and their.points_x2 == 0:
                wins[name, opponent] = wins.get((name, opponent), 0) + 1
    before = {name: tuple(values[name][:first]) for name in rounds}
    groups: dict[tuple[Fraction, ...], list[PlayerKey]] = {}
    for placed in _ranked({name: before[name] for name in rounds}, order):
        groups.setdefault(before[placed.player], []).append(placed.player)
    dc_at = [i for i, c in enumerate(criteria) if c == "DC"]
    sdc_at = [i for i, c in enumerate(criteria) if c == "SDC"]
    for group in groups.values():
        if len(group) < 2:
            continue
        net = {
            (a, b): wins.get((a, b), 0) - wins.get((b, a), 0)
            for a in group
            for b in group
            if a != b
        }
        if all(net.values()):
            for name in group:
                sdc = sum(1 for other in group if other != name and net[name, other] > 0)
                for i in sdc_at:
                    values[name][i] = Fraction(sdc)
        if not dc_at:
            continue
        # the group's places by the criteria after DC (tied players share the first's)
        secondary = {name: tuple(values[name][dc_at[0] + 1 :]) for name in group}
        strength = {
            name: len(group) - sum(1 for other in group if secondary[other] > secondary[name])
            for name in group
        }
        beaten = {name: {b for b in group if b != name and net[name, b] == 1} for name in group}
        for name, dc in _confrontation(group, strength, beaten).items():
            for i in dc_at:
                values[name][i] = Fraction(dc)


def _confrontation(
    group: Sequence[PlayerKey],
    strength: Mapping[PlayerKey, int],
    beaten: Mapping[PlayerKey, set[PlayerKey]],
) -> dict[PlayerKey, int]:
    """Each player's DC in ``group``: the players who beat each other round a cycle
    (a strongly connected part of the won-games graph) share every game the part won
    or lost against the others; then, from the bottom, the players who beat no one left
    are placed, the weakest by ``strength`` first (equals together), and taken out.
    DC is the bottom's place minus the player's (0 at the bottom)."""
    part = _cycles(group, beaten)
    members: dict[int, list[PlayerKey]] = {}
    for name in group:
        members.setdefault(part[name], []).append(name)
    # beat[p]: the players outside p's part that p's part beat
    beat = {
        name: {
            other
            for mate in members[part[name]]
            for other in beaten[mate]
            if part[other] != part[name]
        }
        for name in group
    }
    left = set(group)
    rank: dict[PlayerKey, int] = {}
    while left:
        bottom = [name for name in left if not beat[name] & left]
        weakest = min(strength[name] for name in bottom)
        chosen = [name for name in bottom if strength[name] == weakest]
        for name in chosen:
            rank[name] = 1 + len(left) - len(chosen)
        left -= set(chosen)
    top = max(rank.values())
    return {name: top - rank[name] for name in group}


def _cycles(group: Sequence[PlayerKey], beaten: Mapping[PlayerKey, set[PlayerKey]]):
    """Each player's strongly connected part of the won-games graph (Tarjan's), by a
    number shared within the part."""
    index: dict[PlayerKey, int] = {}
    low: dict[PlayerKey, int] = {}
    stack: list[PlayerKey] = []
    on_stack: set[PlayerKey] = set()
    part: dict[PlayerKey, int] = {}

    def visit(node: PlayerKey) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in beaten[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            while True:
                member = stack.pop()
                on_stack.discard(member)
                part[member] = index[node]
                if member == node:
                    break

    for node in group:
        if node not in index:
            visit(node)
    return part
