import time

import pytest
from django.core.cache import cache
from django.db import DatabaseError, connection

from clubrating import views
from ratings.recompute import liveness

pytestmark = pytest.mark.django_db


def test_it_is_ok_in_the_configured_set_up(client, settings):
    if not settings.CELERY_TASK_ALWAYS_EAGER:  # the services leg: as if a worker ran
        liveness.worker_beat("celery@services-leg")
    response = client.get("/health/")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"] == {"ok": True, "detail": f"{connection.vendor} answered"}
    assert body["tasks"]["ok"] is True
    # The default (no broker) is in-process; the services leg of .ci/run has a broker.
    expected_mode = "in-process" if settings.CELERY_TASK_ALWAYS_EAGER else "celery"
    assert body["tasks"]["mode"] == expected_mode


def test_it_calls_in_process_tasks_healthy(client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True

    body = client.get("/health/").json()

    assert body["status"] == "ok"
    assert body["tasks"] == {
        "ok": True,
        "mode": "in-process",
        "detail": "no broker: tasks run in-process",
    }


def test_it_is_degraded_when_the_database_check_fails(client, monkeypatch):
    monkeypatch.setattr(
        views, "check_database", lambda: {"ok": False, "detail": "OperationalError: gone"}
    )

    response = client.get("/health/")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded"
    assert body["database"] == {"ok": False, "detail": "OperationalError: gone"}
    assert body["tasks"]["ok"] is True


def test_it_is_degraded_when_the_broker_is_unreachable(client, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    settings.CELERY_TASK_ALWAYS_EAGER = False

    response = client.get("/health/")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded"
    assert body["database"]["ok"] is True
    assert body["tasks"]["ok"] is False
    assert body["tasks"]["mode"] == "celery"
    assert body["tasks"]["detail"].startswith("broker unreachable:")
    assert "127.0.0.1:1" in body["tasks"]["detail"]


def test_check_database_reports_the_error(monkeypatch):
    def cursor():
        raise DatabaseError("server closed the connection")

    monkeypatch.setattr(connection, "cursor", cursor)

    assert views.check_database() == {
        "ok": False,
        "detail": "DatabaseError: server closed the connection",
    }


def test_it_is_never_cached(client):
    response = client.get("/health/")

    assert "no-cache" in response["Cache-Control"]


def test_it_refuses_post(client):
    assert client.post("/health/").status_code == 405


@pytest.fixture
def celery_mode(settings):
    """A broker that answers (kombu's in-memory transport) and no in-process tasks."""
    settings.CELERY_BROKER_URL = "memory://"
    settings.CELERY_TASK_ALWAYS_EAGER = False
    cache.delete("worker-heartbeat")
    yield
    cache.delete("worker-heartbeat")


def test_it_is_degraded_when_no_worker_has_ever_sent_a_heartbeat(client, celery_mode):
    response = client.get("/health/")

    assert response.status_code == 503
    tasks = response.json()["tasks"]
    assert tasks["ok"] is False
    assert tasks["detail"] == (
        "broker answered, but no worker has ever sent a heartbeat: nothing is recomputed"
    )
    assert tasks["worker"] == {"alive": False, "name": None, "seconds_since_heartbeat": None}


def test_it_is_ok_while_a_worker_beats(client, celery_mode):
    beat_at = time.time()
    liveness.worker_beat("celery@club-laptop")

    response = client.get("/health/")

    assert response.status_code == 200
    tasks = response.json()["tasks"]
    assert tasks["detail"] == "broker answered; a worker is alive"
    assert tasks["worker"]["alive"] is True
    assert tasks["worker"]["name"] == "celery@club-laptop"
    # at most the time the request took (seconds on a loaded machine), rounded to 0.1 s
    assert 0 <= tasks["worker"]["seconds_since_heartbeat"] <= time.time() - beat_at + 0.05


def test_it_is_degraded_when_the_worker_stopped_beating(client, celery_mode, monkeypatch):
    liveness.worker_beat("celery@club-laptop")
    later = time.time() + liveness.STALE_AFTER_SECONDS + 30
    monkeypatch.setattr(time, "time", lambda: later)

    response = client.get("/health/")

    assert response.status_code == 503
    tasks = response.json()["tasks"]
    assert tasks["worker"]["alive"] is False
    assert tasks["detail"].startswith("broker answered, but no worker has for 9")


def test_a_worker_that_stops_cleanly_clears_its_heartbeat(client, celery_mode):
    liveness.worker_beat("celery@club-laptop")
    liveness.worker_stopped("celery@club-laptop")

    assert client.get("/health/").status_code == 503
