"""Reading the rank lists clubs download, whatever their format: one entry point,
:func:`read_rank_list`, from the bytes of an upload (or pasted text) to a ``RankList``
(the site's ``players.rank_lists.read_rank_list`` translates what it says).

Pure Python, no Django; messages are :class:`~ratings.engine.messages.Message`.
The container and the text encoding are found from the
content, never from a file name: gzip (``1f 8b``), zip (``PK``, one file inside) or
plain; UTF-8 (with or without a byte-order mark), UTF-16 with its byte-order mark, else
Latin-1 line by line (the EGD's lists are Latin-1 with a few UTF-8 names pasted in:
each line is decoded as UTF-8 when it is, else as Latin-1).

Then the format is found from the text:

* ``EGD rating list`` (``allworld_lp`` / ``alleuro_lp``, the HTML page with its
  ``<pre>`` block or its plain text): ``PIN  Family Given  Country Club Grade P&D GoR NT
  Last``, read from the right as names hold spaces; an underscore in a name is a space
  (``Da_Silva``). The rank is the Grade column (what the player declared at their last
  tournament; the P&D column is only a suggestion), the rating the GoR (0, on new
  records that have no rating yet, is none). The list's date, ``(27 Dec 2018)`` in its
  header, is the effective date when no other is given.
* ``AGA TDList``: tab-separated ``Family, Given``, AGA ID, membership, rating,
  expiry, chapter, state, sigma, last rated. The AGA rating is a decimal with no grade
  between -1 and 1: ``-k.xx`` is k kyu and ``d.xx`` is d dan (the whole part of its
  magnitude: -8.37 is 8k, 3.2 is 3d, -1.5 is 1k, 1.99 is 1d; professionals, rated 10
  and up, are 9d). Members without a
  rating are left out; their count is kept. The rating goes to the EGF algorithms on
  the GoR scale with the grades' middles lined up (``GoR 2100`` is the middle of 1d,
  ``AGA 1.5`` too): ``GoR = 1950 + 100 r`` for ``r >= 1`` and ``2150 + 100 r`` for
  ``r <= -1``.
* ``simple list``: the list of docs/committee.md, read by :func:`parse_simple_list`.

A text in which no line reads as a player in any format is refused with one message
(:class:`ListFormatError`), never a table of bad lines.
"""

from __future__ import annotations

import csv
import gzip
import io
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation

from ..messages import Message, gettext_noop
from ..ranks import Rank, RankError, parse_rank
from .ratinglists import MONTHS

# A name (150 characters at most), a rank, a date and separators fit many times over; a
# longer line is refused unread.
MAX_LINE_LENGTH = 1000


# Slotted, not frozen: a federation's list makes 45,000 of these and of the preview's
# rows, and a frozen dataclass is several times slower to create.
@dataclass(slots=True)
class ListedRank:
    """One line of the list that reads as a player and a rank. A federation's list also
    says who the player is there (``pin``: EGD PIN; ``national_id``: e.g. the AGA ID) and
    may give a rating on the GoR scale (``rating``)."""

    line: int
    name: str
    rank: Rank
    effective_date: date
    pin: str = ""
    national_id: str = ""
    rating: Decimal | None = None
    # How old the line is, where the list says: the date the player was last rated
    # (the EGD's last tournament, the AGA's rating date) and the AGA's membership.
    last_rated: date | None = None
    membership: str = ""


@dataclass(frozen=True)
class BadLine:
    line: int
    text: str
    reason: str  # a Message from the readers here; the site shows it translated


@dataclass
class RankList:
    listed: list[ListedRank] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)
    has_header: bool = False
    format: str = "simple list"  # the format read (EGD, AGA or SIMPLE)
    container: str = ""  # "gzip" or "zip" when the list came packed
    list_date: date | None = None  # the date the list gives itself, if any
    unrated: int = 0  # members listed without a rating, hence without a rank

    @property
    def is_federation_list(self) -> bool:
        """A federation's whole list (EGD, AGA), rather than the club's own lines."""
        return self.format != "simple list"


EGD = "EGD rating list"
AGA = "AGA TDList"
SIMPLE = "simple list"

# A list unpacks to a few MB; a "list" that unpacks to far more is not one.
MAX_TEXT_BYTES = 64 * 1024 * 1024
# How many lines the format is guessed from.
SNIFF_LINES = 200


NOT_TEXT = gettext_noop(
    "This is not a text file (it holds binary data): upload the list as text "
    "(CSV, TXT or the EGD's HTML page), plain, gzip or zip."
)


class ListFormatError(ValueError):
    """The file as a whole cannot be read as a rank list: ``message`` (a
    :class:`~ratings.engine.messages.Message`) says why."""

    @property
    def message(self) -> str:
        return self.args[0]


# --- bytes to text ------------------------------------------------------------------


def _gunzip(data: bytes) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as unpacked:
            text = unpacked.read(MAX_TEXT_BYTES + 1)
    except EOFError:
        raise ListFormatError(
            Message(
                gettext_noop(
                    "The gzip file is truncated (it ends before its end): download it again."
                )
            )
        ) from None
    except (OSError, zlib.error) as error:
        raise ListFormatError(
            Message(
                gettext_noop("The gzip file is damaged (%(error)s): download it again."),
                error=str(error),
            )
        ) from None
    if len(text) > MAX_TEXT_BYTES:
        raise ListFormatError(
            Message(gettext_noop("The gzip file unpacks to more than 64 MB: that is no rank list."))
        )
    return text


def _unzip(data: bytes) -> bytes:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [info for info in archive.infolist() if not info.is_dir()]
            if len(members) != 1:
                if not members:
                    raise ListFormatError(
                        Message(
                            gettext_noop(
                                "The zip file holds no file: it should hold the one list only."
                            )
                        )
                    )
                raise ListFormatError(
                    Message(
                        gettext_noop(
                            "The zip file holds %(names)s: it should hold the one list only."
                        ),
                        names=", ".join(info.filename for info in members),
                    )
                )
            (member,) = members
            with archive.open(member) as unpacked:
                text = unpacked.read(MAX_TEXT_BYTES + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError) as error:
        raise ListFormatError(
            Message(
                gettext_noop("The zip file is damaged (%(error)s): download it again."),
                error=str(error),
            )
        ) from None
    except NotImplementedError as error:  # zipfile's word for a method it cannot unpack
        raise ListFormatError(
            Message(
                gettext_noop(
                    "The zip file is packed in a way this site cannot unpack (%(error)s): pack the "
                    "list with ordinary zip compression, or upload it unpacked."
                ),
                error=str(error),
            )
        ) from None
    if len(text) > MAX_TEXT_BYTES:
        raise ListFormatError(
            Message(gettext_noop("The zip file unpacks to more than 64 MB: that is no rank list."))
        )
    return text


def unpack(data: bytes) -> tuple[bytes, str]:
    """The list's bytes out of a gzip or zip file, and what they came in ("" if plain)."""
    if data.startswith(b"\x1f\x8b"):
        return _gunzip(data), "gzip"
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return _unzip(data), "zip"
    return data, ""


def decode(data: bytes) -> str:
    """The text of a list: UTF-8, UTF-16 with a byte-order mark, else Latin-1 by line."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise ListFormatError(
                Message(gettext_noop("The file starts as UTF-16 but is not: save it as UTF-8."))
            ) from None
    if b"\x00" in data[:65536]:
        raise ListFormatError(Message(NOT_TEXT))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Latin-1 with, in the EGD's lists, some names pasted in as UTF-8: the few lines
        # that are not ASCII are read again as UTF-8 when they are.
        lines = data.decode("latin-1").split("\n")
        return "\n".join(line if line.isascii() else _as_utf8(line) for line in lines)


def _as_utf8(line: str) -> str:
    try:
        return line.encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:
        return line


def looks_binary(text: str) -> bool:
    """Whether ``text`` (decoded, or bytes read as Latin-1) holds binary data: more than
    1% control characters (tabs, line and page breaks aside) in its first 4 KB."""
    sample = text[:4096]
    controls = sum(1 for char in sample if ord(char) < 32 and char not in "\t\r\n\f")
    return controls > len(sample) // 100 + 2


# --- EGD rating lists ---------------------------------------------------------------

# "(27 Dec 2018)": English month names, whatever the server's locale.
_EGD_DATE = re.compile(rf"^\((\d{{1,2}}) ({'|'.join(MONTHS)}) (\d{{4}})\)$")
_EGD_HEADER = re.compile(r"\bPIN\b.*\bGoR\b")
_EGD_COLUMNS = "PIN, name, country, club, grade, P&D, GoR, tournaments, last tournament"


def _egd_fields(line: str) -> tuple[str, str, str, int, str] | None:
    """PIN, name, grade, GoR and last tournament (its code, "" when none) of one
    (stripped) line of an EGD list, or None.

    Read from the right (names hold spaces); the last tournament is empty on records
    that have none. Splitting from the right is several times faster than a regular
    expression on 45,000 lines."""
    fields = line.rsplit(None, 7)
    last = ""
    if len(fields) == 8 and fields[-1].isdigit():
        fields = line.rsplit(None, 6)  # no last tournament: NT ends the line
    else:
        last = fields.pop()  # the last tournament, e.g. T181216A
    if len(fields) != 7:
        return None
    head, country, _club, grade, _pnd, gor, tournaments = fields
    pin, _, name = head.partition(" ")
    name = name.strip()
    if not (pin.isdigit() and name and tournaments.isdigit() and country.isalpha()):
        return None
    if not gor.lstrip("-").isdigit():
        return None
    if "  " in name or "_" in name:
        name = " ".join(name.replace("_", " ").split())
    return pin, name, grade, int(gor), last


_EGD_TOURNAMENT_DAY = re.compile(r"^[A-Za-z](\d\d)(\d\d)(\d\d)")


def egd_tournament_day(code: str) -> date | None:
    """The day an EGD tournament code names (``T181216A``: 2018-12-16; ``T960413``:
    1996-04-13; the EGD's records start in the 1960s), or None."""
    found = _EGD_TOURNAMENT_DAY.match(code)
    if found is None:
        return None
    year, month, day = (int(part) for part in found.groups())
    try:
        return date(year + (1900 if year >= 60 else 2000), month, day)
    except ValueError:
        return None


def is_egd(lines: list[str]) -> bool:
    return any(_EGD_HEADER.search(line) for line in lines) or (
        sum(1 for line in lines if _egd_fields(line.strip())) >= max(1, len(lines) // 2)
    )


def read_egd(lines: list[str], default_date: date | None, list_date_first: bool) -> RankList:
    result = RankList(format=EGD)
    ranks: dict[str, Rank] = {}
    ratings: dict[int, Decimal | None] = {}
    in_pre = not any("<pre" in line.lower() for line in lines[:SNIFF_LINES])
    # (line number, the line, PIN, name, grade, GoR, last tournament)
    pending: list[tuple[int, str, str, str, str, int, str]] = []
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped or not stripped[0].isdigit():
            # The page around the list, the notation, the column titles, the totals.
            if "<" in stripped:
                lowered = stripped.lower()
                in_pre = ("<pre" in lowered or in_pre) and "</pre" not in lowered
            elif result.list_date is None and (found := _EGD_DATE.match(stripped)):
                day, month, year = found.groups()
                result.list_date = date(int(year), MONTHS.index(month) + 1, int(day))
            continue
        if not in_pre:
            continue
        row = _egd_fields(stripped)
        if row is None:
            result.bad.append(
                BadLine(
                    number,
                    stripped,
                    Message(gettext_noop("not an EGD line (%(columns)s)"), columns=_EGD_COLUMNS),
                )
            )
            continue
        pending.append((number, stripped, *row))
    effective = default_date or result.list_date
    if list_date_first and result.list_date is not None:
        effective = result.list_date
    if effective is None and pending:
        raise ListFormatError(
            Message(gettext_noop("The list has no date: give the effective date."))
        )
    days: dict[str, date | None] = {}
    for number, stripped, pin, name, grade, gor, last in pending:
        rank = ranks.get(grade)
        if rank is None:
            try:
                rank = ranks[grade] = parse_rank(grade)
            except RankError as error:
                result.bad.append(BadLine(number, stripped, error.message))
                continue
        if gor not in ratings:
            ratings[gor] = Decimal(gor) if gor > 0 else None  # 0: a new record, no GoR yet
        if last not in days:
            days[last] = egd_tournament_day(last)
        assert effective is not None  # a list with lines and no date was refused above
        result.listed.append(
            ListedRank(number, name, rank, effective, pin, "", ratings[gor], days[last])
        )
    result.bad.sort(key=lambda bad: bad.line)
    return result


# --- AGA TDList ---------------------------------------------------------------------

_AGA_COLUMNS = "name, AGA ID, membership, rating, expiry, chapter, state, sigma, date"


def is_aga(lines: list[str]) -> bool:
    rows = [line.split("\t") for line in lines if line.strip()]
    good = sum(1 for fields in rows if len(fields) >= 4 and fields[1].strip().isdigit())
    return bool(rows) and good >= max(1, len(rows) // 2) and all("\t" in line for line in lines[:3])


AGA_STRONGEST_DAN = 9  # professionals are rated 10 and up: 9d, the strongest amateur rank


def aga_rank(rating: Decimal) -> Rank:
    """-8.37 is 8 kyu, 3.2 is 3 dan: the whole part of the magnitude, its sign the kind."""
    grade = int(abs(rating))
    if grade < 1:
        raise RankError(
            Message(
                gettext_noop("the AGA rating %(rating)s is between -1 and 1, which is no grade"),
                rating=rating,
            )
        )
    if rating > 0:
        return parse_rank(f"{min(grade, AGA_STRONGEST_DAN)}d")
    return parse_rank(f"{grade}k")


def aga_gor(rating: Decimal) -> Decimal:
    """The AGA rating on the GoR scale, grades' middles lined up (AGA 1.5 = GoR 2100)."""
    offset = 1950 if rating > 0 else 2150
    return (offset + 100 * rating).quantize(Decimal("0.01"))


def _aga_day(text: str) -> date | None:
    """A TDList date (``4/1/2004``, month first), or None."""
    month, _, rest = text.partition("/")
    day, _, year = rest.partition("/")
    try:
        return date(int(year), int(month), int(day))
    except ValueError:
        return None


def read_aga(lines: list[str], default_date: date | None) -> RankList:
    result = RankList(format=AGA)
    if default_date is None:
        raise ListFormatError(
            Message(gettext_noop("The AGA TDList has no date of its own: give the effective date."))
        )
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        fields = [value.strip() for value in line.split("\t")]
        if len(fields) < 4 or not fields[1].isdigit():
            result.bad.append(
                BadLine(
                    number,
                    line.strip(),
                    Message(gettext_noop("not a TDList line (%(columns)s)"), columns=_AGA_COLUMNS),
                )
            )
            continue
        name, aga_id, rating_text = fields[0], fields[1], fields[3]
        last_rated = _aga_day(fields[8]) if len(fields) > 8 else None
        if not rating_text:
            result.unrated += 1
            continue
        try:
            rating = Decimal(rating_text)
            rank = aga_rank(rating)
        except (InvalidOperation, RankError) as error:
            reason = (
                error.message
                if isinstance(error, RankError)
                else Message(gettext_noop("'%(text)s' is no rating"), text=rating_text)
            )
            result.bad.append(BadLine(number, line.strip(), reason))
            continue
        result.listed.append(
            ListedRank(
                number,
                name,
                rank,
                default_date,
                national_id=aga_id,
                rating=aga_gor(rating),
                last_rated=last_rated,
                membership=fields[2],
            )
        )
    return result


# --- the simple list ----------------------------------------------------------------
#
# One player a line: ``username or full name, rank[, effective date]``, separated by
# tabs, semicolons or commas (on each line tabs win, then semicolons, so a pasted list
# may mix them), or by spaces when a line has none of them. Fields are read from the
# right, so a name may itself contain the separator ("Smith, John, 3d" is the name
# "Smith, John"). A first line that is not a player but mentions a rank or a grade is a
# header; blank lines and lines starting with ``#`` are skipped.

DATE_LIKE = re.compile(r"^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$")
HEADER_WORDS = ("rank", "grade")
BAD_TEXT_SHOWN = 200  # a bad line is shown cut to this many characters


class LineError(ValueError):
    """Why one line of the list cannot be read (``message``: a Message)."""

    @property
    def message(self) -> str:
        return self.args[0]


def delimiter_of(line: str) -> str:
    if "\t" in line:
        return "\t"
    if ";" in line:
        return ";"
    return ","


def _parse_date(text: str, today: date) -> date:
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise LineError(
            Message(gettext_noop("'%(text)s' is not a date (write it as YYYY-MM-DD)"), text=text)
        ) from None
    if day > today:
        raise LineError(Message(gettext_noop("the date %(day)s is in the future"), day=day))
    return day


def _split_fields(line: str, delimiter: str) -> list[str]:
    try:
        (fields,) = csv.reader([line], delimiter=delimiter, skipinitialspace=True)
    except csv.Error as error:
        raise LineError(
            Message(gettext_noop("the line cannot be read (%(error)s)"), error=str(error))
        ) from None
    fields = [value.strip() for value in fields]
    while fields and not fields[-1]:
        fields.pop()  # a trailing separator, as spreadsheets write them
    return fields


def _read_line(line: str, default_date: date | None, today: date) -> tuple[str, Rank, date]:
    """The name, rank and effective date on one line, read from the right."""
    if len(line) > MAX_LINE_LENGTH:
        raise LineError(
            Message(
                gettext_noop(
                    "the line is %(length)s characters long; a player's line has at most %(most)s"
                ),
                length=len(line),
                most=MAX_LINE_LENGTH,
            )
        )
    delimiter = delimiter_of(line)
    fields = _split_fields(line, delimiter)
    by_spaces = len(fields) == 1
    if by_spaces:
        fields = line.split()
    if not fields:
        raise LineError(Message(gettext_noop("the line is empty")))
    effective_date = default_date
    consumed = 1  # fields taken from the right: the rank, and the date if there is one
    if DATE_LIKE.match(fields[-1]):
        effective_date = _parse_date(fields.pop(), today)
        consumed += 1
    if len(fields) < 2:
        raise LineError(Message(gettext_noop("expected a username or name, then a rank")))
    rank_text = fields.pop()
    try:
        rank = parse_rank(rank_text)
    except RankError as error:
        # "15 kyu" written with a space, in a list separated by spaces
        if not (by_spaces and len(fields) >= 2):
            raise LineError(error.message) from None
        try:
            rank = parse_rank(f"{fields[-1]} {rank_text}")
        except RankError:
            raise LineError(error.message) from None
        fields.pop()
    if by_spaces:
        name = " ".join(fields)
    elif len(fields) == 1:
        name = fields[0]
    else:
        # The name held the separator, unquoted: keep the name as it was written.
        name = line.rstrip(f"{delimiter} ").rsplit(delimiter, consumed)[0].strip()
    if not name:
        raise LineError(Message(gettext_noop("the username or name is empty")))
    if effective_date is None:
        raise LineError(Message(NO_EFFECTIVE_DATE))
    return name, rank, effective_date


NO_EFFECTIVE_DATE = gettext_noop(
    "no effective date: give one on the line or in the form's date field"
)


def _looks_like_header(line: str) -> bool:
    words = line.casefold()
    return any(word in words for word in HEADER_WORDS)


def parse_simple_list(text: str, *, default_date: date | None, today: date) -> RankList:
    """Every line of ``text`` as a listed rank or a bad line with its reason.

    ``default_date`` is the effective date of lines without one; ``today`` bounds the
    dates (an adjustment cannot be dated in the future).
    """
    result = RankList()
    text = text.lstrip("\ufeff")
    first = True
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            name, rank, effective_date = _read_line(line, default_date, today)
        except LineError as error:
            if first and _looks_like_header(line):
                result.has_header = True
            else:
                shown = line if len(line) <= BAD_TEXT_SHOWN else f"{line[:BAD_TEXT_SHOWN]}…"
                result.bad.append(BadLine(number, shown, error.message))
        else:
            result.listed.append(ListedRank(number, name, rank, effective_date))
        first = False
    return result


# --- any list -----------------------------------------------------------------------


def read_rank_list(
    data: bytes | str, *, default_date: date | None, today: date, list_date_first: bool = False
) -> RankList:
    """The players and ranks of a list in any known format (see the module's docstring),
    in English (the site's ``players.rank_lists.read_rank_list`` translates).

    ``default_date`` is the effective date of lines without one (the form's date), the
    list's own date standing in when it is None, or standing first with
    ``list_date_first``; ``today`` bounds the dates. Raises :class:`ListFormatError`
    for a file that is no list.
    """
    container = ""
    if isinstance(data, bytes):
        data, container = unpack(data)
        text = decode(data)
    else:
        text = data
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise ListFormatError(Message(gettext_noop("The list is empty.")))
    if looks_binary(text):
        raise ListFormatError(Message(NOT_TEXT))
    lines = text.splitlines()
    # Cut to a line's length: the sniffers' patterns scanned all of a 15 MB line of
    # commas, 8 s; no list of any format has lines that long (the EGD's: 121).
    sniffed = [line[:MAX_LINE_LENGTH] for line in lines[:SNIFF_LINES] if line.strip()]
    if is_egd(sniffed):
        result = read_egd(lines, default_date, list_date_first)
    elif is_aga(sniffed):
        result = read_aga(lines, default_date)
    else:
        result = parse_simple_list(text, default_date=default_date, today=today)
        result.format = SIMPLE
    undated = [
        bad for bad in result.bad if getattr(bad.reason, "template", None) == NO_EFFECTIVE_DATE
    ]
    if not result.listed and not result.unrated and undated and len(undated) == len(result.bad):
        # Names and ranks, every one without its date (a list pasted with the date
        # field left empty): not "no list at all".
        raise ListFormatError(
            Message(
                gettext_noop(
                    "The lines give names and ranks but no effective date: give the date "
                    "the ranks take effect in the form's date field (or at the end of each "
                    "line)."
                )
            )
        )
    if not result.listed and not result.unrated:
        raise ListFormatError(
            Message(
                gettext_noop(
                    "No line of this file reads as a player and a rank: it is neither an EGD "
                    "rating list, an AGA TDList, nor a list of “name, rank, date” lines (see "
                    "the help below)."
                )
            )
        )
    result.container = container
    return result
