"""Game Courier Ratings (seed 002, SPEC section 5), registered as ``gcr``.

A holistic system (``holistic.Holistic``): it gives current standings, not a
per-game history. Replaying the games only fills a table of pairwise results (games
and score of every pair of players; a win counts 1, a jigo 1/2 for each);
:meth:`Gcr.finish` then rates the whole table at once:

1. Order the players by rated games, score and distinct opponents, each
   descending, then username.
2. Everyone starts at 1500 with no past games. A pass visits the pairs
   ``(p[i], p[i+d])`` for ``d = 1 … n-1``, ``i`` ascending when ``d`` is odd and
   descending when ``d`` is even, skipping pairs that never played. For each pair,
   with ``n`` their games together and ``p`` a player's past games so far in the
   pass::

       expected = clamp(50 + (R1 - R2)/8, 0, 100) / 100
       change   = (score1/n - expected) x 400 x (n/(n + 10))
       R1 += change x (1 - p1/(p1 + 800));  R2 -= change x (1 - p2/(p2 + 800))

   and both players' past games grow by ``n``.
3. The reverse pass visits the same pairs in exactly the reverse order, from 1500
   and no past games again. A player's rating is the mean of both passes.

The cost of rating is in the number of pairs that played: sorting them into the
pass order and the two passes take ``O(P log P)`` for ``P`` such pairs, on top of
one dictionary update per game while the table is filled.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any, NamedTuple

from . import holistic
from .base import (
    PlayerState,
    RatingState,
    Standing,
    no_cycle_collection,
    replay,
)
from .description import Matchup, ValueScale, gettext_noop
from .holistic import Holistic
from .messages import NOT_THE_RATED_BOARD, Message, board
from .records import Entry, GameRecord, Status, Winner

RATED_BOARD_SIZE = 19


@dataclass(frozen=True)
class GcrParams:
    """The seed's numbers."""

    initial_rating: float = 1500.0
    # 50 + difference/8: a difference of 400 or more predicts every game
    points_per_percent: float = 8.0
    # the largest change of one comparison, for a difference of 100 percentage points
    max_change: float = 400.0
    # the change is scaled by n/(n + pair_games_offset), n the pair's games together
    pair_games_offset: int = 10
    # and per player by 1 - p/(p + past_games_offset), p the player's past games
    past_games_offset: int = 800

    def __post_init__(self) -> None:
        if not self.points_per_percent > 0:
            raise ValueError("points_per_percent must be positive")
        if not self.max_change > 0:
            raise ValueError("max_change must be positive")
        if self.pair_games_offset < 0:
            raise ValueError("pair_games_offset must not be negative")
        if self.past_games_offset <= 0:
            raise ValueError("past_games_offset must be positive")


@dataclass(slots=True)
class GcrPlayer(PlayerState):
    """A player's row of the pairwise table and the results of both passes.

    ``rank`` stays the declared entry rank (GCR has no ranks); ``games`` counts rated
    games; ``opponents``, ``pair_games`` and ``pair_scores`` are parallel lists:
    each opponent met, the games against them and this player's score in those.
    """

    value: float  # the mean of both passes

    score: float = 0.0
    opponents: list[str] = field(default_factory=list)
    pair_games: list[int] = field(default_factory=list)
    pair_scores: list[float] = field(default_factory=list)
    first_pass: float = 0.0
    reverse_pass: float = 0.0
    # where each opponent sits in the lists above; never dumped, and built only when a
    # game is recorded: a table read back has thousands of players, and the games after
    # it meet a few hundred of them
    _slot: dict[str, int] | None = field(default=None, init=False, repr=False, compare=False)

    def to_data(self) -> dict[str, Any]:
        data = PlayerState.to_data(self)
        del data["_slot"]
        return data

    def record(self, opponent: str, score: float, games: int = 1) -> None:
        """``games`` more rated games against ``opponent`` (one by default), in which
        this player scored ``score`` in all."""
        self.games += games
        self.score += score
        slots = self._slot
        if slots is None:
            slots = self._slot = dict(zip(self.opponents, range(len(self.opponents)), strict=True))
        slot = slots.get(opponent)
        if slot is None:
            slot = slots[opponent] = len(self.opponents)
            self.opponents.append(opponent)
            self.pair_games.append(0)
            self.pair_scores.append(0.0)
        self.pair_games[slot] += games
        self.pair_scores[slot] += score


GcrState = RatingState[GcrPlayer]


class Pair(NamedTuple):
    """Two players who played, ``first`` before ``second`` in the player order."""

    first: str
    second: str
    games: int
    first_score: float


# A pair as a pass reads it: first, second, games, first's score, first's share of the
# games (score/games) and the weight of their comparison, games/(games + pair_games_offset).
_PreparedPair = tuple[str, str, int, float, float, float]


@dataclass(frozen=True, slots=True)
class GcrAccuracy:
    """Percentages of pairs that the ratings order as their results do: with the mean
    rating, with the first pass and with the reverse pass (the page's three figures)."""

    mean: float
    first_pass: float
    reverse_pass: float
    pairs: int


SCORES = {Winner.WHITE: (1.0, 0.0), Winner.BLACK: (0.0, 1.0), Winner.JIGO: (0.5, 0.5)}


class Gcr(Holistic[GcrPlayer]):
    name = "gcr"
    title = gettext_noop("Game Courier Ratings")
    params_type = GcrParams
    state_type = GcrPlayer
    value_scale = ValueScale("gcr", gettext_noop("GCR rating (a newcomer is 1500)"))
    prediction_note = gettext_noop(
        "Its own expected percentage 50 + (Rw − Rb)/8, clamped to 0..100; GCR has no "  # noqa: RUF001
        "handicap. It keeps no per-game history: each month's games are predicted from a "
        "full GCR of the games up to the previous month's end (everyone 1500 before)."
    )

    def new_player(self, entry: Entry) -> GcrPlayer:
        # A starting rating from --players is ignored: everyone starts equal (SPEC 5).
        start = float(self.params.initial_rating)
        return GcrPlayer(rank=entry.rank, value=start, first_pass=start, reverse_pass=start)

    def skip_reason(self, record: GameRecord) -> str:
        if record.status is Status.FREE:
            return gettext_noop("GCR does not rate free games")
        if record.board_size != RATED_BOARD_SIZE:
            return Message(NOT_THE_RATED_BOARD, algorithm="GCR", board=board(record.board_size))
        if record.winner not in SCORES:
            return gettext_noop("a game needs a winner (W, B or D for jigo)")
        return ""

    def count(self, state: GcrState, record: GameRecord, times: int = 1) -> None:
        """Record ``times`` games like ``record`` in the pairwise table; the rating
        itself is in :meth:`finish`. A game GCR does not rate (free, small board) is
        not counted, though its players appear in the standings. GCR ignores
        adjustments (:meth:`Holistic.rate_unit` passes none here)."""
        white, black = state.player(record.white), state.player(record.black)
        if record.winner is None or self.skip_reason(record):
            return
        white_score, black_score = SCORES[record.winner]
        white.record(record.black, white_score * times, times)
        black.record(record.white, black_score * times, times)

    def finish(self, state: GcrState) -> None:
        """Rate the whole table: both passes from scratch, every time it is called. What
        both passes compute alike of a pair (its actual share and its weight) and of a
        number of past games (the stability factor) is computed once (:meth:`_prepared`)."""
        players = state.players
        start = float(self.params.initial_rating)
        with no_cycle_collection():  # a pair a tuple: allocations by the hundred thousand
            prepared = prepared_pass_order(players, self.params.pair_games_offset)
            most_games = max((player.games for player in players.values()), default=0)
            stability = self._stability_factors(most_games)
            first = self._rate_pass(prepared, stability)
            reverse = self._rate_pass(reversed(prepared), stability)
        for name, player in players.items():
            player.first_pass = first.get(name, start)
            player.reverse_pass = reverse.get(name, start)
            player.value = (player.first_pass + player.reverse_pass) / 2

    def run_pass(self, pairs: Iterable[Pair]) -> dict[str, float]:
        """One pass over ``pairs`` in the given order, from the initial rating and no
        past games: each player's rating after it."""
        pairs = list(pairs)
        games: dict[str, int] = {}
        for first, second, together, _score in pairs:
            games[first] = games.get(first, 0) + together
            games[second] = games.get(second, 0) + together
        stability = self._stability_factors(max(games.values(), default=0))
        return self._rate_pass(self._prepared(pairs), stability)

    def _prepared(self, pairs: Iterable[Pair]) -> list[_PreparedPair]:
        """Each pair with its actual share ``score/n`` and its weight ``n/(n + 10)``, as
        :meth:`comparison` computes them."""
        offset = self.params.pair_games_offset
        return [
            (first, second, games, first_score, first_score / games, games / (games + offset))
            for first, second, games, first_score in pairs
        ]

    def _stability_factors(self, most_games: int) -> list[float]:
        """:meth:`stability` of 0 to ``most_games`` past games (no player has more past
        games in a pass than rated games)."""
        offset = self.params.past_games_offset
        return [1 - (past / (past + offset)) for past in range(most_games + 1)]

    def _rate_pass(
        self, pairs: Iterable[_PreparedPair], stability: list[float]
    ) -> dict[str, float]:
        """A pass over prepared pairs (:meth:`run_pass`).

        The loop is :meth:`comparison` and :meth:`stability` written out, each float
        operation in the same order and on the same values (the same results to the
        last bit): a pass visits every pair that played, and at every month end of a
        long history that is most of GCR's time, so it saves the method calls."""
        params = self.params
        start = float(params.initial_rating)
        points_per_percent = params.points_per_percent
        max_change = params.max_change
        ratings: dict[str, float] = {}
        past: dict[str, int] = {}
        rating_of, past_of = ratings.get, past.get
        for first, second, games, _first_score, actual, weight in pairs:
            first_rating = rating_of(first, start)
            second_rating = rating_of(second, start)
            first_past, second_past = past_of(first, 0), past_of(second, 0)
            # expected(): clamp(50 + difference/8, 0, 100) / 100, as min(100, max(0, x))
            percent = 50 + (first_rating - second_rating) / points_per_percent
            if not percent > 0.0:
                percent = 0.0
            elif percent > 100.0:
                percent = 100.0
            # comparison(), then each player's stability()
            change = (actual - percent / 100) * max_change * weight
            ratings[first] = first_rating + change * stability[first_past]
            ratings[second] = second_rating - change * stability[second_past]
            past[first] = first_past + games
            past[second] = second_past + games
        return ratings

    def lab_figures(self, state: GcrState) -> dict[str, Any]:
        """The seed's accuracy: how many pairs the ratings order as their results do."""
        figures = accuracy(state)
        if figures is None:
            return {"gcr_accuracy": None}
        return {
            "gcr_accuracy": {
                "mean": figures.mean,
                "first_pass": figures.first_pass,
                "reverse_pass": figures.reverse_pass,
                "pairs": figures.pairs,
            }
        }

    def table_data(self, state: GcrState, numbers: Mapping[str, int]) -> Any:
        """The pairwise table as ``{"format": 1, "players": [number, ...], "pairs": [i, j,
        games, twice i's score, ...]}``: every player of the table (those of unrated games
        too), then each pair that played once, ``i < j`` their places in that list. A
        player's games and score are the sums of their pairs', and every score is a
        multiple of 1/2, so twice it is an integer and the table read back is the same to
        the last bit (:meth:`load_table`). None when a score is not a multiple of 1/2 or a
        player met themselves (no such table comes from games)."""
        return table_data(state.players, numbers)

    def load_table(self, state: GcrState, data: Any, names: Mapping[int, str]) -> bool:
        players = load_table_players(state, data, names)
        if players is None:
            return False
        state.players = players
        return True

    def merge_table(self, state: GcrState, data: Any, names: Mapping[int, str]) -> bool:
        """Each pair of ``data`` recorded for both its players, as its games counted would
        be (a score is a multiple of 1/2: the sums are exact, whatever their order)."""
        players = load_table_players(state, data, names)
        if players is None:
            return False
        for name, added in players.items():
            player = state.player(name)
            for opponent, games, score in zip(
                added.opponents, added.pair_games, added.pair_scores, strict=True
            ):
                player.record(opponent, score, games)
        return True

    def predict_white(self, matchup: Matchup) -> float:
        """GCR's expected share ``clamp(50 + (Rw - Rb)/8, 0, 100) / 100``."""
        return self.expected(matchup.white.value - matchup.black.value)

    def expected(self, difference: float) -> float:
        """The first player's expected share of the games, as a fraction of 1."""
        percent = 50 + difference / self.params.points_per_percent
        return min(100.0, max(0.0, percent)) / 100

    def comparison(self, difference: float, first_score: float, games: int) -> float:
        """The change of one comparison before each player's stability factor."""
        actual = first_score / games
        most = (actual - self.expected(difference)) * self.params.max_change
        return most * (games / (games + self.params.pair_games_offset))

    def stability(self, past_games: int) -> float:
        """``1 - p/(p + 800)``: the more past games, the less a rating moves."""
        return 1 - (past_games / (past_games + self.params.past_games_offset))


def player_order(players: Mapping[str, GcrPlayer]) -> list[str]:
    """Players with rated games: by games, score and distinct opponents, each
    descending, then username (SPEC section 5)."""
    rated = [name for name, player in players.items() if player.games]
    return sorted(
        rated,
        key=lambda name: (
            -players[name].games,
            -players[name].score,
            -len(players[name].opponents),
            name,
        ),
    )


def pass_order(players: Mapping[str, GcrPlayer]) -> list[Pair]:
    """The pairs that played, in the order of the first pass."""
    make = tuple.__new__  # a Pair without the Python-level __new__ of a NamedTuple
    return [make(Pair, item[:4]) for item in prepared_pass_order(players, 0)]


def prepared_pass_order(players: Mapping[str, GcrPlayer], offset: int) -> list[_PreparedPair]:
    """The pairs that played, in the order of the first pass, each with what both passes
    compute alike of it (``Gcr._prepared``, the same floats; ``offset`` is
    ``pair_games_offset``).

    The seed's loop visits every ``(p[i], p[i+d])``: by distance ``d``, and within a
    distance by ``i``, ascending when ``d`` is odd and descending when it is even.
    Taking the players in order and putting each pair that played in its distance's
    bucket leaves every bucket in ascending ``i``; the even ones are read backwards.
    No sort: a pass order is made at every month end of a long history.
    """
    order = player_order(players)
    position = {name: index for index, name in enumerate(order)}
    buckets: list[list[_PreparedPair]] = [[] for _ in range(len(order))]
    for index, name in enumerate(order):
        player = players[name]
        for opponent, games, score in zip(
            player.opponents, player.pair_games, player.pair_scores, strict=True
        ):
            distance = position[opponent] - index
            if distance > 0:
                buckets[distance].append(
                    (name, opponent, games, score, score / games, games / (games + offset))
                )
    pairs: list[_PreparedPair] = []
    for distance, bucket in enumerate(buckets):
        if bucket:
            pairs += bucket if distance % 2 else reversed(bucket)
    return pairs


TABLE_FORMAT = 1


def table_data(players: Mapping[str, GcrPlayer], numbers: Mapping[str, int]) -> Any:
    """:meth:`Gcr.table_data` of ``players``."""
    listed = list(players)
    place = {name: index for index, name in enumerate(listed)}
    pairs: list[int] = []
    for index, name in enumerate(listed):
        player = players[name]
        for opponent, games, score in zip(
            player.opponents, player.pair_games, player.pair_scores, strict=True
        ):
            other = place[opponent]
            if other == index:
                return None
            if other > index:
                twice = int(score * 2)
                if twice != score * 2:
                    return None
                pairs += (index, other, games, twice)
    return {"format": TABLE_FORMAT, "players": [numbers[name] for name in listed], "pairs": pairs}


def load_table_players(
    state: GcrState, data: Any, names: Mapping[int, str]
) -> dict[str, GcrPlayer] | None:
    """The players of the table ``data`` (:func:`table_data`), new ones of ``state``'s
    algorithm with the entry ranks of ``state``; None when it cannot be read."""
    if not isinstance(data, dict) or data.get("format") != TABLE_FORMAT:
        return None
    try:
        listed = [names[number] for number in data["players"]]
        new_player, entries = state.algorithm.new_player, state.entries
        players = {name: new_player(entries[name]) for name in listed}
    except KeyError:
        return None
    rows = [players[name] for name in listed]
    # Each pair appends to both players' lists, bound once (no attribute lookup per
    # pair); the totals are summed once per player, in the order of the pairs (the
    # same floats as adding them pair by pair).
    opponents = [player.opponents for player in rows]
    pair_games = [player.pair_games for player in rows]
    pair_scores = [player.pair_scores for player in rows]
    pairs = data["pairs"]
    for index, other, games, twice in zip(
        pairs[0::4], pairs[1::4], pairs[2::4], pairs[3::4], strict=True
    ):
        opponents[index].append(listed[other])
        pair_games[index].append(games)
        pair_scores[index].append(twice / 2)
        opponents[other].append(listed[index])
        pair_games[other].append(games)
        pair_scores[other].append((2 * games - twice) / 2)
    for player in rows:
        player.games = sum(player.pair_games)
        player.score = sum(player.pair_scores, 0.0)
    return players


def accuracy(state: GcrState) -> GcrAccuracy | None:
    """The share of pairs that played whose better-rated player did better (a pair
    with equal ratings counts when its score is level), in percent, for the mean,
    first-pass and reverse-pass ratings. None when nobody has played. Call it after
    the replay (which rates the table).

    Whether a pair is ordered correctly does not depend on which of the two comes
    first, so the pairs are taken as the table holds them, not in the pass order. The
    comparisons are written out (no call per pair), and a pair's result chooses the one
    comparison of each rating that counts: the lab's figures are computed after every
    recompute, and a call per pair and rating was most of their time. (A score is a
    multiple of 1/2, so ``score + score`` against ``games`` compares it with the other
    player's ``games - score`` exactly.)"""
    players = state.players
    pairs = mean = first_pass = reverse_pass = 0
    for name, player in players.items():
        value, first, reverse = player.value, player.first_pass, player.reverse_pass
        for opponent, games, score in zip(
            player.opponents, player.pair_games, player.pair_scores, strict=True
        ):
            if opponent <= name:  # each pair once
                continue
            other = players[opponent]
            pairs += 1
            twice = score + score
            if twice > games:  # this player did better: ordered right if rated higher
                mean += value > other.value
                first_pass += first > other.first_pass
                reverse_pass += reverse > other.reverse_pass
            elif twice < games:
                mean += value < other.value
                first_pass += first < other.first_pass
                reverse_pass += reverse < other.reverse_pass
            else:  # a level score: ordered right if rated equal
                mean += value == other.value
                first_pass += first == other.first_pass
                reverse_pass += reverse == other.reverse_pass
    if not pairs:
        return None
    return GcrAccuracy(
        100 * mean / pairs, 100 * first_pass / pairs, 100 * reverse_pass / pairs, pairs=pairs
    )


def rate_table(
    records: Iterable[GameRecord], entries: Mapping[str, Entry], params: GcrParams | None = None
) -> GcrState:
    """Replay ``records`` and rate the table: the state after :meth:`Gcr.finish`."""
    algorithm = Gcr(params)
    state = algorithm.new_state(entries)
    for _ in replay(algorithm, records, entries, state):
        pass
    return state


def standings_as_of(
    records: Iterable[GameRecord],
    entries: Mapping[str, Entry],
    as_of: date,
    params: GcrParams | None = None,
) -> list[Standing]:
    """The standings on ``as_of``: a full GCR of the games played up to that day."""
    played = [record for record in records if record.date <= as_of]
    state = rate_table(played, entries, params)
    return state.algorithm.standings(state)


def rated_month_ends(
    records: Iterable[GameRecord],
    entries: Mapping[str, Entry],
    params: GcrParams | None = None,
    *,
    rate_from: date | None = None,
    state: GcrState | None = None,
) -> Iterator[tuple[date, RatingState]]:
    """GCR's table rated at every month end (:func:`holistic.rated_month_ends`)."""
    return holistic.rated_month_ends(
        Gcr(params), records, entries, rate_from=rate_from, state=state
    )


def month_end_snapshots(
    records: Iterable[GameRecord], entries: Mapping[str, Entry], params: GcrParams | None = None
) -> list[tuple[date, list[Standing]]]:
    """GCR's standings at every month end, each equal to :func:`standings_as_of` that
    day (:func:`holistic.month_end_snapshots`)."""
    return holistic.month_end_snapshots(Gcr(params), records, entries)
