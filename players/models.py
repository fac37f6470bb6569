"""Player, Club, Tournament, RecordSheet, Game, Adjustment, ResyncBatch, ResyncUpload and
the audit trail.

Games and adjustments are the site's truth: every rating is replayed from them.
They are written only through ``players.services`` (one transaction each, audited,
marking the ratings dirty); the admin shows them read-only.
"""

from __future__ import annotations

import functools
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from ratings.engine.records import GameRecord, Status, Winner

from .fields import RankField

if TYPE_CHECKING:
    from players.selectors.games import RecomputeStatus
    from ratings.models import CurrentRating


class Club(models.Model):
    name = models.CharField(max_length=100, unique=True)
    founded = models.DateField(null=True, blank=True)

    # Not a field: the ids of the players of other clubs who are members of this one,
    # kept on the instance for one request by players.selectors.players (when set).
    _other_current_members: list[int]

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("club_detail", args=[self.pk])


class ClubRole(models.Model):
    """A role (the Django group ``volunteers`` or ``committee``) held for one club.

    A role held in the group itself is held for every club: the federation's
    volunteers and committee (what every role was before clubs had their own). A user's
    rights are the union of the two (players.permissions)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="club_roles"
    )
    group = models.ForeignKey("auth.Group", on_delete=models.PROTECT, related_name="club_roles")
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="roles")
    granted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["club", "group", "user"]
        constraints = [
            models.UniqueConstraint(fields=["user", "group", "club"], name="club_role_once")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.group_id} of club {self.club_id}"


class MembershipQuerySet(models.QuerySet):
    def on(self, day):
        """The memberships that held on ``day`` (from ``start`` to the day before ``end``)."""
        return self.filter(
            models.Q(start__isnull=True) | models.Q(start__lte=day),
            models.Q(end__isnull=True) | models.Q(end__gt=day),
        )


class Membership(models.Model):
    """A player's membership of a club, from ``start`` (blank: since before the site's
    records) until the day before ``end`` (blank: still a member). A player may belong
    to two clubs; a move ends one membership and starts another. ``Player.club`` is the
    club of the player's current membership (the earliest started, if they have two),
    kept by players.services.memberships."""

    player = models.ForeignKey("Player", on_delete=models.CASCADE, related_name="memberships")
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="memberships")
    start = models.DateField(null=True, blank=True)
    end = models.DateField(null=True, blank=True)

    objects = MembershipQuerySet.as_manager()

    class Meta:
        ordering = ["player", "start", "club"]
        indexes = [models.Index(fields=["club", "start", "end"], name="membership_club_dates")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(start__isnull=True)
                | models.Q(end__isnull=True)
                | models.Q(end__gt=models.F("start")),
                name="membership_ends_after_start",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.club_id} from {self.start} to {self.end}"


class PlayerQuerySet(models.QuerySet):
    def active(self):
        return self.filter(active=True)


# Lowercase words that belong to the family name that follows them ("Sofia du
# Plessis": family name "du Plessis").
FAMILY_NAME_PARTICLES = frozenset(
    {"da", "das", "de", "del", "della", "dei", "der", "des", "di", "do", "dos", "du"}
    | {"el", "la", "le", "lo", "ten", "ter", "van", "von", "zu"}
)


def split_full_name(full_name: str) -> tuple[str, str]:
    """(given name, family name) of a full name written "Given Family": the last word
    is the family name, with the lowercase particles before it ("Aya de Groot": "Aya",
    "de Groot"); one word is a family name alone."""
    words = full_name.split()
    if len(words) <= 1:
        return "", " ".join(words)
    start = len(words) - 1
    while start > 1 and words[start - 1] in FAMILY_NAME_PARTICLES:
        start -= 1
    return " ".join(words[:start]), " ".join(words[start:])


_NAME_FIELDS = ("full_name", "given_name", "family_name")
# The names' words in a message (the fields' verbose names stay as they are: the
# migrations hold them).
_NAME_LABELS = {
    "full_name": pgettext_lazy("a name field, in a message", "full name"),
    "given_name": pgettext_lazy("a name field, in a message", "given name"),
    "family_name": pgettext_lazy("a name field, in a message", "family name"),
}


def join_names(given_name: str, family_name: str) -> str:
    """The full name, "Given Family", as lists and the sheet lookup show it."""
    return " ".join(part for part in (given_name.strip(), family_name.strip()) if part)


class Player(models.Model):
    """A person who plays at a club. ``username`` is the stable identifier; two
    players may share a full name.

    Names are kept as federations describe them, family and given name apart;
    ``full_name`` ("Given Family") is derived from them on save. Code that sets only
    ``full_name`` (an older form, say) gets it split (:func:`split_full_name`)."""

    # Not a field: the names (full, given, family) as loaded or last saved, to tell which
    # the caller changed (None, or unset: not all three loaded).
    _loaded_names: tuple[str | None, ...] | None

    # Not a field: the current rating under the club's algorithm, set on the players of
    # the club night's sheet by players.selectors.club_night.active_players.
    club_rating: CurrentRating | None

    username = models.SlugField(max_length=150, unique=True, allow_unicode=True)
    full_name = models.CharField(max_length=200)
    family_name = models.CharField(max_length=150, blank=True)
    given_name = models.CharField(max_length=150, blank=True)
    country = models.CharField(
        max_length=2,
        blank=True,
        help_text="ISO 3166 two-letter country code, as the EGD and OpenGotha give it.",
    )
    federation_club = models.CharField(
        "club (federation)",
        max_length=50,
        blank=True,
        help_text="The club or club abbreviation the federations list (EGD: '75Op').",
    )
    declared_rating = models.IntegerField(
        null=True,
        blank=True,
        help_text="The GoR a tournament file declared at the player's earliest tournament "
        "on file; the EGF algorithms start the player at it.",
    )
    club = models.ForeignKey(
        Club, null=True, blank=True, on_delete=models.PROTECT, related_name="players"
    )
    entry_rank = RankField(help_text="The true entry grade (may be below 30k).")
    national_rank = RankField(null=True, blank=True)
    # Kept by every write of games and adjustments (players.services
    # .refresh_entry_ranks), so that a recompute reads each player's entry in one query.
    declared_rank = RankField(
        null=True,
        blank=True,
        help_text="The rank declared on their earliest game that carries one (or an "
        "adjustment that is their first row); their entry rank when set.",
    )
    egd_pin = models.CharField("EGD PIN", max_length=20, blank=True, db_index=True)
    national_id = models.CharField(
        "national id",
        max_length=30,
        blank=True,
        help_text="The player's id with their national federation (e.g. the AGA ID); "
        "the resync matches a federation's list by it. Unique when set.",
    )
    active = models.BooleanField(default=True)
    last_updated = models.DateField(
        null=True,
        blank=True,
        help_text="Date of the most recently entered game (goes back when an old game is entered).",
    )
    # Kept with last_updated by every write of games (players.services), for the
    # rating list's filters: activity is the latest game played, and the clubs' list
    # leaves out the players seen only at tournaments.
    last_played = models.DateField(
        null=True, blank=True, help_text="Date of the latest valid game played."
    )
    tournament_only = models.BooleanField(
        default=False, help_text="Has valid games, every one of them in a tournament."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Moved by every save (Player.save adds it to update_fields): a tournament's cached
    # crosstable is keyed by its players' latest, so that an edit of a name, country or
    # club (a service or the admin) shows at once (players.public.crosstable_cache).
    updated_at = models.DateTimeField(auto_now=True)
    erased_at = models.DateTimeField(null=True, blank=True)
    # Set when this record was merged into another one (and made inactive).
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="merged_records"
    )
    # The player's own login (linked by the committee): one account per record and one
    # record per account. It lets them read "My page" and report mistakes in their games.
    account = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="player",
    )

    objects = PlayerQuerySet.as_manager()

    class Meta:
        ordering = ["username"]
        constraints = [
            models.UniqueConstraint(
                fields=["national_id"],
                condition=~models.Q(national_id=""),
                name="player_national_id_unique_when_set",
                violation_error_message="Another player has this national id.",
            ),
            # SPEC section 1: 50k (-50) to 9d (8), then 1p-9p (9-17), for both ranks.
            models.CheckConstraint(
                condition=models.Q(entry_rank__gte=-50, entry_rank__lte=17),
                name="player_entry_rank_in_range",
            ),
            models.CheckConstraint(
                condition=models.Q(national_rank__isnull=True)
                | models.Q(national_rank__gte=-50, national_rank__lte=17),
                name="player_national_rank_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.full_name} ({self.username})" if self.full_name else self.username

    def save(self, *args, **kwargs):
        self.sync_names()
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and set(_NAME_FIELDS) & set(update_fields):
            update_fields = kwargs["update_fields"] = {*update_fields, *_NAME_FIELDS}
        if update_fields:  # an empty list saves nothing, as Django has it
            kwargs["update_fields"] = {*update_fields, "updated_at"}
        super().save(*args, **kwargs)
        self._loaded_names = (self.full_name, self.given_name, self.family_name)

    def get_absolute_url(self) -> str:
        return reverse("player_log", args=[self.username])

    @classmethod
    # The stubs describe Django 6's from_db (with fetch_mode); this is 5.2's signature,
    # the one super() takes here.
    def from_db(cls, db, field_names, values):  # type: ignore[override]
        player = super().from_db(db, field_names, values)
        # Read from the instance's dict: a deferred name (``only()``) is not fetched.
        loaded = tuple(player.__dict__.get(name) for name in _NAME_FIELDS)
        player._loaded_names = None if None in loaded else loaded
        return player

    def name_length_problems(self) -> list[tuple[str, str]]:
        """(field, message) for each name longer than its column, as the names will be
        saved (after :meth:`sync_names`): a form's limit on what was typed does not
        bound the full name two names make, nor the family name a split gives."""
        problems = []
        for name in _NAME_FIELDS:
            field = self._meta.get_field(name)
            # The three names are CharFields, each with its max_length.
            assert isinstance(field, models.CharField) and field.max_length is not None
            limit = field.max_length
            if len(getattr(self, name)) > limit:
                problems.append(
                    (
                        name,
                        _("the %(name)s would be %(length)s characters; at most %(limit)s fit")
                        % {
                            "name": _NAME_LABELS[name],
                            "length": len(getattr(self, name)),
                            "limit": limit,
                        },
                    )
                )
        return problems

    def sync_names(self) -> None:
        """Derive the full name from the family and given names when those changed (or
        are set on a new player), else split a changed full name into them."""
        if any(name not in self.__dict__ for name in _NAME_FIELDS):
            return  # saved with only some fields loaded: the names are not touched
        loaded = getattr(self, "_loaded_names", None)
        names_changed = loaded is None or (self.given_name, self.family_name) != loaded[1:]
        if names_changed and (self.given_name.strip() or self.family_name.strip()):
            self.full_name = join_names(self.given_name, self.family_name)
        elif loaded is None or self.full_name != loaded[0]:
            self.given_name, self.family_name = split_full_name(self.full_name)


class Tournament(models.Model):
    class EgfClass(models.TextChoices):
        A = "A", gettext_lazy("A (weight 1)")
        B = "B", gettext_lazy("B (weight 0.75)")
        C = "C", gettext_lazy("C (weight 0.5)")
        D = "D", gettext_lazy("D (weight 0.25)")

    class Standings(models.TextChoices):
        OWN = "", gettext_lazy("by its own criteria")
        EGD = "egd", gettext_lazy("as the h-file has them")
        OPENGOTHA = "opengotha", gettext_lazy("by the OpenGotha file's placement criteria")

    code = models.SlugField(max_length=50, unique=True)
    name = models.CharField(max_length=200)
    start_date = models.DateField(null=True, blank=True)
    end_date = models.DateField(null=True, blank=True)
    egf_class = models.CharField(max_length=1, choices=EgfClass.choices, default=EgfClass.A)
    # What the EGD header carries besides the dates and class (PC, HA, TM, CM), kept
    # from an imported file and written back.
    location = models.CharField(max_length=200, blank=True, help_text="EGD PC: 'country,city'.")
    handicap_rule = models.CharField(max_length=50, blank=True, help_text="EGD HA, e.g. h9.")
    adjusted_time = models.CharField(
        max_length=50, blank=True, help_text="EGD TM: the EGF adjusted time."
    )
    file_comment = models.CharField(max_length=500, blank=True, help_text="EGD CM.")
    time_control = models.JSONField(
        default=dict,
        blank=True,
        help_text="OpenGotha's time control (basicTime, complementaryTimeSystem and its "
        "parameters, bInternet), which its EGF class and adjusted time derive from.",
    )
    # The club that holds the tournament (its games are the club's); blank: the
    # federation's.
    club = models.ForeignKey(
        Club, null=True, blank=True, on_delete=models.PROTECT, related_name="tournaments"
    )
    standings = models.CharField(
        max_length=10,
        choices=Standings.choices,
        blank=True,
        default=Standings.OWN,
        help_text="Where the standings come from: an imported file, or the games.",
    )
    score_names = models.JSONField(
        default=list, blank=True, help_text="The file's tie-breaker columns (MMS, SOS...)."
    )
    mcmahon = models.JSONField(
        default=list, blank=True, help_text="OpenGotha's McMahon and bye parameters."
    )
    after_round_names = models.JSONField(
        default=list, blank=True, help_text="The file's columns after the rounds (NBW, Place...)."
    )
    # Of its valid games, kept by every write of games (players.services
    # .refresh_tournament_counts): the list of tournaments and the API read them as
    # they are rather than counting a federation's games on every request.
    game_count = models.PositiveIntegerField(default=0)
    player_count = models.PositiveIntegerField(default=0)
    first_game = models.DateField(null=True, blank=True)
    last_game = models.DateField(null=True, blank=True)

    class Meta:
        ordering = ["-start_date", "code"]

    def __str__(self) -> str:
        return self.name or self.code

    def get_absolute_url(self) -> str:
        return reverse("tournament_detail", args=[self.code])

    @property
    def location_shown(self) -> str:
        """The place as a reader reads it: an h-file's ``PC[,Olsztyn]`` (no country
        given) is "Olsztyn", ``PC[JP, Matsue]`` "JP, Matsue". The field keeps the file's
        text for the exports."""
        return ", ".join(part.strip() for part in self.location.split(",") if part.strip())


class TournamentPlayer(models.Model):
    """A player as an imported tournament file lists them: their position in the file
    (the number its results refer to), place and tie-breakers, each round as written,
    and the name, rank, country, club and GoR the file gives. The games themselves are
    the tournament's ``Game`` rows; these keep what a file says besides them, so that
    the tournament is shown and exported as the file had it."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="tournament_entries")
    number = models.PositiveIntegerField()
    place = models.CharField(max_length=10, blank=True, help_text="Blank for a tie.")
    family_name = models.CharField(max_length=150, blank=True)
    given_name = models.CharField(max_length=150, blank=True)
    rank = RankField()
    country = models.CharField(max_length=2, blank=True)
    club = models.CharField(max_length=50, blank=True)
    rating = models.IntegerField(null=True, blank=True, help_text="The GoR the file declares.")
    egd_pin = models.CharField(
        "EGD PIN",
        max_length=20,
        blank=True,
        help_text="The EGD PIN the file gives (blank: none), written back as the file had it "
        "unless the player's record holds another.",
    )
    scores = models.JSONField(default=list, blank=True)
    results = models.JSONField(default=list, blank=True)
    after_rounds = models.JSONField(
        default=list, blank=True, help_text="The file's columns after the rounds, as written."
    )
    mcmahon_correction = models.SmallIntegerField(
        default=0, help_text="OpenGotha's smmsCorrection (1: a player above the bar)."
    )
    file_attributes = models.JSONField(
        default=dict,
        blank=True,
        help_text="What an OpenGotha file wrote of the player, as written, to write it back "
        "(name and firstName with their spaces, rank, country, agaId, ffgLicence...).",
    )

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "number"], name="tournament_player_number"
            ),
            models.UniqueConstraint(fields=["tournament", "player"], name="tournament_player_once"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament_id} #{self.number} {self.player_id}"


class RecordSheet(models.Model):
    """One paper record sheet, entered as one batch."""

    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="record_sheets"
    )
    entered_at = models.DateTimeField(auto_now_add=True)
    received_on = models.DateField(null=True, blank=True)
    note = models.TextField(blank=True)
    # The club whose evening or tournament the sheet records (its games are the
    # club's: its volunteers correct them); blank: the federation's.
    club = models.ForeignKey(
        Club, null=True, blank=True, on_delete=models.PROTECT, related_name="record_sheets"
    )

    class Meta:
        ordering = ["-entered_at"]

    def __str__(self) -> str:
        return f"Sheet {self.pk} ({self.entered_at:%Y-%m-%d})"

    def get_absolute_url(self) -> str:
        return reverse("sheet_detail", args=[self.pk])


class EntrySequence(models.Model):
    """The one global entry counter that games and adjustments share (SPEC ``seq``).

    A single row, incremented under a row lock; ``services.next_seq`` hands out values.
    """

    last = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"last entry {self.last}"


class Entry(models.Model):
    """What games and adjustments share: the entry counter, the version for
    optimistic concurrency, who entered it, and the void fields (voiding never deletes)."""

    seq = models.BigIntegerField(unique=True, editable=False)
    version = models.PositiveIntegerField(default=1, editable=False)
    date = models.DateField()
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    voided_at = models.DateTimeField(null=True, blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    void_reason = models.CharField(max_length=500, blank=True)
    comment = models.CharField(max_length=500, blank=True)

    class Meta:
        abstract = True

    @property
    def is_void(self) -> bool:
        return self.voided_at is not None


class GameQuerySet(models.QuerySet):
    def valid(self):
        return self.filter(voided_at__isnull=True)

    def in_replay_order(self, *, reverse: bool = False):
        """By (date, round, seq), the order the ratings replay games in (SPEC section 2);
        ``reverse``: newest first."""
        order = ("date", "round", "seq")
        return self.order_by(*(f"-{name}" for name in order) if reverse else order)


# What was played: a correction of any of these makes a game "corrected" (its comment,
# a void and the record its players are stored under do not).
GAME_CONTENT_FIELDS = (
    "date",
    "round",
    "white",
    "black",
    "handicap",
    "komi",
    "winner",
    "colour_given",
    "status",
    "board_size",
    "time_minutes",
    "tournament",
)


class Game(Entry):
    # Not fields: each maintained algorithm's status on the game's date and whether all
    # have rated it, set on the games of a page by players.selectors.games.
    recompute: list[RecomputeStatus]
    recompute_done: bool

    class Winner(models.TextChoices):
        WHITE = "W", pgettext_lazy("player", "White")
        BLACK = "B", pgettext_lazy("player", "Black")
        JIGO = "D", gettext_lazy("Jigo")

    class Status(models.TextChoices):
        FREE = "free", pgettext_lazy("game status", "Free")
        NORMAL = "normal", pgettext_lazy("game status", "Normal")
        TOURNAMENT = "tournament", pgettext_lazy("game status", "Tournament")
        INTERNET = "internet", pgettext_lazy("game status", "Internet")

    round = models.PositiveIntegerField(default=0)
    white = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="games_as_white")
    black = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="games_as_black")
    white_rank = RankField(null=True, blank=True, help_text="Rank declared on the sheet.")
    black_rank = RankField(null=True, blank=True, help_text="Rank declared on the sheet.")
    handicap = models.PositiveSmallIntegerField(default=0, validators=[MaxValueValidator(9)])
    komi = models.DecimalField(
        max_digits=4,
        decimal_places=1,
        default=Decimal("6.5"),
        validators=[MinValueValidator(Decimal(-50)), MaxValueValidator(Decimal(50))],
    )
    winner = models.CharField(max_length=1, choices=Winner.choices)
    colour_given = models.BooleanField(
        default=True,
        help_text=(
            "Off for an even game whose tournament file gave no colour: White and Black "
            "are then the pair as stored, not who played which."
        ),
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.NORMAL)
    board_size = models.PositiveSmallIntegerField(
        default=19, choices=[(19, "19x19"), (13, "13x13"), (9, "9x9")]
    )
    time_minutes = models.PositiveIntegerField(null=True, blank=True)
    tournament = models.ForeignKey(
        Tournament, null=True, blank=True, on_delete=models.PROTECT, related_name="games"
    )
    record_sheet = models.ForeignKey(
        RecordSheet, null=True, blank=True, on_delete=models.PROTECT, related_name="games"
    )
    # The club the game was entered for (its sheet's or its tournament's): that club's
    # volunteers correct and void it. Blank: the federation's (games entered before
    # clubs had roles, or a federation's tournament), for the federation's roles only.
    club = models.ForeignKey(
        Club, null=True, blank=True, on_delete=models.PROTECT, related_name="games"
    )
    # "Corrected" on the site means what was played changed, not that the row was
    # written: ``version`` moves on every write (a void, a comment, a merge re-pointing
    # the game to the surviving record of the same person), for optimistic concurrency.
    revision = models.PositiveIntegerField(
        default=0,
        editable=False,
        help_text=(
            "0 while the game is as stored (entered or imported); the version a "
            "correction of what was played (GAME_CONTENT_FIELDS) gave it; 0 again "
            "when a correction restores the stored game."
        ),
    )
    stored_content = models.JSONField(
        null=True,
        blank=True,
        editable=False,
        help_text="What was played as stored (Game.content()), kept while corrected.",
    )

    objects = GameQuerySet.as_manager()

    class Meta:
        ordering = ["date", "round", "seq"]
        indexes = [
            models.Index(fields=["date", "round", "seq"], name="game_replay_order"),
            models.Index(fields=["white", "date"], name="game_white_date"),
            models.Index(fields=["black", "date"], name="game_black_date"),
            # A club's page: its recent games and its games per month (issue 28).
            models.Index(fields=["club", "date", "seq"], name="game_club_date"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(white=models.F("black")), name="game_not_against_self"
            ),
            models.CheckConstraint(
                condition=models.Q(handicap__lte=9), name="game_handicap_at_most_9"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.date} {self.white.username}-{self.black.username} {self.winner}"

    @property
    def is_corrected(self) -> bool:
        """What was played differs from the game as stored (entered or imported)."""
        return self.revision != 0

    def content(self) -> dict[str, Any]:
        """What was played, as JSON (``stored_content``): the fields of
        ``GAME_CONTENT_FIELDS``, the players and the tournament by id."""
        return {
            "date": self.date.isoformat(),
            "round": self.round,
            "white": self.white_id,
            "black": self.black_id,
            "handicap": self.handicap,
            "komi": str(Decimal(self.komi).quantize(Decimal("0.1"))),
            "winner": self.winner,
            "colour_given": self.colour_given,
            "status": self.status,
            "board_size": self.board_size,
            "time_minutes": self.time_minutes,
            "tournament": self.tournament_id,
        }

    def to_record(self) -> GameRecord:
        """This game as the engine's record (expects white, black and tournament loaded)."""
        return game_record(
            seq=self.seq,
            date=self.date,
            round=self.round,
            white=self.white.username,
            black=self.black.username,
            handicap=self.handicap,
            komi=self.komi,
            winner=self.winner,
            status=self.status,
            board_size=self.board_size,
            time_minutes=self.time_minutes,
            tournament=self.tournament.code if self.tournament is not None else "",
            tournament_class=self.tournament.egf_class if self.tournament is not None else "A",
            comment=self.comment,
            colour_given=self.colour_given,
        )


def game_record(
    *,
    seq,
    date,
    round,
    white,
    black,
    handicap,
    komi,
    winner,
    status,
    board_size,
    time_minutes,
    tournament,
    tournament_class,
    comment,
    colour_given=True,
) -> GameRecord:
    """A game as the engine sees it, from plain column values (selectors stream these:
    a recompute makes a million, so the few distinct komis, times, results and
    statuses are converted once each)."""
    return GameRecord(
        date=date,
        white=white,
        black=black,
        winner=_WINNERS[winner],
        handicap=handicap,
        komi=_fraction(komi),
        status=_STATUSES[status],
        board_size=board_size,
        tournament=tournament or "",
        tournament_class=tournament_class or "A",
        round=round,
        time_minutes=_fraction(time_minutes) if time_minutes is not None else None,
        comment=comment,
        seq=seq,
        colour_given=colour_given,
    )


_WINNERS = {winner.value: winner for winner in Winner}
_STATUSES = {status.value: status for status in Status}
_fraction = functools.lru_cache(maxsize=1024)(Fraction)


class ResyncBatch(models.Model):
    """One resync with the national ranks: its adjustments are applied and reverted together."""

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    effective_date = models.DateField()
    note = models.CharField(max_length=500, blank=True)
    reverted_at = models.DateTimeField(null=True, blank=True)
    reverted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Resync {self.pk} ({self.effective_date})"


class ResyncUpload(models.Model):
    """A rank list as it was previewed, kept on the server so that applying it does not
    post the whole list back (a national list is megabytes): the apply form names it by
    its token and the list is read and matched again from these bytes."""

    token = models.UUIDField(unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    name = models.CharField(max_length=255, blank=True, help_text="The file's name, if uploaded.")
    data = models.BinaryField(help_text="The list as uploaded (possibly gzip or zip).")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Resync upload {self.name or self.token} ({self.created_at:%Y-%m-%d %H:%M})"


class AdjustmentQuerySet(models.QuerySet):
    def valid(self):
        return self.filter(voided_at__isnull=True)


class Adjustment(Entry):
    """A committee reset of one player's rank (and value), for one algorithm or all."""

    class Reason(models.TextChoices):
        RESYNC = "resync", gettext_lazy("Resync with national rank")
        COMMITTEE = "committee", gettext_lazy("Committee decision")

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="adjustments")
    algorithm = models.CharField(max_length=20, blank=True, help_text="Empty: all algorithms.")
    new_rank = RankField()
    value = models.DecimalField(
        max_digits=12,
        decimal_places=4,
        null=True,
        blank=True,
        help_text="The new index or rating; empty: the algorithm's default for the rank.",
    )
    reason = models.CharField(max_length=10, choices=Reason.choices, default=Reason.COMMITTEE)
    resync_batch = models.ForeignKey(
        ResyncBatch, null=True, blank=True, on_delete=models.PROTECT, related_name="adjustments"
    )

    objects = AdjustmentQuerySet.as_manager()

    class Meta:
        ordering = ["date", "seq"]
        indexes = [models.Index(fields=["player", "date"], name="adjustment_player_date")]

    def __str__(self) -> str:
        return f"{self.date} {self.player.username} -> {self.new_rank}"


def adjustment_record(*, seq, date, player, new_rank, value, algorithm, comment) -> GameRecord:
    return GameRecord(
        date=date,
        white=player,
        black=player,
        white_rank=new_rank,
        status=Status.ADJUSTMENT,
        value=Fraction(value) if value is not None else None,
        algorithm=algorithm,
        comment=comment,
        seq=seq,
    )


class AuditEntry(models.Model):
    """Who changed what, when, with the object before and after (JSON). Never edited."""

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    action = models.CharField(max_length=50, db_index=True)
    object_type = models.CharField(max_length=50)
    object_id = models.CharField(max_length=50, blank=True)
    summary = models.CharField(max_length=300, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    # Whose record was written (a game's club, a player's club): the audit trail is
    # filtered by it and a club's committee reads its own. Blank: the federation's.
    club = models.ForeignKey(
        Club, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name_plural = "audit entries"
        indexes = [models.Index(fields=["object_type", "object_id"], name="audit_object")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.object_type} {self.object_id}"

    @property
    def action_label(self) -> str:
        return audit_action_label(self.action)

    @property
    def object_label(self) -> str:
        return audit_object_label(self.object_type)


# What the audit trail's page calls each action the services record, and each kind of
# object, in the reader's language. The rows keep the codes (``AuditEntry.action``),
# and so do the filters' values in a URL, the admin and any file made of the trail (a
# CSV would carry the code, as the site's other CSVs carry machine values, with the
# label beside it if a person reads it): a code is the same in every language and
# never renamed, a label may be. A code missing here (one of a row older
# than its label) is shown as it is; tests/web/entry/test_audit_labels.py finds every
# code the code writes and checks that it has its label.
AUDIT_ACTIONS = {
    "account_create": gettext_lazy("Account created"),
    "account_invitation": gettext_lazy("Invitation sent"),
    "account_invitation_accept": gettext_lazy("Invitation accepted"),
    "account_password": gettext_lazy("Password changed"),
    "account_player": gettext_lazy("Account's player record changed"),
    "account_roles": gettext_lazy("Account's role changed"),
    "club_role_grant": gettext_lazy("Club role given"),
    "club_role_revoke": gettext_lazy("Club role taken away"),
    "membership_start": gettext_lazy("Membership started"),
    "membership_end": gettext_lazy("Membership ended"),
    "player_create": gettext_lazy("Player added"),
    "player_update": gettext_lazy("Player record corrected"),
    "player_deactivate": gettext_lazy("Player deactivated"),
    "player_merge": gettext_lazy("Players merged"),
    "player_erase": gettext_lazy("Player erased"),
    "player_national_rank": gettext_lazy("National rank resynced"),
    "tournament_create": gettext_lazy("Tournament created"),
    "tournament_class": gettext_lazy("EGF class changed"),
    "tournament_club": gettext_lazy("Tournament's club changed"),
    "tournament_entry_reassign": gettext_lazy("Tournament entry moved (merge)"),
    "game_create": gettext_lazy("Game entered"),
    "game_correct": gettext_lazy("Game corrected"),
    "game_void": gettext_lazy("Game voided"),
    "game_reassign": gettext_lazy("Game moved (merge)"),
    "games_import": gettext_lazy("Games imported"),
    "adjustment_apply": gettext_lazy("Adjustment applied"),
    "adjustment_void": gettext_lazy("Adjustment voided"),
    "resync_apply": gettext_lazy("Resync applied"),
    "resync_revert": gettext_lazy("Resync reverted"),
    "report_create": gettext_lazy("Mistake reported"),
    "report_resolve": gettext_lazy("Report resolved"),
    "recompute_request": gettext_lazy("Full recompute requested"),
}
# The admin's edits are recorded as admin_<add|change|delete>_<model> (players/admin.py).
AUDIT_ADMIN_ACTIONS = {
    "add": gettext_lazy("Added in the admin: %(object)s"),
    "change": gettext_lazy("Changed in the admin: %(object)s"),
    "delete": gettext_lazy("Deleted in the admin: %(object)s"),
}
AUDIT_OBJECT_TYPES = {
    "adjustment": pgettext_lazy("audit trail object", "adjustment"),
    "algorithm": pgettext_lazy("audit trail object", "algorithm"),
    "club": pgettext_lazy("audit trail object", "club"),
    "clubrole": pgettext_lazy("audit trail object", "club role"),
    "game": pgettext_lazy("audit trail object", "game"),
    "gamereport": pgettext_lazy("audit trail object", "report"),
    "import": pgettext_lazy("audit trail object", "import"),
    "membership": pgettext_lazy("audit trail object", "membership"),
    "player": pgettext_lazy("audit trail object", "player"),
    "resyncbatch": pgettext_lazy("audit trail object", "resync"),
    "tournament": pgettext_lazy("audit trail object", "tournament"),
    "tournamentplayer": pgettext_lazy("audit trail object", "tournament entry"),
    "user": pgettext_lazy("audit trail object", "account"),
}


def audit_action_label(action: str) -> str:
    """``action`` (an audit entry's code) as the audit trail's page says it."""
    label = AUDIT_ACTIONS.get(action)
    if label is not None:
        return str(label)
    verb, _sep, object_type = action.removeprefix("admin_").partition("_")
    if action.startswith("admin_") and verb in AUDIT_ADMIN_ACTIONS and object_type:
        return str(AUDIT_ADMIN_ACTIONS[verb]) % {"object": audit_object_label(object_type)}
    return action


def audit_object_label(object_type: str) -> str:
    """``object_type`` (an audit entry's) as the audit trail's page says it."""
    label = AUDIT_OBJECT_TYPES.get(object_type)
    return str(label) if label is not None else object_type


class GameReport(models.Model):
    """A player's report of a mistake in one of their games, queued for the volunteers
    until one of them resolves it (by correcting or voiding the game, or by answering
    that it stands as recorded)."""

    class Kind(models.TextChoices):
        WRONG_RESULT = "wrong_result", gettext_lazy("Wrong result")
        DID_NOT_PLAY = "did_not_play", gettext_lazy("I did not play this")
        WRONG_OPPONENT = "wrong_opponent", gettext_lazy("Wrong opponent")
        WRONG_DATE = "wrong_date", gettext_lazy("Wrong date")
        OTHER = "other", gettext_lazy("Something else")

    class Resolution(models.TextChoices):
        CORRECTED = "corrected", gettext_lazy("Corrected")
        VOIDED = "voided", gettext_lazy("Voided")
        AS_RECORDED = "as_recorded", gettext_lazy("Stands as recorded")

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="reports")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="game_reports")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    text = models.CharField(max_length=1000, blank=True)
    # The game's ``revision`` when reported: "corrected" means what was played has
    # changed since (not a merge of the player's records, nor a comment).
    game_revision = models.PositiveIntegerField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    resolution = models.CharField(max_length=20, choices=Resolution.choices, blank=True)
    answer = models.CharField(max_length=1000, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # The navigation counts the open reports on every volunteer's page.
            models.Index(
                fields=["created_at"],
                condition=models.Q(resolved_at__isnull=True),
                name="game_report_open",
            )
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "player"],
                condition=models.Q(resolved_at__isnull=True),
                name="game_report_one_open_per_game_and_player",
                violation_error_message="You have already reported this game; "
                "the volunteers have not answered yet.",
            ),
        ]

    def __str__(self) -> str:
        return f"Report {self.pk}: game {self.game_id}, {self.get_kind_display()}"

    def get_absolute_url(self) -> str:
        return reverse("report_detail", args=[self.pk])

    @property
    def is_open(self) -> bool:
        return self.resolved_at is None
