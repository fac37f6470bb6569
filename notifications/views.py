"""The pages of mail: a reader's settings, the links mail carries (unsubscribe,
confirm an address, accept an invitation). Thin views: forms parse, services write."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language as django_set_language

from clubrating.languages import mark_chosen, remember_in_session, set_language_cookie, supported
from notifications import services, tokens
from notifications.forms import MailSettingsForm, SetPasswordForm
from notifications.models import MailKind
from notifications.selectors import kinds_for
from players.services.accounts import invitation_accept as accept


@login_required
@require_http_methods(["GET", "POST"])
def mail_settings(request: HttpRequest) -> HttpResponse:
    user = request.user
    assert user.is_authenticated  # login_required: never the anonymous user
    profile = services.profile_of(user)
    kinds = kinds_for(user)
    initial = {
        "language": supported(profile.language) or "",
        "email": user.email or profile.pending_email,
        "wanted": [kind.value for kind in kinds if profile.wants(kind)],
    }
    form = MailSettingsForm(request.POST or None, initial=initial, kinds=kinds)
    if request.method == "POST" and form.is_valid():
        email = form.cleaned_data["email"]
        language = form.cleaned_data["language"]
        services.mail_settings_save(
            user=user, wanted=form.cleaned_data["wanted"], language=language
        )
        remember_in_session(request, language)
        if language:  # the messages below in it
            translation.activate(language)
        if email and email != user.email and email != profile.pending_email:
            services.email_change_request(user=user, email=email)
            messages.info(
                request, _("A link to confirm %(email)s is on its way to it.") % {"email": email}
            )
        messages.success(request, _("Your settings are saved."))
        response = redirect("mail_settings")
        set_language_cookie(response, language)
        return response
    context = {"form": form, "profile": profile}
    return render(request, "notifications/mail_settings.html", context)


@csrf_exempt  # mail programs post the one-click unsubscribe (RFC 8058) with no cookie
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks (a link checker must not unsubscribe anyone); POST stops the kind, with
    no log-in: the signed token says whose and which."""
    reading = tokens.unsubscribe_reading(token)
    kind = MailKind(reading[1]) if reading and reading[1] in MailKind.values else None
    if reading is None or kind is None:
        return render(request, "notifications/unsubscribe.html", {"bad": True}, status=404)
    done = False
    if request.method == "POST":
        services.mail_unsubscribe(user_id=reading[0], kind=kind)
        done = True
    context = {"kind": kind, "done": done}
    return render(request, "notifications/unsubscribe.html", context)


@require_http_methods(["GET", "POST"])
def confirm_email(request: HttpRequest, token: str) -> HttpResponse:
    """GET shows a button; POST confirms (a mail scanner following links confirms
    nothing)."""
    if tokens.confirm_email_reading(token) is None:
        return render(request, "notifications/confirm_email.html", {"bad": True}, status=404)
    if request.method == "POST":
        account = services.email_confirm(token=token)
        if account is None:
            return render(request, "notifications/confirm_email.html", {"bad": True}, status=404)
        confirmed = _("Your address %(email)s is confirmed.") % {"email": account.email}
        messages.success(request, confirmed)
        return redirect("mail_settings" if request.user.is_authenticated else "login")
    return render(request, "notifications/confirm_email.html", {})


@require_http_methods(["GET", "POST"])
def invitation_accept(request: HttpRequest, token: str) -> HttpResponse:
    reading = tokens.invitation_reading(token)
    if reading is None:
        return render(request, "notifications/invitation.html", {"bad": True}, status=404)
    account, email = reading
    form = SetPasswordForm(account, request.POST or None)
    if request.method == "POST" and form.is_valid():
        accept(account=account, email=email, password=form.cleaned_data["new_password1"])
        chosen = _("Your password is chosen: log in as %(username)s.")
        messages.success(request, chosen % {"username": account.username})
        return redirect("login")
    context = {"form": form, "account": account, "email": email}
    return render(request, "notifications/invitation.html", context)


@csrf_exempt  # for a visitor; a signed-in person's switch is checked below
@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """The switcher of every page: Django's set_language (the choice in its cookie, back
    to ``next``), and for a signed-in person the account's language too.

    A visitor's switch needs no CSRF token: another site could only change the language
    of their next page, and the public pages, with no token, stay the same for every
    visitor (a cached crosstable's page is byte for byte the one built afresh). A
    signed-in person's switch writes to their account: that one is CSRF-protected."""
    if request.user.is_authenticated:
        return _account_language_set(request)
    response = django_set_language(request)
    # Chosen in this browser session: the log-in that follows makes it the account's.
    mark_chosen(response, request.POST.get("language"))
    return response


@csrf_protect
def _account_language_set(request: HttpRequest) -> HttpResponse:
    response = django_set_language(request)
    code = supported(request.POST.get("language"))
    if code:
        services.language_save(user=request.user, language=code)
        remember_in_session(request, code)
    return response
