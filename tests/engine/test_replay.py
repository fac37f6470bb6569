"""The algorithm interface, the registry, parameters and the replay (ratings/engine/base.py)."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from fractions import Fraction

import pytest

from ratings.engine.algorithms import get_algorithm, registry
from ratings.engine.base import (
    Algorithm,
    HistoryRow,
    ParamsError,
    PlayerState,
    RatingState,
    Standing,
    parse_params,
    replay,
    sort_standings,
    units,
)
from ratings.engine.formats.games import read_games
from ratings.engine.ranks import Rank
from ratings.engine.records import Entry, GameFileError, GameRecord, Status, Winner
from ratings.engine.sagc import Sagc, SagcParams, SagcPlayer


def record(white: str, black: str, day: int = 1, *, seq: int, **fields) -> GameRecord:
    fields.setdefault("winner", Winner.WHITE)
    return GameRecord(date=date(2024, 5, day), white=white, black=black, seq=seq, **fields)


def adjustment(player: str, day: int, *, seq: int, algorithm: str = "") -> GameRecord:
    return GameRecord(
        date=date(2024, 5, day),
        white=player,
        black=player,
        white_rank=Rank(-5),
        status=Status.ADJUSTMENT,
        algorithm=algorithm,
        seq=seq,
    )


class _Blocks(Algorithm):
    """A do-nothing algorithm that rates tournaments as blocks, to see the units."""

    name = "blocks"
    title = "blocks"
    params_type = SagcParams
    rates_tournaments_as_blocks = True

    def new_player(self, entry: Entry) -> PlayerState:
        return PlayerState(entry.rank, 0)

    def rate_unit(self, state: RatingState, unit: Sequence[GameRecord]) -> list[HistoryRow]:
        return []


# --- registry -----------------------------------------------------------------------


def test_every_algorithm_of_the_spec_is_registered_by_name():
    spec = {"sagc", "egf-2021", "egf-2020", "egf-legacy", "french", "gcr", "anchor"}
    assert set(registry()) == spec
    assert registry()["sagc"] is Sagc
    # the CSV reader's list is the registry's
    with pytest.raises(GameFileError, match=re.escape(f"({', '.join(registry())})")):
        read_games(
            "date,white,black,white_rank,status,algorithm\n2024-01-01,ann,ann,5k,adjustment,nope\n"
        )


@pytest.mark.parametrize("name", sorted(registry()))
def test_a_reset_without_a_value_gives_the_algorithms_default_value_for_the_rank(name):
    algorithm = get_algorithm(name)
    reset = GameRecord(
        date(2024, 3, 1), "ann", "ann", white_rank=Rank(-2), status=Status.ADJUSTMENT
    )

    rows = list(replay(algorithm, [reset], {"ann": Entry(Rank(-9))}))

    default = algorithm.default_value(Rank(-2))
    if not algorithm.has_history:
        assert (rows, default) == ([], None)  # GCR ignores resets
    else:
        assert [(row.rank_after, row.value_after) for row in rows] == [(Rank(-2), default)]


def test_an_unknown_algorithm_name_lists_the_known_ones():
    with pytest.raises(KeyError, match=r"unknown algorithm 'elo' \(known: anchor, .*sagc"):
        get_algorithm("elo")


def test_an_algorithm_starts_from_its_default_parameters_or_the_given_ones():
    assert get_algorithm("sagc").params == SagcParams()
    assert get_algorithm("sagc", SagcParams(opponent_memory=5)).params.opponent_memory == 5


# --- parameters ---------------------------------------------------------------------


THIRTY_KYU = Rank(-30)


@dataclass(frozen=True)
class _Knobs:
    count: int = 3
    weight: float = 0.5
    exact: Fraction = Fraction(1, 3)
    enabled: bool = False
    label: str = "x"
    floor: Rank = THIRTY_KYU
    levels: tuple[int, ...] = (1, 2)
    cap: int | None = None

    def __post_init__(self) -> None:
        if self.count < 0:
            raise ValueError("count must not be negative")


def test_parameters_keep_their_defaults_unless_overridden():
    assert parse_params(_Knobs, []) == _Knobs()
    assert parse_params(SagcParams, []) == SagcParams(index_limit=999, opponent_memory=10)


def test_every_kind_of_parameter_is_read_from_key_value_text():
    knobs = parse_params(
        _Knobs,
        [
            "count=7",
            "weight=1.25",
            "exact=2/3",
            "enabled=yes",
            "label=club",
            "floor=25k",
            "levels=3, 4,5",
            "cap=12",
        ],
    )
    assert knobs == _Knobs(7, 1.25, Fraction(2, 3), True, "club", Rank(-25), (3, 4, 5), 12)
    assert parse_params(_Knobs, ["cap=none", "enabled=0"]) == _Knobs(cap=None, enabled=False)


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        ("count=three", "--params count=three: expected a value of type int"),
        ("weight=heavy", "--params weight=heavy: expected a value of type float"),
        ("exact=1/0", "--params exact=1/0: expected a value of type Fraction"),
        ("enabled=maybe", "--params enabled=maybe: expected a value of type bool"),
        ("floor=60k", "--params floor=60k: expected a value of type Rank"),
        ("levels=1,x", "--params levels=x: expected a value of type int"),
        ("cap=lots", "--params cap=lots: expected a value of type int"),
        ("count", "--params count: expected KEY=VALUE"),
        ("colour=red", "--params colour: unknown parameter (known: count, weight, exact, "),
        ("count=-1", "--params: count must not be negative"),
    ],
)
def test_a_parameter_of_the_wrong_type_or_name_is_a_clear_error(pair, message):
    with pytest.raises(ParamsError) as raised:
        parse_params(_Knobs, [pair])
    assert str(raised.value).startswith(message)


def test_sagc_parameters_are_checked_for_range():
    with pytest.raises(ParamsError, match="index_limit must be between 1 and 100000"):
        parse_params(SagcParams, ["index_limit=0"])


# --- units and replay order ----------------------------------------------------------


def test_the_replay_order_is_date_round_and_entry_order_whatever_the_list_order():
    records = [
        record("a", "b", 3, seq=1),
        record("c", "d", 1, seq=5, round=2),
        record("e", "f", 1, seq=9, round=1),
        record("g", "h", 1, seq=2, round=1),
    ]
    order = [unit[0].white for unit in units(get_algorithm("sagc"), records)]
    assert order == ["g", "e", "c", "a"]


def test_adjustments_for_another_algorithm_are_left_out():
    records = [
        adjustment("a", 1, seq=1, algorithm="egf-2021"),
        adjustment("a", 2, seq=2, algorithm="sagc"),
        adjustment("a", 3, seq=3),
    ]
    seen = [unit[0].seq for unit in units(get_algorithm("sagc"), records)]
    assert seen == [2, 3]


def test_a_tournament_is_one_unit_at_its_first_game_for_block_algorithms():
    records = [
        record("a", "b", 1, seq=1, tournament="T1", round=1),
        record("c", "d", 2, seq=2),
        record("a", "c", 3, seq=3, tournament="T1", round=2),
        adjustment("a", 2, seq=4),
        record("b", "d", 4, seq=5),
    ]
    grouped = [[item.seq for item in unit] for unit in units(_Blocks(), records)]
    assert grouped == [[1, 3], [2], [4], [5]]
    assert [[item.seq for item in unit] for unit in units(get_algorithm("sagc"), records)] == [
        [1],
        [2],
        [4],
        [3],
        [5],
    ]


def sagc_games() -> tuple[list[GameRecord], dict[str, Entry]]:
    names = ["ann", "bob", "carl", "dave"]
    entries = {name: Entry(Rank(-12 + 3 * n)) for n, name in enumerate(names)}
    records = []
    for seq in range(1, 41):
        white, black = names[seq % 4], names[(seq * 3 + 1) % 4]
        if white != black:
            winner = Winner.WHITE if seq % 3 else Winner.BLACK
            records.append(record(white, black, 1 + seq // 4, seq=seq, winner=winner))
    return records, entries


def test_a_replay_resumed_from_a_saved_state_gives_the_rows_of_a_full_replay():
    records, entries = sagc_games()
    algorithm = get_algorithm("sagc")
    full = list(replay(algorithm, records, entries))

    half = len(records) // 2
    first = algorithm.new_state(entries)
    head = list(replay(algorithm, records[:half], entries, first))
    saved = json.loads(json.dumps(first.dump()))  # what a checkpoint stores
    resumed = algorithm.new_state(entries)
    resumed.load(saved)
    tail = list(replay(algorithm, records[half:], entries, resumed))

    assert head + tail == full
    straight = algorithm.new_state(entries)
    list(replay(algorithm, records, entries, straight))
    assert resumed.players == straight.players


def test_a_player_state_round_trips_through_json_data():
    @dataclass(slots=True)
    class Rich(PlayerState):
        ratio: Fraction = Fraction(0)
        rating: float = 0.0
        seen: list = dataclasses.field(default_factory=list)

    state = Rich(Rank(8, pro=3), Fraction(7, 3), 4, Fraction(-1, 9), 0.1 + 0.2, ["a", "b"])
    assert Rich.from_data(json.loads(json.dumps(state.to_data()))) == state
    sagc = SagcPlayer(Rank(-30), -999, 12, ["x", "y"])
    assert SagcPlayer.from_data(json.loads(json.dumps(sagc.to_data()))) == sagc


def test_a_player_without_an_entry_cannot_be_rated():
    state = get_algorithm("sagc").new_state({})
    with pytest.raises(KeyError, match="no entry rank for player 'ghost'"):
        state.player("ghost")


def test_standings_sort_by_rank_then_value_descending_then_username():
    rows = [
        Standing("carl", Rank(-3), 10, 1),
        Standing("ann", Rank(-3), 10, 2),
        Standing("bob", Rank(-3), 400, 3),
        Standing("dave", Rank(2), -900, 4),
        Standing("eve", Rank(-20), 999, 5),
    ]
    assert [row.player for row in sort_standings(rows)] == ["dave", "bob", "ann", "carl", "eve"]
