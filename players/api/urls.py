"""URLs of the read-only JSON API, version 1 (docs/views.md), under /api/v1/."""

from django.urls import path

from . import views

urlpatterns = [
    path("", views.index, name="api_index"),
    path("players/", views.players, name="api_players"),
    path("players/<str:username>/", views.player, name="api_player"),
    path("players/<str:username>/history/", views.player_history, name="api_player_history"),
    path("games/", views.games, name="api_games"),
    path("games/<int:pk>/", views.game, name="api_game"),
    path("tournaments/", views.tournaments, name="api_tournaments"),
    path("tournaments/<slug:code>/", views.tournament, name="api_tournament"),
]
