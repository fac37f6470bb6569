"""The what-if calculator: one game that has not been played, rated both ways.

Pure Python, no Django. Each side is a :class:`Contestant`: a rank and, if known, a
value in the algorithm's own scale (an existing player's current state, or what
the visitor typed); without a value the algorithm starts the side as a new player
of that rank. The game is rated by the algorithm's own ``rate_unit`` on a fresh
state holding only the two sides, once as a White win and once as a Black win, so
the changes and their factors are exactly what the algorithm would record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from fractions import Fraction

from .base import Algorithm, HistoryRow, PlayerState, RatingState
from .description import Matchup, Side
from .lab import predictor
from .ranks import Rank
from .records import Entry, GameRecord, Status, Winner
from .sagc import SagcPlayer


class WhatIfError(ValueError):
    """A side or a game the algorithm cannot take; the message says why."""


@dataclass(frozen=True, slots=True)
class Contestant:
    """One side of the game: ``name`` is a username (or a label for a typed rank).

    ``recent_opponents`` is the SAGC opponent memory, oldest first: the usernames of
    the side's last games (10 by default); empty for a first meeting.
    """

    name: str
    rank: Rank
    value: float | None = None
    games: int = 0
    recent_opponents: Sequence[str] = ()


@dataclass(frozen=True, slots=True)
class Outcome:
    """The rows the algorithm records for one result: White's, then Black's."""

    winner: Winner
    white: HistoryRow
    black: HistoryRow


@dataclass(frozen=True, slots=True)
class WhatIf:
    """Both results of the game under one algorithm, with its P(White wins).

    ``outcomes`` is empty for an algorithm that rates all games at once (GCR): one
    game has no change of its own there.
    """

    algorithm: str
    white: PlayerState
    black: PlayerState
    p_white: float | None
    outcomes: tuple[Outcome, ...]


def start_state(algorithm: Algorithm, contestant: Contestant) -> PlayerState:
    """The side's state under ``algorithm``, as the replay would hold it."""
    value = None if contestant.value is None else Fraction(contestant.value)
    entry = Entry(contestant.rank, value)
    problem = algorithm.entry_problem(entry)
    if problem:
        raise WhatIfError(problem)
    player = algorithm.new_player(entry)
    if not algorithm.has_history and contestant.value is not None:
        # A holistic algorithm (GCR) starts everyone equal in its replay; here the value
        # is the player's current standing, which its expectation is computed from.
        player.value = float(contestant.value)
    player.games = contestant.games
    if isinstance(player, SagcPlayer):
        player.recent_opponents = list(contestant.recent_opponents)
    return player


def _state(algorithm: Algorithm, white: Contestant, black: Contestant) -> RatingState:
    state = algorithm.new_state({})
    state.players = {
        white.name: start_state(algorithm, white),
        black.name: start_state(algorithm, black),
    }
    return state


def what_if(
    algorithm: Algorithm,
    white: Contestant,
    black: Contestant,
    *,
    handicap: int = 0,
    komi: Fraction,
    status: Status = Status.NORMAL,
    board_size: int = 19,
    day: date,
) -> WhatIf:
    """Rate the game both ways under ``algorithm`` from the two sides' states."""
    if white.name == black.name:
        raise WhatIfError("White and Black must be two different players")
    before = _state(algorithm, white, black)
    white_state, black_state = before.players[white.name], before.players[black.name]
    predict = predictor(algorithm)
    matchup = Matchup(
        white=Side(white_state.rank, float(white_state.value)),
        black=Side(black_state.rank, float(black_state.value)),
        handicap=handicap,
        komi=komi,
        board_size=board_size,
    )
    outcomes: list[Outcome] = []
    if algorithm.has_history:
        for winner in (Winner.WHITE, Winner.BLACK):
            record = GameRecord(
                date=day,
                white=white.name,
                black=black.name,
                winner=winner,
                handicap=handicap,
                komi=komi,
                status=status,
                board_size=board_size,
            )
            white_row, black_row = algorithm.rate_unit(_state(algorithm, white, black), [record])
            outcomes.append(Outcome(winner, white_row, black_row))
    return WhatIf(
        algorithm=algorithm.name,
        white=white_state,
        black=black_state,
        p_white=predict(matchup) if predict is not None else None,
        outcomes=tuple(outcomes),
    )
