"""The checkpoints of a replay (``Checkpoint``): where they are keyed, how far apart
they are stored and thinned, and the engine's state as the JSON text each holds.

A checkpoint holds the engine's state before every record at or after its key, so a
recompute from a place in the replay order resumes from the last one at or before it
(``ratings.recompute.replay``) instead of from the start of the history."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.db import connection

from ratings.engine.base import RatingState
from ratings.engine.records import GameRecord
from ratings.models import Checkpoint
from ratings.selectors import IDS_PER_QUERY, ReplayKey

# Checkpoint columns in the order a replay gives them.
COLUMNS = ("algorithm", "date", "round", "seq", "position", "state", "base_id")


# Entries count from 1, so no record has seq 0: a checkpoint keyed (day, 0, 0) holds the
# state before every record of that day, and a recompute from that day may resume there.
DAY_START_SEQ = 0


def day_start_key(day: date) -> ReplayKey:
    return ReplayKey(day, 0, DAY_START_SEQ)


def just_after(key: tuple[date, int, int]) -> ReplayKey:
    """The first place in the replay order after ``key``: no record sorts between the
    two (entry numbers are whole), so the state after the record at ``key`` is the state
    before every record at or after this place."""
    day, round_number, seq = key
    return ReplayKey(day, round_number, seq + 1)


def nearest(algorithm: str, key: ReplayKey) -> Checkpoint | None:
    """The last checkpoint of ``algorithm`` keyed at or before ``key``, if any
    (each holds the state before every record at or after its key, so one at ``key``
    itself still holds what came before), without its state: sorted with their states, the
    checkpoints (each holding every player) cost the database more than the state read,
    and decoded whole here, the state would be encoded whole again for the next
    checkpoint (:func:`stored_state` reads it as text).

    Written as SQL: built by the ORM, the query cost a back-dated entry 1 ms of CPU."""
    table = connection.ops.quote_name(Checkpoint._meta.db_table)
    day = connection.ops.adapt_datefield_value(key.date)
    found = Checkpoint.objects.raw(
        "SELECT id, algorithm, date, round, seq, position, base_id "
        f"FROM {table} WHERE algorithm = %s AND (date < %s OR (date = %s AND "
        "(round < %s OR (round = %s AND seq <= %s)))) "
        "ORDER BY date DESC, round DESC, seq DESC LIMIT 1",
        [algorithm, day, day, key.round, key.round, key.seq],
    )
    return next(iter(found), None)


def delete_after(checkpoint: Checkpoint) -> None:
    """Delete the checkpoints of ``checkpoint``'s algorithm keyed at or after its key,
    but it (a replay resumed from it replaces them).

    Written as SQL: built by the ORM, the delete cost a back-dated entry 0.4 ms of CPU,
    ten times the statement's."""
    table = connection.ops.quote_name(Checkpoint._meta.db_table)
    day = connection.ops.adapt_datefield_value(checkpoint.date)
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {table} WHERE algorithm = %s AND id <> %s AND (date > %s OR "
            "(date = %s AND (round > %s OR (round = %s AND seq >= %s))))",
            [
                checkpoint.algorithm,
                checkpoint.pk,
                day,
                day,
                checkpoint.round,
                checkpoint.round,
                checkpoint.seq,
            ],
        )


# The JSON around the members of a checkpoint's state (whitespace as any writer spaces it).
_OPENING = re.compile(r"[ \t\n\r]*\{[ \t\n\r]*")
_COLON = re.compile(r"[ \t\n\r]*:[ \t\n\r]*")
_COMMA = re.compile(r"[ \t\n\r]*(,[ \t\n\r]*)?")
_CLOSING = re.compile(r"[ \t\n\r]*\}[ \t\n\r]*\Z")

_DECODER = json.JSONDecoder()


@dataclass(frozen=True, slots=True)
class StoredState:
    """A checkpoint's state as stored: its JSON ``text``, where each player's
    ``"name": {...}`` lies in it (``pieces``, by name), and the decoded data of the
    players asked for (``data``). The next checkpoint of a replay resumed from it
    copies the pieces of the players the replay did not touch (:class:`StateJson`)
    rather than encoding them again; ``laid_out``: one player a line, as it lays a
    state out, so that the runs of untouched players are copied whole.

    ``base``: the id of the checkpoint whose text ``text`` is (one holding every
    player), and ``changed``: the players whose state is not the one there, each as
    its ``"name": {...}`` (a checkpoint holding only those: ``Checkpoint.base``)."""

    text: str
    pieces: dict[str, tuple[int, int]]
    data: dict[str, Any]
    laid_out: bool = False
    base: int | None = None
    changed: dict[str, str] = field(default_factory=dict)


def stored_state(checkpoint: Checkpoint, wanted: Collection[str]) -> StoredState | None:
    """The state of ``checkpoint`` as stored, with the data of the players ``wanted``;
    None when it is gone, or holds the players changed since a base that is (a replay
    then resumes from the start)."""
    text = _state_text(checkpoint.pk)
    if text is None:
        return None
    if checkpoint.base_id is None:
        stored = _split(text, wanted)
        return StoredState(stored.text, stored.pieces, stored.data, stored.laid_out, checkpoint.pk)
    base_text = _state_text(checkpoint.base_id)
    if base_text is None:
        return None
    base, changed = _split(base_text, wanted), _split(text, wanted)
    return StoredState(
        base.text,
        base.pieces,
        {**base.data, **changed.data},
        base.laid_out,
        checkpoint.base_id,
        {name: text[start:end] for name, (start, end) in changed.pieces.items()},
    )


def _state_text(pk: int) -> str | None:
    """The state of the checkpoint ``pk`` as its JSON text (None: no such checkpoint)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT state FROM {connection.ops.quote_name(Checkpoint._meta.db_table)} "
            "WHERE id = %s",
            [pk],
        )
        found = cursor.fetchone()
    if found is None:
        return None
    (text,) = found
    return text


# How :class:`StateJson` lays a state out: one player a line, so that a state it wrote is
# split at its newlines (``json.dumps`` writes none inside a value) and only the players
# wanted are decoded.
_FIRST_LINE = "{\n"
_LAST_LINE = "\n}"
_MEMBER_SEPARATOR = ",\n"
# A line's key when it needs no unescaping (a username always), and its value's start.
_LINE_KEY = re.compile(r'"([^"\\]*)": \{')


def _split(text: str, wanted: Collection[str]) -> StoredState:
    """The players' pieces of ``text`` and the data of those ``wanted``: by its lines when
    :class:`StateJson` wrote it (:func:`_split_lines`), else by walking it."""
    if text.startswith(_FIRST_LINE) and text.endswith(_LAST_LINE):
        split = _split_lines(text, wanted)
        if split is not None:
            return split
    return _walk(text, wanted)


def _split_lines(text: str, wanted: Collection[str]) -> StoredState | None:
    """Split a state laid out one player a line, as :class:`StateJson` writes it: each
    line a ``"name": {...}`` ending with a comma, the last one without. Only the values
    of the players ``wanted`` are decoded (strictly); the others' pieces are copied as
    they are into the next checkpoint. None: not laid out so (another writer spaced
    it), to be walked instead."""
    pieces: dict[str, tuple[int, int]] = {}
    data: dict[str, Any] = {}
    body = text[len(_FIRST_LINE) : -len(_LAST_LINE)]
    if not body:
        return StoredState(text, pieces, data)
    lines = body.split("\n")
    if not lines[-1].endswith("}"):
        return None
    lines[-1] += ","  # every line a member and its comma
    at = len(_FIRST_LINE)
    key = _LINE_KEY.match
    for line in lines:
        found = key(line)
        if found is None or not line.endswith("},"):
            return None
        name = found.group(1)
        end = at + len(line) - 1
        if name in pieces:
            return None
        pieces[name] = (at, end)
        if name in wanted:
            data[name] = _decoded_value(line, found.end() - 1, at)
        at = end + 2
    return StoredState(text, pieces, data, laid_out=True)


def _decoded_value(line: str, start: int, at: int) -> Any:
    """The JSON value of the member ``line`` (``at`` in the text) from ``start``, which
    must end just before the line's comma."""
    value, end = _DECODER.raw_decode(line, start)
    if end != len(line) - 1:
        raise ValueError(f"a checkpoint's state: unexpected text at {at + end}")
    return value


def _walk(text: str, wanted: Collection[str]) -> StoredState:
    """Walk the top-level object of ``text`` one member at a time with the JSON
    module's own decoder (a malformed text raises as ``json.loads`` would)."""
    pieces: dict[str, tuple[int, int]] = {}
    data: dict[str, Any] = {}
    decode = _DECODER.raw_decode
    opened = _OPENING.match(text)
    if opened is None:
        raise ValueError(f"a checkpoint's state is not a JSON object: {text[:40]!r}")
    at = opened.end()
    while text.startswith('"', at):
        start = at
        name, at = decode(text, at)  # a JSON string: the text starts with a quote
        colon = _COLON.match(text, at)
        if colon is None:
            raise ValueError(f"a checkpoint's state: no ':' at {at}")
        value, at = decode(text, colon.end())
        pieces[name] = (start, at)
        if name in wanted:
            data[name] = value
        after = _COMMA.match(text, at)
        assert after is not None  # it matches the empty text
        at = after.end()
        if after.group(1) is None:  # no comma: the last member
            break
    else:
        if pieces:  # a comma, and no member after it
            raise ValueError(f"a checkpoint's state: a member expected at {at}")
    if _CLOSING.match(text, at) is None:
        raise ValueError(f"a checkpoint's state: unexpected text at {at}")
    return StoredState(text, pieces, data)


REACH = 10


PLAYERS = 2500


SHARE = 40


FLOOR = 100


class HistorySize:
    """The records of a whole history, known to be ``at_least`` some number and counted
    (``counting``) only when first asked for: the spacing of :func:`due` and
    :func:`before_the_last_stretch` widens with the history, so where the bound already
    rules a checkpoint out, the exact number changes nothing (a back-dated entry's
    replay near the end; counting every valid game cost it 1.5 ms)."""

    def __init__(self, at_least: int, counting: Callable[[], int]) -> None:
        self.at_least = at_least
        self._counting = counting
        self._count: int | None = None

    def count(self) -> int:
        if self._count is None:
            self._count = self._counting()
        return self._count


def due(since: int, remaining: int, every: int, players: int, history: int | None = None) -> bool:
    """Whether to store a checkpoint before the next unit, ``since`` records after the
    last one, with ``remaining`` records still to replay, ``every`` the setting
    ``RATINGS_CHECKPOINT_EVERY`` and ``players`` the players in the state.

    Checkpoints are dense near the end of the history, where new and back-dated
    entries land, and sparse further back: at least a ``REACH``-th of what is left
    apart, so that a back-dated entry replays its tail plus about a tenth more,
    whatever the length of the history, and a full replay of a million games stores a
    few dozen states. Near the end they are ``every`` records apart (at the first unit
    boundary after that where no tournament block is open), or more in a club of
    more than ``PLAYERS`` players: a checkpoint holds every player's state (with
    10,000 players one costs about as much as replaying two thousand games). In a
    history of ``history`` records that is no more than a ``SHARE``-th of it (but
    ``FLOOR`` records): on a site of a few thousand real games and players, 2,000
    games would be a tenth of the history, and an entry a week back would replay it.
    """
    spacing = max(_near_the_end(every, players, history), remaining // REACH)
    return since >= spacing


def before_the_last_stretch(
    remaining: int, every: int, players: int, history: int | None = None
) -> bool:
    """Whether a replay resumed from a checkpoint may store one with ``remaining``
    records still to replay: not within the spacing near the end (:func:`due`) of the
    checkpoint it stores after its last record, which covers that stretch. A back-dated
    entry's replay is short (a tournament's week and what came after it), and storing
    a whole state once more in it (550 kB for SAGC on a site of real tournaments: 5 of
    its 75 ms) cost every such entry more than the replay it spared the next one
    dated in that stretch."""
    return remaining >= _near_the_end(every, players, history)


def _near_the_end(every: int, players: int, history: int | None) -> int:
    """The spacing of the checkpoints near the end of the history (:func:`due`)."""
    near_the_end = max(every, every * players // PLAYERS)
    if history is not None:
        near_the_end = min(near_the_end, max(FLOOR, history // SHARE))
    return near_the_end


def thin(algorithm: str, end: int) -> None:
    """Keep the checkpoints as :func:`due` spaces them as the history grows (``end``
    history rows): walking back from the end, one is dropped when the next older one
    (or the start of the history) lies within a ``REACH``-th of its own distance from
    the end of the last one kept. Without this, the checkpoints each new entry adds
    near the end would pile up; with it, an entry at any position replays at most
    about a ninth more than its own tail (plus the spacing of :func:`due` where that
    is wider)."""
    with connection.cursor() as cursor:  # as SQL: the ORM's query cost 0.3 ms of CPU more
        cursor.execute(
            "SELECT id, position, base_id "
            f"FROM {connection.ops.quote_name(Checkpoint._meta.db_table)} "
            "WHERE algorithm = %s ORDER BY position DESC",
            [algorithm],
        )
        stored: list[tuple[int, int, int | None]] = cursor.fetchall()
    kept = end
    dropped = []
    for index, (pk, position, _base) in enumerate(stored):
        older = stored[index + 1][1] if index + 1 < len(stored) else 0
        if kept - older <= (end - older) // REACH:
            dropped.append(pk)
        else:
            kept = position
    # A checkpoint kept holding only what changed since its base keeps the base too.
    bases = {base for pk, _position, base in stored if base is not None and pk not in dropped}
    dropped = [pk for pk in dropped if pk not in bases]
    for start in range(0, len(dropped), IDS_PER_QUERY):
        Checkpoint.objects.filter(pk__in=dropped[start : start + IDS_PER_QUERY]).delete()


class StateJson:
    """The engine's state as the JSON text of a checkpoint (what ``json.dumps`` makes of
    ``state.dump()``), kept from one checkpoint to the next: a unit changes only the
    players of its records, so only the players of the units rated since the last
    checkpoint are encoded again, and a checkpoint of 10,000 players costs in
    proportion to those who played meanwhile.

    A state resumed from a checkpoint (``stored``, its state as stored) may hold only the
    players its replay changes (``replay._Resumed``): the others are written as the
    stored text has them, copied piece by piece, neither decoded nor encoded."""

    def __init__(self, state: RatingState, stored: StoredState | None = None) -> None:
        self.state = state
        # '"name": {...}' for each player encoded, and those the stored one changed
        self.entries: dict[str, str] = {} if stored is None else dict(stored.changed)
        self.stored = stored
        self.encoded_all = False
        self.touched: set[str] = set()
        # Resumed: the names of the records since the last checkpoint not stored yet.
        self.added: set[str] = set()

    def touch(self, unit: Sequence[GameRecord]) -> None:
        touched, stored = self.touched, self.stored
        for record in unit:
            touched.add(record.white)
            touched.add(record.black)
            if stored is not None:
                for name in (record.white, record.black):
                    if name not in stored.pieces and name not in self.entries:
                        self.added.add(name)

    def players(self) -> int:
        """The players in the state (those of a partly loaded state included)."""
        players = self.state.players
        if self.stored is None:
            return len(players)
        known = len(self.stored.pieces) + sum(
            1 for name in self.entries if name not in self.stored.pieces
        )
        return known + sum(1 for name in self.added if name in players)

    def _encode(self) -> None:
        """Encode the players touched since the last checkpoint (every one, the first
        time, of a state not resumed)."""
        players = self.state.players
        if self.stored is None and not self.encoded_all:
            names: Collection[str] = list(players)
            self.encoded_all = True
        else:
            names = [name for name in self.touched if name in players]
        for name in names:
            self.entries[name] = _member(name, players[name].to_data())
        self.touched.clear()
        self.added.clear()

    def changes(self) -> tuple[str, int] | None:
        """The state as the players whose state is not that of the stored checkpoint's
        base, with the base's id, when they are fewer than half of its players (None:
        a state not resumed, or too many changed)."""
        stored = self.stored
        if stored is None or stored.base is None:
            return None
        self._encode()  # every player encoded since the resume, with those stored so
        if 2 * len(self.entries) >= len(stored.pieces):
            return None
        return _laid_out(self.entries.values()), stored.base

    def text(self) -> str:
        self._encode()
        if self.stored is None:
            return _laid_out(self.entries.values())
        if self.stored.laid_out and self.stored.pieces:
            return _replaced(self.stored, self.entries)
        text, entries = self.stored.text, self.entries
        kept = [
            entries.get(name) or text[start:end]
            for name, (start, end) in self.stored.pieces.items()
        ]
        kept += [entry for name, entry in entries.items() if name not in self.stored.pieces]
        return _laid_out(kept)


def _replaced(stored: StoredState, entries: dict[str, str]) -> str:
    """``stored`` (laid out one player a line, holding some) with the players of
    ``entries`` (``"name": {...}``) in place of theirs and the others after the last:
    the runs of lines between the replaced ones are copied whole, not piece by piece
    (2,217 players for SAGC's state, of whom a back-dated entry touches a few hundred)."""
    text, pieces = stored.text, stored.pieces
    replaced = sorted((*pieces[name], entry) for name, entry in entries.items() if name in pieces)
    parts: list[str] = []
    at = 0
    for start, end, entry in replaced:
        parts += (text[at:start], entry)
        at = end
    parts.append(text[at : -len(_LAST_LINE)])
    parts += (_MEMBER_SEPARATOR + entry for name, entry in entries.items() if name not in pieces)
    parts.append(_LAST_LINE)
    return "".join(parts)


def laid_out_state(data: Mapping[str, Any]) -> str:
    """``data``, each player's state by name, as a checkpoint stores it: one player a
    line."""
    return _laid_out(_member(name, value) for name, value in data.items())


def _member(name: str, value: Any) -> str:
    return f"{json.dumps(name)}: {json.dumps(value)}"


def _laid_out(members: Iterable[str]) -> str:
    """The JSON object of ``members`` (each ``"name": {...}``), one a line."""
    return _FIRST_LINE + _MEMBER_SEPARATOR.join(members) + _LAST_LINE
