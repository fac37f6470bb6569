"""Forms of the data exchange pages: a tournament file to import (the upload, then the
preview's confirmation with each player's username) and a new tournament.

The file is read here into the engine's ``TournamentFile``; a file the readers refuse
leaves its line-numbered errors in ``file_errors``. The preview sends the file back
with the confirmation, packed into a hidden field, and it is read and matched again
then: nothing the browser kept is trusted.
"""

from __future__ import annotations

import base64
import binascii
import zlib
from collections.abc import Sequence
from typing import Any, cast

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import validate_unicode_slug
from django.db.models import Q, QuerySet
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from players.entry.forms import RESERVED_USERNAMES, offer_clubs
from players.models import Club, Player, Tournament
from players.selectors.tournaments import tournament_by_code
from players.services.tournament_files import PlayerMatch, tournament_file_problem
from players.services.tournaments import tournament_code_problem
from players.web.forms import ClubChoiceField
from ratings.engine.formats import FORMATS, TournamentFile, guess_format, read_tournament_file
from ratings.engine.records import GameFileError, RowError

MAX_UPLOAD_BYTES = 5 * 1024 * 1024  # real tournament files are below 1 MB
# Django refuses a form whose fields pass DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB by
# default), and the preview sends the file back in one: compressed, a 5 MB file of
# names and results takes well under this.
MAX_PACKED_CHARS = 2 * 1024 * 1024

FORMAT_LABELS = {"egd": gettext_lazy("EGD h-file"), "opengotha": gettext_lazy("OpenGotha XML")}
CLASS_CHOICES = Tournament.EgfClass.choices


def pack(data: bytes) -> str:
    """File bytes as text for a hidden field."""
    return base64.b64encode(zlib.compress(data, 9)).decode("ascii")


def unpack(text: str) -> bytes:
    """The bytes :func:`pack` made; anything else, or more than the upload limit once
    inflated, is refused."""
    try:
        inflater = zlib.decompressobj()
        data = inflater.decompress(base64.b64decode(text, validate=True), MAX_UPLOAD_BYTES)
    except (binascii.Error, zlib.error, ValueError):
        data, inflater = b"", None
    if inflater is None or not inflater.eof or inflater.unconsumed_tail:
        raise ValidationError(_("The file did not come back intact: upload it again."))
    return data


def _code_field(**options) -> forms.CharField:
    return forms.CharField(
        max_length=50,
        widget=forms.TextInput(attrs={"autocapitalize": "none", "spellcheck": "false"}),
        **options,
    )


def _clean_code(code: str) -> str:
    code = code.strip()
    problem = tournament_code_problem(code) if code else None
    if problem:
        raise ValidationError(problem)
    return code


def _club_field() -> forms.ModelChoiceField:
    return ClubChoiceField(
        queryset=Club.objects.none(),
        required=False,
        empty_label=gettext_lazy("None: the federation's"),
        label=gettext_lazy("Club"),
        help_text=gettext_lazy(
            "The club that holds the tournament: its volunteers correct and void its games, "
            "and it is listed on the club's page."
        ),
    )


class _ClubsOffered:
    """A form whose ``club`` offers the clubs the volunteer acts for (``clubs``: None,
    every club; ``every_club``: the roles for every club, who may choose none)."""

    fields: dict[str, forms.Field]  # the form's, which this class is mixed into

    def offer(self, clubs: QuerySet[Club] | None, every_club: bool) -> None:
        # Each form mixing this in declares ``club`` a ModelChoiceField (_club_field).
        offer_clubs(cast(forms.ModelChoiceField, self.fields["club"]), clubs, every_club)


class _TournamentFileForm(_ClubsOffered, forms.Form):
    """What both steps share: reading the file, under another code or class if asked,
    for a club."""

    club = _club_field()

    def __init__(
        self, *args, clubs: QuerySet[Club] | None = None, every_club: bool = True, **kwargs
    ) -> None:
        super().__init__(*args, **kwargs)
        self.file_errors: list[RowError] = []
        self.tournament_file: TournamentFile | None = None
        self.offer(clubs, every_club)
        # A club's volunteer names the club of a new tournament; a tournament on file
        # has its own (the games added to it are its club's), so the choice is asked
        # for once the file says which tournament it is (clean_club_of_new).
        club = self.fields["club"]
        self.club_needed = club.required
        club.required = False

    def clean_code(self) -> str:
        return _clean_code(self.cleaned_data["code"])

    def read(self, data: bytes, file_format: str) -> None:
        """Read ``data``; the file's errors go to ``file_errors`` and stop the form."""
        cleaned = self.cleaned_data
        try:
            tournament = read_tournament_file(data, file_format, cleaned.get("filename", ""))
        except GameFileError as error:
            self.file_errors = error.errors
            count = len(error.errors)
            raise ValidationError(
                ngettext(
                    "The %(format)s has %(count)s error: nothing can be imported until the "
                    "file is corrected.",
                    "The %(format)s has %(count)s errors: nothing can be imported until the "
                    "file is corrected.",
                    count,
                )
                % {"format": FORMAT_LABELS[file_format], "count": count}
            ) from None
        code, tournament_class = (
            cleaned.get("code") or None,
            cleaned.get("tournament_class") or None,
        )
        self.tournament_file = tournament.renamed(code=code, tournament_class=tournament_class)
        self.clean_club_of_new()

    def clean_club_of_new(self) -> None:
        """A club's volunteer who left the club empty is asked for it only when the
        file's tournament is not on file yet."""
        assert self.tournament_file is not None
        if (
            self.club_needed
            and not self.cleaned_data.get("club")
            and tournament_by_code(self.tournament_file.tournament.code) is None
        ):
            self.add_error("club", self.fields["club"].error_messages["required"])


def _upload_help_now() -> str:
    return _(
        "An EGD tournament result file (h9, h4…) or an OpenGotha XML file, at most %(size)s MB."
    ) % {"size": MAX_UPLOAD_BYTES // (1024 * 1024)}


# Built at import, said in each request's language.
_upload_help = lazy(_upload_help_now, str)


class TournamentUploadForm(_TournamentFileForm):
    """A tournament file to preview."""

    file = forms.FileField(
        label=gettext_lazy("File"),
        help_text=_upload_help(),
    )
    file_format = forms.ChoiceField(
        label=gettext_lazy("Format"),
        required=False,
        choices=[("", gettext_lazy("Detect from the content")), *FORMAT_LABELS.items()],
    )
    code = _code_field(
        required=False,
        label=gettext_lazy("Store under the code"),
        help_text=gettext_lazy(
            "Leave empty for the file's own code (or its name, made into a code)."
        ),
    )
    tournament_class = forms.ChoiceField(
        label=gettext_lazy("EGF class"),
        required=False,
        choices=[
            ("", gettext_lazy("As the file says (OpenGotha: from its time control)")),
            *CLASS_CHOICES,
        ],
    )

    def clean_file(self) -> bytes:
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            raise ValidationError(
                _(
                    "The file is %(size)s MB; the limit is %(limit)s MB. Tournament files are "
                    "far smaller: is this the right file?"
                )
                % {
                    "size": f"{upload.size / (1024 * 1024):.1f}",
                    "limit": MAX_UPLOAD_BYTES // (1024 * 1024),
                }
            )
        self.cleaned_data["filename"] = upload.name
        data = upload.read()
        # Checked before reading: the h-file reader would count noise's lines as players.
        problem = tournament_file_problem(data)
        if problem:
            raise ValidationError(problem)
        return data

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        data = cleaned.get("file")
        if data is not None and not self.errors:
            cleaned["file_format"] = cleaned.get("file_format") or guess_format(data)
            self.read(data, cleaned["file_format"])
            if len(pack(data)) > MAX_PACKED_CHARS:
                raise ValidationError(_("The file is too large to be confirmed in one page."))
        return cleaned


class TournamentImportForm(_TournamentFileForm):
    """The previewed file sent again, with the tournament's code and class as the
    preview showed them (editable), the fingerprint of the plan the user saw, and the
    answer to the duplicates question."""

    content = forms.CharField(widget=forms.HiddenInput, max_length=MAX_PACKED_CHARS)
    filename = forms.CharField(widget=forms.HiddenInput, required=False, max_length=255)
    file_format = forms.ChoiceField(widget=forms.HiddenInput, choices=[(f, f) for f in FORMATS])
    code = _code_field(label=gettext_lazy("Code"))
    tournament_class = forms.ChoiceField(label=gettext_lazy("EGF class"), choices=CLASS_CHOICES)
    fingerprint = forms.CharField(widget=forms.HiddenInput, required=False, max_length=64)
    save_duplicates = forms.BooleanField(
        label=gettext_lazy("These are not duplicates: import them anyway"), required=False
    )
    duplicates_seen = forms.CharField(widget=forms.HiddenInput, required=False, max_length=64)

    def clean_content(self) -> bytes:
        return unpack(self.cleaned_data["content"])

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        # Read even when the code or class typed is wrong: the preview shows the file
        # again with the error at its field.
        if "content" in cleaned and "file_format" in cleaned:
            self.read(cleaned["content"], cleaned["file_format"])
        return cleaned

    @staticmethod
    def initial_for(
        data: bytes, file_format: str, filename: str, tournament: TournamentFile, club=None
    ):
        info = tournament.tournament
        chosen = {} if club is None else {"club": club.pk}
        return {
            **chosen,
            "content": pack(data),
            "filename": filename,
            "file_format": file_format,
            "code": info.code,
            "tournament_class": info.tournament_class,
        }


def _username_field_name(number: int) -> str:
    return f"player_{number}"


class FilePlayersForm(forms.Form):
    """Who each player of the file is on the site: one username a player, filled in
    with the plan's match. A username typed over the matching shown is the user's
    choice: a username on file is that player, any other a new player created under
    it. A field left as it was, left empty or not shown follows the matching, which
    may have changed since the page was made (someone added the player meanwhile).

    Bound, ``matches`` are the matching as it is now; unbound, the plan to show, and
    ``automatic`` the matching it was made from (default: the same). The usernames of
    that matching travel in one hidden field: a field per player would pass Django's
    limit on a form's fields (DATA_UPLOAD_MAX_NUMBER_FIELDS) for a big tournament."""

    shown = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(
        self,
        *args,
        matches: Sequence[PlayerMatch],
        automatic: Sequence[PlayerMatch] | None = None,
        **kwargs,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.matches = list(matches)
        self.initial.setdefault(
            "shown", "\n".join(match.username for match in automatic or matches)
        )
        for match in self.matches:
            name = _username_field_name(match.file_player.number)
            self.fields[name] = forms.CharField(
                required=False,
                max_length=150,
                label=match.file_player.full_name or match.username,
            )
            self.initial.setdefault(name, match.username)
        self.mapping: dict[str, str] = {}
        self.new_usernames: dict[str, str] = {}

    def field_for(self, match: PlayerMatch) -> forms.BoundField:
        return self[_username_field_name(match.file_player.number)]

    def _typed_over(self) -> dict[str, tuple[str, str]]:
        """(field, username) by file player, where the user typed over the matching."""
        shown = self.cleaned_data.get("shown", "").split("\n")
        if len(shown) != len(self.matches):  # from another file: nothing was shown
            shown = [""] * len(self.matches)
        typed_over = {}
        for match, username_shown in zip(self.matches, shown, strict=True):
            name = _username_field_name(match.file_player.number)
            typed = (self.cleaned_data.get(name) or "").strip()
            if typed and typed not in (username_shown, match.username):
                typed_over[match.file_player.username] = (name, typed)
        return typed_over

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        typed_over = self._typed_over()
        lookup = Q(pk__in=[])
        for _name, typed in typed_over.values():
            lookup |= Q(username__iexact=typed)
        on_file = {player.username.lower(): player for player in Player.objects.filter(lookup)}
        for suggestion, (name, typed) in typed_over.items():
            player = on_file.get(typed.lower())
            if player is not None and player.active:
                self.mapping[suggestion] = player.username
            elif player is not None:
                self.add_error(
                    name,
                    _("%(username)s is an inactive record (merged into another)")
                    % {"username": player.username},
                )
            elif typed.lower() in RESERVED_USERNAMES:
                self.add_error(
                    name,
                    _("'%(username)s' is reserved: choose another username") % {"username": typed},
                )
            else:
                try:
                    validate_unicode_slug(typed)
                except ValidationError:
                    self.add_error(
                        name,
                        _("'%(username)s' is not a username: letters, digits, - and _ only")
                        % {"username": typed},
                    )
                else:
                    self.new_usernames[suggestion] = typed
        return cleaned


class TournamentCreateForm(_ClubsOffered, forms.Form):
    club = _club_field()
    code = _code_field(
        label=gettext_lazy("Code"),
        help_text=gettext_lazy(
            "How sheets and addresses name it: letters, digits, - and _ (e.g. spring-cup-2025)."
        ),
    )
    name = forms.CharField(label=gettext_lazy("Name"), max_length=200)
    start_date = forms.DateField(
        label=gettext_lazy("Start date"), widget=forms.DateInput(attrs={"type": "date"})
    )
    end_date = forms.DateField(
        label=gettext_lazy("End date"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=gettext_lazy("Empty for a one-day tournament."),
    )
    egf_class = forms.ChoiceField(
        label=gettext_lazy("EGF class"),
        choices=CLASS_CHOICES,
        initial=Tournament.EgfClass.A,
        help_text=gettext_lazy(
            "Its weight in the EGF ratings; A for a club tournament unless the "
            "organisers say otherwise."
        ),
    )

    def __init__(
        self, *args, clubs: QuerySet[Club] | None = None, every_club: bool = True, **kwargs
    ) -> None:
        super().__init__(*args, **kwargs)
        self.offer(clubs, every_club)

    def clean_code(self) -> str:
        return _clean_code(self.cleaned_data["code"])

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if cleaned.get("start_date") and not cleaned.get("end_date"):
            cleaned["end_date"] = cleaned["start_date"]
        return cleaned
