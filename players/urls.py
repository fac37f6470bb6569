"""The site's pages, by who may use them; each group lives in its own module."""

from django.urls import include, path

urlpatterns = [
    path("", include("players.urls_public")),  # everyone: views.py
    path("", include("players.urls_entry")),  # volunteers: entry_views.py
    path("", include("players.urls_committee")),  # committee: committee_views.py
]
