"""Every write to players, games and adjustments: one transaction each, attributed to a
user, kept in the audit trail, and marking the ratings dirty from the earliest date it
touches (``ratings.services.mark_dirty``)."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from axes.utils import reset as reset_login_lockout
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group
from django.db import IntegrityError, models, transaction
from django.db.models import Count, F, Max, Min, Q
from django.utils import timezone

from clubrating.usernames import canonical_username
from ratings.bulk import RowWriter, update_rows
from ratings.engine.base import algorithm_names, registry
from ratings.engine.egf import EgfAlgorithm
from ratings.engine.ranks import Rank, parse_rank
from ratings.engine.records import Entry, GameRecord, resolve_entries
from ratings.selectors import declared_ranks
from ratings.services import Touch, mark_dirty

from .fields import rank_to_code
from .models import (
    Adjustment,
    AuditEntry,
    Club,
    EntrySequence,
    Game,
    Player,
    RecordSheet,
    ResyncBatch,
    ResyncUpload,
    Tournament,
)
from .permissions import COMMITTEE, VOLUNTEERS
from .resync import Outcome, ResyncPreview

SYSTEM_USERNAME = "system"


class ServiceError(Exception):
    """A write that was refused; nothing was stored. ``errors`` are (where, field, message)."""

    def __init__(self, message: str, errors: Sequence[tuple[Any, str, str]] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.errors = list(errors)


class ConcurrentEditError(ServiceError):
    """The row changed since the user loaded it (optimistic concurrency)."""


class DuplicateGamesError(ServiceError):
    """Games that look like ones already on file (or like each other)."""


@dataclass(frozen=True)
class GameInput:
    """A game as a form or an import hands it to the services."""

    date: date
    white: Player
    black: Player
    winner: str
    handicap: int = 0
    komi: Decimal | None = None
    status: str = Game.Status.NORMAL
    board_size: int = 19
    time_minutes: int | None = None
    tournament: Tournament | None = None
    round: int = 0
    comment: str = ""
    white_rank: Rank | None = None
    black_rank: Rank | None = None

    @property
    def resolved_komi(self) -> Decimal:
        if self.komi is not None:
            return Decimal(self.komi)
        return Decimal("6.5") if self.handicap == 0 else Decimal("0.5")

    def duplicate_key(self) -> tuple:
        return duplicate_key(
            self.date, self.white.pk, self.black.pk, self.handicap, self.resolved_komi, self.winner
        )


def duplicate_key(day, white_id, black_id, handicap, komi, winner) -> tuple:
    """What makes two games the same game: the date, the two players whichever colour
    each had, the handicap, the komi and who won (the player, not the colour), so that a
    game entered again with the colours swapped is found."""
    winner_id = {"W": white_id, "B": black_id}.get(winner)
    first, second = sorted((white_id, black_id))
    return (day, first, second, handicap, Decimal(komi), winner_id)


@dataclass
class SubmitResult:
    sheet: RecordSheet | None
    games: list[Game]
    warnings: list[str] = field(default_factory=list)


def is_reserved_username(username: str) -> bool:
    """Whether ``username`` is, in any spelling, the site's own account."""
    return canonical_username(username) == SYSTEM_USERNAME


def system_user():
    """The account that imports and commands act as when no user is named. It can
    never log in: inactive, with an unusable password, no role. If someone made it a
    login before these rules (a committee member could create it), that is undone here."""
    accounts = get_user_model().objects
    user, created = accounts.get_or_create(
        username=SYSTEM_USERNAME, defaults={"is_active": False, "password": make_password(None)}
    )
    if not created and (
        user.is_active or user.is_staff or user.is_superuser or user.has_usable_password()
    ):
        user.is_active = user.is_staff = user.is_superuser = False
        user.set_unusable_password()
        user.save(update_fields=["is_active", "is_staff", "is_superuser", "password"])
        user.groups.clear()
    return user


# --- the audit trail and the entry counter --------------------------------------


def _jsonable(value: Any) -> Any:
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, Rank):
        return str(value)
    return value


def game_snapshot(game: Game) -> dict[str, Any]:
    """A game for the audit trail; the game's one number (its page's) is the entry's
    object id, so its entry counter is left out."""
    return {
        "version": game.version,
        "date": _jsonable(game.date),
        "round": game.round,
        "white": game.white.username,
        "black": game.black.username,
        "handicap": game.handicap,
        "komi": _jsonable(game.komi),
        "winner": game.winner,
        "status": game.status,
        "board_size": game.board_size,
        "time_minutes": game.time_minutes,
        "tournament": game.tournament.code if game.tournament_id else None,
        "record_sheet": game.record_sheet_id,
        "comment": game.comment,
        "voided": game.voided_at is not None,
        "void_reason": game.void_reason,
    }


def adjustment_snapshot(adjustment: Adjustment) -> dict[str, Any]:
    return {
        "seq": adjustment.seq,
        "date": _jsonable(adjustment.date),
        "player": adjustment.player.username,
        "algorithm": adjustment.algorithm or "all",
        "new_rank": _jsonable(adjustment.new_rank),
        "value": _jsonable(adjustment.value),
        "reason": adjustment.reason,
        "resync_batch": adjustment.resync_batch_id,
        "comment": adjustment.comment,
        "voided": adjustment.voided_at is not None,
    }


def player_snapshot(player: Player) -> dict[str, Any]:
    return {
        "username": player.username,
        "full_name": player.full_name,
        "family_name": player.family_name,
        "given_name": player.given_name,
        "country": player.country,
        "federation_club": player.federation_club,
        "declared_rating": player.declared_rating,
        "club": player.club.name if player.club_id else None,
        "entry_rank": _jsonable(player.entry_rank),
        "national_rank": _jsonable(player.national_rank),
        "egd_pin": player.egd_pin,
        "national_id": player.national_id,
        "active": player.active,
    }


def audit(user, action: str, obj: Any, **details: Any) -> AuditEntry:
    """Record ``action`` on ``obj`` by ``user``; ``details`` as for :func:`audit_entry`."""
    entry = audit_entry(user, action, obj, **details)
    entry.save(force_insert=True)
    return entry


def audit_entry(
    user,
    action: str,
    obj: Any,
    *,
    before: dict | None = None,
    after: dict | None = None,
    summary: str = "",
) -> AuditEntry:
    """The audit row of :func:`audit`, not saved yet (for ``bulk_create``)."""
    return AuditEntry(
        user=user,
        action=action,
        object_type=type(obj).__name__.lower(),
        object_id=str(obj.pk),
        summary=summary[:300],
        before=before,
        after=after,
    )


def next_seqs(count: int) -> range:
    """Reserve ``count`` consecutive entry numbers. The UPDATE takes the counter's row
    lock (PostgreSQL) or the write lock (SQLite) until the caller's transaction ends, so
    concurrent sheets get distinct, increasing numbers."""
    EntrySequence.objects.get_or_create(pk=1)
    EntrySequence.objects.filter(pk=1).update(last=F("last") + count)
    last = EntrySequence.objects.values_list("last", flat=True).get(pk=1)
    return range(last - count + 1, last + 1)


def _refresh_last_updated(players: Iterable[Player]) -> None:
    """A player's "last updated" is the date of their most recently entered valid game;
    "last played" the date of their latest one; "tournament only" says that they have
    valid games and all are tournament games.

    A few grouped queries for any number of players (an import brings thousands): the
    latest entry number, latest date and games outside tournaments of each as White and
    as Black, then the dates of those latest entered games."""
    ids = sorted({player.pk for player in players})
    latest: dict[int, int] = {}  # player id -> seq of their most recently entered game
    played: dict[int, date] = {}
    outside: dict[int, int] = {}  # player id -> valid games outside tournaments
    for chunk in (ids[start : start + _ID_CHUNK] for start in range(0, len(ids), _ID_CHUNK)):
        for side in ("white", "black"):
            rows = (
                Game.objects.valid()
                .filter(**{f"{side}__in": chunk})
                .values_list(side)
                .annotate(
                    last=Max("seq"),
                    day=Max("date"),
                    outside=Count("pk", filter=Q(tournament__isnull=True)),
                )
                .order_by()
            )
            for player_id, seq, day, games in rows:
                latest[player_id] = max(seq, latest.get(player_id, seq))
                played[player_id] = max(day, played.get(player_id, day))
                outside[player_id] = outside.get(player_id, 0) + games
    seqs = sorted(latest.values())
    dates: dict[int, date] = {}
    for start in range(0, len(seqs), _ID_CHUNK):
        chunk = seqs[start : start + _ID_CHUNK]
        dates.update(Game.objects.filter(seq__in=chunk).values_list("seq", "date"))
    update_rows(
        Player,
        ("last_updated", "last_played", "tournament_only"),
        [
            (
                dates[latest[pk]] if pk in latest else None,
                played.get(pk),
                pk in outside and not outside[pk],
                pk,
            )
            for pk in ids
        ],
    )


_ID_CHUNK = 500  # ids in one IN (...) list: SQLite limits the parameters of a query


def refresh_tournament_counts(tournament_ids: Iterable[int | None]) -> None:
    """Store the valid games, distinct players and first and last game dates of each
    tournament of ``tournament_ids`` (None: a game of no tournament, ignored). Two
    grouped queries per 500 tournaments: the counts and dates, then the distinct
    (tournament, player) pairs of both colours."""
    ids = sorted({pk for pk in tournament_ids if pk is not None})
    for chunk in (ids[start : start + _ID_CHUNK] for start in range(0, len(ids), _ID_CHUNK)):
        games = Game.objects.valid().filter(tournament_id__in=chunk)
        counts = {
            pk: (count, first, last)
            for pk, count, first, last in games.values_list("tournament_id")
            .annotate(count=Count("pk"), first=Min("date"), last=Max("date"))
            .order_by()
        }
        players: dict[int, int] = dict.fromkeys(chunk, 0)
        pairs = (
            games.order_by()
            .values_list("tournament_id", "white_id")
            .union(games.order_by().values_list("tournament_id", "black_id"))
        )
        for pk, _player in pairs:
            players[pk] += 1
        update_rows(
            Tournament,
            ("game_count", "player_count", "first_game", "last_game"),
            [
                (
                    counts.get(pk, (0,))[0],
                    players[pk],
                    *counts.get(pk, (0, None, None))[1:],
                    pk,
                )
                for pk in chunk
            ],
        )


# --- validation shared by every way in ------------------------------------------


_WINNERS = frozenset(Game.Winner.values)
_STATUSES = frozenset(Game.Status.values)


def _game_problems(game: GameInput, today: date | None = None) -> list[tuple[str, str]]:
    """What is wrong with ``game`` (field, message); ``today`` (default: now) for an
    import, which checks a million games."""
    problems = []
    if game.white.pk == game.black.pk:
        problems.append(("black", "a player cannot play themselves"))
    if game.date > (today or timezone.localdate()):
        problems.append(("date", f"{game.date} is in the future"))
    if game.winner not in _WINNERS:
        problems.append(("winner", f"'{game.winner}' is not W, B or D"))
    if not 0 <= game.handicap <= 9:
        problems.append(("handicap", f"{game.handicap} is not a handicap (0 to 9)"))
    komi = game.resolved_komi
    if komi * 2 != int(komi * 2) or not -50 <= komi <= 50:
        problems.append(("komi", f"{komi} is not a komi (a multiple of 0.5 in -50..50)"))
    if game.status not in _STATUSES:
        problems.append(("status", f"'{game.status}' is not a game status"))
    if game.board_size not in (9, 13, 19):
        problems.append(("board_size", f"{game.board_size} is not 9, 13 or 19"))
    if game.time_minutes is not None and game.time_minutes <= 0:
        problems.append(("time_minutes", "the time must be positive"))
    return problems


def _club_warnings(games: Sequence[GameInput]) -> list[str]:
    """Games before a player's club was founded are allowed but worth a second look."""
    warnings = []
    for index, game in enumerate(games, start=1):
        for player in (game.white, game.black):
            founded = player.club.founded if player.club_id else None
            if founded and game.date < founded:
                club = player.club.name
                warnings.append(
                    f"game {index}: {game.date} is before {club} was founded ({founded})"
                )
    return warnings


class GameOnFile(str):
    """A duplicate warning (a sentence) that knows the game on file it names, so that a
    page can link to it."""

    game_id: int

    def __new__(cls, text: str, game_id: int) -> GameOnFile:
        warning = super().__new__(cls, text)
        warning.game_id = game_id
        return warning


def find_duplicates(games: Sequence[GameInput], labels: Sequence[str] | None = None) -> list[str]:
    """Games identical (date, players, colours, handicap, komi, result) to a stored valid
    game or to another game of the same batch, described for the user. ``labels`` name
    the games in messages (default "game 1", "game 2", ...)."""
    labels = labels or [f"game {index}" for index in range(1, len(games) + 1)]
    found = []
    seen: dict[tuple, str] = {}
    for label, game in zip(labels, games, strict=True):
        key = game.duplicate_key()
        if key in seen:
            found.append(f"{label} is the same as {seen[key]}")
        seen.setdefault(key, label)
    if not games:
        return found
    stored = (
        Game.objects.valid()
        .filter(date__in={game.date for game in games})
        .values_list("date", "white_id", "black_id", "handicap", "komi", "winner", "pk")
    )
    on_file = {duplicate_key(*row[:6]): row[6] for row in stored}
    for label, game in zip(labels, games, strict=True):
        number = on_file.get(game.duplicate_key())
        if number is not None:
            found.append(
                GameOnFile(
                    f"{label} ({game.date}, {game.white.username} - {game.black.username}, "
                    f"winner {game.winner}) is already on file as game {number}",
                    number,
                )
            )
    return found


OUTLIER_MARGIN = timedelta(days=365)


def find_outliers(
    games: Sequence[GameInput], labels: Sequence[str] | None = None, exclude: Iterable[int] = ()
) -> list[str]:
    """Games dated more than a year before a player's first valid game or after their
    last one: a mistyped year looks like that. Described for the user, to confirm;
    ``labels`` as for :func:`find_duplicates`, ``exclude`` the stored games (by id) not
    to compare with (the one being corrected)."""
    labels = labels or [f"game {index}" for index in range(1, len(games) + 1)]
    players = {player.pk: player for game in games for player in (game.white, game.black)}
    spans: dict[int, tuple[date, date]] = {}
    for side in ("white", "black"):
        rows = (
            Game.objects.valid()
            .exclude(pk__in=list(exclude))
            .filter(**{f"{side}__in": list(players)})
            .values_list(side)
            .annotate(first=Min("date"), last=Max("date"))
            .order_by()
        )
        for pk, first, last in rows:
            known = spans.get(pk, (first, last))
            spans[pk] = (min(first, known[0]), max(last, known[1]))
    found = []
    for label, game in zip(labels, games, strict=True):
        for player in (game.white, game.black):
            if player.pk not in spans:
                continue
            first, last = spans[player.pk]
            if game.date < first - OUTLIER_MARGIN:
                found.append(
                    f"{label}: {game.date} is more than a year before "
                    f"{player.username}'s first game ({first})"
                )
            elif game.date > last + OUTLIER_MARGIN:
                found.append(
                    f"{label}: {game.date} is more than a year after "
                    f"{player.username}'s last game ({last})"
                )
    return found


def _new_game(game: GameInput, seq: int, user, sheet: RecordSheet | None) -> Game:
    return Game(
        seq=seq,
        date=game.date,
        round=game.round,
        white=game.white,
        black=game.black,
        white_rank=game.white_rank,
        black_rank=game.black_rank,
        handicap=game.handicap,
        komi=game.resolved_komi,
        winner=game.winner,
        status=game.status,
        board_size=game.board_size,
        time_minutes=game.time_minutes,
        tournament=game.tournament,
        record_sheet=sheet,
        comment=game.comment,
        created_by=user,
    )


# The columns _game_row gives, in its order: every column of a game.
_GAME_COLUMNS = (
    "seq",
    "version",
    "date",
    "created_at",
    "created_by_id",
    "voided_at",
    "voided_by_id",
    "void_reason",
    "comment",
    "round",
    "white_id",
    "black_id",
    "white_rank",
    "black_rank",
    "handicap",
    "komi",
    "winner",
    "status",
    "board_size",
    "time_minutes",
    "tournament_id",
    "record_sheet_id",
)


def _game_row(game: GameInput, seq: int, user, now) -> tuple:
    """What :func:`_new_game` stores, as one row for a ``RowWriter``: a new valid game
    of no record sheet, entered by ``user`` at ``now``."""
    return (
        seq,
        1,
        game.date,
        now,
        user.pk,
        None,
        None,
        "",
        game.comment,
        game.round,
        game.white.pk,
        game.black.pk,
        rank_to_code(game.white_rank) if game.white_rank else None,
        rank_to_code(game.black_rank) if game.black_rank else None,
        game.handicap,
        game.resolved_komi,
        game.winner,
        game.status,
        game.board_size,
        game.time_minutes,
        game.tournament.pk if game.tournament else None,
        None,
    )


def _touches(game: Game) -> Touch:
    return Touch(game.date, game.tournament_id)


# --- players ------------------------------------------------------------------


def pin_problem(egd_pin: str, player: Player | None = None) -> str | None:
    """Why ``egd_pin`` cannot be ``player``'s (or a new player's): an EGD PIN belongs to
    one person, so another record holding it already refuses it. None if it can."""
    if not egd_pin:
        return None
    holders = Player.objects.filter(egd_pin=egd_pin, erased_at__isnull=True)
    if player is not None:
        holders = holders.exclude(pk=player.pk)
    holder = holders.first()
    return None if holder is None else f"the EGD PIN {egd_pin} is already on file, for {holder}"


def national_id_problem(national_id: str, player: Player | None = None) -> str | None:
    """Why ``national_id`` cannot be ``player``'s: a federation's id belongs to one
    record. None if it can."""
    if not national_id:
        return None
    holder = Player.objects.filter(national_id=national_id).exclude(pk=getattr(player, "pk", None))
    holder = holder.first()
    return (
        None
        if holder is None
        else f"the national id {national_id} is already on file, for {holder}"
    )


def _pin_problems(egd_pin: str, player: Player | None = None) -> list[tuple[Any, str, str]]:
    problem = pin_problem(egd_pin, player)
    return [(None, "egd_pin", problem)] if problem else []


def player_create(
    *,
    user,
    username: str,
    full_name: str,
    entry_rank: Rank,
    club: Club | None = None,
    national_rank: Rank | None = None,
    egd_pin: str = "",
    family_name: str = "",
    given_name: str = "",
    country: str = "",
    federation_club: str = "",
    declared_rating: int | None = None,
) -> Player:
    """A new player. With ``family_name`` or ``given_name`` the full name is derived
    from them; else ``full_name`` is split (``models.split_full_name``)."""
    problems = []
    if Player.objects.filter(username=username).exists():
        problems.append((None, "username", "already taken"))
    problems += _pin_problems(egd_pin)
    if problems:
        raise ServiceError(f"{username} was not added", problems)
    with transaction.atomic():
        player = Player.objects.create(
            username=username,
            full_name=full_name,
            family_name=family_name,
            given_name=given_name,
            country=country,
            federation_club=federation_club,
            declared_rating=declared_rating,
            club=club,
            entry_rank=entry_rank,
            national_rank=national_rank if national_rank is not None else entry_rank,
            egd_pin=egd_pin,
        )
        audit(user, "player_create", player, after=player_snapshot(player), summary=username)
    return player


# The fields a committee member corrects on a player's record (the username stays: it
# is the record's address and the name the sheets use).
PLAYER_EDIT_FIELDS = (
    "given_name",
    "family_name",
    "full_name",
    "club",
    "country",
    "federation_club",
    "egd_pin",
    "national_id",
    "national_rank",
    "entry_rank",
    "active",
)


def player_update(*, user, player: Player, **changes: Any) -> Player:
    """Correct a player's record: any of ``PLAYER_EDIT_FIELDS``. Ranks are bounded as
    every rank is (SPEC section 1: 50k to 9d, 1p to 9p); an EGD PIN belongs to one
    record. A corrected entry rank is where the player's ratings start, so the ratings
    are recomputed from the player's first game or adjustment."""
    unknown = set(changes) - set(PLAYER_EDIT_FIELDS)
    if unknown:
        raise ValueError(f"not a field a player is corrected by: {', '.join(sorted(unknown))}")
    problems: list[tuple[Any, str, str]] = []
    for name in ("entry_rank", "national_rank"):
        rank = changes.get(name, getattr(player, name))
        if not (rank is None and name == "national_rank") and not isinstance(rank, Rank):
            problems.append((None, name, f"{rank!r} is not a rank (50k to 9d, 1p to 9p)"))
    for name in ("full_name", "given_name", "family_name", "federation_club", "national_id"):
        if name in changes:
            changes[name] = (changes[name] or "").strip()
    if "full_name" in changes and not changes["full_name"]:
        problems.append((None, "full_name", "a player needs a name"))
    names = [changes.get(name, getattr(player, name)) for name in ("given_name", "family_name")]
    if {"given_name", "family_name"} & set(changes) and not any(names):
        problems.append((None, "family_name", "a player needs a name"))
    if "country" in changes:
        country = changes["country"] = (changes["country"] or "").strip().upper()
        if country and not (len(country) == 2 and country.isascii() and country.isalpha()):
            problems.append((None, "country", f"'{country}' is not a two-letter country code"))
    if "egd_pin" in changes:
        changes["egd_pin"] = (changes["egd_pin"] or "").strip()
        problems += _pin_problems(changes["egd_pin"], player)
    problem = national_id_problem(changes.get("national_id", ""), player)
    if problem:
        problems.append((None, "national_id", problem))
    if problems:
        raise ServiceError(f"{player.username} was not changed", problems)
    with transaction.atomic():
        # Only the player's row is locked: PostgreSQL cannot lock the nullable side of
        # the outer join to the club.
        player = (
            Player.objects.select_for_update(of=("self",)).select_related("club").get(pk=player.pk)
        )
        if player.erased_at is not None:
            raise ServiceError(f"{player.username}'s record was erased: it cannot be changed")
        before = player_snapshot(player)
        old_entry_rank = player.entry_rank
        for name, value in changes.items():
            setattr(player, name, value)
        player.sync_names()  # the full name follows the two names (or splits into them)
        after = player_snapshot(player)
        if after == before:
            return player
        player.save(update_fields=list(changes))
        changed = ", ".join(key for key in after if after[key] != before.get(key))
        audit(
            user,
            "player_update",
            player,
            before=before,
            after=after,
            summary=f"{player.username}: {changed}",
        )
        if player.entry_rank != old_entry_rank:
            first = earliest_entry([player])
            if first is not None:
                mark_dirty([Touch(first)])
    return player


def players_create(*, user, players: Sequence[Player], summary: str) -> list[Player]:
    """Store new players at once (an import brings hundreds), each audited as
    :func:`player_create` audits one; the national rank defaults to the entry rank.
    Refuses them all if a username is taken. Call inside the caller's transaction."""
    usernames = [player.username for player in players]
    taken = sorted(Player.objects.filter(username__in=usernames).values_list("username", flat=True))
    if taken:
        raise ServiceError(
            f"the usernames {', '.join(taken)} are taken",
            [(None, "username", f"'{username}' is already taken") for username in taken],
        )
    for player in players:
        if player.national_rank is None:
            player.national_rank = player.entry_rank
    created = Player.objects.bulk_create(players, batch_size=1000)
    AuditEntry.objects.bulk_create(
        [
            audit_entry(
                user, "player_create", player, after=player_snapshot(player), summary=summary
            )
            for player in created
        ],
        batch_size=1000,
    )
    return created


# --- games --------------------------------------------------------------------


def record_sheet_submit(
    *,
    user,
    games: Sequence[GameInput],
    received_on: date | None = None,
    note: str = "",
    allow_duplicates: bool = False,
) -> SubmitResult:
    """Store a whole paper record sheet, or nothing."""
    if not games:
        raise ServiceError("a record sheet needs at least one game")
    problems = [
        (index, field_name, message)
        for index, game in enumerate(games, start=1)
        for field_name, message in _game_problems(game)
    ]
    if problems:
        raise ServiceError("the sheet has errors; nothing was stored", problems)
    with transaction.atomic():
        if not allow_duplicates:
            doubtful = find_duplicates(games) + find_outliers(games)
            if doubtful:
                raise DuplicateGamesError("these games need a second look", doubtful)
        sheet = RecordSheet.objects.create(entered_by=user, received_on=received_on, note=note)
        seqs = next_seqs(len(games))
        stored = Game.objects.bulk_create(
            [_new_game(game, seq, user, sheet) for game, seq in zip(games, seqs, strict=True)]
        )
        AuditEntry.objects.bulk_create(
            [
                AuditEntry(
                    user=user,
                    action="game_create",
                    object_type="game",
                    object_id=str(game.pk),
                    summary=f"sheet {sheet.pk}: {game}",
                    after=game_snapshot(game),
                )
                for game in stored
            ]
        )
        _refresh_last_updated([player for game in games for player in (game.white, game.black)])
        refresh_tournament_counts(game.tournament_id for game in stored)
        # a sheet declares no rank, but a game before a player's first-row adjustment
        # takes the entry from it
        moved = refresh_entry_ranks([p for game in games for p in (game.white, game.black)])
        mark_dirty([*(_touches(game) for game in stored), *moved])
    return SubmitResult(sheet, stored, _club_warnings(games))


def _locked_game(game_id: int, version: int) -> Game:
    # Lock the row so that two corrections cannot both pass the version check. NO KEY
    # UPDATE (the key never changes) does not wait for a recompute that is writing
    # history rows pointing at this game, which would otherwise deadlock with it.
    game = (
        Game.objects.select_for_update(of=("self",), no_key=True)
        .select_related("white", "black", "tournament")
        .get(pk=game_id)
    )
    if game.version != version:
        raise ConcurrentEditError(
            f"game {game.pk} was changed by someone else since you opened it "
            f"(version {game.version}, yours {version}); reload it and try again"
        )
    return game


def game_correct(
    *, user, game_id: int, version: int, changes: GameInput, allow_outliers: bool = False
) -> Game:
    """Correct a game (any field, including its date: back-dating). A new date more
    than a year away from either player's other games is refused (DuplicateGamesError,
    at the date field) unless ``allow_outliers``."""
    problems = _game_problems(changes)
    if problems:
        raise ServiceError("the correction has errors; nothing was changed", problems)
    with transaction.atomic():
        game = _locked_game(game_id, version)
        if game.is_void:
            raise ServiceError(f"game {game.pk} is void; it cannot be corrected")
        if changes.date != game.date and not allow_outliers:
            outliers = find_outliers([changes], ["the new date"], exclude=[game.pk])
            if outliers:
                raise DuplicateGamesError(
                    "the new date needs a second look",
                    [(None, "date", message) for message in outliers],
                )
        before = game_snapshot(game)
        old_touch, old_players = _touches(game), (game.white, game.black)
        for name in (
            "date",
            "round",
            "white",
            "black",
            "handicap",
            "winner",
            "status",
            "board_size",
            "time_minutes",
            "tournament",
            "comment",
        ):
            setattr(game, name, getattr(changes, name))
        game.komi = changes.resolved_komi
        game.version += 1
        game.save()
        audit(
            user,
            "game_correct",
            game,
            before=before,
            after=game_snapshot(game),
            summary=str(game),
        )
        _refresh_last_updated([*old_players, game.white, game.black])
        refresh_tournament_counts([old_touch.tournament_id, game.tournament_id])
        moved = refresh_entry_ranks([*old_players, game.white, game.black])
        mark_dirty([old_touch, _touches(game), *moved])
    return game


def game_void(*, user, game_id: int, version: int, reason: str) -> Game:
    """Void a game: it stays on file, marked, and no longer counts."""
    if not reason.strip():
        raise ServiceError("a reason is required to void a game", [(None, "reason", "required")])
    with transaction.atomic():
        game = _locked_game(game_id, version)
        if game.is_void:
            raise ServiceError(f"game {game.pk} is already void")
        before = game_snapshot(game)
        game.voided_at = timezone.now()
        game.voided_by = user
        game.void_reason = reason.strip()
        game.version += 1
        game.save()
        audit(user, "game_void", game, before=before, after=game_snapshot(game), summary=reason)
        _refresh_last_updated([game.white, game.black])
        refresh_tournament_counts([game.tournament_id])
        moved = refresh_entry_ranks([game.white, game.black])
        mark_dirty([_touches(game), *moved])
    return game


# --- adjustments and resyncs ----------------------------------------------------


def _check_algorithm(algorithm: str) -> None:
    if algorithm and algorithm not in algorithm_names():
        raise ServiceError(
            f"'{algorithm}' is not an algorithm", [(None, "algorithm", "unknown algorithm")]
        )


def adjustment_apply(
    *,
    user,
    player: Player,
    date: date,
    new_rank: Rank,
    value: Decimal | None = None,
    algorithm: str = "",
    reason: str = Adjustment.Reason.COMMITTEE,
    comment: str = "",
    batch: ResyncBatch | None = None,
) -> Adjustment:
    """Reset a player's rank (up or down) from ``date`` on, for one algorithm or all."""
    _check_algorithm(algorithm)
    if date > timezone.localdate():
        raise ServiceError(f"{date} is in the future", [(None, "date", "in the future")])
    with transaction.atomic():
        (seq,) = next_seqs(1)
        adjustment = Adjustment.objects.create(
            seq=seq,
            date=date,
            player=player,
            algorithm=algorithm,
            new_rank=new_rank,
            value=value,
            reason=reason,
            comment=comment,
            resync_batch=batch,
            created_by=user,
        )
        audit(
            user,
            "adjustment_apply",
            adjustment,
            after=adjustment_snapshot(adjustment),
            summary=f"{player.username} -> {new_rank}",
        )
        # a resync refreshes the entry ranks of its whole batch at once
        moved = refresh_entry_ranks([player]) if batch is None else []
        mark_dirty([Touch(date, None, algorithm), *moved])
    return adjustment


@dataclass(frozen=True)
class ResyncChange:
    """One player of a resync: a new national rank and/or, from the list, a rating on
    the GoR scale that the EGF algorithms restart the player from."""

    player: Player
    new_rank: Rank
    rating: Decimal | None = None
    rank_changes: bool = True


def egf_algorithms() -> list[str]:
    """The registered EGF GoR algorithms: the ones a GoR from a list is a value for."""
    return [name for name, cls in registry().items() if issubclass(cls, EgfAlgorithm)]


def resync_apply(
    *, user, changes: Sequence[ResyncChange], effective_date: date, note: str = ""
) -> ResyncBatch:
    """Reset the players whose national rank changed, as one batch.

    A changed rank is one adjustment for every algorithm (the algorithm's default value
    for the rank); a rating from the list is, in addition, one adjustment per EGF
    algorithm with that value, entered after it (so it is the one those algorithms keep).
    """
    if not changes:
        raise ServiceError("nobody's rank changes: nothing to apply")
    comment = f"Resync with national rank ({note})" if note else "Resync with national rank"
    rated_algorithms = egf_algorithms()
    with transaction.atomic():
        batch = ResyncBatch.objects.create(
            created_by=user, effective_date=effective_date, note=note
        )
        players = [change.player for change in changes]
        for change in changes:
            if change.rank_changes:
                before = player_snapshot(change.player)
                Player.objects.filter(pk=change.player.pk).update(national_rank=change.new_rank)
                change.player.national_rank = change.new_rank
                audit(
                    user,
                    "player_national_rank",
                    change.player,
                    before=before,
                    after=player_snapshot(change.player),
                    summary=f"resync {batch.pk}",
                )
                adjustment_apply(
                    user=user,
                    player=change.player,
                    date=effective_date,
                    new_rank=change.new_rank,
                    reason=Adjustment.Reason.RESYNC,
                    comment=comment,
                    batch=batch,
                )
            if change.rating is not None:
                for algorithm in rated_algorithms:
                    adjustment_apply(
                        user=user,
                        player=change.player,
                        date=effective_date,
                        new_rank=change.new_rank,
                        value=change.rating,
                        algorithm=algorithm,
                        reason=Adjustment.Reason.RESYNC,
                        comment=f"{comment}, rating {change.rating:f} from the list",
                        batch=batch,
                    )
        audit(
            user,
            "resync_apply",
            batch,
            after={
                "players": [c.player.username for c in changes if c.rank_changes],
                "ratings": {
                    c.player.username: f"{c.rating:f}" for c in changes if c.rating is not None
                },
                "date": str(effective_date),
            },
            summary=f"{len(changes)} players",
        )
        mark_dirty(refresh_entry_ranks(players))
    return batch


def resync_apply_preview(
    *,
    user,
    preview: ResyncPreview,
    use_ratings: bool = False,
    note: str = "",
    upload: ResyncUpload | None = None,
) -> ResyncBatch:
    """Apply what a preview shows: its changed lines and, with ``use_ratings``, the
    list's ratings of every listed player (changed or not). Refused, storing nothing,
    when nothing would change or the changes carry more than one effective date.

    The kept ``upload`` the preview was read from is used up in the same transaction,
    so that a second click on the apply button (or a second tab) applies nothing twice.
    """
    rows = [
        row
        for row in preview.rows
        if row.outcome == Outcome.CHANGED
        or (use_ratings and row.outcome == Outcome.UNCHANGED and row.rating is not None)
    ]
    if not rows:
        raise ServiceError("Nobody's national rank changes: there is nothing to apply.")
    dates = sorted({row.effective_date for row in rows})
    if len(dates) > 1:
        raise ServiceError(
            "The changes have more than one effective date "
            f"({', '.join(str(day) for day in dates)}). A resync is one batch with one "
            "date: split the list, or leave the dates out of the lines and give the "
            "date in the form."
        )
    players = Player.objects.select_related("club").in_bulk([row.player.pk for row in rows])
    changes = [
        ResyncChange(
            players[row.player.pk],
            row.new_rank,
            rating=row.rating if use_ratings else None,
            rank_changes=row.outcome == Outcome.CHANGED,
        )
        for row in rows
    ]
    with transaction.atomic():
        if upload is not None and not ResyncUpload.objects.filter(pk=upload.pk).delete()[0]:
            raise ServiceError("This list was already applied: see the earlier resyncs.")
        return resync_apply(user=user, changes=changes, effective_date=dates[0], note=note)


# Uploads are kept a day: long enough to check a preview and apply it.
RESYNC_UPLOAD_KEPT = timedelta(days=1)


def resync_upload_store(*, user, name: str, data: bytes) -> ResyncUpload:
    """Keep a previewed list for its apply; forget those older than a day."""
    with transaction.atomic():
        ResyncUpload.objects.filter(created_at__lt=timezone.now() - RESYNC_UPLOAD_KEPT).delete()
        return ResyncUpload.objects.create(
            token=uuid.uuid4(), created_by=user, name=name[:255], data=data
        )


def resync_revert(*, user, batch_id: int) -> ResyncBatch:
    """Undo a whole resync: its adjustments are voided and national ranks restored."""
    with transaction.atomic():
        batch = ResyncBatch.objects.select_for_update().get(pk=batch_id)
        if batch.reverted_at is not None:
            raise ServiceError(f"resync {batch.pk} was already reverted")
        now = timezone.now()
        adjustments = list(batch.adjustments.select_related("player").filter(voided_at=None))
        restored_ranks = national_ranks_before(batch)
        players = [adjustment.player for adjustment in adjustments]
        for adjustment in adjustments:
            before = adjustment_snapshot(adjustment)
            adjustment.voided_at, adjustment.voided_by = now, user
            adjustment.void_reason = f"resync {batch.pk} reverted"
            adjustment.version += 1
            adjustment.save()
            audit(
                user,
                "adjustment_void",
                adjustment,
                before=before,
                after=adjustment_snapshot(adjustment),
            )
            restored = restored_ranks.get(adjustment.player_id)
            if restored is not None:
                Player.objects.filter(pk=adjustment.player_id).update(national_rank=restored)
        batch.reverted_at, batch.reverted_by = now, user
        batch.save(update_fields=["reverted_at", "reverted_by"])
        audit(user, "resync_revert", batch, summary=f"{len(adjustments)} adjustments voided")
        mark_dirty([Touch(batch.effective_date), *refresh_entry_ranks(players)])
    return batch


def national_ranks_before(batch: ResyncBatch) -> dict[int, Rank]:
    """The national rank each player of a resync had before it (player id -> rank), from
    the audit trail, in one query: what reverting the batch restores."""
    entries = AuditEntry.objects.filter(
        action="player_national_rank", summary=f"resync {batch.pk}"
    ).order_by("id")
    ranks = {}
    for object_id, before in entries.values_list("object_id", "before"):
        if before and before.get("national_rank") and object_id.isdigit():
            ranks[int(object_id)] = parse_rank(before["national_rank"])
    return ranks


# --- imports --------------------------------------------------------------------


@dataclass
class ImportResult:
    games: int
    adjustments: int
    new_players: list[str]
    new_tournaments: list[str]
    warnings: list[str] = field(default_factory=list)


def games_import(
    *,
    user,
    records: Sequence[GameRecord],
    allow_duplicates: bool = False,
    dry_run: bool = False,
    source: str = "",
) -> ImportResult:
    """Import SPEC section 2 records at once, all or nothing, in file order.

    Unknown players are created from the rank on their first row in replay order;
    tournaments from their code. Raises ``ServiceError`` with line-numbered errors.
    """
    usernames = {name for record in records for name in (record.white, record.black)}
    with transaction.atomic():
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
            summary=f"import {source}",
        )
        players.update((player.username, player) for player in created)
        codes = {r.tournament for r in records if r.tournament and not r.is_adjustment}
        tournaments = {t.code: t for t in Tournament.objects.filter(code__in=codes)}
        new_tournaments = sorted(codes - set(tournaments))
        for code in new_tournaments:
            first = next(r for r in records if r.tournament == code)
            tournaments[code] = Tournament.objects.create(
                code=code, name=code, egf_class=first.tournament_class
            )
        errors: list[tuple[Any, str, str]] = []
        inputs: list[tuple[GameRecord, GameInput]] = []
        today = timezone.localdate()
        for record in records:
            if record.is_adjustment:
                continue
            game = GameInput(
                date=record.date,
                white=players[record.white],
                black=players[record.black],
                winner=record.winner.value,
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
            )
            problems = _game_problems(game, today)
            errors += [(f"line {record.line}", name, message) for name, message in problems]
            inputs.append((record, game))
        if errors:
            raise ServiceError("the file has errors; nothing was imported", errors)
        if not allow_duplicates:
            duplicates = find_duplicates(
                [game for _, game in inputs], [f"line {record.line}" for record, _ in inputs]
            )
            if duplicates:
                raise DuplicateGamesError(
                    "rows identical to stored games or to each other "
                    "(use --allow-duplicates to import them anyway)",
                    [(None, "", text) for text in duplicates],
                )
        # Entry numbers follow the file's order, so the replay order (date, round, seq)
        # is the one `python -m ratings rate` uses on the same file.
        seq_of = dict(zip((id(r) for r in records), next_seqs(len(records)), strict=True))
        adjustments = 0
        for record in records:
            if not record.is_adjustment:
                continue
            value = record.value
            Adjustment.objects.create(
                seq=seq_of[id(record)],
                date=record.date,
                player=players[record.white],
                algorithm=record.algorithm,
                new_rank=record.white_rank,
                value=Decimal(value.numerator) / Decimal(value.denominator) if value else value,
                reason=Adjustment.Reason.COMMITTEE,
                comment=record.comment,
                created_by=user,
            )
            adjustments += 1
        # COPY on PostgreSQL: a million games in minutes rather than hours of bulk_create.
        now = timezone.now()
        with RowWriter(Game, _GAME_COLUMNS) as games:
            for record, game in inputs:
                games.add(_game_row(game, seq_of[id(record)], user, now))
        AuditEntry.objects.create(
            user=user,
            action="games_import",
            object_type="import",
            object_id="",
            summary=f"{source}: {len(inputs)} games, {adjustments} adjustments",
            after={"games": len(inputs), "adjustments": adjustments, "new_players": new_players},
        )
        _refresh_last_updated(players.values())
        refresh_tournament_counts(tournament.pk for tournament in tournaments.values())
        mark_dirty(
            [
                Touch(game.date, game.tournament.pk if game.tournament else None)
                for _, game in inputs
            ]
            + [Touch(r.date, None, r.algorithm) for r in records if r.is_adjustment]
            + refresh_entry_ranks(players.values())
        )
        result = ImportResult(len(inputs), adjustments, new_players, new_tournaments)
        if dry_run:
            transaction.set_rollback(True)
    return result


# --- committee: merging two records of one person -------------------------------


def player_merge(*, user, keep: Player, duplicate: Player, note: str = "") -> Player:
    """Move the duplicate record's games and adjustments to the record to keep, and mark
    the duplicate inactive (never deleted: the audit trail refers to it).

    Refused when the two records played each other: then they are two people. Void games
    between them stay with the duplicate (they count for nothing and a game cannot have
    the same player on both sides). The ratings are marked dirty from the earliest game
    or adjustment of either record, so the replay starts before both and rewrites every
    history row of the duplicate.
    """
    if keep.pk == duplicate.pk:
        message = "choose two different records: this is the record to keep"
        raise ServiceError(message, [(None, "duplicate", message)])
    with transaction.atomic():
        # Row locks, in a fixed order, so that two merges of the same records (either
        # way round) cannot both pass the checks below.
        locked = {
            p.pk: p
            for p in Player.objects.select_for_update()
            .filter(pk__in=[keep.pk, duplicate.pk])
            .order_by("pk")
        }
        keep, duplicate = locked[keep.pk], locked[duplicate.pk]
        if not keep.active:
            message = f"{keep.username} is inactive: keep an active record"
            raise ServiceError(message, [(None, "keep", message)])
        between = Game.objects.valid().filter(
            Q(white=keep, black=duplicate) | Q(white=duplicate, black=keep)
        )
        played = between.aggregate(count=Count("pk"), first=Min("date"))
        if played["count"]:
            message = (
                f"{keep.username} and {duplicate.username} played each other "
                f"({played['count']} game{'s' if played['count'] > 1 else ''}, "
                f"the first on {played['first']}): "
                "they are two people, not two records of one person"
            )
            raise ServiceError(message, [(None, "duplicate", message)])
        earliest = earliest_entry([keep, duplicate])
        moved_games = list(
            Game.objects.select_related("white", "black", "tournament")
            .filter(Q(white=duplicate) | Q(black=duplicate))
            .exclude(Q(white=keep) | Q(black=keep))
        )
        before = {game.pk: game_snapshot(game) for game in moved_games}
        Game.objects.filter(pk__in=before, white=duplicate).update(
            white=keep, version=F("version") + 1
        )
        Game.objects.filter(pk__in=before, black=duplicate).update(
            black=keep, version=F("version") + 1
        )
        moved_adjustments = list(Adjustment.objects.filter(player=duplicate).order_by("seq"))
        Adjustment.objects.filter(player=duplicate).update(player=keep, version=F("version") + 1)
        games_after = Game.objects.select_related("white", "black", "tournament").filter(
            pk__in=before
        )
        AuditEntry.objects.bulk_create(
            [
                AuditEntry(
                    user=user,
                    action="game_reassign",
                    object_type="game",
                    object_id=str(game.pk),
                    summary=f"{duplicate.username} merged into {keep.username}",
                    before=before[game.pk],
                    after=game_snapshot(game),
                )
                for game in games_after
            ]
        )
        duplicate_before = player_snapshot(duplicate)
        duplicate.active = False
        duplicate.merged_into = keep
        duplicate.save(update_fields=["active", "merged_into"])
        if duplicate.account_id is not None and keep.account_id is None:
            # The player's own login follows their games to the record kept.
            account = duplicate.account
            duplicate.account = None
            duplicate.save(update_fields=["account"])
            _link(user, account, keep)
        summary = f"{duplicate.username} merged into {keep.username}"
        details = {
            "kept": keep.username,
            "duplicate": duplicate.username,
            "games": sorted(before),
            "adjustments": [adjustment.seq for adjustment in moved_adjustments],
            "note": note,
        }
        audit(user, "player_merge", keep, after=details, summary=summary)
        audit(
            user,
            "player_deactivate",
            duplicate,
            before=duplicate_before,
            after=player_snapshot(duplicate) | {"merged_into": keep.username, "note": note},
            summary=summary,
        )
        _refresh_last_updated([keep, duplicate])
        refresh_tournament_counts(game.tournament_id for game in moved_games)
        refresh_entry_ranks([keep, duplicate])  # both replay from the earliest anyway
        if earliest is not None and (moved_games or moved_adjustments):
            mark_dirty(
                [Touch(earliest)] + [Touch(game.date, game.tournament_id) for game in moved_games]
            )
    keep.refresh_from_db()
    return keep


def earliest_entry(players: Sequence[Player]) -> date | None:
    """The date of the first valid game or adjustment of any of ``players``."""
    first_game = (
        Game.objects.valid()
        .filter(Q(white__in=players) | Q(black__in=players))
        .aggregate(first=Min("date"))["first"]
    )
    first_adjustment = (
        Adjustment.objects.valid().filter(player__in=players).aggregate(first=Min("date"))["first"]
    )
    present = [day for day in (first_game, first_adjustment) if day is not None]
    return min(present) if present else None


def refresh_entry_ranks(players: Iterable[Player]) -> list[Touch]:
    """Store the declared rank (``Player.declared_rank``) of each of ``players`` after a
    write of their games or adjustments, and return the touches of the write that moved
    someone's entry rank (SPEC section 2). Such a player is rated from the new rank from
    their first row on, so each algorithm replays from that player's first game or
    first adjustment it applies, which may lie long before the dates the write itself
    touches (an older tournament's games imported, a game that declared a rank voided).
    A few queries per 500 players."""
    ids = sorted({player.pk for player in players})
    moved: list[int] = []
    for chunk in (ids[start : start + _ID_CHUNK] for start in range(0, len(ids), _ID_CHUNK)):
        stored = Player.objects.filter(pk__in=chunk).values_list(
            "pk", "declared_rank", "entry_rank"
        )
        declared = declared_ranks(chunk)
        changed = []
        for pk, before, created in stored:
            after = declared.get(pk)
            if after != before:
                changed.append((rank_to_code(after) if after is not None else None, pk))
                if (created if after is None else after) != (created if before is None else before):
                    moved.append(pk)
        update_rows(Player, ("declared_rank",), changed)
    touches = []
    for chunk in (moved[start : start + _ID_CHUNK] for start in range(0, len(moved), _ID_CHUNK)):
        first_game = (
            Game.objects.valid()
            .filter(Q(white__in=chunk) | Q(black__in=chunk))
            .aggregate(first=Min("date"))["first"]
        )
        if first_game is not None:
            touches.append(Touch(first_game))
        first_adjustments = (
            Adjustment.objects.valid()
            .filter(player__in=chunk)
            .values_list("algorithm")
            .annotate(first=Min("date"))
            .order_by()
        )
        touches += [Touch(day, None, algorithm) for algorithm, day in first_adjustments]
    return touches


# --- committee: accounts ----------------------------------------------------------


class Role(models.TextChoices):
    """What an account may do; committee members are volunteers too."""

    # Player accounts, linked to their record, are of this role too.
    READER = "reader", "Player (no volunteer role)"
    VOLUNTEER = "volunteer", "Volunteer"
    COMMITTEE = "committee", "Committee"


ROLE_GROUPS = {
    Role.READER: (),
    Role.VOLUNTEER: (VOLUNTEERS,),
    Role.COMMITTEE: (VOLUNTEERS, COMMITTEE),
}
# Unambiguous letters and digits, in groups, so a password can be read out on the phone.
_PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def temporary_password() -> str:
    """A random password to hand to someone who forgot theirs (about 74 bits)."""
    return "-".join("".join(secrets.choice(_PASSWORD_ALPHABET) for _ in range(5)) for _ in range(3))


def account_role(account) -> Role:
    names = set(account.groups.values_list("name", flat=True))
    if COMMITTEE in names:
        return Role.COMMITTEE
    if VOLUNTEERS in names:
        return Role.VOLUNTEER
    return Role.READER


def account_snapshot(account) -> dict[str, Any]:
    return {
        "username": account.username,
        "role": str(account_role(account)),
        "is_active": account.is_active,
        "is_staff": account.is_staff,
        "is_superuser": account.is_superuser,
    }


def account_change_refusal(user, account) -> str | None:
    """Why ``user`` may not change ``account``, or None. Staff accounts are changed by
    staff only (a superuser's by a superuser), and the system account that imports act
    as is nobody's to change."""
    if is_reserved_username(account.username):
        return f"'{SYSTEM_USERNAME}' is the site's own account; it has no login"
    if account.is_superuser and not user.is_superuser:
        return f"{account.username} is a superuser: only a superuser may change this account"
    if account.is_staff and not (user.is_staff or user.is_superuser):
        return f"{account.username} is a staff account: only staff may change this account"
    return None


def _check_may_change(user, account) -> None:
    refusal = account_change_refusal(user, account)
    if refusal:
        raise ServiceError(refusal)


def _set_role(account, role: Role) -> None:
    ours = Group.objects.filter(name__in=(VOLUNTEERS, COMMITTEE))
    account.groups.remove(*ours)
    account.groups.add(*Group.objects.filter(name__in=ROLE_GROUPS[Role(role)]))
    account._clubrating_groups = None  # the permission cache of this user object


def username_refusal(username: str) -> str | None:
    """Why a new account may not be called ``username``, or None. Two usernames that
    differ only in case or in full-width letters are the same login (the log-in form
    NFKC-normalises what is typed), so they are the same name here too."""
    if is_reserved_username(username):
        return f"'{username}' is reserved for the site's own account"
    wanted = canonical_username(username)
    # A club has a few hundred accounts; the database's case-insensitive match knows
    # neither NFKC nor, on SQLite, non-ASCII case.
    for existing in get_user_model().objects.values_list("username", flat=True).iterator():
        if canonical_username(existing) == wanted:
            return f"'{username}' is taken (usernames ignore case here)"
    return None


def account_create(*, user, username: str, password: str, role: Role, player: Player | None = None):
    """A new login for a volunteer or committee member (or a player); with ``player``,
    linked to that player record in the same transaction."""
    accounts = get_user_model().objects
    refusal = username_refusal(username)
    if refusal:
        raise ServiceError(refusal, [(None, "username", refusal)])
    username = get_user_model().normalize_username(username)
    if player is not None:
        _check_player_unlinked(player)
    try:
        with transaction.atomic():
            account = accounts.create_user(username=username, password=password)
            _set_role(account, role)
            audit(
                user,
                "account_create",
                account,
                after=account_snapshot(account),
                summary=f"{username} ({Role(role).label})",
            )
            if player is not None:
                _link(user, account, player)
    except IntegrityError:  # created by someone else meanwhile
        message = f"'{username}' is taken"
        raise ServiceError(message, [(None, "username", message)]) from None
    return account


def _check_player_unlinked(player: Player, account=None) -> None:
    holder_id = Player.objects.filter(pk=player.pk).values_list("account_id", flat=True).first()
    if holder_id is not None and (account is None or holder_id != account.pk):
        holder = get_user_model().objects.get(pk=holder_id)
        message = f"{player.username} already has an account ({holder.username}); unlink it first"
        raise ServiceError(message, [(None, "player", message)])


def _link(user, account, player: Player | None) -> None:
    before = Player.objects.filter(account=account).first()
    Player.objects.filter(account=account).update(account=None)
    if player is not None:
        Player.objects.filter(pk=player.pk).update(account=account)
        player.account = account
    account._clubrating_player = player  # the cache of report_selectors.linked_player
    audit(
        user,
        "account_player",
        account,
        before={"player": before.username if before else None},
        after={"player": player.username if player else None},
        summary=f"{account.username} -> {player.username if player else 'no player record'}",
    )


def account_link_player(*, user, account, player: Player | None):
    """Link ``account`` to ``player`` (None: unlink): the player's own login, for their
    page and their reports. One account per record, one record per account."""
    _check_may_change(user, account)
    if player is not None:
        _check_player_unlinked(player, account)
    with transaction.atomic():
        try:
            _link(user, account, player)
        except IntegrityError as error:  # linked by someone else meanwhile
            message = f"{player.username} was linked to another account meanwhile"
            raise ServiceError(message, [(None, "player", message)]) from error
    return account


def account_set_roles(*, user, account, role: Role):
    """Give an account the role ``role``. A committee member cannot drop their own
    committee role, so the club cannot lock itself out of the committee pages."""
    _check_may_change(user, account)
    if (
        account.pk == user.pk
        and not user.is_superuser
        and account_role(account) == Role.COMMITTEE
        and role != Role.COMMITTEE
    ):
        message = "you cannot remove your own committee role: ask another committee member"
        raise ServiceError(message, [(None, "role", message)])
    with transaction.atomic():
        before = account_snapshot(account)
        _set_role(account, role)
        after = account_snapshot(account)
        audit(
            user,
            "account_roles",
            account,
            before=before,
            after=after,
            summary=f"{account.username}: {before['role']} -> {after['role']}",
        )
    return account


def account_set_temporary_password(*, user, account, password: str):
    """Replace a forgotten password. The password itself is never written to the audit
    trail; the account's open sessions end (Django ties them to the password), and any
    log-in lockout of the account, from whatever address, is lifted."""
    _check_may_change(user, account)
    with transaction.atomic():
        account.set_password(password)
        account.save(update_fields=["password"])
        reset_login_lockout(username=canonical_username(account.username))
        audit(user, "account_password", account, summary=f"temporary password for {account}")
    return account


# --- tournaments ------------------------------------------------------------------

# Paths under /tournaments/ that are pages, not tournaments: no code may be called so.
RESERVED_TOURNAMENT_CODES = frozenset({"new", "import"})
_TOURNAMENT_CODE_CHARACTERS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
)


def tournament_code_problem(code: str) -> str | None:
    """Why ``code`` cannot name a tournament (whether it is taken aside), or None."""
    max_length = Tournament._meta.get_field("code").max_length
    if not code or len(code) > max_length or not set(code) <= _TOURNAMENT_CODE_CHARACTERS:
        return f"'{code}' is not a code: letters, digits, - and _ only (at most {max_length})"
    if code.lower() in RESERVED_TOURNAMENT_CODES:
        return f"'{code}' is reserved: choose another code"
    return None


def tournament_create(
    *,
    user,
    code: str,
    name: str,
    start_date: date | None = None,
    end_date: date | None = None,
    egf_class: str = Tournament.EgfClass.A,
    summary: str = "",
) -> Tournament:
    """A new tournament, so that sheets and imports can name its code. ``summary`` says
    where it came from in the audit trail (default: its code)."""
    problems = []
    code_problem = tournament_code_problem(code)
    if code_problem:
        problems.append((None, "code", code_problem))
    elif Tournament.objects.filter(code=code).exists():
        problems.append((None, "code", f"the code '{code}' is taken"))
    if egf_class not in Tournament.EgfClass.values:
        problems.append((None, "egf_class", f"'{egf_class}' is not an EGF class (A, B, C or D)"))
    if start_date and end_date and end_date < start_date:
        problems.append((None, "end_date", f"the end {end_date} is before the start {start_date}"))
    if end_date and not start_date:
        problems.append((None, "start_date", "a tournament with an end date needs a start date"))
    if problems:
        raise ServiceError("the tournament was not added", problems)
    try:
        # The unique code settles a race with another volunteer adding the same code.
        with transaction.atomic():
            tournament = Tournament.objects.create(
                code=code,
                name=name,
                start_date=start_date,
                end_date=end_date,
                egf_class=egf_class,
            )
            audit(
                user,
                "tournament_create",
                tournament,
                after={
                    "code": code,
                    "name": name,
                    "start_date": _jsonable(start_date),
                    "end_date": _jsonable(end_date),
                    "egf_class": egf_class,
                },
                summary=summary or code,
            )
    except IntegrityError:
        message = f"the code '{code}' is taken"
        raise ServiceError("the tournament was not added", [(None, "code", message)]) from None
    return tournament
