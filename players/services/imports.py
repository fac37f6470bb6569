"""Importing games in bulk (CSV, import_games)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from players import stored_sentences as sentences
from players.models import (
    Adjustment,
    AuditEntry,
    Game,
    Player,
    Tournament,
)
from players.services.base import (
    DuplicateGamesError,
    ServiceError,
    announce_club_games,
    next_seqs,
)
from players.services.games import (
    GAME_COLUMNS,
    GameInput,
    find_duplicates,
    find_voided_matches,
    game_problems,
    game_row,
    refresh_entry_ranks,
    refresh_last_updated,
)
from players.services.players import players_create
from players.services.tournaments import refresh_tournament_counts
from ratings.engine.messages import Message
from ratings.engine.records import Entry, GameRecord, resolve_entries
from ratings.recompute.bulk import RowWriter
from ratings.recompute.dirty import Touch, mark_dirty


@dataclass
class ImportResult:
    games: int
    adjustments: int
    new_players: list[str]
    new_tournaments: list[str]
    warnings: list[str] = field(default_factory=list)


def game_input(
    record: GameRecord, players: Mapping[str, Player], tournaments: Mapping[str, Tournament]
) -> GameInput:
    """A file's game as the services take it, its players and tournament by name."""
    return GameInput(
        date=record.date,
        white=players[record.white],
        black=players[record.black],
        winner=record.winner.value if record.winner is not None else "",
        handicap=record.handicap,
        komi=Decimal(record.komi.numerator) / Decimal(record.komi.denominator),
        status=record.status.value,
        board_size=record.board_size,
        time_minutes=int(record.time_minutes) if record.time_minutes is not None else None,
        tournament=tournaments.get(record.tournament),
        round=record.round,
        comment=record.comment,
        white_rank=record.white_rank,
        black_rank=record.black_rank,
        colour_given=record.colour_given,
    )


def line_label(line: int | None) -> str:
    """How a message names a file's line (a record's ``line``: every reader of a file
    sets it; None only for a record made in code, which no import is given)."""
    return _("line %(number)s") % {"number": line}


def import_duplicates(games: Sequence[tuple[GameRecord, GameInput]]) -> list[str]:
    """The games of an import that look like stored games or like each other, each
    named by its file line: what the import refuses without "import anyway", and what
    a tournament file's preview shows before it is confirmed.

    A line like a game voided since (the file imported again after one of its games
    was voided) is said too (:class:`VoidedGameOnFile`), and is treated like a
    duplicate: storing it would bring back, as a new game, a game someone voided, so
    it needs the same "import anyway"; the voided game itself stays voided."""
    labels = [line_label(record.line) for record, _game in games]
    inputs = [game for _record, game in games]
    return find_duplicates(inputs, labels) + find_voided_matches(inputs, labels)


def games_import(
    *,
    user,
    records: Sequence[GameRecord],
    allow_duplicates: bool = False,
    dry_run: bool = False,
    source: str = "",
    club_id: int | None = None,
) -> ImportResult:
    """Import SPEC section 2 records at once, all or nothing, in file order.

    Unknown players are created from the rank on their first row in replay order;
    tournaments from their code. Raises ``ServiceError`` with line-numbered errors.
    ``club_id``: whose import it is in the audit trail (a tournament file's club; None:
    the federation's).
    """
    with transaction.atomic():
        players, new_players = _import_players(user, records, source)
        tournaments, new_tournaments = _import_tournaments(records)
        inputs = _import_inputs(records, players, tournaments, allow_duplicates)
        # Entry numbers follow the file's order, so the replay order (date, round, seq)
        # is the one `python -m ratings rate` uses on the same file.
        seq_of = dict(zip((id(r) for r in records), next_seqs(len(records)), strict=True))
        adjustments = _import_adjustments(user, records, players, seq_of)
        # COPY on PostgreSQL: a million games in minutes rather than hours of bulk_create.
        now = timezone.now()
        with RowWriter(Game, GAME_COLUMNS) as games:
            for record, game in inputs:
                games.add(game_row(game, seq_of[id(record)], user, now))
        AuditEntry.objects.create(
            user=user,
            action="games_import",
            object_type="import",
            object_id="",
            summary=Message(
                sentences.IMPORTED, source=source, games=len(inputs), adjustments=adjustments
            ),
            after={"games": len(inputs), "adjustments": adjustments, "new_players": new_players},
            club_id=club_id,
        )
        refresh_last_updated(players.values())
        refresh_tournament_counts(tournament.pk for tournament in tournaments.values())
        mark_dirty(
            [
                Touch(game.date, game.tournament.pk if game.tournament else None)
                for _record, game in inputs
            ]
            + [Touch(r.date, None, r.algorithm) for r in records if r.is_adjustment]
            + refresh_entry_ranks(players.values())
        )
        # An imported game is its tournament's club's (game_row).
        announce_club_games(
            clubs=[tournament.club_id for tournament in tournaments.values()],
            players=players.values(),
        )
        result = ImportResult(len(inputs), adjustments, new_players, new_tournaments)
        if dry_run:
            transaction.set_rollback(True)
    return result


def _import_players(
    user, records: Sequence[GameRecord], source: str
) -> tuple[dict[str, Player], list[str]]:
    """The file's players by username, those not on file created from the rank on their
    first row in replay order; and the new ones' usernames."""
    usernames = {name for record in records for name in (record.white, record.black)}
    players = {p.username: p for p in Player.objects.filter(username__in=usernames)}
    known = {name: Entry(player.entry_rank) for name, player in players.items()}
    # A player already on file keeps their entry; a new one needs a rank on their
    # first row (GameFileError names the line otherwise).
    entries = resolve_entries(records, known, source)
    new_players = sorted(set(entries) - set(players))
    created = players_create(
        user=user,
        players=[
            Player(
                username=username,
                full_name=username,
                family_name=username,  # bulk_create skips save(), which splits names
                entry_rank=entries[username].rank,
            )
            for username in new_players
        ],
        summary=Message(sentences.IMPORT, source=source),
    )
    players.update((player.username, player) for player in created)
    return players, new_players


def _import_tournaments(
    records: Sequence[GameRecord],
) -> tuple[dict[str, Tournament], list[str]]:
    """The games' tournaments by code, those not on file created (their class from
    their first row); and the new ones' codes."""
    codes = {r.tournament for r in records if r.tournament and not r.is_adjustment}
    tournaments = {t.code: t for t in Tournament.objects.filter(code__in=codes)}
    new_tournaments = sorted(codes - set(tournaments))
    for code in new_tournaments:
        first = next(r for r in records if r.tournament == code)
        tournaments[code] = Tournament.objects.create(
            code=code, name=code, egf_class=first.tournament_class
        )
    return tournaments, new_tournaments


def _import_inputs(
    records: Sequence[GameRecord],
    players: dict[str, Player],
    tournaments: dict[str, Tournament],
    allow_duplicates: bool,
) -> list[tuple[GameRecord, GameInput]]:
    """The file's games as inputs; a ServiceError naming every line's problems, or a
    DuplicateGamesError for games already stored unless ``allow_duplicates``."""
    errors: list[tuple[Any, str, str]] = []
    inputs: list[tuple[GameRecord, GameInput]] = []
    today = timezone.localdate()
    for record in records:
        if record.is_adjustment:
            continue
        game = game_input(record, players, tournaments)
        problems = game_problems(game, today)
        errors += [(line_label(record.line), name, message) for name, message in problems]
        inputs.append((record, game))
    if errors:
        raise ServiceError(_("the file has errors; nothing was imported"), errors)
    if not allow_duplicates:
        duplicates = import_duplicates(inputs)
        if duplicates:
            raise DuplicateGamesError(
                _(
                    "rows identical to stored games or to each other "
                    "(use --allow-duplicates to import them anyway)"
                ),
                [(None, "", text) for text in duplicates],
            )
    return inputs


def _import_adjustments(
    user, records: Sequence[GameRecord], players: dict[str, Player], seq_of: dict[int, int]
) -> int:
    """Store the file's adjustments; how many."""
    adjustments = 0
    for record in records:
        if not record.is_adjustment:
            continue
        value = record.value
        # The reader refuses an adjustment row without the player's new rank.
        assert record.white_rank is not None
        Adjustment.objects.create(
            seq=seq_of[id(record)],
            date=record.date,
            player=players[record.white],
            algorithm=record.algorithm,
            new_rank=record.white_rank,
            # A value of 0 is a value (it was passed on as a Fraction, which the
            # DecimalField refuses); None is "no value".
            value=(
                Decimal(value.numerator) / Decimal(value.denominator) if value is not None else None
            ),
            reason=Adjustment.Reason.COMMITTEE,
            comment=record.comment,
            created_by=user,
        )
        adjustments += 1
    return adjustments
