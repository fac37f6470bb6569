"""A 403 or 404 is logged in one line; a server error keeps its traceback
(settings.LOGGING, clubrating/logfilters.py)."""

import logging
import sys

import pytest
from django.test import Client

from clubrating.logfilters import no_traceback_below_500
from tests import factories

pytestmark = pytest.mark.django_db


def request_records(caplog) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "django.request"]


def test_a_refused_page_is_logged_without_its_traceback(caplog):
    cape_town, pretoria = factories.club("Cape Town Go Club"), factories.club("Pretoria Go Club")
    ann = factories.player("ann", "5k", club=cape_town)
    client = Client()
    client.force_login(factories.club_committee_member("pcom", pretoria))

    with caplog.at_level(logging.WARNING):
        response = client.get(f"/committee/players/{ann.username}/edit/")

    assert response.status_code == 403
    (record,) = request_records(caplog)
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert "Traceback" not in caplog.text


def test_a_server_error_keeps_its_traceback():
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        raised = sys.exc_info()
    failed = logging.LogRecord("django.request", logging.ERROR, "", 0, "x", (), raised)
    refused = logging.LogRecord("django.request", logging.WARNING, "", 0, "x", (), raised)
    failed.status_code, refused.status_code = 500, 403

    assert no_traceback_below_500(failed) and failed.exc_info is not None
    assert no_traceback_below_500(refused) and refused.exc_info is None
