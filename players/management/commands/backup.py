"""Write a consistent copy of the database to a file (docs/operations.md: backup and restore)."""

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connection


class Command(BaseCommand):
    help = (
        "Back up the database to FILE: on PostgreSQL a plain SQL dump made by pg_dump "
        "(restore with psql), on SQLite a copy made with SQLite's online backup (restore "
        "by copying the file back while the site is stopped)."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, file, **options):
        if file.exists():
            raise CommandError(f"{file} exists: choose a new file name")
        if connection.vendor == "sqlite":
            self._sqlite(file)
        elif connection.vendor == "postgresql":
            self._postgresql(file)
        else:
            raise CommandError(f"no backup for a {connection.vendor} database")
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
            file.unlink(missing_ok=True)
            raise CommandError(f"pg_dump failed: {result.stderr.strip()}")
