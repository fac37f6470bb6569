"""``units(..., presorted=True)``: records already in replay order (as the site's
database streams them) make exactly the units a sorted replay makes."""

from __future__ import annotations

import random
from datetime import date, timedelta

from hypothesis import given
from hypothesis import strategies as st

from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import units
from ratings.engine.ranks import Rank
from ratings.engine.records import GameRecord, Status, Winner

PLAYERS = ("ann", "ben", "cat", "dan")
START = date(2024, 1, 1)

entry = st.one_of(
    st.tuples(
        st.just("game"),
        st.integers(0, 20),
        st.integers(0, 3),
        st.integers(1, 3),
        st.sampled_from(["", "spring", "summer"]),
        st.integers(0, 3),
    ),
    st.tuples(
        st.just("adjustment"),
        st.integers(0, 20),
        st.integers(0, 3),
        st.sampled_from(["", "sagc", "egf-2021"]),
    ),
)


def records_from(entries: list[tuple]) -> list[GameRecord]:
    records = []
    for seq, item in enumerate(entries, start=1):
        if item[0] == "game":
            _, day, white, offset, tournament, round_number = item
            records.append(
                GameRecord(
                    date=START + timedelta(days=day),
                    white=PLAYERS[white],
                    black=PLAYERS[(white + offset) % len(PLAYERS)],
                    winner=Winner.WHITE,
                    tournament=tournament,
                    round=round_number if tournament else 0,
                    status=Status.TOURNAMENT if tournament else Status.NORMAL,
                    seq=seq,
                )
            )
        else:
            _, day, player, algorithm = item
            records.append(
                GameRecord(
                    date=START + timedelta(days=day),
                    white=PLAYERS[player],
                    black=PLAYERS[player],
                    white_rank=Rank(-5),
                    status=Status.ADJUSTMENT,
                    algorithm=algorithm,
                    seq=seq,
                )
            )
    return records


@given(st.lists(entry, max_size=40), st.randoms(use_true_random=False))
def test_presorted_records_make_the_units_of_a_sorted_replay(entries, rng: random.Random):
    records = records_from(entries)
    in_order = sorted(records, key=lambda record: record.order_key)
    shuffled = list(records)
    rng.shuffle(shuffled)
    for name in ("sagc", "egf-2021"):  # one rates tournaments as blocks, one does not
        algorithm = get_algorithm(name)
        assert list(units(algorithm, in_order, presorted=True)) == list(
            units(algorithm, shuffled)
        ), name


def test_presorted_units_of_a_game_by_game_algorithm_are_made_as_records_arrive():
    def stream():
        yield GameRecord(date=START, white="ann", black="ben", winner=Winner.WHITE, seq=1)
        raise AssertionError("read past the first record")

    first = next(units(get_algorithm("sagc"), stream(), presorted=True))
    assert [record.seq for record in first] == [1]
