"""Ranks as integer stones, their parsing and display (SPEC section 1, ratings/engine/ranks.py)."""

from __future__ import annotations

import pytest

from ratings.engine.ranks import Rank, RankError, parse_rank


@pytest.mark.parametrize(
    ("text", "stones"),
    [("30k", -30), ("15k", -15), ("1k", -1), ("1d", 0), ("3d", 2), ("9d", 8), ("50k", -50)],
)
def test_a_rank_is_stored_as_stones_with_1d_at_zero(text, stones):
    assert parse_rank(text) == Rank(stones)


@pytest.mark.parametrize(
    "text",
    ["15k", "15 kyu", "15 KYU", "15Kyu", " 15k ", "15 K", "\t15 kyu\n"],
)
def test_kyu_ranks_are_read_in_every_spelling_the_spec_allows(text):
    assert parse_rank(text) == Rank(-15)


@pytest.mark.parametrize("text", ["3d", "3 dan", "3 DAN", "3Dan", " 3D ", "3 d"])
def test_dan_ranks_are_read_in_every_spelling_the_spec_allows(text):
    assert parse_rank(text) == Rank(2)


@pytest.mark.parametrize("number", range(1, 10))
def test_professional_ranks_sit_at_9d_on_the_amateur_scale_and_keep_their_grade(number):
    rank = parse_rank(f"{number}p")
    assert (rank.stones, rank.pro, rank.is_pro) == (8, number, True)
    assert str(rank) == f"{number}p"


@pytest.mark.parametrize(
    "text", ["0k", "51k", "10d", "0d", "0p", "10p", "abc", "", "15", "k", "1.5k", "-3k", "3 dans"]
)
def test_anything_else_is_a_validation_error_naming_the_bad_value(text):
    with pytest.raises(RankError) as raised:
        parse_rank(text)
    assert f"'{text.strip()}'" in str(raised.value)


def test_the_error_for_an_out_of_range_grade_says_which_ranks_exist():
    with pytest.raises(RankError, match="kyu ranks run from 50k to 1k"):
        parse_rank("51k")
    with pytest.raises(RankError, match="dan ranks run from 1d to 9d"):
        parse_rank("10 dan")
    with pytest.raises(RankError, match="professional ranks run from 1p to 9p"):
        parse_rank("10p")


def test_every_rank_displays_as_15k_3d_or_2p_and_reads_back_the_same():
    texts = [f"{n}k" for n in range(50, 0, -1)] + [f"{n}d" for n in range(1, 10)]
    texts += [f"{n}p" for n in range(1, 10)]
    for text in texts:
        assert str(parse_rank(text)) == text
    assert str(parse_rank(" 15 KYU ")) == "15k"
    assert str(parse_rank("3 dan")) == "3d"


def test_ranks_order_by_strength_with_professionals_above_9d():
    ordered = [parse_rank(text) for text in ("50k", "30k", "1k", "1d", "9d", "1p", "9p")]
    assert ordered == sorted(reversed(ordered))
    assert parse_rank("1p") > parse_rank("9d")


def test_entry_grades_below_30k_start_at_30k_and_professionals_at_9d():
    assert parse_rank("45k").floored() == Rank(-30)
    assert parse_rank("30k").floored() == Rank(-30)
    assert parse_rank("12k").floored() == Rank(-12)
    assert parse_rank("4p").floored() == Rank(8)
    assert parse_rank("45k").floored(-40) == Rank(-40)


def test_the_true_entry_grade_below_the_floor_is_kept_and_shown():
    rank = parse_rank("45k")
    assert rank.stones == -45
    assert str(rank) == "45k"


@pytest.mark.parametrize(("stones", "pro"), [(9, 0), (-51, 0), (7, 1), (8, 10), (8, -1)], ids=str)
def test_a_rank_outside_the_scale_cannot_be_built(stones, pro):
    with pytest.raises(RankError):
        Rank(stones, pro)


def test_kyu_and_dan_are_told_apart():
    assert not parse_rank("1k").is_dan
    assert parse_rank("1d").is_dan
    assert parse_rank("2p").is_dan
