"""ratings/engine/formats/ranklists.py: the national rank lists read without Django, in
the engine's English (the site translates the messages where it shows them)."""

from __future__ import annotations

import gzip
import io
import zipfile
from datetime import date
from decimal import Decimal

import pytest

from ratings.engine.formats.ranklists import (
    AGA,
    EGD,
    SIMPLE,
    ListFormatError,
    decode,
    is_aga,
    is_egd,
    parse_simple_list,
    read_aga,
    read_egd,
    read_rank_list,
    unpack,
)
from ratings.engine.messages import Message
from tests.engine.test_egd_format import SHARED_DATA as DATA

EGD_LISTS = sorted((DATA / "egd-ratinglists").glob("allworld_lp_*.html.gz"))
AGA_LISTS = sorted((DATA / "aga-tdlist").glob("tdlista_*.txt.gz"))

EGD_ROWS = """\
(27 Dec 2018)
 13633719  Aagren Thomas                         SE  Upp     6k   --   1484     1  T040529C
 18937182  Da_Silva Thiago                       BR  xxxx    1d   --   2090     0
 10949763  Zyzak Andrzej                         PL  Wodz    2d   --   2135   133  T160305D
 10949764  Broken line
"""


def _lines(data: bytes) -> list[str]:
    unpacked, _container = unpack(data)
    return decode(unpacked).splitlines()


def test_the_egd_list_reads_to_listed_ranks_with_its_own_date():
    lines = EGD_ROWS.splitlines()
    assert is_egd(lines)
    result = read_egd(lines, None, list_date_first=False)
    assert result.format == EGD
    assert result.list_date == date(2018, 12, 27)
    assert [(row.pin, row.name, str(row.rank), row.rating) for row in result.listed] == [
        ("13633719", "Aagren Thomas", "6k", Decimal(1484)),
        ("18937182", "Da Silva Thiago", "1d", Decimal(2090)),
        ("10949763", "Zyzak Andrzej", "2d", Decimal(2135)),
    ]
    (bad,) = result.bad
    assert bad.line == 5
    assert isinstance(bad.reason, Message)
    assert bad.reason.template == "not an EGD line (%(columns)s)"


def test_a_zip_of_two_files_is_refused_with_an_english_message_the_site_translates():
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as archive:
        archive.writestr("a.txt", "x")
        archive.writestr("b.txt", "y")
    with pytest.raises(ListFormatError) as raised:
        unpack(packed.getvalue())
    message = raised.value.message
    assert isinstance(message, Message)
    assert message.template == "The zip file holds %(names)s: it should hold the one list only."
    assert message == "The zip file holds a.txt, b.txt: it should hold the one list only."


def test_the_aga_tdlist_without_a_date_is_refused_in_english():
    with pytest.raises(ListFormatError) as raised:
        read_aga(["Doe, John\t123\tFull\t-3.5\t1/1/2025\tNYGC"], None)
    assert raised.value.message == (
        "The AGA TDList has no date of its own: give the effective date."
    )


def test_gzipped_latin1_text_unpacks_and_decodes():
    text = "Ångström, Jörg\t7\tFull\t2.1\t\tXX\n"
    lines = _lines(gzip.compress(text.encode("latin-1")))
    assert lines == [text.rstrip("\n")]
    assert is_aga(lines)


@pytest.mark.skipif(not EGD_LISTS, reason=f"no EGD rating lists in {DATA / 'egd-ratinglists'}")
def test_every_player_of_the_latest_real_egd_list_is_read():
    lines = _lines(EGD_LISTS[-1].read_bytes())
    result = read_egd(lines, None, list_date_first=False)
    assert result.list_date is not None
    assert len(result.listed) > 10_000
    assert not result.bad


@pytest.mark.skipif(not AGA_LISTS, reason=f"no AGA TDLists in {DATA / 'aga-tdlist'}")
def test_every_line_of_the_latest_real_aga_tdlist_is_read():
    lines = _lines(AGA_LISTS[-1].read_bytes())
    assert is_aga(lines[:200])
    result = read_aga(lines, date(2025, 1, 1))
    assert result.format == AGA
    assert len(result.listed) + result.unrated > 1000
    assert not result.bad


def test_the_simple_list_reads_names_ranks_and_dates_and_says_why_a_line_is_bad():
    text = "name, rank, date\nSmith, John, 3d, 2024-05-01\nDoe 15 kyu\nBob, 3q\n" + "x" * 1500
    result = read_rank_list(text, default_date=date(2024, 6, 1), today=date(2024, 6, 30))
    assert result.format == SIMPLE
    assert result.has_header
    assert [(row.name, str(row.rank), row.effective_date) for row in result.listed] == [
        ("Smith, John", "3d", date(2024, 5, 1)),
        ("Doe", "15k", date(2024, 6, 1)),
    ]
    assert [bad.line for bad in result.bad] == [4, 5]
    too_long = result.bad[1].reason
    assert isinstance(too_long, Message)
    assert too_long.values == {"length": 1500, "most": 1000}  # the site groups the digits


def test_parse_simple_list_alone_leaves_the_format_simple():
    result = parse_simple_list("ann 1d", default_date=date(2024, 6, 1), today=date(2024, 6, 30))
    assert result.format == SIMPLE
    assert [row.name for row in result.listed] == ["ann"]
