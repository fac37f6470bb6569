"""URLs of a player's own page and the reports of mistakes (see players/urls.py);
views in report_views.py."""

from django.urls import path

from . import report_views

urlpatterns = [
    path("me/", report_views.my_page, name="my_page"),
    path("games/<int:pk>/report/", report_views.game_report, name="game_report"),
    path("reports/", report_views.report_list, name="report_list"),
    path("reports/<int:pk>/", report_views.report_detail, name="report_detail"),
]
