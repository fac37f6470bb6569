"""The command line's fast paths give what the plain ways give (issue 14, item 6): frozen
values built through a twin, the record sheet formatted without ``csv.writer``, rows
read from a known combination of cells, and SAGC's cached changes."""

from __future__ import annotations

import csv
import dataclasses
import io
from datetime import date
from fractions import Fraction

import pytest

from ratings.engine.base import HistoryRow, get_algorithm, replay
from ratings.engine.frozen import frozen_builder
from ratings.engine.output import HISTORY_COLUMNS, history_cells, write_history
from ratings.engine.ranks import Rank
from ratings.engine.records import (
    Colour,
    GameFileError,
    GameRecord,
    Status,
    Winner,
    read_games,
    resolve_entries,
)
from ratings.engine.rows import game_rows

HEADER = "date,white,black,white_rank,black_rank,handicap,komi,winner,status,value,comment"


def test_a_built_record_is_an_ordinary_frozen_hashable_record():
    values = (date(2024, 1, 1), "ann", "bob", Winner.WHITE, Rank(-5), Rank(-7), 0)
    rest = (Fraction(13, 2), Status.NORMAL, 19, "", "A", 0, None, None, "", "", 3, 4)
    built = frozen_builder(GameRecord)(*values, *rest)
    made = GameRecord(*values, *rest)
    assert type(built) is GameRecord
    assert built == made and hash(built) == hash(made)
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.white = "carl"
    assert dataclasses.replace(built, white="carl").white == "carl"


def test_a_class_that_checks_its_fields_is_not_built_past_its_check():
    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        value: int

        def __post_init__(self) -> None:
            if self.value < 0:
                raise ValueError("negative")

    with pytest.raises(TypeError):
        frozen_builder(Checked)


def awkward_rows() -> list[HistoryRow]:
    """Rows whose cells csv.writer must quote, floats, an adjustment and a skipped game."""
    record = GameRecord(
        date=date(2024, 5, 6),
        white='o"neil,jr',
        black="bob",
        winner=Winner.BLACK,
        komi=Fraction(-7, 2),
        handicap=2,
        comment='first line\nsecond, with a \r and a "quote"',
        seq=1,
    )
    white = (Rank(-3), 1.5, -0.0, Rank(-3), 1.5, {})
    black = (Rank.pro_rank(2), Fraction(1, 3), 2.25, Rank(8), 1e-17, {})
    rows = game_rows(record, white, black, skipped="a reason, quoted")
    adjustment = HistoryRow(
        seq=2,
        date=date(2024, 5, 7),
        round=0,
        player="bob",
        opponent="bob",
        opponent_rank=Rank(-50),
        colour=None,
        handicap=0,
        komi=Fraction(13, 2),
        winner=None,
        status=Status.ADJUSTMENT,
        tournament="",
        value_before=0,
        change=3,
        value_after=3,
        rank_before=Rank(-50),
        rank_after=Rank(0),
        factors={},
    )
    return [*rows, adjustment]


@pytest.mark.parametrize("algorithm", ["sagc", "egf-2021"])
def test_the_record_sheet_is_the_text_csv_writer_gives_its_cells(algorithm):
    engine = get_algorithm(algorithm)
    rows = awkward_rows()
    expected = io.StringIO()
    writer = csv.writer(expected, lineterminator="\n")
    writer.writerow(HISTORY_COLUMNS)
    writer.writerows(history_cells(row, engine) for row in rows)
    written = io.StringIO()
    write_history(written, rows, engine)
    assert written.getvalue() == expected.getvalue()
    assert rows[0].colour is Colour.WHITE and rows[1].opponent == 'o"neil,jr'


def test_a_known_row_with_spaces_around_its_cells_reads_as_without_them():
    plain = "2024-03-01,ann,bob,5k,7k,0,6.5,W,normal,,hello"
    spaced = " 2024-03-02 , ann , bob , 5k , 7k ,0,6.5,W,normal,, hello "
    first, second = read_games("\n".join([HEADER, plain, spaced]) + "\n").records
    assert (second.date, second.white, second.black) == (date(2024, 3, 2), "ann", "bob")
    assert (second.white_rank, second.black_rank, second.comment) == (Rank(-5), Rank(-7), "hello")
    assert dataclasses.replace(second, date=first.date, seq=1, line=2) == first


@pytest.mark.parametrize(
    ("good", "bad"),
    [
        # a rank the known texts do not hold
        ("2024-03-01,ann,bob,5k,7k,0,6.5,W,normal,,", "2024-03-02,ann,bob,5x,7k,0,6.5,W,normal,,"),
        # an adjustment without its new rank, after one with it
        ("2024-03-01,ann,ann,5k,,,,,adjustment,100,", "2024-03-02,ann,ann,,,,,,adjustment,100,"),
    ],
)
def test_a_bad_rank_after_a_known_combination_is_reported_with_line_and_column(good, bad):
    with pytest.raises(GameFileError) as raised:
        read_games("\n".join([HEADER, good, bad]) + "\n")
    (error,) = raised.value.errors
    assert (error.line, error.column) == (3, "white_rank")


def test_a_game_after_a_known_row_may_leave_its_ranks_empty_once_entered():
    rows = ["2024-03-01,ann,bob,5k,7k,0,6.5,W,normal,,", "2024-03-02,ann,bob,,,0,6.5,W,normal,,"]
    records = read_games("\n".join([HEADER, *rows]) + "\n").records
    assert (records[1].white_rank, records[1].black_rank) == (None, None)
    assert set(resolve_entries(records)) == {"ann", "bob"}


def test_sagc_rows_sharing_factors_stay_apart_when_a_barrier_is_met():
    """A loss from index 0 stops at the rank's first mark: only that row names the
    barrier, though the rows before it had the same factors."""
    rows = [f"2024-03-{day:02d},ann,bob,25k,25k,0,6.5,B,normal,," for day in range(1, 9)]
    records = read_games("\n".join([HEADER, *rows]) + "\n").records
    engine = get_algorithm("sagc")
    history = list(replay(engine, records, resolve_entries(records)))
    ann = [row for row in history if row.player == "ann"]
    barriers = [row.factors.get("barrier") for row in ann]
    assert -800 in barriers and barriers.count(None) >= 1
    assert all("barrier" not in row.factors for row in history if row.player == "bob")
