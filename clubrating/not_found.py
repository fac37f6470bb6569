"""The site's own 404 page with DEBUG on too.

``make run`` (the club laptop) runs with DEBUG on, where Django answers a missing page
with its debug page listing every URL of the site. Club members use that laptop: with
DEBUG on, an HTML 404 is replaced by the site's 404 page, the one production shows
(the JSON API's 404s are its own and stay). Django's debug page for errors (500) is
left alone: that is what DEBUG is for.
"""

from django.conf import settings
from django.http import Http404
from django.views.defaults import page_not_found


class SiteNotFoundMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            settings.DEBUG
            and response.status_code == 404
            and response.get("Content-Type", "").startswith("text/html")
        ):
            return page_not_found(request, Http404())
        return response
