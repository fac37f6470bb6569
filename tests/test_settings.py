"""Settings parsing: the env helpers in-process, whole settings in a fresh interpreter.

Settings are read once at import, so each configuration is loaded by a
subprocess with exactly the environment given (nothing leaks in from the
developer's shell or from the CI leg that runs these tests).
"""

import json
import os
import secrets
import subprocess
import sys

import pytest
from django.conf import settings as django_settings
from django.core.exceptions import ImproperlyConfigured

from clubrating.settings import env_bool, env_int, env_list, env_str

BASE_DIR = django_settings.BASE_DIR
LONG_SECRET = secrets.token_urlsafe(50)
# Production settings need a database URL; this one is never opened by these tests.
PRODUCTION_DATABASE = "postgres://clubrating@db.example.org:5432/clubrating"

# Prints the named settings as JSON, after a full django.setup().
LOAD_SETTINGS = """
import json, sys
import django
from django.conf import settings
django.setup()
print(json.dumps({name: getattr(settings, name) for name in sys.argv[1:]}, default=str))
"""


def run_python(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args],
        cwd=BASE_DIR,
        env={"PATH": os.environ["PATH"], "DJANGO_SETTINGS_MODULE": "clubrating.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def load_settings(env: dict[str, str], *names: str) -> dict:
    result = run_python(env, "-c", LOAD_SETTINGS, *names)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def settings_error(env: dict[str, str]) -> str:
    """The last line of the traceback when these settings fail to load."""
    result = run_python(env, "-c", LOAD_SETTINGS, "DEBUG")
    assert result.returncode != 0, result.stdout
    return result.stderr.strip().splitlines()[-1]


# --- The env helpers.


@pytest.mark.parametrize("value", ["", "   "])
def test_env_str_treats_empty_as_unset(monkeypatch, value):
    monkeypatch.setenv("CLUBRATING_TEST_VAR", value)

    assert env_str("CLUBRATING_TEST_VAR", "fallback") == "fallback"


def test_env_str_strips_spaces(monkeypatch):
    monkeypatch.setenv("CLUBRATING_TEST_VAR", "  Europe/Paris ")

    assert env_str("CLUBRATING_TEST_VAR") == "Europe/Paris"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        *[("1", True), ("true", True), ("Yes", True), ("ON", True)],
        *[("0", False), ("false", False), ("No", False), ("off", False)],
    ],
)
def test_env_bool_reads_the_usual_spellings(monkeypatch, value, expected):
    monkeypatch.setenv("CLUBRATING_TEST_VAR", value)

    assert env_bool("CLUBRATING_TEST_VAR", default=not expected) is expected


def test_env_bool_defaults_when_unset(monkeypatch):
    monkeypatch.delenv("CLUBRATING_TEST_VAR", raising=False)

    assert env_bool("CLUBRATING_TEST_VAR", default=True) is True


def test_env_bool_names_the_variable_and_the_bad_value(monkeypatch):
    monkeypatch.setenv("CLUBRATING_TEST_VAR", "maybe")

    with pytest.raises(ImproperlyConfigured, match=r"^CLUBRATING_TEST_VAR must be .*'maybe'$"):
        env_bool("CLUBRATING_TEST_VAR", default=False)


def test_env_int_reads_an_integer(monkeypatch):
    monkeypatch.setenv("CLUBRATING_TEST_VAR", " 3600 ")

    assert env_int("CLUBRATING_TEST_VAR", default=0) == 3600


def test_env_int_names_the_variable_and_the_bad_value(monkeypatch):
    monkeypatch.setenv("CLUBRATING_TEST_VAR", "1 year")

    with pytest.raises(
        ImproperlyConfigured, match=r"^CLUBRATING_TEST_VAR must be an integer; got '1 year'$"
    ):
        env_int("CLUBRATING_TEST_VAR", default=0)


def test_env_list_splits_on_commas(monkeypatch):
    monkeypatch.setenv("CLUBRATING_TEST_VAR", " example.org, www.example.org ,,")

    assert env_list("CLUBRATING_TEST_VAR") == ["example.org", "www.example.org"]


def test_env_list_defaults_when_unset(monkeypatch):
    monkeypatch.delenv("CLUBRATING_TEST_VAR", raising=False)

    assert env_list("CLUBRATING_TEST_VAR", ("localhost",)) == ["localhost"]


def test_env_list_rejects_a_space_separated_list(monkeypatch):
    monkeypatch.setenv("CLUBRATING_TEST_VAR", "example.org www.example.org")

    with pytest.raises(ImproperlyConfigured, match=r"^CLUBRATING_TEST_VAR is a comma-separated"):
        env_list("CLUBRATING_TEST_VAR")


# --- Whole settings, loaded in a fresh interpreter.


def test_it_runs_on_a_laptop_with_no_environment():
    loaded = load_settings(
        {},
        "DEBUG",
        "SECRET_KEY",
        "DATABASES",
        "CELERY_TASK_ALWAYS_EAGER",
        "CELERY_TASK_EAGER_PROPAGATES",
        "CELERY_BROKER_URL",
        "TIME_ZONE",
        "USE_TZ",
        "STORAGES",
        "RATINGS_ALGORITHMS",
        "RATINGS_PRIMARY_ALGORITHM",
    )

    assert loaded["DEBUG"] is True
    assert loaded["SECRET_KEY"].startswith("django-insecure-dev-only")
    assert loaded["DATABASES"]["default"]["ENGINE"] == "django.db.backends.sqlite3"
    assert loaded["DATABASES"]["default"]["NAME"] == str(BASE_DIR / "db.sqlite3")
    assert loaded["CELERY_TASK_ALWAYS_EAGER"] is True
    assert loaded["CELERY_TASK_EAGER_PROPAGATES"] is True
    assert loaded["CELERY_BROKER_URL"] == "memory://"
    assert loaded["TIME_ZONE"] == "UTC"
    assert loaded["USE_TZ"] is True
    assert loaded["STORAGES"]["staticfiles"]["BACKEND"] == (
        "django.contrib.staticfiles.storage.StaticFilesStorage"
    )
    assert loaded["RATINGS_ALGORITHMS"] == []
    assert loaded["RATINGS_PRIMARY_ALGORITHM"] == "sagc"


def test_it_requires_a_secret_key_when_debug_is_off():
    error = settings_error({"DEBUG": "0"})

    assert error.startswith("django.core.exceptions.ImproperlyConfigured: SECRET_KEY must be set")


def test_it_stops_without_a_database_url_when_debug_is_off(tmp_path):
    environment = {"DEBUG": "0", "SECRET_KEY": LONG_SECRET}
    error = settings_error(environment)
    # Beat started with no environment ran against a fresh empty db.sqlite3 for ever.
    schedule = str(tmp_path / "celerybeat-schedule")
    beat = run_python(environment, "-m", "celery", "-A", "clubrating", "beat", "-s", schedule)

    assert error.startswith(
        "django.core.exceptions.ImproperlyConfigured: DATABASE_URL must be set when DEBUG is off"
    )
    assert beat.returncode != 0
    assert "DATABASE_URL must be set when DEBUG is off" in beat.stderr


def test_it_names_a_bad_debug_value():
    error = settings_error({"DEBUG": "maybe"})

    assert error.endswith("DEBUG must be one of 1/true/yes/on or 0/false/no/off; got 'maybe'")


def test_it_hardens_production():
    loaded = load_settings(
        {
            "DEBUG": "0",
            "SECRET_KEY": LONG_SECRET,
            "ALLOWED_HOSTS": "go.example.org",
            "DATABASE_URL": PRODUCTION_DATABASE,
        },
        "DEBUG",
        "SECRET_KEY",
        "ALLOWED_HOSTS",
        "SECURE_SSL_REDIRECT",
        "SECURE_HSTS_SECONDS",
        "SESSION_COOKIE_SECURE",
        "CSRF_COOKIE_SECURE",
        "SECURE_PROXY_SSL_HEADER",
        "STORAGES",
    )

    assert loaded["DEBUG"] is False
    assert loaded["SECRET_KEY"] == LONG_SECRET
    assert loaded["ALLOWED_HOSTS"] == ["go.example.org"]
    assert loaded["SECURE_SSL_REDIRECT"] is True
    assert loaded["SECURE_HSTS_SECONDS"] == 31_536_000
    assert loaded["SESSION_COOKIE_SECURE"] is True
    assert loaded["CSRF_COOKIE_SECURE"] is True
    assert loaded["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert loaded["STORAGES"]["staticfiles"]["BACKEND"] == (
        "whitenoise.storage.CompressedManifestStaticFilesStorage"
    )


def test_it_passes_the_deployment_checks():
    result = run_python(
        {
            "DEBUG": "0",
            "SECRET_KEY": LONG_SECRET,
            "ALLOWED_HOSTS": "go.example.org",
            "DATABASE_URL": PRODUCTION_DATABASE,
        },
        "manage.py",
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
    )

    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_it_lets_plain_http_through_when_told():
    loaded = load_settings(
        {
            "DEBUG": "0",
            "SECRET_KEY": LONG_SECRET,
            "SECURE_SSL_REDIRECT": "0",
            "DATABASE_URL": PRODUCTION_DATABASE,
        },
        "SECURE_SSL_REDIRECT",
    )

    assert loaded["SECURE_SSL_REDIRECT"] is False


def test_it_uses_postgresql_from_database_url():
    loaded = load_settings(
        {"DATABASE_URL": "postgres://club:s3cret@db.example.org:5433/clubrating"},
        "DATABASES",
    )

    database = loaded["DATABASES"]["default"]
    assert database["ENGINE"] == "django.db.backends.postgresql"
    assert (database["NAME"], database["USER"], database["PASSWORD"]) == (
        "clubrating",
        "club",
        "s3cret",
    )
    assert (database["HOST"], database["PORT"]) == ("db.example.org", 5433)
    assert database["CONN_MAX_AGE"] == 60
    assert database["CONN_HEALTH_CHECKS"] is True


def test_it_names_a_bad_database_url_without_its_password():
    error = settings_error({"DATABASE_URL": "mongodb://club:s3cret@db.example.org/clubrating"})

    assert "DATABASE_URL is not a database URL this site can use (scheme 'mongodb')" in error
    assert "s3cret" not in error


def test_it_uses_celery_with_a_broker():
    loaded = load_settings(
        {"CELERY_BROKER_URL": "redis://redis:6379/0", "CELERY_TASK_DEFAULT_QUEUE": "club-a"},
        "CELERY_BROKER_URL",
        "CELERY_RESULT_BACKEND",
        "CELERY_TASK_ALWAYS_EAGER",
        "CELERY_TASK_DEFAULT_QUEUE",
    )

    assert loaded == {
        "CELERY_BROKER_URL": "redis://redis:6379/0",
        "CELERY_RESULT_BACKEND": "redis://redis:6379/0",
        "CELERY_TASK_ALWAYS_EAGER": False,
        "CELERY_TASK_DEFAULT_QUEUE": "club-a",
    }


def test_it_takes_the_broker_from_redis_url():
    loaded = load_settings(
        {"REDIS_URL": "redis://cache:6379/1"},
        "CELERY_BROKER_URL",
        "CELERY_TASK_ALWAYS_EAGER",
    )

    assert loaded == {
        "CELERY_BROKER_URL": "redis://cache:6379/1",
        "CELERY_TASK_ALWAYS_EAGER": False,
    }


def test_it_prefers_celery_broker_url_to_redis_url():
    loaded = load_settings(
        {"CELERY_BROKER_URL": "redis://broker:6379/0", "REDIS_URL": "redis://cache:6379/1"},
        "CELERY_BROKER_URL",
    )

    assert loaded["CELERY_BROKER_URL"] == "redis://broker:6379/0"


def test_it_reads_the_lists_and_the_time_zone():
    loaded = load_settings(
        {
            "ALLOWED_HOSTS": "go.example.org,localhost",
            "CSRF_TRUSTED_ORIGINS": "https://go.example.org",
            "TIME_ZONE": "Europe/Paris",
            "RATINGS_ALGORITHMS": "sagc, egf-2021",
            "RATINGS_PRIMARY_ALGORITHM": "egf-2021",
        },
        "ALLOWED_HOSTS",
        "CSRF_TRUSTED_ORIGINS",
        "TIME_ZONE",
        "CELERY_TIMEZONE",
        "RATINGS_ALGORITHMS",
        "RATINGS_PRIMARY_ALGORITHM",
    )

    assert loaded == {
        "ALLOWED_HOSTS": ["go.example.org", "localhost"],
        "CSRF_TRUSTED_ORIGINS": ["https://go.example.org"],
        "TIME_ZONE": "Europe/Paris",
        "CELERY_TIMEZONE": "Europe/Paris",
        "RATINGS_ALGORITHMS": ["sagc", "egf-2021"],
        "RATINGS_PRIMARY_ALGORITHM": "egf-2021",
    }


def test_it_names_an_unknown_time_zone():
    error = settings_error({"TIME_ZONE": "Europe/Atlantis"})

    assert error.endswith(
        "TIME_ZONE must be an IANA time zone such as 'Europe/Paris'; got 'Europe/Atlantis'"
    )


def test_it_refuses_a_primary_algorithm_outside_the_chosen_ones():
    error = settings_error({"RATINGS_ALGORITHMS": "egf-2021,french"})

    assert error.endswith(
        "RATINGS_PRIMARY_ALGORITHM 'sagc' is not among RATINGS_ALGORITHMS (egf-2021, french)"
    )


def test_it_names_a_bad_log_level():
    error = settings_error({"LOG_LEVEL": "loud"})

    assert error.endswith(
        "LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL; got 'LOUD'"
    )


# --- Mail (EMAIL_URL).


def test_mail_goes_to_files_in_the_var_folder_when_no_server_is_configured(tmp_path):
    loaded = load_settings(
        {"CLUBRATING_VAR_DIR": str(tmp_path)}, "EMAIL_BACKEND", "EMAIL_FILE_PATH"
    )

    assert loaded == {
        "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
        "EMAIL_FILE_PATH": str(tmp_path / "mail"),
    }


def test_an_smtp_url_sends_with_starttls_and_smtps_with_tls_from_the_start():
    names = ("EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD")
    smtp = load_settings(
        {"EMAIL_URL": "smtp://club%40example.org:p%3Ass@mail.example.org"},
        *names,
        "EMAIL_USE_TLS",
        "EMAIL_USE_SSL",
    )
    smtps = load_settings(
        {"EMAIL_URL": "smtps://u:p@mail.example.org:2465"}, "EMAIL_PORT", "EMAIL_USE_SSL"
    )

    assert smtp == {
        "EMAIL_HOST": "mail.example.org",
        "EMAIL_PORT": 587,
        "EMAIL_HOST_USER": "club@example.org",
        "EMAIL_HOST_PASSWORD": "p:ss",
        "EMAIL_USE_TLS": True,
        "EMAIL_USE_SSL": False,
    }
    assert smtps == {"EMAIL_PORT": 2465, "EMAIL_USE_SSL": True}


@pytest.mark.parametrize("url", ["mail.example.org", "http://mail.example.org", "smtp://"])
def test_a_bad_email_url_stops_the_start_naming_it(url):
    assert settings_error({"EMAIL_URL": url}).startswith(
        "django.core.exceptions.ImproperlyConfigured: EMAIL_URL must be smtp://"
    )


def test_site_url_must_be_an_http_address():
    assert "SITE_URL must start with http" in settings_error({"SITE_URL": "go.example.org"})


# --- Database timeouts of the web process (issue 25, item 13).

WEB_ENV = {
    "DEBUG": "1",
    "DATABASE_URL": PRODUCTION_DATABASE,
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/15",
}


def test_the_web_process_gets_statement_and_lock_timeouts_on_postgresql():
    loaded = load_settings({**WEB_ENV, "CLUBRATING_WEB_PROCESS": "1"}, "DATABASES")

    assert loaded["DATABASES"]["default"]["OPTIONS"]["options"] == (
        "-c statement_timeout=20000 -c lock_timeout=5000"
    )


def test_the_worker_and_commands_keep_no_database_timeout():
    loaded = load_settings(WEB_ENV, "DATABASES")

    assert "options" not in loaded["DATABASES"]["default"].get("OPTIONS", {})


def test_the_web_process_without_a_broker_keeps_no_timeout_since_it_recomputes_itself():
    env = {**WEB_ENV, "CLUBRATING_WEB_PROCESS": "1"}
    del env["CELERY_BROKER_URL"]

    loaded = load_settings(env, "DATABASES")

    assert "options" not in loaded["DATABASES"]["default"].get("OPTIONS", {})


def test_the_web_process_waits_less_for_sqlites_write_lock(tmp_path):
    env = {
        "DEBUG": "1",
        "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/15",
    }

    web = load_settings({**env, "CLUBRATING_WEB_PROCESS": "1"}, "DATABASES")
    worker = load_settings(env, "DATABASES")

    assert web["DATABASES"]["default"]["OPTIONS"]["timeout"] == 20
    assert worker["DATABASES"]["default"]["OPTIONS"]["timeout"] == 60
