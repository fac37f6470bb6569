"""The language of each request (issue 30). Django's LocaleMiddleware picks the language
the switcher left in its cookie, else the browser's Accept-Language, else LANGUAGE_CODE;
for a signed-in person their account's language comes first. The account keeps it in
``MailProfile.language`` (the same language their mail is written in); it is copied
into the session at log-in and when they choose another, so that applying it on each
request reads no more than the session the log-in reads anyway.

A language a visitor chooses with the switcher and then logs in wins over the
account's, and becomes the account's, as a switch made once logged in does: they just
said which language they read, and are reading the log-in page in it. Only a choice
made in this browser session counts (``CHOSEN_COOKIE_NAME``, a cookie that lasts as long
as the browser's session and goes at the log-in that takes it): the language cookie
alone may be what the last person to log out on a club's laptop left behind, and does
not change the next one's account."""

from __future__ import annotations

from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation

ACCOUNT_LANGUAGE_SESSION_KEY = "_account_language"
CHOSEN_COOKIE_NAME = "language_chosen"
_CHOICE_TAKEN = "_clubrating_language_choice_taken"


def supported(code: str | None) -> str | None:
    """``code`` as one of LANGUAGES, or None for an empty or unknown code."""
    if not code:
        return None
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return None


def remember_in_session(request, code: str | None) -> None:
    """Make ``code`` the language of ``request``'s session (None: none of its own)."""
    session = getattr(request, "session", None)
    if session is None:
        return
    if supported(code):
        session[ACCOUNT_LANGUAGE_SESSION_KEY] = code
    else:
        session.pop(ACCOUNT_LANGUAGE_SESSION_KEY, None)


def set_language_cookie(response, code: str | None) -> None:
    """Set the switcher's cookie (Django's set_language sets the same) to ``code``, or
    delete it for None or "" (the browser's language)."""
    if not supported(code):
        response.delete_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
        return
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        code,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


def mark_chosen(response, code: str | None) -> None:
    """Say on ``response`` that its visitor chose ``code`` with the switcher, in this
    browser session (a cookie with no expiry: gone when the browser closes)."""
    if not supported(code):
        return
    response.set_cookie(
        CHOSEN_COOKIE_NAME,
        code,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=True,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


def take_chosen(request) -> str | None:
    """The language the person logging in with ``request`` chose with the switcher in
    this browser session, or None; taken once (the middleware deletes the cookie from the
    log-in's response)."""
    code = supported(request.COOKIES.get(CHOSEN_COOKIE_NAME))
    if code is not None:
        setattr(request, _CHOICE_TAKEN, True)
    return code


class AccountLocaleMiddleware(LocaleMiddleware):
    """LocaleMiddleware, with the signed-in person's account language first. The session
    is read only when the browser sent a session cookie: an anonymous visitor costs no
    query."""

    def process_request(self, request):
        super().process_request(request)
        if settings.SESSION_COOKIE_NAME not in request.COOKIES:
            return
        session = getattr(request, "session", None)
        code = supported(session.get(ACCOUNT_LANGUAGE_SESSION_KEY)) if session else None
        if code:
            translation.activate(code)
            request.LANGUAGE_CODE = translation.get_language()

    def process_response(self, request, response):
        response = super().process_response(request, response)
        if getattr(request, _CHOICE_TAKEN, False):
            response.delete_cookie(
                CHOSEN_COOKIE_NAME,
                path=settings.LANGUAGE_COOKIE_PATH,
                domain=settings.LANGUAGE_COOKIE_DOMAIN,
                samesite=settings.LANGUAGE_COOKIE_SAMESITE,
            )
        return response
