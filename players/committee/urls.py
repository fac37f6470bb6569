"""URLs of the committee pages (see players/urls.py); views in views.py."""

from django.urls import path

from . import views

urlpatterns = [
    path("committee/resync/", views.resync, name="committee_resync"),
    path("committee/resync/apply/", views.resync_apply, name="committee_resync_apply"),
    path(
        "committee/resync/batches/",
        views.resync_batch_list,
        name="committee_resync_batches",
    ),
    path(
        "committee/resync/<int:pk>/",
        views.resync_batch_detail,
        name="committee_resync_batch",
    ),
    path(
        "committee/resync/<int:pk>/revert/",
        views.resync_batch_revert,
        name="committee_resync_revert",
    ),
    path("committee/accounts/", views.account_list, name="committee_accounts"),
    path(
        "committee/accounts/new/",
        views.account_create,
        name="committee_account_create",
    ),
    path(
        "committee/accounts/<int:pk>/",
        views.account_detail,
        name="committee_account",
    ),
    path(
        "committee/accounts/<int:pk>/role/",
        views.account_roles,
        name="committee_account_role",
    ),
    path(
        "committee/accounts/<int:pk>/clubs/",
        views.account_club_role,
        name="committee_account_club_role",
    ),
    path(
        "committee/accounts/<int:pk>/password/",
        views.account_password,
        name="committee_account_password",
    ),
    path(
        "committee/accounts/<int:pk>/player/",
        views.account_player,
        name="committee_account_player",
    ),
    path(
        "committee/players/adjust/",
        views.adjust_choose,
        name="committee_adjust_choose",
    ),
    path(
        "committee/players/<str:username>/adjust/",
        views.adjust,
        name="committee_adjust",
    ),
    path(
        "committee/players/<str:username>/edit/",
        views.player_edit,
        name="committee_player_edit",
    ),
    path("committee/players/merge/", views.merge, name="committee_merge"),
    path("committee/recompute/", views.recompute_status, name="committee_recompute"),
    path(
        "committee/tournaments/<slug:code>/class/",
        views.tournament_class,
        name="committee_tournament_class",
    ),
    path(
        "committee/recompute/full/",
        views.recompute_full,
        name="committee_recompute_full",
    ),
]
