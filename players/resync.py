"""Reading a national rank list for the resync, and matching it to the club's players.

Pure functions, no database: ``parse_rank_list`` turns pasted or uploaded text into
listed ranks and bad lines; ``match_rank_list`` compares them with the players (any
objects with ``username``, ``full_name``, ``national_rank`` and ``active``) and says,
line by line, what applying the list would do.

The list has one player a line: ``username or full name, rank[, effective date]``,
separated by tabs, semicolons or commas (on each line tabs win, then semicolons, so a
pasted list may mix them), or by spaces when a line has none of them. Fields are read
from the right, so a name may itself contain the separator ("Smith, John, 3d" is the
name "Smith, John"). A first line that is not a player but mentions a rank or a grade
is a header; blank lines and lines starting with ``#`` are skipped.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from typing import Any

from ratings.engine.ranks import Rank, RankError, parse_rank

DATE_LIKE = re.compile(r"^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$")
HEADER_WORDS = ("rank", "grade")


@dataclass(frozen=True)
class ListedRank:
    """One line of the list that reads as a player and a rank."""

    line: int
    name: str
    rank: Rank
    effective_date: date


@dataclass(frozen=True)
class BadLine:
    line: int
    text: str
    reason: str


@dataclass
class RankList:
    listed: list[ListedRank] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)
    has_header: bool = False


class LineError(ValueError):
    """Why one line of the list cannot be read."""


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
        raise LineError(f"'{text}' is not a date (write it as YYYY-MM-DD)") from None
    if day > today:
        raise LineError(f"the date {day} is in the future")
    return day


def _split_fields(line: str, delimiter: str) -> list[str]:
    (fields,) = csv.reader([line], delimiter=delimiter, skipinitialspace=True)
    fields = [value.strip() for value in fields]
    while fields and not fields[-1]:
        fields.pop()  # a trailing separator, as spreadsheets write them
    return fields


def _read_line(line: str, default_date: date | None, today: date) -> tuple[str, Rank, date]:
    """The name, rank and effective date on one line, read from the right."""
    delimiter = delimiter_of(line)
    fields = _split_fields(line, delimiter)
    by_spaces = len(fields) == 1
    if by_spaces:
        fields = line.split()
    if not fields:
        raise LineError("the line is empty")
    effective_date = default_date
    consumed = 1  # fields taken from the right: the rank, and the date if there is one
    if DATE_LIKE.match(fields[-1]):
        effective_date = _parse_date(fields.pop(), today)
        consumed += 1
    if len(fields) < 2:
        raise LineError("expected a username or name, then a rank")
    rank_text = fields.pop()
    try:
        rank = parse_rank(rank_text)
    except RankError as error:
        # "15 kyu" written with a space, in a list separated by spaces
        if not (by_spaces and len(fields) >= 2):
            raise LineError(str(error)) from None
        try:
            rank = parse_rank(f"{fields[-1]} {rank_text}")
        except RankError:
            raise LineError(str(error)) from None
        fields.pop()
    if by_spaces:
        name = " ".join(fields)
    elif len(fields) == 1:
        name = fields[0]
    else:
        # The name held the separator, unquoted: keep the name as it was written.
        name = line.rstrip(f"{delimiter} ").rsplit(delimiter, consumed)[0].strip()
    if not name:
        raise LineError("the username or name is empty")
    if effective_date is None:
        raise LineError("no effective date: give one on the line or in the form's date field")
    return name, rank, effective_date


def _looks_like_header(line: str) -> bool:
    words = line.casefold()
    return any(word in words for word in HEADER_WORDS)


def parse_rank_list(text: str, *, default_date: date | None, today: date) -> RankList:
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
                result.bad.append(BadLine(number, line, str(error)))
        else:
            result.listed.append(ListedRank(number, name, rank, effective_date))
        first = False
    return result


# --- matching ---------------------------------------------------------------------


class Outcome(StrEnum):
    """What applying the list does with one line; only CHANGED lines are applied."""

    CHANGED = "changed"
    UNCHANGED = "unchanged"
    SHARED_NAME = "shared name"
    REPEATED = "listed twice"
    INACTIVE = "inactive"
    BAD = "bad line"
    UNKNOWN = "unknown"


# The order of the preview: what will happen first, then what needs a look, then the rest.
OUTCOME_ORDER = {outcome: index for index, outcome in enumerate(Outcome)}
FLAGGED = frozenset({Outcome.SHARED_NAME, Outcome.REPEATED, Outcome.INACTIVE, Outcome.BAD})


@dataclass(frozen=True)
class PreviewRow:
    line: int
    written: str
    outcome: Outcome
    player: Any = None
    current_rank: Rank | None = None
    new_rank: Rank | None = None
    effective_date: date | None = None
    note: str = ""


@dataclass
class ResyncPreview:
    rows: list[PreviewRow]
    has_header: bool = False

    def of(self, outcome: Outcome) -> list[PreviewRow]:
        return [row for row in self.rows if row.outcome == outcome]

    @property
    def changes(self) -> list[PreviewRow]:
        return self.of(Outcome.CHANGED)

    @property
    def flagged(self) -> list[PreviewRow]:
        return [row for row in self.rows if row.outcome in FLAGGED]

    @property
    def effective_dates(self) -> list[date]:
        return sorted({row.effective_date for row in self.changes})

    def counts(self) -> dict[Outcome, int]:
        counts = dict.fromkeys(Outcome, 0)
        for row in self.rows:
            counts[row.outcome] += 1
        return counts


def name_key(name: str) -> str:
    """Full names match ignoring case and runs of spaces ("van Wyk" = "VAN  WYK")."""
    return " ".join(name.split()).casefold()


def _describe(players: Sequence[Any]) -> str:
    return ", ".join(sorted(player.username for player in players))


def match_rank_list(rank_list: RankList, players: Iterable[Any]) -> ResyncPreview:
    """Match each listed name to one player (by username first, in any case, then by full
    name among the active players) and say what applying the list would do with the line."""
    by_username: dict[str, Any] = {}
    by_folded_username: dict[str, list[Any]] = defaultdict(list)
    by_name: dict[str, list[Any]] = defaultdict(list)
    for player in players:
        by_username[player.username] = player
        by_folded_username[player.username.casefold()].append(player)
        if player.active:
            by_name[name_key(player.full_name)].append(player)

    def by_any_username(name: str) -> Any:
        """The player of this username, whatever its case when only one fits."""
        if name in by_username:
            return by_username[name]
        folded = by_folded_username.get(name.casefold(), [])
        return folded[0] if len(folded) == 1 else None

    matched: list[tuple[ListedRank, Any]] = []
    rows: list[PreviewRow] = []
    for listed in rank_list.listed:
        player = by_any_username(listed.name)
        if player is None:
            namesakes = by_name.get(name_key(listed.name), [])
            if len(namesakes) > 1:
                rows.append(
                    PreviewRow(
                        listed.line,
                        listed.name,
                        Outcome.SHARED_NAME,
                        new_rank=listed.rank,
                        effective_date=listed.effective_date,
                        note=f"players {_describe(namesakes)} share this name: "
                        "list the one you mean by username",
                    )
                )
                continue
            player = namesakes[0] if namesakes else None
        if player is None:
            rows.append(
                PreviewRow(
                    listed.line,
                    listed.name,
                    Outcome.UNKNOWN,
                    new_rank=listed.rank,
                    effective_date=listed.effective_date,
                    note="no player has this username or name",
                )
            )
            continue
        matched.append((listed, player))

    lines_of: dict[Any, list[int]] = defaultdict(list)
    for listed, player in matched:
        lines_of[player.username].append(listed.line)
    for listed, player in matched:
        outcome, note = Outcome.CHANGED, ""
        lines = lines_of[player.username]
        if len(lines) > 1:
            outcome = Outcome.REPEATED
            note = f"{player.username} is on lines {', '.join(map(str, lines))}: list them once"
        elif not player.active:
            outcome, note = Outcome.INACTIVE, "this record is inactive (merged or retired)"
        elif player.national_rank == listed.rank:
            outcome = Outcome.UNCHANGED
        rows.append(
            PreviewRow(
                listed.line,
                listed.name,
                outcome,
                player=player,
                current_rank=player.national_rank,
                new_rank=listed.rank,
                effective_date=listed.effective_date,
                note=note,
            )
        )
    rows += [PreviewRow(bad.line, bad.text, Outcome.BAD, note=bad.reason) for bad in rank_list.bad]
    rows.sort(key=lambda row: (OUTCOME_ORDER[row.outcome], row.line))
    return ResyncPreview(rows, rank_list.has_header)
