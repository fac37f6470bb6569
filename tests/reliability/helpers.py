"""What the multi-process reliability tests share."""

import os
import sys
from pathlib import Path

from django.db import connection

from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import replay
from ratings.engine.formats.history import history_cells
from ratings.selectors import player_entries, replay_records, stored_history


def child_environment() -> dict[str, str]:
    """The environment for a child process that works on this test's database."""
    settings = connection.settings_dict
    url = (
        f"postgres://{settings['USER']}@{settings['HOST'] or '127.0.0.1'}:"
        f"{settings['PORT'] or 5432}/{settings['NAME']}"
    )
    return {**os.environ, "DATABASE_URL": url, "PYTHONPATH": os.getcwd()}


def embedded_environment(folder: Path, **extra: str) -> dict[str, str]:
    """The environment of the embedded set-up of ``make run`` (SQLite, the filesystem
    broker, the file cache) with its database and var folder in ``folder``, for child
    processes that work there instead of on the test's database."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CELERY_BROKER_URL", "REDIS_URL", "DATABASE_URL", "CACHE_KEY_PREFIX")
    }
    env.update(
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        CELERY_BROKER_URL="filesystem://localhost/",
        CLUBRATING_VAR_DIR=str(folder / "var"),
        DEBUG="1",
        LOG_LEVEL="WARNING",
        PYTHONPATH=os.getcwd(),
        **extra,
    )
    return env


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
