"""The site's icon: every page links it, and /favicon.ico, which browsers ask for
whatever a page links, leads to it instead of a 404 in the log of every page."""

import pytest
from django.contrib.staticfiles import finders

pytestmark = pytest.mark.django_db

ICO_HEADER = b"\x00\x00\x01\x00"  # reserved, type 1 (icon)


def test_favicon_ico_leads_to_the_icon_of_static(client):
    response = client.get("/favicon.ico")

    assert response.status_code == 302
    assert response["Location"] == "/static/favicon.ico"
    with open(finders.find("favicon.ico"), "rb") as icon:
        assert icon.read(4) == ICO_HEADER


def test_every_page_links_the_icon(client):
    html = client.get("/").content.decode()

    assert '<link rel="icon" href="/static/favicon.ico" sizes="32x32">' in html
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in html
    assert finders.find("favicon.svg") is not None
