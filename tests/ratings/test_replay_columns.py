"""The replay reads a game's columns by their names in ``GAME_RECORD_COLUMNS`` (an
adjustment's in ``ADJUSTMENT_RECORD_COLUMNS``), and counts the records it streams."""

from datetime import date
from fractions import Fraction

import pytest

from players.models import Game
from players.services.games import game_void, record_sheet_submit
from ratings import selectors
from ratings.engine.records import GameRecord, Status, Winner
from ratings.selectors import ReplayKey, replay_records
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


def test_the_replay_count_is_the_records_streamed_from_a_place_or_from_the_start():
    vera = factories.volunteer()
    ann, ben, cat = (factories.player(name, "5k") for name in ("ann", "ben", "cat"))
    cup = factories.tournament("winter-cup")
    games = [
        factories.game(ann, ben, "W", date(2024, 6, 1)),
        factories.game(ben, cat, "B", date(2024, 6, 8)),
        factories.game(cat, ann, "W", date(2024, 6, 8), tournament=cup, round=1),
        factories.game(ann, cat, "B", date(2024, 6, 8), tournament=cup, round=2),
        factories.game(ben, ann, "W", date(2024, 6, 15)),
    ]
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    voided = Game.objects.get(date=date(2024, 6, 15))
    game_void(user=vera, game_id=voided.pk, version=voided.version, reason="entered twice")
    factories.adjustment(cat, date(2024, 6, 8), "4k", user=vera)
    factories.adjustment(ben, date(2024, 6, 9), "6k", user=vera, algorithm="anchor", value=-6)
    every = [record.order_key for record in replay_records("anchor")[0]]
    assert len(every) == 6

    for place in [*every, (date(2024, 6, 8), 0, 0), (date(2024, 6, 20), 0, 0)]:
        start = ReplayKey(*place)
        streamed = list(replay_records("anchor", start)[0])
        assert selectors.replay_count("anchor", start) == len(streamed), place
    assert selectors.replay_count("anchor") == len(every)
