"""How docker-compose and the image run the site (issue 25, items 12, 13 and 16): the
web port reaches only the proxy; gunicorn recycles its workers."""

import re
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
