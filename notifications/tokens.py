"""The signed links of mail: unsubscribe (no expiry: a mail read a year later still
stops its kind), confirm an address, accept an invitation (both expire after
``INVITATION_DAYS``). An invitation is tied to the account's password as it was sent,
so it works once, and a newer invitation or a password chosen meanwhile ends it."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.utils.crypto import salted_hmac

_UNSUBSCRIBE = "clubrating.mail.unsubscribe"
_CONFIRM = "clubrating.mail.confirm-email"
_INVITATION = "clubrating.accounts.invitation"


def _max_age() -> int:
    return settings.INVITATION_DAYS * 24 * 3600


def unsubscribe_token(user_id: int, kind: str) -> str:
    return signing.dumps({"u": user_id, "k": kind}, salt=_UNSUBSCRIBE, compress=True)


def unsubscribe_reading(token: str) -> tuple[int, str] | None:
    """(user id, kind) of a token, or None when it was not signed here."""
    try:
        data = signing.loads(token, salt=_UNSUBSCRIBE)
    except signing.BadSignature:
        return None
    return data["u"], data["k"]


def confirm_email_token(user_id: int, email: str) -> str:
    return signing.dumps({"u": user_id, "e": email}, salt=_CONFIRM, compress=True)


def confirm_email_reading(token: str) -> tuple[int, str] | None:
    """(user id, address) of a token signed here and not expired, or None."""
    try:
        data = signing.loads(token, salt=_CONFIRM, max_age=_max_age())
    except signing.BadSignature:  # SignatureExpired is one too
        return None
    return data["u"], data["e"]


def _password_mark(account) -> str:
    return salted_hmac(_INVITATION, account.password).hexdigest()[:20]


def invitation_token(account, email: str) -> str:
    return signing.dumps(
        {"u": account.pk, "e": email, "p": _password_mark(account)},
        salt=_INVITATION,
        compress=True,
    )


def invitation_reading(token: str):
    """(account, address) of a valid invitation, or None: not signed here, expired,
    used (the account's password changed since), or an account gone or inactive."""
    try:
        data = signing.loads(token, salt=_INVITATION, max_age=_max_age())
    except signing.BadSignature:
        return None
    account = get_user_model().objects.filter(pk=data["u"], is_active=True).first()
    if account is None or _password_mark(account) != data["p"]:
        return None
    return account, data["e"]
