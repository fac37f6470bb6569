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
from dataclasses import dataclass, replace
from datetime import date
from fractions import Fraction
from xml.parsers import expat

from ..ranks import RankError, parse_rank
from ..records import (
    DEFAULT_EVEN_KOMI,
    GameFileError,
    RowError,
    Winner,
)
from . import (
    FilePlayer,
    TournamentFile,
    TournamentInfo,
    ascii_text,
    assign_usernames,
    komi_of,
    too_many_players,
    tournament_code,
    tournament_game,
)

MAX_BYTES = 10 * 1024 * 1024  # the real files are below 1 MB
# An entity declaration, or a DOCTYPE with an internal subset (where entities are
# declared). A bare <!DOCTYPE Tournament SYSTEM "tournament.dtd"> is accepted: older
# OpenGotha versions write it, and expat never fetches the external DTD.
_DECLARATION_RE = re.compile(rb"<!ENTITY|<!DOCTYPE[^>\[]*\[", re.IGNORECASE)
_PIN_RE = re.compile(r"^\d{1,20}$")

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


@dataclass(frozen=True, slots=True)
class _Element:
    tag: str
    attributes: dict[str, str]
    line: int
    parent: str


_REFUSED = (
    "entity declarations (<!ENTITY>, or a <!DOCTYPE> with [...]) are not accepted: "
    "OpenGotha files have none"
)


class _Refused(Exception):
    """A declaration the reader does not accept (raised from inside expat)."""


def _elements(data: bytes | str, source: str) -> list[_Element]:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    found = _DECLARATION_RE.search(raw)
    if found:
        line = raw.count(b"\n", 0, found.start()) + 1
        raise GameFileError([RowError(line, "DOCTYPE", _REFUSED)], source)
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
    try:
        parser.Parse(data, True)
    except expat.ExpatError as error:
        raise GameFileError(
            [RowError(error.lineno, "", f"not well-formed XML: {expat.ErrorString(error.code)}")],
            source,
        ) from None
    except _Refused:
        line = parser.CurrentLineNumber
        raise GameFileError([RowError(line, "DOCTYPE", _REFUSED)], source) from None
    except (LookupError, ValueError) as error:
        # expat asks Python's codecs for an encoding it does not know itself: an
        # unknown name (encoding="x-klingon"), a multi-byte one expat cannot use (utf-7)
        # or bytes that encoding cannot decode.
        raise GameFileError(
            [RowError(1, "encoding", f"the XML declaration's encoding cannot be read: {error}")],
            source,
        ) from None
    return elements


class _Reader:
    def __init__(self, elements: list[_Element], errors: list[RowError]) -> None:
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
                self.error(element, attribute, f"the {attribute} attribute is missing")
            return default
        try:
            return int(text)
        except ValueError:
            self.error(element, attribute, f"'{text}' is not a whole number")
            return default

    def day(self, element: _Element, attribute: str) -> date | None:
        text = element.attributes.get(attribute, "").strip()
        try:
            return date.fromisoformat(text)
        except ValueError:
            self.error(element, attribute, f"'{text}' is not a date (YYYY-MM-DD)")
            return None

    def info(self) -> TournamentInfo | None:
        general = self.one("GeneralParameterSet")
        if general is None:
            root = self.elements[0]
            self.error(root, "", "no GeneralParameterSet: the tournament's parameters are missing")
            return None
        attributes = general.attributes
        name = attributes.get("name", "").strip()
        code = tournament_code(attributes.get("shortName", "")) or tournament_code(name)
        if not code:
            self.error(general, "shortName", "neither a shortName nor a name to go by")
        start, end = self.day(general, "beginDate"), self.day(general, "endDate")
        if start and end and end < start:
            self.error(general, "endDate", f"the end date {end} is before the start {start}")
        text = attributes.get("komi", "").strip()
        komi = komi_of(text) if text else DEFAULT_EVEN_KOMI
        if komi is None:
            self.error(general, "komi", f"'{text}' is not a komi (a multiple of 0.5)")
        size = self.integer(general, "size", 19)
        if size not in (9, 13, 19):
            self.error(general, "size", f"{size} is not a board size (9, 13 or 19)")
        rounds = self.integer(general, "numberOfRounds", 0) or 0
        handicap = self.one("HandicapParameterSet")
        correction = self.integer(handicap, "hdCorrection", 0) if handicap else 0
        if not code or start is None or end is None or end < start or komi is None:
            return None
        return TournamentInfo(
            code=code,
            name=name or code,
            start=start,
            end=end,
            komi=komi,
            rounds=rounds,
            place=attributes.get("location", "").strip(),
            handicap_rule=f"h{correction}" if correction else "",
            board_size=size or 19,
        )

    def basic_time(self) -> Fraction | None:
        """The main thinking time per player, in minutes (the French ladder's rapid rule)."""
        general = self.one("GeneralParameterSet")
        minutes = self.integer(general, "basicTime", 0) if general else 0
        return Fraction(minutes) if minutes and minutes > 0 else None

    def game(self, element: _Element, keys: dict[str, int]):
        """(round, table, white, black, handicap, result) of a Game, or None (reported)."""
        round_number = self.integer(element, "roundNumber")
        table = self.integer(element, "tableNumber", 0) or 0
        handicap = self.integer(element, "handicap", 0)
        sides = []
        for attribute in ("whitePlayer", "blackPlayer"):
            key = element.attributes.get(attribute, "").strip()
            number = _player_number(keys, key)
            if number is None:
                self.error(element, attribute, f"no player with the key '{key}'")
            sides.append(number)
        if round_number is not None and round_number < 1:
            self.error(element, "roundNumber", f"{round_number} is not a round (1 or more)")
            return None
        if handicap is not None and not 0 <= handicap <= 9:
            self.error(element, "handicap", f"{handicap} is not a handicap (0 to 9 stones)")
            return None
        white, black = sides
        if white is None or black is None or round_number is None or handicap is None:
            return None
        if white == black:
            self.error(element, "blackPlayer", "a player cannot play themselves")
            return None
        result = element.attributes.get("result", "").strip() or NOT_PLAYED
        return round_number, table, white, black, handicap, result

    def players(self) -> tuple[list[FilePlayer], dict[str, int]]:
        """The players, and each player's number by OpenGotha key."""
        players: list[FilePlayer] = []
        keys: dict[str, int] = {}
        for element in self.all("Player", "Players"):
            attributes = element.attributes
            surname = attributes.get("name", "").strip()
            given_name = attributes.get("firstName", "").strip()
            if not surname:
                self.error(element, "name", "a player needs a name")
                continue
            rank_text = attributes.get("rank", "").strip() or attributes.get("grade", "").strip()
            try:
                rank = parse_rank(rank_text)
            except RankError as error:
                self.error(element, "rank", f"{surname} {given_name}: {error}")
                continue
            pin = attributes.get("egfPin", "").strip()
            if pin and not _PIN_RE.match(pin):
                self.error(element, "egfPin", f"'{pin}' is not an EGD PIN (digits)")
                continue
            key = (surname + given_name).replace(" ", "").upper()
            if key in keys:
                self.error(element, "name", f"'{surname} {given_name}' is listed twice")
                continue
            number = len(players) + 1
            keys[key] = number
            rating = self.integer(element, "rating", 0) if attributes.get("rating") else None
            players.append(
                FilePlayer(
                    number=number,
                    surname=surname.replace("_", " "),
                    given_name=given_name.replace("_", " "),
                    rank=rank,
                    country=attributes.get("country", "").strip().upper(),
                    club=attributes.get("club", "").strip(),
                    pin=pin,
                    rating=rating,
                    line=element.line,
                )
            )
        return players, keys


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
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > MAX_BYTES:
        raise GameFileError(
            [RowError(0, "", f"the file has {size} bytes; the limit is {MAX_BYTES}")], source
        )
    refused = too_many_players(
        len(re.findall(rb"<Player[\s/>]", data.encode("utf-8") if isinstance(data, str) else data)),
        source,
    )
    if refused:
        raise refused
    elements = _elements(data, source)
    errors: list[RowError] = []
    if not elements or elements[0].tag != "Tournament":
        line = elements[0].line if elements else 1
        raise GameFileError(
            [RowError(line, "", "not an OpenGotha file: the root element is not <Tournament>")],
            source,
        )
    reader = _Reader(elements, errors)
    info = reader.info()
    players, keys = reader.players()
    players = assign_usernames(players)
    basic_time = reader.basic_time()
    games = reader.all("Game", "Games")
    played: dict[tuple[int, int], int] = {}  # (player, round) -> line of its game
    rated: list[tuple[int, int, int, _Element, int, int, int, Winner]] = []
    forfeits = no_result = not_played = 0
    for index, element in enumerate(games):
        game = reader.game(element, keys)
        if game is None:
            continue
        round_number, table, white, black, handicap, result = game
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
            forfeits += 1
        elif result in NO_RESULT:
            no_result += 1
        elif result == NOT_PLAYED:
            not_played += 1
        elif result in RATED_RESULTS:
            winner = RATED_RESULTS[result]
            rated.append((round_number, table, index, element, white, black, handicap, winner))
        else:
            reader.error(element, "result", f"'{result}' is not an OpenGotha result")
    if errors or info is None:
        raise GameFileError(errors, source)
    rounds = max([info.rounds, *(game[0] for game in rated)])
    info = replace(info, rounds=rounds)
    records = [
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
        )
        for seq, (round_number, _table, _index, element, white, black, handicap, winner) in (
            enumerate(sorted(rated, key=lambda game: game[:3]), start=1)
        )
    ]
    notes = []
    if forfeits:
        notes.append(f"{forfeits} games won or lost by forfeit (*_BYDEF) not rated")
    if no_result:
        notes.append(f"{no_result} games where both won or both lost not rated")
    if not_played:
        notes.append(f"{not_played} games without a result yet (RESULT_UNKNOWN) not rated")
    return TournamentFile(info, players, records, notes)
