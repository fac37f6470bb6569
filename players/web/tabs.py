"""The algorithm tabs of the pages that show one algorithm at a time."""

from __future__ import annotations

from django.http import HttpRequest


def page_query(request: HttpRequest, **changes: str | None) -> str:
    """This page's query string with some parameters changed (None: removed) and the
    page number dropped, as ``?a=1&b=2`` (empty when nothing is left)."""
    query = request.GET.copy()
    query.pop("page", None)
    for name, value in changes.items():
        if value is None:
            query.pop(name, None)
        else:
            query[name] = value
    encoded = query.urlencode()
    return f"?{encoded}" if encoded else ""


def algorithm_tabs(request: HttpRequest, infos, selected, default_name: str | None = None):
    """(algorithm, link, active) for each algorithm; the default needs no parameter."""
    return [
        (
            info,
            page_query(request, algorithm=None if info.name == default_name else info.name),
            info.name == selected.name,
        )
        for info in infos
    ]
