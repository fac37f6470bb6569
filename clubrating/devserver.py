"""The embedded set-up of ``make run``: Django's development server, a Celery worker and
celery beat, on a broker that needs no server, stopped together.

    python -m clubrating.devserver [runserver arguments, default 127.0.0.1:8000]

Without ``CELERY_BROKER_URL`` (or ``REDIS_URL``) the three processes use kombu's
filesystem transport, its messages files in ``var/broker/`` (settings.py), so a save
returns at once and the recompute runs in the worker, the same task code as in
production. Ctrl-C (SIGINT) or SIGTERM stops all three; so does any one of them
exiting. Each runs in a process group of its own, which is what is signalled: the
development server's autoreloader and the worker's pool go with their parent.

Celery's banners are left out (``celery --quiet``). Once ``/health/`` answers 200 (the
server up and the worker beating), the supervisor prints the site's address and the
demo accounts that ``load_demo`` saved in the var folder and that still log in with
that password, so they are the last lines a newcomer reads.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

# How long the processes get to stop on their own before they are killed: the worker
# finishes (or, past this, abandons) the recompute it is running; an abandoned one
# rolls back and runs again at the next start.
STOP_SECONDS = 10
EMBEDDED_BROKER = "filesystem://localhost/"
DEFAULT_ADDRESS = "127.0.0.1:8000"
# The demo accounts' first passwords, written by load_demo (mode 0600) in the var folder.
DEMO_ACCOUNTS_FILE = "demo-accounts.json"
# How long after the start the supervisor keeps asking whether the site is ready.
READY_SECONDS = 120


def commands(runserver_arguments: Sequence[str]) -> dict[str, list[str]]:
    """The command line of each process, by name."""
    python = sys.executable
    level = os.environ.get("LOG_LEVEL", "INFO").strip() or "INFO"
    # --quiet: without the banners, which would push the ready message out of sight.
    celery = [python, "-m", "celery", "--quiet", "-A", "clubrating"]
    return {
        "web": [python, "manage.py", "runserver", *(runserver_arguments or [DEFAULT_ADDRESS])],
        # One process: SQLite has one writer at a time, so a second would only wait.
        # Mingle and gossip talk to other workers, of which there are none.
        "worker": [
            *celery,
            *("worker", "--loglevel", level, "--concurrency", "1"),
            *("--without-mingle", "--without-gossip"),
        ],
        "beat": [*celery, "beat", "--loglevel", level],
    }


def environment(runserver_arguments: Sequence[str] = ()) -> dict[str, str]:
    """This process's environment, with the embedded broker unless one is configured,
    and beat's schedule file in the var folder (settings.VAR_DIR). Unless ``SITE_URL``
    is set, the links in mail lead to the address the server listens on: with
    ``make run PORT=8001`` an invitation's link to port 8000 would open another site or
    none."""
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "clubrating.settings")
    if not env.get("CELERY_BROKER_URL", "").strip() and not env.get("REDIS_URL", "").strip():
        env["CELERY_BROKER_URL"] = EMBEDDED_BROKER
    if not env.get("SITE_URL", "").strip():
        env["SITE_URL"] = site_url(runserver_arguments).rstrip("/")
    return env


def mail_destination(settings) -> str:
    """Where the site's mail goes, for the start-up message."""
    if settings.EMAIL_BACKEND.endswith("filebased.EmailBackend"):
        return f"mail is written to files in {settings.EMAIL_FILE_PATH}/ (EMAIL_URL sends it)"
    return f"mail is sent through {settings.EMAIL_HOST}:{settings.EMAIL_PORT}"


def stop(processes: dict[str, subprocess.Popen]) -> None:
    """SIGTERM each process, then SIGKILL the process group of any still running after
    ``STOP_SECONDS``. The worker is signalled alone (it stops its pool itself, after
    the task at hand); the development server with its group (its autoreloader's
    parent would die and leave the server itself running)."""
    for name, process in processes.items():
        with contextlib.suppress(ProcessLookupError):  # already gone
            if name == "web":
                os.killpg(process.pid, signal.SIGTERM)
            else:
                process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    for process in processes.values():
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        # Whatever the group still holds (a pool process whose parent was killed).
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def site_url(runserver_arguments: Sequence[str]) -> str:
    """The address the development server listens on, as runserver reads its argument
    (``8001``, ``127.0.0.1:8001``, ``0.0.0.0:8001``), for a browser on this machine."""
    given = next((a for a in runserver_arguments if not a.startswith("-")), DEFAULT_ADDRESS)
    host, _, port = given.rpartition(":")
    if host in ("", "0.0.0.0", "0", "[::]"):
        host = "127.0.0.1"
    return f"http://{host}:{port}/"


def ready(url: str) -> bool:
    """Whether /health/ answers 200: the server is up and tasks can run."""
    try:
        with urllib.request.urlopen(url + "health/", timeout=5) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


def demo_accounts(var_dir: Path) -> dict[str, str]:
    """The demo accounts load_demo saved whose password still logs in (one changed since
    is not shown)."""
    try:
        saved = json.loads((var_dir / DEMO_ACCOUNTS_FILE).read_text())
    except (OSError, ValueError):
        return {}
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    accounts = get_user_model().objects.in_bulk(list(saved), field_name="username")
    return {
        username: password
        for username, password in saved.items()
        if username in accounts and accounts[username].check_password(password)
    }


def ready_message(url: str, accounts: dict[str, str]) -> str:
    lines = ["", f"clubrating: ready on {url}"]
    lines += [f"  log in as {username} / {password}" for username, password in accounts.items()]
    lines.append("Ctrl-C stops the server, the worker and beat.")
    return "\n".join(lines)


class _Stop(Exception):
    """SIGINT or SIGTERM reached the supervisor."""


def _raise_stop(signum, frame) -> None:
    raise _Stop(signal.Signals(signum).name)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    env = environment(arguments)
    from django.conf import settings  # after DJANGO_SETTINGS_MODULE is known

    os.environ.update(env)
    schedule = settings.VAR_DIR / "celerybeat-schedule"
    settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
    planned = commands(arguments)
    planned["beat"] += ["--schedule", str(schedule)]
    signal.signal(signal.SIGINT, _raise_stop)
    signal.signal(signal.SIGTERM, _raise_stop)
    processes: dict[str, subprocess.Popen] = {}
    status = 0
    url = site_url(arguments)
    waiting_until = time.monotonic() + READY_SECONDS
    try:
        for name, command in planned.items():
            processes[name] = subprocess.Popen(command, env=env, start_new_session=True)
        pids = ", ".join(f"{name} {process.pid}" for name, process in processes.items())
        print(
            f"clubrating: running {pids} (broker {env['CELERY_BROKER_URL']}); "
            "Ctrl-C stops them all.",
            flush=True,
        )
        print(f"clubrating: {mail_destination(settings)}", flush=True)
        while True:
            for name, process in processes.items():
                code = process.poll()
                if code is not None:
                    print(
                        f"clubrating: {name} exited with {code}; stopping the others.", flush=True
                    )
                    status = code or 1
                    raise _Stop(name)
            if waiting_until and ready(url):
                waiting_until = 0
                print(ready_message(url, demo_accounts(settings.VAR_DIR)), flush=True)
            elif waiting_until and time.monotonic() > waiting_until:
                waiting_until = 0
                print(f"clubrating: {url}health/ still does not answer 200.", flush=True)
            time.sleep(0.5)
    except _Stop:
        pass
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stop(processes)
    return status


if __name__ == "__main__":
    sys.exit(main())
