"""Requests refused before any view reads them.

A NUL character (``%00``) in the path names no page: PostgreSQL refuses it in a query
("cannot contain NUL"), so a page looking up ``/players/%00/`` failed with a server
error. The path is answered 404 here, before any view or the lockout reads the
database. The JSON API checks its own paths and answers in its error shape
(``players.api``), so it is left to do so.
"""

from django.http import Http404
from django.utils.translation import gettext as _

API_PREFIX = "/api/"


class NulInPathMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path_info and not request.path_info.startswith(API_PREFIX):
            raise Http404(_("No page has a NUL character in its address."))
        return self.get_response(request)
