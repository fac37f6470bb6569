"""EGD tournament result files ("h-files": h9 and the older layouts) read and written.

An h-file is plain text. Lines starting with ``;`` are comments; some carry the header
as ``; KEY[value]`` (``CL`` class, ``EV`` name, ``TC`` code, ``PC`` place, ``DT``
start,end dates, ``KM`` komi, ``HA`` handicap rule, ``TM`` adjusted time, ``CM``
comment). Every other line is a player::

     12 Kachanovskyi Artem   6D UA Rivn   40  397 0 0   19+/w0   22+/b0  ... |13411530

place (blank for a tie), "Surname Given" (``_`` for a space inside either), rank,
country, club (may be absent), numbers (MMS, SOS...: ignored), one result per round,
and optionally ``|`` and the EGD PIN. A result is ``<opponent><+ - = ?>`` then
optionally ``/`` (or ``!`` for a forfeit), the colour (``w``, ``b`` or ``?``) and the
handicap: ``19+/w0`` beat the 19th player as White in an even game, ``7-/b3`` lost to
the 7th player as Black with 3 stones, ``0+``/``0-``/``0=`` no game (bye, free
round), ``?`` no game. The opponent is the player's number: the first column, which
EGD h-files and OpenGotha fill with 1..N in placement order; a line without one (a
tie, in some files) is numbered by its position, counted from 1, as is every line of a
file whose first column repeats a number (places printed for ties).

The widths are fixed in h9 files but vary in older ones, so a line is read by tokens:
the rank is the first rank-like token followed by a two-letter country code, and the
results are the last run of as many result tokens as the file has rounds (score columns
such as ``33=`` for 33.5 points stand apart from the results).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from fractions import Fraction

from ..messages import (
    FORFEITS_NOT_RATED,
    UNFINISHED_NOT_RATED,
    Count,
    Message,
    gettext_noop,
)
from ..ranks import Rank, RankError, parse_rank
from ..records import (
    DEFAULT_EVEN_KOMI,
    DEFAULT_HANDICAP_KOMI,
    GameFileError,
    GameRecord,
    RowError,
    Status,
    Winner,
)
from . import (
    PIN_RE,
    FilePlayer,
    TournamentFile,
    TournamentInfo,
    assign_usernames,
    format_komi,
    komi_of,
    too_many_players,
    tournament_game,
)
from . import tournament_code as make_code
from .standings import SITE_CRITERIA, Round, place_players, score_text

_HEADER_RE = re.compile(r"^\s*;\s*([A-Z]{2})\[(.*)\]\s*$")
_RESULT_RE = re.compile(r"^(\d+)([-+=?])([/!]?)([wWbB?]?)(\d?)(!?)$")
# What a round result starts with (an opponent, a result, a separator): a token like it
# that _RESULT_RE refuses is a mistyped result, not a score column.
_RESULT_LIKE_RE = re.compile(r"^\d+[-+=?][/!]")
_RANK_RE = re.compile(r"^\d{1,2}[kdpKDP]$")
_BARE_KYU_RE = re.compile(r"^\d{2}$")  # "10" for 10k: old files' two-character rank field
_COUNTRY_RE = re.compile(r"^[A-Za-z]{2}$")
_NUMBER_RE = re.compile(r"^[-+]?\d+([.,]\d+)?½?$")
_NO_CLUB = ("xxx", "xxxx")

# The points White's result gives, by winner (None: a jigo, half a point).
_WHITE_POINTS: dict[Winner | None, Fraction] = {
    Winner.WHITE: Fraction(1),
    Winner.BLACK: Fraction(0),
}


@dataclass(frozen=True, slots=True)
class _Result:
    """One round of one player's line."""

    opponent: int  # 0: no game
    outcome: str  # "+", "-", "=", or "?" (no result yet)
    forfeit: bool
    colour: str  # "w", "b" or "" (not given)
    handicap: int | None  # None: not given
    text: str


@dataclass(frozen=True, slots=True)
class _Line:
    player: FilePlayer
    results: list[_Result]


# C0 controls but tab (and the line ends, split off before), and DEL.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _decode(data: bytes | str) -> str:
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # OpenGotha writes h-files in ISO-8859-15.
        return data.decode("iso8859_15")


def _is_result(token: str) -> bool:
    return token == "?" or _RESULT_RE.match(token) is not None


def written_round(token: str) -> _Result | None:
    """A round as an h-file writes it (``12+!b0`` a forfeit with Black, ``24+/w2``, ``0+``
    a bye, ``0-`` not paired), read; None for a token that is no round."""
    return _parse_result(token) if _is_result(token) else None


def _parse_result(token: str) -> _Result:
    if token == "?":
        return _Result(0, "?", False, "", None, token)
    match = _RESULT_RE.match(token)
    assert match is not None  # only result tokens get here
    opponent, outcome, separator, colour, handicap, bang = match.groups()
    colour = colour.lower()
    return _Result(
        opponent=int(opponent),
        outcome=outcome,
        forfeit=separator == "!" or bang == "!",
        colour="" if colour == "?" else colour,
        handicap=int(handicap) if handicap else None,
        text=token,
    )


def _parse_rank(token: str) -> Rank:
    if _BARE_KYU_RE.match(token):
        return parse_rank(token + "k")
    return parse_rank(token)


def _is_rank(token: str) -> bool:
    return _RANK_RE.match(token) is not None or _BARE_KYU_RE.match(token) is not None


def _runs(tokens: Sequence[str]) -> list[tuple[int, int]]:
    """(start, length) of each run of consecutive result tokens."""
    runs = []
    start = None
    for index, token in enumerate([*tokens, ""]):
        if _is_result(token):
            if start is None:
                start = index
        elif start is not None:
            runs.append((start, index - start))
            start = None
    return runs


@dataclass(frozen=True, slots=True)
class _RawLine:
    line: int
    number: int
    tokens: list[str]  # after the club
    player: FilePlayer


def _split_pin(line: int, body: str, errors: list[RowError]) -> tuple[str, str] | None:
    """A player line (its comment cut off) and the EGD PIN after its ``|`` (empty if
    none); None (reported) when what follows ``|`` is not a PIN."""
    if "|" not in body:
        return body, ""
    body, pin = body.split("|", 1)
    pin = pin.strip()
    if pin and not PIN_RE.match(pin):
        errors.append(
            RowError(
                line,
                "pin",
                Message(gettext_noop("'%(pin)s' after '|' is not an EGD PIN (digits)"), pin=pin),
            )
        )
        return None
    return body, pin


def _rank_at(tokens: Sequence[str], start: int) -> int | None:
    """Where the rank is among a player line's words: the first after a name that is
    followed by a country code."""
    return next(
        (
            index
            for index in range(start + 1, len(tokens) - 1)
            if _is_rank(tokens[index]) and _COUNTRY_RE.match(tokens[index + 1])
        ),
        None,
    )


def _read_player(line: int, number: int, text: str, errors: list[RowError]) -> _RawLine | None:
    """A player line: place, names, rank, country, club, then the rounds and figures
    (left in the ``_RawLine`` to be read once every line is), and the PIN after ``|``;
    None (reported) when it does not read."""
    split = _split_pin(line, text.split(";", 1)[0], errors)
    if split is None:
        return None
    body, pin = split
    tokens = body.split()
    start = 1 if tokens and tokens[0].isdigit() else 0
    rank_at = _rank_at(tokens, start)
    if rank_at is None:
        errors.append(
            RowError(
                line,
                "rank",
                Message(
                    gettext_noop(
                        "no name followed by a rank and a country code (e.g. 'Smith John 5k GB')"
                    )
                ),
            )
        )
        return None
    try:
        rank = _parse_rank(tokens[rank_at])
    except RankError as error:
        errors.append(RowError(line, "rank", error.message))
        return None
    names = [name.replace("_", " ") for name in tokens[start:rank_at]]
    surname = " ".join(names[:-1]) if len(names) > 1 else names[0]
    given_name = names[-1] if len(names) > 1 else ""
    rest = tokens[rank_at + 2 :]
    club = ""
    if rest and not _is_result(rest[0]) and not _NUMBER_RE.match(rest[0]):
        club = "" if rest[0].lower() in _NO_CLUB else rest[0]
        rest = rest[1:]
    player = FilePlayer(
        number=number,
        surname=surname,
        given_name=given_name,
        rank=rank,
        country=tokens[rank_at + 1].upper(),
        club=club,
        pin=pin,
        line=line,
        place=tokens[0] if start else "",
    )
    return _RawLine(line, number, rest, player)


def _numbered(raw_lines: list[_RawLine]) -> list[_RawLine]:
    """The lines with their player numbers: the first column where a line has one, else
    the line's position; every line by position when the first column repeats a number
    (a file that prints places, ties sharing one, and refers to lines by position)."""
    numbers = [
        int(raw.player.place) if raw.player.place else position
        for position, raw in enumerate(raw_lines, start=1)
    ]
    if len(set(numbers)) < len(numbers):
        return raw_lines
    return [
        replace(raw, number=number, player=replace(raw.player, number=number))
        for raw, number in zip(raw_lines, numbers, strict=True)
    ]


def _round_count(raw_lines: Sequence[_RawLine]) -> int:
    """The number of rounds: the most common length of a line's longest run of result
    tokens, not counting a run's leading bare ``?`` (score columns may hold them just
    before the results); a broken line does not decide it."""

    def longest(tokens: list[str]) -> int:
        lengths = []
        for start, length in _runs(tokens):
            leading = 0
            while leading < length and tokens[start + leading] == "?":
                leading += 1
            lengths.append(length - leading)
        return max(lengths, default=0)

    counts = Counter(longest(raw.tokens) for raw in raw_lines)
    return max(counts.items(), key=lambda item: (item[1], item[0]))[0] if counts else 0


def _results_of(
    raw: _RawLine, rounds: int, errors: list[RowError]
) -> tuple[list[_Result], tuple[str, ...], tuple[str, ...]] | None:
    """The line's rounds, the score columns before them and the columns after them."""
    runs = [run for run in _runs(raw.tokens) if run[1] >= rounds]
    if not runs:
        # A token with an opponent, a result and a colour mark that is still no result
        # ("4+/w99", a handicap of 99) breaks the run of rounds: name it, not the count.
        broken = [
            token
            for token in raw.tokens
            if _RESULT_LIKE_RE.match(token) is not None and not _is_result(token)
        ]
        if broken:
            name = f"{raw.player.surname} {raw.player.given_name}".strip()
            errors.append(
                RowError(
                    raw.line,
                    "results",
                    Message(
                        gettext_noop(
                            "player %(number)s (%(name)s): '%(result)s' is not a round result: "
                            "a result is the opponent's number, + - = or ?, then optionally / "
                            "or ! (forfeit), the colour w, b or ? and the handicap 0-9 (like "
                            "12+/w0, 7-/b3 or 0=)"
                        ),
                        number=raw.number,
                        name=name,
                        result=broken[0],
                    ),
                )
            )
            return None
        found = max((length for _, length in _runs(raw.tokens)), default=0)
        errors.append(
            RowError(
                raw.line,
                "results",
                Message(
                    gettext_noop(
                        "expected %(rounds)s round results (like 12+/w0 or 0=), found %(found)s"
                    ),
                    rounds=rounds,
                    found=found,
                ),
            )
        )
        return None
    start, length = runs[-1]
    # Score columns just before the results may look like results ("4=" for 4.5).
    first = start + length - rounds
    tokens = raw.tokens[first : start + length]
    return (
        [_parse_result(token) for token in tokens],
        tuple(raw.tokens[:first]),
        tuple(raw.tokens[start + length :]),
    )


def _column_heading(lines: Sequence[str]) -> list[str]:
    """The words of the column heading: the last comment line before the players with
    "Name" in it (empty if there is none)."""
    heading: list[str] = []
    for text in lines:
        stripped = text.strip()
        if not stripped.startswith(";"):
            if stripped:
                break
            continue
        words = stripped.lstrip(";").split()
        if any(word.lower() == "name" for word in words):
            heading = words
    return heading


def _after_round_names(lines: Sequence[str], count: int) -> tuple[str, ...]:
    """The names of the ``count`` columns after the rounds: the last words of the column
    heading (a last ``Pin`` heads the ``|PIN``, not one of them); "" where it has none."""
    if not count:
        return ()
    heading = _column_heading(lines)
    if heading and heading[-1].lower() == "pin":
        heading = heading[:-1]
    rounds_at = max(
        (i for i, word in enumerate(heading) if re.fullmatch(r"R?\d+", word, re.IGNORECASE)),
        default=None,
    )
    names = heading[rounds_at + 1 :] if rounds_at is not None else []
    # "-" heads a column without a name (as the writer heads one).
    names = ["" if name == "-" else name for name in names[-count:]]
    return ("",) * (count - len(names)) + tuple(names)


# Headings of a column of the players' GoR (KPMC 2021: "Rt"): the rating they declared.
# Headings of a column after the rounds that repeats the place (KPMC's "Place").
PLACE_HEADINGS = frozenset({"place", "pl", "plc"})


def place_columns(after_round_names: Sequence[str], width: int) -> dict[int, str]:
    """The columns after the rounds (``width`` of them) that are places, by their
    position, with their names (aligned on the last column, as the writer heads them)."""
    names = ([""] * width + list(after_round_names))[-width:] if width else []
    return {index: name for index, name in enumerate(names) if name.lower() in PLACE_HEADINGS}


RATING_COLUMNS = ("Rt", "GoR", "Rating")

# Tie-breaker names of the column heading, longest first: OpenGotha glues them
# together when a column is wider than its name ("SOSSOSOS" is SOS and SOSOS).
_SCORE_NAMES = sorted(
    [
        *("MMS", "NBW", "SOS", "SOSOS", "SODOS", "SOSW", "SOSOSW", "SODOSW", "SOSM"),
        *("SOSOSM", "SODOSM", "CUSS", "CUSSW", "CUSSM", "SOSM1", "SOSM2", "SOSW1"),
        *("SOSW2", "SOSWM1", "SOSWM2", "SOSMM1", "SOSMM2", "STS", "SOSTS", "EXT", "EXR"),
        *("SDC", "DC", "Pts", "Points", "Score", "Wins", "MSOS", "SORP", "Hd", "HD"),
        *RATING_COLUMNS,
    ],
    key=len,
    reverse=True,
)


def _split_score_names(word: str) -> list[str]:
    """The tie-breaker names glued in ``word``: a word that glues none is a column's
    own name (WAGC 2023's ``TOP10``), but "" for a round's heading such as ``R1`` or
    ``1`` (older files put them above the scores) and for ``-`` (an unnamed column, as
    the writer heads one)."""
    if word == "-" or re.fullmatch(r"R?\d+", word, re.IGNORECASE):
        return [""]
    names: list[str] = []
    rest = word
    while rest:
        name = next((n for n in _SCORE_NAMES if rest.upper().startswith(n.upper())), None)
        if name is None:
            return [word]  # not names glued together: the word is one name
        names.append(rest[: len(name)])
        rest = rest[len(name) :]
    return names


def told_apart(names: Sequence[str]) -> list[str]:
    """A file's score column headings, each naming one column: a name the reader gave
    several columns by their figures (KPMC 2017's three identical columns all match the
    points) or none tells no column apart, so those are "Column N" (N its place among
    the columns); the page shows these and the h-file export heads those columns "-"."""
    counts = Counter(names)
    return [
        name if name and counts[name] == 1 else f"Column {number}"
        for number, name in enumerate(names, start=1)
    ]


def _score_names(lines: Sequence[str], scores: int) -> tuple[str, ...]:
    """The names of the ``scores`` tie-breaker columns from the column heading (the
    last comment line before the players with "Name" in it): the words after the
    club's heading; "" where the heading does not name a column."""
    heading = _column_heading(lines)
    club_at = next((i for i, word in enumerate(heading) if word.lower() in ("club", "cl")), None)
    if club_at is None:
        return ("",) * scores
    names = [name for word in heading[club_at + 1 :] for name in _split_score_names(word)]
    names = names[:scores]
    return tuple(names) + ("",) * (scores - len(names))


def _figure(text: str) -> Fraction | None:
    """A score column's number (``33``, ``33.5``, ``33,5``, ``33½``), or None."""
    text = text.replace(",", ".")
    half = text.endswith("½")
    try:
        value = Fraction(text.removesuffix("½") or "0")
    except (ValueError, ZeroDivisionError):
        return None
    return value + Fraction(1, 2) if half else value


def named_by_figures(
    names: Sequence[str], lines: Sequence[tuple[int, Sequence[str], Sequence[str]]]
) -> tuple[str, ...]:
    """``names`` (of the score columns, or of those after the rounds) with each column
    the heading leaves unnamed named by what its figures are, when they are that on
    every line: the points the file's rounds give (a win 1,
    a jigo or a bye's ``0=`` ½, a bye ``0+`` 1: ``NBW``), their sum over the opponents
    (``SOS``) or the opponents' SOS summed (``SOSOS``). A file without a column heading
    (KPMC 2017: ``6 6 6 20 130``) is shown with its columns' names, not blanks.

    ``lines``: each player's number, the columns' texts and the rounds as written."""
    names = tuple(names)
    if all(names):
        return names
    read = [
        (number, columns, [_parse_result(token) for token in rounds if _is_result(token)])
        for number, columns, rounds in lines
    ]
    points: dict[int, Fraction] = {}
    for number, _scores, results in read:
        won = {"+": Fraction(1), "=": Fraction(1, 2)}
        points[number] = sum((won.get(r.outcome, Fraction(0)) for r in results), Fraction(0))

    def summed(of: dict[int, Fraction]) -> dict[int, Fraction]:
        return {
            number: sum(
                (of.get(r.opponent, Fraction(0)) for r in results if r.opponent), Fraction(0)
            )
            for number, _scores, results in read
        }

    sos = summed(points)
    figures = (("NBW", points), ("SOS", sos), ("SOSOS", summed(sos)))
    named = list(names)
    for index, name in enumerate(names):
        column = [
            (number, _figure(scores[index]) if index < len(scores) else None)
            for number, scores, _results in read
        ]
        if name or not column or any(value is None for _, value in column):
            continue
        named[index] = next(
            (
                criterion
                for criterion, expected in figures
                if all(expected[number] == value for number, value in column)
            ),
            "",
        )
    return tuple(named)


def _header(lines: Sequence[str]) -> dict[str, tuple[int, str]]:
    header: dict[str, tuple[int, str]] = {}
    for number, text in enumerate(lines, start=1):
        match = _HEADER_RE.match(text)
        if match and match.group(1) not in header:
            header[match.group(1)] = (number, match.group(2).strip())
    return header


def _header_dates(header, errors: list[RowError]) -> tuple[date, date] | None:
    if "DT" not in header:
        errors.append(
            RowError(
                1,
                "DT",
                Message(gettext_noop("the header has no DT[start,end] line with the dates")),
            )
        )
        return None
    line, text = header["DT"]
    parts = [part.strip() for part in text.split(",") if part.strip()]
    try:
        days = [date.fromisoformat(part) for part in parts]
    except ValueError:
        days = []
    if not days:
        errors.append(
            RowError(
                line,
                "DT",
                Message(gettext_noop("'%(text)s' is not dates (YYYY-MM-DD,YYYY-MM-DD)"), text=text),
            )
        )
        return None
    start, end = days[0], days[-1]
    if end < start:
        errors.append(
            RowError(
                line,
                "DT",
                Message(
                    gettext_noop("the end date %(end)s is before the start %(start)s"),
                    end=end,
                    start=start,
                ),
            )
        )
        return None
    return start, end


def _header_komi(header, errors: list[RowError]) -> Fraction:
    if "KM" not in header or not header["KM"][1]:
        return DEFAULT_EVEN_KOMI
    line, text = header["KM"]
    komi = komi_of(text.replace(",", "."))
    if komi is None:
        errors.append(
            RowError(
                line,
                "KM",
                Message(gettext_noop("'%(text)s' is not a komi (a multiple of 0.5)"), text=text),
            )
        )
        return DEFAULT_EVEN_KOMI
    return komi


def _header_code(header, name: str, start: date | None) -> str:
    """``TC`` if given; else made from ``EV`` and, unless the name holds it, the start's
    year: a club's yearly event is named alike every year, with no ``TC`` (OpenGotha's
    h-file has none), and each edition is a tournament of its own (the archive's
    amp2006 and amp2008, both 'Polish Students Championship')."""
    if header.get("TC", (0, ""))[1]:
        return make_code(header["TC"][1])
    if not make_code(name) or start is None or str(start.year) in name:
        return make_code(name)
    return make_code(f"{name} {start.year}")


def _header_info(header, rounds: int, errors: list[RowError]) -> TournamentInfo | None:
    name = header.get("EV", (1, ""))[1]
    dates = _header_dates(header, errors)
    code = _header_code(header, name, dates[0] if dates else None)
    if not code:
        errors.append(
            RowError(
                1,
                "EV",
                Message(
                    gettext_noop("the header has no EV[...] name (nor a TC[...] code) to go by")
                ),
            )
        )
    tournament_class = header.get("CL", (1, "A"))[1].upper() or "A"
    if tournament_class not in ("A", "B", "C", "D"):
        errors.append(
            RowError(
                header["CL"][0],
                "CL",
                Message(
                    gettext_noop("'%(letter)s' is not a class (A, B, C or D)"),
                    letter=tournament_class,
                ),
            )
        )
    komi = _header_komi(header, errors)
    if not code or dates is None:
        return None
    return TournamentInfo(
        code=code,
        name=name or code,
        start=dates[0],
        end=dates[1],
        tournament_class=tournament_class,
        komi=komi,
        rounds=rounds,
        place=header.get("PC", (0, ""))[1],
        handicap_rule=header.get("HA", (0, ""))[1],
        time=header.get("TM", (0, ""))[1],
        comment=header.get("CM", (0, ""))[1],
        file_format="egd",
    )


class _Games:
    """Pairs the two halves of each game and turns them into records."""

    def __init__(self, lines: list[_Line], info: TournamentInfo, errors: list[RowError]):
        self.lines = lines
        self.info = info
        self.errors = errors
        self.records: list[GameRecord] = []
        self.forfeits = 0
        self.unfinished = 0

    def error(self, line: _Line, round_number: int, message: str) -> None:
        self.errors.append(RowError(line.player.line or 0, f"round {round_number}", message))

    def pair(self) -> None:
        count = len(self.lines)
        by_number = {line.player.number: line for line in self.lines}
        for line in self.lines:
            me = line.player.number
            for round_number, result in enumerate(line.results, start=1):
                if result.opponent == 0:
                    continue
                if result.opponent == me:
                    self.error(
                        line,
                        round_number,
                        Message(
                            gettext_noop("'%(result)s': a player cannot play themselves"),
                            result=result.text,
                        ),
                    )
                    continue
                if result.opponent not in by_number:
                    self.error(
                        line,
                        round_number,
                        Message(
                            gettext_noop(
                                "'%(result)s': there is no player %(opponent)s (the file lists "
                                "%(count)s)"
                            ),
                            result=result.text,
                            opponent=result.opponent,
                            count=Count(count),
                        ),
                    )
                    continue
                other = by_number[result.opponent]
                theirs = other.results[round_number - 1]
                if theirs.opponent != me:
                    said = (
                        f"'{theirs.text}'"
                        if theirs.opponent
                        else Message(gettext_noop("no game ('%(result)s')"), result=theirs.text)
                    )
                    self.error(
                        line,
                        round_number,
                        Message(
                            gettext_noop(
                                "'%(result)s' names player %(opponent)s, whose line %(line)s has "
                                "%(said)s in this round"
                            ),
                            result=result.text,
                            opponent=result.opponent,
                            line=other.player.line,
                            said=said,
                        ),
                    )
                    continue
                if me < result.opponent:
                    self.game(line, other, round_number, result, theirs)

    def game(self, line: _Line, other: _Line, round_number: int, mine: _Result, theirs: _Result):
        """A game from its two halves (``mine`` on ``line``, ``theirs`` on the
        opponent's): halves that disagree reported, a forfeit or an unfinished game
        counted, else its record kept."""
        problem = _disagreement(mine, theirs)
        if problem is not None:
            values = {"mine": mine.text, "theirs": theirs.text, "line": other.player.line}
            self.error(line, round_number, Message(problem, **values))
            return
        if mine.forfeit:
            self.forfeits += 1
            return
        if mine.outcome == "?":
            self.unfinished += 1
            return
        handicap = next((h for h in (mine.handicap, theirs.handicap) if h is not None), 0)
        white_is_me = _white_is_first(line, other, mine, theirs, handicap)
        white, black = (line, other) if white_is_me else (other, line)
        mine_won = {"+": True, "-": False}.get(mine.outcome)
        if mine_won is None:
            winner = Winner.JIGO
        else:
            winner = Winner.WHITE if mine_won == white_is_me else Winner.BLACK
        record = tournament_game(
            self.info,
            round_number,
            white.player,
            black.player,
            winner,
            handicap,
            line=line.player.line,
        )
        # An even game with no colour on either side (WAGC 2024's "30+"): the pair as
        # listed, its colours not given. A handicap game's Black is who took the stones.
        if not (mine.colour or theirs.colour or handicap):
            record = replace(record, colour_given=False)
        self.records.append(record)


def _disagreement(mine: _Result, theirs: _Result) -> str | None:
    """What the two halves of a game disagree on, as a message's template (``mine``,
    ``theirs``, ``line``); None when they agree. A forfeit and an unfinished game are
    checked no further than their outcome."""
    if mine.forfeit or theirs.forfeit:
        if mine.forfeit != theirs.forfeit:
            return gettext_noop(
                "'%(mine)s' and '%(theirs)s' (line %(line)s) disagree on whether the "
                "game was forfeited"
            )
        return None
    if (mine.outcome, theirs.outcome) not in (("+", "-"), ("-", "+"), ("=", "="), ("?", "?")):
        return gettext_noop("'%(mine)s' and '%(theirs)s' (line %(line)s) disagree on the result")
    if mine.outcome == "?":
        return None
    if mine.colour and theirs.colour and mine.colour == theirs.colour:
        return gettext_noop(
            "'%(mine)s' and '%(theirs)s' (line %(line)s) give both players the same colour"
        )
    handicaps = {h for h in (mine.handicap, theirs.handicap) if h is not None}
    if len(handicaps) > 1:
        return gettext_noop("'%(mine)s' and '%(theirs)s' (line %(line)s) disagree on the handicap")
    return None


def _white_is_first(
    line: _Line, other: _Line, mine: _Result, theirs: _Result, handicap: int
) -> bool:
    """Whether the player of ``line`` was White: as either half's colour says; with
    none, the weaker player took the stones of a handicap game (equal ranks: the player
    listed first is White), and the player listed first is White in an even one."""
    if mine.colour:
        return mine.colour == "w"
    if theirs.colour:
        return theirs.colour == "b"
    if handicap:
        return line.player.rank >= other.player.rank
    return True


def _declared(scores: tuple[str, ...], at: int | None) -> int | None:
    """The GoR in the rating column, when the file has one and it is a whole number."""
    if at is None or at >= len(scores) or not re.fullmatch(r"-?\d{1,4}", scores[at]):
        return None
    return int(scores[at])


def read_egd(data: bytes | str, source: str = "") -> TournamentFile:
    """Read an EGD h-file. Raises :class:`GameFileError` listing every problem (line,
    column, reason); nothing of a file with a problem is to be used."""
    lines = _decode(data).splitlines()
    refused = too_many_players(
        sum(1 for text in lines if text.strip() and not text.lstrip().startswith(";")), source
    )
    if refused:
        raise refused
    errors: list[RowError] = []
    raw_lines = _numbered(_player_lines(lines, errors))
    rounds = _round_count(raw_lines)
    info = _header_info(_header(lines), rounds, errors)
    _check_pins(raw_lines, errors)
    results = [_results_of(raw, rounds, errors) for raw in raw_lines]
    if errors or info is None:
        raise GameFileError(errors, source)
    info = _with_column_names(info, lines, raw_lines, results)
    named = _named_players(info, raw_lines, results)
    parsed = [
        _Line(player, result[0] if result else [])
        for player, result in zip(named, results, strict=True)
    ]
    games = _Games(parsed, info, errors)
    games.pair()
    if errors:
        raise GameFileError(errors, source)
    records = sorted(games.records, key=lambda record: (record.round, record.line or 0))
    records = [replace(record, seq=seq) for seq, record in enumerate(records, start=1)]
    notes: list[str] = []
    if games.forfeits:
        notes.append(Message(FORFEITS_NOT_RATED, games=games.forfeits))
    if games.unfinished:
        notes.append(Message(UNFINISHED_NOT_RATED, games=games.unfinished))
    return TournamentFile(info, named, records, notes)


def _player_lines(lines: list[str], errors: list[RowError]) -> list[_RawLine]:
    """The file's player lines (not blank, not comments), a line with a control
    character refused."""
    raw_lines: list[_RawLine] = []
    for line_number, text in enumerate(lines, start=1):
        control = _CONTROL_RE.search(text)
        if control:
            # A NUL or another control character is no text a club writes; the database
            # (PostgreSQL) refuses a NUL in a name anyway.
            errors.append(
                RowError(
                    line_number,
                    "",
                    Message(
                        gettext_noop(
                            "control character %(character)s at column %(column)s: a tournament "
                            "file holds text only"
                        ),
                        character=f"U+{ord(control.group()):04X}",
                        column=control.start() + 1,
                    ),
                )
            )
            continue
        if not text.strip() or text.lstrip().startswith(";"):
            continue
        raw = _read_player(line_number, len(raw_lines) + 1, text, errors)
        if raw is not None:
            raw_lines.append(raw)
    if not raw_lines and not errors:
        errors.append(
            RowError(
                1, "", Message(gettext_noop("no player lines: this is not an EGD tournament file"))
            )
        )
    return raw_lines


def _check_pins(raw_lines: list[_RawLine], errors: list[RowError]) -> None:
    """An error for each PIN listed a second time (one player listed twice)."""
    pins: dict[str, int] = {}
    for raw in raw_lines:
        if raw.player.pin and raw.player.pin in pins:
            errors.append(
                RowError(
                    raw.line,
                    "pin",
                    Message(
                        gettext_noop(
                            "PIN %(pin)s is also on line %(line)s: one player listed twice"
                        ),
                        pin=raw.player.pin,
                        line=pins[raw.player.pin],
                    ),
                )
            )
        pins.setdefault(raw.player.pin, raw.line)


def _with_column_names(
    info: TournamentInfo, lines: list[str], raw_lines: list[_RawLine], results: list
) -> TournamentInfo:
    """``info`` with the names of the score and after-round columns, from the header
    where it names them, else from the figures."""
    score_count = Counter(len(result[1]) for result in results if result).most_common(1)
    after_count = max((len(result[2]) for result in results if result), default=0)
    read = [(raw, result) for raw, result in zip(raw_lines, results, strict=True) if result]
    return replace(
        info,
        score_names=named_by_figures(
            _score_names(lines, score_count[0][0] if score_count else 0),
            [(raw.number, result[1], [r.text for r in result[0]]) for raw, result in read],
        ),
        after_round_names=named_by_figures(
            _after_round_names(lines, after_count),
            [(raw.number, result[2], [r.text for r in result[0]]) for raw, result in read],
        ),
    )


def _named_players(
    info: TournamentInfo, raw_lines: list[_RawLine], results: list
) -> list[FilePlayer]:
    """The file's players with their scores, results, declared GoR and after-round
    columns, each given a username."""
    rating_at = next((i for i, name in enumerate(info.score_names) if name in RATING_COLUMNS), None)
    return assign_usernames(
        [
            replace(
                raw.player,
                scores=result[1] if result else (),
                results=tuple(r.text for r in result[0]) if result else (),
                rating=_declared(result[1], rating_at) if result else None,
                after_rounds=result[2] if result else (),
            )
            for raw, result in zip(raw_lines, results, strict=True)
        ]
    )


# --- writing ------------------------------------------------------------------------


def _clean(text: str, forbidden: str = ";|[]") -> str:
    """Text without the characters that would end a header value or a player line."""
    return "".join("_" if char in forbidden else char for char in text).strip()


def _name_field(player: FilePlayer) -> str:
    surname = _clean(player.surname or player.username).replace(" ", "_") or "x"
    given_name = _clean(player.given_name).replace(" ", "_")
    return f"{surname} {given_name}" if given_name else surname


def _club_field(club: str) -> str:
    club = _clean(club).replace(" ", "")
    if not club or _is_result(club) or _NUMBER_RE.match(club):
        return "xxxx"
    return club


def round_columns(tournament: TournamentFile) -> dict[int, int]:
    """Each record's round column (by index in ``records``): its round, or for a game
    without a round number the first column where neither player has a game."""
    busy: set[tuple[str, int]] = set()
    columns: dict[int, int] = {}
    for index, record in enumerate(tournament.records):
        if record.round:
            for name in (record.white, record.black):
                if (name, record.round) in busy:
                    raise ValueError(
                        Message(
                            gettext_noop(
                                "%(name)s has two games in round %(round)s: an h-file has one "
                                "result per player per round"
                            ),
                            name=name,
                            round=record.round,
                        )
                    )
                busy.add((name, record.round))
            columns[index] = record.round
    for index, record in enumerate(tournament.records):
        if record.round:
            continue
        column = 1
        while (record.white, column) in busy or (record.black, column) in busy:
            column += 1
        busy.update({(record.white, column), (record.black, column)})
        columns[index] = column
    return columns


def _game_cells(tournament: TournamentFile, number: dict[str, int]) -> dict[tuple[str, int], str]:
    """Each player's result token of each round with a game (``12+/w0``)."""
    columns = round_columns(tournament)
    cells: dict[tuple[str, int], str] = {}
    for index, record in enumerate(tournament.records):
        column = columns[index]
        for me, them, colour in (
            (record.white, record.black, "w"),
            (record.black, record.white, "b"),
        ):
            if record.winner is Winner.JIGO:
                outcome = "="
            else:
                mine = Winner.WHITE if colour == "w" else Winner.BLACK
                outcome = "+" if record.winner is mine else "-"
            if record.colour_given:
                cells[me, column] = f"{number[them]}{outcome}/{colour}{record.handicap}"
            elif record.handicap:
                cells[me, column] = f"{number[them]}{outcome}/?{record.handicap}"
            else:
                cells[me, column] = f"{number[them]}{outcome}"  # as WAGC 2024 writes it
    return cells


def _as_written(written: str, game: str | None, opponent_has_game: bool = False) -> str:
    """A round's cell: the file's own token when it says what the stored game says
    (``18+`` for ``18+/w0``: the colour and handicap may be left out), a round without
    a game as the file wrote it (``0+`` a bye, ``?``, a forfeit ``12+!``), else the
    game's token (``0-`` when there is neither)."""
    if not written:
        return game or "0-"
    mine = _parse_result(written) if _is_result(written) else None
    if game is None:
        if mine is None or mine.opponent == 0:
            return written
        if (mine.forfeit or mine.outcome == "?") and not opponent_has_game:
            return written
        return "0-"  # the file's game is no longer stored (voided), or moved
    ours = _parse_result(game)
    if (
        mine is not None
        and not mine.forfeit
        and (mine.opponent, mine.outcome) == (ours.opponent, ours.outcome)
        and mine.colour in ("", ours.colour)
        and mine.handicap in (None, ours.handicap or 0)  # "12+": an even game's, no colour
    ):
        return written
    if mine is not None and mine.handicap is None and not ours.handicap and ours.colour:
        # A file that leaves an even game's handicap out (KPMC 2017's "35+/b") gets a
        # corrected game in its own style: "38-/w", not "38-/w0" among "35+/b".
        return f"{ours.opponent}{ours.outcome}/{ours.colour}"
    return game


def _names_busy(
    written: str, players: list[FilePlayer], cells: dict[tuple[str, int], str], round_number: int
) -> bool:
    """Whether the opponent a written token names has a stored game in that round."""
    if not _is_result(written):
        return False
    opponent = _parse_result(written).opponent
    if not 0 < opponent <= len(players):
        return False
    return (players[opponent - 1].username, round_number) in cells


def _by_place(players: list[FilePlayer]) -> list[FilePlayer]:
    """``players`` in the order of their places (a blank place, a tie, stays below the
    player above it; the file's order between equal places)."""
    keys: list[tuple[int, int]] = []
    last = 0
    for index, player in enumerate(players):
        last = int(player.place) if player.place.isdigit() else last
        keys.append((last, index))
    return [players[index] for _, index in sorted(keys)]


def _renumbered(written: str, numbers: dict[int, int]) -> str:
    """A round as the file wrote it, naming the opponent by their number in the
    written file (``numbers``: the file's number to the written one)."""
    if not _is_result(written):
        return written
    opponent = _parse_result(written).opponent
    if opponent not in numbers:
        return written
    return str(numbers[opponent]) + written[len(str(opponent)) :]


def _placed(tournament: TournamentFile) -> tuple[list[FilePlayer], tuple[str, ...]]:
    """The players in the order to write them, with their place and scores, and the
    names of the score columns: as the file had them when the players came from one
    (those added since after them, by position), else placed by points, SOS and SOSOS
    (a tournament entered on the site)."""
    players = tournament.players
    if any(player.results for player in players):
        # The file's players by place (OpenGotha lists them by registration); players
        # added since (a game entered on the site) follow them.
        from_file = _by_place([player for player in players if player.results])
        added = [player for player in players if not player.results]
        return [
            player if player.results else replace(player, place=str(position))
            for position, player in enumerate([*from_file, *added], start=1)
        ], tournament.tournament.score_names
    rounds: dict[str, list[Round]] = {player.username: [] for player in players}
    for record in tournament.records:
        white_points = _WHITE_POINTS.get(record.winner, Fraction(1, 2))
        rounds[record.white].append(Round(record.black, Fraction(white_points)))
        rounds[record.black].append(Round(record.white, 1 - Fraction(white_points)))
    by_rank = sorted(
        players, key=lambda p: (-p.rank.stones, -p.rank.pro, p.surname, p.given_name, p.number)
    )
    placed = place_players(rounds, SITE_CRITERIA, order=[p.username for p in by_rank])
    by_name = {player.username: player for player in players}
    return [
        replace(
            by_name[entry.player],
            place="" if entry.tied else str(entry.place),
            scores=tuple(score_text(value) for value in entry.scores),
        )
        for entry in placed
    ], SITE_CRITERIA


def _with_a_game(players: list[FilePlayer], tournament: TournamentFile) -> list[FilePlayer]:
    """``players`` but those without a game: none stored and none the file wrote (a
    forfeit ``12+!`` or a game without its result ``12?`` stay written)."""
    playing = {name for record in tournament.records for name in (record.white, record.black)}

    def written_game(token: str) -> bool:
        if not _is_result(token):
            return False
        result = _parse_result(token)
        return bool(result.opponent) and (result.forfeit or result.outcome == "?")

    return [
        player
        for player in players
        if player.username in playing or any(written_game(t) for t in player.results)
    ]


def _shown_places(players: list[FilePlayer]) -> dict[str, bool]:
    """Whether each player's line shows its place: not when they are tied with the
    player written above (the same place, or a blank one: an h-file's tie)."""
    shown: dict[str, bool] = {}
    above = None
    for index, player in enumerate(players):
        place = player.place.strip().rstrip(".") or above
        shown[player.username] = index == 0 or place != above
        above = place
    return shown


def write_egd(tournament: TournamentFile, *, bye: str = "0+") -> str:
    """The tournament as an h9 file that :func:`read_egd` reads back to the same
    tournament, its players placed as the EGD's and OpenGotha's exports place them.

    A tournament read from a file is written as the file had it: its players in the
    order of their places with their tie-breaker columns, and each round as written
    (``18+`` stays without a colour) unless the stored game says otherwise; a bye
    (``0+``) is written ``bye``, its worth (OpenGotha writes a bye worth nothing
    ``0-``, half a point ``0=``). Other tournaments are placed by points, then SOS,
    then SOSOS (:mod:`.standings`). A player without a game is left out (OpenGotha
    lists only the players of a game), but from an h-file, whose lines stay as the
    file had them (the EGD's EGC 2013 lists five); a player tied with the one above has a blank
    place (ex aequo), the others their line's number. Each round's result names the
    opponent's line, the result, the colour and the handicap (``12+/w0``; ``12+`` for
    an even game whose colours were not given); a round without a game is ``0-``. The
    column heading names every score column, ``-`` one the file did not name.
    """
    info = tournament.tournament
    _check_writable(tournament)
    players, score_names = _placed(tournament)
    if info.file_format != "egd":  # an h-file's lines stay as it had them (EGC 2013's)
        players = _with_a_game(players, tournament)
    # Every line is numbered by its position, the number its opponents name; the
    # file's rounds named the players by the file's numbers.
    number = {player.username: index for index, player in enumerate(players, start=1)}
    renumber = {
        player.number: index for index, player in enumerate(players, start=1) if player.results
    }
    cells = _game_cells(tournament, number)
    rounds = max(
        [info.rounds, *(column for _, column in cells), *(len(p.results) for p in players)],
        default=0,
    )
    score_count = max((len(player.scores) for player in players), default=0)
    lines = _header_lines(info)
    lines += [
        "; Generated by clubrating",
        ";",
        _heading_line(info, players, score_names, score_count, rounds),
    ]
    shown_place = _shown_places(players)
    for player in players:
        first = str(number[player.username]) if shown_place[player.username] else ""
        written = [
            bye if token == "0+" else _renumbered(token, renumber) for token in player.results
        ]
        written += [""] * (rounds - len(player.results))
        cells_written = [
            _as_written(
                written[r - 1],
                cells.get((player.username, r)),
                _names_busy(written[r - 1], players, cells, r),
            )
            for r in range(1, rounds + 1)
        ]
        lines.append(_player_line(player, first, score_count, cells_written))
    return "\n".join(lines) + "\n"


def _check_writable(tournament: TournamentFile) -> None:
    """Raise ValueError for an adjustment, a game without a winner or a game of a player
    the tournament does not list."""
    known = {player.username for player in tournament.players}
    for record in tournament.records:
        if record.is_adjustment or record.winner is None:
            raise ValueError(
                Message(
                    gettext_noop("only games go into an h-file, not %(record)s"), record=str(record)
                )
            )
        missing = {record.white, record.black} - known
        if missing:
            raise ValueError(
                Message(
                    gettext_noop("%(names)s is not among the players"),
                    names=", ".join(sorted(missing)),
                )
            )


def _header_lines(info: TournamentInfo) -> list[str]:
    """The h-file's header: class, name, code, place, dates, handicap, komi, time,
    comment."""
    lines = [
        f"; CL[{info.tournament_class}]",
        f"; EV[{_clean(info.name)}]",
        f"; TC[{_clean(info.code)}]",
    ]
    if info.place:
        lines.append(f"; PC[{_clean(info.place)}]")
    lines.append(f"; DT[{info.start.isoformat()},{info.end.isoformat()}]")
    if info.handicap_rule:
        lines.append(f"; HA[{_clean(info.handicap_rule)}]")
    lines.append(f"; KM[{format_komi(info.komi)}]")
    if info.time:
        lines.append(f"; TM[{_clean(info.time)}]")
    if info.comment:
        lines.append(f"; CM[{_clean(info.comment)}]")
    return lines


def _heading_line(
    info: TournamentInfo,
    players: list[FilePlayer],
    score_names: Sequence[str],
    score_count: int,
    rounds: int,
) -> str:
    """The line naming the columns: the scores', the rounds' and those after them."""
    # "-" heads a column the file did not name (or that the figures do not tell apart,
    # "Column N" on the page), so the names keep their columns.
    names = list(score_names[:score_count]) + [""] * (score_count - len(score_names))
    heading = " ".join(
        "-" if name.startswith("Column ") else _clean(name).replace(" ", "_")
        for name in told_apart(names)
    )
    after_count = max((len(player.after_rounds) for player in players), default=0)
    after_names = (
        ([""] * (after_count - len(info.after_round_names)) + list(info.after_round_names))[
            -after_count:
        ]
        if after_count
        else []
    )
    return (
        f"; Pl {'Name':<30} {'Rk':>3} Co Club {heading}".rstrip()
        + "".join(f" {f'R{r}':>8}" for r in range(1, rounds + 1))
        + "".join(f" {name or '-':>5}" for name in after_names)
    )


def _player_line(player: FilePlayer, first: str, score_count: int, rounds: list[str]) -> str:
    """A player's line: place (``first``), name, rank, country, club, scores, the
    rounds as written, the columns after them and the PIN."""
    country = player.country if _COUNTRY_RE.match(player.country or "") else "XX"
    scores = "".join(f" {_clean(score).replace(' ', '') or '0':>5}" for score in player.scores)
    scores += " " * 6 * (score_count - len(player.scores))
    line = (
        f"{first:>4} {_name_field(player):<30} {player.rank!s:>3} "
        f"{country.upper()} {_club_field(player.club):>4}{scores}"
    )
    line += "".join(f" {cell:>8}" for cell in rounds)
    # The columns after the rounds (KPMC's NBW and Place), as the file wrote them.
    line += "".join(f" {_clean(token).replace(' ', ''):>5}" for token in player.after_rounds)
    if PIN_RE.match(player.pin):
        line += f" |{player.pin}"
    return line


def egd_losses(tournament: TournamentFile) -> list[str]:
    """What an h-file of ``tournament`` cannot carry: an EGD PIN that is not digits, and
    game by game a komi other than the file's (even games) or 0.5 (handicap games),
    another board size or status."""
    info = tournament.tournament
    losses: list[str] = [
        Message(
            gettext_noop("%(player)s: the EGD PIN '%(pin)s' is not digits and is left out"),
            player=player.username,
            pin=player.pin,
        )
        for player in tournament.players
        if player.pin and not PIN_RE.match(player.pin)
    ]
    for record in tournament.records:
        expected = info.komi if record.handicap == 0 else DEFAULT_HANDICAP_KOMI
        game = Message(
            gettext_noop("round %(round)s %(white)s-%(black)s"),
            round=record.round,
            white=record.white,
            black=record.black,
        )
        if record.komi != expected:
            losses.append(
                Message(
                    gettext_noop("%(game)s: komi %(komi)s is written as %(written)s"),
                    game=game,
                    komi=format_komi(record.komi),
                    written=format_komi(expected),
                )
            )
        if record.board_size != info.board_size:
            losses.append(
                Message(
                    gettext_noop("%(game)s: the %(size)sx%(size)s board is lost"),
                    game=game,
                    size=record.board_size,
                )
            )
        if record.status is not Status.TOURNAMENT:
            losses.append(
                Message(
                    gettext_noop("%(game)s: a %(status)s game reads back as a tournament game"),
                    game=game,
                    status=record.status.value,
                )
            )
    return losses
