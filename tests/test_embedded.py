"""The embedded set-up of ``make run``, for real: the development server, a Celery worker
and beat on the filesystem broker, SQLite, all in a temporary directory. A volunteer
saves a sheet through the form; the worker, not the request, rates it; the log page
shows it; Ctrl-C stops every process.

The only test that runs tasks outside the test process (every other one runs them
in-process, tests/conftest.py).
"""

import http.cookiejar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.reliability.helpers import embedded_environment

ROOT = Path(__file__).resolve().parents[1]
SETUP = """
import django
django.setup()
from tests import factories
factories.volunteer_with_password("vera", "a long volunteer password")
factories.player("alice", "5k")
factories.player("bob", "8k")
"""
STARTUP_SECONDS = 90
RECOMPUTE_SECONDS = 90


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Browser:
    """Just enough of a browser: cookies, and the CSRF token posted back with forms."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def get(self, path: str) -> tuple[int, str]:
        try:
            with self.opener.open(self.base + path, timeout=30) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def post(self, path: str, data: dict[str, str]) -> tuple[int, str, str]:
        token = next(cookie.value for cookie in self.cookies if cookie.name == "csrftoken")
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": token}).encode()
        request = urllib.request.Request(
            self.base + path, data=body, headers={"Referer": self.base + path}
        )
        with self.opener.open(request, timeout=30) as response:
            return response.status, response.url, response.read().decode()


def wait_for(condition, seconds: float, what: str, process: subprocess.Popen):
    deadline = time.monotonic() + seconds
    while True:
        assert process.poll() is None, f"the set-up stopped (exit {process.returncode})"
        result = condition()
        if result:
            return result
        assert time.monotonic() < deadline, f"{what} within {seconds} s"
        time.sleep(0.5)


def sheet_form(date: str) -> dict[str, str]:
    row = {
        "date": date,
        "white": "alice",
        "black": "bob",
        "handicap": "0",
        "komi": "6.5",
        "winner": "W",
        "status": "normal",
        "comment": "embedded",
        "tournament": "",
        "round": "0",
        "board_size": "19",
        "time_minutes": "",
    }
    return {
        "form-TOTAL_FORMS": "1",
        "form-INITIAL_FORMS": "0",
        "form-MIN_NUM_FORMS": "0",
        "form-MAX_NUM_FORMS": "200",
        "sheet-received_on": date,
        "sheet-note": "",
        **{f"form-0-{name}": value for name, value in row.items()},
    }


def test_make_run_saves_at_once_and_its_worker_brings_the_log_page_up_to_date(tmp_path):
    # Without a broker: the supervisor chooses the embedded one, as `make run` does.
    env = embedded_environment(tmp_path, RATINGS_ALGORITHMS="sagc,anchor")
    del env["CELERY_BROKER_URL"]
    for command in (["manage.py", "migrate", "--noinput", "-v0"], ["-c", SETUP]):
        subprocess.run([sys.executable, *command], cwd=ROOT, env=env, check=True, timeout=300)
    port = free_port()
    output = (tmp_path / "devserver.log").open("w")
    supervisor = subprocess.Popen(
        [sys.executable, "-m", "clubrating.devserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdout=output,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    browser = Browser(f"http://127.0.0.1:{port}")
    try:

        def healthy():
            try:
                status, body = browser.get("/health/")
            except OSError:
                return None
            return json.loads(body) if status == 200 else None

        health = wait_for(healthy, STARTUP_SECONDS, "a live worker on /health/", supervisor)
        assert health["tasks"]["mode"] == "celery"
        assert health["tasks"]["worker"]["alive"] is True

        browser.get("/accounts/login/")
        browser.post(
            "/accounts/login/", {"username": "vera", "password": "a long volunteer password"}
        )
        browser.get("/sheets/new/")
        started = time.monotonic()
        status, url, _page = browser.post("/sheets/new/", sheet_form("2024-03-01"))
        save_seconds = time.monotonic() - started
        assert status == 200 and re.search(r"/sheets/\d+/$", url), url
        print(f"embedded save: {save_seconds * 1000:.0f} ms")

        def rated():
            _status, page = browser.get("/players/alice/")
            return 'id="no-games"' not in page and page

        log_page = wait_for(
            rated, RECOMPUTE_SECONDS, "the log page rated by the worker", supervisor
        )
        assert re.search(r"<td[^>]*>\s*2024-03-01", log_page), "the game's row"
        assert "Bob" in log_page
    finally:
        supervisor.send_signal(signal.SIGINT)  # what Ctrl-C sends
        try:
            code = supervisor.wait(timeout=60)
        finally:
            output.close()
            log = (tmp_path / "devserver.log").read_text()
    assert code == 0, log
    assert "database is locked" not in log
    assert f"clubrating: ready on http://127.0.0.1:{port}/" in log
    assert "[tasks]" not in log  # the worker's banner is left out
    started_pids = re.search(r"running web (\d+), worker (\d+), beat (\d+)", log)
    assert started_pids, log
    for pid in started_pids.groups():  # each with its process group: nothing is left
        with pytest.raises(ProcessLookupError):
            os.killpg(int(pid), 0)
