"""Django admin for the ratings app: everything here is derived by the recompute, so
it is read-only (``manage.py recompute`` or the committee's recompute page rebuild it).
A club's staff reads the ratings of its clubs' members only (``ClubScopedAdmin``)."""

from django.contrib import admin

from players.admin import ClubScopedAdmin, ReadOnlyAdmin

from .models import Checkpoint, CurrentRating, RatingHistory, RatingSnapshot, RecomputeState


@admin.register(RatingHistory)
class RatingHistoryAdmin(ClubScopedAdmin, ReadOnlyAdmin):
    member_path = "player__"
    list_display = ["algorithm", "position", "date", "player", "opponent", "change", "value_after"]
    list_filter = ["algorithm"]
    search_fields = ["player__username"]
    list_select_related = ["player", "opponent"]


@admin.register(CurrentRating)
class CurrentRatingAdmin(ClubScopedAdmin, ReadOnlyAdmin):
    member_path = "player__"
    list_display = ["algorithm", "player", "rank", "value", "games"]
    list_filter = ["algorithm"]
    search_fields = ["player__username"]
    list_select_related = ["player"]


@admin.register(RatingSnapshot)
class RatingSnapshotAdmin(ClubScopedAdmin, ReadOnlyAdmin):
    member_path = "player__"
    list_display = ["algorithm", "date", "player", "rank", "value"]
    list_filter = ["algorithm"]
    list_select_related = ["player"]


@admin.register(Checkpoint)
class CheckpointAdmin(ReadOnlyAdmin):
    list_display = ["algorithm", "date", "round", "seq", "position"]
    list_filter = ["algorithm"]
    exclude = ["state"]


@admin.register(RecomputeState)
class RecomputeStateAdmin(ReadOnlyAdmin):
    list_display = ["algorithm", "dirty_from", "generation", "running_since", "last_finished"]
