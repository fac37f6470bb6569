"""Reading the games file (SPEC section 2): the CSV of games and adjustments into
``GameRecord``s, every problem listed with its line and column; and the players file of
entry ranks. An adjustment names one of the registry's algorithms."""

from __future__ import annotations

import csv
import io
import operator
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from fractions import Fraction

from ..algorithms import algorithm_names
from ..frozen import frozen_builder
from ..messages import Message, gettext_noop
from ..ranks import Rank, RankError, parse_rank
from ..records import (
    COLUMNS,
    MAX_USERNAME_LENGTH,
    Entry,
    GameFile,
    GameFileError,
    GameRecord,
    RowError,
    Status,
    Winner,
    default_komi,
)

REQUIRED_COLUMNS = ("date", "white", "black")
_ISO_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_USERNAME_RE = re.compile(r"^\S+$")
# Every komi there is: a multiple of 0.5 in -50..50 (SPEC section 2).
_KOMIS = frozenset(Fraction(halves, 2) for halves in range(-100, 101))

# Cell texts already parsed without error, and what they gave: a file repeats a few
# thousand dates and usernames, a few dozen ranks and komis, over and over, and
# checking each again cost about half of reading a file. Bounded, and only valid
# texts are kept (a bad one is reported every time it appears).
_DATES: dict[str, date] = {}
_RANKS: dict[str, Rank] = {}
_NUMBERS: dict[str, Fraction] = {}
# Each username by itself: the records of a file share one string per player, which
# the engines' dictionaries and opponent lists then compare by identity (a string per
# cell cost a comparison of characters, and a cache miss, at every lookup).
_USERNAMES: dict[str, str] = {}
_KNOWN_LIMIT = 100_000


def _remember(known: dict, text: str, value: object) -> None:
    if len(known) < _KNOWN_LIMIT:
        known[text] = value


class _RowParser:
    """Collects the errors of one row while turning its cells into typed values."""

    def __init__(self, line: int, row: Mapping[str, str], errors: list[RowError]) -> None:
        self.line = line
        self.row = row
        self.errors = errors

    def cell(self, column: str) -> str:
        value = self.row.get(column)
        return value.strip() if value else ""

    def error(self, column: str, message: str) -> None:
        self.errors.append(RowError(self.line, column, message))

    def date(self, column: str) -> date | None:
        text = self.cell(column)
        known = _DATES.get(text)
        if known is not None:
            return known
        if not text:
            self.error(column, Message(gettext_noop("a date is required (YYYY-MM-DD)")))
            return None
        if not _ISO_DATE_RE.match(text):
            self.error(
                column,
                Message(gettext_noop("'%(text)s' is not an ISO date (YYYY-MM-DD)"), text=text),
            )
            return None
        try:
            played_on = date.fromisoformat(text)
        except ValueError:
            self.error(column, Message(gettext_noop("'%(text)s' is not a valid date"), text=text))
            return None
        _remember(_DATES, text, played_on)
        return played_on

    def username(self, column: str) -> str:
        text = self.cell(column)
        known = _USERNAMES.get(text)
        if known is not None:
            return known
        if not text:
            self.error(column, Message(gettext_noop("a player username is required")))
        elif not _USERNAME_RE.match(text):
            self.error(
                column,
                Message(
                    gettext_noop("'%(text)s' is not a username (no spaces allowed)"), text=text
                ),
            )
        elif len(text) > MAX_USERNAME_LENGTH:
            self.error(
                column,
                Message(
                    gettext_noop("username longer than %(limit)s characters"),
                    limit=MAX_USERNAME_LENGTH,
                ),
            )
        else:
            _remember(_USERNAMES, text, text)
        return text

    def rank(self, column: str) -> Rank | None:
        text = self.cell(column)
        if not text:
            return None
        known = _RANKS.get(text)
        if known is not None:
            return known
        try:
            rank = parse_rank(text)
        except RankError as error:
            self.error(column, error.message)
            return None
        _remember(_RANKS, text, rank)
        return rank

    def integer(self, column: str, default: int, allowed: Iterable[int], what: str) -> int:
        text = self.cell(column)
        if not text:
            return default
        try:
            value = int(text)
        except ValueError:
            self.error(column, Message(gettext_noop("'%(text)s' is not a whole number"), text=text))
            return default
        if value not in allowed:
            self.error(
                column, Message(gettext_noop("%(value)s is not %(what)s"), value=value, what=what)
            )
            return default
        return value

    def number(self, column: str) -> Fraction | None:
        text = self.cell(column)
        if not text:
            return None
        known = _NUMBERS.get(text)
        if known is not None:
            return known
        try:
            value = Fraction(text)
        except (ValueError, ZeroDivisionError):
            self.error(column, Message(gettext_noop("'%(text)s' is not a number"), text=text))
            return None
        _remember(_NUMBERS, text, value)
        return value


def _parse_winner(parser: _RowParser) -> Winner | None:
    text = parser.cell("winner").lower()
    if not text:
        return None
    winner = {
        "w": Winner.WHITE,
        "white": Winner.WHITE,
        "b": Winner.BLACK,
        "black": Winner.BLACK,
        "d": Winner.JIGO,
        "jigo": Winner.JIGO,
        "draw": Winner.JIGO,
    }.get(text)
    if winner is None:
        parser.error(
            "winner",
            Message(
                gettext_noop("'%(text)s' is not a winner (W, B or D for jigo)"),
                text=parser.cell("winner"),
            ),
        )
    return winner


def _parse_status(parser: _RowParser) -> Status:
    text = parser.cell("status").lower()
    if not text:
        return Status.NORMAL
    try:
        return Status(text)
    except ValueError:
        parser.error(
            "status",
            Message(
                gettext_noop(
                    "'%(text)s' is not a status (free, normal, tournament, internet or adjustment)"
                ),
                text=parser.cell("status"),
            ),
        )
        return Status.NORMAL


def _parse_komi(parser: _RowParser, handicap: int) -> Fraction:
    """The komi, or the default one for the handicap when the cell is empty."""
    komi = parser.number("komi")
    if komi is None:
        return default_komi(handicap)
    if komi not in _KOMIS:
        parser.error(
            "komi",
            Message(
                gettext_noop("%(text)s is not a komi (a multiple of 0.5 in -50..50)"),
                text=parser.cell("komi"),
            ),
        )
    return komi


def _parse_class(parser: _RowParser) -> str:
    tournament_class = parser.cell("tournament_class").upper() or "A"
    if tournament_class not in ("A", "B", "C", "D"):
        parser.error(
            "tournament_class",
            Message(
                gettext_noop("'%(letter)s' is not a class (A, B, C or D)"), letter=tournament_class
            ),
        )
    return tournament_class


def _parse_time(parser: _RowParser) -> Fraction | None:
    time_minutes = parser.number("time_minutes")
    if time_minutes is not None and time_minutes <= 0:
        parser.error(
            "time_minutes",
            Message(
                gettext_noop("%(text)s is not a positive time"), text=parser.cell("time_minutes")
            ),
        )
    return time_minutes


def _parse_algorithm(parser: _RowParser) -> str:
    algorithm = parser.cell("algorithm").lower()
    known = algorithm_names()
    if algorithm and algorithm not in known:
        parser.error(
            "algorithm",
            Message(
                gettext_noop("'%(name)s' is not an algorithm (%(known)s)"),
                name=algorithm,
                known=", ".join(known),
            ),
        )
    return algorithm


def _check_adjustment(parser: _RowParser, white: str, black: str, new_rank: Rank | None) -> None:
    """An adjustment names one player (as white and black) and their new rank."""
    if white and black and white != black:
        parser.error(
            "black",
            Message(gettext_noop("an adjustment names the same player as white and black")),
        )
    if new_rank is None and not parser.cell("white_rank"):
        parser.error(
            "white_rank", Message(gettext_noop("an adjustment needs the player's new rank"))
        )


def _check_game(
    parser: _RowParser,
    white: str,
    black: str,
    winner: Winner | None,
    value: Fraction | None,
    algorithm: str,
) -> None:
    """A game is between two players and has a winner; it gives no value and names no
    algorithm (an adjustment's)."""
    if white and white == black:
        parser.error(
            "black",
            Message(
                gettext_noop("'%(name)s' cannot play themselves (only an adjustment may)"),
                name=white,
            ),
        )
    if winner is None and not parser.cell("winner"):
        parser.error("winner", Message(gettext_noop("a game needs a winner (W, B or D for jigo)")))
    if value is not None:
        parser.error("value", Message(gettext_noop("a value is only given for an adjustment")))
    if algorithm:
        parser.error(
            "algorithm", Message(gettext_noop("an algorithm is only named for an adjustment"))
        )


def parse_row(line: int, seq: int, row: Mapping[str, str], errors: list[RowError]) -> GameRecord:
    """One CSV row as a record; problems are appended to ``errors``, cell by cell in
    the columns' order, then what the row's kind (game or adjustment) requires."""
    parser = _RowParser(line, row, errors)
    played_on = parser.date("date")
    white = parser.username("white")
    black = parser.username("black")
    white_rank = parser.rank("white_rank")
    black_rank = parser.rank("black_rank")
    status = _parse_status(parser)
    winner = _parse_winner(parser)
    handicap = parser.integer(
        "handicap", 0, range(10), Message(gettext_noop("a handicap (0 to 9 stones)"))
    )
    komi = _parse_komi(parser, handicap)
    board_size = parser.integer(
        "board_size", 19, (9, 13, 19), Message(gettext_noop("a board size (9, 13 or 19)"))
    )
    tournament_class = _parse_class(parser)
    round_number = parser.integer(
        "round", 0, range(0, 10_000), Message(gettext_noop("a round number (0 or more)"))
    )
    time_minutes = _parse_time(parser)
    value = parser.number("value")
    algorithm = _parse_algorithm(parser)
    if status is Status.ADJUSTMENT:
        _check_adjustment(parser, white, black, white_rank)
        winner = None
    else:
        _check_game(parser, white, black, winner, value, algorithm)
    return GameRecord(
        date=played_on or date.min,
        white=white,
        black=black,
        winner=winner,
        white_rank=white_rank,
        black_rank=black_rank,
        handicap=handicap,
        komi=komi,
        status=status,
        board_size=board_size,
        tournament=parser.cell("tournament"),
        tournament_class=tournament_class,
        round=round_number,
        time_minutes=time_minutes,
        value=value,
        algorithm=algorithm,
        comment=parser.cell("comment"),
        seq=seq,
        line=line,
    )


def _decode(data: bytes | str, source: str) -> str:
    """The file's text. A NUL character is refused with its line: no text CSV has one,
    and the database cannot store it in a name or a comment."""
    if isinstance(data, str):
        text = data
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            message = Message(
                gettext_noop("the file is not UTF-8 (byte %(byte)s); save it as UTF-8 CSV"),
                byte=error.start,
            )
            raise GameFileError([RowError(0, "", message)], source) from None
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        message = Message(gettext_noop("a NUL character (is it a text CSV file?)"))
        raise GameFileError([RowError(line, "", message)], source)
    return text


def _header_of(cells: list[str] | None, source: str) -> list[str]:
    header = [name.strip().lower() for name in (cells or [])]
    if not header:
        empty = RowError(
            1, "", Message(gettext_noop("the file is empty: a header row is required"))
        )
        raise GameFileError([empty], source)
    missing = [name for name in REQUIRED_COLUMNS if name not in header]
    duplicated = sorted({name for name in header if name and header.count(name) > 1})
    problems = [
        RowError(1, name, Message(gettext_noop("required column is missing"))) for name in missing
    ]
    problems += [
        RowError(1, name, Message(gettext_noop("column appears more than once")))
        for name in duplicated
    ]
    if problems:
        raise GameFileError(problems, source)
    return header


def _first_line(last_line: int, cells: Sequence[str]) -> int:
    """The line a row starts on: the reader counts to the row's last line, and a quoted
    cell (a comment, say) may hold line breaks."""
    return last_line - sum(cell.count("\n") for cell in cells)


# The cells of a row that differ from game to game; the others (handicap, komi, winner,
# status, ...) come in a few hundred combinations in a file. (With the ranks among the
# others a sixth of a club's rows had a combination of their own, checked again.)
_PER_GAME_COLUMNS = (
    "date",
    "white",
    "black",
    "white_rank",
    "black_rank",
    "tournament",
    "comment",
)


# GameRecord(every field, positionally): a file's rows are built by the hundred thousand.
_build_record = frozen_builder(GameRecord)


class _KnownRows:
    """The records of rows read well, by the cells that repeat from row to row.

    A row whose repeating cells were seen before in a row read without error, whose
    date, usernames and ranks are known good texts (a rank may be empty, but not an
    adjustment's new one) and whose players are two (or, for an
    adjustment, one) is that record with its own date, players, tournament, comment,
    entry number and line: it is built without checking its cells again. Any other
    row goes through :func:`parse_row`, which reports what is wrong with it.
    """

    def __init__(self, header: list[str]) -> None:
        self.width = len(header)
        position = {name: index for index, name in enumerate(header) if name}
        repeating = [position[name] for name in COLUMNS if name in position]
        repeating = [index for index in repeating if header[index] not in _PER_GAME_COLUMNS]
        self.key_of = operator.itemgetter(*repeating) if repeating else lambda cells: ()
        # A column the file lacks reads the empty cell added after the row's last one.
        self.per_game = operator.itemgetter(
            *(position.get(name, self.width) for name in _PER_GAME_COLUMNS)
        )
        self.known: dict[object, GameRecord] = {}

    def record(self, cells: list[str], line: int, seq: int) -> GameRecord | None:
        """The row's record from a known one, or None when it must be parsed."""
        template = self.known.get(self.key_of(cells))
        if template is None:
            return None
        day, white, black, white_rank_text, black_rank_text, tournament, comment = self.per_game(
            cells
        )
        # Known texts are stripped ones: a cell with spaces around it is not found
        # here and goes through parse_row, which strips it.
        played_on = _DATES.get(day)
        white, black = _USERNAMES.get(white), _USERNAMES.get(black)
        if played_on is None or white is None or black is None:
            return None
        adjustment = template.status is Status.ADJUSTMENT
        if (black == white) is not adjustment:
            return None  # a game between two players, an adjustment of one
        white_rank = _RANKS.get(white_rank_text) if white_rank_text else None
        if white_rank is None and (white_rank_text or adjustment):
            return None  # not a known rank, or an adjustment without its new rank
        black_rank = _RANKS.get(black_rank_text) if black_rank_text else None
        if black_rank is None and black_rank_text:
            return None
        return _build_record(
            played_on,
            white,
            black,
            template.winner,
            white_rank,
            black_rank,
            template.handicap,
            template.komi,
            template.status,
            template.board_size,
            tournament.strip() if tournament else "",
            template.tournament_class,
            template.round,
            template.time_minutes,
            template.value,
            template.algorithm,
            comment.strip() if comment else "",
            seq,
            line,
            True,  # colour_given: the CSV always gives the colours
        )

    def remember(self, cells: list[str], record: GameRecord) -> None:
        if len(self.known) < _KNOWN_LIMIT:
            self.known[self.key_of(cells)] = record


def read_games(data: bytes | str, source: str = "") -> GameFile:
    """Read a SPEC section 2 CSV. Raises :class:`GameFileError` listing every bad row."""
    text = _decode(data, source)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = _header_of(next(reader, None), source)
    except csv.Error as error:
        unreadable = Message(gettext_noop("unreadable CSV: %(problem)s"), problem=str(error))
        raise GameFileError([RowError(1, "", unreadable)], source) from None
    warnings = [f"ignoring unknown column '{name}'" for name in header if name not in COLUMNS]
    errors: list[RowError] = []
    records: list[GameRecord] = []
    known = _KnownRows(header)
    width = len(header)
    padding = [""] * (width + 1)  # missing cells are empty, and one more (see _KnownRows)
    seq = 0
    try:
        previous_line = reader.line_num  # the header's
        for cells in reader:
            if not cells:
                continue  # a blank line, as csv.DictReader skips it
            seq += 1
            line = reader.line_num
            if line != previous_line + 1:  # a quoted line break, or blank lines before it
                previous_line = line
                line = _first_line(line, cells)
            else:
                previous_line = line
            count = len(cells)
            if count == width:
                cells.append("")
            elif count > width:
                errors.append(
                    RowError(line, "", Message(gettext_noop("more cells than header columns")))
                )
                continue
            else:
                cells += padding[count:]
            record = known.record(cells, line, seq)
            if record is None:
                if not any(cell.strip() for cell in cells):
                    continue  # a blank line between rows is harmless
                errors_before = len(errors)
                record = parse_row(line, seq, dict(zip(header, cells, strict=False)), errors)
                if len(errors) == errors_before:
                    known.remember(cells, record)
            records.append(record)
    except csv.Error as error:
        unreadable = Message(gettext_noop("unreadable CSV: %(problem)s"), problem=str(error))
        errors.append(RowError(reader.line_num, "", unreadable))
    if errors:
        raise GameFileError(errors, source)
    return GameFile(records, warnings)


def read_players(data: bytes | str, source: str = "") -> dict[str, Entry]:
    """Read a ``player,rank,rating`` CSV (header optional, rating optional)."""
    text = _decode(data, source)
    errors: list[RowError] = []
    entries: dict[str, Entry] = {}
    for line, cells in enumerate(csv.reader(io.StringIO(text, newline="")), start=1):
        cells = [cell.strip() for cell in cells]
        if not any(cells):
            continue
        if line == 1 and cells[0].lower() == "player":
            continue
        if len(cells) < 2 or len(cells) > 3:
            errors.append(
                RowError(line, "", Message(gettext_noop("expected player,rank[,rating]")))
            )
            continue
        parser = _RowParser(
            line, dict(zip(("player", "rank", "rating"), cells, strict=False)), errors
        )
        player = parser.username("player")
        rank = parser.rank("rank")
        if rank is None and not parser.cell("rank"):
            parser.error("rank", Message(gettext_noop("a rank is required")))
        rating = parser.number("rating")
        if player in entries:
            parser.error("player", Message(gettext_noop("'%(name)s' is listed twice"), name=player))
        if rank is not None and player:
            entries[player] = Entry(rank, rating)
    if errors:
        raise GameFileError(errors, source)
    return entries
