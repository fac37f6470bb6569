"""The rating list's filter form: it parses the query string into RatingListFilters."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from crispy_forms.helper import FormHelper
from crispy_forms.layout import HTML, Column, Field, Layout, Row, Submit
from django import forms
from django.db.models import Count
from django.utils import timezone
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from players.fields import RankFormField, TypedDateField, TypedDateInput
from players.models import Club, Game, Tournament
from players.selectors.games_search import HANDICAP_RANGE, GameFilters
from players.selectors.ratings import RatingListFilters, months_before
from players.web.forms import PlayerField

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise

EVERYONE = "all"  # the ``players`` filter's value that lists tournament-only players too


def filter_date_field(label: _StrOrPromise, **attrs: _StrOrPromise) -> TypedDateField:
    """An optional date, typed as on the record sheet (2024-06-30, 30/6, 30 Jun, t); the
    filter rows have no room for the sheet's help line: the field's placeholder says it."""
    return TypedDateField(
        required=False,
        label=label,
        help_text="",
        widget=TypedDateInput(attrs={"placeholder": gettext_lazy("e.g. 30 Jun, t"), **attrs}),
    )


def filter_helper(
    form_id: str, columns: list[Column], button: str, clear_url: str, *hidden: Field
) -> FormHelper:
    """The layout of a page's filters (sent by GET): the fields in a row, the button and
    a link clearing them at its end, then the ``hidden`` fields."""
    helper = FormHelper()
    helper.form_method = "get"
    helper.disable_csrf = True
    helper.form_id = form_id
    helper.layout = Layout(
        Row(
            *columns,
            Column(
                Submit("", button, css_class="btn-primary me-2"),
                HTML(
                    f'<a class="btn btn-outline-secondary" href="{escape(clear_url)}">'
                    f"{escape(_('Clear'))}</a>"
                ),
                css_class="col-12 col-md-auto d-flex align-items-start filter-buttons",
            ),
            css_class="g-2",
        ),
        *hidden,
    )
    return helper


class ClubCountChoiceField(forms.ModelChoiceField):
    """A club, offered with its count of players ("Cape Town Go Club (120)")."""

    def label_from_instance(self, obj) -> str:
        count = getattr(obj, "member_count", None)
        return obj.name if count is None else f"{obj.name} ({count})"


class RatingListFilterForm(forms.Form):
    """GET filters of the rating list. A bad field is shown at the field and left out;
    the valid ones still filter the list."""

    search = forms.CharField(
        required=False,
        max_length=100,
        label=gettext_lazy("Find a player"),
        widget=forms.TextInput(
            attrs={"placeholder": gettext_lazy("name, username or EGD PIN"), "type": "search"}
        ),
    )
    club = ClubCountChoiceField(
        queryset=Club.objects.annotate(member_count=Count("players")).order_by("name"),
        required=False,
        label=gettext_lazy("Club"),
        empty_label=gettext_lazy("All clubs"),
    )
    rank_from = RankFormField(
        required=False,
        help_text="",
        label=gettext_lazy("Rank from"),
        widget=forms.TextInput(attrs={"placeholder": "30k"}),
    )
    rank_to = RankFormField(
        required=False,
        help_text="",
        label=gettext_lazy("Rank to"),
        widget=forms.TextInput(attrs={"placeholder": "9d"}),
    )
    active_months = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=600,
        label=gettext_lazy("Active (months)"),
        widget=forms.NumberInput(
            attrs={
                "placeholder": gettext_lazy("e.g. 12"),
                "title": gettext_lazy("Only players who played within this many months"),
            }
        ),
    )
    players = forms.ChoiceField(
        required=False,
        choices=[
            ("", gettext_lazy("Our clubs' players")),
            (EVERYONE, gettext_lazy("Everyone, tournament players too")),
        ],
        label=gettext_lazy("Players"),
        help_text="",
    )
    as_of = filter_date_field(
        gettext_lazy("As of"), title=gettext_lazy("The list as it stood at the end of this day")
    )
    # carried through a filter so that it keeps the chosen list and order
    algorithm = forms.CharField(required=False, widget=forms.HiddenInput)
    sort = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, with_club: bool = True, clear_url: str = "", **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if not with_club:  # a club's page: its members, tournament players or not
            del self.fields["club"]
            del self.fields["players"]
        self.helper = filter_helper(
            "rating-filters",
            [
                Column("search", css_class="col-12 col-md-6 col-lg-3"),
                *([Column("club", css_class="col-12 col-md-6 col-lg-3")] if with_club else []),
                Column("rank_from", css_class="col-4 col-md-2 col-lg-1"),
                Column("rank_to", css_class="col-4 col-md-2 col-lg-1"),
                Column("active_months", css_class="col-4 col-md-3 col-lg-2"),
                *([Column("players", css_class="col-12 col-md-6 col-lg-3")] if with_club else []),
                Column("as_of", css_class="col-6 col-md-3 col-lg-2"),
            ],
            _("Filter"),
            clear_url,
            Field("algorithm"),
            Field("sort"),
        )

    FILTER_FIELDS = (
        "search",
        "club",
        "rank_from",
        "rank_to",
        "active_months",
        "players",
        "as_of",
    )

    def clean_as_of(self) -> date | None:
        day = self.cleaned_data.get("as_of")
        if day is not None and day > timezone.localdate():
            raise forms.ValidationError(
                _("%(day)s is after today: the list as of a date shows the past.")
                % {"day": day.isoformat()}
            )
        return day

    def is_filtering(self) -> bool:
        """Whether any filter is given (or wrong): the form then opens on a phone."""
        return bool(self.errors) or any(self.data.get(name) for name in self.FILTER_FIELDS)

    def filters(self, today: date) -> RatingListFilters:
        """The valid filters (call after ``is_valid``)."""
        data = self.cleaned_data
        weakest, strongest = data.get("rank_from"), data.get("rank_to")
        if weakest is not None and strongest is not None and weakest > strongest:
            weakest, strongest = strongest, weakest  # "3d to 10k" means the same range
        months = data.get("active_months")
        as_of = data.get("as_of")
        if as_of is not None:
            today = as_of  # "active within months" counts back from the list's day
        return RatingListFilters(
            club=data.get("club"),
            weakest=weakest,
            strongest=strongest,
            active_since=months_before(today, months) if months else None,
            search=(data.get("search") or "").strip(),
            everyone=data.get("players") == EVERYONE,
            as_of=as_of,
        )


class GameSearchForm(forms.Form):
    """GET filters of the games search (the web page's, the CSV's and the API's). A
    bad field is shown at the field, and the search then lists no game: a filter
    dropped would list games the user did not ask for. A player is typed as on the
    record sheet: username, name in either order or EGD PIN (``PlayerField``)."""

    player = PlayerField(required=False, label=gettext_lazy("Player"))
    opponent = PlayerField(required=False, label=gettext_lazy("Opponent"))
    since = filter_date_field(pgettext_lazy("dates", "From"))
    until = filter_date_field(pgettext_lazy("dates", "To"))
    tournament = forms.ModelChoiceField(
        queryset=Tournament.objects.order_by("-start_date", "code"),
        to_field_name="code",
        required=False,
        label=gettext_lazy("Tournament"),
        empty_label=gettext_lazy("Any tournament"),
    )
    status = forms.ChoiceField(
        required=False,
        label=gettext_lazy("Status"),
        choices=[("", gettext_lazy("Any status")), *Game.Status.choices],
    )
    handicap = forms.IntegerField(
        required=False,
        label=gettext_lazy("Handicap"),
        min_value=HANDICAP_RANGE[0],
        max_value=HANDICAP_RANGE[1],
    )

    def __init__(self, *args, clear_url: str = "", **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.helper = filter_helper(
            "game-filters",
            [
                Column("player", css_class="col-6 col-md-4 col-lg-2"),
                Column("opponent", css_class="col-6 col-md-4 col-lg-2"),
                Column("since", css_class="col-6 col-md-4 col-lg-2"),
                Column("until", css_class="col-6 col-md-4 col-lg-2"),
                Column("tournament", css_class="col-12 col-md-4 col-lg-2"),
                Column("status", css_class="col-6 col-md-2 col-lg-1"),
                Column("handicap", css_class="col-6 col-md-2 col-lg-1"),
            ],
            _("Search"),
            clear_url,
        )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        since, until = data.get("since"), data.get("until")
        if since is not None and until is not None and until < since:
            self.add_error(
                "until",
                _("%(until)s is before the 'From' date (%(since)s).")
                % {"until": until, "since": since},
            )
        return data

    def filters(self) -> GameFilters:
        """The filters (call after ``is_valid``, and use only when it is true)."""
        data = self.cleaned_data
        return GameFilters(
            player=data.get("player"),
            opponent=data.get("opponent"),
            since=data.get("since"),
            until=data.get("until"),
            tournament=data.get("tournament"),
            status=data.get("status") or "",
            handicap=data.get("handicap"),
        )
