"""URLs of the committee pages (see players/urls.py)."""

urlpatterns: list = []
