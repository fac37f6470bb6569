"""Django admin for the players app.

Games, adjustments, record sheets, resync batches and the audit trail are read-only
here: their writes go through ``players.services`` so that nothing skips the audit
trail or the dirty mark of the ratings. Clubs, players and tournaments are plain
reference data and editable, with every save recorded in the audit trail.
"""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.core.exceptions import ValidationError

from clubrating.usernames import canonical_username
from players.selectors.accounts import is_reserved_username
from players.services.accounts import username_refusal
from players.services.audit import audit, player_snapshot
from players.signals import player_shown_changed

from .models import (
    Adjustment,
    AuditEntry,
    Club,
    EntrySequence,
    Game,
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

    snapshot = staticmethod(lambda obj: None)

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


@admin.register(Club)
class ClubAdmin(AuditedAdmin):
    list_display = ["name", "founded"]
    search_fields = ["name"]
    snapshot = staticmethod(_fields("name", "founded"))


@admin.register(Player)
class PlayerAdmin(AuditedAdmin):
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
    list_filter = ["active", "club", "country"]
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

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change:  # the name, country or club of every crosstable they are in
            player_shown_changed.send(sender=Player, player_id=obj.pk)


@admin.register(Tournament)
class TournamentAdmin(AuditedAdmin):
    list_display = ["code", "name", "start_date", "end_date", "egf_class"]
    search_fields = ["code", "name"]
    # The class changes the EGF ratings: it is set when the tournament is created.
    readonly_fields = ["egf_class"]
    snapshot = staticmethod(_fields("code", "name", "start_date", "end_date", "egf_class"))


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin):
    list_display = ["seq", "date", "white", "black", "handicap", "komi", "winner", "status"]
    list_filter = ["status", "board_size", "date"]
    search_fields = ["white__username", "black__username", "comment"]
    list_select_related = ["white", "black"]
    date_hierarchy = "date"


@admin.register(Adjustment)
class AdjustmentAdmin(ReadOnlyAdmin):
    list_display = ["seq", "date", "player", "algorithm", "new_rank", "value", "reason"]
    list_filter = ["reason", "algorithm"]
    search_fields = ["player__username"]
    list_select_related = ["player"]


@admin.register(RecordSheet)
class RecordSheetAdmin(ReadOnlyAdmin):
    list_display = ["pk", "entered_by", "entered_at", "received_on", "note"]
    list_select_related = ["entered_by"]


@admin.register(ResyncBatch)
class ResyncBatchAdmin(ReadOnlyAdmin):
    list_display = ["pk", "effective_date", "created_by", "created_at", "reverted_at"]
    list_select_related = ["created_by"]


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
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
    """Django's user admin, except that the site's own account is nobody's to change."""

    form = AccountChangeForm
    add_form = AccountCreationForm

    def has_change_permission(self, request, obj=None):
        if obj is not None and is_reserved_username(obj.username):
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        if obj is not None and is_reserved_username(obj.username):
            return False
        return super().has_delete_permission(request, obj)
