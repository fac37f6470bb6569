"""The readers' mail settings and the outbox."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class MailKind(models.TextChoices):
    """What a mail is about; each kind but ``ACCOUNT`` can be turned off by its reader."""

    GAMES = "games", _("My games of an evening: recorded, corrected or voided")
    REPORT_ANSWER = "report_answer", _("The volunteers' answer to my report of a mistake")
    RANK_CHANGE = "rank_change", _("My rank changed by a resync or an adjustment")
    OPEN_REPORTS = "open_reports", _("Volunteers: the daily list of open reports")
    ALERTS = "alerts", _("Committee: a recompute that stalled, a worker gone silent")
    # Links to choose a password, to confirm an address, and notices of a change to the
    # account: always sent.
    ACCOUNT = "account", _("My account")


OPTIONAL_KINDS = [kind for kind in MailKind if kind != MailKind.ACCOUNT]


class MailProfile(models.Model):
    """A reader's mail settings. Their confirmed address is ``User.email`` (what
    Django's password reset reads); an address typed but not yet confirmed by its link
    waits in ``pending_email``."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mail_profile"
    )
    pending_email = models.EmailField(blank=True)
    language = models.CharField(
        max_length=10, blank=True, help_text="Empty: the site's language (LANGUAGE_CODE)."
    )
    # The kinds (MailKind values) the reader turned off.
    muted = models.JSONField(default=list, blank=True)

    def __str__(self) -> str:
        return f"mail settings of {self.user}"

    def wants(self, kind: str) -> bool:
        return kind == MailKind.ACCOUNT or kind not in self.muted


class OutgoingMail(models.Model):
    """One mail, rendered, waiting to be sent or sent. ``key`` makes a mail sent once:
    a digest's is (player, evening, revision of what it includes), so a task that runs
    twice finds the row and sends nothing more."""

    key = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=20, choices=MailKind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    to = models.EmailField()
    subject = models.CharField(max_length=300)
    text = models.TextField()
    html = models.TextField()
    headers = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # A sender takes the row by setting this (a conditional UPDATE), so two deliveries
    # of its task do not both send it.
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(
                fields=["created_at"],
                condition=models.Q(sent_at__isnull=True),
                name="outgoing_mail_unsent",
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} to {self.to}: {self.subject}"
