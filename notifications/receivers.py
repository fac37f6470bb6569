"""The account's language at log-in (clubrating.languages): applied to the session; a
language chosen with the switcher before logging in becomes the account's when it has
none yet, so their mail is written in it too."""

from __future__ import annotations

from django.conf import settings

from clubrating.languages import remember_in_session, supported
from notifications import services
from notifications.models import MailProfile


def apply_account_language(sender, request, user, **kwargs) -> None:
    if request is None:
        return
    profile = MailProfile.objects.filter(user=user).only("language").first()
    code = supported(profile.language) if profile else None
    if code is None:
        code = supported(request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME))
        if code is None:
            return
        services.language_save(user=user, language=code)
    remember_in_session(request, code)
