"""Import a tournament from an EGD h-file or an OpenGotha XML file, all or nothing."""

import sys
from pathlib import Path

from django.core.exceptions import PermissionDenied
from django.core.management.base import BaseCommand, CommandError

from players.management.users import command_user
from players.models import Club, Tournament
from players.services.base import ServiceError
from players.services.tournament_files import (
    ImportPlan,
    plan_tournament_import,
    tournament_file_problem,
    tournament_import,
)
from ratings.engine.formats import (
    FORMATS,
    TournamentFile,
    guess_format,
    one_day_warning,
    read_tournament_file,
    tournament_code,
)
from ratings.engine.records import GameFileError


def _mapping(pairs: list[str]) -> dict[str, str]:
    mapping = {}
    for pair in pairs:
        suggested, _, username = pair.partition("=")
        if not suggested.strip() or not username.strip():
            raise CommandError(f"--map '{pair}': write it as SUGGESTED=USERNAME")
        mapping[suggested.strip()] = username.strip()
    return mapping


class Command(BaseCommand):
    help = (
        "Import a tournament (an EGD h-file or an OpenGotha XML file): the tournament, its "
        "rated games, and its players matched to the site's by EGD PIN, then username, then "
        "full name; the others become new players. Prints the plan; stores it only with "
        "--yes (or when you confirm at a terminal). All or nothing: a bad line stores nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, metavar="FILE")
        parser.add_argument(
            "--format",
            choices=FORMATS,
            help="egd or opengotha (default: from the content, as the import page does)",
        )
        parser.add_argument("--user", help="username to attribute the import to (default: system)")
        parser.add_argument(
            "--dry-run", action="store_true", help="check everything, store nothing"
        )
        parser.add_argument("--yes", action="store_true", help="store without asking")
        parser.add_argument(
            "--map",
            action="append",
            default=[],
            metavar="SUGGESTED=USERNAME",
            help="the file's player SUGGESTED (the username the plan shows) is the site's "
            "USERNAME (repeatable)",
        )
        parser.add_argument("--code", help="store under this tournament code instead")
        parser.add_argument(
            "--club",
            help="the club that holds a new tournament, by name or number: its volunteers "
            "correct its games (default: none, the federation's)",
        )
        parser.add_argument(
            "--class",
            dest="tournament_class",
            choices=[choice for choice, _ in Tournament.EgfClass.choices],
            help="the EGF class (OpenGotha files do not say it; default: the file's, else A)",
        )
        parser.add_argument(
            "--allow-duplicates",
            action="store_true",
            help="import games identical to stored ones (or to voided ones: stored again, as new)",
        )

    def handle(self, *args, **options):
        file, dry_run = options["file"], options["dry_run"]
        tournament = _read(file, options["format"])
        actor = command_user(options["user"])
        tournament = _renamed(tournament, options["code"], options["tournament_class"])
        club = _club(options["club"])
        plan = plan_tournament_import(tournament, _mapping(options["map"]))
        self._show(plan)
        if plan.problems:
            raise CommandError(
                "nothing imported:\n" + "\n".join(f"  {problem}" for problem in plan.problems)
            )
        if not dry_run and not options["yes"] and not self._confirmed():
            return
        try:
            result = tournament_import(
                user=actor,
                plan=plan,
                allow_duplicates=options["allow_duplicates"],
                dry_run=dry_run,
                source=str(file),
                club=club,
            )
        except GameFileError as error:
            raise CommandError(f"nothing imported:\n{error}") from None
        except PermissionDenied as error:  # --user acts for other clubs only
            raise CommandError(f"nothing imported: {error}") from None
        except ServiceError as error:
            details = "\n".join(
                "  " + " ".join(str(part) for part in problem if part) for problem in error.errors
            )
            raise CommandError(f"{error.message}\n{details}") from None
        verb = "Would store" if dry_run else "Stored"
        self.stdout.write(
            f"{verb} {result.games} games, {len(result.new_players)} new players"
            + (
                f" and the tournament {result.new_tournaments[0]}."
                if result.new_tournaments
                else "."
            )
        )

    def _confirmed(self) -> bool:
        """Whether the person at the terminal says to store the tournament (no terminal:
        no, with how to say yes)."""
        if not sys.stdin.isatty():
            self.stdout.write("Nothing stored: run again with --yes to store it.")
            return False
        answer = input("Store this tournament? [y/N] ").strip().lower()
        if answer not in ("y", "yes"):
            self.stdout.write("Nothing stored.")
            return False
        return True

    def _show(self, plan: ImportPlan) -> None:
        info = plan.file.tournament
        write = self.stdout.write
        where = " already on file" if plan.tournament else ""
        write(
            f"Tournament {info.code}{where}: {info.name}, class {info.tournament_class}, "
            f"{info.start} to {info.end}, {info.rounds} rounds"
        )
        if info.class_reason:
            write(f"  {info.class_reason}")
        if warning := one_day_warning(plan.file):
            write(f"  {warning}")
        write(f"Games to store: {len(plan.file.records)}")
        for note in plan.file.notes:
            write(f"  {note}")
        write(
            f"Players: {len(plan.matches)} ({len(plan.matched_players)} on file, "
            f"{len(plan.new_players)} new)"
        )
        for match in plan.matched_players:
            write(
                f"  {match.file_player.full_name} (line {match.file_player.line}) "
                f"is {match.username} (by {match.how})"
            )
            for note in match.notes:
                write(f"    {note}")
        for match in plan.new_players:
            player = match.file_player
            details = ", ".join(
                part
                for part in (
                    str(player.rank),
                    player.country,
                    player.club,
                    f"EGD PIN {player.pin}" if player.pin else "",
                )
                if part
            )
            write(f"  new: {player.full_name} ({details}) as {match.username}")


def _read(file: Path, file_format: str | None) -> TournamentFile:
    """The tournament in ``file`` (``file_format``, else guessed), or a CommandError
    that says why not, in the import page's words."""
    try:
        data = file.read_bytes()
    except OSError as error:
        raise CommandError(f"{file}: {error.strerror or error}") from None
    # The import page's checks, with its words, before the reader lists noise.
    problem = tournament_file_problem(data)
    if problem:
        raise CommandError(f"{file}: {problem}")
    try:
        return read_tournament_file(data, file_format or guess_format(data), str(file))
    except GameFileError as error:
        raise CommandError(f"nothing imported:\n{error}") from None


def _renamed(
    tournament: TournamentFile, code: str | None, tournament_class: str | None
) -> TournamentFile:
    """The tournament under ``--code`` and ``--class`` when given."""
    if code is not None and (not code or tournament_code(code) != code):
        raise CommandError(
            f"--code '{code}': a code has letters, digits, - and _ only (at most 50)"
        )
    if code is not None or tournament_class is not None:
        return tournament.renamed(code=code, tournament_class=tournament_class)
    return tournament


def _club(given: str | None) -> Club | None:
    """The club ``--club`` names (its name in any case, or its number), or None."""
    if given is None:
        return None
    found = Club.objects.filter(name__iexact=given.strip())
    if given.strip().isdigit():
        found = found | Club.objects.filter(pk=int(given))
    club = found.first()
    if club is None:
        names = ", ".join(Club.objects.order_by("name").values_list("name", flat=True))
        raise CommandError(f"--club '{given}': no such club (the clubs: {names or 'none yet'})")
    return club
