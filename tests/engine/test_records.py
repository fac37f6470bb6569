"""The game record of SPEC section 2 (ratings/engine/records.py) and its CSV reader
(ratings/engine/formats/games.py)."""

from __future__ import annotations

import dataclasses
from datetime import date
from fractions import Fraction

import pytest

from ratings.engine.formats.games import read_games, read_players
from ratings.engine.ranks import Rank, parse_rank
from ratings.engine.records import (
    COLUMNS,
    Entry,
    GameFileError,
    GameRecord,
    Status,
    Winner,
    replay_order,
    resolve_entries,
)

HEADER = "date,white,black,white_rank,black_rank,handicap,komi,winner,status,value,algorithm"


def csv_text(*rows: str, header: str = HEADER) -> str:
    return "\n".join([header, *rows]) + "\n"


def errors_of(text: str | bytes) -> list[tuple[int, str, str]]:
    with pytest.raises(GameFileError) as raised:
        read_games(text)
    return [(error.line, error.column, error.message) for error in raised.value.errors]


def only_error(text: str) -> tuple[int, str, str]:
    (error,) = errors_of(text)
    return error


# --- the record ---------------------------------------------------------------------


def test_a_game_record_is_frozen():
    record = GameRecord(date=date(2024, 1, 1), white="ann", black="bob", winner=Winner.WHITE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.white = "carl"


def test_a_minimal_row_gets_the_spec_defaults():
    (record,) = read_games(csv_text("2024-03-01,ann,bob,5k,7k,,,W,,,")).records
    assert record.date == date(2024, 3, 1)
    assert (record.white, record.black) == ("ann", "bob")
    assert (record.white_rank, record.black_rank) == (Rank(-5), Rank(-7))
    assert record.winner is Winner.WHITE
    assert record.handicap == 0
    assert record.komi == Fraction(13, 2)
    assert record.status is Status.NORMAL
    assert (record.board_size, record.tournament_class, record.round) == (19, "A", 0)
    assert (record.seq, record.line) == (1, 2)


def test_the_default_komi_is_half_a_point_in_a_handicap_game():
    (record,) = read_games(csv_text("2024-03-01,ann,bob,5k,9k,4,,B,,,")).records
    assert (record.handicap, record.komi) == (4, Fraction(1, 2))


def test_a_given_komi_is_kept_exactly_including_negative_komi_for_black():
    records = read_games(
        csv_text("2024-03-01,ann,bob,5k,9k,0,-4.5,B,,,", "2024-03-02,ann,bob,,,9,-20.5,W,,,")
    ).records
    assert [record.komi for record in records] == [Fraction(-9, 2), Fraction(-41, 2)]


@pytest.mark.parametrize(
    ("text", "winner"),
    [
        ("W", Winner.WHITE),
        ("w", Winner.WHITE),
        ("White", Winner.WHITE),
        ("B", Winner.BLACK),
        ("BLACK", Winner.BLACK),
        ("D", Winner.JIGO),
        ("jigo", Winner.JIGO),
    ],
)
def test_the_winner_is_read_in_any_case_and_spelling(text, winner):
    (record,) = read_games(csv_text(f"2024-03-01,ann,bob,5k,7k,,,{text},,,")).records
    assert record.winner is winner


@pytest.mark.parametrize("status", ["free", "normal", "tournament", "internet", "FREE"])
def test_every_game_status_is_read(status):
    (record,) = read_games(csv_text(f"2024-03-01,ann,bob,5k,7k,,,W,{status},,")).records
    assert record.status is Status(status.lower())


def test_an_adjustment_names_the_player_twice_with_the_new_rank_and_value():
    (record,) = read_games(csv_text("2024-03-01,ann,ann,3k,,,,,adjustment,-200,sagc")).records
    assert record.is_adjustment
    assert (record.white, record.black, record.white_rank) == ("ann", "ann", Rank(-3))
    assert (record.value, record.algorithm, record.winner) == (Fraction(-200), "sagc", None)
    assert record.applies_to("sagc")
    assert not record.applies_to("egf-2021")


def test_an_adjustment_without_an_algorithm_applies_to_every_algorithm():
    (record,) = read_games(csv_text("2024-03-01,ann,ann,3k,,,,,adjustment,,")).records
    assert all(record.applies_to(name) for name in ("sagc", "egf-2021", "french"))


def test_a_byte_order_mark_and_header_case_and_spaces_are_accepted():
    data = ("\ufeff" + csv_text("2024-03-01,ann,bob,5k,7k,,,W,,,", header=HEADER.upper())).encode()
    data = data.replace(b"DATE,WHITE", b" DATE , WHITE ")
    (record,) = read_games(data).records
    assert record.white == "ann"


def test_an_unknown_column_is_a_warning_not_an_error():
    text = csv_text("2024-03-01,ann,bob,5k,7k,W,yes", header="date,white,black,white_rank,"
                    "black_rank,winner,colour_blind")  # fmt: skip
    games = read_games(text)
    assert len(games.records) == 1
    assert games.warnings == ["ignoring unknown column 'colour_blind'"]


def test_blank_lines_are_skipped_and_line_numbers_stay_those_of_the_file():
    text = csv_text("2024-03-01,ann,bob,5k,7k,,,W,,,", "", "2024-03-02,ann,bob,,,,,X,,,")
    assert only_error(text) == (4, "winner", "'X' is not a winner (W, B or D for jigo)")


# --- bad rows: line, column and reason, all of them, and nothing returned -----------


@pytest.mark.parametrize(
    ("row", "column", "reason"),
    [
        ("2024/03/01,ann,bob,5k,7k,,,W,,,", "date", "'2024/03/01' is not an ISO date"),
        ("01-03-2024,ann,bob,5k,7k,,,W,,,", "date", "'01-03-2024' is not an ISO date"),
        ("2024-02-30,ann,bob,5k,7k,,,W,,,", "date", "'2024-02-30' is not a valid date"),
        (",ann,bob,5k,7k,,,W,,,", "date", "a date is required"),
        ("2024-03-01,,bob,5k,7k,,,W,,,", "white", "a player username is required"),
        ("2024-03-01,ann lee,bob,5k,7k,,,W,,,", "white", "'ann lee' is not a username"),
        ("2024-03-01,ann,bob,0k,7k,,,W,,,", "white_rank", "'0k' is not a rank"),
        ("2024-03-01,ann,bob,5k,10d,,,W,,,", "black_rank", "'10d' is not a rank"),
        ("2024-03-01,ann,bob,5k,7k,10,,W,,,", "handicap", "10 is not a handicap (0 to 9"),
        ("2024-03-01,ann,bob,5k,7k,-1,,W,,,", "handicap", "-1 is not a handicap (0 to 9"),
        ("2024-03-01,ann,bob,5k,7k,two,,W,,,", "handicap", "'two' is not a whole number"),
        ("2024-03-01,ann,bob,5k,7k,,six,W,,,", "komi", "'six' is not a number"),
        ("2024-03-01,ann,bob,5k,7k,,6.3,W,,,", "komi", "6.3 is not a komi (a multiple of 0.5"),
        ("2024-03-01,ann,bob,5k,7k,,50.5,W,,,", "komi", "50.5 is not a komi"),
        ("2024-03-01,ann,bob,5k,7k,,,X,,,", "winner", "'X' is not a winner"),
        ("2024-03-01,ann,bob,5k,7k,,,,,,", "winner", "a game needs a winner"),
        ("2024-03-01,ann,bob,5k,7k,,,W,rated,,", "status", "'rated' is not a status"),
        ("2024-03-01,ann,ann,5k,5k,,,W,,,", "black", "'ann' cannot play themselves"),
        ("2024-03-01,ann,bob,5k,7k,,,W,,100,", "value", "a value is only given for an adj"),
        ("2024-03-01,ann,bob,5k,7k,,,W,,,sagc", "algorithm", "an algorithm is only named for"),
        ("2024-03-01,ann,ann,5k,,,,,adjustment,,elo", "algorithm", "'elo' is not an algorithm"),
        ("2024-03-01,ann,bob,5k,,,,,adjustment,,", "black", "an adjustment names the same"),
        ("2024-03-01,ann,ann,,,,,,adjustment,,", "white_rank", "an adjustment needs the play"),
        ("2024-03-01,ann,bob,5k,7k,,,W,,,,extra", "", "more cells than header columns"),
    ],
)
def test_a_bad_row_is_rejected_with_its_line_column_and_reason(row, column, reason):
    text = csv_text("2024-02-01,carl,dave,1d,1k,,,B,,,", row)
    line, found_column, message = only_error(text)
    assert (line, found_column) == (3, column)
    assert message.startswith(reason)


@pytest.mark.parametrize(
    ("column", "cell", "reason"),
    [
        ("board_size", "15", "15 is not a board size (9, 13 or 19)"),
        ("tournament_class", "E", "'E' is not a class (A, B, C or D)"),
        ("round", "-1", "-1 is not a round number (0 or more)"),
        ("time_minutes", "0", "0 is not a positive time"),
    ],
)
def test_the_optional_columns_are_validated_too(column, cell, reason):
    text = f"date,white,black,white_rank,black_rank,winner,{column}\n"
    text += f"2024-03-01,ann,bob,5k,7k,W,{cell}\n"
    assert only_error(text) == (2, column, reason)


def test_a_bad_cell_is_reported_on_every_row_even_where_good_ones_repeat():
    # the reader remembers the texts it has read well; a bad one is checked every time
    text = csv_text(
        "2024-03-01,ann,bob,5k,7k,,-1.5,W,,,",
        "2024-03-01,ann,bob,5x,7k,,-1.5,W,,,",
        "2024-03-01,ann,bob,5k,7k,,-1.25,W,,,",
        "2024-03-01,ann,bob,5x,7k,,-1.5,W,,,",
        "2024-02-30,ann,bob,5k,7k,,-1.5,W,,,",
        "2024-02-30,ann,bob,5k,7k,,-1.25,W,,,",
    )
    found = [(line, column) for line, column, _message in errors_of(text)]
    assert found == [
        (3, "white_rank"),
        (4, "komi"),
        (5, "white_rank"),
        (6, "date"),
        (7, "date"),
        (7, "komi"),
    ]
    good = read_games(csv_text("2024-03-01,ann,bob,5k,7k,,-1.5,W,,,")).records[0]
    assert (good.date, good.white_rank, good.komi) == (date(2024, 3, 1), parse_rank("5k"), -1.5)


def test_every_bad_row_is_reported_and_a_file_with_any_bad_row_yields_no_games():
    text = csv_text(
        "2024-03-01,ann,bob,5k,7k,,,W,,,",
        "2024-13-01,ann,bob,,,,,W,,,",
        "2024-03-02,ann,bob,,,,,W,,,",
        "2024-03-03,ann,bob,,,12,,Q,,,",
        "2024-03-04,ann,ann,,,,,B,,,",
    )
    with pytest.raises(GameFileError) as raised:
        read_games(text, source="club.csv")
    found = [(error.line, error.column) for error in raised.value.errors]
    assert found == [(3, "date"), (5, "winner"), (5, "handicap"), (6, "black")]
    assert str(raised.value).splitlines()[0] == (
        "club.csv: line 3, column date: '2024-13-01' is not a valid date"
    )


def test_a_file_without_a_required_column_is_rejected_at_the_header():
    assert errors_of("date,white,winner\n2024-03-01,ann,W\n") == [
        (1, "black", "required column is missing")
    ]


def test_a_column_given_twice_is_rejected_at_the_header():
    assert errors_of("date,white,black,winner,Winner\n2024-03-01,ann,bob,W,B\n") == [
        (1, "winner", "column appears more than once")
    ]


def test_an_empty_file_is_rejected():
    assert errors_of("") == [(1, "", "the file is empty: a header row is required")]


def test_a_file_that_is_not_utf8_is_rejected_with_advice():
    ((line, column, message),) = errors_of(csv_text("2024-03-01,j\xf6rg,bob,5k,7k,,,W,,,").encode(
        "latin-1"
    ))  # fmt: skip
    assert (line, column) == (0, "")
    assert "not UTF-8" in message and "save it as UTF-8 CSV" in message


# --- replay order and entries -------------------------------------------------------


def test_replay_order_is_date_then_round_then_position_in_the_file():
    records = read_games(
        "date,white,black,white_rank,black_rank,winner,round\n"
        "2024-03-02,a,b,1k,1k,W,0\n"
        "2024-03-01,c,d,1k,1k,W,2\n"
        "2024-03-01,e,f,1k,1k,W,1\n"
        "2024-03-01,g,h,1k,1k,W,1\n"
    ).records
    assert [record.white for record in replay_order(records)] == ["e", "g", "c", "a"]


def test_the_entry_rank_is_the_rank_on_the_first_row_in_replay_order_not_in_the_file():
    records = read_games(
        csv_text("2024-03-05,ann,bob,2k,9k,,,W,,,", "2024-03-01,ann,carl,5k,5k,,,W,,,")
    ).records
    entries = resolve_entries(records)
    assert entries == {
        "ann": Entry(Rank(-5)),
        "bob": Entry(Rank(-9)),
        "carl": Entry(Rank(-5)),
    }


def test_a_missing_first_game_rank_is_an_error_naming_line_and_column_once_per_player():
    records = read_games(
        csv_text(
            "2024-03-01,ann,bob,5k,,,,W,,,",
            "2024-03-02,ann,bob,,,,,W,,,",
            "2024-03-03,carl,ann,,5k,,,W,,,",
        )
    ).records
    with pytest.raises(GameFileError) as raised:
        resolve_entries(records, source="club.csv")
    assert [(e.line, e.column, e.message) for e in raised.value.errors] == [
        (2, "black_rank", "first game of 'bob' needs their entry rank"),
        (4, "white_rank", "first game of 'carl' needs their entry rank"),
    ]
    assert "club.csv: line 2, column black_rank" in str(raised.value)


def test_players_given_on_the_command_line_override_the_ranks_in_the_file():
    records = read_games(csv_text("2024-03-01,ann,bob,5k,,,,W,,,")).records
    given = {"bob": Entry(Rank(-12), Fraction(-300))}
    entries = resolve_entries(records, given)
    assert entries == {"ann": Entry(Rank(-5)), "bob": Entry(Rank(-12), Fraction(-300))}


def test_an_adjustment_as_a_players_first_row_gives_their_entry_rank():
    records = read_games(
        csv_text("2024-03-02,ann,bob,,6k,,,W,,,", "2024-03-01,ann,ann,4k,,,,,adjustment,,")
    ).records
    assert resolve_entries(records)["ann"] == Entry(Rank(-4))


def test_the_players_file_has_an_optional_header_and_an_optional_rating():
    entries = read_players("player,rank,rating\nann,3k,\nbob,2 dan,250\n")
    assert entries == {"ann": Entry(Rank(-3)), "bob": Entry(Rank(1), Fraction(250))}
    assert read_players("carl,45k\n") == {"carl": Entry(parse_rank("45k"))}


def test_a_bad_players_file_reports_every_bad_line():
    with pytest.raises(GameFileError) as raised:
        read_players("player,rank,rating\nann,3k\nbob,abc\nann,4k\ncarl\ndave,1k,x\n")
    assert [(e.line, e.column) for e in raised.value.errors] == [
        (3, "rank"),
        (4, "player"),
        (5, ""),
        (6, "rating"),
    ]


def test_a_row_with_a_multi_line_comment_keeps_the_line_it_starts_on():
    records = read_games(
        "date,white,black,white_rank,black_rank,winner,comment\n"
        '2024-03-01,ann,bob,5k,7k,W,"first line\nsecond line\nthird"\n'
        "2024-03-02,ann,bob,,,B,\n"
    ).records
    assert [record.line for record in records] == [2, 5]
    assert records[0].comment == "first line\nsecond line\nthird"


# --- rows like one read before ------------------------------------------------------


def test_a_row_repeating_a_good_rows_cells_is_still_checked_for_its_date_and_players():
    good = "2024-01-05,ann,bob,3k,5k,2,0.5,W,normal,,"
    assert errors_of(
        csv_text(
            good,
            "2024-13-01,ann,bob,3k,5k,2,0.5,W,normal,,",
            "2024-01-06,ann bee,bob,3k,5k,2,0.5,W,normal,,",
            "2024-01-06,ann,ann,3k,5k,2,0.5,W,normal,,",
            "2024-01-07,cy,,3k,5k,2,0.5,W,normal,,",
        )
    ) == [
        (3, "date", "'2024-13-01' is not a valid date"),
        (4, "white", "'ann bee' is not a username (no spaces allowed)"),
        (5, "black", "'ann' cannot play themselves (only an adjustment may)"),
        (6, "black", "a player username is required"),
    ]


def test_an_adjustment_repeating_a_good_ones_cells_must_name_one_player():
    good = "2024-01-05,ann,ann,3k,,,,,adjustment,,sagc"
    assert only_error(csv_text(good, "2024-02-05,bob,cy,3k,,,,,adjustment,,sagc")) == (
        3,
        "black",
        "an adjustment names the same player as white and black",
    )


def test_rows_read_the_short_way_are_the_records_a_full_parse_gives():
    rows = [
        "2024-01-05,ann,bob,3k,5k,2,0.5,W,normal,,",
        "2024-01-06,cy,dee,3k,5k,2,0.5,W,normal,,",  # the same repeating cells
        "2024-01-06, bob ,ann,3k,5k,2,0.5,W,normal,,",  # spaces around a username
        "2024-01-07,dee,cy,3k,5k,2,0.5,B,normal,,",
        "2024-01-08,ann,ann,3k,,,,,adjustment,100,sagc",
        "2024-01-09,bob,bob,3k,,,,,adjustment,100,sagc",
        "2024-01-09,cy,dee,3k,5k,0,,D",  # short: the missing cells are empty
    ]
    short_way = read_games(csv_text(*rows)).records
    one_by_one = [read_games(csv_text(row)).records[0] for row in rows]
    assert [dataclasses.replace(record, seq=0, line=0) for record in short_way] == [
        dataclasses.replace(record, seq=0, line=0) for record in one_by_one
    ]
    assert [(record.seq, record.line) for record in short_way] == [
        (seq, seq + 1) for seq in range(1, len(rows) + 1)
    ]


def test_every_column_of_the_game_record_csv_is_a_field_of_the_record_by_its_name():
    fields = {field.name for field in dataclasses.fields(GameRecord)}
    assert set(COLUMNS) <= fields
    # The fields no column gives: the entry order, the line and whether colours are known.
    assert fields - set(COLUMNS) == {"seq", "line", "colour_given"}


def test_a_row_is_read_by_its_column_names_whatever_their_order():
    text = "comment,black,white,winner,date\nfriendly,bob,alice,B,2024-03-01\n"
    (record,) = read_games(text).records
    assert (record.date, record.white, record.black) == (date(2024, 3, 1), "alice", "bob")
    assert (record.winner, record.comment) == (Winner.BLACK, "friendly")
