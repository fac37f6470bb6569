"""URLs of the public pages (see players/urls.py): everyone may read them, no login."""

from django.urls import path

from . import views

urlpatterns = [
    # "/" is the rating list; base.html links it as "home"
    path("", views.rating_list, name="home"),
    path("ratings.csv", views.rating_list_csv, name="rating_list_csv"),
    path("players/<str:username>/", views.player_log, name="player_log"),
    path("tournaments/", views.tournament_list, name="tournament_list"),
    path("tournaments/<slug:code>/", views.tournament_detail, name="tournament_detail"),
    path("clubs/", views.club_list, name="club_list"),
    path("clubs/<int:pk>/", views.club_detail, name="club_detail"),
]
