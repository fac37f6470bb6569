"""Forms of mail: a reader's settings, and choosing a password (from an invitation, a
reset link, or the change-password page), each of which tells the account's address."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from django import forms
from django.conf import settings
from django.contrib.auth import forms as auth_forms
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from notifications.models import OPTIONAL_KINDS, MailKind
from notifications.services import absolute, mail_create
from players.services.accounts import password_changed

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise


def language_choices() -> list[tuple[str, _StrOrPromise]]:
    """The site's languages, each named in itself, after "the browser's"."""
    return [("", _("The browser's language")), *settings.LANGUAGES]


class MailSettingsForm(forms.Form):
    language = forms.ChoiceField(
        label=_("Language"),
        required=False,
        choices=language_choices,
        help_text=_("The site's pages and the mail sent to you are written in it."),
    )
    email = forms.EmailField(
        label=_("Address"),
        required=False,
        help_text=_("A new address is used once you follow the link mailed to it."),
    )
    wanted = forms.MultipleChoiceField(
        label=_("Send me"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args, kinds: Sequence[MailKind] = OPTIONAL_KINDS, **kwargs):
        super().__init__(*args, **kwargs)
        # The form's copy of ``wanted`` declared above: a MultipleChoiceField.
        wanted = cast(forms.MultipleChoiceField, self.fields["wanted"])
        wanted.choices = [(kind.value, kind.label) for kind in kinds]


class _PasswordChosen(auth_forms.SetPasswordForm):
    """A password form whose save also lifts any log-in lockout of the account and
    tells its address (``services.accounts.password_changed``)."""

    def save(self, commit=True):
        user = super().save(commit)
        password_changed(account=user)
        return user


class PasswordChangeForm(_PasswordChosen, auth_forms.PasswordChangeForm):
    """The change-password page."""


class SetPasswordForm(_PasswordChosen, auth_forms.SetPasswordForm):
    """The page of a password reset link."""


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's "forgot your password?": the link goes to the outbox (sent by a task),
    in the reader's language, to confirmed addresses only (``User.email``)."""

    def send_mail(
        self,
        subject_template_name,
        email_template_name,
        context,
        from_email,
        to_email,
        html_email_template_name=None,
    ):
        user = context["user"]
        path = reverse("password_reset_confirm", args=[context["uid"], context["token"]])
        mail_create(
            key=f"reset:{user.pk}:{context['token']}",
            kind=MailKind.ACCOUNT,
            user=user,
            to=to_email,
            template="password_reset",
            subject=_("A new password for your account on the Go club ratings"),
            context={"reset_url": absolute(path), "days": settings.INVITATION_DAYS},
        )
