"""The Celery app. Its settings are the ``CELERY_*`` names in clubrating/settings.py."""

import os

from celery import Celery, bootsteps, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubrating.settings")

app = Celery("clubrating")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


class Heartbeat(bootsteps.StartStopStep):
    """The worker says it is alive every ``liveness.HEARTBEAT_SECONDS`` (``/health/`` and
    the committee's recompute page read it). It beats from the worker's own timer, in
    its main process, so a long recompute in the pool does not silence it."""

    requires = {"celery.worker.components:Timer"}

    def __init__(self, worker, **kwargs):
        super().__init__(worker, **kwargs)
        self.timer_entry = None

    def start(self, worker):
        from ratings.recompute import liveness

        liveness.worker_beat(worker.hostname)
        self.timer_entry = worker.timer.call_repeatedly(
            liveness.HEARTBEAT_SECONDS, liveness.worker_beat, (worker.hostname,), priority=10
        )

    def stop(self, worker):
        from ratings.recompute import liveness

        if self.timer_entry is not None:
            self.timer_entry.cancel()
            self.timer_entry = None
        liveness.worker_stopped(worker.hostname)


app.steps["worker"].add(Heartbeat)


@signals.beat_init.connect
def watch_the_worker(sender=None, **kwargs):
    """Beat's process mails the committee when the worker goes silent: the worker
    cannot report its own silence."""
    from notifications.alerts import WorkerWatch

    WorkerWatch().start()
