"""How docker-compose and the image run the site (issue 25, items 12, 13 and 16): the
web port reaches only the proxy; gunicorn recycles its workers."""

import re
import runpy
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)


def published_ports() -> list[str]:
    """Every ``- "host:container"`` entry under a ``ports:`` key of docker-compose.yml."""
    lines = (ROOT / "docker-compose.yml").read_text().splitlines()
    found = []
    for index, line in enumerate(lines):
        if line.strip() == "ports:":
            for entry in lines[index + 1 :]:
                match = re.match(r'\s+- "(.+)"$', entry)
                if not match:
                    break
                found.append(match.group(1))
    return found


def test_docker_compose_publishes_the_web_port_on_the_loopback_only():
    # TRUSTED_PROXY_COUNT=1: a visitor reaching gunicorn directly would choose their
    # address in X-Forwarded-For, escaping the log-in lockout.
    assert published_ports() == ["${WEB_BIND:-127.0.0.1}:8000:8000"]


def gunicorn_settings() -> dict:
    return runpy.run_path(str(ROOT / "gunicorn.conf.py"))


def test_gunicorn_replaces_each_worker_after_some_requests_at_staggered_counts():
    config = gunicorn_settings()

    assert config["max_requests"] > 0
    assert 0 < config["max_requests_jitter"] < config["max_requests"]


def test_gunicorn_marks_the_web_process_and_outlasts_its_database_timeouts():
    config = gunicorn_settings()

    assert "CLUBRATING_WEB_PROCESS=1" in config["raw_env"]
    # A statement cancelled by the database fails its request before gunicorn kills
    # the worker for it.
    assert config["timeout"] > settings.WEB_STATEMENT_TIMEOUT_SECONDS


def test_docker_compose_and_the_image_start_gunicorn_with_its_settings():
    compose = (ROOT / "docker-compose.yml").read_text()
    image = (ROOT / "Dockerfile").read_text()

    assert "exec gunicorn --config gunicorn.conf.py clubrating.wsgi" in compose
    assert '["gunicorn", "--config", "gunicorn.conf.py", "clubrating.wsgi"]' in image
    assert "--workers" not in compose + image  # one place says how gunicorn runs
