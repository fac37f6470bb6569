"""Forms of the committee pages: the resync list, a rank adjustment, a merge of two
records, accounts and the full recompute.

They parse what was typed into domain types (Player, Rank, date, Decimal, Role) and
show every error at its field; the services in ``players.services`` check the domain
rules and write. Errors the services find come back to their field
(``add_service_errors``).
"""

from __future__ import annotations

from datetime import date

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.utils import timezone

from ratings.engine.base import registry
from ratings.services import maintained_algorithms

from .fields import FiniteDecimalField, RankFormField
from .models import Adjustment, Player
from .resync import RankList, parse_rank_list
from .services import Role, ServiceError

LIST_MAX_BYTES = 4 * 1024 * 1024  # a whole national list is well under 2 MB
PLAYER_OPTIONS = "committee-player-options"  # the id of the page's <datalist>


def add_service_errors(form: forms.Form, error: ServiceError) -> None:
    """Show a refused write on the form: each error at its field, else above the form."""
    if not error.errors:
        form.add_error(None, error.message)
    for _where, field_name, message in error.errors:
        form.add_error(field_name if field_name in form.fields else None, message)


def algorithm_choices(everything: str) -> list[tuple[str, str]]:
    algorithms = registry()
    return [("", everything)] + [
        (name, f"{name}: {algorithms[name].title}") for name in maintained_algorithms()
    ]


def _date_input() -> forms.DateInput:
    return forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


def _not_in_future(day: date | None) -> date | None:
    if day is not None and day > timezone.localdate():
        raise ValidationError(f"{day} is in the future.")
    return day


# --- resync -----------------------------------------------------------------------


class ResyncForm(forms.Form):
    """A national rank list, uploaded or pasted, to preview."""

    list_file = forms.FileField(
        required=False,
        label="Upload the list",
        help_text="A CSV or text file (UTF-8 or Latin-1).",
    )
    list_text = forms.CharField(
        required=False,
        label="…or paste it",
        strip=False,
        widget=forms.Textarea(
            attrs={
                "rows": 8,
                "spellcheck": "false",
                "placeholder": "thandin0, 4k, 2024-06-01\nLerato Mokoena; 12k",
            }
        ),
        help_text=(
            "One player a line: username or full name, national rank, effective date "
            "(YYYY-MM-DD, optional). Separated by tabs, semicolons or commas; "
            "a header line is fine."
        ),
    )
    effective_date = forms.DateField(
        required=False,
        widget=_date_input(),
        help_text="For the lines without a date of their own.",
    )
    note = forms.CharField(
        required=False,
        max_length=200,
        help_text="Shown on the batch and on each adjustment, e.g. “National list of June”.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["effective_date"].initial = timezone.localdate()

    def clean_effective_date(self):
        return _not_in_future(self.cleaned_data["effective_date"])

    def clean_list_file(self) -> str | None:
        upload = self.cleaned_data["list_file"]
        if upload is None:
            return None
        if upload.size > LIST_MAX_BYTES:
            raise ValidationError(
                f"The file is {upload.size // 1024} KB; the limit is {LIST_MAX_BYTES // 1024} KB."
            )
        data = upload.read()
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError:
            # National lists are often Latin-1 (the EGD's is); every byte decodes.
            return data.decode("latin-1")

    def clean(self):
        cleaned = super().clean()
        uploaded, pasted = cleaned.get("list_file"), cleaned.get("list_text", "")
        if "list_file" in self.errors:
            return cleaned
        if uploaded and pasted.strip():
            self.add_error("list_file", "Upload a file or paste a list, not both.")
        elif not uploaded and not pasted.strip():
            self.add_error("list_text", "Paste the list here, or upload it as a file.")
        else:
            cleaned["list"] = uploaded or pasted
        return cleaned

    def rank_list(self) -> RankList:
        return parse_rank_list(
            self.cleaned_data["list"],
            default_date=self.cleaned_data.get("effective_date"),
            today=timezone.localdate(),
        )


class ResyncApplyForm(forms.Form):
    """The previewed list sent again, with the committee member's confirmation: the view
    parses it again rather than trusting anything the browser kept."""

    list = forms.CharField(widget=forms.HiddenInput, strip=False)
    effective_date = forms.DateField(required=False, widget=forms.HiddenInput)
    note = forms.CharField(required=False, max_length=200, widget=forms.HiddenInput)
    confirm = forms.BooleanField(
        label="I have checked the preview: apply the changes listed above",
        error_messages={"required": "Tick this box to apply the changes."},
    )

    def clean_effective_date(self):
        return _not_in_future(self.cleaned_data["effective_date"])

    def rank_list(self) -> RankList:
        return parse_rank_list(
            self.cleaned_data["list"],
            default_date=self.cleaned_data.get("effective_date"),
            today=timezone.localdate(),
        )


# --- one player: adjustment and merge --------------------------------------------


class AdjustmentForm(forms.Form):
    date = forms.DateField(widget=_date_input(), help_text="The reset counts from this date on.")
    new_rank = RankFormField(label="New rank", help_text="Up or down, e.g. 12k or 2d.")
    algorithm = forms.ChoiceField(required=False)
    value = FiniteDecimalField(
        required=False,
        max_digits=12,
        decimal_places=4,
        help_text=(
            "The new index or rating in that algorithm's own scale; leave empty for the "
            "algorithm's default for the rank. Only with one algorithm."
        ),
    )
    reason = forms.ChoiceField(
        choices=Adjustment.Reason.choices, initial=Adjustment.Reason.COMMITTEE
    )
    comment = forms.CharField(required=False, max_length=400)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["date"].initial = timezone.localdate()
        self.fields["algorithm"].choices = algorithm_choices("All algorithms")

    def clean_date(self):
        return _not_in_future(self.cleaned_data["date"])

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("value") is not None and not cleaned.get("algorithm"):
            self.add_error(
                "value",
                "A value is in one algorithm's scale: choose that algorithm, "
                "or leave the value empty.",
            )
        return cleaned


class PlayerField(forms.CharField):
    """A player typed by username (any case when only one fits); cleans to the Player."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 150)
        kwargs.setdefault(
            "widget",
            forms.TextInput(
                attrs={"list": PLAYER_OPTIONS, "autocomplete": "off", "autocapitalize": "none"}
            ),
        )
        super().__init__(**kwargs)

    def clean(self, value) -> Player:
        username = super().clean(value)
        player = Player.objects.filter(username=username).first()
        if player is None:
            matches = list(Player.objects.filter(username__iexact=username)[:2])
            player = matches[0] if len(matches) == 1 else None
        if player is None:
            raise ValidationError(f"No player has the username “{username}”.")
        return player


class PlayerChoiceForm(forms.Form):
    player = PlayerField(label="Username")


class MergeForm(forms.Form):
    keep = PlayerField(label="Record to keep", help_text="Its username and details stay.")
    duplicate = PlayerField(
        label="Duplicate record",
        help_text="Its games and adjustments move to the record to keep; it becomes inactive.",
    )
    note = forms.CharField(required=False, max_length=200)

    def clean(self):
        cleaned = super().clean()
        keep, duplicate = cleaned.get("keep"), cleaned.get("duplicate")
        if keep and duplicate and keep.pk == duplicate.pk:
            self.add_error("duplicate", "This is the record to keep: choose the other record.")
        return cleaned


class MergeConfirmForm(MergeForm):
    confirm = forms.BooleanField(
        label="These are two records of one person: merge them",
        error_messages={"required": "Tick this box to merge the records."},
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("keep", "duplicate", "note"):
            self.fields[name].widget = forms.HiddenInput()


# --- accounts ---------------------------------------------------------------------

PASSWORD_HELP = "Leave empty to generate a temporary password, shown once on the next page."


def _role_field() -> forms.ChoiceField:
    return forms.ChoiceField(
        choices=Role.choices,
        widget=forms.RadioSelect,
        help_text="Volunteers enter and correct games; the committee also resyncs, "
        "adjusts, merges and manages accounts.",
    )


def _password_field() -> forms.CharField:
    return forms.CharField(
        required=False,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=PASSWORD_HELP,
    )


class AccountCreateForm(forms.Form):
    username = forms.CharField(
        max_length=150,
        validators=[UnicodeUsernameValidator()],
        widget=forms.TextInput(attrs={"autocapitalize": "none", "autocomplete": "off"}),
    )
    role = _role_field()
    password = _password_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["role"].initial = Role.VOLUNTEER

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if password:
            someone = get_user_model()(username=self.cleaned_data.get("username", ""))
            validate_password(password, user=someone)
        return password


class AccountRoleForm(forms.Form):
    role = _role_field()


class TemporaryPasswordForm(forms.Form):
    password = _password_field()

    def __init__(self, *args, account=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.account = account
        self.fields["password"].label = "Temporary password"

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if password:
            validate_password(password, user=self.account)
        return password


# --- recompute --------------------------------------------------------------------


class FullRecomputeForm(forms.Form):
    algorithm = forms.ChoiceField(required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["algorithm"].choices = algorithm_choices("every algorithm")
