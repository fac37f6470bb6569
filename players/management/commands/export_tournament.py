"""Print a stored tournament as an EGD tournament result file (h9)."""

from django.core.management.base import BaseCommand, CommandError

from players import services
from players.exports import tournament_egd
from players.models import Tournament


class Command(BaseCommand):
    help = (
        "Print a tournament's valid games as an EGD tournament result file (h9), which "
        "`import_tournament` and `python -m ratings rate --format egd` read back to the same "
        "games. What an h-file cannot carry (another komi, board size or status) is listed on "
        "stderr. The site's /tournaments/CODE/egd.h9 is the same file."
    )

    def add_arguments(self, parser):
        parser.add_argument("code", metavar="CODE", help="the tournament's code")
        parser.add_argument("--format", choices=("egd",), default="egd", help="egd (h9)")
        parser.add_argument(
            "--country",
            default="XX",
            help="two-letter country code written for players whose country the site does "
            "not know (default XX, unknown)",
        )

    def handle(self, *args, code, country, **options):
        try:
            tournament = Tournament.objects.get(code=code)
        except Tournament.DoesNotExist:
            raise CommandError(f"no tournament with the code '{code}'") from None
        try:
            exported = tournament_egd(tournament, country=country)
        except services.ServiceError as error:
            raise CommandError(error.message) from None
        for loss in exported.losses:
            self.stderr.write(f"warning: {loss}")
        self.stdout.write(exported.text, ending="")
