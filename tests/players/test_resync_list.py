"""players/resync.py: reading a national rank list and matching it to the players.

Pure functions: no database (the players are plain objects here).
"""

import gzip
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

from players.resync import Outcome, match_rank_list, parse_rank_list
from ratings.engine.ranks import Rank, parse_rank

TODAY = date(2024, 6, 30)
ON = date(2024, 6, 1)
EGD_LIST = Path("/work/shared/data/egd-ratinglists/allworld_lp_2013-07-17.html.gz")


@dataclass
class Someone:
    username: str
    full_name: str
    national_rank: Rank | None
    active: bool = True
    egd_pin: str = ""
    national_id: str = ""


def parse(text: str, default_date: date | None = ON):
    return parse_rank_list(text, default_date=default_date, today=TODAY)


def test_it_reads_comma_separated_lines_with_and_without_a_date():
    listed = parse("thandi, 3k, 2024-05-01\npieter,12k\n").listed

    assert [(r.line, r.name, str(r.rank), r.effective_date) for r in listed] == [
        (1, "thandi", "3k", date(2024, 5, 1)),
        (2, "pieter", "12k", ON),
    ]


def test_it_prefers_tabs_then_semicolons_so_names_may_contain_commas():
    tabbed = parse("Smith, John\t2d\t2024-01-02").listed
    semicolons = parse("van Wyk, Johan;15 kyu").listed

    assert (tabbed[0].name, tabbed[0].rank) == ("Smith, John", parse_rank("2d"))
    assert (semicolons[0].name, semicolons[0].rank) == ("van Wyk, Johan", parse_rank("15k"))


def test_it_reads_fields_from_the_right_so_an_unquoted_comma_stays_in_the_name():
    (row,) = parse("Smith, John, 1p, 2024-02-03").listed

    assert (row.name, str(row.rank), row.effective_date) == ("Smith, John", "1p", date(2024, 2, 3))


def test_each_line_has_its_own_separator():
    listed = parse("thandi;3k\npieter, 12k, 2024-05-01\nlerato\t5k").listed

    assert [(r.name, str(r.rank)) for r in listed] == [
        ("thandi", "3k"),
        ("pieter", "12k"),
        ("lerato", "5k"),
    ]


def test_it_splits_a_line_without_separators_on_spaces():
    listed = parse("thandi 3d\nLerato Mokoena 15 kyu 2024-03-04").listed

    assert [(r.name, str(r.rank), r.effective_date) for r in listed] == [
        ("thandi", "3d", ON),
        ("Lerato Mokoena", "15k", date(2024, 3, 4)),
    ]


def test_it_skips_a_header_blank_lines_and_comments():
    result = parse("Name;Rank;Date\n\n# from the national list\nthandi;3k\n")

    assert result.has_header
    assert [(r.line, r.name) for r in result.listed] == [(4, "thandi")]
    assert result.bad == []


def test_it_lists_bad_lines_with_their_number_and_reason():
    result = parse(
        "thandi,3x\npieter,12k,2024-13-01\nlerato,5k,01/02/2024\njohan,4k,2025-01-01\nnaledi\n,3k",
        default_date=ON,
    )

    assert [(bad.line, bad.reason) for bad in result.bad] == [
        (1, "'3x' is not a rank (expected e.g. 15k, 3d or 1p)"),
        (2, "'2024-13-01' is not a date (write it as YYYY-MM-DD)"),
        (3, "'01/02/2024' is not a date (write it as YYYY-MM-DD)"),
        (4, "the date 2025-01-01 is in the future"),
        (5, "expected a username or name, then a rank"),
        (6, "the username or name is empty"),
    ]
    assert result.listed == []


def test_a_line_without_a_date_needs_the_forms_date():
    result = parse("thandi,3k\npieter,2k,2024-01-01", default_date=None)

    assert [(bad.line, bad.reason) for bad in result.bad] == [
        (1, "no effective date: give one on the line or in the form's date field")
    ]
    assert [r.name for r in result.listed] == ["pieter"]


def test_only_the_first_line_can_be_a_header():
    result = parse("thandi,3k\nname,rank")

    assert not result.has_header
    assert [bad.line for bad in result.bad] == [2]


def test_it_matches_by_username_first_then_by_full_name():
    players = [
        Someone("thandi", "Thandi Nkosi", parse_rank("5k")),
        Someone("pieter", "thandi", parse_rank("9k")),  # a full name equal to a username
        Someone("lerato", "Lerato  Mokoena", parse_rank("12k")),
    ]

    preview = match_rank_list(parse("Thandi,4k\nLERATO MOKOENA,11k"), players)

    assert [(row.line, row.player.username, row.outcome) for row in preview.rows] == [
        (1, "thandi", Outcome.CHANGED),
        (2, "lerato", Outcome.CHANGED),
    ]
    assert [(str(r.current_rank), str(r.new_rank)) for r in preview.changes] == [
        ("5k", "4k"),
        ("12k", "11k"),
    ]


def test_it_flags_unknown_and_shared_names_and_lists_the_unchanged():
    players = [
        Someone("thandi", "Thandi Nkosi", parse_rank("5k")),
        Someone("js1", "John Smith", parse_rank("9k")),
        Someone("js2", "John Smith", parse_rank("3k")),
    ]

    preview = match_rank_list(parse("Nobody Here,2k\nJohn Smith,8k\nthandi,5k"), players)

    assert [(row.line, row.outcome) for row in preview.rows] == [
        (3, Outcome.UNCHANGED),
        (2, Outcome.SHARED_NAME),
        (1, Outcome.UNKNOWN),
    ]
    assert preview.rows[1].note == (
        "players js1, js2 share this name: list the one you mean by username"
    )
    assert preview.changes == []


def test_a_shared_name_is_matched_by_username():
    players = [
        Someone("js1", "John Smith", parse_rank("9k")),
        Someone("js2", "John Smith", parse_rank("3k")),
    ]

    preview = match_rank_list(parse("js2,2k"), players)

    assert [(row.player.username, row.outcome) for row in preview.rows] == [
        ("js2", Outcome.CHANGED)
    ]


def test_a_merged_record_does_not_share_its_name_with_the_kept_one():
    players = [
        Someone("js1", "John Smith", parse_rank("9k")),
        Someone("js1-old", "John Smith", parse_rank("9k"), active=False),
    ]

    preview = match_rank_list(parse("John Smith,8k\njs1-old,8k"), players)

    assert [(row.line, row.player.username, row.outcome) for row in preview.rows] == [
        (1, "js1", Outcome.CHANGED),
        (2, "js1-old", Outcome.INACTIVE),
    ]


def test_a_player_listed_twice_is_flagged_on_every_line_and_not_applied():
    players = [Someone("thandi", "Thandi Nkosi", parse_rank("5k"))]

    preview = match_rank_list(parse("thandi,4k\nThandi Nkosi,3k"), players)

    assert [(row.line, row.outcome) for row in preview.rows] == [
        (1, Outcome.REPEATED),
        (2, Outcome.REPEATED),
    ]
    assert preview.rows[0].note == "thandi is on lines 1, 2: list them once"


def test_a_player_without_a_national_rank_changes_from_nothing():
    preview = match_rank_list(parse("thandi,4k"), [Someone("thandi", "T", None)])

    assert [(row.current_rank, str(row.new_rank)) for row in preview.changes] == [(None, "4k")]


def test_the_preview_collects_the_dates_and_counts_of_the_changes():
    players = [Someone(name, name, parse_rank("5k")) for name in ("a", "b", "c")]

    preview = match_rank_list(parse("a,4k,2024-01-01\nb,4k,2024-02-01\nc,5k\nd,3k\nbad"), players)

    assert preview.effective_dates == [date(2024, 1, 1), date(2024, 2, 1)]
    counts = preview.counts()
    assert (counts[Outcome.CHANGED], counts[Outcome.UNCHANGED]) == (2, 1)
    assert (counts[Outcome.UNKNOWN], counts[Outcome.BAD]) == (1, 1)
    assert [row.outcome for row in preview.flagged] == [Outcome.BAD]


@pytest.mark.skipif(not EGD_LIST.exists(), reason=f"{EGD_LIST} is not on this machine")
def test_it_reads_names_and_grades_of_a_real_national_list():
    """The first 500 players of an EGD world list (real names: accents, apostrophes,
    hyphens, commas), written as a committee would export them: name;grade."""
    rows = []
    with gzip.open(EGD_LIST, "rt", encoding="latin-1") as text:
        for line in text:
            fields = line.split()
            # PIN, name..., country, club, grade, P&D, GoR, NT, last appearance
            if len(fields) >= 9 and fields[0].isdigit():
                rows.append((" ".join(fields[1:-7]), fields[-5]))
            if len(rows) == 500:
                break
    text = "Name;Grade\n" + "\n".join(f"{name};{grade}" for name, grade in rows)

    result = parse(text)

    assert result.has_header
    assert result.bad == []
    assert [(r.name, str(r.rank)) for r in result.listed] == [
        (name, str(parse_rank(grade))) for name, grade in rows
    ]


def test_of_a_long_list_the_first_hundred_unknown_names_have_a_row_the_rest_are_counted():
    text = "\n".join(f"Stranger {n},{n % 20 + 1}k" for n in range(250)) + "\nthandi,4k"
    thandi = Someone("thandi", "Thandi Nkosi", parse_rank("5k"))

    preview = match_rank_list(parse(text), [thandi])

    unknown = preview.of(Outcome.UNKNOWN)
    assert [row.line for row in unknown] == list(range(1, 101))
    assert preview.counts()[Outcome.UNKNOWN] == 250
    assert [row.player for row in preview.changes] == [thandi]
