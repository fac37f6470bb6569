"""The site's pages, by who may use them; each group lives in its own module."""

from django.urls import include, path

urlpatterns = [
    # The entry pages come first: their fixed paths /players/new/ and /players/lookup/
    # must win over the log pages' /players/<username>/ (those usernames are reserved).
    path("", include("players.entry.urls")),  # volunteers: entry/
    path("", include("players.public.urls")),  # everyone: public/
    path("", include("players.committee.urls")),  # committee: committee/
    path("", include("players.account.urls")),  # own pages, reports: account/
    path("api/v1/", include("players.api.urls")),  # everyone, read-only JSON: api/
]
