"""Print a stored tournament as an EGD tournament result file (h9)."""

from django.core.management.base import BaseCommand, CommandError

from players import services
from players.models import Tournament
from players.tournament_files import tournament_file
from ratings.engine.formats.egd import egd_losses, write_egd


class Command(BaseCommand):
    help = (
        "Print a tournament's valid games as an EGD tournament result file (h9), which "
        "`import_tournament` and `python -m ratings rate --format egd` read back to the same "
        "games. What an h-file cannot carry (another komi, board size or status) is listed on "
        "stderr."
    )

    def add_arguments(self, parser):
        parser.add_argument("code", metavar="CODE", help="the tournament's code")
        parser.add_argument("--format", choices=("egd",), default="egd", help="egd (h9)")
        parser.add_argument(
            "--country",
            default="XX",
            help="two-letter country code written for every player (the site keeps none; "
            "default XX, unknown)",
        )

    def handle(self, *args, code, country, **options):
        try:
            tournament = Tournament.objects.get(code=code)
        except Tournament.DoesNotExist:
            raise CommandError(f"no tournament with the code '{code}'") from None
        if len(country) != 2 or not country.isalpha():
            raise CommandError(f"--country '{country}' is not a two-letter country code")
        try:
            exported = tournament_file(tournament, country=country.upper())
            text = write_egd(exported)
        except services.ServiceError as error:
            raise CommandError(error.message) from None
        except ValueError as error:
            raise CommandError(f"{code} cannot be written as an h-file: {error}") from None
        for loss in egd_losses(exported):
            self.stderr.write(f"warning: {loss}")
        self.stdout.write(text, ending="")
