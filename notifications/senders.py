"""What is sent, one function per mail: each reads what it needs and writes outbox rows
(``services.mail_create``); the periodic ``mail_sweep`` task and the writes that cause
a mail call them."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from notifications import selectors
from notifications.models import MailKind, OutgoingMail
from notifications.services import absolute, mail_create

logger = logging.getLogger(__name__)

# Evenings (game dates) this far back get a digest when their games change.
DIGEST_DAYS = 7
# A digest waits until its evening's games were last entered or voided this long ago,
# so that a sheet saved in several parts makes one mail.
DIGEST_QUIET_MINUTES = 15


def game_digests_send(*, now: datetime | None = None) -> int:
    """Mail each player the digest of each recent evening whose games were recorded,
    corrected or voided, once its ratings are final; a digest already sent for the same
    games (as they stand) is not sent again. The number of mails written."""
    now = now or timezone.now()
    today = timezone.localdate(now)
    digests = selectors.evening_digests(
        first=today - timedelta(days=DIGEST_DAYS),
        last=today,
        quiet_since=now - timedelta(minutes=DIGEST_QUIET_MINUTES),
    )
    # Most digests of the week were sent at an earlier sweep: one query finds them.
    sent = set(
        OutgoingMail.objects.filter(key__in=[d.key for d in digests]).values_list("key", flat=True)
    )
    written = 0
    for digest in digests:
        if digest.key in sent:
            continue
        account = digest.player.account
        mail = mail_create(
            key=digest.key,
            kind=MailKind.GAMES,
            user=account,
            template="game_digest",
            subject=_("Your games of %(evening)s"),
            subject_params={"evening": digest.evening.isoformat()},
            context={
                "digest": digest,
                "log_url": absolute(reverse("my_page")),
                "player_url": absolute(digest.player.get_absolute_url()),
            },
        )
        written += mail is not None
    return written


def report_answer_send(report) -> None:
    """Tell the player who reported a mistake what the volunteers did about it."""
    account = report.player.account
    if account is None:
        return
    mail_create(
        key=f"report-answer:{report.pk}",
        kind=MailKind.REPORT_ANSWER,
        user=account,
        template="report_answer",
        subject=_("Your report on the game of %(date)s was answered"),
        subject_params={"date": report.game.date.isoformat()},
        context={"report": report, "my_page_url": absolute(reverse("my_page"))},
    )


def rank_change_send(adjustment) -> None:
    """Tell a player their rank was set by a resync or a committee adjustment."""
    player = adjustment.player
    account = player.account
    if account is None:
        return
    # A resync with a rating from the list adds one adjustment per EGF algorithm: the
    # player hears of the batch once.
    batch = adjustment.resync_batch_id
    mail_create(
        key=f"rank-change:batch:{batch}:{player.pk}" if batch else f"rank-change:{adjustment.pk}",
        kind=MailKind.RANK_CHANGE,
        user=account,
        template="rank_change",
        subject=_("Your rank is now %(rank)s"),
        subject_params={"rank": str(adjustment.new_rank)},
        context={"adjustment": adjustment, "player_url": absolute(player.get_absolute_url())},
    )


def open_reports_send(*, now: datetime | None = None) -> int:
    """Once a day, from ``MAIL_DAILY_HOUR`` on, mail each volunteer the open reports of
    their clubs (if any). The number of mails written."""
    from players.roles import VOLUNTEERS, role_clubs
    from players.selectors.reports import of_clubs, open_reports

    now = now or timezone.now()
    local = timezone.localtime(now)
    if local.hour < settings.MAIL_DAILY_HOUR:
        return 0
    every = list(open_reports())
    if not every:
        return 0
    written = 0
    for volunteer in selectors.open_reports_recipients():
        # A club's volunteer reads their clubs' reports only, as on the queue's page.
        clubs = role_clubs(volunteer, VOLUNTEERS)
        reports = every if clubs is None else list(of_clubs(open_reports(), clubs))
        if not reports:
            continue
        mail = mail_create(
            key=f"open-reports:{volunteer.pk}:{local.date().isoformat()}",
            kind=MailKind.OPEN_REPORTS,
            user=volunteer,
            template="open_reports",
            subject=ngettext_lazy(
                "%(count)s open report of a mistake", "%(count)s open reports of mistakes", "count"
            ),
            subject_params={"count": len(reports)},
            context={
                "reports": [(report, absolute(report.get_absolute_url())) for report in reports],
                "queue_url": absolute(reverse("report_list")),
            },
        )
        written += mail is not None
    return written


def committee_alert_send(*, key: str, problem: str, detail: str | Promise) -> int:
    """Mail the committee that ``problem`` (``stalled`` or ``worker``) happened, once per
    ``key``. The number of mails written."""
    written = 0
    for member in selectors.committee_recipients():
        mail = mail_create(
            key=f"alert:{key}:{member.pk}",
            kind=MailKind.ALERTS,
            user=member,
            template="committee_alert",
            subject=_("Ratings: a recompute stalled")
            if problem == "stalled"
            else _("Ratings: the worker has gone silent"),
            context={
                "problem": problem,
                "detail": detail,
                "recompute_url": absolute(reverse("committee_recompute")),
            },
        )
        written += mail is not None
    return written
