"""The staged writes of a recompute on SQLite (ratings/recompute/staging.py)."""

from datetime import date

import pytest
from django.db import OperationalError, connection, transaction

from players.models import Player
from ratings.models import RatingHistory, RatingSnapshot
from ratings.recompute import replay, staging
from tests import factories

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "sqlite", reason="writes are staged on SQLite only"),
]


def staged_tables() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_temp_master WHERE type = 'table'")
        return sorted(name for (name,) in cursor.fetchall() if name.startswith("staged_"))


def test_a_recompute_drops_every_table_it_staged(monkeypatch):
    discarded: list[str] = []
    discard = staging.Writes.discard

    def recording(writes: staging.Writes) -> None:
        discarded.extend(writes.tables.values())
        discard(writes)  # raises if a statement of the connection were still running

    monkeypatch.setattr(staging.Writes, "discard", recording)
    # Rows held in memory go through no table (tested below): here every row is staged.
    monkeypatch.setattr(replay, "_HISTORY_HELD", 0)
    monkeypatch.setattr(replay, "_CHECKPOINTS_HELD", 0)
    alice, bob, carol = (factories.player(name, "10k") for name in ("alice", "bob", "carol"))
    vera = factories.volunteer()
    factories.play(vera, factories.game(alice, bob, "W", date(2024, 3, 1)))
    # Back-dated: the replay resumes from a checkpoint and rewrites the month ends.
    factories.play(
        vera,
        factories.game(alice, carol, "B", date(2024, 4, 5)),
        factories.game(bob, carol, "W", date(2024, 2, 20)),
    )

    assert "staged_ratings_ratinghistory_0" in discarded
    assert RatingHistory.objects.filter(game__date=date(2024, 2, 20)).exists()
    assert staged_tables() == []


def test_a_staged_table_cannot_be_dropped_while_any_statement_of_the_connection_runs():
    # Why two requests must not share a connection at once: a read of another table,
    # not read to its end, made the recompute's drop fail (tests/live_server.py).
    factories.player("alice")
    factories.player("bob")
    writes = staging.Writes(staged=True)
    with writes.rows(RatingHistory, ["algorithm", "position"]):
        pass
    reading = connection.cursor()
    reading.execute(f"SELECT id FROM {Player._meta.db_table}")
    reading.fetchone()

    with pytest.raises(OperationalError, match="database table is locked"):
        writes.discard()

    reading.close()
    assert staged_tables() == ["staged_ratings_ratinghistory_0"]
    again = staging.Writes(staged=True)
    with again.rows(RatingHistory, ["algorithm", "position"]):
        pass
    again.discard()
    assert staged_tables() == []


def test_a_staged_table_left_behind_is_dropped_before_it_is_staged_again():
    left = staging.Writes(staged=True)
    with left.rows(RatingHistory, ["algorithm", "position"]):
        pass
    table = left.staged_table(RatingHistory)
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO temp.{table} VALUES ('sagc', 1), ('sagc', 2)")

    again = staging.Writes(staged=True)
    with again.rows(RatingHistory, ["algorithm", "position"]):
        pass

    assert again.staged_table(RatingHistory) == table
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM temp.{table}")
        assert cursor.fetchone() == (0,)
    again.discard()


def history_row(position: int) -> tuple:
    """A history row at ``position`` (a committee reset of a player made for it)."""
    player = factories.player(f"p{position}")
    values = {
        **dict.fromkeys(replay.HISTORY_COLUMNS, 0),
        **{"algorithm": "sagc", "position": position, "player_id": player.pk},
        **{"opponent_id": player.pk, "game_id": None, "adjustment_id": None},
        **{"date": date(2024, 1, 1), "colour": "", "factors": "{}", "skipped": ""},
    }
    return tuple(values[column] for column in replay.HISTORY_COLUMNS)


def held_rows(writes: staging.Writes, hold: int = 4) -> None:
    """Stage history positions 1 to 4 through a writer that holds up to ``hold`` rows,
    sending after each row as the replay does after each fetch."""
    rows = [history_row(position) for position in range(1, 5)]
    writer = writes.rows(
        RatingHistory, replay.HISTORY_COLUMNS, prefix=staging.Prefix("position"), hold=hold
    )
    with writer:
        for row in rows:
            writer.add(row)
            writer.send()


def stored_positions() -> list[int]:
    return sorted(RatingHistory.objects.values_list("position", flat=True))


def test_a_few_staged_rows_are_held_and_written_once_straight_into_their_table():
    writes = staging.Writes(staged=True)
    held_rows(writes)
    assert staged_tables() == []
    assert stored_positions() == []  # nothing written before the writes are applied

    with transaction.atomic():
        writes.apply()

    assert stored_positions() == [1, 2, 3, 4]
    assert staged_tables() == []


def test_a_prefix_of_held_rows_writes_those_before_its_position():
    writes = staging.Writes(staged=True)
    held_rows(writes)

    with transaction.atomic():
        writes.apply(prefix=3)

    assert stored_positions() == [1, 2]


def test_held_rows_go_to_a_temporary_table_once_there_are_more_or_it_is_asked_for():
    more = staging.Writes(staged=True)
    held_rows(more, hold=2)
    assert staged_tables() == ["staged_ratings_ratinghistory_0"]
    assert staged_rows(more) == [1, 2, 3, 4]
    more.discard()
    RatingHistory.objects.all().delete()  # none was written; the players are made again
    Player.objects.all().delete()

    asked = staging.Writes(staged=True)
    held_rows(asked)
    assert staged_tables() == []
    assert staged_rows(asked) == [1, 2, 3, 4]  # the runner reads them so for a prefix
    with transaction.atomic():
        asked.apply(prefix=4)

    assert stored_positions() == [1, 2, 3]
    assert staged_tables() == []


def staged_rows(writes: staging.Writes) -> list[int]:
    table = writes.staged_table(RatingHistory)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT position FROM temp.{table} ORDER BY position")
        return [position for (position,) in cursor.fetchall()]


FEBRUARY = date(2024, 2, 29)


@pytest.fixture
def stored_snapshots():
    """GCR snapshots of ann, ben and cat at January's and February's ends."""
    ann, ben, cat, dan = (factories.player(name) for name in ("ann", "ben", "cat", "dan"))
    for month_end in (date(2024, 1, 31), FEBRUARY):
        for player, value in ((ann, 1510.5), (ben, 1490.25), (cat, 1500.0)):
            RatingSnapshot.objects.create(
                algorithm="gcr", player=player, date=month_end, rank=-10, value=value, games=3
            )
    return ann, ben, cat, dan


def snapshots() -> dict[tuple[str, date], tuple[int, float, int]]:
    rows = RatingSnapshot.objects.values_list("player__username", "date", "id", "value", "games")
    return {(username, day): (pk, value, games) for username, day, pk, value, games in rows}


def replace_february(writes: staging.Writes, *rows: tuple[int, float, int]) -> None:
    """Write ``(player id, value, games)`` rows in place of February's snapshots."""
    replaced = RatingSnapshot.objects.filter(algorithm="gcr", date__gte=FEBRUARY)
    columns = ("algorithm", "player_id", "date", "rank", "value", "games")
    key = ("algorithm", "player_id", "date")
    with writes.rows_replacing(replaced, columns, key=key) as writer:
        for player_id, value, games in rows:
            writer.add(("gcr", player_id, FEBRUARY, -10, value, games))


def test_staged_rows_replacing_others_update_what_changed_in_place_add_the_new_and_drop_the_rest(
    stored_snapshots,
):
    ann, ben, _cat, dan = stored_snapshots
    before = snapshots()
    writes = staging.Writes(staged=True)
    # ann's as it was, ben's changed, dan's new; cat's not staged
    replace_february(writes, (ann.pk, 1510.5, 3), (ben.pk, 1491.75, 4), (dan.pk, 1499.5, 1))
    assert snapshots() == before  # nothing written before the writes are applied
    with transaction.atomic():
        writes.apply()
    after = snapshots()

    assert after.pop(("ann", FEBRUARY)) == before[("ann", FEBRUARY)]
    assert after.pop(("ben", FEBRUARY)) == (before[("ben", FEBRUARY)][0], 1491.75, 4)
    assert after.pop(("dan", FEBRUARY))[1:] == (1499.5, 1)
    assert after == {key: row for key, row in before.items() if key[1] < FEBRUARY}
    assert staged_tables() == []


def test_rows_replacing_others_straight_in_delete_them_and_write_the_new_ones(
    stored_snapshots,
):
    ann, _ben, _cat, _dan = stored_snapshots
    before = snapshots()
    replace_february(staging.Writes(staged=False), (ann.pk, 1512.0, 4))
    after = snapshots()

    assert after.pop(("ann", FEBRUARY))[1:] == (1512.0, 4)
    assert after == {key: row for key, row in before.items() if key[1] < FEBRUARY}
