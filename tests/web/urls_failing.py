"""The site's URLs plus one view that fails, for the 500 page's test."""

from django.urls import path

from clubrating.urls import urlpatterns as site_urlpatterns


def failing_view(request):
    raise RuntimeError("a bug in a view")


urlpatterns = [*site_urlpatterns, path("failing/", failing_view)]
