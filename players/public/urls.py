"""URLs of the public pages (see players/urls.py): everyone may read them, no login.
Pages in views.py; the downloads of games, record sheets and h-files in downloads.py;
the algorithm lab in lab.py, the what-if calculator in calculator.py."""

from django.urls import path

from . import calculator, downloads, lab, views

urlpatterns = [
    # "/" is the rating list; base.html links it as "home"
    path("", views.rating_list, name="home"),
    path("ratings.csv", views.rating_list_csv, name="rating_list_csv"),
    path(
        "ratings/opengotha-<str:kind>.txt",
        downloads.club_list_opengotha,
        name="club_list_opengotha",
    ),
    path("games.csv", downloads.games_export_csv, name="games_export_csv"),
    path("games/", views.game_search, name="game_search"),
    path("players/<str:username>/sheet.csv", downloads.player_sheet_csv, name="player_sheet_csv"),
    path("players/<str:username>/", views.player_log, name="player_log"),
    path("players/<str:username>/print/", views.player_sheet_print, name="player_sheet_print"),
    path("players/<str:username>/vs/", views.head_to_head_choose, name="head_to_head_choose"),
    path(
        "players/<str:username>/vs/<str:opponent>/",
        views.head_to_head_page,
        name="head_to_head",
    ),
    path("tournaments/", views.tournament_list, name="tournament_list"),
    path("tournaments/<slug:code>/", views.tournament_detail, name="tournament_detail"),
    path(
        "tournaments/<slug:code>/egd.h9",
        downloads.tournament_export_egd,
        name="tournament_export_egd",
    ),
    path(
        "tournaments/<slug:code>/opengotha.xml",
        downloads.tournament_export_opengotha,
        name="tournament_export_opengotha",
    ),
    path("clubs/", views.club_list, name="club_list"),
    path("clubs/<int:pk>/", views.club_detail, name="club_detail"),
    path("clubs/<int:pk>/sheet/", views.club_night_sheet, name="club_night_sheet"),
    # the algorithm lab and the what-if calculator
    path("lab/", lab.lab, name="lab"),
    path("calculator/", calculator.calculator_page, name="calculator"),
]
