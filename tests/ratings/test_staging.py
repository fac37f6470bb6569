"""The staged writes of a recompute on SQLite (ratings/recompute/staging.py)."""

import pytest
from django.db import connection

from ratings.models import RatingHistory
from ratings.recompute import staging

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "sqlite", reason="writes are staged on SQLite only"),
]


def test_a_staged_table_still_read_is_left_for_later_not_a_failed_recompute():
    writes = staging.Writes(staged=True)
    with writes.rows(RatingHistory, ["algorithm", "position"]):
        pass
    table = writes.staged_table(RatingHistory)
    reading = connection.cursor()
    reading.execute(f"INSERT INTO temp.{table} VALUES ('sagc', 1), ('sagc', 2)")
    reading.execute(f"SELECT * FROM temp.{table}")
    reading.fetchone()  # the statement stays open: SQLite refuses to drop its table

    writes.discard()  # "database table is locked" failed the recompute here

    assert writes.staged_table(RatingHistory) is None
    reading.close()
    again = staging.Writes(staged=True)
    with again.rows(RatingHistory, ["algorithm", "position"]):
        pass  # the table left behind is dropped before it is made again
