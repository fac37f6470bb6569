"""CSV as a download: streamed a few thousand lines at a time (games, record sheets), or
whole (the rating list, a page's worth)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from typing import TypeVar

from django import forms
from django.http import HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.utils.translation import gettext as _

CSV_LINES_PER_CHUNK = 2000

_Response = TypeVar("_Response", HttpResponse, StreamingHttpResponse)


def csv_chunks(rows: Iterable[list]) -> Iterator[str]:
    """CSV text a few thousand lines at a time: a response of a million games is never
    in memory at once, nor written one line per network write."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for count, row in enumerate(rows, start=1):
        writer.writerow(row)
        if count % CSV_LINES_PER_CHUNK == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def _attach(response: _Response, filename: str) -> _Response:
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def csv_download(rows: Iterable[list], filename: str) -> StreamingHttpResponse:
    """``rows`` streamed as a CSV file."""
    response = StreamingHttpResponse(csv_chunks(rows), content_type="text/csv; charset=utf-8")
    return _attach(response, filename)


def csv_attachment(rows: Iterable[list], filename: str) -> HttpResponse:
    """``rows`` as a CSV file sent whole."""
    response = HttpResponse("".join(csv_chunks(rows)), content_type="text/csv; charset=utf-8")
    return _attach(response, filename)


def wrong_filter_response(form: forms.Form) -> HttpResponseBadRequest:
    """The 400 of a CSV asked with a wrong filter, saying which with the page's own
    messages: a CSV without that filter is not what was asked."""
    # An ErrorList's items read as their messages, already strings (the stubs also allow
    # the ValidationError or lazy text it may hold); str() says so.
    reasons = "; ".join(
        f"{name}: {' '.join(map(str, errors))}" for name, errors in form.errors.items()
    )
    return HttpResponseBadRequest(
        _("No CSV: a filter is wrong (%(reasons)s).") % {"reasons": reasons} + "\n",
        content_type="text/plain; charset=utf-8",
    )
