"""Declared ratings only: OpenGotha's INI ratings (filled in from nothing) and ratings
more than a grade from the rank, from no federation, are no declared GoR; the player
starts from their rank."""

from __future__ import annotations

from fractions import Fraction

import pytest

from ratings.engine.formats import FilePlayer, declared_rating, rating_not_declared
from ratings.engine.formats.opengotha import read_opengotha, write_opengotha
from ratings.engine.ranks import parse_rank
from tests.engine.test_egd_format import SHARED_DATA

CONGRESO = SHARED_DATA / "opengotha-2020-online" / "20201010144608_congreso2020.xml"


def player(rank: str, rating: int | None, origin: str = "") -> FilePlayer:
    return FilePlayer(1, "Mokoena", "Thabo", parse_rank(rank), rating=rating, rating_origin=origin)


@pytest.mark.parametrize(
    ("rank", "rating", "origin", "declared"),
    [
        ("15k", 2100, "INI", None),  # Congreso 2020: OpenGotha's 2100 for everyone
        ("1d", 2100, "INI", None),  # INI even where it agrees: computed, not declared
        ("15k", 2100, "EGF", Fraction(2100)),  # a federation's rating is declared
        ("3k", 1352, "EGF", Fraction(1352)),
        ("2k", 1650, "FFG", Fraction(1650)),
        ("3d", 2310, "MAN", Fraction(2310)),  # the organiser's, within a grade
        ("3d", 2249, "", Fraction(2249)),
        ("3k", 1620, "MAN", None),  # the organiser's, two grades off
        ("10k", 2100, "", None),
        ("15k", -2950, "EGF", None),  # OpenGotha's "no rating"
        ("15k", None, "", None),
    ],
)
def test_only_a_federations_rating_or_one_that_agrees_with_the_rank_is_declared(
    rank, rating, origin, declared
):
    assert declared_rating(player(rank, rating, origin)) == declared


def test_the_reason_a_rating_is_not_declared_names_it():
    assert rating_not_declared(player("10k", 2100, "MAN")) == (
        "GoR 2100 contradicts the rank 10k (GoR 1100) by more than a grade: not a declaration"
    )
    assert "INI" in rating_not_declared(player("1d", 2100, "INI"))
    assert rating_not_declared(player("1d", 2100, "EGF")) == ""


def test_the_rating_origin_is_read_and_written_back():
    text = write_opengotha(
        read_opengotha(
            '<Tournament><Players><Player name="A" firstName="B" rank="5K" rating="2100" '
            'ratingOrigin="INI"/></Players><TournamentParameterSet><GeneralParameterSet '
            'beginDate="2024-01-01" endDate="2024-01-01" name="T"/></TournamentParameterSet>'
            "</Tournament>"
        )
    )
    again = read_opengotha(text)
    assert again.players[0].rating_origin == "INI"
    assert declared_rating(again.players[0]) is None


@pytest.mark.skipif(not CONGRESO.is_file(), reason=f"{CONGRESO} not found")
def test_congreso_2020_players_start_from_their_ranks_not_opengothas_2100():
    # before: 165 of 167 players declared GoR 2100 (INI) whatever their rank
    file = read_opengotha(CONGRESO.read_bytes(), CONGRESO.name)
    assert sum(p.rating == 2100 and p.rating_origin == "INI" for p in file.players) == 165
    assert all(entry.declared_rating is None for entry in file.entries().values())
