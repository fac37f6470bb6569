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

from ratings.engine.algorithms import get_algorithm, registry
from ratings.engine.base import HistoryRow, replay, replay_sides
from ratings.engine.formats.games import read_games
from ratings.engine.formats.history import HISTORY_COLUMNS, history_cells, write_history
from ratings.engine.frozen import frozen_builder
from ratings.engine.ranks import Rank
from ratings.engine.records import (
    Colour,
    GameFileError,
    GameRecord,
    Status,
    Winner,
    resolve_entries,
)
from ratings.engine.rows import game_rows

HEADER = "date,white,black,white_rank,black_rank,handicap,komi,winner,status,value,comment"


def test_a_built_record_is_an_ordinary_frozen_hashable_record():
    values = (date(2024, 1, 1), "ann", "bob", Winner.WHITE, Rank(-5), Rank(-7), 0)
    rest = (Fraction(13, 2), Status.NORMAL, 19, "", "A", 0, None, None, "", "", 3, 4, True)
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


SIDES_FILE = "\n".join(
    [
        HEADER + ",board_size,algorithm,tournament,round",
        "2024-01-02,ann,bob,1d,3k,2,0.5,W,normal,,,19,",
        '2024-01-03,"o""neil,jr",ann,2d,1d,0,6.5,B,tournament,,"said ""hi"", left",19,',
        "2024-01-04,ann,bob,,,0,7.5,D,free,,,19,",
        "2024-01-05,bob,carl,3k,30k,9,-5,W,internet,,,9,",  # not rated by SAGC: 9x9
        "2024-01-06,bob,bob,2k,,,,,adjustment,500,reset,,",
        "2024-01-07,carl,bob,25k,,0,0,B,normal,,,19,",
        "2024-01-08,ann,ann,9d,,,,,adjustment,990,,,sagc",
        *(f"2024-02-{day:02d},ann,carl,,,0,6.5,W,tournament,,,19," for day in range(1, 29)),
        *(f"2024-03-{day:02d},carl,bob,,,0,6.5,W,normal,,,19," for day in range(1, 29)),
        # a tournament: a block for EGF and the French ladder, its rounds over two days
        "2024-04-06,ann,bob,,,0,6.5,B,tournament,,,19,,cup,1",
        "2024-04-06,carl,dave,,5k,0,6.5,W,tournament,,,19,,cup,1",
        "2024-04-07,ann,carl,,,0,6.5,W,tournament,,,19,,cup,2",
        "2024-04-07,bob,dave,,,0,6.5,B,tournament,,,19,,cup,2",
        "2024-04-08,dave,ann,,,3,0.5,W,normal,,,19,",
    ]
)


@pytest.mark.parametrize("algorithm", [name for name, cls in registry().items() if cls.has_history])
def test_a_sheet_written_from_games_sides_is_the_sheet_of_their_rows(algorithm):
    """The command line writes a game an algorithm rates by ``rate_sides`` from its
    sides, without HistoryRows: the same text, byte for byte, as from the rows."""
    records = read_games(SIDES_FILE + "\n").records
    entries = resolve_entries(records)

    def sheet(rows):
        written = io.StringIO()
        write_history(written, rows, get_algorithm(algorithm))
        return written.getvalue()

    engine = get_algorithm(algorithm)
    from_rows = sheet(replay(engine, records, entries))
    state = engine.new_state(entries)
    from_sides = sheet(replay_sides(engine, records, state, presorted=True))  # in order
    assert from_sides == from_rows
    assert "not rated" in from_rows or algorithm != "sagc"


def test_sagc_rates_a_game_by_its_sides_as_by_its_rows():
    """``rate_unit``'s rows are ``game_rows`` of ``rate_sides``'s sides: replayed either
    way, the same rows and the same players' states; adjustments come as rows."""
    records = read_games(SIDES_FILE + "\n").records
    entries = resolve_entries(records)
    engine = get_algorithm("sagc")
    by_rows = engine.new_state(entries)
    rows = list(replay(engine, records, entries, by_rows))
    by_sides = engine.new_state(entries)
    items = list(replay_sides(engine, records, by_sides, presorted=False))
    assert [
        row for item in items for row in (game_rows(*item) if isinstance(item, tuple) else [item])
    ] == rows
    assert by_sides.dump() == by_rows.dump()
    assert sum(isinstance(item, HistoryRow) for item in items) == 2  # the adjustments
    assert any(row.skipped for row in rows) and any(row.factors.get("promoted") for row in rows)
