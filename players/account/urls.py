"""URLs of a player's own pages (see players/urls.py): My page and reporting a mistake;
views in views.py (the volunteers' queue of reports is in entry/)."""

from django.urls import path

from . import views

urlpatterns = [
    path("me/", views.my_page, name="my_page"),
    path("games/<int:pk>/report/", views.game_report, name="game_report"),
]
