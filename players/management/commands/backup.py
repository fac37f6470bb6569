"""Write a consistent copy of the database to a file (docs/operations.md: backup and restore)."""

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

BACKUP_MODE = 0o600


class Command(BaseCommand):
    help = (
        "Back up the database to FILE: on PostgreSQL a plain SQL dump made by pg_dump "
        "(restore with psql), on SQLite a copy made with SQLite's online backup (restore "
        "by copying the file back while the site is stopped)."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, file, **options):
        if connection.vendor not in ("sqlite", "postgresql"):
            raise CommandError(f"no backup for a {connection.vendor} database")
        # The backup holds password hashes and live sessions: readable by its owner
        # only, whatever the umask. Created here, empty, so that no other process can
        # have it open, and both SQLite and pg_dump write into it keeping its mode.
        try:
            os.close(os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, BACKUP_MODE))
        except FileExistsError:
            raise CommandError(f"{file} exists: choose a new file name") from None
        except OSError as error:
            raise CommandError(f"cannot create {file}: {error.strerror}") from None
        os.chmod(file, BACKUP_MODE)  # os.open's mode is masked by the umask
        try:
            if connection.vendor == "sqlite":
                self._sqlite(file)
            else:
                self._postgresql(file)
        except BaseException:
            file.unlink(missing_ok=True)
            raise
        self.stdout.write(f"Backed up to {file} ({file.stat().st_size:,} bytes).")

    def _sqlite(self, file: Path) -> None:
        connection.ensure_connection()
        # The online backup copies a consistent state even while the site writes.
        with sqlite3.connect(file) as target:
            connection.connection.backup(target)
        target.close()

    def _postgresql(self, file: Path) -> None:
        if shutil.which("pg_dump") is None:
            raise CommandError(
                "pg_dump is not installed (Debian: apt-get install postgresql-client)"
            )
        settings = connection.settings_dict
        command = ["pg_dump", "--no-owner", "--no-privileges", "--file", str(file)]
        for option, key in (("--host", "HOST"), ("--port", "PORT"), ("--username", "USER")):
            if settings.get(key):
                command += [option, str(settings[key])]
        command.append(settings["NAME"])
        environment = {"PGPASSWORD": settings["PASSWORD"]} if settings.get("PASSWORD") else {}

        result = subprocess.run(
            command, env={**os.environ, **environment}, capture_output=True, text=True
        )
        if result.returncode != 0:
            raise CommandError(f"pg_dump failed: {result.stderr.strip()}")
