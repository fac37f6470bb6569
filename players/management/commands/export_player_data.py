"""Print everything stored about one player as JSON (for a player who asks)."""

import json

from django.core.management.base import BaseCommand, CommandError

from players.models import Player
from players.services.privacy import player_data_export


class Command(BaseCommand):
    help = "Print everything the site stores about a player, as JSON."

    def add_arguments(self, parser):
        parser.add_argument("username")

    def handle(self, *args, username, **options):
        try:
            player = Player.objects.get(username=username)
        except Player.DoesNotExist:
            raise CommandError(f"no player '{username}'") from None
        self.stdout.write(json.dumps(player_data_export(player), indent=2, ensure_ascii=False))
