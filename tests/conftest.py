"""Shared test set-up: the policy for tests that need real services or a browser.

Markers (declared in pyproject.toml):

- ``services``: needs PostgreSQL (``DATABASE_URL=postgres://...``) and a broker
  (``CELERY_BROKER_URL`` or ``REDIS_URL``).
- ``browser``: needs Debian's Chromium at ``/usr/bin/chromium`` and the playwright package.

Without what they need these tests skip and say why; with
``CLUBRATING_REQUIRE_SERVICES=1`` / ``CLUBRATING_REQUIRE_BROWSER=1`` (as in the second
leg of .ci/run) they fail instead, so CI never skips them silently.

Celery tasks run in-process in every test, whatever the broker; a test that wants a
real worker asks for ``celery_worker_live``.

The personas are defined here once: ``vera`` (a volunteer) and ``connie`` (a committee
member). A module whose tests act through the web as them marks itself ``signed_in``:
there a persona the test asks for is also logged in on pytest-django's ``client``.

The real files of ``../shared/data`` (or ``CLUBRATING_SHARED_DATA``) are read where
they are; a test whose file is missing skips and says so, and with
``CLUBRATING_REQUIRE_DATA=1`` (set by .ci/run) a missing folder stops the run before
the first test and such a skip is a failure, so CI never passes without the real files.

Passwords are hashed with MD5 for the test run only (``pytest_configure``): the
production hasher (PBKDF2) is slow on purpose, and the suite creates many accounts.

``make test`` runs the suite in several processes (pytest-xdist, ``-n``). pytest-django
gives each its own test database; ``pytest_configure`` gives each its own Celery queue
and cache key prefix too, so that in the services leg one process's worker never takes
another's tasks nor sees its heartbeat. A test that needs a port or a file asks for a
free port or ``tmp_path``, never a fixed one.
"""

import importlib.util
import os
import re
import uuid
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connections
from hypothesis import settings as hypothesis_settings

from clubrating.celery import app as celery_app
from clubrating.settings import env_bool

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TEST_OUTPUT = Path(settings.BASE_DIR) / "test-output"
SHARED_DATA = Path(
    os.environ.get("CLUBRATING_SHARED_DATA")
    or Path(__file__).resolve().parents[1].parent / "shared" / "data"
)
# The folders of ../shared/data that the tests read.
REAL_DATA_FOLDERS = (
    "aga-tdlist",
    "egc2013-opengotha",
    "egd-ratinglists",
    "go-tournaments-archive",
    "opengotha-2020-online",
)

# No time limit per generated example: on a machine shared by many, or with the suite
# in several processes, an example that takes 75 ms alone took 266 ms once and failed
# as "flaky". What the properties assert is unchanged; a test may still set its own.
hypothesis_settings.register_profile("clubrating", deadline=None)
hypothesis_settings.load_profile("clubrating")


def _services_missing() -> str | None:
    missing = []
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        missing.append("PostgreSQL (DATABASE_URL=postgres://...)")
    if settings.CELERY_TASK_ALWAYS_EAGER:
        missing.append("a broker (CELERY_BROKER_URL=redis://...)")
    return f"needs {' and '.join(missing)}" if missing else None


def _browser_missing() -> str | None:
    missing = []
    if not CHROMIUM.exists():
        missing.append(f"{CHROMIUM} (apt-get install chromium)")
    if importlib.util.find_spec("playwright") is None:
        missing.append("the playwright package")
    return f"needs {' and '.join(missing)}" if missing else None


# marker -> (what is missing for it, the variable that turns a skip into a failure)
_REQUIREMENTS: dict[str, tuple[Callable[[], str | None], str]] = {
    "services": (_services_missing, "CLUBRATING_REQUIRE_SERVICES"),
    "browser": (_browser_missing, "CLUBRATING_REQUIRE_BROWSER"),
}


def _django_loaded(config: pytest.Config) -> bool:
    """False for the engine's tests run alone with ``-p no:django``: they load no model."""
    return config.pluginmanager.has_plugin("django")


def _real_data_required() -> bool:
    return env_bool("CLUBRATING_REQUIRE_DATA", default=False)


def _skipped_for_missing_data(reason: str) -> bool:
    return (
        "shared/data" in reason
        or "CLUBRATING_SHARED_DATA" in reason
        or (str(SHARED_DATA) in reason)
    )


def pytest_configure(config: pytest.Config) -> None:
    if _real_data_required():
        missing = [name for name in REAL_DATA_FOLDERS if not (SHARED_DATA / name).is_dir()]
        if missing:
            raise pytest.UsageError(
                f"CLUBRATING_REQUIRE_DATA=1 but {SHARED_DATA} lacks {', '.join(missing)}: "
                "the tests of the real files would skip"
            )
    if not _django_loaded(config):
        return
    # The test run only: production keeps Django's slow-on-purpose default.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    _own_queue_and_cache_per_xdist_worker()


def _own_queue_and_cache_per_xdist_worker() -> None:
    """Under pytest-xdist, suffix the Celery queue and the cache key prefix with the
    worker's id (gw0, gw1...), in this process and in the environment its child
    processes inherit (tests/reliability/helpers.py passes it on)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return
    queue = f"{settings.CELERY_TASK_DEFAULT_QUEUE}-{worker}"
    os.environ["CELERY_TASK_DEFAULT_QUEUE"] = queue
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    celery_app.conf.task_default_queue = queue
    cache = settings.CACHES["default"]
    if "KEY_PREFIX" in cache:
        prefix = f"{cache['KEY_PREFIX']}-{worker}"
        os.environ["CACHE_KEY_PREFIX"] = prefix
        cache["KEY_PREFIX"] = prefix


def _signed_in_if_marked(request: pytest.FixtureRequest, account):
    if request.node.get_closest_marker("signed_in") is not None:
        request.getfixturevalue("client").force_login(account)
    return account


# The personas import the factories when asked for: the factories import the models,
# which the engine's tests (run with -p no:django) never load.
@pytest.fixture
def vera(request: pytest.FixtureRequest):
    """A volunteer, logged in on ``client`` in a module marked ``signed_in``."""
    from tests import factories

    return _signed_in_if_marked(request, factories.volunteer())


@pytest.fixture
def connie(request: pytest.FixtureRequest):
    """A committee member, logged in on ``client`` in a module marked ``signed_in``."""
    from tests import factories

    return _signed_in_if_marked(request, factories.committee_member())


def pytest_runtest_setup(item: pytest.Item) -> None:
    # At set-up rather than at collection: a skip can be a marker, but a failure
    # can only be raised while the test runs.
    for marker, (missing, require_variable) in _REQUIREMENTS.items():
        if item.get_closest_marker(marker) is None:
            continue
        reason = missing()
        if reason is None:
            continue
        if env_bool(require_variable, default=False):
            pytest.fail(f"{reason}; {require_variable}=1 forbids skipping it", pytrace=False)
        pytest.skip(f"{reason} (set {require_variable}=1 to make this a failure)")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    if report.skipped and _real_data_required() and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2])
        if _skipped_for_missing_data(reason):
            report.outcome = "failed"
            report.longrepr = f"{reason}; CLUBRATING_REQUIRE_DATA=1 forbids skipping it"
    return report


@pytest.fixture(autouse=True)
def _algorithms_if_marked(request: pytest.FixtureRequest) -> None:
    """A module or test marked ``algorithms("sagc", "gcr")`` runs with the site keeping
    just those algorithms (settings.RATINGS_ALGORITHMS), in that order."""
    marker = request.node.get_closest_marker("algorithms")
    if marker is None:
        return
    settings = request.getfixturevalue("settings")
    settings.RATINGS_ALGORITHMS = list(marker.args)


@pytest.fixture(autouse=True)
def _site_language_after_each_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """Back to the site's language after each test: a request in French leaves French
    active in the thread (LocaleMiddleware activates, nothing deactivates), and the next
    test would read its messages in French."""
    yield
    if _django_loaded(request.config):
        from django.utils import translation

        translation.deactivate()


@pytest.fixture(autouse=True)
def _own_tournament_cache(request: pytest.FixtureRequest, monkeypatch) -> None:
    """Each test its own keys for the cached crosstables, API documents and clubs'
    activity: tests that build the same tournament or club (same ids after a rollback)
    never read one another's."""
    if not _django_loaded(request.config):
        return
    from players.public import club_cache
    from players.web import tournament_cache

    monkeypatch.setattr(tournament_cache, "key_salt", uuid.uuid4().hex)
    monkeypatch.setattr(club_cache, "key_salt", uuid.uuid4().hex)


@pytest.fixture(autouse=True)
def _tasks_in_process() -> Iterator[None]:
    """Run tasks in-process even when a broker is configured: nothing else consumes it."""
    conf = celery_app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager = True
    conf.task_eager_propagates = True
    yield
    conf.task_always_eager, conf.task_eager_propagates = saved


def _close_worker_connections(**kwargs) -> None:
    # Runs in the worker's thread, whose database connections are its own: left
    # open (CONN_MAX_AGE), they hold up PostgreSQL's drop of the test database.
    connections.close_all()


@pytest.fixture
def celery_worker_live():
    """A real Celery worker (in a thread of this process) for the duration of the test.

    Tasks go through the configured broker to the worker. The worker has its own
    database connections, so the test must use ``django_db(transaction=True)`` for
    the worker to see its rows; mark it ``services`` too.
    """
    from celery.contrib.testing.worker import start_worker
    from celery.signals import task_postrun

    conf = celery_app.conf
    saved = conf.task_always_eager
    conf.task_always_eager = False
    # An empty queue to start from: the tasks an earlier test of this process left (a
    # lab update due later, returned to the queue when its worker stopped) would
    # otherwise run here, on this test's rows, while it runs.
    celery_app.control.purge()
    task_postrun.connect(_close_worker_connections, weak=False)
    try:
        with start_worker(celery_app, perform_ping_check=False) as worker:
            yield worker
    finally:
        task_postrun.disconnect(_close_worker_connections)
        conf.task_always_eager = saved
        # Stopping the worker closes the app's connection pools; later tests that
        # send tasks need fresh ones.
        celery_app._pool = None
        celery_app.amqp._producer_pool = None


@pytest.fixture
def role_groups(transactional_db) -> None:
    """The role groups that the data migration makes and a transactional test before this
    one flushed; a module whose personas need them uses it (``usefixtures``) before them."""
    from tests.web.browser_session import ensure_role_groups

    ensure_role_groups()


@pytest.fixture(scope="session")
def _one_request_at_a_time() -> Iterator[None]:
    from django.test.testcases import LiveServerThread

    from tests.live_server import OneRequestAtATimeServer

    saved = LiveServerThread.server_class
    LiveServerThread.server_class = OneRequestAtATimeServer
    yield
    LiveServerThread.server_class = saved


@pytest.fixture(scope="session")
def live_server(django_db_setup, _one_request_at_a_time, live_server):
    """pytest-django's live server, started once the test database exists: on SQLite its
    request threads then always share the test's connection, whichever test asks for it
    first, and it answers one request at a time while they do (tests/live_server.py)."""
    return live_server


@pytest.fixture
def browser_page(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """A Playwright page in headless Chromium; mark the test ``browser``.

    Use it with pytest-django's ``live_server``. When the test ends, a full-page
    screenshot of the final state goes to test-output/<test id>.png.
    """
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop running in this thread, and Django
    # refuses ORM calls from a thread with a running loop unless told otherwise.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    TEST_OUTPUT.mkdir(exist_ok=True)
    screenshot = TEST_OUTPUT / (re.sub(r"[^\w.-]+", "_", request.node.nodeid) + ".png")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        # What the Content-Security-Policy refused (an inline script or style): Chromium
        # reports it on the console, and it fails the test.
        refused: list[str] = []
        try:
            page = browser.new_page()
            page.on(
                "console",
                lambda message: (
                    refused.append(message.text)
                    if "Content Security Policy" in message.text
                    else None
                ),
            )
            yield page
            try:
                page.screenshot(path=screenshot, full_page=True)
            except PlaywrightError as error:
                # The picture is for whoever reads a failure, not part of the test:
                # under load Chromium once could not capture one after a passing test.
                warnings.warn(f"no screenshot of {request.node.nodeid}: {error}", stacklevel=1)
            assert refused == [], "the Content-Security-Policy refused parts of a page"
        finally:
            browser.close()
            # Django keeps connections per async context, and Playwright's loop
            # makes one: the test's ORM calls got connections that nothing else
            # would close, and PostgreSQL cannot drop the test database under them.
            connections.close_all()


@pytest.fixture
def delivered(mailoutbox):
    """A function that sends every outbox mail as its task would (the tests' transaction
    never commits, so the tasks queued on commit do not run) and returns the mails
    sent so far (Django's in-memory ``mail.outbox``)."""
    from notifications.services import mail_send, unsent_mail_ids

    def deliver():
        for mail_id in unsent_mail_ids(older_than_seconds=-60):
            mail_send(mail_id)
        return mailoutbox

    return deliver
