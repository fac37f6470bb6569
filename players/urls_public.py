"""URLs of the public pages (see players/urls.py)."""

urlpatterns: list = []
