import re

import pytest

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", password=PASSWORD)


def test_it_shows_the_login_form_in_our_layout(client):
    response = client.get("/accounts/login/")

    assert response.status_code == 200
    assert [t.name for t in response.templates][:2] == ["registration/login.html", "base.html"]
    html = response.content.decode()
    assert 'class="navbar-brand"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    # Rendered by crispy-forms with Bootstrap 5 classes.
    assert re.search(r'<input[^>]*name="username"[^>]*class="[^"]*form-control', html)
    assert re.search(r'<input[^>]*type="password"[^>]*name="password"', html)


def test_it_logs_in_and_goes_home(client, alice):
    response = client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})

    assert response.status_code == 302
    assert response["Location"] == "/"
    html = client.get("/").content.decode()
    assert '<span id="signed-in-as">alice</span>' in html
    assert re.search(r'<form method="post" action="/accounts/logout/"', html)


def test_it_follows_next_after_login(client, alice):
    response = client.post(
        "/accounts/login/",
        {"username": "alice", "password": PASSWORD, "next": "/health/"},
    )

    assert response["Location"] == "/health/"


def test_it_rejects_a_wrong_password(client, alice):
    response = client.post("/accounts/login/", {"username": "alice", "password": "wrong"})

    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_it_logs_out_by_post_and_says_so(client, alice):
    client.force_login(alice)

    response = client.post("/accounts/logout/", follow=True)

    assert response.redirect_chain == [("/", 302)]
    assert "_auth_user_id" not in client.session
    html = response.content.decode()
    assert 'class="alert alert-info alert-dismissible fade show"' in html
    assert "You are logged out." in html
    assert 'href="/accounts/login/"' in html


def test_it_does_not_log_out_by_get(client, alice):
    client.force_login(alice)

    response = client.get("/accounts/logout/")

    assert response.status_code == 405
    assert client.session["_auth_user_id"] == str(alice.pk)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_it_logs_in_and_out_on_a_phone(live_server, browser_page, alice):
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})

    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")

    # On a phone the menu is collapsed: opening it needs Bootstrap's own JavaScript.
    signed_in_as = page.locator("#signed-in-as")
    assert not signed_in_as.is_visible()
    page.click(".navbar-toggler")
    signed_in_as.wait_for(state="visible")
    assert signed_in_as.inner_text() == "alice"
    # the menu's opening transition over (a click during it can be lost)
    page.wait_for_selector(".navbar-collapse.collapse.show")

    signed_in_as.click()  # the account menu holds "Log out"
    page.locator("text=Log out").wait_for(state="visible")
    page.click("text=Log out")
    page.wait_for_selector(".alert-info")
    assert page.inner_text(".alert-info").strip() == "You are logged out."
