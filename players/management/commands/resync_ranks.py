"""Resync the national ranks from a list file, as the committee's resync page does."""

from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from players.management.users import command_user
from players.rank_lists import ListFormatError, read_rank_list
from players.resync import (
    UNKNOWN_ROWS,
    Outcome,
    PreviewRow,
    ResyncPreview,
    match_rank_list,
)
from players.selectors import adjustments as adjustment_selectors
from players.services.adjustments import resync_apply_preview
from players.services.base import ServiceError

SHOWN = UNKNOWN_ROWS  # bad lines (and unknown names of a club's own list) printed


def _date(text: str) -> date:
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"--date '{text}' is not a date (write it as YYYY-MM-DD)") from None
    if day > timezone.localdate():
        raise CommandError(f"--date {day} is in the future")
    return day


class Command(BaseCommand):
    help = (
        "Resync the players' national ranks from a list: the EGD's rating list, the AGA's "
        "TDList or a simple 'name, rank, date' list (plain, gzip or zip). Prints the "
        "preview (the counts by result, then the lines about the club's players); stores "
        "it, as one audited batch, only with --apply."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, metavar="FILE")
        parser.add_argument(
            "--date",
            help="effective date YYYY-MM-DD of the lines without one "
            "(default: the list's own date, else today)",
        )
        parser.add_argument("--apply", action="store_true", help="store the changes")
        parser.add_argument(
            "--ratings",
            action="store_true",
            help="with --apply: also start the EGF algorithms from the list's ratings",
        )
        parser.add_argument(
            "--include-stale",
            action="store_true",
            help="with --apply: also the lines of players last rated more than two years "
            "before the list",
        )
        parser.add_argument("--user", help="username to attribute the resync to (default: system)")

    def handle(self, *args, **options):
        file = options["file"]
        actor = command_user(options["user"])
        chosen = _date(options["date"]) if options["date"] else None
        try:
            data = file.read_bytes()
        except OSError as error:
            raise CommandError(f"{file}: {error.strerror or error}") from None
        today = timezone.localdate()
        try:
            rank_list = read_rank_list(
                data, default_date=chosen or today, today=today, list_date_first=chosen is None
            )
        except ListFormatError as error:
            raise CommandError(f"{file}: {error}") from None
        preview = match_rank_list(
            rank_list,
            adjustment_selectors.resync_candidates(),
            adjustment_selectors.last_resync_date(),
        )
        packed = f" ({rank_list.container})" if rank_list.container else ""
        dated = f" of {rank_list.list_date}" if rank_list.list_date else ""
        self.stdout.write(
            f"{file}: {rank_list.format}{packed}{dated}, "
            f"{len(rank_list.listed)} players with a rank"
            + (f", {rank_list.unrated} without a rating" if rank_list.unrated else "")
        )
        self._show(preview)
        if preview.later_list is not None:
            self.stdout.write(
                f"A later list, of {preview.later_list}, was applied: the lines older than it "
                "would set ranks back and are never applied."
            )
        if not options["apply"]:
            self.stdout.write("Nothing stored: add --apply to store the changes.")
            return
        try:
            batch = resync_apply_preview(
                user=actor,
                preview=preview,
                use_ratings=options["ratings"],
                include_stale=options["include_stale"],
                note=f"{file.name} (resync_ranks)",
            )
        except ServiceError as error:
            raise CommandError(f"nothing stored: {error.message}") from None
        players = batch.adjustments.values("player").distinct().count()
        self.stdout.write(
            self.style.SUCCESS(
                f"Resync #{batch.pk} applied: {players} players reset from "
                f"{batch.effective_date}; the ratings are recomputed from that date."
            )
        )

    def _show(self, preview: ResyncPreview) -> None:
        write = self.stdout.write
        counts = preview.counts()
        for outcome, count in counts.items():
            if count:
                label = outcome.value
                if outcome == Outcome.UNKNOWN and preview.is_federation_list:
                    label = "players in none of the clubs (not listed)"
                write(f"  {count:>7} {label}")
        shown = preview.shown(unknown=SHOWN, bad=SHOWN)
        for row in shown:
            write(_line(row))
        for outcome in (Outcome.UNKNOWN, Outcome.BAD):
            hidden = counts[outcome] - sum(row.outcome == outcome for row in shown)
            if hidden and (outcome == Outcome.BAD or not preview.is_federation_list):
                write(f"  … and {hidden} more {outcome.value} lines (not listed)")


def _line(row: PreviewRow) -> str:
    where = f"line {row.line}" if row.line is not None else "-"
    player = row.player.username if row.player is not None else "-"
    if row.how and row.how != "username":
        player += f" (by {row.how})"
    ranks = ""
    if row.new_rank is not None:
        now = str(row.current_rank) if row.current_rank is not None else "-"
        ranks = f"{now} -> {row.new_rank}"
    rating = f" GoR {row.rating:f}" if row.rating is not None else ""
    if row.last_rated is not None or row.membership:
        age = " ".join(part for part in (str(row.last_rated or ""), row.membership) if part)
        rating += f" (last rated {age})"
    note = f"  {row.note}" if row.note else ""
    written = row.written[:40]
    return f"{where:>11}  {row.outcome.value:<16} {written:<40} {player:<24} {ranks}{rating}{note}"
