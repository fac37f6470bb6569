import re

import pytest
from django.contrib.staticfiles import finders

pytestmark = pytest.mark.django_db


def test_it_says_what_the_site_is(client):
    response = client.get("/")

    assert response.status_code == 200
    assert [t.name for t in response.templates][:2] == ["home.html", "base.html"]
    html = response.content.decode()
    assert "<title>Go club ratings · clubrating</title>" in html
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert "The SAGC index" in html
    assert 'href="/accounts/login/"' in html


def test_it_loads_every_asset_from_the_site_itself(client):
    html = client.get("/").content.decode()

    assets = re.findall(r'<(?:link|script)[^>]*(?:href|src)="([^"]+)"', html)
    assert assets == [
        "/static/vendor/bootstrap/css/bootstrap.min.css",
        "/static/css/site.css",
        "/static/vendor/bootstrap/js/bootstrap.bundle.min.js",
    ]
    for asset in assets:
        assert finders.find(asset.removeprefix("/static/")), asset


def test_it_serves_the_vendored_bootstrap(client):
    response = client.get("/static/vendor/bootstrap/css/bootstrap.min.css")

    assert response.status_code == 200
    assert b"Bootstrap  v5.3." in b"".join(response.streaming_content)[:200]
