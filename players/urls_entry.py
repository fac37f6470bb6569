"""URLs of the entry pages (see players/urls.py)."""

urlpatterns: list = []
