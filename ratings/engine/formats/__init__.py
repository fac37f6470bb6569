"""The field's files, read and written: the game record CSV (:mod:`.games`), the
history and standings CSV (:mod:`.history`), EGD h-files (:mod:`.egd`), OpenGotha XML
(:mod:`.opengotha`) and the rating lists OpenGotha reads (:mod:`.ratinglists`).

This module holds what the two tournament formats share: EGD h-files and OpenGotha
XML, read into game records.

Both readers give a :class:`TournamentFile`: the tournament, its players and its rated
games as SPEC section 2 records (status ``tournament``, one record per game). A record
names its players by :attr:`FilePlayer.username`, a suggestion derived from the name
(:func:`assign_usernames`); the site maps it to its own players before storing
anything, the command line rates the file under these names.

Every round of a tournament is dated by spreading the rounds over the tournament's
days (:func:`round_date`): neither format records the day of a round.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from fractions import Fraction

from ..egf import grade_rating
from ..messages import Count, Message, gettext_noop
from ..ranks import Rank
from ..records import (
    DEFAULT_EVEN_KOMI,
    DEFAULT_HANDICAP_KOMI,
    Entry,
    GameFile,
    GameFileError,
    GameRecord,
    RowError,
    Status,
    Winner,
)

FORMATS = ("egd", "opengotha")
# The largest events (a European Go Congress) have about a thousand players. A file of
# far more is a rating list or a mistake, and reading and matching it would hold a web
# worker for minutes: it is refused, counted before it is parsed.
MAX_PLAYERS = 2000
MAX_USERNAME_LENGTH = 150
MAX_CODE_LENGTH = 50
PIN_RE = re.compile(r"^\d{1,20}$")  # an EGD PIN (and an AGA ID): digits

# Latin letters that Unicode does not decompose into an ASCII letter and an accent.
_ASCII_LETTERS = str.maketrans(
    {
        "ø": "o",
        "Ø": "O",
        "ł": "l",
        "Ł": "L",
        "đ": "d",
        "Đ": "D",
        "ð": "d",
        "Ð": "D",
        "\u0131": "i",  # dotless i
        "ß": "ss",
        "æ": "ae",
        "Æ": "AE",
        "œ": "oe",
        "Œ": "OE",
        "þ": "th",
        "Þ": "TH",
    }
)


def ascii_text(text: str) -> str:
    """``text`` in plain ASCII letters: accents dropped, ``ø`` as ``o``, ``ß`` as ``ss``;
    characters with no ASCII form (CJK, say) are left out."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_ASCII_LETTERS))
    return decomposed.encode("ascii", "ignore").decode("ascii")


def slug(text: str) -> str:
    """Lowercase ASCII words joined by ``-``: ``"Aya de Groot"`` -> ``"aya-de-groot"``."""
    return re.sub(r"[^a-z0-9]+", "-", ascii_text(text).lower()).strip("-")


def tournament_code(text: str) -> str:
    """A tournament code the site accepts (letters, digits, ``-`` and ``_``, at most 50
    characters) made from a file's code or name; case is kept (EGD codes: ``T210604E``)."""
    code = re.sub(r"[^A-Za-z0-9_-]+", "-", ascii_text(text)).strip("-")
    return code[:MAX_CODE_LENGTH].rstrip("-")


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    """What a file says of the tournament itself."""

    code: str
    name: str
    start: date
    end: date
    tournament_class: str = "A"  # EGF class A-D
    komi: Fraction = DEFAULT_EVEN_KOMI  # of the even games; handicap games have 0.5
    rounds: int = 0
    place: str = ""  # EGD PC[...]: "country,city"
    handicap_rule: str = ""  # EGD HA[...], e.g. "h9"
    time: str = ""  # EGD TM[...]: the EGF adjusted time
    comment: str = ""  # EGD CM[...]
    board_size: int = 19
    # The tie-breaker columns the players' ``scores`` hold (h-file: the column heading
    # between the club and the rounds, e.g. MMS SOS SOSOS; OpenGotha: its placement
    # criteria); empty names where the file does not say.
    score_names: tuple[str, ...] = ()
    # OpenGotha's McMahon and bye parameters (genMMBar, genMMS2ValueBye...), as read,
    # to place its players and to be written back.
    mcmahon: tuple[tuple[str, str], ...] = ()
    file_format: str = ""  # "egd" or "opengotha": the file it was read from
    # The columns an h-file has after the rounds (KPMC, WAGC: NBW, Place...), named
    # from the column heading ("" where it does not say), as the players'
    # ``after_rounds`` hold them.
    after_round_names: tuple[str, ...] = ()
    # OpenGotha's time control as its GeneralParameterSet says it (basicTime, the
    # complementary time system and its parameters, bInternet), to derive the EGF class
    # and adjusted time and to be written back; empty when the file does not say (an
    # h-file says only the adjusted time, TM).
    time_control: tuple[tuple[str, str], ...] = ()
    class_reason: str = ""  # how the class was found (derived from the time control)


@dataclass(frozen=True, slots=True)
class FilePlayer:
    """A player as the file lists them. ``number`` is their position in the file (the
    number h-file results refer to); ``username`` the suggestion for a new player."""

    number: int
    surname: str
    given_name: str
    rank: Rank
    username: str = ""
    country: str = ""
    club: str = ""
    pin: str = ""  # EGD PIN, digits
    rating: int | None = None  # the GoR the file gives (OpenGotha ``rating``)
    # Where OpenGotha says the rating comes from (``ratingOrigin``: EGF, FFG, AGA, MAN
    # for the organiser's, INI for one it computed from the rank); "" when not said.
    rating_origin: str = ""
    line: int | None = None
    # The standings as the file has them: the printed place ("" for a tie), the
    # tie-breaker columns as written, and one result per round as an h-file writes it
    # (``12+/w0``, ``0+`` a bye, ``0-`` no game, ``12+!`` a forfeit), numbering
    # opponents by their position in the file.
    place: str = ""
    scores: tuple[str, ...] = ()
    results: tuple[str, ...] = ()
    mcmahon_correction: int = 0  # OpenGotha's smmsCorrection (1: above the bar)
    after_rounds: tuple[str, ...] = ()  # an h-file's columns after the rounds, as written
    national_id: str = ""  # the player's id with their federation (OpenGotha ``agaId``)
    # What an OpenGotha file wrote of the player that the fields above do not keep as
    # written, to write it back: (attribute, value) of name and firstName (with their
    # spaces or "_"), rank, grade, country, agaId, ffgLicence...
    written: tuple[tuple[str, str], ...] = ()

    @property
    def full_name(self) -> str:
        """ "Given Surname", as the site keeps full names."""
        return " ".join(part for part in (self.given_name, self.surname) if part)


@dataclass(slots=True)
class TournamentFile:
    """A tournament file, read. ``notes`` say what was read but not rated (forfeits,
    games without a result), for the user to see."""

    tournament: TournamentInfo
    players: list[FilePlayer]
    records: list[GameRecord]
    notes: list[str] = field(default_factory=list)

    def player(self, username: str) -> FilePlayer:
        for player in self.players:
            if player.username == username:
                return player
        raise KeyError(username)

    def entries(self) -> dict[str, Entry]:
        """Each player's entry: the rank the file gives them, and the GoR it declares."""
        return {
            player.username: Entry(player.rank, declared_rating=declared_rating(player))
            for player in self.players
        }

    def as_game_file(self) -> GameFile:
        """The records as the CSV reader would give them; the notes become warnings."""
        return GameFile(list(self.records), list(self.notes))

    def renamed(
        self, *, code: str | None = None, tournament_class: str | None = None
    ) -> TournamentFile:
        """This file under another tournament code or EGF class (records included)."""
        given = self.tournament
        new_class = given.tournament_class if tournament_class is None else tournament_class
        chosen = new_class != given.tournament_class
        info = dataclasses.replace(
            given,
            code=given.code if code is None else code,
            tournament_class=new_class,
            class_reason=_chosen_class_reason(new_class, given) if chosen else given.class_reason,
        )
        records = [
            dataclasses.replace(
                record, tournament=info.code, tournament_class=info.tournament_class
            )
            for record in self.records
        ]
        return TournamentFile(info, list(self.players), records, list(self.notes))


def declared_rating(player: FilePlayer) -> Fraction | None:
    """The GoR the file declares for ``player``: None when it gives none (OpenGotha
    writes -2950 and below for "no rating") or when its rating is no declaration
    (:func:`rating_not_declared`): then the player starts from their rank."""
    if player.rating is None or player.rating <= MIN_DECLARED_RATING:
        return None
    if rating_not_declared(player):
        return None
    return Fraction(player.rating)


MIN_DECLARED_RATING = -900  # a GoR is above -900 (30k); OpenGotha's "none" is -2950
# Ratings a federation gave: declarations whatever the rank (a real GoR often lies
# several grades from the rank a player registers with).
FEDERATION_ORIGINS = frozenset({"EGF", "FFG", "AGA"})
# More than a grade from the rank: beyond the next grade's middle and half a grade.
RANK_TOLERANCE = 150


def rating_not_declared(player: FilePlayer) -> str:
    """Why the rating the file gives ``player`` is no declared GoR, or "": OpenGotha's
    ``INI`` (a rating it filled in from nothing: Congreso 2020 starts a 19k and a 7d
    alike at 2100), or, from no federation (the organiser's ``MAN``, a file that does
    not say), a rating more than a grade away from the rank (said in the preview)."""
    rating = player.rating
    if rating is None or rating <= MIN_DECLARED_RATING:
        return ""
    origin = player.rating_origin.strip().upper()
    if origin == "INI":
        return Message(
            gettext_noop(
                "GoR %(rating)s is OpenGotha's own (INI), computed from nothing: not a declaration"
            ),
            rating=rating,
        )
    if origin in FEDERATION_ORIGINS:
        return ""
    expected = grade_rating(player.rank)
    if abs(rating - expected) > RANK_TOLERANCE:
        return Message(
            gettext_noop(
                "GoR %(rating)s contradicts the rank %(rank)s (GoR %(expected)s) by more than a "
                "grade: not a declaration"
            ),
            rating=rating,
            rank=str(player.rank),
            expected=f"{expected:.0f}",
        )
    return ""


def with_declared_ratings(
    entries: dict[str, Entry], players: Sequence[FilePlayer]
) -> dict[str, Entry]:
    """``entries`` with each file player's declared GoR (``python -m ratings`` on a
    tournament file: the site stores the same GoR on the player it creates)."""
    ratings = {player.username: declared_rating(player) for player in players}
    return {
        name: dataclasses.replace(entry, declared_rating=ratings[name])
        if ratings.get(name) is not None and entry.declared_rating is None
        else entry
        for name, entry in entries.items()
    }


def komi_of(text: str) -> Fraction | None:
    """A komi as SPEC section 2 allows it (a multiple of 0.5 in -50..50), or None."""
    try:
        komi = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        return None
    return komi if komi.denominator in (1, 2) and -50 <= komi <= 50 else None


def format_komi(komi: Fraction) -> str:
    """A komi as the files write it: ``7``, ``6.5``, ``-0.5``."""
    numerator, denominator = komi.numerator, komi.denominator
    if denominator == 1:
        return str(numerator)
    return str(numerator / denominator)  # what float(komi) is, without its detour


def round_date(start: date, end: date, round_number: int, rounds: int) -> date:
    """The day round ``round_number`` (1..rounds) is dated: the rounds spread evenly over
    the tournament's days, the first on the first day (5 rounds on a weekend: 3 on
    Saturday, 2 on Sunday; 10 rounds over 14 days: days 1, 2, 3, 5, 6, 8, 9, 10, 12, 13)."""
    days = (end - start).days + 1
    if rounds <= 1 or days <= 1 or round_number <= 1:
        return start
    return start + timedelta(days=min(round_number - 1, rounds - 1) * days // rounds)


def _chosen_class_reason(chosen: str, given: TournamentInfo) -> Message:
    """Why a file read under another class than its own has that class."""
    if not given.class_reason:
        return Message(
            gettext_noop("class %(chosen)s, as chosen (the file gives class %(given)s)"),
            chosen=chosen,
            given=given.tournament_class,
        )
    return Message(
        gettext_noop("class %(chosen)s, as chosen (the file gives class %(given)s: %(reason)s)"),
        chosen=chosen,
        given=given.tournament_class,
        reason=given.class_reason,
    )


# The most rounds one day holds: a file that gives one date to more rounds most likely
# spread over more days it does not name (EGC 2011's ten rounds, beginDate = endDate).
ONE_DAY_ROUNDS = 5


def one_day_warning(tournament: TournamentFile) -> str:
    """What to tell before importing a file that gives one date to more rounds than a
    day holds (:data:`ONE_DAY_ROUNDS`): every game gets that date, since a file does
    not say which day a round was played ("" for any other file). A :class:`Message`,
    which the page shows in its language."""
    info = tournament.tournament
    rounds = len({record.round for record in tournament.records})
    if info.start != info.end or rounds <= ONE_DAY_ROUNDS:
        return ""
    return Message(
        gettext_noop(
            "The file gives one date, %(day)s, for %(rounds)s rounds: all %(games)s games "
            "are dated that day (a file does not say which day a round was played). If the "
            "tournament took more days, put its first and last day in the file and read it "
            "again: the rounds are then spread over those days."
        ),
        day=info.start.isoformat(),
        rounds=rounds,
        games=Count(len(tournament.records)),
    )


def tournament_game(
    info: TournamentInfo,
    round_number: int,
    white: FilePlayer,
    black: FilePlayer,
    winner: Winner,
    handicap: int,
    *,
    line: int | None,
    time_minutes: Fraction | None = None,
) -> GameRecord:
    """A rated game of the file as a record: dated by its round (:func:`round_date`),
    the players' ranks as the file gives them, the file's komi (0.5 with handicap)."""
    return GameRecord(
        date=round_date(info.start, info.end, round_number, info.rounds),
        white=white.username,
        black=black.username,
        winner=winner,
        white_rank=white.rank,
        black_rank=black.rank,
        handicap=handicap,
        komi=info.komi if handicap == 0 else DEFAULT_HANDICAP_KOMI,
        status=Status.TOURNAMENT,
        board_size=info.board_size,
        tournament=info.code,
        tournament_class=info.tournament_class,
        round=round_number,
        time_minutes=time_minutes,
        line=line,
    )


def _collision_order(player: FilePlayer) -> tuple:
    # What survives writing a file and reading it back, so that namesakes keep their
    # usernames whatever order the file lists them in.
    return (
        player.pin or "~",
        player.country,
        player.club,
        -player.rank.stones,
        -player.rank.pro,
        player.surname,
        player.given_name,
        player.number,
    )


def assign_usernames(players: Sequence[FilePlayer]) -> list[FilePlayer]:
    """``players`` with their suggested usernames: the lowercase ASCII slug of "given
    surname" (``player-<number>`` when the name has no ASCII letters); namesakes get
    ``-2``, ``-3``... in the order of PIN, country, club and rank, so the suggestion does
    not depend on where the file lists them."""
    by_slug: dict[str, list[FilePlayer]] = defaultdict(list)
    for player in players:
        base = slug(f"{player.given_name} {player.surname}")[: MAX_USERNAME_LENGTH - 8]
        by_slug[base.strip("-") or f"player-{player.number}"].append(player)
    taken = set(by_slug)
    chosen: dict[int, str] = {}
    for base, namesakes in by_slug.items():
        ordered = sorted(namesakes, key=_collision_order)
        chosen[ordered[0].number] = base
        suffix = 2
        for player in ordered[1:]:
            while f"{base}-{suffix}" in taken:
                suffix += 1
            chosen[player.number] = f"{base}-{suffix}"
            taken.add(chosen[player.number])
    return [dataclasses.replace(player, username=chosen[player.number]) for player in players]


def too_many_players(count: int, source: str) -> GameFileError | None:
    """The error for a file listing ``count`` players, if that is over MAX_PLAYERS."""
    if count <= MAX_PLAYERS:
        return None
    return GameFileError(
        [
            RowError(
                1,
                "",
                Message(
                    gettext_noop(
                        "the file lists %(count)s players; a tournament file holds at most "
                        "%(limit)s (is this a rating list?)"
                    ),
                    count=Count(count),
                    limit=Count(MAX_PLAYERS),
                ),
            )
        ],
        source,
    )


def guess_format(data: bytes) -> str:
    """``opengotha`` for an XML file, else ``egd``: an h-file never starts with ``<``."""
    start = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    return "opengotha" if start.startswith(b"<") else "egd"


def read_tournament_file(data: bytes | str, file_format: str, source: str = "") -> TournamentFile:
    """Read ``data`` as ``file_format`` (``egd`` or ``opengotha``)."""
    if file_format == "egd":
        from .egd import read_egd

        return read_egd(data, source)
    if file_format == "opengotha":
        from .opengotha import read_opengotha

        return read_opengotha(data, source)
    raise ValueError(f"unknown tournament file format '{file_format}' ({', '.join(FORMATS)})")
