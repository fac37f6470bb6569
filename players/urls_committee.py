"""URLs of the committee pages (see players/urls.py); views in committee_views.py."""

from django.urls import path

from . import committee_views

urlpatterns = [
    path("committee/resync/", committee_views.resync, name="committee_resync"),
    path("committee/resync/apply/", committee_views.resync_apply, name="committee_resync_apply"),
    path(
        "committee/resync/batches/",
        committee_views.resync_batch_list,
        name="committee_resync_batches",
    ),
    path(
        "committee/resync/<int:pk>/",
        committee_views.resync_batch_detail,
        name="committee_resync_batch",
    ),
    path(
        "committee/resync/<int:pk>/revert/",
        committee_views.resync_batch_revert,
        name="committee_resync_revert",
    ),
    path("committee/accounts/", committee_views.account_list, name="committee_accounts"),
    path(
        "committee/accounts/new/",
        committee_views.account_create,
        name="committee_account_create",
    ),
    path(
        "committee/accounts/<int:pk>/",
        committee_views.account_detail,
        name="committee_account",
    ),
    path(
        "committee/accounts/<int:pk>/role/",
        committee_views.account_roles,
        name="committee_account_role",
    ),
    path(
        "committee/accounts/<int:pk>/password/",
        committee_views.account_password,
        name="committee_account_password",
    ),
    path(
        "committee/accounts/<int:pk>/player/",
        committee_views.account_player,
        name="committee_account_player",
    ),
    path(
        "committee/players/adjust/",
        committee_views.adjust_choose,
        name="committee_adjust_choose",
    ),
    path(
        "committee/players/<str:username>/adjust/",
        committee_views.adjust,
        name="committee_adjust",
    ),
    path(
        "committee/players/<str:username>/edit/",
        committee_views.player_edit,
        name="committee_player_edit",
    ),
    path("committee/players/merge/", committee_views.merge, name="committee_merge"),
    path("committee/recompute/", committee_views.recompute_status, name="committee_recompute"),
    path(
        "committee/recompute/full/",
        committee_views.recompute_full,
        name="committee_recompute_full",
    ),
]
