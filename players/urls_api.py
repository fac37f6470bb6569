"""URLs of the read-only JSON API, version 1 (docs/api.md), under /api/v1/."""

from django.urls import path

from . import api

urlpatterns = [
    path("", api.index, name="api_index"),
    path("players/", api.players, name="api_players"),
    path("players/<str:username>/", api.player, name="api_player"),
    path("players/<str:username>/history/", api.player_history, name="api_player_history"),
    path("games/", api.games, name="api_games"),
    path("games/<int:pk>/", api.game, name="api_game"),
    path("tournaments/", api.tournaments, name="api_tournaments"),
    path("tournaments/<slug:code>/", api.tournament, name="api_tournament"),
]
