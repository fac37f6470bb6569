"""Reads for the head-to-head page, /players/<a>/vs/<b>/: the games between two
players, their score by colour and handicap, and each algorithm's expected score
against the actual one (the lab's predictions from the ratings before each game)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Q, QuerySet
from django.http import Http404

from players.models import Game, Player
from ratings.engine import lab
from ratings.engine.base import Algorithm
from ratings.engine.records import Status
from ratings.selectors import keyed_history_games


def games_between(player: Player, opponent: Player) -> QuerySet[Game]:
    """The valid games of the two players against each other, newest first."""
    return (
        Game.objects.valid()
        .filter(Q(white=player, black=opponent) | Q(white=opponent, black=player))
        .select_related("white", "black", "tournament")
        .in_replay_order(reverse=True)
    )


@dataclass(slots=True)
class Score:
    """``player``'s points (a jigo is half) in some of the games, and how many."""

    points: float = 0
    games: int = 0

    def add(self, points: float) -> None:
        self.points += points
        self.games += 1

    @property
    def losses(self) -> float:
        return self.games - self.points


@dataclass(slots=True)
class Record:
    """The score of ``player`` against ``opponent``: all, by colour, by handicap.
    Games whose file gave no colour count in ``colour_not_given``, as neither colour."""

    total: Score = field(default_factory=Score)
    by_colour: dict[str, Score] = field(default_factory=lambda: {"W": Score(), "B": Score()})
    colour_not_given: Score = field(default_factory=Score)
    by_handicap: dict[int, Score] = field(default_factory=dict)


def player_points(game: Game, player_id: int) -> float:
    """What ``player_id`` scored in ``game``: 1 a win, 0.5 a jigo, 0 a loss."""
    if game.winner == Game.Winner.JIGO:
        return 0.5
    won_as = Game.Winner.WHITE if game.white_id == player_id else Game.Winner.BLACK
    return 1.0 if game.winner == won_as else 0.0


def record(player: Player, opponent: Player) -> Record:
    """The score of ``player`` in every valid game against ``opponent`` (one query)."""
    found = Record()
    games = games_between(player, opponent).select_related(None)
    for game in games.only("white", "black", "winner", "handicap", "colour_given"):
        points = player_points(game, player.pk)
        found.total.add(points)
        if not game.colour_given:
            found.colour_not_given.add(points)
        else:
            found.by_colour["W" if game.white_id == player.pk else "B"].add(points)
        found.by_handicap.setdefault(game.handicap, Score()).add(points)
    found.by_handicap = dict(sorted(found.by_handicap.items()))
    return found


@dataclass(frozen=True, slots=True)
class Expectation:
    """Under one algorithm: ``player``'s expected score in the games it predicted
    (the sum of their chances before each game) and the score they made."""

    algorithm: Algorithm
    games: int
    expected: float
    actual: float


def expectations(player: Player, opponent: Player, infos: list[Algorithm]) -> list[Expectation]:
    """For each algorithm with per-game history and a prediction (not GCR: it keeps no
    ratings before each game), the expected and actual score of ``player`` against
    ``opponent``; one query per algorithm, over the two players' rows of their games,
    and one for who played White."""
    made = []
    games = games_between(player, opponent)
    whites = dict(games.values_list("pk", "white_id"))
    for info in infos:
        predict = lab.predictor(info)
        if not info.has_history or predict is None:
            continue
        expected = actual = 0.0
        counted = 0
        for game_id, game in keyed_history_games(
            info.name, blocks=info.rates_tournaments_as_blocks, games=games
        ):
            if game.status is Status.FREE:
                continue
            p_white = predict(game.matchup)
            score = lab.white_score(game.winner)
            own_white = whites[game_id] == player.pk
            expected += p_white if own_white else 1 - p_white
            actual += score if own_white else 1 - score
            counted += 1
        made.append(Expectation(info, counted, expected, actual))
    return made


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """The head-to-head page of ``player`` against ``opponent``."""

    player: Player
    opponent: Player
    games: QuerySet[Game]
    record: Record
    expectations: list[Expectation]


def head_to_head(player: Player, opponent: Player, infos: list[Algorithm]) -> HeadToHead:
    """The two players' games, score and expectations; 404 for one player twice."""
    if player.pk == opponent.pk:
        raise Http404(f"'{player.username}' is the same player twice: choose two different players")
    return HeadToHead(
        player=player,
        opponent=opponent,
        games=games_between(player, opponent),
        record=record(player, opponent),
        expectations=expectations(player, opponent, infos),
    )
