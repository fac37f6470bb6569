"""Project-wide views: the health check and the logout that says it logged out."""

import time
from typing import TypedDict

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.db import DatabaseError, connection
from django.http import HttpResponseRedirect, JsonResponse
from django.templatetags.static import static
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from kombu.exceptions import OperationalError as BrokerError

from clubrating.celery import app as celery_app
from clubrating.languages import set_language_cookie
from ratings.recompute import liveness


class DatabaseCheck(TypedDict):
    ok: bool
    detail: str


class WorkerCheck(TypedDict):
    alive: bool
    name: str | None
    seconds_since_heartbeat: float | None


class TasksCheck(TypedDict, total=False):
    ok: bool
    mode: str
    detail: str
    worker: WorkerCheck


def check_database() -> DatabaseCheck:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        return {"ok": False, "detail": f"{type(exc).__name__}: {exc}"}
    return {"ok": True, "detail": f"{connection.vendor} answered"}


def check_worker() -> WorkerCheck:
    """Whether a Celery worker has written its heartbeat lately (``ratings.recompute.liveness``)."""
    beat = liveness.last_worker_heartbeat()
    if beat is None:
        return {"alive": False, "name": None, "seconds_since_heartbeat": None}
    return {
        "alive": liveness.worker_alive(beat),
        "name": beat["name"],
        "seconds_since_heartbeat": round(time.time() - beat["at"], 1),
    }


def check_tasks() -> TasksCheck:
    # Django settings rather than celery_app.conf: Celery reads its configuration
    # once, and the settings are what this deployment was started with.
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"ok": True, "mode": "in-process", "detail": "no broker: tasks run in-process"}
    try:
        with celery_app.connection_for_write(
            url=settings.CELERY_BROKER_URL, connect_timeout=2
        ) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, timeout=2)
    except (BrokerError, OSError) as exc:
        return {"ok": False, "mode": "celery", "detail": f"broker unreachable: {exc}"}
    try:
        worker = check_worker()
    except Exception as exc:  # the cache's errors vary by backend
        return {
            "ok": False,
            "mode": "celery",
            "detail": f"broker answered; the workers' heartbeat cannot be read: {exc}",
        }
    if not worker["alive"]:
        since = worker["seconds_since_heartbeat"]
        silent = "no worker has ever" if since is None else f"no worker has for {since:.0f} s"
        return {
            "ok": False,
            "mode": "celery",
            "detail": f"broker answered, but {silent} sent a heartbeat: nothing is recomputed",
            "worker": worker,
        }
    return {
        "ok": True,
        "mode": "celery",
        "detail": "broker answered; a worker is alive",
        "worker": worker,
    }


@require_safe
@never_cache
def health(request):
    database = check_database()
    tasks = check_tasks()
    ok = database["ok"] and tasks["ok"]
    return JsonResponse(
        {"status": "ok" if ok else "degraded", "database": database, "tasks": tasks},
        status=200 if ok else 503,
    )


class LogoutView(auth_views.LogoutView):
    def post(self, request, *args, **kwargs):
        response = super().post(request, *args, **kwargs)
        messages.info(request, _("You are logged out."))
        # The session (and the account's language in it) is gone: the browser keeps the
        # language the person was reading in.
        set_language_cookie(response, get_language())
        return response


@require_safe
def favicon(request):
    """Browsers ask for /favicon.ico whatever a page links (a PDF, the JSON API, an old
    bookmark): the stone of static/. Not a permanent redirect, which browsers keep
    forever: the file's name changes with its content once collected."""
    return HttpResponseRedirect(static("favicon.ico"))
