"""Forms of the committee pages: the resync list, a rank adjustment, a merge of two
records, accounts and the full recompute.

They parse what was typed into domain types (Player, Rank, date, Decimal, Role) and
show every error at its field; the services in ``players.services`` check the domain
rules and write. Errors the services find come back to their field
(``players.web.forms.add_service_errors``).
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.functional import lazy
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from players.dates import TYPED_DATE_HELP
from players.fields import FiniteDecimalField, RankFormField, TypedDateField
from players.models import Adjustment, Club, Player, ResyncUpload, Tournament
from players.rank_lists import ListFormatError, read_rank_list
from players.services.accounts import Role
from players.services.players import PLAYER_EDIT_FIELDS, national_id_problem, pin_problem
from players.web.forms import ClubChoiceField, PlayerField
from ratings.algorithms import adjustment_ignoring_algorithms, maintained_algorithms
from ratings.engine.algorithms import registry
from ratings.engine.formats.ranklists import RankList

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise

LIST_MAX_BYTES = 16 * 1024 * 1024  # the EGD's world list is 4 MB unpacked, 1.2 MB gzipped
PLAYER_OPTIONS = "committee-player-options"  # the id of the page's <datalist>


def _interpolated(message: _StrOrPromise, **values) -> str:
    """``message`` (a ``gettext_lazy`` string) translated when it is shown, with its
    named placeholders filled: a help text built at import time still speaks the
    language of each request (a lazy string's ``%`` would translate it at import)."""
    return str(message) % {name: str(value) for name, value in values.items()}


lazy_interpolated = lazy(_interpolated, str)


def algorithm_choices(everything: str) -> list[tuple[str, str]]:
    algorithms = registry()
    return [("", everything)] + [
        (name, f"{name}: {_(algorithms[name].title)}") for name in maintained_algorithms()
    ]


def _not_in_future(day: date | None) -> date | None:
    if day is not None and day > timezone.localdate():
        raise ValidationError(_("%(date)s is in the future.") % {"date": day})
    return day


# --- resync -----------------------------------------------------------------------


class ResyncForm(forms.Form):
    """A national rank list, uploaded or pasted, to preview. The form reads the list
    (``cleaned_data["rank_list"]``); the bytes are kept for the apply."""

    list_file = forms.FileField(
        required=False,
        label=gettext_lazy("Upload the list"),
        help_text=gettext_lazy(
            "The EGD's rating list (allworld_lp or alleuro_lp, as downloaded: HTML or text, "
            "gzipped or not), the AGA's TDList, or a CSV or text file of the lines below; "
            "plain, gzip or zip, UTF-8 or Latin-1."
        ),
    )
    list_text = forms.CharField(
        required=False,
        label=gettext_lazy("…or paste it"),
        strip=False,
        widget=forms.Textarea(
            attrs={
                "rows": 8,
                "spellcheck": "false",
                "placeholder": "thandin0, 4k, 2024-06-01\nLerato Mokoena; 12k",
            }
        ),
        help_text=gettext_lazy(
            "One player a line: username or full name, national rank, effective date "
            "(YYYY-MM-DD, optional). Separated by tabs, semicolons or commas; "
            "a header line is fine."
        ),
    )
    effective_date = TypedDateField(
        label=gettext_lazy("Effective date"),
        required=False,
        help_text=lazy_interpolated(
            gettext_lazy(
                "For the lines without a date of their own; empty: the list's own date "
                "(%(date_format)s)."
            ),
            date_format=TYPED_DATE_HELP,
        ),
    )
    note = forms.CharField(
        label=gettext_lazy("Note"),
        required=False,
        max_length=200,
        help_text=gettext_lazy(
            "Shown on the batch and on each adjustment, e.g. “National list of June”."
        ),
    )

    def clean_effective_date(self):
        return _not_in_future(self.cleaned_data["effective_date"])

    def clean_list_file(self) -> bytes | None:
        upload = self.cleaned_data["list_file"]
        if upload is None:
            return None
        if upload.size > LIST_MAX_BYTES:
            raise ValidationError(
                _("The file is %(size)s KB; the limit is %(limit)s KB.")
                % {"size": upload.size // 1024, "limit": LIST_MAX_BYTES // 1024}
            )
        return upload.read()

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        uploaded, pasted = cleaned.get("list_file"), cleaned.get("list_text", "")
        if "list_file" in self.errors or "effective_date" in self.errors:
            return cleaned
        if uploaded is not None and pasted.strip():
            self.add_error("list_file", _("Upload a file or paste a list, not both."))
            return cleaned
        if uploaded is None and not pasted.strip():
            self.add_error("list_text", _("Paste the list here, or upload it as a file."))
            return cleaned
        where = "list_file" if uploaded is not None else "list_text"
        # The file whose bytes clean_list_file read (the cleaned value keeps no name).
        upload = self.files.get("list_file")
        cleaned["list_name"] = upload.name if uploaded is not None and upload is not None else ""
        cleaned["list_data"] = uploaded if uploaded is not None else pasted.encode("utf-8")
        try:
            cleaned["rank_list"] = read_list(cleaned["list_data"], cleaned.get("effective_date"))
        except ListFormatError as error:
            self.add_error(where, str(error))
        return cleaned


def read_list(data: bytes, effective_date: date | None) -> RankList:
    return read_rank_list(data, default_date=effective_date, today=timezone.localdate())


class ResyncApplyForm(forms.Form):
    """The confirmation of a preview. The list itself stayed on the server (named by
    ``upload``); the view reads and matches it again rather than trusting the page."""

    upload = forms.UUIDField(widget=forms.HiddenInput)
    effective_date = forms.DateField(required=False, widget=forms.HiddenInput)
    note = forms.CharField(required=False, max_length=200, widget=forms.HiddenInput)
    use_ratings = forms.BooleanField(
        required=False,
        label=gettext_lazy("Also start the EGF ratings from the list's ratings"),
        help_text=gettext_lazy(
            "Each listed player gets, in every EGF algorithm, the list's rating as their "
            "GoR from the effective date (the AGA's ratings converted to the GoR scale), "
            "including the players whose rank is unchanged."
        ),
    )
    include_stale = forms.BooleanField(
        required=False,
        label=gettext_lazy(
            "Also apply the lines of players last rated more than two years before the list"
        ),
        help_text=gettext_lazy(
            "Marked “last rated long ago” above: their rank may say little of today."
        ),
    )
    confirm = forms.BooleanField(
        label=gettext_lazy("I have checked the preview: apply the changes listed above"),
        error_messages={"required": gettext_lazy("Tick this box to apply the changes.")},
    )

    def clean_effective_date(self):
        return _not_in_future(self.cleaned_data["effective_date"])

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if "upload" in self.errors or "effective_date" in self.errors:
            return cleaned
        upload = ResyncUpload.objects.filter(token=cleaned["upload"]).first()
        if upload is None:
            self.add_error(
                "upload",
                _("The list previewed is no longer kept (a day at most): upload it again."),
            )
            return cleaned
        cleaned["kept"] = upload
        try:
            cleaned["rank_list"] = read_list(bytes(upload.data), cleaned.get("effective_date"))
        except ListFormatError as error:
            self.add_error("upload", str(error))
        return cleaned


# --- a tournament's EGF class ----------------------------------------------------


class TournamentClassForm(forms.Form):
    """A committee member's correction of a tournament's EGF class."""

    egf_class = forms.ChoiceField(
        label=gettext_lazy("EGF class"), choices=Tournament.EgfClass.choices
    )
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=200,
        help_text=gettext_lazy("Kept in the audit trail, e.g. “played on the internet: class D”."),
    )


# --- one player: adjustment and merge --------------------------------------------


def ignored_by(names: list[str]) -> str:
    """What an adjustment of every algorithm leaves alone: the algorithms of ``names``
    (those that read no adjustment) keep their own rank. Empty when there are none."""
    if not names:
        return ""
    return ngettext(
        "“All algorithms” resets every algorithm but %(names)s, which ignores "
        "adjustments: it rates the whole table of games at once and keeps its own rank.",
        "“All algorithms” resets every algorithm but %(names)s, which ignore "
        "adjustments: they rate the whole table of games at once and keep their own ranks.",
        len(names),
    ) % {"names": ", ".join(names)}


class AdjustmentForm(forms.Form):
    date = TypedDateField(
        label=gettext_lazy("Date"),
        help_text=lazy_interpolated(
            gettext_lazy("The reset counts from this date on (%(date_format)s)."),
            date_format=TYPED_DATE_HELP,
        ),
    )
    new_rank = RankFormField(
        label=gettext_lazy("New rank"), help_text=gettext_lazy("Up or down, e.g. 12k or 2d.")
    )
    algorithm = forms.ChoiceField(label=gettext_lazy("Algorithm"), required=False)
    value = FiniteDecimalField(
        label=gettext_lazy("Value"),
        required=False,
        max_digits=12,
        decimal_places=4,
        help_text=gettext_lazy(
            "The new index or rating in that algorithm's own scale; leave empty for the "
            "algorithm's default for the rank. Only with one algorithm."
        ),
    )
    reason = forms.ChoiceField(
        label=gettext_lazy("Reason"),
        choices=Adjustment.Reason.choices,
        initial=Adjustment.Reason.COMMITTEE,
    )
    comment = forms.CharField(label=gettext_lazy("Comment"), required=False, max_length=400)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["date"].initial = timezone.localdate()
        # The form's copy of ``algorithm`` declared above: a ChoiceField.
        algorithm = cast(forms.ChoiceField, self.fields["algorithm"])
        # An algorithm that reads no adjustment is no choice of its own (it would change
        # nothing); "All algorithms" says that it keeps its rank.
        self.ignoring = adjustment_ignoring_algorithms()
        algorithm.choices = [
            choice
            for choice in algorithm_choices(_("All algorithms"))
            if choice[0] not in self.ignoring
        ]
        algorithm.help_text = ignored_by(self.ignoring)
        algorithm.error_messages["invalid_choice"] = _(
            "%(value)s is not an algorithm that an adjustment resets: choose one of those "
            "offered, or all algorithms."
        )

    def clean_date(self):
        return _not_in_future(self.cleaned_data["date"])

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if cleaned.get("value") is not None and not cleaned.get("algorithm"):
            self.add_error(
                "value",
                _(
                    "A value is in one algorithm's scale: choose that algorithm, "
                    "or leave the value empty."
                ),
            )
        return cleaned


class PlayerEditForm(forms.Form):
    """A player's record as the committee corrects it (``services.player_update``)."""

    given_name = forms.CharField(label=gettext_lazy("Given name"), max_length=150, required=False)
    family_name = forms.CharField(
        label=gettext_lazy("Family name"),
        max_length=150,
        required=False,
        help_text=gettext_lazy("As the federations write it; the full name is the two together."),
    )
    club = ClubChoiceField(
        label=gettext_lazy("Club"),
        queryset=Club.objects.all(),
        required=False,
        empty_label=gettext_lazy("no club"),
    )
    country = forms.CharField(
        label=gettext_lazy("Country"),
        max_length=2,
        required=False,
        help_text=gettext_lazy("Two letters (ISO 3166), e.g. ZA or FR."),
    )
    federation_club = forms.CharField(
        label=gettext_lazy("Club as the federation writes it"),
        max_length=50,
        required=False,
        help_text=gettext_lazy(
            "The club or its abbreviation in EGD and OpenGotha files, e.g. 75Op."
        ),
    )
    egd_pin = forms.CharField(label=gettext_lazy("EGD PIN"), required=False, max_length=20)
    national_id = forms.CharField(
        label=gettext_lazy("National id"),
        max_length=30,
        required=False,
        help_text=gettext_lazy("The player's id with their federation (e.g. the AGA ID)."),
    )
    national_rank = RankFormField(
        label=gettext_lazy("National rank"),
        required=False,
        help_text=gettext_lazy("As on the national list, e.g. 15k or 3d (50k to 9d, 1p to 9p)."),
    )
    entry_rank = RankFormField(
        label=gettext_lazy("Entry rank"),
        help_text=gettext_lazy(
            "Where the player's ratings start: correcting it recomputes them from "
            "the player's first game."
        ),
    )
    active = forms.BooleanField(
        label=gettext_lazy("Active"),
        required=False,
        help_text=gettext_lazy("Inactive players leave the lists."),
    )

    @staticmethod
    def initial_for(player: Player) -> dict:
        return {name: getattr(player, name) for name in PLAYER_EDIT_FIELDS}

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if not (cleaned.get("given_name", "").strip() or cleaned.get("family_name", "").strip()):
            self.add_error("family_name", _("A player needs a name."))
        return cleaned

    def clean_country(self) -> str:
        country = self.cleaned_data["country"].strip().upper()
        if country and not (country.isascii() and country.isalpha() and len(country) == 2):
            raise ValidationError(
                _("'%(country)s' is not a two-letter country code (ISO 3166).")
                % {"country": country}
            )
        return country

    def __init__(
        self,
        *args,
        player: Player | None = None,
        clubs: QuerySet[Club] | None = None,
        **kwargs,
    ):
        """``clubs``: those the committee member acts for (None: every club, the
        federation's committee). A player is moved from a club to another (or to none)
        by a committee of both: of a club the member does not act for, the club is
        shown and not offered."""
        super().__init__(*args, **kwargs)
        self.player = player
        # The form's copy of ``club`` declared above: a ClubChoiceField.
        club = cast(forms.ModelChoiceField, self.fields["club"])
        club.queryset = Club.objects.order_by("name") if clubs is None else clubs
        if player is None or player.club is None:
            return
        if not club.queryset.filter(pk=player.club.pk).exists():
            club.queryset = Club.objects.filter(pk=player.club.pk)
            club.disabled = True
            # Help texts are shown unescaped (Django's and crispy's templates): the
            # names are escaped here.
            club.help_text = _(
                "%(club)s's committee (or the federation's) moves %(name)s to another club."
            ) % {"club": escape(player.club.name), "name": escape(player.full_name)}

    def clean_egd_pin(self) -> str:
        # Checked here too (the service checks again), so it shows with the other errors.
        egd_pin = self.cleaned_data["egd_pin"].strip()
        problem = pin_problem(egd_pin, self.player)
        if problem:
            raise ValidationError(problem)
        return egd_pin

    def clean_national_id(self) -> str:
        # Checked here too (the service checks again), so it shows with the other errors.
        national_id = self.cleaned_data["national_id"].strip()
        problem = national_id_problem(national_id, self.player)
        if problem:
            raise ValidationError(problem)
        return national_id

    def changes(self) -> dict:
        """The fields whose value differs from the record (call after ``is_valid``)."""
        return {name: self.cleaned_data[name] for name in self.changed_data}


def _typed_player(**kwargs) -> PlayerField:
    return PlayerField(datalist_id=PLAYER_OPTIONS, **kwargs)


class PlayerToAdjustForm(forms.Form):
    player = _typed_player(
        label=gettext_lazy("Player"), help_text=gettext_lazy("Username, name or EGD PIN.")
    )


class MergeForm(forms.Form):
    keep = _typed_player(
        label=gettext_lazy("Record to keep"),
        help_text=gettext_lazy("Its username and details stay."),
    )
    duplicate = _typed_player(
        label=gettext_lazy("Duplicate record"),
        help_text=gettext_lazy(
            "Its games and adjustments move to the record to keep; it becomes inactive."
        ),
    )
    note = forms.CharField(label=gettext_lazy("Note"), required=False, max_length=200)

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        keep, duplicate = cleaned.get("keep"), cleaned.get("duplicate")
        if keep and duplicate and keep.pk == duplicate.pk:
            self.add_error("duplicate", _("This is the record to keep: choose the other record."))
        return cleaned


class MergeConfirmForm(MergeForm):
    confirm = forms.BooleanField(
        label=gettext_lazy("These are two records of one person: merge them"),
        error_messages={"required": gettext_lazy("Tick this box to merge the records.")},
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("keep", "duplicate", "note"):
            self.fields[name].widget = forms.HiddenInput()


# --- accounts ---------------------------------------------------------------------


def _role_field() -> forms.ChoiceField:
    return forms.ChoiceField(
        label=gettext_lazy("Role"),
        choices=Role.choices,
        widget=forms.RadioSelect,
        help_text=gettext_lazy(
            "Volunteers enter and correct games; the committee also resyncs, "
            "adjusts, merges and manages accounts."
        ),
    )


class AccountCreateForm(forms.Form):
    username = forms.CharField(
        label=gettext_lazy("Username"),
        max_length=150,
        validators=[UnicodeUsernameValidator()],
        widget=forms.TextInput(attrs={"autocapitalize": "none", "autocomplete": "off"}),
    )
    role = _role_field()
    email = forms.EmailField(
        label=gettext_lazy("Email"),
        help_text=gettext_lazy(
            "The invitation goes there: a link, valid a few days, to choose a password."
        ),
    )
    player = _typed_player(
        label=gettext_lazy("Player record"),
        required=False,
        help_text=gettext_lazy(
            "For a player's own account: their record (username, name or EGD PIN). "
            "They will see their page and can report mistakes in their games."
        ),
    )

    def __init__(self, *args, every_club: bool = True, **kwargs):
        """``every_club``: the federation's committee, who may give the roles held for
        every club; a club's committee creates a player's account, then gives it its
        club's roles on the account's page."""
        super().__init__(*args, **kwargs)
        # The least a new login may do: a player's own account left as it came must not
        # enter, correct or void games; the committee ticks Volunteer on purpose.
        self.fields["role"].initial = Role.READER
        if not every_club:
            # The form's copy of ``role`` (_role_field): a ChoiceField.
            role = cast(forms.ChoiceField, self.fields["role"])
            role.choices = [(Role.READER.value, Role.READER.label)]
            role.help_text = _(
                "The volunteer and committee roles offered here are held for every club: "
                "the federation's committee gives them. Give your club's roles on the "
                "account's page once it is created (Roles for one club)."
            )
            role.error_messages["invalid_choice"] = role.help_text


class AccountRoleForm(forms.Form):
    role = _role_field()


class ClubRoleForm(forms.Form):
    """Give or take a role for one club; the clubs offered are those ``user`` manages."""

    club = ClubChoiceField(label=gettext_lazy("Club"), queryset=Club.objects.none())
    role = forms.ChoiceField(
        label=gettext_lazy("Role"),
        choices=[
            ("volunteers", gettext_lazy("Volunteer")),
            ("committee", gettext_lazy("Committee")),
        ],
    )
    # The button pressed.
    action = forms.ChoiceField(
        choices=[("grant", gettext_lazy("Give the role")), ("revoke", gettext_lazy("Take it away"))]
    )

    def __init__(self, *args, clubs: QuerySet[Club] | None = None, **kwargs) -> None:
        # Its own element ids: the account's page also shows AccountRoleForm, whose
        # ``role`` would otherwise share the id ``id_role`` (and its label the wrong field).
        kwargs.setdefault("auto_id", "id_club_role_%s")
        super().__init__(*args, **kwargs)
        # The form's copy of ``club`` declared above: a ModelChoiceField.
        club = cast(forms.ModelChoiceField, self.fields["club"])
        club.queryset = Club.objects.all() if clubs is None else clubs


class AccountPlayerForm(forms.Form):
    """Link an account to a player record; empty unlinks it."""

    player = _typed_player(
        label=gettext_lazy("Player record"),
        required=False,
        help_text=gettext_lazy("Username, name or EGD PIN; leave empty to unlink."),
    )


class InvitationForm(forms.Form):
    """Where to send a link to choose a password (a forgotten one, or an invitation
    again)."""

    email = forms.EmailField(
        label=gettext_lazy("Email"),
        help_text=gettext_lazy(
            "Their address; the link works for a few days, once, and lifts a log-in lockout."
        ),
    )


# --- recompute --------------------------------------------------------------------


class RecomputeClubForm(forms.Form):
    """The recompute page's club: its games and members waiting (GET)."""

    club = ClubChoiceField(queryset=Club.objects.none(), required=False, label=gettext_lazy("Club"))

    def __init__(self, *args, clubs: QuerySet[Club] | None = None, **kwargs) -> None:
        # Its own element ids: the account's page also shows AccountRoleForm, whose
        # ``role`` would otherwise share the id ``id_role`` (and its label the wrong field).
        kwargs.setdefault("auto_id", "id_club_role_%s")
        super().__init__(*args, **kwargs)
        # The form's copy of ``club`` declared above: a ModelChoiceField.
        club = cast(forms.ModelChoiceField, self.fields["club"])
        club.queryset = Club.objects.all() if clubs is None else clubs
        club.empty_label = gettext_lazy("no club: the algorithms only")


class FullRecomputeForm(forms.Form):
    algorithm = forms.ChoiceField(label=gettext_lazy("Algorithm"), required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The form's copy of ``algorithm`` declared above: a ChoiceField.
        algorithm = cast(forms.ChoiceField, self.fields["algorithm"])
        algorithm.choices = algorithm_choices(_("every algorithm"))
