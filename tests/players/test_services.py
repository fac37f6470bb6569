"""The write services: one transaction each, audited, marking the right dirty date."""

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from players.models import Adjustment, AuditEntry, Game, Player
from players.services.adjustments import ResyncChange, adjustment_apply, resync_apply, resync_revert
from players.services.base import ConcurrentEditError, DuplicateGamesError, ServiceError
from players.services.games import game_correct, game_void, record_sheet_submit
from players.services.imports import games_import
from ratings.algorithms import maintained_algorithms
from ratings.engine.formats.games import read_games
from ratings.engine.ranks import parse_rank
from ratings.models import RecomputeState
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice():
    return factories.player("alice", "5k")


@pytest.fixture
def bob():
    return factories.player("bob", "8k")


def dirty(algorithm: str = "sagc"):
    return RecomputeState.objects.get(algorithm=algorithm).dirty_from


def test_it_stores_a_whole_sheet_with_consecutive_entry_numbers(vera, alice, bob):
    result = record_sheet_submit(
        user=vera,
        games=[
            factories.game(alice, bob, "W", date(2024, 3, 1)),
            factories.game(bob, alice, "B", date(2024, 3, 2), handicap=2),
        ],
    )
    games = list(Game.objects.order_by("seq"))
    assert [g.record_sheet_id for g in games] == [result.sheet.pk] * 2
    assert games[1].seq == games[0].seq + 1
    assert games[1].komi == Decimal("0.5"), "the default komi with handicap is 0.5"
    assert games[0].komi == Decimal("6.5")
    assert AuditEntry.objects.filter(action="game_create").count() == 2


def test_it_stores_nothing_when_one_game_of_the_sheet_is_bad(vera, alice, bob):
    with pytest.raises(ServiceError) as error:
        record_sheet_submit(
            user=vera,
            games=[
                factories.game(alice, bob, "W"),
                factories.game(alice, alice, "B"),
            ],
        )
    assert (2, "black", "a player cannot play themselves") in error.value.errors
    assert Game.objects.count() == 0
    assert AuditEntry.objects.count() == 0


def test_it_refuses_a_game_in_the_future(vera, alice, bob):
    tomorrow = timezone.localdate() + timedelta(days=1)
    with pytest.raises(ServiceError) as error:
        record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W", tomorrow)])
    assert error.value.errors[0][1] == "date"
    assert not Game.objects.exists()


def test_it_refuses_a_game_dated_before_1900_even_for_players_with_no_games(vera, alice, bob):
    with pytest.raises(ServiceError) as error:
        record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W", date(1, 1, 1))])
    assert error.value.errors == [
        (1, "date", "0001-01-01 is before 1900-01-01, the earliest date a game can have")
    ]
    assert not Game.objects.exists()


def test_it_allows_but_flags_a_game_before_the_club_was_founded(vera, bob):
    club = factories.club(founded=date(2024, 1, 1))
    carol = factories.player("carol", "3k", club=club)
    result = record_sheet_submit(
        user=vera, games=[factories.game(carol, bob, "W", date(2023, 5, 1))]
    )
    assert len(result.games) == 1
    assert "before Cape Town Go Club was founded" in result.warnings[0]


def test_it_refuses_a_duplicate_unless_confirmed(vera, alice, bob):
    record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W")])
    with pytest.raises(DuplicateGamesError):
        record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W")])
    record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W")], allow_duplicates=True)
    assert Game.objects.count() == 2


def test_the_same_game_with_the_colours_swapped_is_a_duplicate(vera, alice, bob):
    stored = record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W")])

    with pytest.raises(DuplicateGamesError) as refused:
        record_sheet_submit(user=vera, games=[factories.game(bob, alice, "B")])

    assert [problem.message for problem in refused.value.errors] == [
        f"game 1 (2024-03-01, bob - alice, winner B) is already on file as game "
        f"{stored.games[0].pk}"
    ]


def test_swapped_colours_with_the_other_player_winning_are_another_game(vera, alice, bob):
    record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W")])

    record_sheet_submit(user=vera, games=[factories.game(bob, alice, "W")])

    assert Game.objects.count() == 2


def test_a_game_a_year_away_from_a_players_games_asks_for_confirmation(vera, alice, bob):
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(alice, bob, "W", date(2024, 3, 1)),
            factories.game(alice, bob, "B", date(2024, 9, 1)),
        ],
    )
    carol = factories.player("carol", "3k")
    early = factories.game(carol, alice, "W", date(2014, 3, 1))
    late_enough = factories.game(bob, carol, "W", date(2025, 8, 31))

    with pytest.raises(DuplicateGamesError) as refused:
        record_sheet_submit(user=vera, games=[late_enough, early])

    assert [problem.message for problem in refused.value.errors] == [
        "game 2: 2014-03-01 is more than a year before alice's first game (2024-03-01)"
    ]
    record_sheet_submit(user=vera, games=[late_enough, early], allow_duplicates=True)
    assert Game.objects.count() == 4


def test_a_new_game_marks_every_algorithm_dirty_from_its_date(
    vera, alice, bob, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 5))])
    assert dirty("sagc") == date(2024, 3, 5)
    assert dirty("egf-2021") == date(2024, 3, 5)
    assert len(callbacks) == len(maintained_algorithms()), "one recompute task per algorithm"


def test_the_recompute_is_queued_only_after_a_successful_commit(
    vera, alice, django_capture_on_commit_callbacks
):
    with (
        django_capture_on_commit_callbacks(execute=False) as callbacks,
        pytest.raises(ServiceError),
    ):
        record_sheet_submit(user=vera, games=[factories.game(alice, alice, "W")])
    assert callbacks == []


def test_back_dating_marks_the_earlier_of_the_two_dates(
    vera, alice, bob, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        result = record_sheet_submit(
            user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 5))]
        )
    assert dirty() is None, "the in-process recompute ran on commit"
    stored = result.games[0]
    with django_capture_on_commit_callbacks(execute=False):
        game_correct(
            user=vera,
            game_id=stored.pk,
            version=stored.version,
            changes=factories.game(alice, bob, "W", date(2024, 1, 10)),
        )
    assert dirty() == date(2024, 1, 10)
    corrected = Game.objects.get(pk=stored.pk)
    assert corrected.seq == stored.seq, "an edit keeps the entry number"
    assert corrected.version == stored.version + 1


def test_a_correction_to_year_one_is_refused_even_after_a_second_look(vera, alice, bob):
    stored = record_sheet_submit(
        user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 5))]
    ).games[0]
    with pytest.raises(ServiceError) as error:
        game_correct(
            user=vera,
            game_id=stored.pk,
            version=stored.version,
            changes=factories.game(alice, bob, "W", date(1, 1, 1)),
            allow_outliers=True,
        )
    assert error.value.errors == [
        (None, "date", "0001-01-01 is before 1900-01-01, the earliest date a game can have")
    ]
    assert Game.objects.get(pk=stored.pk).date == date(2024, 3, 5)


def test_moving_a_game_later_marks_its_old_date(
    vera, alice, bob, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        stored = record_sheet_submit(
            user=vera, games=[factories.game(alice, bob, "W", date(2024, 3, 5))]
        ).games[0]
    with django_capture_on_commit_callbacks(execute=False):
        game_correct(
            user=vera,
            game_id=stored.pk,
            version=1,
            changes=factories.game(alice, bob, "W", date(2024, 6, 1)),
        )
    assert dirty() == date(2024, 3, 5)


def test_a_tournament_game_marks_the_tournament_start_for_block_algorithms(vera, alice, bob):
    from players.models import Tournament

    open_ = Tournament.objects.create(code="open", name="Open")
    carol = factories.player("carol", "6k")
    record_sheet_submit(
        user=vera,
        games=[factories.game(alice, bob, "W", date(2024, 5, 1), tournament=open_, round=1)],
    )
    RecomputeState.objects.update(dirty_from=None)
    record_sheet_submit(
        user=vera,
        games=[factories.game(carol, bob, "B", date(2024, 5, 2), tournament=open_, round=2)],
    )
    assert dirty("sagc") == date(2024, 5, 2)
    assert dirty("egf-2021") == date(2024, 5, 1)
    assert dirty("french") == date(2024, 5, 1)


def test_a_second_correction_from_a_stale_page_is_refused(vera, alice, bob):
    stored = record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W")]).games[0]
    game_correct(user=vera, game_id=stored.pk, version=1, changes=factories.game(alice, bob, "B"))
    with pytest.raises(ConcurrentEditError):
        game_correct(
            user=vera, game_id=stored.pk, version=1, changes=factories.game(alice, bob, "D", komi=7)
        )
    assert Game.objects.get(pk=stored.pk).winner == "B"


def test_voiding_keeps_the_game_and_records_who_and_why(vera, alice, bob):
    stored = record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W")]).games[0]
    game_void(user=vera, game_id=stored.pk, version=1, reason="entered twice")
    voided = Game.objects.get(pk=stored.pk)
    assert voided.is_void and voided.voided_by == vera and voided.void_reason == "entered twice"
    entry = AuditEntry.objects.get(action="game_void")
    assert entry.before["voided"] is False and entry.after["voided"] is True
    assert Player.objects.get(pk=alice.pk).last_updated is None


def test_last_updated_is_the_date_of_the_most_recently_entered_game(vera, alice, bob):
    record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W", date(2024, 5, 1))])
    record_sheet_submit(user=vera, games=[factories.game(alice, bob, "B", date(2024, 2, 1))])
    assert Player.objects.get(pk=alice.pk).last_updated == date(2024, 2, 1)


def test_an_adjustment_for_one_algorithm_marks_only_that_one(alice):
    connie = factories.committee_member()
    RecomputeState.objects.update(dirty_from=None)
    adjustment_apply(
        user=connie,
        player=alice,
        date=date(2024, 4, 1),
        new_rank=parse_rank("4k"),
        algorithm="anchor",
    )
    assert dirty("anchor") == date(2024, 4, 1)
    assert dirty("sagc") is None


def test_a_resync_is_one_batch_that_reverts_as_a_whole(alice, bob):
    connie = factories.committee_member()
    batch = resync_apply(
        user=connie,
        changes=[
            ResyncChange(alice, parse_rank("3k")),
            ResyncChange(bob, parse_rank("9k")),
        ],
        effective_date=date(2024, 6, 1),
        note="SAGA list of June",
    )
    assert Adjustment.objects.filter(resync_batch=batch, voided_at=None).count() == 2
    assert Player.objects.get(pk=alice.pk).national_rank == parse_rank("3k")
    resync_revert(user=connie, batch_id=batch.pk)
    assert Adjustment.objects.filter(resync_batch=batch, voided_at=None).count() == 0
    assert Player.objects.get(pk=alice.pk).national_rank == parse_rank("5k")
    with pytest.raises(ServiceError):
        resync_revert(user=connie, batch_id=batch.pk)


def test_a_jigo_with_a_half_point_komi_is_refused_at_the_winner_of_its_row(vera, alice, bob):
    with pytest.raises(ServiceError) as refused:
        record_sheet_submit(
            user=vera,
            games=[
                factories.game(alice, bob, "W"),
                factories.game(alice, bob, "D", date(2024, 3, 2), komi=6.5),
            ],
        )

    assert refused.value.errors == [
        (2, "winner", "a jigo (D) needs an integer komi; komi 6.5 cannot end in a jigo")
    ]
    assert Game.objects.count() == 0


def test_a_jigo_with_an_integer_komi_is_stored(vera, alice, bob):
    stored = record_sheet_submit(user=vera, games=[factories.game(alice, bob, "D", komi=7)]).games[
        0
    ]

    assert (stored.winner, stored.komi) == ("D", Decimal("7"))


def test_a_correction_to_a_jigo_with_a_half_point_komi_is_refused(vera, alice, bob):
    stored = record_sheet_submit(user=vera, games=[factories.game(alice, bob, "W")]).games[0]

    with pytest.raises(ServiceError) as refused:
        game_correct(
            user=vera, game_id=stored.pk, version=1, changes=factories.game(alice, bob, "D")
        )

    ((_, field_name, message),) = refused.value.errors
    assert (field_name, message) == (
        "winner",
        "a jigo (D) needs an integer komi; komi 6.5 cannot end in a jigo",
    )
    assert Game.objects.get(pk=stored.pk).winner == "W"


def test_an_imported_jigo_with_a_half_point_komi_is_refused_at_its_line(vera):
    with pytest.raises(ServiceError) as refused:
        games_import(
            user=vera,
            records=read_games(
                "date,white,black,white_rank,black_rank,winner,komi\n"
                "2024-03-01,ann,ben,3k,4k,D,6.5\n"
                "2024-03-02,ann,ben,3k,4k,D,7\n"
            ).records,
        )

    assert refused.value.errors == [
        ("line 2", "winner", "a jigo (D) needs an integer komi; komi 6.5 cannot end in a jigo")
    ]
    assert not Player.objects.filter(username="ann").exists()


def test_an_imported_adjustment_to_a_value_of_zero_is_stored_as_zero(vera):
    games_import(
        user=vera,
        records=read_games(
            "date,white,black,white_rank,black_rank,winner,status,value,algorithm\n"
            "2024-03-01,ann,ben,3k,4k,W,,,\n"
            "2024-03-02,ann,ann,3k,,,adjustment,0,sagc\n"
        ).records,
    )

    adjustment = Adjustment.objects.get(player__username="ann")
    assert (adjustment.new_rank, adjustment.value) == (parse_rank("3k"), Decimal(0))
