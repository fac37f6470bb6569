"""Reading a page in a test: the page must have answered before its text is read, so a
test that asserts a text is absent cannot pass on a 404 or an error page."""

from django.test import Client


def page_html(client: Client, url: str, status: int = 200) -> str:
    """The decoded body of GET ``url``, once the response's status is ``status``."""
    response = client.get(url)
    assert response.status_code == status, f"GET {url} answered {response.status_code}"
    return response.content.decode()
