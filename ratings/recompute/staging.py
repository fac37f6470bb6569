"""A recompute's writes, held back until its replay is done (SQLite), so that the
database's one write lock is held for the writes alone.

SQLite has one write lock for the whole file, and a transaction that takes it at its
start (``IMMEDIATE``, the settings) holds it to its end: a recompute that replays and
writes in one transaction makes every sheet saved meanwhile wait for the whole replay
(a minute for GCR at 200,000 games), or fail with "database is locked" past the busy
timeout. So on SQLite a recompute is two transactions (``ratings.recompute.run``):

- it reads and replays in a read transaction (:func:`read_transaction`): under WAL a
  snapshot of the database as it was when the transaction began, which writers do
  not disturb and which does not hold them up. Its rows go to tables in the
  connection's ``TEMP`` schema (:meth:`Writes.rows`), which the write lock does not
  cover, or, as long as they are few (a back-dated entry's), stay in memory; its
  deletes, and the writes that read what they replace, are kept as steps
  (:meth:`Writes.later`);
- then, in an ``IMMEDIATE`` transaction, it checks that no write moved the
  algorithm's generation since its snapshot (if one did, what it computed may be
  stale: it is dropped and the runner loops) and applies the steps in their order,
  each staged table moved over in one ``INSERT ... SELECT`` inside the database (the
  rows held in memory written as they are).

Readers see the old history, marked pending, until that second transaction commits,
and the new one, whole, after.

On PostgreSQL every write goes straight in, in the recompute's one transaction, as
the rows are computed (:class:`Writes` not staged): readers and writers do not wait
for each other there, and a save writes no row the recompute holds, so staging would
only add a copy of every row.

The writes of the running recompute are reached through :func:`current`, so that the
functions writing them keep their signatures; outside a recompute it is an unstaged
:class:`Writes` (everything straight in).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.db import connection, models, transaction

from ratings.recompute.bulk import RowWriter


class Writes:
    """Where a recompute's writes go: straight into their tables, or (``staged``) into
    temporary tables and a list of steps that :meth:`apply` runs later.

    When writes came in during the replay, part of it may still stand: the rows before
    a position. :meth:`apply` with ``prefix`` then runs only the steps that belong to
    such a prefix (the deletes, and the rows whose ``prefix`` condition is given),
    each staged table's rows filtered by its condition."""

    def __init__(self, *, staged: bool) -> None:
        self.staged = staged
        # (step, whether it runs when only a prefix is written); a step gets the
        # prefix's position (or None: everything).
        self.steps: list[tuple[Callable[[int | None], Any], bool]] = []
        self.tables: dict[type[models.Model], str] = {}
        self.held: dict[type[models.Model], _StagedRows] = {}

    def rows(
        self,
        model: type[models.Model],
        columns: Sequence[str],
        *,
        prefix: Prefix | None = None,
        hold: int = 0,
        **options: Any,
    ) -> RowWriter:
        """A :class:`RowWriter` for ``model``'s table; staged, one whose rows move over
        when :meth:`apply` reaches it (in the order of the steps, so after the deletes
        asked for before it). ``prefix``: which of its rows belong to a prefix (None: the
        table is not part of one). ``hold``: as long as there are no more rows than that,
        they are held in memory and go straight into the table then, rather than
        through a temporary table (:class:`_StagedRows`)."""
        if not self.staged:
            return RowWriter(model, columns, **options)
        staged = _StagedRows(self, model, columns, prefix=prefix, hold=hold, **options)
        self.held[model] = staged
        self.steps.append((staged.move, prefix is not None))
        return staged

    def rows_replacing(
        self,
        replaced: models.QuerySet[Any],
        columns: Sequence[str],
        *,
        key: Sequence[str],
        **options: Any,
    ) -> RowWriter:
        """A :class:`RowWriter` of the rows that replace ``replaced``, each naming by its
        ``key`` columns (a unique key of the table) the row it replaces, if any.

        Straight in: ``replaced`` is deleted now and the rows written. Staged: the rows
        go to a temporary table, and when :meth:`apply` reaches them they are merged in
        place: a row of ``replaced`` whose key is staged is updated where a column
        differs, one whose key is not is deleted, and a staged row whose key is new is
        inserted (every staged key must be one ``replaced`` may hold; each row tried
        takes an id of an ``AUTOINCREMENT`` sequence, which nothing reads).

        A recompute from a dirty date mostly changes the values of rows that stay (a
        game back-dated into a month of a real site changes 93% of the values of GCR's
        snapshots from there, and keeps every key): an update leaves the indexes on the
        keys as they are, where a delete and an insert change each index twice and add
        their pages to the commit (GCR's 4,434 snapshots of such an entry: 10 ms of
        CPU against 80)."""
        if not self.staged:
            replaced.delete()
            return RowWriter(replaced.model, columns, **options)
        model = replaced.model
        staging = self._staging_table(model, columns)
        quote = connection.ops.quote_name
        target = f"main.{quote(model._meta.db_table)}"
        source = f"temp.{quote(staging)}"
        pk = model._meta.pk
        assert pk is not None and pk.column is not None  # a model's table has one
        names = ", ".join(quote(column) for column in columns)
        keys = ", ".join(quote(column) for column in key)
        values = [quote(column) for column in columns if column not in key]
        sets = ", ".join(f"{column} = excluded.{column}" for column in values)
        differs = " OR ".join(f"{column} IS NOT excluded.{column}" for column in values)
        # (``WHERE true``: SQLite's parser needs it between a SELECT and ON CONFLICT.)
        upsert = (
            f"INSERT INTO {target} ({names}) SELECT {names} FROM {source} WHERE true "
            f"ON CONFLICT ({keys}) "
            + (f"DO UPDATE SET {sets} WHERE {differs}" if values else "DO NOTHING")
        )

        def merge(position: int | None) -> None:
            scope, params = replaced.values_list("pk").query.sql_with_params()
            with connection.cursor() as cursor:
                cursor.execute(upsert)
                # Every staged row is now one of ``replaced``: unless there are more of
                # those, none is left to delete (and the delete's comparison of every
                # key is saved).
                cursor.execute(
                    f"SELECT (SELECT count(*) FROM ({scope})) > (SELECT count(*) FROM {source})",
                    params,
                )
                (more,) = cursor.fetchone()
                if more:
                    cursor.execute(
                        f"DELETE FROM {target} WHERE {quote(pk.column)} IN ({scope}) "
                        f"AND ({keys}) NOT IN (SELECT {keys} FROM {source})",
                        params,
                    )

        self.steps.append((merge, False))
        return RowWriter(model, columns, table=staging, **options)

    def _staging_table(self, model: type[models.Model], columns: Sequence[str]) -> str:
        """A new temporary table of ``model``'s ``columns`` for its staged rows."""
        quote = connection.ops.quote_name
        staging = f"staged_{model._meta.db_table}_{len(self.tables)}"
        names = ", ".join(quote(column) for column in columns)
        with connection.cursor() as cursor:
            # A recompute that failed may have left its table: run.py ignores a
            # database error of the discard() in its failure's handler.
            cursor.execute(f"DROP TABLE IF EXISTS temp.{quote(staging)}")
            cursor.execute(
                f"CREATE TEMP TABLE {quote(staging)} AS SELECT {names} "
                f"FROM {quote(model._meta.db_table)} WHERE 0"
            )
        self.tables[model] = staging
        return staging

    def staged_table(self, model: type[models.Model]) -> str | None:
        """The temporary table holding ``model``'s staged rows (those held in memory sent
        there first), if any."""
        held = self.held.get(model)
        if held is not None:
            held.spill()
        return self.tables.get(model)

    def later(self, step: Callable[[], Any], *, in_prefix: bool = False) -> None:
        """Run ``step`` now or, staged, when :meth:`apply` runs (deletes, and writes that
        read what they replace: they must see the database as it is then). ``in_prefix``:
        it runs when only a prefix is written, too (a delete of what the rows replace)."""
        if self.staged:
            self.steps.append((lambda position: step(), in_prefix))
        else:
            step()

    def apply(self, prefix: int | None = None) -> None:
        """Run the steps in order, inside the caller's (write) transaction; with
        ``prefix``, only those of the rows before that position. A step that asks for
        more writes gets them straight away."""
        steps, self.steps = self.steps, []
        self.staged = False
        for step, in_prefix in steps:
            if prefix is None or in_prefix:
                step(prefix)
        self.discard()

    def discard(self) -> None:
        """Drop what is staged (the temporary tables go with the connection anyway).

        SQLite refuses to drop a table ("database table is locked") while any other
        statement of the connection is still running, whatever table it reads (a cursor
        neither read to its end nor closed). A recompute leaves none running
        (tests/ratings/test_staging.py), so a failure here is a bug to see, not to
        hide: the one seen came from the browser tests, whose live server ran two
        requests at once on one shared connection (tests/live_server.py)."""
        self.steps = []
        self.held = {}
        tables, self.tables = list(self.tables.values()), {}
        if tables and connection.connection is not None:
            with connection.cursor() as cursor:
                for table in tables:
                    cursor.execute(f"DROP TABLE IF EXISTS temp.{connection.ops.quote_name(table)}")


@dataclass(frozen=True, slots=True)
class Prefix:
    """The rows of a table that belong to a prefix of a replay ending at a position
    (``run._apply_the_prefix``): those whose ``column`` is below it (``inclusive``: or
    at it)."""

    column: str
    inclusive: bool = False

    def sql(self) -> str:
        """The condition on the position ``%s``."""
        return f"{connection.ops.quote_name(self.column)} {'<=' if self.inclusive else '<'} %s"

    def holds(self, value: int, position: int) -> bool:
        return value <= position if self.inclusive else value < position


class _StagedRows(RowWriter):
    """The staged rows of ``model``'s table (:meth:`Writes.rows`): held in memory while
    there are at most ``hold`` of them, else sent to a temporary table, and moved into
    the table when the writes are applied (:meth:`move`).

    A back-dated entry writes a few hundred history rows and one checkpoint: through a
    temporary table each is written twice, and the table created and dropped (SAGC on
    a site of real tournaments: about 4 ms of its 65). Held, they go in once, in the
    write transaction. A long replay (a full recompute: millions of rows) still sends
    them to the temporary table as they come, and the write lock is held only for
    the database's copy of them."""

    def __init__(
        self,
        writes: Writes,
        model: type[models.Model],
        columns: Sequence[str],
        *,
        prefix: Prefix | None,
        hold: int,
        **options: Any,
    ) -> None:
        super().__init__(model, columns, **options)
        self.writes, self.prefix, self.hold = writes, prefix, hold
        self.staging: str | None = None
        if hold == 0:
            self._stage()

    def _stage(self) -> None:
        """Send the rows to a temporary table from now on."""
        if self.staging is None:
            self.staging = self.writes._staging_table(self.model, self.columns)
            self.write_to(self.staging)

    def send(self) -> None:
        if self.staging is None and len(self.rows) <= self.hold:
            return  # held
        self._stage()
        super().send()

    def spill(self) -> None:
        """Send the rows held to the temporary table (the runner reads it for a prefix)."""
        self._stage()
        super().send()

    def move(self, position: int | None) -> None:
        """Write the rows into the table (with ``position``, those of the prefix)."""
        if self.staging is None:
            if position is not None:
                assert self.prefix is not None  # only a prefix's steps get a position
                at, holds = self.columns.index(self.prefix.column), self.prefix.holds
                self.rows = [row for row in self.rows if holds(row[at], position)]
            self.write_to(self.model._meta.db_table)
            super().send()
            return
        super().send()
        quote = connection.ops.quote_name
        names = ", ".join(quote(column) for column in self.columns)
        sql = (
            f"INSERT INTO main.{quote(self.model._meta.db_table)} ({names}) "
            f"SELECT {names} FROM temp.{quote(self.staging)}"
        )
        params: list[Any] = []
        if position is not None:
            assert self.prefix is not None
            sql += f" WHERE {self.prefix.sql()}"
            params = [position]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)


_current: ContextVar[Writes | None] = ContextVar("recompute_writes", default=None)


def current() -> Writes:
    """The writes of the recompute running here; outside one, writes straight in."""
    return _current.get() or Writes(staged=False)


@contextmanager
def collecting(writes: Writes) -> Iterator[Writes]:
    """Make ``writes`` the :func:`current` ones while the block runs."""
    token = _current.set(writes)
    try:
        yield writes
    finally:
        _current.reset(token)


def staged_here() -> bool:
    """Whether a recompute here stages its writes: on SQLite (see the module's text)."""
    return connection.vendor == "sqlite"


@contextmanager
def read_transaction() -> Iterator[None]:
    """A transaction that reads without taking SQLite's write lock: ``BEGIN DEFERRED``
    whatever the connection's ``transaction_mode``; under WAL its first read fixes the
    snapshot every later read sees. Inside a transaction already (tests), a savepoint
    of it."""
    connection.ensure_connection()
    # ``transaction_mode`` is the SQLite wrapper's own (the stubs' base wrapper has none);
    # elsewhere it is an attribute nothing reads, set and restored harmlessly.
    wrapper: Any = connection
    mode = getattr(wrapper, "transaction_mode", None)
    wrapper.transaction_mode = "DEFERRED"
    try:
        with transaction.atomic():
            wrapper.transaction_mode = mode
            yield
    finally:
        wrapper.transaction_mode = mode
