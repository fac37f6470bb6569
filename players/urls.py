"""The site's pages, by who may use them; each group lives in its own module."""

from django.urls import include, path

urlpatterns = [
    # The entry pages come first: their fixed paths /players/new/ and /players/lookup/
    # must win over the log pages' /players/<username>/ (those usernames are reserved).
    path("", include("players.urls_entry")),  # volunteers: entry_views.py
    path("", include("players.urls_public")),  # everyone: views.py
    path("", include("players.urls_committee")),  # committee: committee_views.py
    path("", include("players.urls_reports")),  # own pages, reports: report_views.py
    path("api/v1/", include("players.urls_api")),  # everyone, read-only JSON: api.py
]
