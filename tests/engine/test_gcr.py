"""Game Courier Ratings (seed 002, SPEC section 5)."""

from __future__ import annotations

import json
import math
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import parse_params, replay
from ratings.engine.cli import main
from ratings.engine.gcr import (
    Gcr,
    GcrParams,
    GcrPlayer,
    accuracy,
    month_end_snapshots,
    pass_order,
    player_order,
    rate_table,
    standings_as_of,
)
from ratings.engine.ranks import Rank, parse_rank
from ratings.engine.records import Entry, GameRecord, Status, Winner

HEADER = "date,white,black,white_rank,black_rank,handicap,winner,status,board_size,value\n"


def game(
    white: str,
    black: str,
    winner: str,
    day: int = 1,
    month: int = 1,
    status: Status = Status.NORMAL,
    board_size: int = 19,
    seq: int = 0,
) -> GameRecord:
    return GameRecord(
        date=date(2024, month, day),
        white=white,
        black=black,
        winner=Winner(winner),
        white_rank=Rank(0),
        black_rank=Rank(0),
        status=status,
        board_size=board_size,
        seq=seq,
    )


def entries_for(records: list[GameRecord], rank: str = "1d") -> dict[str, Entry]:
    names = {record.white for record in records} | {record.black for record in records}
    return {name: Entry(parse_rank(rank)) for name in names}


def rated(records: list[GameRecord], params: GcrParams | None = None):
    return rate_table(records, entries_for(records), params)


def values(records: list[GameRecord]) -> dict[str, float]:
    return {name: player.value for name, player in rated(records).players.items()}


def seed_pass_order(order: list[str], played: set[frozenset[str]]) -> list[tuple[str, str]]:
    """The seed's loop written out: every (p[i], p[i+d]), skipping pairs that never met."""
    visited = []
    count = len(order)
    for distance in range(1, count):
        starts = range(count - distance)
        for index in starts if distance % 2 else reversed(starts):
            first, second = order[index], order[index + distance]
            if frozenset((first, second)) in played:
                visited.append((first, second))
    return visited


class RecordingGcr(Gcr):
    """Keeps the order in which each pass visits the pairs."""

    def __init__(self, params: GcrParams | None = None) -> None:
        super().__init__(params)
        self.passes: list[list[tuple[str, str]]] = []

    def _rate_pass(self, pairs, stability):
        pairs = list(pairs)
        self.passes.append([(first, second) for first, second, *_rest in pairs])
        return super()._rate_pass(pairs, stability)


names = st.sampled_from(["ann", "bob", "cy", "dee", "eve", "fay", "gus"])
results = st.sampled_from(["W", "B", "D"])
games_strategy = st.lists(
    st.tuples(names, names, results).filter(lambda item: item[0] != item[1]),
    min_size=1,
    max_size=40,
)


def games_from(items: list[tuple[str, str, str]]) -> list[GameRecord]:
    return [
        game(white, black, winner, day=1 + index % 28, month=1 + index // 28 % 12, seq=index)
        for index, (white, black, winner) in enumerate(items)
    ]


# --- the published numbers ------------------------------------------------------


def test_one_win_between_newcomers_gives_1518_18_and_1481_82():
    result = values([game("ann", "bob", "W")])
    assert result["ann"] == pytest.approx(1500 + 200 / 11)
    assert result["bob"] == pytest.approx(1500 - 200 / 11)
    assert round(result["ann"], 2) == 1518.18
    assert round(result["bob"], 2) == 1481.82


def test_a_jigo_between_newcomers_changes_nothing():
    assert values([game("ann", "bob", "D")]) == {"ann": 1500.0, "bob": 1500.0}


def test_two_wins_against_newcomers_reproduce_a_game_courier_page():
    # Game Courier's "Univers Chess" page: playtester 2/2 against two players with one
    # game each; it prints GCR 1535/1482/1482, GCR1 1535/1481/1482, GCR2 1535/1482/1481
    # (whole numbers, cut off).
    state = rated([game("playtester", "sesquipedalian", "W"), game("wdtr2", "playtester", "B")])
    shown = {
        name: (math.floor(p.value), math.floor(p.first_pass), math.floor(p.reverse_pass))
        for name, p in state.players.items()
    }
    assert shown == {
        "playtester": (1535, 1535, 1535),
        "sesquipedalian": (1482, 1481, 1482),
        "wdtr2": (1482, 1482, 1481),
    }


def test_past_games_damp_the_later_comparisons_of_a_pass():
    state = rated(
        [
            game("ann", "bob", "W", day=1),
            game("ann", "bob", "W", day=2),
            game("ann", "cy", "W", day=3),
        ]
    )
    # order ann, bob, cy: the pass compares ann-bob (2 games), then ann-cy, when ann
    # has 2 past games and cy none.
    first_change = 0.5 * 400 * (2 / 12)
    expected = (50 + first_change / 8) / 100
    second_change = (1 - expected) * 400 * (1 / 11)
    ann = state.players["ann"]
    assert ann.first_pass == pytest.approx(1500 + first_change + second_change * (1 - 2 / 802))
    assert state.players["cy"].first_pass == pytest.approx(1500 - second_change)


def test_more_games_between_a_pair_move_ratings_further():
    one = values([game("ann", "bob", "W")])["ann"]
    three = values([game("ann", "bob", "W", day=day) for day in (1, 2, 3)])["ann"]
    assert one == pytest.approx(1500 + 200 / 11)
    assert three == pytest.approx(1500 + 200 * 3 / 13)


def test_expected_percentage_is_clamped_at_a_difference_of_400():
    algorithm = Gcr()
    assert algorithm.expected(400.0) == 1.0
    assert algorithm.expected(1000.0) == 1.0
    assert algorithm.expected(-1000.0) == 0.0
    assert algorithm.expected(80.0) == 0.6


def test_a_predicted_result_changes_nothing():
    # 400 points apart, the stronger player is expected to win every game.
    algorithm = Gcr()
    assert algorithm.comparison(400.0, 1.0, 1) == 0.0
    assert algorithm.comparison(-400.0, 0.0, 5) == 0.0


# --- order of players and pairs ---------------------------------------------------


def test_players_are_ordered_by_games_then_score_then_opponents_then_username():
    records = [
        game("ann", "bob", "W", day=1),
        game("ann", "bob", "B", day=2),
        game("cy", "dee", "W", day=3),
        game("cy", "eve", "D", day=4),
        game("fay", "gus", "W", day=5),
        game("gus", "hal", "W", day=6),
    ]
    state = rated(records)
    # two games: cy 1.5; then 1.0 each: gus with two opponents, ann and bob with one
    # (then by name). One game: fay 1.0, eve 0.5, dee and hal 0 (by name).
    assert player_order(state.players) == ["cy", "gus", "ann", "bob", "fay", "eve", "dee", "hal"]


def test_free_and_small_board_games_are_not_counted_in_the_order():
    records = [
        game("ann", "bob", "W", day=1),
        game("cy", "ann", "W", day=2, status=Status.FREE),
        game("cy", "ann", "W", day=3, board_size=9),
        game("cy", "dee", "B", day=4),
    ]
    state = rated(records)
    assert state.players["ann"].games == 1
    assert state.players["cy"].games == 1
    assert state.players["cy"].opponents == ["dee"]
    assert player_order(state.players) == ["ann", "dee", "bob", "cy"]


@settings(max_examples=150, deadline=None)
@given(games_strategy)
def test_each_pass_visits_every_pair_that_played_once_in_the_seeds_zigzag(items):
    records = games_from(items)
    algorithm = RecordingGcr()
    state = algorithm.new_state(entries_for(records))
    for _ in replay(algorithm, records, state.entries, state):
        pass
    first, reverse = algorithm.passes
    played = {frozenset((white, black)) for white, black, _ in items}
    for visited in (first, reverse):
        assert len(visited) == len(played)
        assert {frozenset(pair) for pair in visited} == played
    assert first == seed_pass_order(player_order(state.players), played)


@settings(max_examples=150, deadline=None)
@given(games_strategy)
def test_the_reverse_pass_visits_the_pairs_in_exactly_the_reverse_order(items):
    records = games_from(items)
    algorithm = RecordingGcr()
    for _ in replay(algorithm, records, entries_for(records)):
        pass
    first, reverse = algorithm.passes
    assert reverse == first[::-1]


@settings(max_examples=100, deadline=None)
@given(games_strategy)
def test_the_rating_is_the_mean_of_two_passes_each_from_1500(items):
    records = games_from(items)
    algorithm = Gcr()
    state = rate_table(records, entries_for(records))
    pairs = pass_order(state.players)
    first = algorithm.run_pass(pairs)
    reverse = algorithm.run_pass(pairs[::-1])
    for name, player in state.players.items():
        assert player.first_pass == first[name]
        assert player.reverse_pass == reverse[name]
        assert player.value == (first[name] + reverse[name]) / 2


@settings(max_examples=100, deadline=None)
@given(games_strategy)
def test_colours_do_not_matter(items):
    swapped = [
        (black, white, {"W": "B", "B": "W", "D": "D"}[winner]) for white, black, winner in items
    ]
    assert values(games_from(items)) == values(games_from(swapped))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(names, names).filter(lambda item: item[0] != item[1]), max_size=20))
def test_without_rated_games_everyone_stays_at_1500(pairs):
    records = [
        game(white, black, "W", day=1 + index % 28, status=Status.FREE, seq=index)
        for index, (white, black) in enumerate(pairs)
    ]
    records += [game("ann", "bob", "B", day=2, board_size=13)]
    state = rated(records)
    assert all(player.value == 1500.0 for player in state.players.values())
    assert all(player.games == 0 for player in state.players.values())


# --- what GCR ignores ----------------------------------------------------------------


def test_adjustments_are_ignored():
    adjustment = GameRecord(
        date=date(2024, 1, 2),
        white="ann",
        black="ann",
        white_rank=Rank(3),
        status=Status.ADJUSTMENT,
        value=None,
    )
    with_adjustment = values([game("ann", "bob", "W"), adjustment])
    assert with_adjustment == values([game("ann", "bob", "W")])


def test_a_starting_rating_from_players_is_ignored():
    records = [game("ann", "bob", "W")]
    entries = {"ann": Entry(Rank(0), value=None), "bob": Entry(Rank(0))}
    given_rating = {"ann": Entry(Rank(0), value=2000), "bob": Entry(Rank(0), value=900)}
    plain = rate_table(records, entries).players
    started = rate_table(records, given_rating).players
    assert {name: p.value for name, p in plain.items()} == {
        name: p.value for name, p in started.items()
    }


def test_rate_unit_records_the_table_and_returns_no_rows():
    algorithm = Gcr()
    records = [game("ann", "bob", "W"), game("bob", "ann", "D", day=2)]
    state = algorithm.new_state(entries_for(records))
    assert [algorithm.rate_unit(state, [record]) for record in records] == [[], []]
    ann = state.players["ann"]
    assert (ann.games, ann.score, ann.opponents, ann.pair_games, ann.pair_scores) == (
        2,
        1.5,
        ["bob"],
        [2],
        [1.5],
    )
    assert ann.value == 1500.0  # rated only by finish()


# --- state, accuracy, snapshots ----------------------------------------------------


def test_the_state_round_trips_through_its_data():
    records = [game("ann", "bob", "W"), game("cy", "ann", "D", day=2)]
    state = rated(records)
    algorithm = state.algorithm
    copy = algorithm.new_state(state.entries)
    copy.load(state.dump())
    assert copy.dump() == state.dump()
    algorithm.finish(copy)
    assert {n: p.value for n, p in copy.players.items()} == {
        n: p.value for n, p in state.players.items()
    }
    more = game("cy", "bob", "W", day=3)
    algorithm.rate_unit(copy, [more])
    algorithm.finish(copy)
    assert {n: p.value for n, p in copy.players.items()} == values([*records, more])
    assert isinstance(copy.players["ann"], GcrPlayer)


def test_accuracy_counts_pairs_whose_better_rated_player_did_better():
    state = rated(
        [
            game("ann", "bob", "W", day=1),
            game("ann", "cy", "W", day=2),
            game("bob", "cy", "D", day=3),
        ]
    )
    result = accuracy(state)
    assert result is not None
    # ann is above bob and cy and won both pairs; bob and cy drew: each pass leaves them
    # apart (one has bob higher, the other cy), and only their mean is level.
    players = state.players
    assert players["bob"].first_pass > players["cy"].first_pass
    assert players["bob"].reverse_pass < players["cy"].reverse_pass
    assert players["bob"].value == players["cy"].value
    assert result.pairs == 3
    assert result.mean == 100.0
    assert result.first_pass == pytest.approx(200 / 3)
    assert result.reverse_pass == pytest.approx(200 / 3)


def test_accuracy_is_100_when_ratings_order_every_pair_as_its_results():
    result = accuracy(rated([game("ann", "bob", "W"), game("cy", "dee", "D", day=2)]))
    assert result is not None
    assert (result.mean, result.first_pass, result.reverse_pass, result.pairs) == (
        100.0,
        100.0,
        100.0,
        2,
    )


def test_accuracy_without_games_is_none():
    assert accuracy(rated([game("ann", "bob", "W", status=Status.FREE)])) is None


def test_standings_as_of_a_date_rate_only_the_games_up_to_it():
    records = [game("ann", "bob", "W", day=1), game("bob", "cy", "W", day=20)]
    early = standings_as_of(records, entries_for(records), date(2024, 1, 10))
    assert [(row.player, row.value, row.games) for row in early] == [
        ("ann", pytest.approx(1518.1818181818), 1),
        ("bob", pytest.approx(1481.8181818181), 1),
    ]


@settings(max_examples=50, deadline=None)
@given(games_strategy)
def test_month_end_snapshots_equal_a_full_recompute_at_each_month_end(items):
    records = games_from(items)
    entries = entries_for(records)
    snapshots = month_end_snapshots(records, entries)
    first_month = min(record.date for record in records).replace(day=1)
    assert snapshots[0][0].replace(day=1) == first_month
    for month_end, standings in snapshots:
        assert standings == standings_as_of(records, entries, month_end)


def test_month_ends_are_the_last_days_of_each_month_including_quiet_ones():
    records = [game("ann", "bob", "W", day=31, month=1), game("ann", "bob", "B", day=1, month=3)]
    ends = [end for end, _ in month_end_snapshots(records, entries_for(records))]
    assert ends == [date(2024, 1, 31), date(2024, 2, 29), date(2024, 3, 31)]


def test_standings_sort_by_declared_rank_then_rating():
    # GCR has no ranks: the declared rank stays, and SPEC section 3 sorts by it first.
    records = [game("ann", "bob", "D"), game("cy", "bob", "W", day=2)]
    entries = {"ann": Entry(Rank(-5)), "bob": Entry(Rank(2)), "cy": Entry(Rank(-5))}
    state = rate_table(records, entries)
    rows = state.algorithm.standings(state)
    assert [(row.player, str(row.rank)) for row in rows] == [
        ("bob", "3d"),
        ("cy", "5k"),
        ("ann", "5k"),
    ]
    assert rows[0].value < rows[1].value
    assert rows[1].value > rows[2].value


def test_params_can_be_overridden():
    params = parse_params(GcrParams, ["initial_rating=1000", "pair_games_offset=0"])
    state = rated([game("ann", "bob", "W")], params)
    assert state.players["ann"].value == 1200.0
    assert get_algorithm("gcr", params).params.initial_rating == 1000.0


# --- the command line ----------------------------------------------------------------


def write_games(tmp_path, rows: str):
    path = tmp_path / "games.csv"
    path.write_text(HEADER + rows, encoding="utf-8")
    return path


def test_cli_history_for_gcr_exits_2_saying_it_has_standings_only(tmp_path, capsys):
    path = write_games(tmp_path, "2024-01-01,ann,bob,1d,1d,0,W,,,\n")
    assert main(["rate", "--algorithm", "gcr", "--output", "history", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "gcr gives standings only: use --output standings" in captured.err


def test_cli_default_output_for_gcr_also_exits_2(tmp_path, capsys):
    path = write_games(tmp_path, "2024-01-01,ann,bob,1d,1d,0,W,,,\n")
    assert main(["rate", "--algorithm", "gcr", str(path)]) == 2
    assert "standings only" in capsys.readouterr().err


def test_cli_standings_print_full_precision_ratings(tmp_path, capsys):
    path = write_games(
        tmp_path,
        "2024-01-01,ann,bob,2k,1d,0,W,,,\n"
        "2024-01-02,ann,cy,2k,3k,0,W,free,,\n"
        "2024-01-03,ann,cy,2k,3k,0,B,,9,\n",
    )
    assert main(["rate", "--algorithm", "gcr", "--output", "standings", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "player,rank,value,games",
        "bob,1d,1481.8181818181818,1",
        "ann,2k,1518.1818181818182,1",
        "cy,3k,1500.0,0",
    ]


def test_cli_bad_params_for_gcr_exit_2(tmp_path, capsys):
    path = write_games(tmp_path, "2024-01-01,ann,bob,1d,1d,0,W,,,\n")
    argv = ["rate", "--algorithm", "gcr", "--output", "standings"]
    assert main([*argv, "--params", "past_games_offset=0", str(path)]) == 2
    assert "past_games_offset must be positive" in capsys.readouterr().err


def pass_by_the_methods(algorithm: Gcr, pairs) -> dict[str, float]:
    """A pass as the seed's steps read, one method call each (run_pass writes them out)."""
    start = algorithm.params.initial_rating
    ratings: dict[str, float] = {}
    past: dict[str, int] = {}
    for first, second, games, first_score in pairs:
        first_rating, second_rating = ratings.get(first, start), ratings.get(second, start)
        change = algorithm.comparison(first_rating - second_rating, first_score, games)
        ratings[first] = first_rating + change * algorithm.stability(past.get(first, 0))
        ratings[second] = second_rating - change * algorithm.stability(past.get(second, 0))
        past[first] = past.get(first, 0) + games
        past[second] = past.get(second, 0) + games
    return ratings


@settings(max_examples=150, deadline=None)
@given(games_strategy, st.sampled_from([GcrParams(), GcrParams(points_per_percent=0.5)]))
def test_a_pass_gives_what_the_seeds_steps_give_to_the_last_bit(items, params):
    # points_per_percent=0.5 clamps the expected percentage at 0 and 100 often
    state = rate_table(games_from(items), entries_for(games_from(items)), params)
    pairs = pass_order(state.players)
    algorithm = Gcr(params)
    for visited in (pairs, pairs[::-1]):
        assert algorithm.run_pass(visited) == pass_by_the_methods(algorithm, visited)


# --- the table kept between recomputes (Gcr.table_data / load_table) -------------


def numbered(state) -> tuple[dict[str, int], dict[int, str]]:
    numbers = {name: 100 + index for index, name in enumerate(sorted(state.players))}
    return numbers, {number: name for name, number in numbers.items()}


def table_of(state) -> dict[str, tuple]:
    return {
        name: (
            player.games,
            player.score,
            sorted(zip(player.opponents, player.pair_games, player.pair_scores, strict=True)),
        )
        for name, player in state.players.items()
    }


@settings(max_examples=150, deadline=None)
@given(games_strategy)
def test_a_table_read_back_is_the_same_table_and_rates_the_same_to_the_last_bit(items):
    records = [*games_from(items), game("hal", "ivy", "W", status=Status.FREE, month=12)]
    entries = entries_for(records)
    algorithm = Gcr()
    state = rate_table(records, entries)
    numbers, names = numbered(state)
    data = json.loads(json.dumps(algorithm.table_data(state, numbers)))
    read = algorithm.new_state(entries)

    assert algorithm.load_table(read, data, names)
    assert table_of(read) == table_of(state)
    assert table_of(read)["hal"] == (0, 0.0, [])  # a free game's players: listed, unrated
    algorithm.finish(read)
    assert {name: (p.value, p.first_pass, p.reverse_pass) for name, p in read.players.items()} == {
        name: (p.value, p.first_pass, p.reverse_pass) for name, p in state.players.items()
    }
    assert accuracy(read) == accuracy(state)


def test_a_table_counted_after_being_read_back_is_the_table_of_all_its_games():
    first = [game("ann", "bob", "W"), game("bob", "cy", "D")]
    later = [game("cy", "ann", "B", month=2), game("bob", "ann", "D", month=2)]
    entries = entries_for(first + later)
    algorithm = Gcr()
    numbers, names = numbered(rate_table(first + later, entries))
    read = algorithm.new_state(entries)
    assert algorithm.load_table(
        read, algorithm.table_data(rate_table(first, entries), numbers), names
    )
    for record in later:
        algorithm.count(read, record)

    assert table_of(read) == table_of(rate_table(first + later, entries))


@settings(max_examples=100, deadline=None)
@given(games_strategy, st.integers(0, 12))
def test_a_table_read_back_and_merged_with_the_table_of_later_games_is_the_table_of_all(
    items, split
):
    records = games_from(items)
    first, later = records[:split], records[split:]
    entries = entries_for(records)
    algorithm = Gcr()
    numbers, names = numbered(rate_table(records, entries))
    read = algorithm.new_state(entries)
    assert algorithm.load_table(
        read, algorithm.table_data(rate_table(first, entries), numbers), names
    )

    assert algorithm.merge_table(
        read,
        json.loads(json.dumps(algorithm.table_data(rate_table(later, entries), numbers))),
        names,
    )
    assert table_of(read) == table_of(rate_table(records, entries))


@pytest.mark.parametrize(
    "data",
    [None, {"format": 0, "players": [], "pairs": []}, {"format": 1, "players": [999], "pairs": []}],
    ids=["no table", "another format", "a player no longer there"],
)
def test_a_table_that_cannot_be_read_leaves_the_state_empty(data):
    state = rated([game("ann", "bob", "W")])
    algorithm = Gcr()
    _numbers, names = numbered(state)
    read = algorithm.new_state(state.entries)

    assert not algorithm.load_table(read, data, names)
    assert read.players == {}


def accuracy_pair_by_pair(state):
    """The seed's accuracy as it reads: each pair once, one comparison per rating."""

    def ordered(first: float, second: float, first_score: float, games: int) -> bool:
        return math.copysign(1, first - second) * (first != second) == math.copysign(
            1, 2 * first_score - games
        ) * (2 * first_score != games)

    players = state.players
    counts = [0, 0, 0]
    pairs = 0
    for name, player in players.items():
        for opponent, games, score in zip(
            player.opponents, player.pair_games, player.pair_scores, strict=True
        ):
            if opponent > name:
                other = players[opponent]
                pairs += 1
                for slot, field in enumerate(("value", "first_pass", "reverse_pass")):
                    counts[slot] += ordered(
                        getattr(player, field), getattr(other, field), score, games
                    )
    return [100 * count / pairs for count in counts], pairs


@settings(max_examples=100, deadline=None)
@given(games_strategy)
def test_the_accuracy_counts_each_pair_the_ratings_order_as_its_results(items):
    state = rated(games_from(items))
    result = accuracy(state)
    assert result is not None
    assert ([result.mean, result.first_pass, result.reverse_pass], result.pairs) == (
        accuracy_pair_by_pair(state)
    )
