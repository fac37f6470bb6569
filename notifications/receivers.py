"""The account's language at log-in (clubrating.languages): applied to the session. A
language chosen with the switcher in this browser session before logging in wins and
becomes the account's (their mail is then written in it too); else the language cookie
becomes the account's when it has none yet."""

from __future__ import annotations

from django.conf import settings

from clubrating.languages import remember_in_session, supported, take_chosen
from notifications import services
from notifications.models import MailProfile


def apply_account_language(sender, request, user, **kwargs) -> None:
    if request is None:
        return
    chosen = take_chosen(request)
    if chosen is not None:
        services.language_save(user=user, language=chosen)
        remember_in_session(request, chosen)
        return
    profile = MailProfile.objects.filter(user=user).only("language").first()
    code = supported(profile.language) if profile else None
    if code is None:
        code = supported(request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME))
        if code is None:
            return
        services.language_save(user=user, language=code)
    remember_in_session(request, code)
