"""Backup and restore, exactly as docs/operations.md says to do them."""

import os
import sqlite3
import stat
import subprocess
from datetime import date

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from players.services.games import record_sheet_submit
from ratings.recompute.run import recompute_pending
from tests import factories

from .helpers import child_environment, python


@pytest.fixture
def club_with_games():
    vera = factories.volunteer()
    alice, bob = factories.player("alice", "5k"), factories.player("bob", "8k")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(alice, bob, "W", date(2024, 3, 1)),
            factories.game(bob, alice, "W", date(2024, 3, 2), handicap=2),
        ],
    )
    recompute_pending()


@pytest.mark.django_db(transaction=True)
def test_a_sqlite_backup_holds_every_game_and_history_row(club_with_games, tmp_path):
    if connection.vendor != "sqlite":
        pytest.skip("the SQLite backup is tested in the SQLite leg")
    call_command("backup", str(tmp_path / "backup.sqlite3"))
    copy = sqlite3.connect(tmp_path / "backup.sqlite3")
    assert copy.execute("select count(*) from players_game").fetchone() == (2,)
    assert copy.execute(
        "select count(*) from ratings_ratinghistory where algorithm = 'sagc'"
    ).fetchone() == (4,)


def owner_only(path) -> bool:
    return stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.django_db(transaction=True)
def test_a_backup_is_readable_by_its_owner_only_whatever_the_umask(club_with_games, tmp_path):
    if connection.vendor != "sqlite":
        pytest.skip("the PostgreSQL dump's mode is checked in its restore test")
    previous = os.umask(0o022)
    try:
        call_command("backup", str(tmp_path / "backup.sqlite3"))
    finally:
        os.umask(previous)

    assert owner_only(tmp_path / "backup.sqlite3")


@pytest.mark.django_db
def test_a_backup_never_overwrites_a_file(tmp_path):
    existing = tmp_path / "backup.sqlite3"
    existing.write_text("yesterday's backup")

    with pytest.raises(CommandError, match="exists: choose a new file name"):
        call_command("backup", str(existing))
    assert existing.read_text() == "yesterday's backup"


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_postgresql_dump_restores_into_a_database_that_checks_clean(club_with_games, tmp_path):
    dump = tmp_path / "backup.sql"
    call_command("backup", str(dump))
    assert owner_only(dump)
    restored = f"{connection.settings_dict['NAME']}_restored"
    psql = ["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-v", "ON_ERROR_STOP=1"]
    subprocess.run(
        [*psql, "-d", "postgres", "-c", f"drop database if exists {restored}"], check=True
    )
    subprocess.run([*psql, "-d", "postgres", "-c", f"create database {restored}"], check=True)
    try:
        subprocess.run([*psql, "-d", restored, "-f", str(dump)], check=True, capture_output=True)
        environment = child_environment()
        environment["DATABASE_URL"] = environment["DATABASE_URL"].rsplit("/", 1)[0] + "/" + restored
        check = subprocess.run(
            [python(), "manage.py", "check_ratings"],
            env=environment,
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0, check.stdout + check.stderr
        assert "sagc: OK" in check.stdout
        count = subprocess.run(
            [*psql, "-d", restored, "-tAc", "select count(*) from players_game"],
            capture_output=True,
            text=True,
            check=True,
        )
        assert count.stdout.strip() == "2"
    finally:
        subprocess.run([*psql, "-d", "postgres", "-c", f"drop database if exists {restored}"])
