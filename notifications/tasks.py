"""Celery tasks of mail: thin wrappers around ``services`` and ``senders``."""

from __future__ import annotations

import logging
import smtplib

from celery import shared_task
from django.db import DatabaseError

from notifications import senders, services
from ratings.tasks import QueuedTask

logger = logging.getLogger(__name__)

# A mail whose task has not sent it this long after it was written is queued again.
RESEND_AFTER_SECONDS = 300


@shared_task(
    base=QueuedTask,
    ignore_result=True,
    autoretry_for=(smtplib.SMTPException, OSError, DatabaseError),
    retry_backoff=30,
    retry_backoff_max=3600,
    max_retries=8,
)
def send_mail(mail_id: int) -> bool:
    """Send one outbox mail (retried when the mail server fails); nothing if it was sent."""
    return services.mail_send(mail_id)


@shared_task(base=QueuedTask, ignore_result=True)
def mail_sweep() -> dict[str, int]:
    """The periodic sweep (celery beat, every ``RATINGS_SWEEP_SECONDS``): the players'
    digests whose evenings are final, the volunteers' daily list, and the mail whose
    task was lost, queued again. Each part runs whatever another fails."""
    done = {}
    for name, step in (
        ("digests", senders.game_digests_send),
        ("open_reports", senders.open_reports_send),
    ):
        try:
            done[name] = step()
        except Exception:
            logger.exception("mail sweep: %s failed", name)
    unsent = services.unsent_mail_ids(RESEND_AFTER_SECONDS)
    for mail_id in unsent:
        send_mail.delay(mail_id)
    done["requeued"] = len(unsent)
    return done
