"""The staged writes of a recompute on SQLite (ratings/recompute/staging.py)."""

from datetime import date

import pytest
from django.db import OperationalError, connection

from players.models import Player
from ratings.models import RatingHistory
from ratings.recompute import staging
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
