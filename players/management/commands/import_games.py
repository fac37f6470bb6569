"""Import a SPEC section 2 games CSV, all or nothing."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from players.services.base import ServiceError, system_user
from players.services.imports import games_import
from ratings.engine.formats.games import read_games
from ratings.engine.records import GameFileError


class Command(BaseCommand):
    help = (
        "Import games and adjustments from a CSV in the game record format (SPEC section 2). "
        "All or nothing: any bad row imports nothing and is reported with its line and column."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, metavar="FILE.csv")
        parser.add_argument("--dry-run", action="store_true", help="check and report only")
        parser.add_argument("--user", help="username to attribute the import to (default: system)")
        parser.add_argument(
            "--allow-duplicates",
            action="store_true",
            help="import rows identical to stored games or to each other",
        )

    def handle(self, *args, file, dry_run, user, allow_duplicates, **options):
        if user:
            try:
                actor = get_user_model().objects.get(username=user)
            except get_user_model().DoesNotExist:
                raise CommandError(f"no user '{user}'") from None
        else:
            actor = system_user()
        try:
            games = read_games(file.read_bytes(), str(file))
            result = games_import(
                user=actor,
                records=games.records,
                allow_duplicates=allow_duplicates,
                dry_run=dry_run,
                source=str(file),
            )
        except OSError as error:
            raise CommandError(f"{file}: {error.strerror or error}") from None
        except GameFileError as error:
            raise CommandError(f"nothing imported:\n{error}") from None
        except ServiceError as error:
            details = "\n".join(
                " ".join(str(part) for part in problem if part) for problem in error.errors
            )
            raise CommandError(f"{error.message}\n{details}") from None
        for warning in games.warnings:
            self.stderr.write(f"{file}: warning: {warning}")
        verb = "Would import" if dry_run else "Imported"
        self.stdout.write(
            f"{verb} {result.games} games and {result.adjustments} adjustments; "
            f"{len(result.new_players)} new players, {len(result.new_tournaments)} new tournaments."
        )
