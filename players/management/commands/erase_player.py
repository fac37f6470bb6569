"""Erase a player's identity on request; their games stay for their opponents."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, connection

from players.models import Player
from players.services.base import ServiceError, system_user
from players.services.privacy import player_erase


class Command(BaseCommand):
    help = (
        "Replace a player's username, name, EGD PIN and club (their games stay, so their "
        "opponents' histories do not change). Without --yes it only says what it would do."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--yes", action="store_true", help="really erase")
        parser.add_argument("--user", help="the account that does it (default: system)")

    def handle(self, *args, username, yes, user, **options):
        try:
            player = Player.objects.get(username=username)
        except Player.DoesNotExist:
            raise CommandError(f"no player '{username}'") from None
        if not yes:
            self.stdout.write(
                f"Would erase {player.full_name} ({player.username}): run again with --yes."
            )
            return
        actor = get_user_model().objects.get(username=user) if user else system_user()
        try:
            erased = player_erase(user=actor, player=player)
        except ServiceError as error:
            raise CommandError(error.message) from None
        self.stdout.write(f"Erased: the player is now '{erased.username}'.")
        if connection.vendor == "sqlite":
            self._compact()

    def _compact(self) -> None:
        """SQLite keeps a replaced value's bytes in the file's free space and its
        write-ahead log until they are reused: rewrite the file without them."""
        try:
            with connection.cursor() as cursor:
                cursor.execute("VACUUM")
                cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except DatabaseError as error:
            self.stderr.write(
                f"The database file was not compacted ({error}): the replaced values may "
                "linger in its free space until SQLite reuses it. Run "
                "`sqlite3 FILE 'VACUUM'` while the site is stopped."
            )
        else:
            self.stdout.write("The database file was compacted: no replaced value is left in it.")
