"""The live server of the browser tests, one request at a time on a shared connection.

On SQLite the test database is in memory, and pytest-django hands the test's own
connection to the live server (``connections_override``), so every request thread
runs on that one connection. Two requests at once would interleave their statements
and share its transaction; and SQLite refuses to drop a table while any other
statement of the connection is still running: a sheet saved while the page's player
lookup read the players made the save's recompute fail to drop its staged table
("database table is locked", ratings/recompute/staging.py), and the save answered a
500. So while the connection is shared the server answers one request at a time, the
whole response produced before the next request starts.

pytest-django shares the connection only if the test database exists when the live
server starts (otherwise each request thread opens its own connection to the shared
in-memory cache, whose table locks refuse a read during another request's write:
"database table is locked: players_player"); the ``live_server`` fixture of
tests/conftest.py sets the database up first, so that it is always shared.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from django.core.servers.basehttp import ThreadedWSGIServer

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def one_at_a_time(application: WsgiApp) -> WsgiApp:
    """``application`` answering one request at a time: each response is read whole
    (and closed) before the next request starts."""
    lock = threading.Lock()

    def serialised(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        with lock:
            response = application(environ, start_response)
            try:
                return list(response)
            finally:
                close = getattr(response, "close", None)
                if close is not None:
                    close()

    return serialised


class OneRequestAtATimeServer(ThreadedWSGIServer):
    """Django's threaded server, serialised while its threads share the test's
    connection (``connections_override``); threaded as usual otherwise (PostgreSQL)."""

    def set_app(self, application: WsgiApp) -> None:
        if self.connections_override:
            application = one_at_a_time(application)
        super().set_app(application)
