"""Writing many rows of one table: COPY on PostgreSQL, one executemany elsewhere.

A recompute writes a history row per player per game, two million rows for a million
games. ``bulk_create`` spends most of that time in Python, preparing every value of
every object (and on PostgreSQL quoting the arrays of its ``UNNEST`` insert); here
the caller hands over plain tuples already in the columns' database form, and they go
to the database as they are, in batches, inside the caller's transaction.

On PostgreSQL a batch can also be sent from a background thread: the server then
takes in one batch (checking, indexing) while the caller computes the next one, on
another core.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from typing import Any

from django.db import connection, models

BATCH = 20_000


def _adapter(field: models.Field) -> Callable[[Any], Any] | None:
    if isinstance(field, models.DateTimeField):
        return connection.ops.adapt_datetimefield_value
    if isinstance(field, models.DateField):
        return connection.ops.adapt_datefield_value
    return None


class RowWriter:
    """Rows of ``model``'s table, each a tuple of ``columns`` (database column names) in
    database form: ranks as their integer codes, JSON as text, foreign keys as ids.

    :meth:`add` buffers a row and sends the buffer once it holds ``batch`` rows;
    :meth:`send` sends what is buffered now. With ``background`` (PostgreSQL only) a
    send returns at once and the rows go in from a thread while the caller goes on;
    psycopg serializes the use of a connection, so a query the caller makes meanwhile
    waits for the batch. Use the writer as a context manager (on leaving it everything
    is written), or call :meth:`flush` at the end.
    """

    def __init__(
        self,
        model: type[models.Model],
        columns: Sequence[str],
        *,
        batch: int = BATCH,
        background: bool = False,
        table: str | None = None,
        adapted: bool = False,
    ) -> None:
        self.model, self.columns = model, tuple(columns)
        # ``table``: another table with ``model``'s columns (a recompute's staging table).
        # ``adapted``: the rows' dates and times are in the connection's form already
        # (``connection.ops.adapt_datefield_value``): not adapted again, row by row.
        self.write_to(table or model._meta.db_table)
        self.batch = batch
        self.rows: list[tuple] = []
        self.written = 0
        self.copy = connection.vendor == "postgresql"
        self.background = background and self.copy
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        by_column = {field.column: field for field in model._meta.concrete_fields}
        # Elsewhere dates and times are stored as Django stores them (SQLite: text);
        # sqlite3's own adapters for them are deprecated.
        self.adapters = [
            (index, adapter)
            for index, column in enumerate(columns)
            if not adapted and (adapter := _adapter(by_column[column])) is not None
        ]

    def write_to(self, table: str) -> None:
        """Send the rows from now on to ``table``, which has the writer's columns."""
        quoted = connection.ops.quote_name(table)
        names = ", ".join(connection.ops.quote_name(column) for column in self.columns)
        self.copy_sql = f"COPY {quoted} ({names}) FROM STDIN"
        placeholders = ", ".join(["%s"] * len(self.columns))
        self.insert_sql = f"INSERT INTO {quoted} ({names}) VALUES ({placeholders})"

    def add(self, row: tuple) -> None:
        self.rows.append(row)
        if len(self.rows) >= self.batch:
            self.send()

    def extend(self, rows: Iterable[tuple]) -> None:
        """:meth:`add` each of ``rows``, without a call per row."""
        self.rows.extend(rows)
        if len(self.rows) >= self.batch:
            self.send()

    def send(self) -> None:
        """Write the buffered rows (from a thread with ``background``)."""
        rows, self.rows = self.rows, []
        if not rows:
            return
        self.wait()
        if self.copy:
            connection.ensure_connection()
            raw = connection.connection
            if self.background:
                self._thread = threading.Thread(
                    target=self._copy_in_background, args=(raw, rows), daemon=True
                )
                self._thread.start()
            else:
                self._copy(raw, rows)
        else:
            if self.adapters:
                rows = [self._adapted(row) for row in rows]
            with connection.cursor() as cursor:
                cursor.executemany(self.insert_sql, rows)
        self.written += len(rows)

    def wait(self) -> None:
        """Wait until a background send is done; raise its error, if any."""
        if self._thread is None:
            return
        self._thread.join()
        self._thread = None
        error, self._error = self._error, None
        if error is not None:
            raise error

    def flush(self) -> None:
        self.send()
        self.wait()

    def _copy(self, raw, rows: list[tuple]) -> None:
        with raw.cursor() as cursor, cursor.copy(self.copy_sql) as copy:
            write_row = copy.write_row
            for row in rows:
                write_row(row)

    def _copy_in_background(self, raw, rows: list[tuple]) -> None:
        try:
            self._copy(raw, rows)
        except BaseException as error:  # handed to the caller's thread by wait()
            self._error = error

    def _adapted(self, row: tuple) -> tuple:
        values = list(row)
        for index, adapter in self.adapters:
            if values[index] is not None:
                values[index] = adapter(values[index])
        return tuple(values)

    def __enter__(self) -> RowWriter:
        return self

    def __exit__(self, kind, error, traceback) -> None:
        if kind is None:
            self.flush()
            return
        # Leave the connection free for the rollback. A failed batch is the cause of
        # whatever the caller's next query ran into (an aborted transaction).
        try:
            self.wait()
        except Exception as batch_error:
            raise batch_error from error


def update_rows(
    model: type[models.Model], columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    """Set ``columns`` (database column names) of many rows of ``model``'s table, each
    row ``(value, ..., primary key)`` with the values in database form (dates may be
    ``date``), in one ``executemany``. ``bulk_update`` builds a CASE expression per
    column and resolves it in Python, which for a few thousand rows costs seconds."""
    if not rows:
        return
    quote = connection.ops.quote_name
    sets = ", ".join(f"{quote(column)} = %s" for column in columns)
    pk = model._meta.pk
    # A model bound to its table has a primary key with a column (the stubs allow None
    # for a field not yet attached to a model).
    assert pk is not None and pk.column is not None
    key = quote(pk.column)
    sql = f"UPDATE {quote(model._meta.db_table)} SET {sets} WHERE {key} = %s"
    adapt = connection.ops.adapt_datefield_value
    with connection.cursor() as cursor:
        cursor.executemany(
            sql, [tuple(adapt(v) if isinstance(v, date) else v for v in row) for row in rows]
        )
