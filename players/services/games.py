"""Writing games: checks (duplicates, outliers), record sheets, corrections, voids, and the
dates and entry ranks they refresh."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal

from django.db import transaction
from django.db.models import Count, Max, Min, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from players import stored_sentences as sentences
from players.fields import rank_to_code
from players.models import (
    Adjustment,
    AuditEntry,
    Club,
    Game,
    Player,
    RecordSheet,
    Tournament,
)
from players.roles import VOLUNTEERS, ClubRefusal, check_club_scope, game_refused
from players.services.audit import audit, game_snapshot
from players.services.base import (
    ID_CHUNK,
    ConcurrentEditError,
    DuplicateGamesError,
    ServiceError,
    announce_club_games,
    next_seqs,
)
from players.services.tournaments import refresh_tournament_counts
from ratings.engine.messages import Message
from ratings.engine.ranks import Rank
from ratings.recompute.bulk import update_rows
from ratings.recompute.dirty import Touch, mark_dirty
from ratings.selectors import declared_ranks


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
    colour_given: bool = True  # False: a file's even game without colours (Game.colour_given)

    @property
    def resolved_komi(self) -> Decimal:
        if self.komi is not None:
            return Decimal(self.komi)
        return default_komi(self.handicap)

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
    sheet: RecordSheet
    games: list[Game]
    warnings: list[str] = field(default_factory=list)


def refresh_last_updated(players: Iterable[Player]) -> None:
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
    for chunk in (ids[start : start + ID_CHUNK] for start in range(0, len(ids), ID_CHUNK)):
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
    for start in range(0, len(seqs), ID_CHUNK):
        chunk = seqs[start : start + ID_CHUNK]
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


_WINNERS = frozenset(Game.Winner.values)

# No club rating reaches back before this day: a date before it (year 1, a century
# typed wrong) is a missing or mistyped date, not an old game. The oldest real event
# of the go-tournaments-archive is WAGC 1979; a club with no game yet accepts it.
EARLIEST_GAME_DATE = date(1900, 1, 1)


def game_date_problem(day: date, today: date | None = None) -> str | None:
    """Why no game can be dated ``day`` (after today, or before EARLIEST_GAME_DATE), or
    None. The one rule of a game's date: a form's game, an import's line and a
    tournament file's dates (``today``: default now)."""
    today = today or timezone.localdate()
    if day > today:
        return _("%(day)s is in the future") % {"day": day}
    if day < EARLIEST_GAME_DATE:
        return _("%(day)s is before %(earliest)s, the earliest date a game can have") % {
            "day": day,
            "earliest": EARLIEST_GAME_DATE,
        }
    return None


def accepted_game_dates(today: date | None = None) -> str:
    """The dates :func:`game_date_problem` accepts, said for the user."""
    return _("from %(earliest)s to today (%(today)s)") % {
        "earliest": EARLIEST_GAME_DATE,
        "today": today or timezone.localdate(),
    }


_STATUSES = frozenset(Game.Status.values)


def jigo_problem(winner: str, komi: Decimal) -> str | None:
    """Why a result cannot be a jigo with this komi, or None. A half-point komi leaves no
    tie: a jigo (SPEC section 2: winner D) needs an integer komi, so a D with komi 6.5 is
    a mistyped result or komi. The forms ask it with the fields' own checks."""
    if winner == "D" and komi != int(komi):
        return _("a jigo (D) needs an integer komi; komi %(komi)s cannot end in a jigo") % {
            "komi": komi
        }
    return None


def default_komi(handicap: int) -> Decimal:
    """The komi of a game recorded without one: 6.5 even, 0.5 with handicap."""
    return Decimal("6.5") if handicap == 0 else Decimal("0.5")


def doubtful_games(games: Sequence[GameInput], labels: Sequence[str] | None = None) -> list[str]:
    """The games a volunteer confirms before they are stored: duplicates and dates far
    from the players' other games (``labels`` as for :func:`find_duplicates`)."""
    return find_duplicates(games, labels) + find_outliers(games, labels)


def game_problems(game: GameInput, today: date | None = None) -> list[tuple[str, str]]:
    """What is wrong with ``game`` (field, message); ``today`` (default: now) for an
    import, which checks a million games."""
    problems = []
    if game.white.pk == game.black.pk:
        problems.append(("black", _("a player cannot play themselves")))
    date_problem = game_date_problem(game.date, today)
    if date_problem:
        problems.append(("date", date_problem))
    if game.winner not in _WINNERS:
        problems.append(("winner", _("'%(winner)s' is not W, B or D") % {"winner": game.winner}))
    if not 0 <= game.handicap <= 9:
        problems.append(
            ("handicap", _("%(handicap)s is not a handicap (0 to 9)") % {"handicap": game.handicap})
        )
    komi = game.resolved_komi
    if komi * 2 != int(komi * 2) or not -50 <= komi <= 50:
        problems.append(
            ("komi", _("%(komi)s is not a komi (a multiple of 0.5 in -50..50)") % {"komi": komi})
        )
    elif jigo := jigo_problem(game.winner, komi):
        problems.append(("winner", jigo))
    if game.status not in _STATUSES:
        problems.append(
            ("status", _("'%(status)s' is not a game status") % {"status": game.status})
        )
    if game.board_size not in (9, 13, 19):
        problems.append(
            ("board_size", _("%(size)s is not 9, 13 or 19") % {"size": game.board_size})
        )
    if game.time_minutes is not None and game.time_minutes <= 0:
        problems.append(("time_minutes", _("the time must be positive")))
    return problems


def _club_warnings(games: Sequence[GameInput]) -> list[str]:
    """Games before a player's club was founded are allowed but worth a second look."""
    warnings = []
    for index, game in enumerate(games, start=1):
        for player in (game.white, game.black):
            club = player.club  # None: a player of no club (no query then)
            founded = club.founded if club is not None else None
            if club is not None and founded and game.date < founded:
                warnings.append(
                    _("game %(number)s: %(date)s is before %(club)s was founded (%(founded)s)")
                    % {"number": index, "date": game.date, "club": club.name, "founded": founded}
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
    game, or to another game of the same batch in the same round, described for the
    user (a stored game's sentence is a :class:`GameOnFile`). ``labels`` name
    the games in messages (default "game 1", "game 2", ...)."""
    labels = labels or game_labels(len(games))
    found = []
    seen: dict[tuple, str] = {}
    for label, game in zip(labels, games, strict=True):
        # Within one batch the round tells games apart too: a tournament file that dates
        # every round the same day has rematches in different rounds (egc2011: the same
        # pair in rounds 5 and 6), not one game twice. A stored game has a round as well,
        # but one file imported again under another code has the same rounds: the
        # comparison with stored games below keeps the rule without it.
        key = (*game.duplicate_key(), game.round)
        if key in seen:
            found.append(
                _("%(game)s is the same as %(other)s") % {"game": label, "other": seen[key]}
            )
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
                    _(
                        "%(game)s (%(date)s, %(white)s - %(black)s, %(result)s) is already on "
                        "file as game %(number)s"
                    )
                    % {
                        "game": label,
                        "date": game.date,
                        "white": game.white.username,
                        "black": game.black.username,
                        "result": _winner_text(game),
                        "number": number,
                    },
                    number,
                )
            )
    return found


# A stored game's fields that make up its duplicate_key.
_KEY_FIELDS = ("date", "white_id", "black_id", "handicap", "komi", "winner")


class VoidedGameOnFile(GameOnFile):
    """A game that is a game on file voided since (``find_voided_matches``): a page lists
    it apart from the duplicates, with when and why it was voided."""


def find_voided_matches(games: Sequence[GameInput], labels: Sequence[str]) -> list[str]:
    """Games identical (as :func:`find_duplicates` compares them) to a stored game that
    was voided, and to no valid one (then that is what matters), said for the user:
    storing such a game stores it again as a new game that counts, while the voided one
    stays voided. ``labels`` as for :func:`find_duplicates`. One query, two when some
    game matches (voided games are few; the valid ones are read only on those days)."""
    if not games:
        return []
    stored = (
        Game.objects.filter(voided_at__isnull=False, date__in={game.date for game in games})
        .order_by("voided_at", "pk")
        .values_list(*_KEY_FIELDS, "pk", "voided_at", "void_reason", "voided_by__username")
    )
    # The latest void of a game entered and voided more than once.
    voided = {duplicate_key(*row[:6]): row[6:] for row in stored}
    matching = [
        (label, game)
        for label, game in zip(labels, games, strict=True)
        if game.duplicate_key() in voided
    ]
    if not matching:
        return []
    valid = {
        duplicate_key(*row)
        for row in Game.objects.valid()
        .filter(date__in={game.date for _, game in matching})
        .values_list(*_KEY_FIELDS)
    }
    found: list[str] = []
    for label, game in matching:
        if game.duplicate_key() in valid:
            continue  # like a valid game: find_duplicates says so
        found.append(_voided_match(label, game, *voided[game.duplicate_key()]))
    return found


def _voided_match(
    label: str, game: GameInput, number: int, voided_at: datetime, reason: str, by: str | None
) -> VoidedGameOnFile:
    """What :func:`find_voided_matches` says of ``game``, like voided game ``number``."""
    values = {
        "game": label,
        "when": (
            _("round %(round)s, %(date)s") % {"round": game.round, "date": game.date}
            if game.round
            else game.date
        ),
        "white": game.white.username,
        "black": game.black.username,
        "result": _winner_text(game),
        "number": number,
        "voided_on": timezone.localdate(voided_at),
        "by": by,
        "reason": reason,
    }
    if by:
        text = _(
            "%(game)s (%(when)s, %(white)s - %(black)s, %(result)s) matches game "
            "%(number)s, voided on %(voided_on)s by %(by)s (reason: %(reason)s): importing "
            "it stores it again as a new game that counts; game %(number)s stays voided"
        )
    else:
        text = _(
            "%(game)s (%(when)s, %(white)s - %(black)s, %(result)s) matches game "
            "%(number)s, voided on %(voided_on)s (reason: %(reason)s): importing it "
            "stores it again as a new game that counts; game %(number)s stays voided"
        )
    return VoidedGameOnFile(text % values, number)


def _winner_text(game: GameInput) -> str:
    """``winner W``; a game whose file gave no colour names its winner instead."""
    if game.colour_given or game.winner not in ("W", "B"):
        return _("winner %(winner)s") % {"winner": game.winner}
    return _("%(player)s won") % {
        "player": (game.white if game.winner == "W" else game.black).username
    }


def game_labels(count: int) -> list[str]:
    """How messages name the games of a batch with no labels of its own: game 1, game 2..."""
    return [_("game %(number)s") % {"number": index} for index in range(1, count + 1)]


OUTLIER_MARGIN = timedelta(days=365)


def find_outliers(
    games: Sequence[GameInput], labels: Sequence[str] | None = None, exclude: Iterable[int] = ()
) -> list[str]:
    """Games dated more than a year before a player's first valid game or after their
    last one: a mistyped year looks like that. Described for the user, to confirm;
    ``labels`` as for :func:`find_duplicates`, ``exclude`` the stored games (by id) not
    to compare with (the one being corrected)."""
    labels = labels or game_labels(len(games))
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
                    _(
                        "%(game)s: %(date)s is more than a year before %(player)s's first game "
                        "(%(first)s)"
                    )
                    % {"game": label, "date": game.date, "player": player.username, "first": first}
                )
            elif game.date > last + OUTLIER_MARGIN:
                found.append(
                    _(
                        "%(game)s: %(date)s is more than a year after %(player)s's last game "
                        "(%(last)s)"
                    )
                    % {"game": label, "date": game.date, "player": player.username, "last": last}
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
        club_id=sheet.club_id if sheet is not None else None,
        comment=game.comment,
        created_by=user,
        colour_given=game.colour_given,
    )


# Every column of a game, as the model defines them (its id aside: the database gives
# it); game_row gives each by name.
GAME_COLUMNS = tuple(field.attname for field in Game._meta.concrete_fields if not field.primary_key)
_IN_GAME_COLUMNS = operator.itemgetter(*GAME_COLUMNS)  # a row's values, in their order


def game_row(game: GameInput, seq: int, user, now) -> tuple:
    """What :func:`_new_game` stores, as one row of ``GAME_COLUMNS`` for a
    ``RowWriter``: a new valid game of no record sheet, entered by ``user`` at ``now``,
    for its tournament's club (none: the federation's)."""
    values = {
        "seq": seq,
        "version": 1,
        "revision": 0,
        "stored_content": None,
        "date": game.date,
        "created_at": now,
        "created_by_id": user.pk,
        "voided_at": None,
        "voided_by_id": None,
        "void_reason": "",
        "comment": game.comment,
        "round": game.round,
        "white_id": game.white.pk,
        "black_id": game.black.pk,
        "white_rank": rank_to_code(game.white_rank) if game.white_rank else None,
        "black_rank": rank_to_code(game.black_rank) if game.black_rank else None,
        "handicap": game.handicap,
        "komi": game.resolved_komi,
        "winner": game.winner,
        "status": game.status,
        "board_size": game.board_size,
        "time_minutes": game.time_minutes,
        "tournament_id": game.tournament.pk if game.tournament else None,
        "record_sheet_id": None,
        "colour_given": game.colour_given,
        # A game of no sheet (an imported file's) is its tournament's club's.
        "club_id": game.tournament.club_id if game.tournament else None,
    }
    return _IN_GAME_COLUMNS(values)


def _touches(game: Game) -> Touch:
    """The game's place in the replay order: tonight's fifth sheet replays only itself."""
    return Touch(game.date, game.tournament_id, "", game.round, game.seq)


def record_sheet_submit(
    *,
    user,
    games: Sequence[GameInput],
    received_on: date | None = None,
    note: str = "",
    allow_duplicates: bool = False,
    club: Club | None = None,
) -> SubmitResult:
    """Store a whole paper record sheet, or nothing. With ``club``, the sheet is that
    club's evening or tournament (its games the club's, whoever played them), entered
    by one of the club's volunteers; without, the federation's."""
    check_club_scope(user, VOLUNTEERS, club.pk if club else None, _("this sheet"))
    if not games:
        raise ServiceError(_("a record sheet needs at least one game"))
    problems = [
        (index, field_name, message)
        for index, game in enumerate(games, start=1)
        for field_name, message in game_problems(game)
    ]
    refusals = TournamentRefusals(user)
    problems += [
        (index, "tournament", refusal)
        for index, game in enumerate(games, start=1)
        if (refusal := refusals.of(game.tournament))
    ]
    if problems:
        raise ServiceError(_("the sheet has errors; nothing was stored"), problems)
    with transaction.atomic():
        if not allow_duplicates:
            doubtful = doubtful_games(games)
            if doubtful:
                raise DuplicateGamesError(
                    _("these games need a second look"),
                    [(None, "", warning) for warning in doubtful],
                )
        sheet = RecordSheet.objects.create(
            entered_by=user, received_on=received_on, note=note, club=club
        )
        seqs = next_seqs(len(games))
        stored = Game.objects.bulk_create(
            [_new_game(game, seq, user, sheet) for game, seq in zip(games, seqs, strict=True)]
        )
        _audit_sheet_games(user, sheet, stored)
        refresh_last_updated([player for game in games for player in (game.white, game.black)])
        refresh_tournament_counts(game.tournament_id for game in stored)
        # a sheet declares no rank, but a game before a player's first-row adjustment
        # takes the entry from it
        moved = refresh_entry_ranks([p for game in games for p in (game.white, game.black)])
        mark_dirty([*(_touches(game) for game in stored), *moved])
        announce_club_games(
            clubs=[sheet.club_id], players=[p for game in games for p in (game.white, game.black)]
        )
    return SubmitResult(sheet, stored, _club_warnings(games))


class TournamentRefusals:
    """Why ``user`` may not add games to a tournament, if so: only its club's volunteers
    (or the federation's, for every tournament) add games to it, on a sheet or in a
    correction as from a file (``tournament_files``). Said at the row's field with the
    403's words, whom to ask included; each tournament is asked about once."""

    def __init__(self, user) -> None:
        self.user = user
        self.found: dict[int, str] = {}

    def of(self, tournament: Tournament | None) -> str:
        if tournament is None:
            return ""
        if tournament.pk not in self.found:
            what = _("the tournament %(code)s") % {"code": tournament.code}
            try:
                check_club_scope(self.user, VOLUNTEERS, tournament.club_id, what)
            except ClubRefusal as refusal:
                self.found[tournament.pk] = f"{refusal} {refusal.remedy}"
            else:
                self.found[tournament.pk] = ""
        return self.found[tournament.pk]


def _audit_sheet_games(user, sheet: RecordSheet, stored: Sequence[Game]) -> None:
    """One audit entry per game of a stored sheet, each its game's club's."""
    AuditEntry.objects.bulk_create(
        [
            AuditEntry(
                user=user,
                action="game_create",
                object_type="game",
                object_id=str(game.pk),
                summary=Message(sentences.SHEET_GAME, sheet=sheet.pk, game=str(game)),
                after=game_snapshot(game),
                club_id=game.club_id,
            )
            for game in stored
        ]
    )


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
            _(
                "game %(number)s was changed by someone else since you opened it "
                "(version %(version)s, yours %(yours)s); reload it and try again"
            )
            % {"number": game.pk, "version": game.version, "yours": version}
        )
    return game


class NothingChangedError(ServiceError):
    """A correction that is the game as it is (comment included): nothing is written."""


def game_correct(
    *, user, game_id: int, version: int, changes: GameInput, allow_outliers: bool = False
) -> Game:
    """Correct a game (any field, including its date: back-dating). A new date more
    than a year away from either player's other games is refused (DuplicateGamesError,
    at the date field) unless ``allow_outliers``; a correction that changes nothing
    writes nothing (NothingChangedError: no new version, audit entry or recompute)."""
    problems = game_problems(changes)
    if problems:
        raise ServiceError(
            _("the correction has errors; nothing was changed"),
            [(None, field, message) for field, message in problems],
        )
    with transaction.atomic():
        game = _locked_game(game_id, version)
        _check_correctable(user, game, changes, allow_outliers)
        before = game_snapshot(game)
        content_before = game.content()
        old_touch, old_players = _touches(game), (game.white, game.black)
        says_colours = _apply_correction(game, changes)
        if game.content() == content_before and game.comment == before["comment"]:
            # The form sent back as it was: a new version and an audit entry whose
            # before and after are the same would say a change that was not made.
            raise NothingChangedError(
                _("nothing changed: game %(number)s is as it was") % {"number": game.pk}
            )
        if says_colours:
            game.colour_given = True
        game.version += 1
        _revise(game, content_before)
        game.save()
        audit(
            user,
            "game_correct",
            game,
            before=before,
            after=game_snapshot(game),
            summary=str(game),
        )
        refresh_last_updated([*old_players, game.white, game.black])
        refresh_tournament_counts([old_touch.tournament_id, game.tournament_id])
        moved = refresh_entry_ranks([*old_players, game.white, game.black])
        mark_dirty([old_touch, _touches(game), *moved])
        announce_club_games(clubs=[game.club_id], players=[*old_players, game.white, game.black])
    return game


def _check_correctable(user, game: Game, changes: GameInput, allow_outliers: bool) -> None:
    """Refuse a correction of a game out of the user's clubs, of a void game, or to a
    date far from either player's other games (unless ``allow_outliers``)."""
    check_club_scope(user, VOLUNTEERS, game.club_id, game_refused(game.pk))
    if game.is_void:
        raise ServiceError(
            _("game %(number)s is void; it cannot be corrected") % {"number": game.pk}
        )
    # A game already in a tournament stays there whoever's it is; it moves into one
    # only by the tournament's club's volunteers.
    moved_to = changes.tournament if changes.tournament != game.tournament else None
    refusal = TournamentRefusals(user).of(moved_to)
    if refusal:
        raise ServiceError(
            _("the correction has errors; nothing was changed"), [(None, "tournament", refusal)]
        )
    if changes.date != game.date and not allow_outliers:
        outliers = find_outliers([changes], [_("the new date")], exclude=[game.pk])
        if outliers:
            raise DuplicateGamesError(
                _("the new date needs a second look"),
                [(None, "date", message) for message in outliers],
            )


# What a correction sets of a game as the form gives it (the komi aside: resolved).
_CORRECTED_FIELDS = (
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
)


def _apply_correction(game: Game, changes: GameInput) -> bool:
    """Set ``changes`` on ``game`` (unsaved) and say whether the correction says who was
    White: it names other players or swaps them, or it is a handicap game (Black is who
    took the stones)."""
    says_colours = (changes.white.pk, changes.black.pk) != (
        game.white_id,
        game.black_id,
    ) or bool(changes.handicap)
    for name in _CORRECTED_FIELDS:
        setattr(game, name, getattr(changes, name))
    game.komi = changes.resolved_komi
    return says_colours


def _revise(game: Game, content_before: dict) -> None:
    """Move ``game.revision`` after a correction (``game.version`` already moved): kept
    when what was played did not change (the comment only), 0 when the correction
    restores the game as stored, else the new version (each content has its own, so a
    report can tell whether the game changed since). A record merged since counts as
    the person it was merged into."""
    stored = game.stored_content or content_before
    content = game.content()
    if same_game(content, content_before):
        return
    if same_game(content, stored):
        game.revision, game.stored_content = 0, None
    else:
        game.revision, game.stored_content = game.version, stored


def same_game(first: dict, second: dict) -> bool:
    """Whether two ``Game.content()`` describe the same game played: equal but for
    players stored under two records of one person (a record merged into another)."""
    if first == second:
        return True
    sides = ("white", "black")
    people = surviving_records([content[side] for content in (first, second) for side in sides])

    def as_played(content: dict) -> dict:
        return content | {side: people.get(content[side], content[side]) for side in sides}

    return as_played(first) == as_played(second)


def surviving_records(ids: Iterable[int]) -> dict[int, int]:
    """Each player record of ``ids`` to the record its person is kept under now: itself,
    or the record it was merged into, followed through later merges (a merge keeps an
    active record and deactivates the other, so a chain ends). A query per merge."""
    survivor = {pk: pk for pk in ids if isinstance(pk, int)}
    pending = set(survivor)
    while pending:
        merged = {
            pk: target  # never None (the filter), narrowed for the type
            for pk, target in Player.objects.filter(
                pk__in=pending, merged_into__isnull=False
            ).values_list("pk", "merged_into")
            if target is not None
        }
        survivor = {pk: merged.get(target, target) for pk, target in survivor.items()}
        pending = set(merged.values())
    return survivor


def game_void(*, user, game_id: int, version: int, reason: str) -> Game:
    """Void a game: it stays on file, marked, and no longer counts."""
    if not reason.strip():
        raise ServiceError(
            _("a reason is required to void a game"),
            [(None, "reason", pgettext("problem", "required"))],
        )
    with transaction.atomic():
        game = _locked_game(game_id, version)
        check_club_scope(user, VOLUNTEERS, game.club_id, game_refused(game.pk))
        if game.is_void:
            raise ServiceError(_("game %(number)s is already void") % {"number": game.pk})
        before = game_snapshot(game)
        game.voided_at = timezone.now()
        game.voided_by = user
        game.void_reason = reason.strip()
        game.version += 1
        game.save()
        audit(user, "game_void", game, before=before, after=game_snapshot(game), summary=reason)
        refresh_last_updated([game.white, game.black])
        refresh_tournament_counts([game.tournament_id])
        moved = refresh_entry_ranks([game.white, game.black])
        mark_dirty([_touches(game), *moved])
        announce_club_games(clubs=[game.club_id], players=[game.white, game.black])
    return game


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
    for chunk in (ids[start : start + ID_CHUNK] for start in range(0, len(ids), ID_CHUNK)):
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
    for chunk in (moved[start : start + ID_CHUNK] for start in range(0, len(moved), ID_CHUNK)):
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
