"""Reads for the recompute: games and adjustments as engine records, players' entries;
and for the lab: the games an algorithm rated, from its stored history."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.db import connection
from django.db.models import (
    Count,
    Exists,
    F,
    IntegerField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Value,
    Window,
)
from django.db.models.functions import Cast, Coalesce, RowNumber

from players.fields import code_to_rank
from players.models import Adjustment, Game, Player, adjustment_record, game_record
from ratings.engine import lab
from ratings.engine.base import HistoryRow, RatingState
from ratings.engine.holistic import Holistic
from ratings.engine.ranks import Rank
from ratings.engine.records import (
    Colour,
    Entry,
    GameRecord,
    Status,
    Winner,
    earliest_declared_ranks,
)

from .models import RatingHistory

GAME_RECORD_COLUMNS = (  # a game as the replay reads it (and the game record CSV)
    "id",
    "seq",
    "date",
    "round",
    "white__username",
    "black__username",
    "handicap",
    "komi",
    "winner",
    "status",
    "board_size",
    "time_minutes",
    "tournament__code",
    "tournament__egf_class",
    "comment",
)
ADJUSTMENT_RECORD_COLUMNS = (
    "id",
    "seq",
    "date",
    "player__username",
    "new_rank",
    "value",
    "algorithm",
    "comment",
)
ROWS_PER_FETCH = 10_000  # rows a streamed query reads at a time


@dataclass(frozen=True, slots=True)
class ReplayKey:
    """A position in replay order: (date, round, seq)."""

    date: date
    round: int
    seq: int

    def at_or_after(self) -> Q:
        return Q(date__gte=self.date) & (
            Q(date__gt=self.date)
            | Q(date=self.date, round__gt=self.round)
            | Q(date=self.date, round=self.round, seq__gte=self.seq)
        )


@dataclass(slots=True)
class SourceIds:
    """Which database row each replayed record came from, by its ``seq``."""

    games: dict[int, int]
    adjustments: dict[int, int]

    def release(self, records: Iterable[GameRecord]) -> None:
        """Forget records whose rows are written, so that a long replay does not keep
        an id for every game it has streamed."""
        for record in records:
            (self.adjustments if record.is_adjustment else self.games).pop(record.seq, None)


def _valid_games(start: ReplayKey | None):
    games = Game.objects.valid()
    return games if start is None else games.filter(start.at_or_after())


def _valid_adjustments(algorithm: str, start: ReplayKey | None):
    adjustments = Adjustment.objects.valid().filter(Q(algorithm="") | Q(algorithm=algorithm))
    return adjustments if start is None else adjustments.filter(_adjustments_from(start))


def _adjustments_from(start: ReplayKey) -> Q:
    # adjustments have no round: they sit at round 0 of their date
    return (
        Q(date__gt=start.date) | Q(date=start.date, seq__gte=start.seq)
        if start.round == 0
        else Q(date__gt=start.date)
    )


def _no_op() -> None:
    pass


def _games(
    start: ReplayKey | None,
    ids: dict[int, int],
    before_fetch: Callable[[], None],
    after_fetch: Callable[[], None],
    chunk: int,
) -> Iterator[GameRecord]:
    # Each column's place in a row, found from its name in GAME_RECORD_COLUMNS: a row
    # read by name (a dict, a namedtuple) costs about 15% more per game, and the
    # recompute streams up to a million of them.
    at = {name: place for place, name in enumerate(GAME_RECORD_COLUMNS)}
    id_at, seq_at, date_at, round_at = at["id"], at["seq"], at["date"], at["round"]
    white_at, black_at = at["white__username"], at["black__username"]
    handicap_at, komi_at, winner_at = at["handicap"], at["komi"], at["winner"]
    status_at, board_size_at, time_at = at["status"], at["board_size"], at["time_minutes"]
    tournament_at, class_at = at["tournament__code"], at["tournament__egf_class"]
    comment_at = at["comment"]
    games = _valid_games(start).in_replay_order().values_list(*GAME_RECORD_COLUMNS)
    rows = games.iterator(chunk_size=chunk)
    for count in itertools.count():
        # The iterator goes to the database for every ``chunk`` rows, the first included.
        fetches = count % chunk == 0
        if fetches:
            before_fetch()
        row = next(rows, None)
        if fetches:
            after_fetch()
        if row is None:
            return
        ids[row[seq_at]] = row[id_at]
        yield game_record(
            seq=row[seq_at],
            date=row[date_at],
            round=row[round_at],
            white=row[white_at],
            black=row[black_at],
            handicap=row[handicap_at],
            komi=row[komi_at],
            winner=row[winner_at],
            status=row[status_at],
            board_size=row[board_size_at],
            time_minutes=row[time_at],
            tournament=row[tournament_at],
            tournament_class=row[class_at],
            comment=row[comment_at],
        )


def _adjustments(
    algorithm: str, start: ReplayKey | None, ids: dict[int, int]
) -> Iterator[GameRecord]:
    adjustments = _valid_adjustments(algorithm, start)
    rows = adjustments.order_by("date", "seq").values_list(*ADJUSTMENT_RECORD_COLUMNS)
    for values in rows.iterator(chunk_size=ROWS_PER_FETCH):
        row = dict(zip(ADJUSTMENT_RECORD_COLUMNS, values, strict=True))  # few: read by name
        ids[row["seq"]] = row["id"]
        yield adjustment_record(
            seq=row["seq"],
            date=row["date"],
            player=row["player__username"],
            new_rank=row["new_rank"],
            value=row["value"],
            algorithm=row["algorithm"],
            comment=row["comment"],
        )


def replay_records(
    algorithm: str,
    start: ReplayKey | None = None,
    *,
    before_fetch: Callable[[], None] = _no_op,
    after_fetch: Callable[[], None] = _no_op,
    chunk: int = ROWS_PER_FETCH,
) -> tuple[Iterator[GameRecord], SourceIds]:
    """Valid games and the algorithm's adjustments from ``start`` on, in replay order,
    streamed from the database (on PostgreSQL through server-side cursors, a chunk at
    a time); ``SourceIds`` fills in as the stream is read.

    Each chunk of ``chunk`` games is fetched between calls of ``before_fetch`` and
    ``after_fetch``: the recompute waits there for the rows it is writing through the
    same connection, then sends the next ones, which go in while it rates the chunk.
    """
    ids = SourceIds({}, {})
    merged = heapq.merge(
        _games(start, ids.games, before_fetch, after_fetch, chunk),
        _adjustments(algorithm, start, ids.adjustments),
        key=lambda record: record.order_key,
    )
    return merged, ids


def replay_count(algorithm: str, start: ReplayKey | None = None) -> int:
    """How many records :func:`replay_records` streams (for progress reports and the
    spacing of the checkpoints): the valid games and the algorithm's valid adjustments
    (:func:`_valid_games`, :func:`_valid_adjustments`) from ``start`` on.

    Written as SQL, one statement: built by the ORM, the two counts cost a back-dated
    entry 0.8 ms of CPU, twice the statement's."""
    quote = connection.ops.quote_name
    game, adjustment = (quote(model._meta.db_table) for model in (Game, Adjustment))
    games_from = adjustments_from = ""
    games_parameters: list[Any] = []
    adjustments_parameters: list[Any] = []
    if start is not None:
        day = connection.ops.adapt_datefield_value(start.date)
        # (``date >= %s`` first: the replay order's index reads from the day on.)
        games_from = (
            " AND date >= %s AND (date > %s OR (date = %s AND (round > %s OR "
            "(round = %s AND seq >= %s))))"
        )
        games_parameters = [day, day, day, start.round, start.round, start.seq]
        # Adjustments have no round: they sit at round 0 of their date.
        if start.round == 0:
            adjustments_from = " AND (date > %s OR (date = %s AND seq >= %s))"
            adjustments_parameters = [day, day, start.seq]
        else:
            adjustments_from = " AND date > %s"
            adjustments_parameters = [day]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT COUNT(*) FROM {game} WHERE voided_at IS NULL{games_from}) + "
            f"(SELECT COUNT(*) FROM {adjustment} WHERE voided_at IS NULL "
            f"AND (algorithm = '' OR algorithm = %s){adjustments_from})",
            [*games_parameters, algorithm, *adjustments_parameters],
        )
        (count,) = cursor.fetchone()
    return count


def last_replay_date(algorithm: str) -> date | None:
    """The date of the last record :func:`replay_records` streams (None: no record)."""
    game = _valid_games(None).aggregate(last=Max("date"))["last"]
    adjustment = _valid_adjustments(algorithm, None).aggregate(last=Max("date"))["last"]
    return max((day for day in (game, adjustment) if day is not None), default=None)


def count_holistic_table(
    state: RatingState,
    before: date | None = None,
    *,
    after: date | None = None,
    usernames: Mapping[int, str] | None = None,
) -> None:
    """Fill the table of a holistic algorithm in ``state`` (its algorithm a
    ``holistic.Holistic``; new and empty, or holding a table of the games up to
    ``after``) with the valid games before ``before`` (every one when None) and after
    ``after`` (when given), counted by the database: one row per group of like games
    (the same players in the same colours, result, status, board size and handicap) with
    how many there are, in one GROUP BY, each passed to ``Holistic.count`` with that
    number. The table a replay of those games leaves, since a holistic table does not
    depend on the order of its games. Not rated: ``Holistic.finish`` does that.
    ``usernames``: every player's username by id, when the caller has read them."""
    algorithm = state.algorithm
    if not isinstance(algorithm, Holistic):
        raise TypeError(f"{algorithm.name} is not rated as a whole")
    games = Game.objects.valid()
    if before is not None:
        games = games.filter(date__lt=before)
    if after is not None:
        games = games.filter(date__gt=after)
    if usernames is None:
        usernames = {player_id: username for username, player_id in player_ids().items()}
    counted = (
        games.values_list("white_id", "black_id", "winner", "status", "board_size", "handicap")
        .annotate(games=Count("id"))
        .order_by()
    )
    winners = {winner.value: winner for winner in Winner}
    statuses = {status.value: status for status in Status}
    count = algorithm.count
    for white, black, winner, status, board_size, handicap, times in counted.iterator(
        chunk_size=ROWS_PER_FETCH
    ):
        record = GameRecord(
            date=date.min,
            white=usernames[white],
            black=usernames[black],
            winner=winners.get(winner),
            status=statuses[status],
            board_size=board_size,
            handicap=handicap,
        )
        count(state, record, times)


def declared_ranks(
    player_ids: Collection[int] | None = None, *, games=None, adjustments=None
) -> dict[int, Rank]:
    """Each player's entry rank as declared, by player id (of ``player_ids`` only when
    given): the rank on their earliest valid game in replay order that carries one
    (tournament files and CSV imports declare ranks; sheets typed on the site do not),
    or the new rank of an adjustment that is their first row, as
    ``ratings.engine.records.declared_ranks`` reads a file. Three queries per 500
    players, each row the first of its player (a window function). ``games`` and
    ``adjustments``: the valid ones (a migration passes its historical models').

    A write stores the result in ``Player.declared_rank`` for the players it touches
    (``players.services.games.refresh_entry_ranks``): over all the games of a federation the
    window functions take seconds, too long for every recompute."""
    games = Game.objects.valid() if games is None else games
    adjustments = Adjustment.objects.valid() if adjustments is None else adjustments
    # An adjustment comes before a game of its player on its date at round 0 with a
    # later entry number, or on any later date.
    earlier_game = games.filter(
        Q(white=OuterRef("player_id")) | Q(black=OuterRef("player_id"))
    ).filter(
        Q(date__lt=OuterRef("date")) | Q(date=OuterRef("date"), round=0, seq__lt=OuterRef("seq"))
    )
    sources = [
        (games, "white_id", "white_rank", F("round")),
        (games, "black_id", "black_rank", F("round")),
        # adjustments have no round: they sit at round 0 of their date
        (
            adjustments.filter(~Exists(earlier_game)),
            "player_id",
            "new_rank",
            Value(0),
        ),
    ]
    if player_ids is None:
        chunks: list[list[int] | None] = [None]
    else:
        ids = sorted(player_ids)
        chunks = [ids[start : start + IDS_PER_QUERY] for start in range(0, len(ids), IDS_PER_QUERY)]
    rows: list[tuple[int, tuple, Rank]] = []
    for entries, player, rank, round_number in sources:
        entries = entries.filter(**{f"{rank}__isnull": False}).annotate(key_round=round_number)
        order = [F("date").asc(), F("key_round").asc(), F("seq").asc()]
        for chunk in chunks:
            some = entries if chunk is None else entries.filter(**{f"{player}__in": chunk})
            first = some.annotate(
                first=Window(RowNumber(), partition_by=[F(player)], order_by=order)
            ).filter(first=1)
            for player_id, day, key_round, seq, declared in first.values_list(
                player, "date", "key_round", "seq", rank
            ):
                rows.append((player_id, (day, key_round, seq), declared))
    return earliest_declared_ranks(rows)


IDS_PER_QUERY = 500  # ids in one IN (...) list: SQLite limits the parameters of a query

# Where the parameters of a query of :func:`fetch_for_players` take the player ids.
PLAYER_IDS = object()


def fetch_for_players(query: str, parameters: list, players: Collection[int] | None) -> list[tuple]:
    """The rows of the SQL ``query`` for ``players`` (every player when None): its
    ``{players}`` the condition on ``player_id``, its ids where ``PLAYER_IDS`` stands
    among ``parameters``, ``IDS_PER_QUERY`` of them a query. A statement that gives no
    rows (a DELETE) runs the same way."""
    if players is None:
        chunks: list[list[int]] = [[]]
    else:
        chosen = sorted(players)
        chunks = [
            chosen[start : start + IDS_PER_QUERY] for start in range(0, len(chosen), IDS_PER_QUERY)
        ]
    found: list[tuple] = []
    with connection.cursor() as cursor:
        for some in chunks:
            condition = (
                "1 = 1" if players is None else f"player_id IN ({', '.join(['%s'] * len(some))})"
            )
            at = parameters.index(PLAYER_IDS)
            cursor.execute(
                query.format(players=condition),
                [*parameters[:at], *some, *parameters[at + 1 :]],
            )
            if cursor.description is not None:
                found += cursor.fetchall()
    return found


def player_entries(usernames: Collection[str] | None = None) -> dict[str, Entry]:
    """Every player's entry (SPEC section 2), or with ``usernames`` only theirs: the rank
    declared on their earliest game or first-row adjustment (stored as
    ``Player.declared_rank`` by every write; see :func:`declared_ranks`), else the rank
    recorded when they were created; and the GoR their earliest tournament file
    declared (the EGF algorithms start them at it, as ``python -m ratings`` does on
    that file)."""
    rows = Player.objects.values_list("username", "declared_rank", "entry_rank", "declared_rating")
    if usernames is None:
        chunks: Iterable[Iterable[tuple]] = [rows.iterator()]
    else:
        names = sorted(usernames)
        chunks = (
            rows.filter(username__in=names[start : start + IDS_PER_QUERY])
            for start in range(0, len(names), IDS_PER_QUERY)
        )
    return {
        username: Entry(
            declared if declared is not None else created,
            declared_rating=Fraction(rating) if rating is not None else None,
        )
        for chunk in chunks
        for username, declared, created, rating in chunk
    }


def player_ids() -> dict[str, int]:
    return dict(Player.objects.values_list("username", "id").iterator())


def player_entries_and_ids() -> tuple[dict[str, Entry], dict[str, int]]:
    """Every player's entry (:func:`player_entries`) and id (:func:`player_ids`), by
    username, from one read of the players (a holistic pass needs both of everyone)."""
    entries: dict[str, Entry] = {}
    ids: dict[str, int] = {}
    # An entry is immutable: the players of one rank and no GoR share one.
    shared: dict[Rank, Entry] = {}
    rank = Coalesce("declared_rank", "entry_rank")  # as player_entries chooses, in SQL
    rows = Player.objects.values_list("username", "id", rank, "declared_rating")
    for username, player_id, entry_rank, rating in rows.iterator():
        if rating is not None:
            entries[username] = Entry(entry_rank, declared_rating=Fraction(rating))
        else:
            entry = shared.get(entry_rank)
            if entry is None:
                entry = shared[entry_rank] = Entry(entry_rank)
            entries[username] = entry
        ids[username] = player_id
    return entries, ids


_HISTORY_COLUMNS = (
    "player__username",
    "opponent__username",
    "opponent_rank",
    "colour",
    "game__seq",
    "adjustment__seq",
    "game__round",
    "game__handicap",
    "game__komi",
    "game__winner",
    "game__status",
    "game__comment",
    "adjustment__comment",
    "game__tournament__code",
    "date",
    "value_before",
    "change",
    "value_after",
    "rank_before",
    "rank_after",
    "factors",
    "skipped",
)


def stored_history(algorithm: str) -> Iterator[HistoryRow]:
    """The stored history of one algorithm in replay order, as the engine's rows."""
    return history_rows(RatingHistory.objects.filter(algorithm=algorithm).order_by("position"))


def history_rows(rows: QuerySet[RatingHistory]) -> Iterator[HistoryRow]:
    """Stored rows (a queryset, in its order) as the engine's rows: one query, streamed."""
    for row in rows.values_list(*_HISTORY_COLUMNS).iterator(chunk_size=ROWS_PER_FETCH):
        (
            player,
            opponent,
            opponent_rank,
            colour,
            game_seq,
            adjustment_seq,
            round_number,
            handicap,
            komi,
            winner,
            status,
            game_comment,
            adjustment_comment,
            tournament,
            played_on,
            value_before,
            change,
            value_after,
            rank_before,
            rank_after,
            factors,
            skipped,
        ) = row
        is_game = game_seq is not None
        yield HistoryRow(
            seq=game_seq if is_game else adjustment_seq,
            date=played_on,
            round=round_number or 0,
            player=player,
            opponent=opponent,
            opponent_rank=opponent_rank,
            colour=Colour(colour) if colour else None,
            handicap=handicap if is_game else 0,
            komi=Fraction(komi) if is_game else Fraction(0),
            winner=Winner(winner) if is_game else None,
            status=Status(status) if is_game else Status.ADJUSTMENT,
            tournament=tournament or "",
            value_before=value_before,
            change=change,
            value_after=value_after,
            rank_before=rank_before,
            rank_after=rank_after,
            factors=factors,
            comment=(game_comment if is_game else adjustment_comment) or "",
            skipped=skipped,
        )


_LAB_HISTORY_COLUMNS = (
    "game_id",
    "colour",
    "player_id",
    "value_before",
    "rank_code",
    "skipped",
    "game__handicap",
    "game__komi",
    "game__board_size",
    "game__status",
    "game__winner",
    "game__tournament_id",
    "date",
    "game__round",
    "game__seq",
    "position",
)


# A place in the replay order (date, round, entry number), the position of the game's
# first row, its game's id, and the game as the lab predicts it.
PlacedLabGame = tuple[tuple[date, int, int], int, int, lab.LabGame]


def history_games(algorithm: str, *, blocks: bool) -> Iterator[lab.LabGame]:
    """The games ``algorithm`` rated, as the lab predicts them (see :func:`rated_history_games`)."""
    return (
        game for _place, _position, _game_id, game in rated_history_games(algorithm, blocks=blocks)
    )


def placed_history_games(
    algorithm: str, *, blocks: bool, since: ReplayKey | None = None, from_position: int = 0
) -> Iterator[tuple[tuple[date, int, int], int, lab.LabGame]]:
    """The games ``algorithm`` rated at or after the place ``since`` in the replay
    order, each with its place (date, round, entry number) and the position of its
    first row (see :func:`rated_history_games`)."""
    return (
        (place, position, game)
        for place, position, _game_id, game in rated_history_games(
            algorithm, blocks=blocks, since=since, from_position=from_position
        )
    )


def keyed_history_games(
    algorithm: str, *, blocks: bool, games: QuerySet | None = None
) -> Iterator[tuple[int, lab.LabGame]]:
    """The games ``algorithm`` rated, each with its game's id; with ``games`` (a
    queryset of games) only those (see :func:`rated_history_games`)."""
    return (
        (game_id, game)
        for _place, _position, game_id, game in rated_history_games(
            algorithm, blocks=blocks, games=games
        )
    )


def rated_history_games(
    algorithm: str,
    *,
    blocks: bool,
    since: ReplayKey | None = None,
    from_position: int = 0,
    games: QuerySet | None = None,
) -> Iterator[PlacedLabGame]:
    """The games ``algorithm`` rated (not skipped, not free) at or after the place
    ``since`` in the replay order, each with its place (date, round, entry number), the
    position of its first row, its game's id and both players' value
    and rank just before it, from one query over its stored history (from
    ``from_position`` on, a bound the caller knows that saves reading the rows before
    it; with ``games``, a queryset of games, only those games' rows).

    With ``blocks`` (EGF, the French ladder: a tournament is rated as one block) a
    tournament game uses each player's value at the tournament's start, the value on
    their first row of it: EGF rates every game of the block from there, and the
    French ladder's later rows hold starting levels corrected after the block's
    results were seen. With ``games`` a block starts at the first of those games.
    """
    if since is not None:
        if games is not None:
            raise ValueError("the games from a place or some games, not both")
        rows_from = _lab_history_rows_from(algorithm, since, from_position)
        yield from _lab_games(rows_from, blocks=blocks)
        return
    rows = _lab_history_rows(algorithm, games=games)
    yield from _lab_games(rows.iterator(chunk_size=ROWS_PER_FETCH), blocks=blocks)


def _lab_history_rows_from(
    algorithm: str, since: ReplayKey, from_position: int
) -> Iterator[tuple[Any, ...]]:
    """The stored game rows :func:`rated_history_games` reads from the place ``since``
    (and ``from_position``) on, as :func:`_lab_history_rows` gives them, streamed. One
    statement written out: a lab update after a back-dated game reads a few hundred
    games, and the ORM's compiling of the query and converting of each row cost it a
    fifth of its time. The komi is read as text, which ``Fraction`` takes exactly as
    the ORM's ``Decimal`` (a float would not be, for 0.1)."""
    ops = connection.ops
    history = ops.quote_name(RatingHistory._meta.db_table)
    game = ops.quote_name(Game._meta.db_table)
    day = ops.adapt_datefield_value(since.date)
    sql = (
        "SELECT h.game_id, h.colour, h.player_id, h.value_before, "
        "CAST(h.rank_before AS integer), h.skipped, g.handicap, CAST(g.komi AS text), "
        "g.board_size, g.status, g.winner, g.tournament_id, h.date, g.round, g.seq, "
        f"h.position FROM {history} h INNER JOIN {game} g ON h.game_id = g.id "
        "WHERE h.algorithm = %s AND h.game_id IS NOT NULL AND g.voided_at IS NULL "
        "AND h.date >= %s AND h.position >= %s AND (h.date > %s OR (h.date = %s AND "
        "(g.round > %s OR (g.round = %s AND g.seq >= %s)))) ORDER BY h.position"
    )
    params = [algorithm, day, from_position, day, day, since.round, since.round, since.seq]
    with connection.chunked_cursor() as cursor:
        cursor.execute(sql, params)
        while chunk := cursor.fetchmany(ROWS_PER_FETCH):
            yield from chunk


def _lab_history_rows(
    algorithm: str, *, games: QuerySet[Game] | None
) -> QuerySet[RatingHistory, tuple[Any, ...]]:
    """The stored game rows :func:`rated_history_games` reads, every one or those of
    ``games``, as ``_LAB_HISTORY_COLUMNS`` in history order (from a place:
    :func:`_lab_history_rows_from`)."""
    rows = RatingHistory.objects.filter(
        algorithm=algorithm, game__isnull=False, game__voided_at__isnull=True
    )
    if games is not None:
        rows = rows.filter(game__in=games.values("pk"))
    return (
        rows.annotate(rank_code=Cast("rank_before", IntegerField()))
        .order_by("position")
        .values_list(*_LAB_HISTORY_COLUMNS)
    )


def _lab_games(rows: Iterable[tuple[Any, ...]], *, blocks: bool) -> Iterator[PlacedLabGame]:
    """The games of ``rows`` (of ``_LAB_HISTORY_COLUMNS``, in history order: White's
    row of a game, then Black's) that were rated and not free; see
    :func:`rated_history_games`."""
    # the few distinct ranks, komis, statuses and results, converted once each
    ranks: dict[int, Rank] = {}
    komis: dict[Decimal | str, Fraction] = {}  # from the ORM or as text
    statuses = {status.value: status for status in Status}
    winners = {winner.value: winner for winner in Winner}
    block_starts: dict[tuple[int, int], tuple[float, Rank]] = {}
    pending: dict[int, tuple[lab.Side, int]] = {}  # White's side and row, until Black's row
    for (
        game_id,
        colour,
        player_id,
        value_before,
        rank_code,
        skipped,
        handicap,
        komi,
        board_size,
        status,
        winner,
        tournament_id,
        day,
        round_number,
        seq,
        position,
    ) in rows:
        rank = ranks.get(rank_code)
        if rank is None:
            rank = ranks[rank_code] = code_to_rank(rank_code)
        if blocks and tournament_id is not None:
            value_before, rank = block_starts.setdefault(
                (tournament_id, player_id), (value_before, rank)
            )
        side = lab.Side(rank, value_before)
        if colour == Colour.WHITE.value:
            pending[game_id] = (side, position)
            continue
        white, first_position = pending.pop(game_id, (None, position))
        if white is None or skipped or status == Status.FREE.value:
            continue
        fraction = komis.get(komi)
        if fraction is None:
            fraction = komis[komi] = Fraction(komi)
        matchup = lab.Matchup(
            white=white, black=side, handicap=handicap, komi=fraction, board_size=board_size
        )
        yield (
            (day, round_number, seq),
            first_position,
            game_id,
            lab.LabGame(matchup=matchup, winner=winners[winner], status=statuses[status]),
        )
