"""Forms of the volunteer pages: a record sheet, a game correction, a void, a new player
and the audit trail's filters.

They parse and validate what was typed and hand the views domain types (Player and
Tournament objects, Rank, date, Decimal, GameInput); the services in
``players.services`` check the domain rules and write. Errors the services find come
back to the field they belong to (``add_service_errors``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Column, Layout, Row
from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.formats import localize_input
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

from players import lookup
from players.fields import FiniteDecimalField, RankFormField, TypedDateField
from players.models import (
    Club,
    Game,
    GameReport,
    Player,
    Tournament,
    audit_action_label,
    audit_object_label,
)
from players.services.base import ServiceError
from players.services.games import GameInput, default_komi, doubtful_games, jigo_problem
from players.services.players import pin_problem
from players.web.forms import ClubChoiceField, add_field_error, player_input
from players.web.numbers import decimal_text

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise


class ReportFilterForm(forms.Form):
    """The queue of reports' one filter: a club among the volunteer's (none: all of
    them). Another club of the site is refused with its name, as on every club filter."""

    club = ClubChoiceField(label=gettext_lazy("Club"), queryset=Club.objects.none(), required=False)

    def __init__(self, *args, clubs: QuerySet[Club], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ModelChoiceField, self.fields["club"]).queryset = clubs

    def chosen_club(self) -> Club | None:
        """The club to show (None: every club of the volunteer's, also when the filter
        is refused: the queue stays readable under the message)."""
        return self.cleaned_data.get("club") if self.is_valid() else None


class ReportResolveForm(forms.Form):
    resolution = forms.ChoiceField(
        label=gettext_lazy("What was done"),
        choices=GameReport.Resolution.choices,
        widget=forms.RadioSelect,
        help_text=gettext_lazy(
            "Correct or void the game first (on the game's page); "
            "“stands as recorded” needs an answer saying why."
        ),
    )
    answer = forms.CharField(
        label=gettext_lazy("Answer to the player"),
        required=False,
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if (
            data.get("resolution") == GameReport.Resolution.AS_RECORDED
            and not data.get("answer", "").strip()
        ):
            self.add_error("answer", _("Tell the player why the game stands as recorded."))
        return data


# Paths under /players/ that are pages, not log pages: no player may be called so.
RESERVED_USERNAMES = frozenset({"new", "lookup"})


PLAYER_OPTIONS = "player-options"  # the id of the page's <datalist> of usernames


TOURNAMENT_OPTIONS = "tournament-options"


# The letters of the paper sheet (typing W, B or D picks them in the select).
# Bounds of the numbers a game holds: what a club's sheet can mean, and within the
# columns' range (a 32-bit integer; komi as the model's 4 digits), so that nothing typed
# reaches the database only to overflow there.
KOMI_LIMIT = Decimal(50)


MAX_ROUND = 999


MAX_TIME_MINUTES = 7 * 24 * 60  # a week: correspondence games


MAX_VERSION = 2**31 - 1


# The letters lead as on the paper sheet (typing one picks it), each explained in the
# reader's language: in French "B" would read as Blanc, the other colour.
WINNER_CHOICES = [
    ("", "—"),
    ("W", gettext_lazy("W (White)")),
    ("B", gettext_lazy("B (Black)")),
    ("D", gettext_lazy("D (jigo)")),
]
# The game's kinds, as the sheet's select names them.
STATUS_CHOICES = [
    (Game.Status.FREE, pgettext_lazy("a game not rated", "Free")),
    (Game.Status.NORMAL, pgettext_lazy("a rated game", "Normal")),
    (Game.Status.TOURNAMENT, pgettext_lazy("a game's kind", "Tournament")),
    (Game.Status.INTERNET, pgettext_lazy("a game's kind", "Internet")),
]


def _player_input() -> forms.TextInput:
    return player_input(PLAYER_OPTIONS, spellcheck="false", **{"data-player-field": ""})


def _lookups(values: Iterable[str]) -> set[str]:
    """The values worth looking up: filled in, and without a NUL character, which no
    name holds and PostgreSQL refuses in a query (its field reports it to the user)."""
    return {value.strip() for value in values if value and value.strip() and "\x00" not in value}


class Directory:
    """The players and tournaments a bound form (or a whole formset) names, each kind
    loaded with one query the first time a form asks, so a sheet of twenty rows does
    not look its players up one row at a time.

    Usernames match whatever their case, so that "Alice" finds alice instead of
    prompting the volunteer to add a second Alice.
    """

    def __init__(self, usernames: Iterable[str], codes: Iterable[str]) -> None:
        self._usernames = _lookups(usernames)
        self._codes = _lookups(codes)
        self._index = lookup.LazyIndex()

    @classmethod
    def for_data(cls, data: Mapping[str, str]) -> Directory:
        """From submitted form data: every ``white``, ``black`` and ``tournament`` field,
        with or without a formset prefix."""
        fields: dict[str, list[str]] = {"white": [], "black": [], "tournament": []}
        for key in data:
            name = key.rsplit("-", 1)[-1]
            if name in fields:
                fields[name].append(data[key])
        return cls(fields["white"] + fields["black"], fields["tournament"])

    @cached_property
    def _players(self) -> dict[str, Player]:
        if not self._usernames:
            return {}
        matches = Q()
        for name in self._usernames:
            matches |= Q(username__iexact=name)
        found: dict[str, Player] = {}
        # select_related: the sheet's service reads each player's club (founding date).
        for player in lookup.lookup_players().filter(matches).select_related("club", "merged_into"):
            found[player.username] = player
            found.setdefault(player.username.lower(), player)
        return found

    @cached_property
    def _tournaments(self) -> dict[str, Tournament]:
        if not self._codes:
            return {}
        return {t.code: t for t in Tournament.objects.filter(code__in=self._codes)}

    def player(self, text: str) -> Player:
        """The player ``text`` names (see ``players.lookup``): usernames come from the
        one query above, anything else from the lookup index, built once per sheet."""
        players = self._players
        exact = players.get(text) or players.get(text.lower())
        if exact is not None:
            return lookup.resolve(lookup.Lookup(text, player=exact))
        return lookup.resolve(
            self._index.index.find(text),
            if_new=pgettext("a name on the sheet that is a new player", "add them first"),
        )

    def tournament(self, code: str) -> Tournament | None:
        return self._tournaments.get(code)


class GameFieldsForm(forms.Form):
    """The fields of one game: a row of a record sheet, or a correction."""

    date = TypedDateField(label=gettext_lazy("Date"), initial=timezone.localdate, help_text="")
    white = forms.CharField(
        label=pgettext_lazy("player", "White"), max_length=150, widget=_player_input()
    )
    black = forms.CharField(
        label=pgettext_lazy("player", "Black"), max_length=150, widget=_player_input()
    )
    handicap = forms.IntegerField(
        label=gettext_lazy("Handicap"),
        min_value=0,
        max_value=9,
        initial=0,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "data-handicap-field": ""}),
    )
    # The range is clean_komi's, with a message that says what a komi is.
    komi = FiniteDecimalField(
        label=gettext_lazy("Komi"),
        required=False,
        max_digits=Game._meta.get_field("komi").max_digits,
        decimal_places=Game._meta.get_field("komi").decimal_places,
        initial=Decimal("6.5"),
        # Text, not a number input: Chromium drops the comma of a typed "7,5" and sends
        # 75, while the page itself writes 6,5 in French and Afrikaans. Shown the page's
        # way (localize), read either way (decimal_comma).
        decimal_comma=True,
        localize=True,
        widget=forms.TextInput(
            attrs={"inputmode": "decimal", "autocomplete": "off", "data-komi-field": ""}
        ),
    )
    winner = forms.ChoiceField(label=gettext_lazy("Winner"), choices=WINNER_CHOICES)
    status = forms.ChoiceField(
        label=gettext_lazy("Status"), choices=STATUS_CHOICES, initial=Game.Status.NORMAL
    )
    comment = forms.CharField(label=gettext_lazy("Comment"), required=False, max_length=500)
    tournament = forms.CharField(
        label=gettext_lazy("Tournament"),
        required=False,
        max_length=50,
        widget=forms.TextInput(attrs={"list": TOURNAMENT_OPTIONS, "autocomplete": "off"}),
    )
    round = forms.IntegerField(
        label=gettext_lazy("Round"),
        required=False,
        min_value=0,
        max_value=MAX_ROUND,
        initial=0,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    board_size = forms.TypedChoiceField(
        label=gettext_lazy("Board size"),
        choices=Game._meta.get_field("board_size").flatchoices,
        coerce=int,
        initial=19,
    )
    time_minutes = forms.IntegerField(
        label=gettext_lazy("Time (min)"),
        required=False,
        min_value=1,
        max_value=MAX_TIME_MINUTES,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )

    # Shown on the record sheet only when a row asks for them.
    MORE_FIELDS = ("tournament", "round", "board_size", "time_minutes")

    def __init__(self, *args, directory: Directory | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.directory = directory or Directory.for_data(self.data)
        # The komi the row's script puts in when the handicap changes, written as the
        # page writes numbers (6,5 in French), as the field itself shows its value.
        self.fields["komi"].widget.attrs |= {
            "data-even-komi": localize_input(default_komi(0)),
            "data-handicap-komi": localize_input(default_komi(1)),
        }
        # Player fields naming nobody: the page offers to add that player there.
        self.unknown_players: set[str] = set()

    def _clean_player(self, name: str) -> Player:
        try:
            return self.directory.player(self.cleaned_data[name].strip())
        except forms.ValidationError as error:
            if error.code == "unknown":
                self.unknown_players.add(name)
            raise

    def clean_white(self) -> Player:
        return self._clean_player("white")

    def clean_black(self) -> Player:
        return self._clean_player("black")

    def clean_komi(self) -> Decimal | None:
        komi = self.cleaned_data["komi"]
        if komi is not None and (komi * 2) % 1:
            raise forms.ValidationError(
                _("%(komi)s is not a komi: use a multiple of 0.5") % {"komi": decimal_text(komi)}
            )
        if komi is not None and not -KOMI_LIMIT <= komi <= KOMI_LIMIT:
            raise forms.ValidationError(
                _("%(komi)s is not a komi: it lies between -50 and 50")
                % {"komi": decimal_text(komi)}
            )
        return komi

    def clean_tournament(self) -> Tournament | None:
        code = self.cleaned_data["tournament"].strip()
        if not code:
            return None
        tournament = self.directory.tournament(code)
        if tournament is None:
            raise forms.ValidationError(
                _("no tournament with the code '%(code)s'") % {"code": code}, code="unknown"
            )
        return tournament

    def clean_round(self) -> int:
        return self.cleaned_data["round"] or 0

    def clean_date(self):
        day = self.cleaned_data["date"]
        if day > timezone.localdate():
            raise forms.ValidationError(
                _("%(date)s is in the future") % {"date": day}, code="future"
            )
        return day

    def clean(self) -> dict[str, Any]:
        """The checks across fields, in the same round as each field's own: every
        error of the row shows at once."""
        super().clean()
        data = self.cleaned_data
        white, black = data.get("white"), data.get("black")
        if white is not None and black is not None and white.pk == black.pk:
            self.add_error("black", _("a player cannot play themselves"))
        winner, komi, handicap = data.get("winner"), data.get("komi"), data.get("handicap")
        if komi is None and handicap is not None and not self.has_error("komi"):
            komi = default_komi(handicap)
        if winner and komi is not None:
            jigo = jigo_problem(winner, komi)
            if jigo:
                self.add_error("winner", jigo)
        return data

    def more_fields_in_use(self) -> bool:
        """Whether the row's tournament, round, board or time differ from the defaults
        or have errors (then the sheet shows them unfolded)."""
        for name in self.MORE_FIELDS:
            if self[name].errors:
                return True
            value = self[name].value()
            if value not in (None, "", self.fields[name].initial, str(self.fields[name].initial)):
                return True
        return False

    def game_input(self) -> GameInput:
        data = self.cleaned_data
        return GameInput(
            date=data["date"],
            white=data["white"],
            black=data["black"],
            winner=data["winner"],
            handicap=data["handicap"],
            komi=data["komi"],
            status=data["status"],
            board_size=data["board_size"],
            time_minutes=data["time_minutes"],
            tournament=data["tournament"],
            round=data["round"],
            comment=data["comment"].strip(),
        )


class SheetGameForm(GameFieldsForm):
    """One row of a record sheet."""

    # An untouched row is skipped. Its date and komi do not count: a new row copies the
    # previous row's date, and the komi follows the handicap on its own.
    IGNORED_FOR_BLANK = frozenset({"date", "komi"})

    def has_changed(self) -> bool:
        if self.is_bound and not self._posted():
            return False  # a row the page removed (or a forged count): blank
        return bool(set(self.changed_data) - self.IGNORED_FOR_BLANK)

    def _posted(self) -> bool:
        """Whether the POST holds any field of this row."""
        start = f"{self.prefix}-"
        return any(key.startswith(start) for key in self.data)


class BaseSheetFormSet(forms.BaseFormSet):
    """The rows of a record sheet; blank rows are skipped, and at least one game is needed."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.directory = Directory.for_data(self.data)

    def get_form_kwargs(self, index):
        return {**super().get_form_kwargs(index), "directory": self.directory}

    def filled_forms(self) -> list[SheetGameForm]:
        return [form for form in self.forms if form.has_changed()]

    def shown_forms(self) -> list[SheetGameForm]:
        """The rows the page shows again: every filled row (or one with an error) and at
        most ``extra`` empty ones. A forged ``form-TOTAL_FORMS`` of 200 empty rows is
        not rendered back (a row takes tens of milliseconds to render); the rows left
        out are empty, which the sheet's script and the formset read as nothing."""
        if not self.is_bound:
            return list(self.forms)
        shown, empty = [], 0
        for form in self.forms:
            if form.has_changed() or form.errors:
                shown.append(form)
            elif empty < self.extra:
                shown.append(form)
                empty += 1
        return shown

    def clean(self) -> None:
        if not any(form.has_changed() for form in self.forms):
            raise forms.ValidationError(_("Enter at least one game."), code="no_games")

    def game_inputs(self) -> list[GameInput]:
        """The games in row order (call after ``is_valid()``)."""
        return [form.game_input() for form in self.filled_forms()]

    def doubts_of_valid_rows(self) -> list[str]:
        """On a sheet refused for its errors (after ``is_valid()``), the duplicates and
        far-off dates among its rows without errors, named as the save will name them
        ("game 3": the third filled row), so that they show in the same round and
        "save anyway" can confirm them with the fixes."""
        numbered = [
            (number, form)
            for number, form in enumerate(self.filled_forms(), start=1)
            if not form.errors
        ]
        if not numbered:
            return []
        return doubtful_games(
            [form.game_input() for _number, form in numbered],
            [_("game %(number)s") % {"number": number} for number, _form in numbered],
        )

    def add_service_errors(self, error: ServiceError) -> bool:
        """Put each of the service's (game number, field, message) on its row and field;
        False if the error names no game (the caller shows it for the whole sheet)."""
        forms_by_number = dict(enumerate(self.filled_forms(), start=1))
        placed = False
        for where, field_name, message in error.errors:
            form = forms_by_number.get(where)
            if form is not None:
                add_field_error(form, field_name, message)
                placed = True
        return placed


# absolute_max: a forged form-TOTAL_FORMS builds at most this many forms (Django's
# default, max_num + 1,000, rendered 1,200 rows in 17 to 27 s). formset_factory builds a
# subclass of the ``formset`` it is given (its type in the stubs says only BaseFormSet).
SheetGameFormSet = cast(
    type[BaseSheetFormSet],
    forms.formset_factory(
        SheetGameForm,
        formset=BaseSheetFormSet,
        extra=3,
        min_num=0,
        max_num=200,
        absolute_max=200,
        validate_max=True,
    ),
)


def offer_clubs(
    field: forms.ModelChoiceField, clubs: QuerySet[Club] | None, every_club: bool
) -> None:
    """``field`` offers ``clubs`` (None: every club): with the roles for every club, any
    club or none (the federation's); a club's roles choose one of their clubs (their
    one club chosen already)."""
    field.queryset = Club.objects.all() if clubs is None else clubs
    if not every_club:
        field.required = True
        field.empty_label = _("Choose the club")
        if len(field.queryset) == 1:
            field.initial, field.empty_label = field.queryset[0].pk, None


class SheetForm(forms.Form):
    """What belongs to the sheet rather than to one game: the club whose evening or
    tournament it records (one of the clubs the volunteer acts for; blank, the
    federation's, for the volunteers of every club)."""

    club = ClubChoiceField(
        queryset=Club.objects.none(),
        required=False,
        label=gettext_lazy("Club"),
        empty_label=gettext_lazy("None: the federation's"),
        help_text=gettext_lazy(
            "The club whose evening or tournament this is; anyone may have played."
        ),
    )

    received_on = TypedDateField(
        label=gettext_lazy("Sheet received on"), required=False, initial=timezone.localdate
    )
    note = forms.CharField(
        label=gettext_lazy("Note"),
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    save_duplicates = forms.BooleanField(
        label=gettext_lazy("I have checked these games: save anyway"), required=False
    )
    # A fingerprint of the warnings (duplicates, outlying dates) the volunteer was
    # shown: "save anyway" confirms those games, not whatever a later edit makes.
    duplicates_seen = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(
        self, *args, clubs: QuerySet[Club] | None = None, every_club: bool = True, **kwargs
    ) -> None:
        super().__init__(*args, **kwargs)
        # The form's copy of ``club`` declared above: a ModelChoiceField.
        offer_clubs(cast(forms.ModelChoiceField, self.fields["club"]), clubs, every_club)


class GameCorrectionForm(GameFieldsForm):
    """Every field of a stored game, and the version it was loaded at."""

    version = forms.IntegerField(min_value=1, max_value=MAX_VERSION, widget=forms.HiddenInput)
    # Shown only when the new date is far from the players' other games.
    confirm_date = forms.BooleanField(
        label=gettext_lazy("The date is right: save anyway"), required=False
    )

    # On the one-game page there is room to explain (the sheet's rows have none).
    HELP = {
        "date": gettext_lazy(
            "Change it to back-date the game: ratings are recomputed from the earlier date."
        ),
        "komi": gettext_lazy("Empty: 6.5 for an even game, 0.5 with handicap."),
        "tournament": gettext_lazy("Tournament code; empty for a club game."),
        "time_minutes": gettext_lazy("Main time per player, in minutes."),
    }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for name, text in self.HELP.items():
            self.fields[name].help_text = text

    @staticmethod
    def initial_for(game: Game) -> dict:
        return {
            "date": game.date,
            "white": game.white.username,
            "black": game.black.username,
            "handicap": game.handicap,
            "komi": game.komi,
            "winner": game.winner,
            "status": game.status,
            "comment": game.comment,
            "tournament": game.tournament.code if game.tournament is not None else "",
            "round": game.round,
            "board_size": game.board_size,
            "time_minutes": game.time_minutes,
            "version": game.version,
        }

    def differences_from(self, game: Game) -> list[tuple[_StrOrPromise, str, str]]:
        """(label, the game's value now, the value typed) for each field where they
        differ: what a volunteer would lose if the page only showed the current game."""
        current = self.initial_for(game)
        differences = []
        for name, field in self.fields.items():
            typed = self[name].value()
            if name in current and name != "version" and field.has_changed(current[name], typed):
                now = _as_the_field_shows(field, current[name])
                if isinstance(field, forms.ChoiceField):
                    typed = _as_the_field_shows(field, typed)
                differences.append((self[name].label, now, typed))
        return differences


def _as_the_field_shows(field: forms.Field, value) -> str:
    """``value`` as ``field`` shows it on the page: a choice by its label ("Tournoi",
    "B (Noir)", not the stored code), anything else as its input writes it (a komi of
    0,5 in French)."""
    if value is None:
        return ""
    if isinstance(field, forms.ChoiceField):
        # Flat (key, label) pairs: the game fields' choices have no groups.
        choices = cast("Iterable[tuple[Any, Any]]", field.choices)
        labels = {str(key): label for key, label in choices}
        return str(labels.get(str(value), value))
    return str(field.widget.format_value(field.prepare_value(value)) or "")


class GameVoidForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=500,
        help_text=gettext_lazy("Why this game does not count (kept in the audit trail)."),
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    version = forms.IntegerField(min_value=1, max_value=MAX_VERSION, widget=forms.HiddenInput)

    def clean_reason(self) -> str:
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError(_("Say why the game is void."))
        return reason


class PlayerCreateForm(forms.Form):
    username = forms.SlugField(
        label=gettext_lazy("Username"),
        max_length=150,
        allow_unicode=True,
        # Django's own message speaks of a "slug", a word no volunteer knows.
        error_messages={
            "invalid": gettext_lazy(
                "A username has letters, digits, - and _ only: no spaces or other signs "
                "(e.g. thandi-nkosi)."
            )
        },
        help_text=gettext_lazy(
            "How the player is known on the sheets and in the site's addresses: "
            "letters, digits, - and _ only."
        ),
        widget=forms.TextInput(attrs={"autocapitalize": "none", "spellcheck": "false"}),
    )
    full_name = forms.CharField(label=gettext_lazy("Full name"), max_length=200)
    club = ClubChoiceField(
        label=gettext_lazy("Club"),
        queryset=Club.objects.all(),
        required=False,
        empty_label=gettext_lazy("no club"),
    )
    national_rank = RankFormField(
        label=gettext_lazy("National rank"),
        help_text=gettext_lazy(
            "e.g. 15k, 3d or 1p. The player's starting rank on every rating list."
        ),
    )
    egd_pin = forms.CharField(
        label=gettext_lazy("EGD PIN"),
        required=False,
        max_length=20,
        help_text=gettext_lazy("If the player has one (European Go Database)."),
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    someone_else = forms.BooleanField(
        label=gettext_lazy("This is someone else: add them anyway"),
        required=False,
        help_text=gettext_lazy("Tick only after checking the similar names shown above."),
    )

    def __init__(
        self,
        *args,
        clubs: QuerySet[Club] | None = None,
        ask_someone_else: bool = False,
        **kwargs,
    ) -> None:
        """``clubs``: those the volunteer may give a new player (None: every club).
        ``ask_someone_else``: render the "add them anyway" box, for a page that shows it
        itself once similar names come back (the sheet's dialog). Otherwise it shows
        only with the similar names, or once ticked."""
        super().__init__(*args, **kwargs)
        if clubs is not None:
            # The form's copy of ``club`` declared above: a ModelChoiceField.
            cast(forms.ModelChoiceField, self.fields["club"]).queryset = clubs
        if not ask_someone_else and not (self.is_bound and self["someone_else"].data):
            self.fields["someone_else"].widget = forms.HiddenInput()

    def clean_egd_pin(self) -> str:
        # Checked here too (the service checks again), so it shows with the other errors.
        egd_pin = self.cleaned_data["egd_pin"].strip()
        problem = pin_problem(egd_pin)
        if problem:
            raise forms.ValidationError(problem)
        return egd_pin

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        full_name = data.get("full_name", "").strip()
        if full_name and not data.get("someone_else"):
            similar = lookup.player_index().similar_names(full_name)
            if similar:
                message = _(
                    "similar names on file: %(names)s. Is it one of them? "
                    "If not, tick “This is someone else” and add again."
                ) % {"names": lookup.describe(similar)}
                self.add_error("full_name", forms.ValidationError(message, code="similar"))
                self.fields["someone_else"].widget = forms.CheckboxInput()
        return data

    def clean_username(self) -> str:
        username = self.cleaned_data["username"]
        if username.lower() in RESERVED_USERNAMES:
            raise forms.ValidationError(
                _("'%(username)s' is reserved: choose another username") % {"username": username}
            )
        taken = Player.objects.filter(username__iexact=username).values_list("username", flat=True)
        if taken:
            raise forms.ValidationError(
                _("the username '%(username)s' is taken (by %(holder)s)")
                % {"username": username, "holder": taken[0]}
            )
        return username


def _by_label(choices: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    return sorted(choices, key=lambda choice: (choice[1].casefold(), choice[0]))


class AuditFilterForm(forms.Form):
    """The audit trail's filters; every one optional."""

    action = forms.ChoiceField(label=gettext_lazy("Action"), required=False)
    user = forms.ModelChoiceField(
        label=gettext_lazy("User"),
        queryset=get_user_model().objects.order_by("username"),
        required=False,
        to_field_name="username",
    )
    object_type = forms.ChoiceField(label=gettext_lazy("Object"), required=False)
    object_id = forms.CharField(label=gettext_lazy("Object id"), required=False, max_length=50)
    since = TypedDateField(label=gettext_lazy("From"), required=False, help_text="")
    until = TypedDateField(label=gettext_lazy("To"), required=False, help_text="")
    club = ClubChoiceField(label=gettext_lazy("Club"), queryset=Club.objects.none(), required=False)

    def __init__(
        self,
        *args,
        actions: Iterable[str],
        object_types: Iterable[str],
        clubs: QuerySet[Club] | None = None,
        **kwargs,
    ) -> None:
        super().__init__(*args, **kwargs)
        # The form's copies of the fields declared above, of the classes declared there.
        club = cast(forms.ModelChoiceField, self.fields["club"])
        club.queryset = Club.objects.all() if clubs is None else clubs
        club.empty_label = _("any club")
        # The codes are the values (a URL of the trail reads the same in any language);
        # the labels, in the reader's language, are what the lists show and sort by.
        action = cast(forms.ChoiceField, self.fields["action"])
        action.choices = [
            ("", _("any action")),
            *_by_label((a, audit_action_label(a)) for a in actions),
        ]
        object_type = cast(forms.ChoiceField, self.fields["object_type"])
        object_type.choices = [
            ("", _("any object")),
            *_by_label((t, audit_object_label(t)) for t in object_types),
        ]
        cast(forms.ModelChoiceField, self.fields["user"]).empty_label = _("anyone")
        self.helper = FormHelper()
        self.helper.form_tag = False  # the template's <form method="get"> holds its button
        self.helper.layout = Layout(
            Row(
                Column("action", css_class="col-6 col-md-2"),
                Column("user", css_class="col-6 col-md-2"),
                Column("club", css_class="col-6 col-md-2"),
                Column("object_type", css_class="col-6 col-md-2"),
                Column("object_id", css_class="col-6 col-md-1"),
                Column("since", css_class="col-6 col-md-1"),
                Column("until", css_class="col-6 col-md-2"),
            ),
        )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            self.add_error(
                "until", _("%(until)s is before %(since)s") % {"until": until, "since": since}
            )
        return data
