"""The what-if calculator's reads and results: both sides' current states from the
database, then the engine's ``what_if`` under each maintained algorithm.

A player's state under an algorithm is their CurrentRating (rank, value, games); a
player it has not rated yet starts from their entry rank. SAGC's opponent factor
uses the opponents of each side's last SAGC games (as many as its
``opponent_memory``, ten by default), read from the history, so the calculator shows
the factor the next real game would get.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction

from players.models import Player
from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import Algorithm
from ratings.engine.ranks import Rank
from ratings.engine.records import Status
from ratings.engine.sagc import Sagc
from ratings.engine.whatif import Contestant, Outcome, WhatIf, WhatIfError, what_if
from ratings.models import CurrentRating, RatingHistory

SIDE_LABELS = {"white": "(White)", "black": "(Black)"}  # never a username: no brackets


@dataclass(frozen=True, slots=True)
class SideInput:
    """One side as typed: an existing player, or a rank with an optional value."""

    player: Player | None
    rank: Rank | None
    value: float | None


@dataclass(frozen=True, slots=True)
class CalculatorInput:
    white: SideInput
    black: SideInput
    value_algorithms: tuple[str, ...]  # the algorithms a typed value is for
    handicap: int
    komi: Fraction
    status: Status
    board_size: int


@dataclass(frozen=True, slots=True)
class SideState:
    """How one side enters one algorithm, for the page to say."""

    contestant: Contestant
    source: str  # "current", "new" (not rated by it yet) or "typed"
    meetings: int | None = None  # SAGC: games against the other side among those it remembers


@dataclass(slots=True)
class AlgorithmResult:
    info: Algorithm
    white: SideState
    black: SideState
    result: WhatIf | None = None
    error: str = ""
    skipped: str = ""  # why the algorithm would not rate this game
    outcomes: list[Outcome] = field(default_factory=list)


def _current_ratings(
    players: list[Player], names: list[str]
) -> dict[tuple[int, str], CurrentRating]:
    ratings = CurrentRating.objects.filter(player__in=players, algorithm__in=names)
    return {(rating.player_id, rating.algorithm): rating for rating in ratings}


def sagc_recent_opponents(player: Player, memory: int) -> list[str]:
    """The opponents of the player's last ``memory`` SAGC games, oldest first (games it
    skipped, on small boards, take no place; free games and jigo do)."""
    opponents = (
        RatingHistory.objects.filter(
            algorithm=Sagc.name, player=player, game__isnull=False, skipped=""
        )
        .order_by("-position")
        .values_list("opponent__username", flat=True)[:memory]
    )
    return list(reversed(opponents))


def _contestant(
    colour: str,
    side: SideInput,
    info: Algorithm,
    value_algorithms: tuple[str, ...],
    ratings: dict[tuple[int, str], CurrentRating],
    memories: dict[int, list[str]],
) -> tuple[Contestant, str]:
    """The side as the algorithm takes it, and where that came from."""
    player = side.player
    if player is None:
        if side.rank is None:  # the form refuses a side with neither a player nor a rank
            raise ValueError(f"{colour}: neither a player nor a rank")
        value = side.value if info.name in value_algorithms else None
        return Contestant(SIDE_LABELS[colour], side.rank, value), "typed"
    rating = ratings.get((player.pk, info.name))
    if rating is None:
        return Contestant(player.username, player.entry_rank), "new"
    memory = tuple(memories.get(player.pk, ()))
    return Contestant(player.username, rating.rank, rating.value, rating.games, memory), "current"


def results(
    asked: CalculatorInput, algorithms: list[Algorithm], today: date
) -> list[AlgorithmResult]:
    """The game rated both ways under each algorithm (a few queries, whatever the
    number of algorithms)."""
    players = [side.player for side in (asked.white, asked.black) if side.player is not None]
    names = [info.name for info in algorithms]
    ratings = _current_ratings(players, names) if players else {}
    memories: dict[int, list[str]] = {}
    if Sagc.name in names:
        memory = get_algorithm(Sagc.name).params.opponent_memory
        memories = {player.pk: sagc_recent_opponents(player, memory) for player in players}
    made = []
    for info in algorithms:
        sides = [
            _contestant(colour, side, info, asked.value_algorithms, ratings, memories)
            for colour, side in (("white", asked.white), ("black", asked.black))
        ]
        (white, white_source), (black, black_source) = sides
        is_sagc = info.name == Sagc.name
        item = AlgorithmResult(
            info,
            white=SideState(
                white,
                white_source,
                list(white.recent_opponents).count(black.name) if is_sagc else None,
            ),
            black=SideState(
                black,
                black_source,
                list(black.recent_opponents).count(white.name) if is_sagc else None,
            ),
        )
        made.append(item)
        try:
            item.result = what_if(
                info,
                white,
                black,
                handicap=asked.handicap,
                komi=asked.komi,
                status=asked.status,
                board_size=asked.board_size,
                day=today,
            )
        except WhatIfError as error:
            item.error = str(error)
            continue
        item.outcomes = list(item.result.outcomes)
        item.skipped = next((o.white.skipped for o in item.outcomes if o.white.skipped), "")
    return made
