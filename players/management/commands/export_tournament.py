"""Print a stored tournament as an EGD tournament result file (h9) or OpenGotha XML."""

from django.core.management.base import BaseCommand, CommandError

from players.models import Tournament
from players.selectors.exports import NotExportable, tournament_egd, tournament_opengotha


class Command(BaseCommand):
    help = (
        "Print a tournament as an EGD tournament result file (h9), which "
        "`import_tournament` and `python -m ratings rate --format egd` read back to the same "
        "tournament (an imported one as its file had it), or with --format opengotha as an "
        "OpenGotha XML file. What an h-file cannot carry (another komi, board size or status) "
        "is listed on stderr. The site's /tournaments/CODE/egd.h9 and opengotha.xml are the "
        "same files."
    )

    def add_arguments(self, parser):
        parser.add_argument("code", metavar="CODE", help="the tournament's code")
        parser.add_argument(
            "--format",
            choices=("egd", "opengotha"),
            default="egd",
            help="egd (h9, the default) or opengotha (XML)",
        )
        parser.add_argument(
            "--country",
            help="two-letter country code written for players whose country the site does "
            "not know (default XX, unknown, in an h-file; none in an OpenGotha file, which "
            "allows a blank country)",
        )

    def handle(self, *args, code, country, **options):
        try:
            tournament = Tournament.objects.get(code=code)
        except Tournament.DoesNotExist:
            raise CommandError(f"no tournament with the code '{code}'") from None
        if options["format"] == "opengotha":
            try:
                text = tournament_opengotha(tournament, country=country or "")
                self.stdout.write(text, ending="")
            except NotExportable as error:
                raise CommandError(error.message) from None
            return
        try:
            exported = tournament_egd(tournament, country=country or "XX")
        except NotExportable as error:
            raise CommandError(error.message) from None
        for loss in exported.losses:
            self.stderr.write(f"warning: {loss}")
        self.stdout.write(exported.text, ending="")
