"""URLs of the volunteer pages (see players/urls.py); views in views.py, the
tournaments' in tournament_views.py, the queue of players' reports in reports.py."""

from django.urls import path

from . import reports, tournament_views, views

urlpatterns = [
    path("sheets/", views.sheet_list, name="sheet_list"),
    path("sheets/new/", views.sheet_new, name="sheet_new"),
    path("sheets/<int:pk>/", views.sheet_detail, name="sheet_detail"),
    path("games/<int:pk>/", views.game_detail, name="game_detail"),
    path("games/<int:pk>/edit/", views.game_edit, name="game_edit"),
    path("games/<int:pk>/void/", views.game_void, name="game_void"),
    path("players/new/", views.player_create, name="player_create"),
    path("players/lookup/", views.player_lookup, name="player_lookup"),
    # Before the public /tournaments/<code>/: "new" and "import" are reserved codes.
    path("tournaments/new/", tournament_views.tournament_create_view, name="tournament_create"),
    path("tournaments/import/", tournament_views.tournament_import_view, name="tournament_import"),
    path("audit/", views.audit_list, name="audit_list"),
    path("reports/", reports.report_list, name="report_list"),
    path("reports/<int:pk>/", reports.report_detail, name="report_detail"),
]
