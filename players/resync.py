"""The simple rank list of the resync, and matching any rank list to the players.

Pure functions, no database: ``parse_rank_list`` turns the simple list (below; read by
``ratings.engine.formats.ranklists.parse_simple_list``) into listed ranks and bad lines
in the reader's language (``players.rank_lists.read_rank_list`` reads every format,
this one included, from an upload); ``match_rank_list`` compares them with the players
and says, line by line, what applying the list would do.

The list has one player a line: ``username or full name, rank[, effective date]``,
separated by tabs, semicolons or commas (on each line tabs win, then semicolons, so a
pasted list may mix them), or by spaces when a line has none of them. Fields are read
from the right, so a name may itself contain the separator ("Smith, John, 3d" is the
name "Smith, John"). A first line that is not a player but mentions a rank or a grade
is a header; blank lines and lines starting with ``#`` are skipped.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from enum import StrEnum
from typing import Any

from django.utils.formats import number_format
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, npgettext_lazy, pgettext_lazy

from players.translated import translated
from ratings.engine.formats.ranklists import (
    BadLine,
    ListedRank,
    RankList,
    parse_simple_list,
)
from ratings.engine.messages import Message
from ratings.engine.ranks import Rank


def format_label(rank_list: RankList) -> str:
    """The format read, in the reader's language (``format`` stays its code)."""
    return str(FORMAT_LABELS.get(rank_list.format, rank_list.format))


def list_read_as(rank_list: RankList) -> SafeString:
    """What the preview read, as one sentence of the reader's language, its colon in the
    message (French writes a non-breaking space before it) and counts grouped as the
    language writes numbers: "Read as the **EGD rating list** (gzip) of 2018-12-27:
    45,172 players with a rank, 3 members without a rating (left out)." """
    listed = len(rank_list.listed)
    counts = ngettext("%(shown)s player with a rank", "%(shown)s players with a rank", listed) % {
        "shown": number_format(listed, force_grouping=True)
    }
    if rank_list.unrated:
        counts += ", " + ngettext(
            "%(shown)s member without a rating (left out)",
            "%(shown)s members without a rating (left out)",
            rank_list.unrated,
        ) % {"shown": number_format(rank_list.unrated, force_grouping=True)}
    values = {
        "format": format_html(
            "<strong>{}</strong>{}",
            format_label(rank_list),
            f" ({rank_list.container})" if rank_list.container else "",
        ),
        "counts": conditional_escape(counts),
        "day": rank_list.list_date.isoformat() if rank_list.list_date else "",
    }
    return mark_safe(conditional_escape(_read_as_message(rank_list)) % values)


def _read_as_message(rank_list: RankList) -> str:
    # A simple list is one of many ("a"); the EGD's and the AGA's are the one list ("the").
    if rank_list.format == "simple list":
        if rank_list.list_date:
            return _("Read as a %(format)s of %(day)s: %(counts)s.")
        return _("Read as a %(format)s: %(counts)s.")
    if rank_list.list_date:
        return _("Read as the %(format)s of %(day)s: %(counts)s.")
    return _("Read as the %(format)s: %(counts)s.")


# The formats rank_lists reads, by their codes (RankList.format), for a page.
FORMAT_LABELS = {
    "EGD rating list": pgettext_lazy("rank list format", "EGD rating list"),
    "AGA TDList": pgettext_lazy("rank list format", "AGA TDList"),
    "simple list": pgettext_lazy("rank list format", "simple list"),
}


def parse_rank_list(text: str, *, default_date: date | None, today: date) -> RankList:
    """Every line of ``text`` as a listed rank or a bad line with its reason, in the
    reader's language (``ratings.engine.formats.ranklists.parse_simple_list`` reads it).

    ``default_date`` is the effective date of lines without one; ``today`` bounds the
    dates (an adjustment cannot be dated in the future).
    """
    result = parse_simple_list(text, default_date=default_date, today=today)
    result.bad = translated_bad_lines(result.bad)
    return result


def translated_bad_lines(bad: list[BadLine]) -> list[BadLine]:
    """The engine's reasons for bad lines in the reader's language, counts grouped as
    the language writes numbers."""
    return [replace(line, reason=_translated_reason(line.reason)) for line in bad]


def _translated_reason(reason: str) -> str:
    if isinstance(reason, Message) and any(type(v) is int for v in reason.values.values()):
        values = {
            name: number_format(value, force_grouping=True) if type(value) is int else value
            for name, value in reason.values.items()
        }
        reason = Message(reason.template, **values)
    return translated(reason)


# --- matching ---------------------------------------------------------------------


class Outcome(StrEnum):
    """What applying the list does with one line; only CHANGED lines are applied."""

    CHANGED = "changed"
    UNCHANGED = "unchanged"
    STALE = "last rated long ago"
    OUTDATED = "older than the last list"
    CONFLICT = "conflict"
    SHARED_NAME = "shared name"
    REPEATED = "listed twice"
    INACTIVE = "inactive"
    ABSENT = "not on the list"
    BAD = "bad line"
    UNKNOWN = "unknown"

    @property
    def label(self) -> str:
        """The outcome in the reader's language (the value stays the code pages and
        tests select rows by)."""
        return str(OUTCOME_LABELS[self])


OUTCOME_LABELS = {
    Outcome.CHANGED: pgettext_lazy("resync outcome", "changed"),
    Outcome.UNCHANGED: pgettext_lazy("resync outcome", "unchanged"),
    Outcome.STALE: pgettext_lazy("resync outcome", "last rated long ago"),
    Outcome.OUTDATED: pgettext_lazy("resync outcome", "older than the last list"),
    Outcome.CONFLICT: pgettext_lazy("resync outcome", "conflict"),
    Outcome.SHARED_NAME: pgettext_lazy("resync outcome", "shared name"),
    Outcome.REPEATED: pgettext_lazy("resync outcome", "listed twice"),
    Outcome.INACTIVE: pgettext_lazy("resync outcome", "inactive"),
    Outcome.ABSENT: pgettext_lazy("resync outcome", "not on the list"),
    Outcome.BAD: pgettext_lazy("resync outcome", "bad line"),
    Outcome.UNKNOWN: pgettext_lazy("resync outcome", "unknown"),
}

# A count of lines with their outcome, as a badge of the preview says it ("30 not on the
# list"): each its own plural message, so that the word agrees with the count in every
# language (French "30 absents de la liste", "1 absent de la liste").
_OUTCOME_COUNTS = {
    Outcome.CHANGED: npgettext_lazy(
        "resync outcome count", "%(count)s changed", "%(count)s changed", "lines"
    ),
    Outcome.UNCHANGED: npgettext_lazy(
        "resync outcome count", "%(count)s unchanged", "%(count)s unchanged", "lines"
    ),
    Outcome.STALE: npgettext_lazy(
        "resync outcome count",
        "%(count)s last rated long ago",
        "%(count)s last rated long ago",
        "lines",
    ),
    Outcome.OUTDATED: npgettext_lazy(
        "resync outcome count",
        "%(count)s older than the last list",
        "%(count)s older than the last list",
        "lines",
    ),
    Outcome.CONFLICT: npgettext_lazy(
        "resync outcome count", "%(count)s conflict", "%(count)s conflicts", "lines"
    ),
    Outcome.SHARED_NAME: npgettext_lazy(
        "resync outcome count", "%(count)s shared name", "%(count)s shared names", "lines"
    ),
    Outcome.REPEATED: npgettext_lazy(
        "resync outcome count", "%(count)s listed twice", "%(count)s listed twice", "lines"
    ),
    Outcome.INACTIVE: npgettext_lazy(
        "resync outcome count", "%(count)s inactive", "%(count)s inactive", "lines"
    ),
    Outcome.ABSENT: npgettext_lazy(
        "resync outcome count", "%(count)s not on the list", "%(count)s not on the list", "lines"
    ),
    Outcome.BAD: npgettext_lazy(
        "resync outcome count", "%(count)s bad line", "%(count)s bad lines", "lines"
    ),
}


def outcome_count(outcome: Outcome, count: int) -> str:
    """``count`` lines of ``outcome`` in the reader's language ("30 not on the list"),
    the count grouped as the language writes numbers ("1 234" in French)."""
    return str(
        _OUTCOME_COUNTS[outcome]
        % {"lines": count, "count": number_format(count, force_grouping=True)}
    )


# How a line was matched (PreviewRow.how), in the reader's language.
HOW_LABELS = {
    "EGD PIN": pgettext_lazy("resync: matched by", "EGD PIN"),
    "national id": pgettext_lazy("resync: matched by", "national id"),
    "username": pgettext_lazy("resync: matched by", "username"),
    "name": pgettext_lazy("resync: matched by", "name"),
}


# The unknown names of a club's own list that the preview can list (the rest are counted).
UNKNOWN_ROWS = 100

# The order of the preview: what will happen first, then what needs a look, then the rest.
OUTCOME_ORDER = {outcome: index for index, outcome in enumerate(Outcome)}
FLAGGED = frozenset(
    {
        Outcome.STALE,
        Outcome.OUTDATED,
        Outcome.CONFLICT,
        Outcome.SHARED_NAME,
        Outcome.REPEATED,
        Outcome.INACTIVE,
        Outcome.BAD,
    }
)
# A line whose player was last rated this long before the list's date is not applied
# unless the committee ticks it (a rank of 2004 in a list of 2014 says little of now).
STALE_AFTER_DAYS = 2 * 365


@dataclass(slots=True)
class PreviewRow:
    line: int | None
    written: str
    outcome: Outcome
    player: Any = None
    current_rank: Rank | None = None
    new_rank: Rank | None = None
    effective_date: date | None = None
    note: str = ""
    rating: Decimal | None = None
    how: str = ""  # how the line was matched: "EGD PIN", "national id", "username", "name"
    namesakes: tuple[str, ...] = ()  # the usernames a shared name may mean
    last_rated: date | None = None  # when the list says the player was last rated
    membership: str = ""  # the AGA's membership type (Full, Youth, Non...)


@dataclass
class ResyncPreview:
    rows: list[PreviewRow]
    has_header: bool = False
    format: str = "simple list"
    is_federation_list: bool = False
    unrated: int = 0
    # Lines of a federation's list about no player here: counted, without a row each.
    others: int = 0
    # The effective date of the latest resync applied, when it is later than one of the
    # lines about the club's players (those lines are "older than the last list").
    later_list: date | None = None

    def of(self, outcome: Outcome) -> list[PreviewRow]:
        return [row for row in self.rows if row.outcome == outcome]

    @property
    def changes(self) -> list[PreviewRow]:
        return self.of(Outcome.CHANGED)

    @property
    def rated(self) -> list[PreviewRow]:
        """The club's players the list gives a rating for (changed or not)."""
        return [
            row
            for row in self.rows
            if row.outcome in (Outcome.CHANGED, Outcome.UNCHANGED) and row.rating is not None
        ]

    @property
    def flagged(self) -> list[PreviewRow]:
        return [row for row in self.rows if row.outcome in FLAGGED]

    @property
    def effective_dates(self) -> list[date]:
        # A changed row always carries its line's effective date.
        return sorted(
            {row.effective_date for row in self.changes if row.effective_date is not None}
        )

    def counts(self) -> dict[Outcome, int]:
        counts = dict.fromkeys(Outcome, 0)
        for row in self.rows:
            counts[row.outcome] += 1
        counts[Outcome.UNKNOWN] += self.others
        return counts

    def shown(
        self, *, unknown: int, bad: int, absent: int | None = None, repeated: int | None = None
    ) -> list[PreviewRow]:
        """The rows to list: every row about one of the club's players (of those not on
        the list, the first ``absent``), the first ``bad`` bad lines and, of a club's own
        list, the first ``unknown`` unknown names (likely typos; at most ``UNKNOWN_ROWS``
        have a row), the first ``repeated`` lines of players listed more than once; a
        federation's list names thousands of players of other clubs, who are counted,
        never listed."""
        limits = {Outcome.UNKNOWN: 0 if self.is_federation_list else unknown, Outcome.BAD: bad}
        if absent is not None:
            limits[Outcome.ABSENT] = absent
        if repeated is not None:
            limits[Outcome.REPEATED] = repeated
        seen = dict.fromkeys(limits, 0)
        rows = []
        for row in self.rows:
            if row.outcome in limits:
                seen[row.outcome] += 1
                if seen[row.outcome] > limits[row.outcome]:
                    continue
            rows.append(row)
        return rows


def name_key(name: str) -> str:
    """Full names match ignoring case and runs of spaces ("van Wyk" = "VAN  WYK")."""
    return " ".join(name.split()).casefold()


def person_key(name: str) -> str:
    """A name as federations and clubs may both write it: ignoring case, accents, runs of
    spaces and the order of its words ("Aspden James" is James Aspden, "Müller" Muller)."""
    if not name.isascii():
        decomposed = unicodedata.normalize("NFKD", name)
        name = "".join(char for char in decomposed if not unicodedata.combining(char))
    # "Family, Given" (the AGA's way) is the same name as "Given Family".
    return " ".join(sorted(name.replace(",", " ").casefold().split()))


def _may_name(name: str, player: Any) -> bool:
    """Whether a line's ``name`` may be ``player``'s, whom its national id names: it is
    their username, or shares a word with their name (a given name shortened, a family
    name changed, the words in another order each keep one). An id that a tournament
    file gave (an OpenGotha ``agaId``) may be a club's own number, and the same number
    in the AGA's list another person: "Baghboudarian, Jason" is not Mani Sanford."""
    words = set(person_key(name).split())
    if not words or name.casefold() == player.username.casefold():
        return True
    own = person_key(player.full_name or player.username.replace("-", " "))
    return not words.isdisjoint(own.split())


def _describe(players: Sequence[Any]) -> str:
    return ", ".join(sorted(player.username for player in players))


class _Players:
    """The players indexed the ways a list can name them."""

    def __init__(self, players: Iterable[Any], *, of_some_clubs: bool = False) -> None:
        self.all: list[Any] = list(players)
        # The members of a club committee's clubs only: a name unknown here may still
        # be another club's player, whom "no player has this name" would deny.
        self.of_some_clubs = of_some_clubs
        self.by_username: dict[str, Any] = {}
        self.by_folded_username: dict[str, list[Any]] = defaultdict(list)
        self.by_pin: dict[str, list[Any]] = defaultdict(list)
        self.by_national_id: dict[str, Any] = {}
        self.by_name: dict[str, list[Any]] = defaultdict(list)
        for player in self.all:
            self.by_username[player.username] = player
            self.by_folded_username[player.username.casefold()].append(player)
            if player.egd_pin:
                self.by_pin[player.egd_pin].append(player)
            if player.national_id:
                self.by_national_id[player.national_id] = player
            if player.active:
                self.by_name[person_key(player.full_name)].append(player)

    def surely_unknown(self, listed: ListedRank) -> bool:
        """No player has this line's PIN, id, username or name (the quick test that a
        federation's list of 45,000 players needs: nearly every line is someone else)."""
        return (
            listed.pin not in self.by_pin
            and listed.national_id not in self.by_national_id
            and listed.name.casefold() not in self.by_folded_username
            and person_key(listed.name) not in self.by_name
        )

    def by_any_username(self, name: str) -> Any:
        """The player of this username, whatever its case when only one fits."""
        if name in self.by_username:
            return self.by_username[name]
        folded = self.by_folded_username.get(name.casefold(), [])
        return folded[0] if len(folded) == 1 else None


def _other_identity(listed: ListedRank, player: Any) -> str:
    """Why a player matched by username or name is someone else: another PIN or id."""
    if listed.pin and player.egd_pin and listed.pin != player.egd_pin:
        return _("the list gives EGD PIN %(listed)s, %(username)s has %(on_file)s") % {
            "listed": listed.pin,
            "username": player.username,
            "on_file": player.egd_pin,
        }
    if listed.national_id and player.national_id and listed.national_id != player.national_id:
        return _("the list gives national id %(listed)s, %(username)s has %(on_file)s") % {
            "listed": listed.national_id,
            "username": player.username,
            "on_file": player.national_id,
        }
    return ""


def _row(listed: ListedRank, outcome: Outcome, **fields: Any) -> PreviewRow:
    return PreviewRow(
        listed.line,
        listed.name,
        outcome,
        new_rank=listed.rank,
        effective_date=listed.effective_date,
        rating=listed.rating,
        last_rated=listed.last_rated,
        membership=listed.membership,
        **fields,
    )


def _find(listed: ListedRank, players: _Players) -> tuple[Any, str] | PreviewRow:
    """The player a line names and how, or the row that says why it names nobody."""
    if listed.pin:
        with_pin = players.by_pin.get(listed.pin, [])
        active = [player for player in with_pin if player.active] or with_pin
        if len(active) == 1:
            return active[0], "EGD PIN"
        if active:
            return _row(
                listed,
                Outcome.CONFLICT,
                note=_("players %(usernames)s share EGD PIN %(pin)s: merge them")
                % {"usernames": _describe(active), "pin": listed.pin},
            )
    if listed.national_id and listed.national_id in players.by_national_id:
        player = players.by_national_id[listed.national_id]
        if not _may_name(listed.name, player):
            return _row(
                listed,
                Outcome.CONFLICT,
                player=player,
                current_rank=player.national_rank,
                note=_(
                    "national id %(id)s is that of %(username)s (%(name)s), whose name this "
                    "line does not share: another person, or a wrong id on file"
                )
                % {
                    "id": listed.national_id,
                    "username": player.username,
                    "name": player.full_name or player.username,
                },
            )
        return player, "national id"
    player = players.by_any_username(listed.name)
    how = "username"
    if player is None:
        namesakes = players.by_name.get(person_key(listed.name), [])
        if len(namesakes) > 1:
            return _row(
                listed,
                Outcome.SHARED_NAME,
                note=_("players %(usernames)s share this name: list the one you mean by username")
                % {"usernames": _describe(namesakes)},
                namesakes=tuple(player.username for player in namesakes),
            )
        if not namesakes:
            note = (
                _("no member of your clubs has this username or name")
                if players.of_some_clubs
                else _("no player has this username or name")
            )
            return _row(listed, Outcome.UNKNOWN, note=note)
        player, how = namesakes[0], "name"
    if other := _other_identity(listed, player):
        return _row(
            listed,
            Outcome.CONFLICT,
            player=player,
            current_rank=player.national_rank,
            note=(
                _("the username matches but %(other)s: another person")
                if how == "username"
                else _("the name matches but %(other)s: another person")
            )
            % {"other": other},
        )
    return player, how


# The line numbers a repeated player's note names. Each of the player's rows has the
# note: naming every line made the preview quadratic (one player on 10,000 lines, 941
# MiB before the worker was killed).
LINES_NAMED = 10


def _lines_named(lines: list[int]) -> str:
    if len(lines) <= LINES_NAMED:
        return _("lines %(lines)s") % {"lines": ", ".join(map(str, lines))}
    shown = ", ".join(map(str, lines[:LINES_NAMED]))
    return ngettext(
        "%(count)s line (%(lines)s, …)", "%(count)s lines (%(lines)s, …)", len(lines)
    ) % {"count": number_format(len(lines), force_grouping=True), "lines": shown}


def match_rank_list(
    rank_list: RankList,
    players: Iterable[Any],
    last_resync: date | None = None,
    *,
    of_some_clubs: bool = False,
) -> ResyncPreview:
    """Match each listed line to one player and say what applying the list would do.

    A line names a player by EGD PIN first, then by national id, then by username (in
    any case), then by full name among the active players, in either order and ignoring
    case, accents and runs of spaces. A username or name whose player has another PIN or
    national id on file than the line's is a conflict: another person of that name; so
    is a national id whose line shares no word of its player's name (:func:`_may_name`).
    ``players`` are any objects with ``username``, ``full_name``, ``national_rank``,
    ``active``, ``egd_pin`` and ``national_id``. For a federation's whole list the
    active players it does not name are listed too, as "not on the list". A line dated
    before ``last_resync`` (the latest resync applied) is "older than the last list":
    it would set a rank back in time, and is never applied. ``of_some_clubs``: the
    players are the members of a club committee's clubs, not every player.
    """
    indexed = _Players(players, of_some_clubs=of_some_clubs)
    federation = rank_list.is_federation_list
    matched, rows, others = _match_lines(rank_list, indexed)
    lines_of: dict[Any, list[int]] = defaultdict(list)
    for listed, player, _how in matched:
        lines_of[player.username].append(listed.line)
    later_lists: list[date] = []
    rows += [
        _matched_row(listed, player, how, lines_of[player.username], last_resync, later_lists)
        for listed, player, how in matched
    ]
    if federation:
        rows += _absent_rows(rows, indexed)
    rows += [PreviewRow(bad.line, bad.text, Outcome.BAD, note=bad.reason) for bad in rank_list.bad]
    rows.sort(
        key=lambda row: (
            OUTCOME_ORDER[row.outcome],
            row.line if row.line is not None else 0,
            row.player.username if row.player is not None else "",
        )
    )
    return ResyncPreview(
        rows,
        rank_list.has_header,
        format=rank_list.format,
        is_federation_list=federation,
        unrated=rank_list.unrated,
        others=others,
        later_list=max(later_lists, default=None),
    )


def _match_lines(
    rank_list: RankList, indexed: _Players
) -> tuple[list[tuple[ListedRank, Any, str]], list[PreviewRow], int]:
    """Each line's player and how it was found; the rows of the lines naming no one (or
    more than one); and how many lines about no player here were only counted."""
    matched: list[tuple[ListedRank, Any, str]] = []
    rows: list[PreviewRow] = []
    others = 0
    # Of a club's own list, the first unknown names get a row (they may be typos to
    # list); the rest, and every line of a federation's list about no player here, are
    # only counted.
    unknown_rows = 0 if rank_list.is_federation_list else UNKNOWN_ROWS
    for listed in rank_list.listed:
        if unknown_rows <= 0 and indexed.surely_unknown(listed):
            others += 1
            continue
        found = _find(listed, indexed)
        if isinstance(found, PreviewRow):
            rows.append(found)
            if found.outcome == Outcome.UNKNOWN:
                unknown_rows -= 1
        else:
            matched.append((listed, *found))
    return matched, rows, others


def _matched_row(
    listed: ListedRank,
    player: Any,
    how: str,
    lines: list[int],
    last_resync: date | None,
    later_lists: list[date],
) -> PreviewRow:
    """What applying a matched line would do; ``lines``: all the lines naming its player.
    A later list's date, if one was applied after the line's, is added to
    ``later_lists``."""
    outcome, note = Outcome.CHANGED, ""
    if len(lines) > 1:
        outcome = Outcome.REPEATED
        note = _("%(username)s is on %(lines)s: list them once") % {
            "username": player.username,
            "lines": _lines_named(lines),
        }
    elif not player.active:
        outcome, note = Outcome.INACTIVE, _("this record is inactive (merged or retired)")
    elif (later := _later_resync(listed, last_resync)) is not None:
        outcome = Outcome.OUTDATED
        note = _(
            "a later list, of %(later)s, was applied: this line is of %(date)s, older, "
            "so it is not applied"
        ) % {"later": later, "date": listed.effective_date}
        later_lists.append(later)
    elif stale := _stale(listed):
        outcome, note = Outcome.STALE, stale
    elif player.national_rank == listed.rank:
        outcome = Outcome.UNCHANGED
    return _row(
        listed,
        outcome,
        player=player,
        current_rank=player.national_rank,
        note=note,
        how=how,
    )


def _absent_rows(rows: list[PreviewRow], indexed: _Players) -> list[PreviewRow]:
    """Of a federation's whole list: the active players no line names."""
    named = {row.player.username for row in rows if row.player is not None}
    named.update(username for row in rows for username in row.namesakes)
    return [
        PreviewRow(
            None,
            player.full_name,
            Outcome.ABSENT,
            player=player,
            current_rank=player.national_rank,
            note=_("no line of the list names this player"),
        )
        for player in indexed.all
        if player.active and player.username not in named
    ]


def _later_resync(listed: ListedRank, last: date | None) -> date | None:
    """The effective date of the latest resync, when it is after the line's: a list
    never sets a national rank back in time."""
    return last if last is not None and last > listed.effective_date else None


def _stale(listed: ListedRank) -> str:
    """Why the line is too old to apply unticked: the player was last rated more than
    two years before the list's date (the line's effective date)."""
    if listed.last_rated is None:
        return ""
    age = (listed.effective_date - listed.last_rated).days
    if age <= STALE_AFTER_DAYS:
        return ""
    years = age // 365
    return ngettext(
        "last rated on %(date)s, %(years)s year before the list: applied only if ticked below",
        "last rated on %(date)s, %(years)s years before the list: applied only if ticked below",
        years,
    ) % {"date": listed.last_rated, "years": years}
