"""The browser tests' live server on SQLite (tests/live_server.py): its request threads
always share the test's in-memory connection, and it answers one request at a time."""

import threading
import time
import urllib.request

import pytest
from django.conf import settings
from django.db import connections

from players.selectors import players as players_selectors
from tests import factories

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connections["default"].vendor != "sqlite",
        reason="the connection is shared with the live server on SQLite only",
    ),
]


def test_the_live_server_runs_on_the_tests_own_connection(live_server):
    # Whichever test asks for the server first: this one asks for nothing else.
    assert live_server.thread.connections_override == {"default": connections["default"]}


def test_the_live_server_answers_one_request_at_a_time(
    live_server, role_groups, client, monkeypatch
):
    client.force_login(factories.volunteer())
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    counting = threading.Lock()
    running = most = 0

    def slow_lookup(text: str) -> list[dict[str, str]]:
        nonlocal running, most
        with counting:
            running += 1
            most = max(most, running)
        time.sleep(0.2)  # the player lookup reading while a sheet is saved
        with counting:
            running -= 1
        return []

    monkeypatch.setattr(players_selectors, "player_lookup", slow_lookup)
    statuses: list[int] = []

    def look_up(text: str) -> None:
        request = urllib.request.Request(
            f"{live_server.url}/players/lookup/?q={text}",
            headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={session}"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            statuses.append(response.status)

    lookups = [threading.Thread(target=look_up, args=(text,)) for text in "abcd"]
    for lookup in lookups:
        lookup.start()
    for lookup in lookups:
        lookup.join()

    assert statuses == [200] * 4
    assert most == 1
