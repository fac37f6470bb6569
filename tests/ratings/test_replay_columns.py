"""The replay reads a game's columns by their names in ``GAME_RECORD_COLUMNS`` (an
adjustment's in ``ADJUSTMENT_RECORD_COLUMNS``)."""

from datetime import date
from fractions import Fraction

import pytest

from players.services.games import record_sheet_submit
from ratings import selectors
from ratings.engine.records import GameRecord, Status, Winner
from ratings.selectors import replay_records
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_games():
    vera = factories.volunteer()
    ann, ben = factories.player("ann", "2d"), factories.player("ben", "3k")
    open_ = factories.tournament("cape-open", egf_class="B")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", date(2024, 3, 1), comment="first"),
            factories.game(
                ben,
                ann,
                "B",
                date(2024, 3, 2),
                handicap=2,
                komi=0.5,
                board_size=13,
                time_minutes=45,
                tournament=open_,
                round=3,
                comment="second",
            ),
        ],
    )
    factories.adjustment(ben, date(2024, 3, 2), "1k", user=vera, comment="reset")


def replayed() -> list[GameRecord]:
    records, _ids = replay_records("sagc")
    return list(records)


def test_a_replayed_game_carries_each_column_of_its_game(two_games):
    first, reset, second = replayed()
    assert (first.date, first.white, first.black, first.winner, first.comment) == (
        date(2024, 3, 1),
        "ann",
        "ben",
        Winner.WHITE,
        "first",
    )
    assert (first.tournament, first.tournament_class, first.time_minutes) == ("", "A", None)
    assert second == GameRecord(
        date=date(2024, 3, 2),
        white="ben",
        black="ann",
        winner=Winner.BLACK,
        handicap=2,
        komi=Fraction(1, 2),
        status=Status.NORMAL,
        board_size=13,
        tournament="cape-open",
        tournament_class="B",
        round=3,
        time_minutes=Fraction(45),
        comment="second",
        seq=second.seq,
    )
    assert second.seq > first.seq
    assert (reset.status, reset.date, reset.white, str(reset.white_rank), reset.comment) == (
        Status.ADJUSTMENT,
        date(2024, 3, 2),
        "ben",
        "1k",
        "reset",
    )


def test_the_replay_reads_the_columns_whatever_their_order(two_games, monkeypatch):
    in_order = replayed()
    for columns in ("GAME_RECORD_COLUMNS", "ADJUSTMENT_RECORD_COLUMNS"):
        monkeypatch.setattr(selectors, columns, tuple(reversed(getattr(selectors, columns))))
    assert replayed() == in_order
