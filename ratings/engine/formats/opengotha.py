"""OpenGotha tournament files (XML) read into game records.

What is read: ``GeneralParameterSet`` (name, shortName, beginDate, endDate, komi, size,
numberOfRounds, location, basicTime), ``HandicapParameterSet`` (hdCorrection, as the
h-file's ``HA[h<n>]``), each ``Player`` (name, firstName, rank, country, club, egfPin,
rating) and each ``Game`` (roundNumber, tableNumber, whitePlayer, blackPlayer,
handicap, result). A game refers to its players by OpenGotha's key: name and first name
without spaces, in capitals.

Rated: ``RESULT_WHITEWINS``, ``RESULT_BLACKWINS`` and ``RESULT_EQUAL`` (jigo). Not
rated, counted in the notes: forfeits (``*_BYDEF``: the game was not played),
``RESULT_BOTHWIN``/``RESULT_BOTHLOSE`` (no result between the two players) and
``RESULT_UNKNOWN`` (not played yet).

The XML is parsed with expat, the parser under ``xml.etree.ElementTree``, used directly
because it tells the line of each element. A file that declares entities (an ENTITY
declaration, or a DOCTYPE with an internal subset) is refused before parsing, so no
entity is ever expanded; a plain ``<!DOCTYPE Tournament SYSTEM "tournament.dtd">``, as
older OpenGotha versions write, is accepted (expat never fetches the DTD). A file
larger than :data:`MAX_BYTES` is refused unread.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date
from fractions import Fraction
from typing import Any
from xml.parsers import expat
from xml.sax.saxutils import quoteattr

from ..messages import (
    BOTH_WON_OR_LOST_NOT_RATED,
    BY_DEFAULT_NOT_RATED,
    NOT_PLAYED_YET_NOT_RATED,
    Message,
    gettext_noop,
)
from ..ranks import Rank, RankError, parse_rank
from ..records import (
    DEFAULT_EVEN_KOMI,
    GameFileError,
    GameRecord,
    RowError,
    Winner,
)
from . import (
    PIN_RE,
    FilePlayer,
    TournamentFile,
    TournamentInfo,
    ascii_text,
    assign_usernames,
    format_komi,
    komi_of,
    too_many_players,
    tournament_code,
    tournament_game,
)
from .egd import round_columns
from .standings import (
    CRITERIA,
    MCMAHON_CRITERIA,
    SITE_CRITERIA,
    GothaRound,
    GothaRules,
    Placed,
    gotha_placed,
    known_criteria,
    score_text,
)
from .timecontrol import TimeControl

MAX_BYTES = 10 * 1024 * 1024  # the real files are below 1 MB
# An entity declaration, or a DOCTYPE with an internal subset (where entities are
# declared). A bare <!DOCTYPE Tournament SYSTEM "tournament.dtd"> is accepted: older
# OpenGotha versions write it, and expat never fetches the external DTD.
_DECLARATION_RE = re.compile(rb"<!ENTITY|<!DOCTYPE[^>\[]*\[", re.IGNORECASE)

RATED_RESULTS = {
    "RESULT_WHITEWINS": Winner.WHITE,
    "RESULT_BLACKWINS": Winner.BLACK,
    "RESULT_EQUAL": Winner.JIGO,
}
FORFEITS = tuple(
    f"{result}_BYDEF"
    for result in (
        "RESULT_WHITEWINS",
        "RESULT_BLACKWINS",
        "RESULT_EQUAL",
        "RESULT_BOTHWIN",
        "RESULT_BOTHLOSE",
    )
)
NO_RESULT = ("RESULT_BOTHWIN", "RESULT_BOTHLOSE")
NOT_PLAYED = "RESULT_UNKNOWN"
MCMAHON_PARAMETERS = (
    "genMMBar",
    "genMMFloor",
    "genMMZero",
    "genMMS2ValueAbsent",
    "genMMS2ValueBye",
    "genNBW2ValueAbsent",
    "genNBW2ValueBye",
    "genRoundDownNBWMMS",
)
# A player's attributes written back as the file had them (the site keeps names with
# spaces for "_", ranks parsed, blank countries as none, and no FFG licence).
WRITTEN_BACK = (
    "name",
    "firstName",
    "rank",
    "grade",
    "country",
    "agaId",
    "agaExpirationDate",
    "ffgLicence",
    "ffgLicenceStatus",
    "ratingOrigin",
)
# OpenGotha's defaults for a file that does not say.
MCMAHON_DEFAULTS = {
    "genMMBar": "9D",
    "genMMFloor": "30K",
    "genMMZero": "30K",
    "genMMS2ValueAbsent": "1",
    "genMMS2ValueBye": "2",
    "genNBW2ValueAbsent": "0",
    "genNBW2ValueBye": "2",
    "genRoundDownNBWMMS": "true",
}


@dataclass(frozen=True, slots=True)
class _Element:
    tag: str
    attributes: dict[str, str]
    line: int
    parent: str


_REFUSED = gettext_noop(
    "entity declarations (<!ENTITY>, or a <!DOCTYPE> with [...]) are not accepted: "
    "OpenGotha files have none"
)


class _Refused(Exception):
    """A declaration the reader does not accept (raised from inside expat)."""


def _file_error(source: str, line: int, column: str, message: Message) -> GameFileError:
    return GameFileError([RowError(line, column, message)], source)


def _elements(data: bytes | str, source: str) -> list[_Element]:
    """The file's elements in document order, each with its line and its parent's tag;
    a file that is not well-formed XML, declares entities or names an encoding Python
    cannot read is refused (:class:`GameFileError`)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    found = _DECLARATION_RE.search(raw)
    if found:
        line = raw.count(b"\n", 0, found.start()) + 1
        raise _file_error(source, line, "DOCTYPE", Message(_REFUSED))
    parser, elements = _recording_parser()
    try:
        parser.Parse(data, True)
    except expat.ExpatError as error:
        problem = expat.ErrorString(error.code)
        not_xml = Message(gettext_noop("not well-formed XML: %(problem)s"), problem=problem)
        raise _file_error(source, error.lineno, "", not_xml) from None
    except _Refused:
        line = parser.CurrentLineNumber
        raise _file_error(source, line, "DOCTYPE", Message(_REFUSED)) from None
    except (LookupError, ValueError) as error:
        # expat asks Python's codecs for an encoding it does not know itself: an
        # unknown name (encoding="x-klingon"), a multi-byte one expat cannot use (utf-7)
        # or bytes that encoding cannot decode.
        unreadable = Message(
            gettext_noop("the XML declaration's encoding cannot be read: %(problem)s"),
            problem=str(error),
        )
        raise _file_error(source, 1, "encoding", unreadable) from None
    return elements


def _recording_parser() -> tuple[expat.XMLParserType, list[_Element]]:
    """An expat parser that records each element it starts in the list it comes with,
    and refuses entity declarations (raising :class:`_Refused` from inside expat)."""
    parser = expat.ParserCreate()
    elements: list[_Element] = []
    stack: list[str] = []

    def start(tag: str, attributes: dict[str, str]) -> None:
        parent = stack[-1] if stack else ""
        elements.append(_Element(tag, attributes, parser.CurrentLineNumber, parent))
        stack.append(tag)

    def end(tag: str) -> None:
        stack.pop()

    def doctype(_name, _system_id, _public_id, has_internal_subset) -> None:
        if has_internal_subset:
            raise _Refused

    def entity(*_args) -> None:
        raise _Refused

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    return parser, elements


class _Reader:
    def __init__(self, elements: list[_Element], errors: list[RowError]) -> None:
        # (player, round) of each round a player's participating flag is off.
        self.absent: set[tuple[int, int]] = set()
        self.elements = elements
        self.errors = errors

    def error(self, element: _Element, attribute: str, message: str) -> None:
        self.errors.append(RowError(element.line, f"{element.tag} {attribute}".strip(), message))

    def all(self, tag: str, parent: str) -> list[_Element]:
        return [e for e in self.elements if e.tag == tag and e.parent == parent]

    def one(self, tag: str) -> _Element | None:
        return next((e for e in self.elements if e.tag == tag), None)

    def integer(self, element: _Element, attribute: str, default: int | None = None) -> int | None:
        text = element.attributes.get(attribute, "").strip()
        if not text:
            if default is None:
                self.error(
                    element,
                    attribute,
                    Message(
                        gettext_noop("the %(attribute)s attribute is missing"), attribute=attribute
                    ),
                )
            return default
        try:
            return int(text)
        except ValueError:
            self.error(
                element,
                attribute,
                Message(gettext_noop("'%(text)s' is not a whole number"), text=text),
            )
            return default

    def day(self, element: _Element, attribute: str) -> date | None:
        text = element.attributes.get(attribute, "").strip()
        try:
            return date.fromisoformat(text)
        except ValueError:
            self.error(
                element,
                attribute,
                Message(gettext_noop("'%(text)s' is not a date (YYYY-MM-DD)"), text=text),
            )
            return None

    def info(self) -> TournamentInfo | None:
        """The tournament from its GeneralParameterSet, or None (reported)."""
        general = self.one("GeneralParameterSet")
        if general is None:
            root = self.elements[0]
            self.error(
                root,
                "",
                Message(
                    gettext_noop("no GeneralParameterSet: the tournament's parameters are missing")
                ),
            )
            return None
        name = general.attributes.get("name", "").strip()
        code = self._code(general, name)
        start, end = self._dates(general)
        komi = self._komi(general)
        size = self._board_size(general)
        rounds = self.integer(general, "numberOfRounds", 0) or 0
        handicap = self.one("HandicapParameterSet")
        correction = self.integer(handicap, "hdCorrection", 0) if handicap else 0
        if not code or start is None or end is None or end < start or komi is None:
            return None
        return self._info(general, code, name, start, end, komi, size, rounds, correction or 0)

    def _code(self, general: _Element, name: str) -> str:
        code = tournament_code(general.attributes.get("shortName", "")) or tournament_code(name)
        if not code:
            self.error(
                general,
                "shortName",
                Message(gettext_noop("neither a shortName nor a name to go by")),
            )
        return code

    def _dates(self, general: _Element) -> tuple[date | None, date | None]:
        start, end = self.day(general, "beginDate"), self.day(general, "endDate")
        if start and end and end < start:
            self.error(
                general,
                "endDate",
                Message(
                    gettext_noop("the end date %(end)s is before the start %(start)s"),
                    end=end,
                    start=start,
                ),
            )
        return start, end

    def _komi(self, general: _Element) -> Fraction | None:
        text = general.attributes.get("komi", "").strip()
        komi = komi_of(text) if text else DEFAULT_EVEN_KOMI
        if komi is None:
            self.error(
                general,
                "komi",
                Message(gettext_noop("'%(text)s' is not a komi (a multiple of 0.5)"), text=text),
            )
        return komi

    def _board_size(self, general: _Element) -> int | None:
        size = self.integer(general, "size", 19)
        if size not in (9, 13, 19):
            self.error(
                general,
                "size",
                Message(gettext_noop("%(size)s is not a board size (9, 13 or 19)"), size=size),
            )
        return size

    def _info(
        self,
        general: _Element,
        code: str,
        name: str,
        start: date,
        end: date,
        komi: Fraction,
        size: int | None,
        rounds: int,
        correction: int,
    ) -> TournamentInfo:
        """The tournament of checked parameters, with its placement criteria, time
        control and class, and the McMahon parameters to write back."""
        attributes = general.attributes
        criteria = tuple(
            element.attributes.get("name", "").strip()
            for element in sorted(
                self.all("PlacementCriterion", "PlacementCriteria"),
                key=lambda element: self.integer(element, "number", 0) or 0,
            )
            if self._in_individual_placement(element)
        )
        time_control = TimeControl.from_attributes(attributes)
        tournament_class, class_reason = time_control.egf_class()
        return TournamentInfo(
            code=code,
            name=name or code,
            start=start,
            end=end,
            tournament_class=tournament_class,
            class_reason=class_reason,
            time=str(time_control.adjusted_minutes),
            comment=time_control.description(),
            time_control=tuple(time_control.attributes().items()),
            komi=komi,
            rounds=rounds,
            place=attributes.get("location", "").strip(),
            handicap_rule=f"h{correction}" if correction else "",
            board_size=size or 19,
            file_format="opengotha",
            score_names=known_criteria(criteria),
            mcmahon=tuple(
                (key, attributes[key].strip()) for key in MCMAHON_PARAMETERS if key in attributes
            ),
        )

    def _in_individual_placement(self, criterion: _Element) -> bool:
        """A criterion of the players' placement, not of the teams' (OpenGotha nests
        both as PlacementCriteria; the teams' sit after TeamPlacementParameterSet)."""
        team = self.one("TeamPlacementParameterSet")
        return team is None or criterion.line < team.line

    def basic_time(self) -> Fraction | None:
        """The main thinking time per player, in minutes (the French ladder's rapid rule)."""
        general = self.one("GeneralParameterSet")
        minutes = self.integer(general, "basicTime", 0) if general else 0
        return Fraction(minutes) if minutes and minutes > 0 else None

    def game(self, element: _Element, keys: dict[str, int]):
        """(round, table, white, black, handicap, result, known colour) of a Game, or
        None (reported). ``knownColor="false"``: the pair, its colours not known."""
        round_number = self.integer(element, "roundNumber")
        table = self.integer(element, "tableNumber", 0) or 0
        handicap = self.integer(element, "handicap", 0)
        sides = []
        for attribute in ("whitePlayer", "blackPlayer"):
            key = element.attributes.get(attribute, "").strip()
            number = _player_number(keys, key)
            if number is None:
                self.error(
                    element,
                    attribute,
                    Message(gettext_noop("no player with the key '%(key)s'"), key=key),
                )
            sides.append(number)
        if round_number is not None and round_number < 1:
            self.error(
                element,
                "roundNumber",
                Message(gettext_noop("%(round)s is not a round (1 or more)"), round=round_number),
            )
            return None
        if handicap is not None and not 0 <= handicap <= 9:
            self.error(
                element,
                "handicap",
                Message(
                    gettext_noop("%(handicap)s is not a handicap (0 to 9 stones)"),
                    handicap=handicap,
                ),
            )
            return None
        white, black = sides
        if white is None or black is None or round_number is None or handicap is None:
            return None
        if white == black:
            self.error(
                element, "blackPlayer", Message(gettext_noop("a player cannot play themselves"))
            )
            return None
        result = element.attributes.get("result", "").strip() or NOT_PLAYED
        known_colour = element.attributes.get("knownColor", "").strip().lower() != "false"
        return round_number, table, white, black, handicap, result, known_colour

    def players(self) -> tuple[list[FilePlayer], dict[str, int]]:
        """The players, and each player's number by OpenGotha key."""
        players: list[FilePlayer] = []
        keys: dict[str, int] = {}
        for element in self.all("Player", "Players"):
            identity = self._identity(element, keys)
            if identity is None:
                continue
            key, rank = identity
            number = len(players) + 1
            keys[key] = number
            flags = element.attributes.get("participating", "")
            self.absent.update(
                (number, round_number)
                for round_number, flag in enumerate(flags, start=1)
                if flag == "0"
            )
            players.append(self._player(element, number, rank))
        return players, keys

    def _identity(self, element: _Element, keys: dict[str, int]) -> tuple[str, Rank] | None:
        """A Player's OpenGotha key and rank, or None (reported: no name, a rank or PIN
        that does not read, a key listed before)."""
        attributes = element.attributes
        surname = attributes.get("name", "").strip()
        given_name = attributes.get("firstName", "").strip()
        if not surname:
            self.error(element, "name", Message(gettext_noop("a player needs a name")))
            return None
        rank_text = attributes.get("rank", "").strip() or attributes.get("grade", "").strip()
        try:
            rank = parse_rank(rank_text)
        except RankError as error:
            self.error(
                element,
                "rank",
                Message(
                    gettext_noop("%(name)s: %(problem)s"),
                    name=f"{surname} {given_name}",
                    problem=error.message,
                ),
            )
            return None
        pin = attributes.get("egfPin", "").strip()
        if pin and not PIN_RE.match(pin):
            self.error(
                element,
                "egfPin",
                Message(gettext_noop("'%(pin)s' is not an EGD PIN (digits)"), pin=pin),
            )
            return None
        key = (surname + given_name).replace(" ", "").upper()
        if key in keys:
            self.error(
                element,
                "name",
                Message(gettext_noop("'%(name)s' is listed twice"), name=f"{surname} {given_name}"),
            )
            return None
        return key, rank

    def _player(self, element: _Element, number: int, rank: Rank) -> FilePlayer:
        """The Player (its identity checked) as the file lists them."""
        attributes = element.attributes
        rating = self.integer(element, "rating", 0) if attributes.get("rating") else None
        # An AGA ID is digits; anything else is written back but matches nobody.
        national_id = attributes.get("agaId", "").strip()
        if not PIN_RE.match(national_id):
            national_id = ""
        return FilePlayer(
            number=number,
            surname=_read_name(attributes.get("name", "")),
            given_name=_read_name(attributes.get("firstName", "")),
            rank=rank,
            country=attributes.get("country", "").strip().upper(),
            club=attributes.get("club", "").strip(),
            pin=attributes.get("egfPin", "").strip(),
            rating=rating,
            line=element.line,
            mcmahon_correction=self.integer(element, "smmsCorrection", 0) or 0,
            national_id=national_id,
            rating_origin=attributes.get("ratingOrigin", "").strip(),
            written=tuple((name, attributes[name]) for name in WRITTEN_BACK if name in attributes),
        )

    def byes(self, keys: dict[str, int]) -> set[tuple[int, int]]:
        """(player, round) of each ByePlayer (a bye: no game, the bye's points)."""
        byes = set()
        for element in self.all("ByePlayer", "ByePlayers"):
            number = _player_number(keys, element.attributes.get("player", "").strip())
            round_number = self.integer(element, "roundNumber", 0)
            if number is None:
                self.error(element, "player", Message(gettext_noop("no player with this key")))
            elif round_number:
                byes.add((number, round_number))
        return byes


def _read_name(text: str) -> str:
    """A name as the site keeps it: "_" is a space (files from the EGD's lists write
    "de_Groot")."""
    return text.replace("_", " ").strip()


def _player_number(keys: dict[str, int], key: str) -> int | None:
    """A game's player by key; files written before OpenGotha data version 201 used
    ASCII-only keys."""
    if key in keys:
        return keys[key]
    folded = ascii_text(key).upper()
    matches = [number for known, number in keys.items() if ascii_text(known).upper() == folded]
    return matches[0] if len(matches) == 1 else None


def read_opengotha(data: bytes | str, source: str = "") -> TournamentFile:
    """Read an OpenGotha XML tournament file. Raises :class:`GameFileError` listing every
    problem with its line; nothing of a file with a problem is to be used."""
    _refuse_oversized(data, source)
    elements = _tournament_elements(data, source)
    errors: list[RowError] = []
    reader = _Reader(elements, errors)
    info = reader.info()
    players, keys = reader.players()
    players = assign_usernames(players)
    byes = reader.byes(keys)
    basic_time = reader.basic_time()
    results = _results(reader, keys, players)
    if errors or info is None:
        raise GameFileError(errors, source)
    rounds = max([info.rounds, *(game[0] for game in results.rated)])
    info = replace(info, rounds=rounds)
    players, info = _standings(info, players, results.pairings, byes, reader.absent)
    records = _records(info, players, results.rated, basic_time)
    return TournamentFile(info, players, records, results.notes())


def _refuse_oversized(data: bytes | str, source: str) -> None:
    """Refuse a file above ``MAX_BYTES`` or of more players than a tournament has,
    before it is parsed."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    size = len(raw)
    if size > MAX_BYTES:
        too_big = Message(
            gettext_noop("the file has %(size)s bytes; the limit is %(limit)s"),
            size=size,
            limit=MAX_BYTES,
        )
        raise _file_error(source, 0, "", too_big)
    refused = too_many_players(len(re.findall(rb"<Player[\s/>]", raw)), source)
    if refused:
        raise refused


def _tournament_elements(data: bytes | str, source: str) -> list[_Element]:
    """The file's elements, refused unless the root is an OpenGotha ``<Tournament>``."""
    elements = _elements(data, source)
    if not elements or elements[0].tag != "Tournament":
        line = elements[0].line if elements else 1
        not_opengotha = Message(
            gettext_noop("not an OpenGotha file: the root element is not <Tournament>")
        )
        raise _file_error(source, line, "", not_opengotha)
    return elements


# A game to rate: (round, table, position in the file, element, white, black, handicap,
# winner, known colour); sorted, the first three are the replay order.
_RatedGame = tuple[int, int, int, _Element, int, int, int, Winner, bool]


@dataclass
class _Results:
    """The file's games read: those to rate, each player's opponent, colour, handicap
    and result by (round, player), and the counts of games not rated."""

    rated: list[_RatedGame]
    pairings: dict[tuple[int, int], tuple[int, str, int, str]]
    forfeits: int = 0
    no_result: int = 0
    not_played: int = 0

    def notes(self) -> list[str]:
        notes: list[str] = []
        if self.forfeits:
            notes.append(Message(BY_DEFAULT_NOT_RATED, games=self.forfeits))
        if self.no_result:
            notes.append(Message(BOTH_WON_OR_LOST_NOT_RATED, games=self.no_result))
        if self.not_played:
            notes.append(Message(NOT_PLAYED_YET_NOT_RATED, games=self.not_played))
        return notes


def _results(reader: _Reader, keys: dict[str, int], players: list[FilePlayer]) -> _Results:
    """Every Game of the file, checked (a player paired twice in a round, a result
    OpenGotha does not write: reported), sorted into rated and not."""
    played: dict[tuple[int, int], int] = {}  # (player, round) -> line of its game
    results = _Results([], {})
    for index, element in enumerate(reader.all("Game", "Games")):
        game = reader.game(element, keys)
        if game is None:
            continue
        round_number, table, white, black, handicap, result, known_colour = game
        clash = [number for number in (white, black) if (number, round_number) in played]
        if clash:
            reader.error(
                element,
                "roundNumber",
                f"{players[clash[0] - 1].full_name} already has a game in round "
                f"{round_number} (line {played[clash[0], round_number]})",
            )
            continue
        played[white, round_number] = played[black, round_number] = element.line
        if result in FORFEITS:
            results.forfeits += 1
        elif result in NO_RESULT:
            results.no_result += 1
        elif result == NOT_PLAYED:
            results.not_played += 1
        elif result in RATED_RESULTS:
            winner = RATED_RESULTS[result]
            results.rated.append(
                (round_number, table, index, element, white, black, handicap, winner, known_colour)
            )
        else:
            reader.error(element, "result", f"'{result}' is not an OpenGotha result")
            continue
        results.pairings[round_number, white] = (black, "w", handicap, result)
        results.pairings[round_number, black] = (white, "b", handicap, result)
    return results


def _records(
    info: TournamentInfo,
    players: list[FilePlayer],
    rated: list[_RatedGame],
    basic_time: Fraction | None,
) -> list[GameRecord]:
    """The rated games as records, in replay order (round, table, place in the file)."""
    return [
        replace(
            tournament_game(
                info,
                round_number,
                players[white - 1],
                players[black - 1],
                winner,
                handicap,
                line=element.line,
                time_minutes=basic_time,
            ),
            seq=seq,
            # A handicap game's Black is who took the stones, whatever knownColor says.
            colour_given=known_colour or handicap > 0,
        )
        for seq, (round_number, _, _, element, white, black, handicap, winner, known_colour) in (
            enumerate(sorted(rated, key=lambda game: game[:3]), start=1)
        )
    ]


# (points of the player named first, of the other), by OpenGotha result, White first.
_POINTS: dict[str, tuple[Fraction | int, Fraction | int]] = {
    "RESULT_WHITEWINS": (1, 0),
    "RESULT_BLACKWINS": (0, 1),
    "RESULT_EQUAL": (Fraction(1, 2), Fraction(1, 2)),
    "RESULT_BOTHWIN": (1, 1),
    "RESULT_BOTHLOSE": (0, 0),
    "RESULT_UNKNOWN": (0, 0),
}


def _token(opponent: int, colour: str, handicap: int, result: str) -> tuple[str, Fraction]:
    """One round as an h-file writes it, and the points it gives."""
    forfeit = result.endswith("_BYDEF")
    white_points, black_points = _POINTS[result.removesuffix("_BYDEF")]
    points = Fraction(white_points if colour == "w" else black_points)
    if result == NOT_PLAYED:
        return f"{opponent}?/{colour}{handicap}", points
    if result in NO_RESULT or forfeit:
        outcome = "=" if points == Fraction(1, 2) else "+" if points else "-"
        # With its colour, as OpenGotha's own h9 writes it (``26+!w0``): the export
        # gives the game back to OpenGotha with the same White.
        return f"{opponent}{outcome}!{colour}{handicap}", points
    outcome = "=" if result == "RESULT_EQUAL" else "+" if points else "-"
    return f"{opponent}{outcome}/{colour}{handicap}", points


def _rank_value(text: str) -> int:
    """OpenGotha's number for a rank (1D = 0, 1K = -1, 30K = -30)."""
    return parse_rank(text).stones


def _rules(info: TournamentInfo) -> tuple[GothaRules, str]:
    """OpenGotha's values of the rounds without a game, from the file's parameters, and
    the main score's name ("MMS" or "NBW") by the placement criteria."""
    parameters = {**MCMAHON_DEFAULTS, **dict(info.mcmahon)}
    criteria = info.score_names or MCMAHON_CRITERIA
    score = "MMS" if any(c in ("MMS", "SOSM", "SOSOSM", "SODOSM") for c in criteria) else "NBW"

    def doubled(key: str) -> int:
        text = parameters[key]
        return int(text) if text.lstrip("-").isdigit() else int(MCMAHON_DEFAULTS[key])

    rules = GothaRules(
        bye_nbw_x2=doubled("genNBW2ValueBye"),
        absent_nbw_x2=doubled("genNBW2ValueAbsent"),
        bye_mms_x2=doubled("genMMS2ValueBye"),
        absent_mms_x2=doubled("genMMS2ValueAbsent"),
        round_down=parameters["genRoundDownNBWMMS"].lower() != "false",
    )
    return rules, score


def absent_token(info: TournamentInfo) -> str:
    """How an h-file writes a round the player was absent from, as OpenGotha does: the
    absence's value of the main score (``0=`` half a point, ``0+`` a point, ``0-`` none)."""
    rules, score = _rules(info)
    value = rules.absent_mms_x2 if score == "MMS" else rules.absent_nbw_x2
    return {2: "0+", 1: "0="}.get(value, "0-")


def bye_token(info: TournamentInfo) -> str:
    """How OpenGotha's h-file writes a bye: its value of the main score (``0+`` a point,
    ``0=`` half, ``0-`` none: ``genNBW2ValueBye="0"`` in a points tournament)."""
    rules, score = _rules(info)
    value = rules.bye_mms_x2 if score == "MMS" else rules.bye_nbw_x2
    return {2: "0+", 1: "0="}.get(value, "0-")


def _mcmahon_bounds(info: TournamentInfo) -> tuple[int, int, int]:
    """The McMahon zero, floor and bar as OpenGotha's numbers of ranks (its defaults
    where a rank does not read)."""
    parameters = {**MCMAHON_DEFAULTS, **dict(info.mcmahon)}
    try:
        zero, floor, bar = (
            _rank_value(parameters[key]) for key in ("genMMZero", "genMMFloor", "genMMBar")
        )
    except RankError:
        return -30, -30, 8
    return zero, floor, bar


def _round_of(
    number: int,
    round_number: int,
    players: list[FilePlayer],
    pairings: dict[tuple[int, int], tuple[int, str, int, str]],
    byes: set[tuple[int, int]],
    absent: set[tuple[int, int]],
    absence: str,
) -> tuple[str, GothaRound[str]]:
    """A player's round as OpenGotha's h-file writes it, and as it scores it: a game,
    a bye, an absence (``absence`` its token) or not paired."""
    if (round_number, number) in pairings:
        opponent, colour, handicap, result = pairings[round_number, number]
        token, points = _token(opponent, colour, handicap, result)
        return token, GothaRound(
            "game",
            players[opponent - 1].username,
            int(points * 2),
            handicap if colour == "w" else -handicap,
            by_default=result.endswith("_BYDEF"),
        )
    if (number, round_number) in byes:
        return "0+", GothaRound("bye")
    if (number, round_number) in absent:
        return absence, GothaRound("absent")
    return "0-", GothaRound("free")


def _standings(
    info: TournamentInfo,
    players: list[FilePlayer],
    pairings: dict[tuple[int, int], tuple[int, str, int, str]],
    byes: set[tuple[int, int]],
    absent: set[tuple[int, int]],
) -> tuple[list[FilePlayer], TournamentInfo]:
    """The players with each round as OpenGotha's h-file writes it and their place and
    scores by the file's placement criteria, scored as OpenGotha scores them
    (:func:`.standings.gotha_placed`; OpenGotha keeps no standings: it computes them)."""
    criteria = info.score_names or MCMAHON_CRITERIA
    rules, _score = _rules(info)
    absence = absent_token(info)
    zero, floor, bar = _mcmahon_bounds(info)
    rounds: dict[str, list[GothaRound[str]]] = {}
    tokens: dict[int, list[str]] = {}
    start: dict[str, int] = {}
    for player in players:
        played, written = [], []
        for round_number in range(1, info.rounds + 1):
            token, gotha_round = _round_of(
                player.number, round_number, players, pairings, byes, absent, absence
            )
            played.append(gotha_round)
            written.append(token)
        rounds[player.username] = played
        tokens[player.number] = written
        smms = min(max(player.rank.stones, floor), bar) - zero
        start[player.username] = smms + player.mcmahon_correction
    placed = gotha_placed(
        rounds,
        criteria,
        start,
        rules,
        order=[p.username for p in players],
        ranks={p.username: p.rank.stones for p in players},
        # OpenGotha reads a missing rating as its lowest, -900, and bounds them
        ratings={p.username: min(max(p.rating or -900, -900), 2949) for p in players},
    )
    by_name = {entry.player: entry for entry in placed}
    places = _implied_places(placed, rounds)
    players = [
        replace(
            player,
            # OpenGotha prints a shared place for players tied on every criterion.
            place=places.get(player.username, ""),
            scores=tuple(score_text(value) for value in by_name[player.username].scores),
            results=tuple(tokens[player.number]),
        )
        for player in players
    ]
    return players, replace(info, score_names=tuple(criteria))


def _implied_places(
    placed: list[Placed[str]], rounds: dict[str, list[GothaRound[str]]]
) -> dict[str, str]:
    """The places of the players in a game or a bye of some round, by username, as
    OpenGotha's standings and h-file give them: the others (registered, never paired)
    are left out, unplaced (OpenGotha's ``displayNPPlayers``, off unless the director
    turned it on, and off always in its h-file), and the places below them close up."""
    return places_closed_up(
        [(entry.player, entry.place) for entry in placed],
        {
            entry.player
            for entry in placed
            if any(played.kind in ("game", "bye") for played in rounds[entry.player])
        },
    )


def places_closed_up(placed: list[tuple[Any, int]], kept: set) -> dict[Any, str]:
    """The places of the players ``kept`` of ``placed`` (every player in order with
    their place among all of them, a tie sharing one) once the others are left out: one
    more than the kept players strictly ahead."""
    places: dict[Any, str] = {}
    ahead = counted = 0
    previous = None
    for player, place in placed:
        if player not in kept:
            continue
        if place != previous:
            ahead, previous = counted, place
        places[player] = str(ahead + 1)
        counted += 1
    return places


def gotha_replaced(tournament: TournamentFile) -> TournamentFile:
    """``tournament`` (an OpenGotha file as the site keeps it: each player's rounds as
    an h-file writes them, numbered by position) placed again by its criteria, as
    :func:`read_opengotha` places a file: for tournaments stored before OpenGotha's
    scoring was followed. The rounds say everything the placement needs but one thing:
    before then, a round a player's ``participating`` flag left out was written ``0-``
    like a round they were not paired in, so such a round counts as not paired (both
    are the same whenever the absence's value is 0, OpenGotha's default). A forfeit
    written without its colour is taken as White for the player listed first."""
    info = tournament.tournament
    players = tournament.players
    absence = absent_token(info)
    pairings: dict[tuple[int, int], tuple[int, str, int, str]] = {}
    byes: set[tuple[int, int]] = set()
    absent: set[tuple[int, int]] = set()
    rounds = max([info.rounds, *(len(player.results) for player in players)])
    for player in players:
        for round_number, token in enumerate(player.results, start=1):
            match = _RESULT_TOKEN_RE.match(token)
            if token.startswith("0+"):
                byes.add((player.number, round_number))
            elif token == absence and absence != "0-":
                absent.add((player.number, round_number))
            if match is None or int(match["opponent"]) == 0:
                continue
            opponent, outcome = int(match["opponent"]), match["outcome"]
            if not 0 < opponent <= len(players):
                continue
            colour = match["colour"].lower()
            if colour not in ("w", "b"):
                colour = "w" if player.number < opponent else "b"
            handicap = int(match["handicap"] or 0)
            forfeit = bool(match["forfeit"]) or token.endswith("!")
            their_rounds = players[opponent - 1].results
            theirs = (
                _RESULT_TOKEN_RE.match(their_rounds[round_number - 1])
                if round_number <= len(their_rounds)
                else None
            )
            both = theirs is not None and theirs["outcome"] == outcome and outcome in "+-"
            if outcome == "?":
                result = NOT_PLAYED
            elif forfeit and both:
                result = "RESULT_BOTHWIN" if outcome == "+" else "RESULT_BOTHLOSE"
            elif outcome == "=":
                result = "RESULT_EQUAL" + ("_BYDEF" if forfeit else "")
            else:
                white_won = (outcome == "+") == (colour == "w")
                result = ("RESULT_WHITEWINS" if white_won else "RESULT_BLACKWINS") + (
                    "_BYDEF" if forfeit else ""
                )
            pairings[round_number, player.number] = (opponent, colour, handicap, result)
    placed, info = _standings(replace(info, rounds=rounds), players, pairings, byes, absent)
    return replace(tournament, tournament=info, players=placed)


# --- writing ------------------------------------------------------------------------


# OpenGotha's names of the criteria the EGD and the site use, by the tournament's main
# score (NBW: points; MMS: McMahon score).
_OPENGOTHA_CRITERIA = {
    ("NBW", "SOS"): "SOSW",
    ("NBW", "SOSOS"): "SOSOSW",
    ("NBW", "SODOS"): "SODOSW",
    ("MMS", "SOS"): "SOSM",
    ("MMS", "SOSOS"): "SOSOSM",
    ("MMS", "SODOS"): "SODOSM",
    ("NBW", "SOS-1"): "SOSW-1",
    ("NBW", "SOS-2"): "SOSW-2",
    ("NBW", "CUSS"): "CUSSW",
    ("MMS", "SOS-1"): "SOSM-1",
    ("MMS", "SOS-2"): "SOSM-2",
    ("MMS", "CUSS"): "CUSSM",
}
# OpenGotha's reader matches a criterion's name as it writes it, case and all.
_OPENGOTHA_SPELLING = {"RATING": "Rating", "RANK": "Rank"}
_MAX_ROUNDS = 20  # OpenGotha's participating flags cover 20 rounds
# What OpenGotha's reader needs of the parameter sets besides those a file carries
# (it dereferences PairingParameterSet and HandicapParameterSet unconditionally); the
# values are OpenGotha's defaults, as its own files have them.
_PAIRING_DEFAULTS = {
    "paiBaAvoidDuplGame": "500000000000000",
    "paiBaBalanceWB": "1000000",
    "paiBaDeterministic": "true",
    "paiBaRandom": "0",
    "paiMaAdditionalPlacementCritSystem1": "Rating",
    "paiMaAdditionalPlacementCritSystem2": "NULL",
    "paiMaAvoidMixingCategories": "0",
    "paiMaCompensateDUDD": "true",
    "paiMaDUDDLowerMode": "TOP",
    "paiMaDUDDUpperMode": "TOP",
    "paiMaDUDDWeight": "100000000",
    "paiMaLastRoundForSeedSystem1": "2",
    "paiMaMaximizeSeeding": "5000000",
    "paiMaMinimizeScoreDifference": "100000000000",
    "paiMaSeedSystem1": "SPLITANDSLIP",
    "paiMaSeedSystem2": "SPLITANDSLIP",
    "paiSeAvoidSameGeo": "100000000000",
    "paiSeBarThresholdActive": "true",
    "paiSeDefSecCrit": "100000000000",
    "paiSeMinimizeHandicap": "0",
    "paiSeNbWinsThresholdActive": "true",
    "paiSePreferMMSDiffRatherThanSameClub": "3",
    "paiSePreferMMSDiffRatherThanSameCountry": "1",
    "paiSeRankThreshold": "4D",
    "paiStandardNX1Factor": "0.5",
}


def _attributes(values: Mapping[str, object]) -> str:
    return " ".join(f"{key}={quoteattr(str(value))}" for key, value in values.items())


def _opengotha_name(text: str) -> str:
    # OpenGotha's XML keeps a name's spaces (its key is name and first name without
    # spaces; only its h-files write a space as "_").
    return " ".join(text.split())


def _as_written(player: FilePlayer) -> dict[str, str]:
    """What the file wrote of ``player`` (:attr:`FilePlayer.written`) that still says
    what the player's fields say: a player renamed or ranked anew since is written as
    they are now."""
    written = dict(player.written)
    rank_text = written.get("rank", "").strip() or written.get("grade", "").strip()
    try:
        same_rank = parse_rank(rank_text) == player.rank
    except RankError:
        same_rank = False
    still = {
        "name": _read_name(written.get("name", "")) == player.surname,
        "firstName": _read_name(written.get("firstName", "")) == player.given_name,
        "rank": same_rank,
        "grade": same_rank,
        "country": written.get("country", "").strip().upper() == player.country,
    }
    kept = {name: value for name, value in written.items() if still.get(name, True)}
    # OpenGotha reads the grade (the rank the player declared) in place of a rank out
    # of its range: written as the rank it reads as (" 1D" as 1D), and a grade that
    # is none ("99K", "20") as the rank.
    grade = _opengotha_rank(kept.get("grade", ""))
    if grade:
        kept["grade"] = grade
    else:
        kept.pop("grade", None)
    return kept


def _opengotha_rank(text: str) -> str:
    """``text`` as OpenGotha writes a rank of its range (30K to 9D, 1P to 9P), or ""."""
    try:
        rank = parse_rank(text.strip())
    except RankError:
        return ""
    return str(rank).upper() if rank.pro or -30 <= rank.stones <= 8 else ""


def _written_names(player: FilePlayer) -> tuple[str, str]:
    """(name, firstName) as the file wrote them, else from the player's names."""
    written = _as_written(player)
    name = written.get("name", "").strip() or _opengotha_name(player.surname) or player.username
    # OpenGotha refuses an empty first name: "_" is a blank one (a space).
    first = written.get("firstName", "").strip() or _opengotha_name(player.given_name) or "_"
    return name, first


def _opengotha_criteria(tournament: TournamentFile) -> list[str]:
    info = tournament.tournament
    names = [name.upper() for name in info.score_names if name]
    if not names and not any(player.results for player in tournament.players):
        # A tournament entered on the site: placed by points, SOS and SOSOS (as its
        # h-file and its page place it), not by McMahon score.
        names = list(SITE_CRITERIA)
    main = "MMS" if "MMS" in names or any(n.endswith("M") for n in names) else "NBW"
    criteria = [
        name if name in ("NBW", "MMS") else _OPENGOTHA_CRITERIA.get((main, name), name)
        for name in names
    ]
    return [_OPENGOTHA_SPELLING.get(name, name) for name in criteria if name in CRITERIA] or [
        "MMS",
        "SOSM",
        "SOSOSM",
    ]


def _unplayed_games(
    tournament: TournamentFile, played: set[tuple[str, int]]
) -> list[tuple[int, str, str, str]]:
    """Games a file listed that are not rated (forfeits, games without a result), from
    the players' rounds as written: (round, white, black, OpenGotha result)."""
    players = tournament.players
    # The rounds as written name opponents by their number in the file.
    by_number = {player.number: player for player in players}
    games = []
    for player in players:
        for round_number, token in enumerate(player.results, start=1):
            match = _RESULT_TOKEN_RE.match(token)
            if match is None or (player.username, round_number) in played:
                continue
            opponent_number, outcome, colour, forfeit = (
                int(match["opponent"]),
                match["outcome"],
                match["colour"].lower(),
                bool(match["forfeit"]) or token.endswith("!"),
            )
            if not (forfeit or outcome == "?") or not player.number < opponent_number:
                continue
            opponent = by_number.get(opponent_number)
            if opponent is None:
                continue
            if (opponent.username, round_number) in played:
                continue
            i_am_white = colour != "b"
            white, black = (player, opponent) if i_am_white else (opponent, player)
            theirs = _RESULT_TOKEN_RE.match(opponent.results[round_number - 1])
            their_outcome = theirs["outcome"] if theirs else ""
            if outcome == "?":
                result = NOT_PLAYED
            elif outcome == their_outcome and outcome in "+-":
                # Both won or both lost: no result between the two (OpenGotha's own).
                result = "RESULT_BOTHWIN" if outcome == "+" else "RESULT_BOTHLOSE"
            elif outcome == "=":
                result = "RESULT_EQUAL_BYDEF"
            else:
                white_won = (outcome == "+") == i_am_white
                result = "RESULT_WHITEWINS_BYDEF" if white_won else "RESULT_BLACKWINS_BYDEF"
            games.append((round_number, white.username, black.username, result))
    return games


_RESULT_TOKEN_RE = re.compile(
    r"^(?P<opponent>\d+)(?P<outcome>[-+=?])(?P<forfeit>!?)/?(?P<colour>[wWbB?]?)"
    r"(?P<handicap>\d?)!?$"
)


def write_opengotha(tournament: TournamentFile) -> str:
    """The tournament as an OpenGotha XML file: its players (names, rank, country, club,
    EGD PIN, AGA ID, declared rating; what an OpenGotha file wrote of them, as it wrote
    it: :attr:`FilePlayer.written`), every game with its round, colours, handicap and result,
    the byes (``0+``), forfeits and games without a result of the file it came from,
    and the parameter sets OpenGotha's reader requires (the McMahon bar and floor, the
    placement criteria). :func:`read_opengotha` reads it back to the same players,
    games and standings. Raises ``ValueError`` for two players of one name (OpenGotha
    tells players apart by name)."""
    # A game stored without a round number goes to the first round where both players
    # are free, as in the h-file: OpenGotha's rounds count from 1 (its scoring fails on
    # a round 0), one game per player per round.
    columns = round_columns(tournament)
    tournament = replace(
        tournament,
        records=[replace(r, round=columns[i]) for i, r in enumerate(tournament.records)],
    )
    keys = _player_keys(tournament)
    played: set[tuple[str, int]] = set()
    for record in tournament.records:
        if record.is_adjustment or record.winner is None:
            raise ValueError(
                Message(
                    gettext_noop("only games go into an OpenGotha file, not %(record)s"),
                    record=str(record),
                )
            )
        played.update({(record.white, record.round), (record.black, record.round)})
    games = _game_elements(tournament, keys, played)
    players, byes, losses = _player_elements(tournament, keys, played)
    criteria = _opengotha_criteria(tournament) + ["NULL"] * 6
    lines = [
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
        *(f"<!-- Not carried by this file: {loss.replace('--', '- -')} -->" for loss in losses),
        '<Tournament dataVersion="201">',
        "<Players>",
        *players,
        "</Players>",
        "<Games>",
        *games,
        "</Games>",
        "<ByePlayers>",
        *byes,
        "</ByePlayers>",
        "<TournamentParameterSet>",
        f"<GeneralParameterSet {_attributes(_general_parameters(tournament))}/>",
        f"<HandicapParameterSet {_attributes(_handicap_parameters(tournament))}/>",
        "<PlacementParameterSet>",
        "<PlacementCriteria>",
        *(
            f"<PlacementCriterion {_attributes({'name': name, 'number': number})}/>"
            for number, name in enumerate(criteria[:6], start=1)
        ),
        "</PlacementCriteria>",
        "</PlacementParameterSet>",
        f"<PairingParameterSet {_attributes(_PAIRING_DEFAULTS)}/>",
        "</TournamentParameterSet>",
        "</Tournament>",
    ]
    return "\n".join(lines) + "\n"


def _player_keys(tournament: TournamentFile) -> dict[str, str]:
    """Each player's OpenGotha key (name and first name, upper case, no spaces) by
    username; ``ValueError`` for two players of one key."""
    keys: dict[str, str] = {}
    seen: dict[str, str] = {}
    for player in tournament.players:
        name, first = _written_names(player)
        key = (name + first).replace(" ", "").upper()
        if key in seen:
            raise ValueError(
                Message(
                    gettext_noop(
                        "%(first)s and %(second)s have one name: OpenGotha tells players apart "
                        "by name"
                    ),
                    first=seen[key],
                    second=player.username,
                )
            )
        seen[key] = player.username
        keys[player.username] = key
    return keys


def _game_elements(
    tournament: TournamentFile, keys: dict[str, str], played: set[tuple[str, int]]
) -> list[str]:
    """The <Game> elements, round by round, each round's tables numbered from 1: the
    games played and those of the file it came from that had no result between two
    players (forfeits, both won, both lost)."""
    results: dict[Winner | None, str] = {
        Winner.WHITE: "RESULT_WHITEWINS",
        Winner.BLACK: "RESULT_BLACKWINS",
    }
    listed = [
        (
            r.round,
            r.white,
            r.black,
            r.handicap,
            results.get(r.winner, "RESULT_EQUAL"),
            r.colour_given,
        )
        for r in tournament.records
    ] + [
        (round_number, white, black, 0, result, True)
        for round_number, white, black, result in _unplayed_games(tournament, played)
    ]
    by_round: dict[int, int] = {}
    games = []
    for round_number, white, black, handicap, result, known in sorted(listed, key=lambda g: g[0]):
        by_round[round_number] = by_round.get(round_number, 0) + 1
        values = {
            "blackPlayer": keys[black],
            "handicap": handicap,
            "knownColor": "true" if known else "false",
            "result": result,
            "roundNumber": round_number,
            "tableNumber": by_round[round_number],
            "whitePlayer": keys[white],
        }
        games.append(f"<Game {_attributes(values)}/>")
    return games


def _player_elements(
    tournament: TournamentFile, keys: dict[str, str], played: set[tuple[str, int]]
) -> tuple[list[str], list[str], list[str]]:
    """The <Player> and <ByePlayer> elements, and what the file cannot carry (a second
    bye of a round: OpenGotha keeps one bye player a round, a second ByePlayer replaces
    the first; they are said in a comment on top, which its reader skips)."""
    players = []
    byes = []
    bye_rounds: set[int] = set()
    losses = []
    absence = absent_token(tournament.tournament)
    for player in tournament.players:
        absent = {
            round_number
            for round_number, token in enumerate(player.results, start=1)
            if token in (absence, "?") and (player.username, round_number) not in played
        }
        for r, token in enumerate(player.results, start=1):
            if not token.startswith("0+"):
                continue
            if r in bye_rounds:
                losses.append(
                    f"round {r}: the bye (0+) of {player.full_name or player.username} "
                    "(OpenGotha has one bye player a round)"
                )
                continue
            bye_rounds.add(r)
            byes.append(
                f"<ByePlayer {_attributes({'player': keys[player.username], 'roundNumber': r})}/>"
            )
        players.append(f"<Player {_attributes(_player_attributes(player, absent))}/>")
    return players, byes, losses


def _player_attributes(player: FilePlayer, absent: set[int]) -> dict[str, Any]:
    name, first = _written_names(player)
    values: dict[str, Any] = {
        "agaExpirationDate": "",
        "agaId": player.national_id,
        "club": player.club[:4],  # OpenGotha refuses longer clubs
        "country": player.country,
        "egfPin": player.pin,
        "ffgLicence": "",
        "ffgLicenceStatus": "",
        "firstName": first,
        "grade": str(player.rank).upper(),
        "name": name,
        "participating": "".join("0" if r in absent else "1" for r in range(1, _MAX_ROUNDS + 1)),
        "rank": str(player.rank).upper(),
    }
    # The rest as the file it came from wrote it (a blank country, a 28K the
    # site's rank would not say so, an FFG licence); the names are above.
    values.update(
        (attribute, value)
        for attribute, value in _as_written(player).items()
        if attribute not in ("name", "firstName")
    )
    if player.rating is not None:
        # Where the rating came from, as the file said (an INI rating stays no
        # declaration when read again); else the EGD's with a PIN, the organiser's.
        values["rating"] = player.rating
        values["ratingOrigin"] = (
            dict(player.written).get("ratingOrigin")
            or player.rating_origin
            or ("EGF" if player.pin else "MAN")
        )
    values.update({"registeringStatus": "FIN", "smmsCorrection": player.mcmahon_correction})
    return values


def _general_parameters(tournament: TournamentFile) -> dict[str, Any]:
    """The GeneralParameterSet: the tournament's dates, place, komi, size, rounds, the
    McMahon bar and floor and its time control (so that OpenGotha derives the same
    class); OpenGotha's defaults for what the site does not keep."""
    info = tournament.tournament
    rounds = max(
        [
            info.rounds,
            *(r.round for r in tournament.records),
            *(len(p.results) for p in tournament.players),
        ]
    )
    times = {record.time_minutes for record in tournament.records}
    basic_time = times.pop() if len(times) == 1 else None
    return {
        "basicTime": int(basic_time) if basic_time else 60,
        "bInternet": "false",
        "beginDate": info.start.isoformat(),
        "canByoYomiTime": 300,
        "complementaryTimeSystem": "STDBYOYOMI",
        "director": "",
        "endDate": info.end.isoformat(),
        "fischerTime": 10,
        **{**MCMAHON_DEFAULTS, **dict(info.mcmahon)},
        "komi": format_komi(info.komi),
        "location": info.place,
        "name": info.name,
        "nbMovesCanTime": 15,
        "numberOfCategories": 1,
        "numberOfRounds": max(rounds, 1),
        "shortName": info.code,
        "size": info.board_size,
        "stdByoYomiTime": 60,
        # the time control the file had, so that OpenGotha derives the same class
        **dict(info.time_control),
    }


def _handicap_parameters(tournament: TournamentFile) -> dict[str, Any]:
    correction = re.fullmatch(r"[hH](-?\d+)", tournament.tournament.handicap_rule.strip())
    return {
        "hdBasedOnMMS": "true",
        "hdCeiling": 9 if any(r.handicap for r in tournament.records) else 0,
        "hdCorrection": correction.group(1) if correction else 0,
        "hdNoHdRankThreshold": "30K",
    }
