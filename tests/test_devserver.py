"""`make run`'s start: the port can be chosen, Celery's banners are left out, and once
the site answers the demo accounts are printed again, last (clubrating/devserver.py)."""

import json
import subprocess
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from clubrating.devserver import (
    DEMO_ACCOUNTS_FILE,
    commands,
    demo_accounts,
    environment,
    ready_message,
    site_url,
)

ROOT = Path(__file__).resolve().parents[1]


def test_make_run_takes_the_port_from_port():
    dry_run = subprocess.run(
        ["make", "-n", "run", "PORT=8001"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "-m clubrating.devserver 127.0.0.1:8001" in dry_run.stdout


@pytest.mark.parametrize(
    ("arguments", "url"),
    [
        ([], "http://127.0.0.1:8000/"),
        (["127.0.0.1:8001"], "http://127.0.0.1:8001/"),
        (["8002", "--noreload"], "http://127.0.0.1:8002/"),
        (["0.0.0.0:8003"], "http://127.0.0.1:8003/"),
    ],
)
def test_the_ready_line_names_the_address_the_server_listens_on(arguments, url):
    assert site_url(arguments) == url


def test_the_links_in_mail_lead_to_the_port_make_run_was_given(monkeypatch):
    monkeypatch.delenv("SITE_URL", raising=False)
    assert environment(["127.0.0.1:8011"])["SITE_URL"] == "http://127.0.0.1:8011"
    assert environment([])["SITE_URL"] == "http://127.0.0.1:8000"
    # An empty variable counts as unset; a configured address is kept.
    monkeypatch.setenv("SITE_URL", "")
    assert environment(["8012"])["SITE_URL"] == "http://127.0.0.1:8012"
    monkeypatch.setenv("SITE_URL", "https://go.example.org")
    assert environment(["8012"])["SITE_URL"] == "https://go.example.org"


def test_the_worker_and_beat_start_without_their_banners():
    planned = commands([])
    assert planned["worker"][3] == "--quiet" and planned["beat"][3] == "--quiet"


@pytest.mark.django_db
def test_the_demo_accounts_are_saved_for_this_user_only_and_shown_while_they_log_in(
    settings, tmp_path
):
    settings.VAR_DIR = tmp_path
    call_command("load_demo")
    saved = tmp_path / DEMO_ACCOUNTS_FILE
    assert saved.stat().st_mode & 0o777 == 0o600
    passwords = json.loads(saved.read_text())
    assert sorted(passwords) == [
        "capetown-committee",
        "capetown-volunteer",
        "committee",
        "stellenbosch-committee",
        "stellenbosch-volunteer",
    ]
    assert demo_accounts(tmp_path) == passwords

    volunteer = get_user_model().objects.get(username="capetown-volunteer")
    volunteer.set_password("a password of their own now")
    volunteer.save()

    still = {name: word for name, word in passwords.items() if name != "capetown-volunteer"}
    assert demo_accounts(tmp_path) == still
    message = ready_message("http://127.0.0.1:8000/", demo_accounts(tmp_path))
    assert message.splitlines()[1:3] == [
        "clubrating: ready on http://127.0.0.1:8000/",
        f"  log in as committee / {passwords['committee']}",
    ]


def test_without_the_demo_no_account_is_shown(tmp_path):
    assert demo_accounts(tmp_path) == {}
