"""Writing mail: an outbox row per mail, rendered in its reader's language, sent by a
Celery task after the transaction that wrote it commits; the readers' addresses and
choices."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _

from notifications import tokens
from notifications.models import OPTIONAL_KINDS, MailKind, MailProfile, OutgoingMail

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise

logger = logging.getLogger(__name__)

# A sender that claimed a row and died: after this long another may take it.
CLAIM_SECONDS = 600


def absolute(path: str) -> str:
    """``path`` on the site as its readers reach it (``SITE_URL``)."""
    return f"{settings.SITE_URL}{path}"


def profile_of(user) -> MailProfile:
    profile, _created = MailProfile.objects.get_or_create(user=user)
    return profile


def language_of(profile: MailProfile | None) -> str:
    """The language mail to ``profile``'s reader is written in: their account's (the
    one they read the site in), else the site's."""
    chosen = profile.language if profile else ""
    if chosen:
        try:
            return translation.get_supported_language_variant(chosen)
        except LookupError:  # a language the site no longer ships
            pass
    return settings.LANGUAGE_CODE


def unsubscribe_url(user, kind: str) -> str:
    return absolute(reverse("mail_unsubscribe", args=[tokens.unsubscribe_token(user.pk, kind)]))


def mail_create(
    *,
    key: str,
    kind: str,
    user,
    template: str,
    subject: _StrOrPromise,
    context: dict[str, Any] | None = None,
    to: str | None = None,
    subject_params: dict[str, Any] | None = None,
    language: str | None = None,
) -> OutgoingMail | None:
    """Render the mail ``template`` (``mail/<template>.txt`` and ``.html``) for ``user``
    in their language and put it in the outbox under ``key``; its sending is queued when
    the transaction commits. None when ``user`` has no confirmed address (and ``to``
    gives none), turned ``kind`` off, or a mail of that ``key`` exists already.
    ``language``: the one to write in when ``user`` has chosen none (an invitation to a
    new account: the inviting person's)."""
    profile = MailProfile.objects.get_or_create(user=user)[0] if user is not None else None
    address = to or (user.email if user is not None else "")
    if not address or (profile is not None and not profile.wants(kind)):
        return None
    if OutgoingMail.objects.filter(key=key).exists():
        return None
    context, headers = _mail_context(user, kind, context)
    with translation.override(_reader_language(profile, language)):
        # A plural subject (ngettext_lazy) takes its count from ``subject_params``.
        rendered_subject = str(subject % subject_params) if subject_params else str(subject)
        context["subject"] = rendered_subject
        text = render_to_string(f"mail/{template}.txt", context)
        html = render_to_string(f"mail/{template}.html", context)
    try:
        with transaction.atomic():
            mail = OutgoingMail.objects.create(
                key=key,
                kind=kind,
                user=user,
                to=address,
                subject=" ".join(rendered_subject.split())[:300],
                text=text,
                html=html,
                headers=headers,
            )
    except IntegrityError:  # the same mail written by another task meanwhile
        return None
    from notifications import tasks

    tasks.send_mail.delay_on_commit(mail.pk)
    return mail


def _mail_context(
    user, kind: str, context: dict[str, Any] | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """What every mail's template is given besides ``context``, and the mail's headers:
    a mail its reader may turn off says how, in the text and in the List-Unsubscribe
    headers (one click)."""
    context = {
        "user": user,
        "site_url": settings.SITE_URL,
        "account_url": absolute(reverse("mail_settings")),
        **(context or {}),
    }
    headers = {}
    if kind in OPTIONAL_KINDS and user is not None:
        context["unsubscribe_url"] = unsubscribe_url(user, kind)
        headers = {
            "List-Unsubscribe": f"<{context['unsubscribe_url']}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        }
    return context, headers


def _reader_language(profile: MailProfile | None, language: str | None) -> str:
    """The language the mail is written in: the reader's chosen one, else ``language``
    when given, else the site's."""
    if language and not (profile is not None and profile.language):
        return language
    return language_of(profile)


def mail_send(mail_id: int) -> bool:
    """Send one outbox mail unless it was sent or another sender holds it; whether it
    was sent now. A transport error propagates (the task retries it) and frees the row."""
    now = timezone.now()
    stale = now - timedelta(seconds=CLAIM_SECONDS)
    claimed = OutgoingMail.objects.filter(
        Q(claimed_at__isnull=True) | Q(claimed_at__lt=stale), pk=mail_id, sent_at__isnull=True
    ).update(claimed_at=now, attempts=F("attempts") + 1)
    if not claimed:
        return False
    mail = OutgoingMail.objects.get(pk=mail_id)
    message = EmailMultiAlternatives(
        subject=mail.subject,
        body=mail.text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[mail.to],
        headers=mail.headers,
    )
    message.attach_alternative(mail.html, "text/html")
    try:
        message.send()
    except Exception as error:
        OutgoingMail.objects.filter(pk=mail_id).update(claimed_at=None, last_error=str(error)[:500])
        raise
    OutgoingMail.objects.filter(pk=mail_id).update(sent_at=timezone.now(), last_error="")
    return True


def unsent_mail_ids(older_than_seconds: int) -> list[int]:
    """Mail written more than ``older_than_seconds`` ago and neither sent nor held: its
    task was lost (a broker down) or gave up; the sweep queues it again."""
    now = timezone.now()
    return list(
        OutgoingMail.objects.filter(
            Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - timedelta(seconds=CLAIM_SECONDS)),
            sent_at__isnull=True,
            created_at__lt=now - timedelta(seconds=older_than_seconds),
        )
        .order_by("created_at", "id")
        .values_list("pk", flat=True)[:500]
    )


# --- the readers' choices ---------------------------------------------------------------


def mail_unsubscribe(*, user_id: int, kind: str) -> MailProfile | None:
    """Turn ``kind`` off for the account ``user_id`` (from a signed link: no log-in)."""
    if kind not in OPTIONAL_KINDS:
        return None
    with transaction.atomic():
        profile, _created = MailProfile.objects.select_for_update().get_or_create(user_id=user_id)
        if kind not in profile.muted:
            profile.muted = [*profile.muted, kind]
            profile.save(update_fields=["muted"])
    return profile


def mail_settings_save(*, user, wanted: list[str], language: str | None = None) -> MailProfile:
    """Keep the kinds in ``wanted`` on and turn the other optional kinds off; with
    ``language`` (a code of LANGUAGES, or "" for none), make it the account's too."""
    with transaction.atomic():
        profile, _created = MailProfile.objects.select_for_update().get_or_create(user=user)
        profile.muted = [kind for kind in OPTIONAL_KINDS if kind not in wanted]
        fields = ["muted"]
        if language is not None:
            profile.language = _checked_language(language)
            fields.append("language")
        profile.save(update_fields=fields)
    return profile


def language_save(*, user, language: str) -> MailProfile:
    """Make ``language`` (a code of LANGUAGES, or "" for none: the browser's for pages,
    the site's for mail) the account's language, for its pages and its mail."""
    with transaction.atomic():
        profile, _created = MailProfile.objects.select_for_update().get_or_create(user=user)
        profile.language = _checked_language(language)
        profile.save(update_fields=["language"])
    return profile


def _checked_language(language: str) -> str:
    if language and language not in dict(settings.LANGUAGES):
        raise ValueError(f"{language!r} is not one of the site's languages")
    return language


def email_change_request(*, user, email: str) -> MailProfile:
    """``user`` typed a new address: it waits, unused, until the link mailed to it is
    followed; the old address (if any) is told."""
    email = email.strip()
    with transaction.atomic():
        profile, _created = MailProfile.objects.select_for_update().get_or_create(user=user)
        profile.pending_email = email
        profile.save(update_fields=["pending_email"])
        token = tokens.confirm_email_token(user.pk, email)
        mail_create(
            key=f"confirm:{user.pk}:{token[-24:]}",
            kind=MailKind.ACCOUNT,
            user=user,
            to=email,
            template="confirm_email",
            subject=_("Confirm your address for %(site)s"),
            subject_params={"site": site_name()},
            context={
                "confirm_url": absolute(reverse("mail_confirm", args=[token])),
                "days": settings.INVITATION_DAYS,
            },
        )
    return profile


def email_confirm(*, token: str):
    """Follow a confirmation link: the address becomes the account's; the old one is
    told. The account, or None for a link that is bad, expired or superseded."""
    from django.contrib.auth import get_user_model

    reading = tokens.confirm_email_reading(token)
    if reading is None:
        return None
    user_id, email = reading
    with transaction.atomic():
        account = get_user_model().objects.select_for_update().filter(pk=user_id).first()
        profile = MailProfile.objects.filter(user_id=user_id).first()
        if account is None or profile is None:
            return None
        if account.email == email:  # followed twice
            return account
        if profile.pending_email != email:  # a newer address was typed since
            return None
        email_set(account=account, email=email)
        profile.pending_email = ""
        profile.save(update_fields=["pending_email"])
    return account


def email_set(*, account, email: str) -> None:
    """Make ``email`` (confirmed) the account's address, telling the old one."""
    old = account.email
    if old == email:
        return
    account.email = email
    account.save(update_fields=["email"])
    if old:
        account_notice(
            account=account,
            to=old,
            event="email",
            subject=_("The address of your account on %(site)s changed"),
        )


def account_notice(*, account, to: str, event: str, subject) -> None:
    """Tell ``to`` (the account's address before a change) that ``event`` happened:
    ``email`` (the address changed) or ``password`` (the password changed)."""
    mail_create(
        key=f"notice:{event}:{account.pk}:{timezone.now().isoformat()}:{to}",
        kind=MailKind.ACCOUNT,
        user=account,
        to=to,
        template="account_changed",
        subject=subject,
        subject_params={"site": site_name()},
        context={"event": event, "new_email": account.email},
    )


def site_name() -> str:
    return settings.SITE_URL.split("://", 1)[1]
