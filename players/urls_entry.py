"""URLs of the volunteer pages (see players/urls.py); views in entry_views.py and, for
tournaments, exchange_views.py."""

from django.urls import path

from . import entry_views, exchange_views

urlpatterns = [
    path("sheets/", entry_views.sheet_list, name="sheet_list"),
    path("sheets/new/", entry_views.sheet_new, name="sheet_new"),
    path("sheets/<int:pk>/", entry_views.sheet_detail, name="sheet_detail"),
    path("games/<int:pk>/", entry_views.game_detail, name="game_detail"),
    path("games/<int:pk>/edit/", entry_views.game_edit, name="game_edit"),
    path("games/<int:pk>/void/", entry_views.game_void, name="game_void"),
    path("players/new/", entry_views.player_create, name="player_create"),
    path("players/lookup/", entry_views.player_lookup, name="player_lookup"),
    # Before the public /tournaments/<code>/: "new" and "import" are reserved codes.
    path("tournaments/new/", exchange_views.tournament_create_view, name="tournament_create"),
    path("tournaments/import/", exchange_views.tournament_import_view, name="tournament_import"),
    path("audit/", entry_views.audit_list, name="audit_list"),
]
