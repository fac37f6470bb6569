"""What the multi-process reliability tests share."""

import os
import sys

from django.db import connection

from ratings.engine.base import get_algorithm, replay
from ratings.engine.output import history_cells
from ratings.selectors import player_entries, replay_records, stored_history


def child_environment() -> dict[str, str]:
    """The environment for a child process that works on this test's database."""
    settings = connection.settings_dict
    url = (
        f"postgres://{settings['USER']}@{settings['HOST'] or '127.0.0.1'}:"
        f"{settings['PORT'] or 5432}/{settings['NAME']}"
    )
    return {**os.environ, "DATABASE_URL": url, "PYTHONPATH": os.getcwd()}


def python() -> str:
    return sys.executable


def mismatches(algorithm: str) -> int:
    """Rows where the stored history differs from a replay from scratch."""
    engine = get_algorithm(algorithm)
    records, _ = replay_records(algorithm)
    expected = [history_cells(row, engine) for row in replay(engine, records, player_entries())]
    stored = [history_cells(row, engine) for row in stored_history(algorithm)]
    differing = sum(1 for want, have in zip(expected, stored, strict=False) if want != have)
    return differing + abs(len(expected) - len(stored))
