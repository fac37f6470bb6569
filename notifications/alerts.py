"""The committee's alerts: a recompute whose process stopped answering (the ratings'
sweep finds it), and a worker gone silent (celery beat's process watches for that, as
the worker cannot report its own silence)."""

from __future__ import annotations

import logging
import threading
from datetime import datetime

from django.conf import settings
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from notifications import senders, services
from ratings.recompute import liveness

logger = logging.getLogger(__name__)


def recompute_stalled(algorithm: str, running_since: datetime, runner: str) -> int:
    """Tell the committee, once per stalled run, that the recompute of ``algorithm``
    started at ``running_since`` on ``runner`` stopped answering."""
    return senders.committee_alert_send(
        key=f"stalled:{algorithm}:{running_since.isoformat()}",
        problem="stalled",
        # Lazy: written in each recipient's language.
        detail=format_lazy(
            _("{algorithm}: started {started} on {runner}."),
            algorithm=algorithm,
            started=f"{timezone.localtime(running_since):%Y-%m-%d %H:%M}",
            runner=runner or _("an unknown runner"),
        ),
    )


def worker_silence_check() -> int:
    """Tell the committee, once per silence, that no worker has sent its heartbeat for
    ``liveness.STALE_AFTER_SECONDS``, and send that mail from here: no worker is there
    to. A worker never seen (no heartbeat at all) is not reported. The mails sent."""
    beat = liveness.last_worker_heartbeat()
    if beat is None or liveness.worker_alive(beat):
        return 0
    since = datetime.fromtimestamp(beat["at"], tz=timezone.get_current_timezone())
    written = senders.committee_alert_send(
        key=f"worker:{beat['name']}:{beat['at']}",
        problem="worker",
        detail=format_lazy(
            _("Last heartbeat: {at} from {name}."),
            at=f"{since:%Y-%m-%d %H:%M:%S}",
            name=beat["name"],
        ),
    )
    sent = 0
    if written:
        for mail_id in services.unsent_mail_ids(0):
            try:
                sent += services.mail_send(mail_id)
            except Exception:
                logger.exception("could not send mail %s", mail_id)
    return sent


class WorkerWatch:
    """Runs :func:`worker_silence_check` every ``RATINGS_SWEEP_SECONDS`` in a thread of
    celery beat's process (``clubrating.celery``)."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="worker-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(settings.RATINGS_SWEEP_SECONDS):
            try:
                worker_silence_check()
            except Exception:
                logger.exception("could not check the worker's heartbeat")
