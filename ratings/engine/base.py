"""The interface every rating algorithm shares, and the replay that drives it.

An algorithm is a class with a frozen parameters dataclass (defaults are the
seed's numbers), a per-player state, and ``rate_unit`` that rates one unit of the
replay: a single game or adjustment, or (for algorithms that rate tournaments as
one block) all games of a tournament at the position of its first game.

The replay is resumable: :class:`RatingState` can be dumped to JSON-able data and
loaded again, so the site can restart a recompute from a checkpoint.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import Any, ClassVar, Generic, Self, TypeVar, cast

from .description import (
    VALUE_SCALE,
    FormulaFactor,
    Matchup,
    RankScale,
    StatusFactors,
    ValueScale,
    gettext_noop,
)
from .explanation import (
    Step,
    StoredChange,
    factor_steps,
    opening_steps,
    product_step,
    sum_step,
)
from .ranks import Rank, RankError, parse_rank
from .records import Colour, Entry, GameRecord, Status, Winner, replay_order

Number = int | float | Fraction


class ParamsError(ValueError):
    """A ``--params`` value that does not fit the algorithm's parameters."""


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One player's line of the record sheet for one game or adjustment."""

    seq: int
    date: date
    round: int
    player: str
    opponent: str
    opponent_rank: Rank
    colour: Colour | None  # None for an adjustment
    handicap: int
    komi: Fraction
    winner: Winner | None
    status: Status
    tournament: str
    value_before: Number
    change: Number
    value_after: Number
    rank_before: Rank
    rank_after: Rank
    factors: Mapping[str, Any]
    comment: str = ""
    skipped: str = ""  # why the algorithm did not rate this game, if it did not

    @property
    def is_adjustment(self) -> bool:
        return self.status is Status.ADJUSTMENT

    def stored_change(self) -> StoredChange:
        """The row's change as ``Algorithm.explain`` reads it (the calculator explains
        its rows as the log page does the stored ones)."""
        game = not self.is_adjustment
        return StoredChange(
            factors=self.factors,
            value_before=self.value_before,
            change=self.change,
            value_after=self.value_after,
            rank_before=self.rank_before,
            rank_after=self.rank_after,
            skipped=self.skipped,
            is_adjustment=not game,
            handicap=self.handicap if game else None,
            komi=self.komi if game else None,
        )


# A player's rating columns of a game's row: (rank_before, value_before, change,
# rank_after, value_after, factors).
RowSide = tuple[Rank, Number, Number, Rank, Number, Mapping[str, Any]]
# A game rated without its rows (see Algorithm.rate_sides): the record, White's side,
# Black's side, and why it was not rated if it was not. ``rows.game_rows`` makes its rows.
RatedGame = tuple[GameRecord, RowSide, RowSide, str]


@dataclass(frozen=True, slots=True)
class Standing:
    player: str
    rank: Rank
    value: Number
    games: int


@dataclass(slots=True)
class PlayerState:
    """What every algorithm keeps of a player; algorithms extend it."""

    rank: Rank
    value: Number
    games: int = 0

    def to_data(self) -> dict[str, Any]:
        return {name: _to_data(getattr(self, name)) for name in _field_names(type(self))}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        hints = _type_hints(cls)
        return cls(**{name: _from_data(hints[name], value) for name, value in data.items()})


# Resolving fields and annotations is slow, and a checkpoint dumps or loads thousands
# of players: once per class. (Dictionaries rather than functools.cache: a state class is
# an unhashable dataclass to the type checker, though the class object hashes.)
_TYPE_HINTS: dict[type, dict[str, Any]] = {}
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _type_hints(cls: type) -> dict[str, Any]:
    hints = _TYPE_HINTS.get(cls)
    if hints is None:
        hints = _TYPE_HINTS[cls] = typing.get_type_hints(cls)
    return hints


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(item.name for item in dataclasses.fields(cls))
    return names


_PLAIN = frozenset({str, int, bool, type(None)})  # JSON-able as they are


def _to_data(value: Any) -> Any:
    if type(value) in _PLAIN:
        return value
    if isinstance(value, Rank):
        return {"stones": value.stones, "pro": value.pro}
    if isinstance(value, Fraction):
        return {"fraction": str(value)}
    if isinstance(value, float):
        return {"float": value.hex()}  # exact round trip
    if isinstance(value, list | tuple):
        if all(type(item) in _PLAIN for item in value):
            return list(value)
        return [_to_data(item) for item in value]
    return value


def _from_data(hint: Any, value: Any) -> Any:
    if isinstance(value, dict):
        if "stones" in value:
            return Rank(value["stones"], value["pro"])
        if "fraction" in value:
            return Fraction(value["fraction"])
        if "float" in value:
            return float.fromhex(value["float"])
    if isinstance(value, list):
        return [_from_data(None, item) for item in value]
    return value


# The kind of player state an algorithm keeps.
P = TypeVar("P", bound=PlayerState)


class RatingState(Generic[P]):
    """The players' states during a replay, created lazily from their entries."""

    def __init__(self, algorithm: Algorithm[P], entries: Mapping[str, Entry]) -> None:
        self.algorithm = algorithm
        self.entries = entries
        self.players: dict[str, P] = {}

    def player(self, name: str) -> P:
        state = self.players.get(name)
        if state is None:
            entry = self.entries.get(name)
            if entry is None:
                raise KeyError(f"no entry rank for player '{name}'")
            state = self.players[name] = self.algorithm.new_player(entry)
        return state

    def dump(self) -> dict[str, Any]:
        return {name: state.to_data() for name, state in self.players.items()}

    def load(self, data: Mapping[str, Mapping[str, Any]]) -> None:
        # state_type is the class of P (a class variable cannot name a type variable).
        state_type = self.algorithm.state_type
        self.players = {name: cast(P, state_type.from_data(item)) for name, item in data.items()}


# Every factor label an algorithm class declares, the first declaration of a key kept:
# a factor another algorithm's rows keep too is labelled even where this one's are
# silent (``Algorithm.factor_label``). Filled as the classes are defined, so this module
# need not import the algorithms' list (``algorithms.py``), which imports it.
_FACTOR_LABELS: dict[str, str] = {}


class Algorithm(ABC, Generic[P]):
    """A rating algorithm. Subclasses set the class variables and ``rate_unit``."""

    name: ClassVar[str]
    title: ClassVar[str]
    params_type: ClassVar[type]
    state_type: ClassVar[type[PlayerState]] = PlayerState
    has_history: ClassVar[bool] = True
    rates_tournaments_as_blocks: ClassVar[bool] = False
    # Starts a new player at the GoR a tournament file declares (Entry.declared_rating).
    starts_at_declared_rating: ClassVar[bool] = False
    # values are shown as integers (SAGC indexes) rather than full-precision floats
    integer_values: ClassVar[bool] = False
    # what its value is called, as a sentence writes it ("index", "GoR"): the pages put
    # it in their headings and sentences, translated (marked for ``makemessages``)
    value_label: ClassVar[str] = gettext_noop("rating")

    # How the site shows it (description.py): the scale a typed value is in, where its
    # values sit among the ranks on a chart, the labels of the factors its history rows
    # keep, the product its change is (if it is one) for the "how was this computed"
    # panel, and what the lab says of its prediction (see ``predict_white``).
    value_scale: ClassVar[ValueScale]
    rank_scale: ClassVar[RankScale] = VALUE_SCALE
    factor_labels: ClassVar[Mapping[str, str]] = {}
    formula: ClassVar[tuple[FormulaFactor, ...]] = ()
    prediction_note: ClassVar[str] = ""
    # the factor a game's status gives its change, shown in the record sheet's status
    # column instead of the status (SAGC's GSF); None: the status is shown
    status_factors: ClassVar[StatusFactors | None] = None

    def __init__(self, params: Any = None) -> None:
        self.params = params if params is not None else self.params_type()

    # the tab's name when it is a word of English rather than the code's letters, marked
    # for ``makemessages`` so the pages show it translated ("French": "Français")
    short_name: ClassVar[str] = ""

    @property
    def short_title(self) -> str:
        """``short_name`` if set, else ``sagc`` -> ``SAGC``, ``egf-2021`` -> ``EGF 2021``."""
        if self.short_name:
            return self.short_name
        return " ".join(
            part.upper() if part.isalpha() and len(part) <= 4 else part.capitalize()
            for part in self.name.split("-")
        )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for key, label in cls.__dict__.get("factor_labels", {}).items():
            _FACTOR_LABELS.setdefault(key, label)

    @classmethod
    def factor_label(cls, key: str) -> str:
        """The label of a factor its rows keep: its own (``factor_labels``), else
        another algorithm's, else the key made readable: a new factor never lacks one."""
        label = cls.factor_labels.get(key) or _FACTOR_LABELS.get(key)
        return label or key.replace("_", " ").capitalize()

    def explain(self, change: StoredChange) -> tuple[Step, ...]:
        """How ``change`` came about, as steps the pages word (``explanation.py``): an
        adjustment or why the game was not rated; then the product of ``formula`` when
        the row keeps its factors, else the value before, the change and the value
        after; then every other factor the row keeps, labelled. An algorithm with more
        to say overrides it (SAGC: zones, loss barriers, promotions)."""
        steps = opening_steps(change)
        product = product_step(self.formula, change)
        leave_out: set[str] = set()
        if product is not None:
            steps.append(product)
            leave_out = {factor.key for factor in self.formula} | {"product"}
        else:
            total = sum_step(change)
            if total is not None:
                steps.append(total)
        labels = {key: self.factor_label(key) for key in change.factors}
        steps += factor_steps(change, labels, leave_out)
        return tuple(steps)

    def new_state(self, entries: Mapping[str, Entry]) -> RatingState[P]:
        return RatingState(self, entries)

    @abstractmethod
    def new_player(self, entry: Entry) -> P:
        """The state of a player the first time they appear."""

    @abstractmethod
    def rate_unit(self, state: RatingState[P], unit: Sequence[GameRecord]) -> list[HistoryRow]:
        """Rate one unit (see :func:`units`), updating ``state``; rows in replay order,
        White's row before Black's."""

    def rate_sides(
        self, state: RatingState[P], unit: Sequence[GameRecord]
    ) -> list[RatedGame] | None:
        """Rate a unit as ``rate_unit`` does, giving each game's sides instead of its
        rows (``rows.game_rows`` of each are ``rate_unit``'s rows); or None, having
        changed nothing, for a unit this algorithm rates only through ``rate_unit``
        (the default: every unit; an adjustment, for each algorithm).

        The command line writes its record sheet from the sides (:func:`replay_sides`):
        making the two HistoryRows of each game was a fifth of its time."""
        return None

    def entry_problem(self, entry: Entry) -> str | None:
        """Why this starting value cannot be used, or None when it can."""
        return None

    def standings(self, state: RatingState[P]) -> list[Standing]:
        rows = [
            Standing(name, player.rank, player.value, player.games)
            for name, player in state.players.items()
        ]
        return sort_standings(rows)

    def finish(self, state: RatingState[P]) -> None:  # an optional hook
        """Called once after the last unit (holistic algorithms compute here)."""

    def default_value(self, rank: Rank) -> Number | None:
        """The value a committee reset to ``rank`` gives when it names none; None for an
        algorithm that ignores resets (GCR)."""
        return None

    def predict_white(self, matchup: Matchup) -> float:
        """P(White wins) before the game, for the lab and the calculator. An algorithm
        that makes no prediction does not override it (the lab leaves it out)."""
        raise NotImplementedError(f"{self.name} makes no prediction")


def sort_standings(rows: Iterable[Standing]) -> list[Standing]:
    """By rank and value descending, then username (SPEC section 3)."""
    return sorted(rows, key=lambda row: (-row.rank.stones, -row.rank.pro, -row.value, row.player))


def units(
    algorithm: Algorithm, records: Iterable[GameRecord], *, presorted: bool = False
) -> Iterator[list[GameRecord]]:
    """The records this algorithm sees, grouped into the units it rates, in replay order.

    Adjustments meant for another algorithm are left out. For algorithms that rate
    tournaments as one block, all games sharing a tournament code form one unit placed
    at the position of the tournament's first game (SPEC section 5).

    ``presorted`` says the records already come in replay order (the site's database
    streams them so): they are not sorted again and, for an algorithm without blocks,
    not held in memory either, one unit is made per record as it arrives.
    """
    name, adjustment = algorithm.name, Status.ADJUSTMENT
    # applies_to, without a call for a game (a file's records are nearly all games)
    chosen = (
        record for record in records if record.status is not adjustment or record.applies_to(name)
    )
    if presorted and not algorithm.rates_tournaments_as_blocks:
        for record in chosen:
            yield [record]
        return
    ordered = list(chosen) if presorted else replay_order(chosen)
    if not algorithm.rates_tournaments_as_blocks:
        for record in ordered:
            yield [record]
        return
    blocks: dict[str, list[GameRecord]] = {}
    for record in ordered:
        if record.tournament and not record.is_adjustment:
            blocks.setdefault(record.tournament, []).append(record)
    emitted: set[str] = set()
    for record in ordered:
        code = record.tournament if not record.is_adjustment else ""
        if not code:
            yield [record]
        elif code not in emitted:
            emitted.add(code)
            yield blocks[code]


@contextlib.contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector off for a while: where many records stay alive (a file
    being rated, a club's whole history), each collection that a burst of allocations
    sets off walks them all again (a fifth of the command line's time at 200,000 games;
    two thirds of GCR's pass order). Records, states, rows and pairs hold no reference
    cycles; reference counting frees them as before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def replay(
    algorithm: Algorithm,
    records: Iterable[GameRecord],
    entries: Mapping[str, Entry],
    state: RatingState | None = None,
    *,
    presorted: bool = False,
) -> Iterator[HistoryRow]:
    """Rate ``records`` in replay order, yielding each player's row per game.

    Pass ``state`` to continue from a checkpoint; it is updated in place.
    ``presorted`` says the records already come in replay order (see :func:`units`).
    """
    if state is None:
        state = algorithm.new_state(entries)
    for unit in units(algorithm, records, presorted=presorted):
        yield from algorithm.rate_unit(state, unit)
    algorithm.finish(state)


def replay_sides(
    algorithm: Algorithm,
    records: Iterable[GameRecord],
    state: RatingState,
    *,
    presorted: bool = False,
) -> Iterator[HistoryRow | RatedGame]:
    """:func:`replay`, except that the games of a unit the algorithm rates by
    ``rate_sides`` come as their :data:`RatedGame` instead of their rows (for a reader
    needing no row objects: ``output.write_history`` formats either)."""
    rate_sides, rate_unit = algorithm.rate_sides, algorithm.rate_unit
    if presorted and not algorithm.rates_tournaments_as_blocks:
        # units() as it would go, without its generator in between
        name, adjustment = algorithm.name, Status.ADJUSTMENT
        for record in records:
            if record.status is adjustment and not record.applies_to(name):
                continue
            unit = [record]
            rated = rate_sides(state, unit)
            yield from rate_unit(state, unit) if rated is None else rated
        algorithm.finish(state)
        return
    for unit in units(algorithm, records, presorted=presorted):
        rated = rate_sides(state, unit)
        yield from rate_unit(state, unit) if rated is None else rated
    algorithm.finish(state)


# --- parameters -----------------------------------------------------------------


def _parse_value(hint: Any, text: str, key: str) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if text.strip().lower() in ("", "none") and type(None) in args:
            return None
        (inner,) = [arg for arg in args if arg is not type(None)]
        return _parse_value(inner, text, key)
    if origin is tuple:
        inner = args[0] if args else str
        parts = [part for part in (piece.strip() for piece in text.split(",")) if part]
        return tuple(_parse_value(inner, part, key) for part in parts)
    try:
        if hint is bool:
            lowered = text.strip().lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if hint is int:
            return int(text)
        if hint is float:
            return float(text)
        if hint is Fraction:
            return Fraction(text)
        if hint is Decimal:
            return Decimal(text)
        if hint is str:
            return text
        if hint is Rank:
            return parse_rank(text)
    except (ValueError, ArithmeticError, RankError):
        pass
    else:
        raise ParamsError(f"--params {key}: unsupported parameter type {hint!r}")
    type_name = getattr(hint, "__name__", str(hint))
    raise ParamsError(f"--params {key}={text}: expected a value of type {type_name}")


def parse_params(params_type: type, pairs: Sequence[str]) -> Any:
    """Build ``params_type`` from its defaults and ``KEY=VALUE`` overrides."""
    hints = typing.get_type_hints(params_type)
    names = [item.name for item in dataclasses.fields(params_type)]
    overrides: dict[str, Any] = {}
    for pair in pairs:
        key, separator, text = pair.partition("=")
        key = key.strip()
        if not separator:
            raise ParamsError(f"--params {pair}: expected KEY=VALUE")
        if key not in names:
            raise ParamsError(f"--params {key}: unknown parameter (known: {', '.join(names)})")
        overrides[key] = _parse_value(hints[key], text.strip(), key)
    try:
        return params_type(**overrides)
    except (ValueError, TypeError) as error:
        raise ParamsError(f"--params: {error}") from None
