"""Django admin for the players app.

Games, adjustments, record sheets, resync batches and the audit trail are read-only
here: their writes go through ``players.services`` so that nothing skips the audit
trail or the dirty mark of the ratings. Clubs, players and tournaments are plain
reference data and editable, with every save recorded in the audit trail. A staff
account that is not a superuser reads and edits its clubs' rows only, as its
committee's pages do (``ClubScopedAdmin``): its clubs' players and tournaments, the
games and sheets entered for them, its members' adjustments, its clubs' audit trail.
"""

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.core.exceptions import ValidationError
from django.db.models import Count, Q
from django.utils import timezone

from clubrating.usernames import canonical_username
from players.roles import (
    COMMITTEE,
    EVERY_CLUB,
    is_federation_committee,
    manages_account,
    role_clubs,
)
from players.selectors.accounts import is_reserved_username
from players.selectors.players import clubs_members_in_one_query
from players.services.accounts import account_change_refusal, username_refusal
from players.services.audit import audit, player_snapshot
from players.services.memberships import membership_move, membership_start
from players.services.tournaments import tournament_club_set
from players.signals import player_shown_changed

from .models import (
    Adjustment,
    AuditEntry,
    Club,
    ClubRole,
    EntrySequence,
    Game,
    Membership,
    Player,
    RecordSheet,
    ResyncBatch,
    Tournament,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Lists and shows rows; never adds, changes or deletes them."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class AuditedAdmin(admin.ModelAdmin):
    """Edits that the admin makes are kept in the audit trail like any other write."""

    # What the audit trail keeps of an object before and after an edit (None: nothing).
    snapshot: Callable[[Any], dict[str, Any] | None] = staticmethod(lambda obj: None)

    def save_model(self, request, obj, form, change):
        before = None
        if change:
            before = self.snapshot(type(obj).objects.get(pk=obj.pk))
        super().save_model(request, obj, form, change)
        audit(
            request.user,
            f"admin_{'change' if change else 'add'}_{type(obj).__name__.lower()}",
            obj,
            before=before,
            after=self.snapshot(obj),
            summary=str(obj),
        )

    def has_delete_permission(self, request, obj=None):
        # Rows are referred to by games and the audit trail: deactivate instead.
        return False


def _fields(*names):
    return lambda obj: {name: str(getattr(obj, name)) for name in names}


class FederationAdmin(admin.ModelAdmin):
    """Clubs, their roles and memberships are the federation's to change (issue 28):
    a superuser, or a staff account on the federation's committee (the roles held for
    every club); a club's committee gives its own club's roles on the account pages."""

    @staticmethod
    def _federation(request) -> bool:
        user = request.user
        return user.is_active and (
            user.is_superuser or (user.is_staff and is_federation_committee(user))
        )

    def has_module_permission(self, request):
        return self._federation(request)

    def has_view_permission(self, request, obj=None):
        return self._federation(request)

    def has_add_permission(self, request, obj=None):
        return self._federation(request)

    def has_change_permission(self, request, obj=None):
        return self._federation(request)


class ClubScopedAdmin(admin.ModelAdmin):
    """Rows of a club: a staff account that is not a superuser lists, opens and moves
    only those of the clubs whose committee it sits on (of every club on the
    federation's committee), as on the committee's own pages. Another club's row is not
    found, another club is no choice for its ``club`` nor in its "By club" filter
    (``OwnClubsFilter``)."""

    # The lookup path to the player whose clubs the row is of ("": the player itself):
    # a player is of the clubs they are a current member of, as for the committee
    # (``clubs_members_in_one_query``). None: the row is of its own ``club``.
    member_path: str | None = None
    # Whether a club's committee may leave a row's club empty: a player may leave their
    # last club, but a tournament of no club is the federation's, which only the
    # federation's committee gives (``tournament_club_set`` refuses it with a 403).
    club_may_be_empty = True

    @staticmethod
    def scope_clubs(request) -> frozenset[int] | None:
        """The clubs whose rows the account sees (EVERY_CLUB: every row)."""
        if request.user.is_superuser:
            return EVERY_CLUB
        return role_clubs(request.user, COMMITTEE)

    def get_queryset(self, request):
        rows = super().get_queryset(request)
        clubs = self.scope_clubs(request)
        if clubs is EVERY_CLUB:
            return rows
        if self.member_path is not None:
            return rows.filter(clubs_members_in_one_query(clubs, self.member_path))
        return rows.filter(club__in=clubs)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        clubs = self.scope_clubs(request)
        if db_field.name == "club" and clubs is not EVERY_CLUB:
            kwargs["queryset"] = Club.objects.filter(pk__in=clubs)
            if not self.club_may_be_empty:
                kwargs["required"] = True
                kwargs["empty_label"] = None
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class OwnClubsFilter(admin.RelatedFieldListFilter):
    """The "By club" filter of a ``ClubScopedAdmin``: the clubs whose rows the account
    sees (every club for a superuser or the federation's committee), not the names of
    the others; nor "no club" for a club's committee, whose rows all have one."""

    def __init__(self, field, request, params, model, model_admin, field_path):
        self.clubs = model_admin.scope_clubs(request)
        super().__init__(field, request, params, model, model_admin, field_path)

    def field_choices(self, field, request, model_admin):
        if self.clubs is EVERY_CLUB:
            return super().field_choices(field, request, model_admin)
        ordering = self.field_admin_ordering(field, request, model_admin)
        return field.get_choices(
            include_blank=False, ordering=ordering, limit_choices_to={"pk__in": self.clubs}
        )

    @property
    def include_empty_choice(self):
        return self.clubs is EVERY_CLUB and super().include_empty_choice


@admin.register(Club)
class ClubAdmin(FederationAdmin, AuditedAdmin):
    list_display = ["name", "founded", "current_members", "roles"]
    list_filter = ["founded"]
    search_fields = ["name"]
    snapshot = staticmethod(_fields("name", "founded"))

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                member_count=Count(
                    "memberships", filter=Q(memberships__end__isnull=True), distinct=True
                ),
                role_count=Count("roles", distinct=True),
            )
        )

    @admin.display(description="current members", ordering="member_count")
    def current_members(self, obj) -> int:
        return obj.member_count

    @admin.display(description="club roles", ordering="role_count")
    def roles(self, obj) -> int:
        return obj.role_count


@admin.register(ClubRole)
class ClubRoleAdmin(FederationAdmin, AuditedAdmin):
    """A role held for one club: given here by the federation, or on an account's page
    by the club's committee. Taking one away (delete) is audited like giving it."""

    list_display = ["user", "group", "club"]
    list_filter = ["group", "club"]
    search_fields = ["user__username", "user__email", "club__name"]
    list_select_related = ["user", "group", "club"]
    autocomplete_fields = ["club"]
    raw_id_fields = ["user"]
    snapshot = staticmethod(
        lambda role: {"user": role.user.username, "role": role.group.name, "club": role.club.name}
    )

    def has_delete_permission(self, request, obj=None):
        return self._federation(request)

    def delete_model(self, request, obj):
        before = self.snapshot(obj)
        audit(request.user, "admin_delete_clubrole", obj, before=before, summary=str(obj))
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        for role in queryset.select_related("user", "group", "club"):
            self.delete_model(request, role)


class CurrentMembershipFilter(admin.SimpleListFilter):
    title = "membership"
    parameter_name = "current"

    def lookups(self, request, model_admin):
        return [("yes", "current"), ("no", "ended")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(end__isnull=True)
        if self.value() == "no":
            return queryset.filter(end__isnull=False)
        return queryset


class MembershipForm(forms.ModelForm):
    class Meta:
        model = Membership
        fields = ["start"]

    def clean_start(self):
        start = self.cleaned_data["start"]
        end = self.instance.end
        if start is not None and end is not None and start >= end:
            raise ValidationError(f"the membership ended on {end}: it must start before")
        return start


@admin.register(Membership)
class MembershipAdmin(FederationAdmin, AuditedAdmin):
    """Memberships are listed and their start corrected here ("a member since 2019");
    joining, leaving and moving go through Correct a player's record, which keeps the
    player's current club (``Player.club``) with their memberships and audits both."""

    form = MembershipForm
    list_display = ["player", "club", "start", "end"]
    list_filter = [CurrentMembershipFilter, "club"]
    search_fields = ["player__username", "player__full_name", "club__name"]
    list_select_related = ["player", "club"]
    readonly_fields = ["player", "club", "end"]
    fields = ["player", "club", "start", "end"]
    date_hierarchy = "start"
    snapshot = staticmethod(_fields("player", "club", "start", "end"))

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Player)
class PlayerAdmin(ClubScopedAdmin, AuditedAdmin):
    member_path = ""
    list_display = [
        "username",
        "full_name",
        "country",
        "federation_club",
        "club",
        "entry_rank",
        "national_rank",
        "active",
    ]
    list_filter = ["active", ("club", OwnClubsFilter), "country"]
    search_fields = ["username", "full_name", "family_name", "given_name", "egd_pin", "national_id"]
    list_select_related = ["club"]
    # The entry rank is the point of departure of every replay: it changes only
    # through a committee adjustment, which the recompute picks up. The declared GoR
    # comes from the tournament files; the full name is derived from the two names.
    readonly_fields = [
        "entry_rank",
        "declared_rank",
        "declared_rating",
        "last_updated",
        "last_played",
        "tournament_only",
        "created_at",
        "erased_at",
        # The player's own account is linked on the committee's account page (audited,
        # one record per account).
        "account",
    ]
    fields = [
        "username",
        "given_name",
        "family_name",
        "full_name",
        "country",
        "federation_club",
        "club",
        "entry_rank",
        "declared_rank",
        "national_rank",
        "egd_pin",
        "national_id",
        "declared_rating",
        "active",
        "last_updated",
        "last_played",
        "tournament_only",
        "created_at",
        "erased_at",
        "account",
    ]
    snapshot = staticmethod(player_snapshot)

    def get_readonly_fields(self, request, obj=None):
        # A new player needs their entry rank (the database refuses a player without).
        fields = super().get_readonly_fields(request, obj)
        if obj is None:
            return [name for name in fields if name != "entry_rank"]
        clubs = self.scope_clubs(request)
        if obj.club_id is not None and clubs is not EVERY_CLUB and obj.club_id not in clubs:
            # A member of two clubs whose record names the other club: that club's
            # committee (or the federation's) moves them, as on Correct a player's
            # record; the club is shown, not offered (it is no choice here).
            return [*fields, "club"]
        return fields

    def save_model(self, request, obj, form, change):
        """A change of club is a move, as on Correct a player's record: the old
        membership ends today and the new one starts (a player added with a club is a
        member since before the records), audited, and the clubs' pages count their
        members again at once (``club_games_changed``), in the admin's transaction."""
        old_club_id = None
        if change:  # read from the database, whatever the form says changed
            old_club_id = Player.objects.values_list("club", flat=True).get(pk=obj.pk)
        super().save_model(request, obj, form, change)
        if not change and obj.club_id is not None:
            membership_start(user=request.user, player=obj, club_id=obj.club_id, day=None)
        elif change and obj.club_id != old_club_id:
            membership_move(
                user=request.user,
                player=obj,
                from_club_id=old_club_id,
                to_club_id=obj.club_id,
                day=timezone.localdate(),
            )
        if change:  # the name, country or club of every crosstable they are in
            player_shown_changed.send(sender=Player, player_id=obj.pk)


@admin.register(Tournament)
class TournamentAdmin(ClubScopedAdmin, AuditedAdmin):
    club_may_be_empty = False
    list_display = ["code", "name", "start_date", "end_date", "egf_class", "club"]
    list_filter = [("club", OwnClubsFilter), "egf_class"]
    search_fields = ["code", "name"]
    list_select_related = ["club"]
    # The class changes the EGF ratings: it is set when the tournament is created.
    readonly_fields = ["egf_class"]
    snapshot = staticmethod(_fields("code", "name", "start_date", "end_date", "egf_class", "club"))

    def save_model(self, request, obj, form, change):
        """A change of club goes through ``tournament_club_set``: the tournament's
        imported games go with it, in the admin's transaction, audited."""
        moving = change and "club" in form.changed_data
        club = obj.club
        if moving:
            obj.club_id = Tournament.objects.values_list("club", flat=True).get(pk=obj.pk)
        super().save_model(request, obj, form, change)
        if moving:
            tournament_club_set(user=request.user, tournament=obj, club=club)
            obj.club = club


@admin.register(Game)
class GameAdmin(ClubScopedAdmin, ReadOnlyAdmin):
    list_display = ["seq", "date", "club", "white", "black", "handicap", "komi", "winner", "status"]
    list_filter = ["status", "board_size", "date", ("club", OwnClubsFilter)]
    search_fields = ["white__username", "black__username", "comment"]
    list_select_related = ["white", "black", "club"]
    date_hierarchy = "date"


@admin.register(Adjustment)
class AdjustmentAdmin(ClubScopedAdmin, ReadOnlyAdmin):
    member_path = "player__"
    list_display = ["seq", "date", "player", "algorithm", "new_rank", "value", "reason"]
    list_filter = ["reason", "algorithm"]
    search_fields = ["player__username"]
    list_select_related = ["player"]


@admin.register(RecordSheet)
class RecordSheetAdmin(ClubScopedAdmin, ReadOnlyAdmin):
    list_display = ["pk", "club", "entered_by", "entered_at", "received_on", "note"]
    list_filter = [("club", OwnClubsFilter)]
    list_select_related = ["entered_by", "club"]


@admin.register(ResyncBatch)
class ResyncBatchAdmin(ReadOnlyAdmin):
    list_display = ["pk", "effective_date", "created_by", "created_at", "reverted_at"]
    list_select_related = ["created_by"]


@admin.register(AuditEntry)
class AuditEntryAdmin(ClubScopedAdmin, ReadOnlyAdmin):
    list_display = ["at", "user", "action", "object_type", "object_id", "summary"]
    list_filter = ["action", "object_type"]
    search_fields = ["summary", "object_id"]
    list_select_related = ["user"]


@admin.register(EntrySequence)
class EntrySequenceAdmin(ReadOnlyAdmin):
    list_display = ["pk", "last"]


def _clean_new_username(form, current=None):
    """The admin's user forms refuse the reserved name and twins of existing names as
    the committee's accounts page does (``services.username_refusal``)."""
    username = form.cleaned_data.get("username")
    if username and (current is None or username != current):
        refusal = username_refusal(username)
        if (
            refusal
            and current is not None
            and canonical_username(username) == canonical_username(current)
        ):
            refusal = None  # the same account, spelled differently
        if refusal:
            raise ValidationError(refusal)
    return username


class AccountCreationForm(AdminUserCreationForm):
    def clean_username(self):
        return _clean_new_username(self)


class AccountChangeForm(UserChangeForm):
    def clean_username(self):
        return _clean_new_username(self, current=self.instance.username)


admin.site.unregister(get_user_model())


@admin.register(get_user_model())
class AccountAdmin(UserAdmin):
    """Django's user admin, except that the site's own account is nobody's to change,
    and that a staff account that is not a superuser opens, changes and deletes the
    accounts its committee manages only, as on the account pages (another club's, the
    federation's, a superuser's are refused), and grants no superuser status, no
    admin rights, nor, unless it is the federation's committee, the roles held for
    every club (the account pages give a club's roles)."""

    form = AccountChangeForm
    add_form = AccountCreationForm

    @staticmethod
    def _manages(request, obj) -> bool:
        user = request.user
        if obj is None or user.is_superuser:
            return True
        return manages_account(user, obj) and account_change_refusal(user, obj) is None

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) and self._manages(request, obj)

    def has_change_permission(self, request, obj=None):
        if obj is not None and is_reserved_username(obj.username):
            return False
        return super().has_change_permission(request, obj) and self._manages(request, obj)

    def has_delete_permission(self, request, obj=None):
        if obj is not None and is_reserved_username(obj.username):
            return False
        return super().has_delete_permission(request, obj) and self._manages(request, obj)

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        user = request.user
        if not user.is_superuser:
            fields += ["is_superuser", "user_permissions"]
            if not is_federation_committee(user):
                fields.append("groups")
        return fields
