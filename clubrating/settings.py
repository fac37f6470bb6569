"""Settings of clubrating, read from the environment.

With no environment at all this is a laptop set-up: DEBUG on, SQLite in ``db.sqlite3``,
Celery tasks run in-process. README.md ("Configuration") lists every variable.
"""

import logging
import os
import re
import urllib.parse
import zoneinfo
from datetime import timedelta
from pathlib import Path
from typing import Any, overload

import dj_database_url
from django.contrib.messages import constants as message_constants
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@overload
def env_str(name: str, default: str) -> str: ...
@overload
def env_str(name: str, default: None = None) -> str | None: ...
def env_str(name: str, default: str | None = None) -> str | None:
    """The variable's value; unset and empty both mean ``default``.

    Empty counts as unset because compose files and shell scripts often pass
    ``NAME=`` for "not configured".
    """
    value = os.environ.get(name, "").strip()
    return value or default


def env_bool(name: str, default: bool) -> bool:
    value = env_str(name)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name} must be one of {'/'.join(_TRUE)} or {'/'.join(_FALSE)}; got {value!r}"
    )


def env_int(name: str, default: int) -> int:
    value = env_str(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer; got {value!r}") from None


def env_list(name: str, default: tuple[str, ...] = ()) -> list[str]:
    """A comma-separated list; spaces around items are ignored, empty items dropped."""
    value = env_str(name)
    if value is None:
        return list(default)
    items = [item.strip() for item in value.split(",") if item.strip()]
    for item in items:
        if re.search(r"\s", item):
            raise ImproperlyConfigured(
                f"{name} is a comma-separated list; item {item!r} contains a space (got {value!r})"
            )
    return items


DEBUG = env_bool("DEBUG", default=True)

SECRET_KEY = env_str("SECRET_KEY")
if SECRET_KEY is None:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off (a long random string, e.g. from "
            "`python -c 'import secrets; print(secrets.token_urlsafe(50))'`)"
        )
    # The "django-insecure-" prefix makes `check --deploy` reject it if it ever leaks out.
    SECRET_KEY = "django-insecure-dev-only-key-never-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_tables2",
    "crispy_forms",
    "crispy_bootstrap5",
    "axes",
    "players.apps.PlayersConfig",
    "ratings.apps.RatingsConfig",
    "notifications.apps.NotificationsConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "clubrating.security_headers.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After the session (a signed-in person's account language is kept there), before
    # CommonMiddleware: LocaleMiddleware with the account's language first.
    "clubrating.languages.AccountLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After the user (the 404 page shows who is logged in), before any view.
    "clubrating.request_guards.NulInPathMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # With DEBUG on (make run), a missing page is the site's 404, not Django's URL list.
    "clubrating.not_found.SiteNotFoundMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: it turns axes' refusal of a locked-out log-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "clubrating.urls"
WSGI_APPLICATION = "clubrating.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "players.context_processors.roles",
            ],
        },
    },
]

# --- Database: SQLite for a laptop, DATABASE_URL (PostgreSQL) in production.
_database_url = env_str("DATABASE_URL")
if _database_url is None and not DEBUG:
    # A production process started without its environment (a beat or a worker from a
    # bare shell) would otherwise create an empty db.sqlite3 and fail on every query.
    raise ImproperlyConfigured(
        "DATABASE_URL must be set when DEBUG is off, e.g. "
        "postgres://user:password@host:5432/clubrating (or sqlite:////path/to/db.sqlite3 "
        "to use SQLite on purpose)"
    )
# Each connection's settings: a dict, or dj_database_url's DBConfig (a TypedDict, which
# a dict[str, Any] would not accept) that the lines below complete.
DATABASES: dict[str, Any]
if _database_url is None:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": BASE_DIR / "db.sqlite3",
        }
    }
else:
    try:
        # Persistent connections save a connect per request; the health check
        # drops a connection the server closed meanwhile instead of failing a request.
        DATABASES = {
            "default": dj_database_url.parse(
                _database_url, conn_max_age=60, conn_health_checks=True
            )
        }
    except ValueError as exc:
        # The URL itself is not repeated: it usually holds a password.
        scheme = _database_url.partition("://")[0]
        raise ImproperlyConfigured(
            f"DATABASE_URL is not a database URL this site can use (scheme {scheme!r}): {exc}"
        ) from None

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded set-up has a web process and a worker writing to one file: the WAL
    # journal lets pages read while a recompute writes; a writer waits for the lock
    # (up to a minute; a recompute holds it for its writes only, not for its replay:
    # ratings/recompute/staging.py) rather than failing at once; and a
    # transaction takes the write lock when it begins (IMMEDIATE), so two never both
    # read and then fail to upgrade ("database is locked" mid-transaction).
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 60,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "/accounts/login/"
# A link to choose a password (Django's reset, the committee's invitation) lasts this long.
INVITATION_DAYS = env_int("INVITATION_DAYS", 7)
if INVITATION_DAYS < 1:
    raise ImproperlyConfigured(f"INVITATION_DAYS must be at least 1; got {INVITATION_DAYS}")
PASSWORD_RESET_TIMEOUT = INVITATION_DAYS * 24 * 3600
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# --- Log-in lockout (django-axes; clubrating/login_lockout.py). After
# LOGIN_FAILURE_LIMIT failures for one username from one client address, that pair is
# refused for LOGIN_LOCKOUT_SECONDS, even with the right password; the same user from
# another address, and other users behind the same proxy, can still log in, until the
# account's failures from all addresses reach LOGIN_ACCOUNT_FAILURE_LIMIT. A link to
# choose a password (a reset, or one a committee member sends) lifts either lock. The
# attempts live in the database, not the cache, so log-ins keep working (and locking)
# while Redis is down.
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
LOGIN_LOCKOUT_SECONDS = env_int("LOGIN_LOCKOUT_SECONDS", 900)
# Failures for one username from every address together before the account itself is
# refused everywhere (guesses spread over addresses); a higher bar, since anyone can
# lock an account this way.
LOGIN_ACCOUNT_FAILURE_LIMIT = env_int("LOGIN_ACCOUNT_FAILURE_LIMIT", 20)
# How many proxies in front of the site append to X-Forwarded-For (1 behind the TLS
# proxy the README asks for); 0 takes the connection's own address.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
for _name, _value, _least in (
    ("LOGIN_FAILURE_LIMIT", LOGIN_FAILURE_LIMIT, 1),
    ("LOGIN_LOCKOUT_SECONDS", LOGIN_LOCKOUT_SECONDS, 1),
    ("LOGIN_ACCOUNT_FAILURE_LIMIT", LOGIN_ACCOUNT_FAILURE_LIMIT, 1),
    ("TRUSTED_PROXY_COUNT", TRUSTED_PROXY_COUNT, 0),
):
    if _value < _least:
        raise ImproperlyConfigured(f"{_name} must be at least {_least}; got {_value}")
AUTHENTICATION_BACKENDS = [
    "clubrating.login_lockout.LockoutBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "clubrating.login_lockout.LockoutHandler"
AXES_FAILURE_LIMIT = LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = timedelta(seconds=LOGIN_LOCKOUT_SECONDS)
# The pair, then the account alone (LockoutHandler.get_failures relies on this order).
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "username"]
# A locked-out client's further failures are not recorded: they neither grow the row
# nor restart the cool-off.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
AXES_USERNAME_CALLABLE = "clubrating.login_lockout.attempted_username"
AXES_CLIENT_IP_CALLABLE = "clubrating.login_lockout.client_address"
AXES_LOCKOUT_CALLABLE = "clubrating.login_lockout.lockout_response"
AXES_HTTP_RESPONSE_CODE = 429
# Successful log-ins are in the log already (and the audit trail for what they do).
AXES_DISABLE_ACCESS_LOG = True

# --- Time: aware datetimes everywhere, shown in the club's zone.
USE_TZ = True
TIME_ZONE = env_str("TIME_ZONE", "UTC")
try:
    zoneinfo.ZoneInfo(TIME_ZONE)
except (zoneinfo.ZoneInfoNotFoundError, ValueError):
    raise ImproperlyConfigured(
        f"TIME_ZONE must be an IANA time zone such as 'Europe/Paris'; got {TIME_ZONE!r}"
    ) from None
# --- Languages: the clubs' own (issue 30). Django picks one per request from the
# session or account, the browser's Accept-Language, then LANGUAGE_CODE. Adding a
# language is its folder under locale/ and one line here (CONTRIBUTING.md).
LANGUAGE_CODE = "en"
USE_I18N = True
LANGUAGES = [
    ("en", "English"),
    ("fr", "Français"),
    ("af", "Afrikaans"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Dates and numbers in each language's format: Django's own (fr), or ours where Django
# has none (clubrating/formats/af).
FORMAT_MODULE_PATH = ["clubrating.formats"]

# --- Static files: all assets are vendored (no CDN), served by whitenoise.
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # The manifest storage needs `collectstatic`; with DEBUG on (a laptop, the tests)
    # files are served straight from static/.
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Pinned to DEBUG as read here: the test runner turns settings.DEBUG off at run
# time, and the tests, like a laptop, serve static/ without collectstatic.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"

# Bootstrap calls the error alert "danger".
MESSAGE_TAGS = {message_constants.ERROR: "danger"}

# --- Production security: on whenever DEBUG is off (`manage.py check --deploy` is clean).
if not DEBUG:
    # TLS ends at the reverse proxy, which says so in X-Forwarded-Proto.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
    # Load balancers probe over plain HTTP inside the network.
    SECURE_REDIRECT_EXEMPT = [r"^health/$"]
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", default=31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

# --- Celery: a broker URL means real workers; none means tasks run in-process.
# `filesystem://` is the embedded set-up of `make run` (clubrating/devserver.py): a
# broker that needs no server, its messages files in var/broker/.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or env_str("REDIS_URL")
CELERY_TASK_ALWAYS_EAGER = CELERY_BROKER_URL is None
CELERY_TASK_EAGER_PROPAGATES = True
# Files the embedded set-up keeps beside the database (ignored by git and docker).
VAR_DIR = Path(env_str("CLUBRATING_VAR_DIR", str(BASE_DIR / "var")))
BROKER_DIR = VAR_DIR / "broker"
if CELERY_BROKER_URL is None:
    # Never contacted while eager; set so nothing falls back to Celery's AMQP default.
    CELERY_BROKER_URL = "memory://"
elif CELERY_BROKER_URL.startswith("filesystem://"):
    # One folder for every queue: each process writes its messages into it and reads
    # from it. No result backend: no task's result is ever waited for.
    for _folder in ("messages", "processed", "control"):
        (BROKER_DIR / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "messages"),
        "data_folder_out": str(BROKER_DIR / "messages"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
else:
    CELERY_RESULT_BACKEND = CELERY_BROKER_URL
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A volunteer who saves a sheet while the broker is down waits for the publish to
# give up: keep that short. The game is stored either way and the sweep catches up.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.5,
    "interval_max": 0.5,
}
# Sites (or CI runs) sharing one Redis each need their own queue, or their workers
# take each other's tasks.
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "celery")
CELERY_TIMEZONE = TIME_ZONE
# The sweep queues whatever recompute is pending and has no task (its message was
# lost) or whose runner died, so a lost task message only delays it.
RATINGS_SWEEP_SECONDS = env_int("RATINGS_SWEEP_SECONDS", 60)
CELERY_BEAT_SCHEDULE: dict[str, dict] = {
    "recompute-sweep": {
        "task": "ratings.tasks.recompute_pending",
        "schedule": RATINGS_SWEEP_SECONDS,
    },
}

# --- Mail: written to an outbox row by the request, sent by a Celery task
# (notifications/). EMAIL_URL picks the transport: smtp://user:password@host:587
# (STARTTLS), smtps://user:password@host:465 (TLS from the start), or file:///path;
# unset, mail goes to files in var/mail/ (make run says so). The tests use Django's
# in-memory backend (pytest-django sets it).
EMAIL_URL = env_str("EMAIL_URL")
MAIL_DIR = VAR_DIR / "mail"


def _email_settings(url: str | None) -> dict:
    """The EMAIL_* settings of ``url``; ImproperlyConfigured names a bad one."""
    if url is None:
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "EMAIL_FILE_PATH": str(MAIL_DIR),
        }
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "file" and parts.path:
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "EMAIL_FILE_PATH": parts.path,
        }
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise ImproperlyConfigured(
            "EMAIL_URL must be smtp://user:password@host:587, smtps://user:password@host:465 "
            f"or file:///path; got {url!r}"
        )
    try:
        port = parts.port or (465 if parts.scheme == "smtps" else 587)
    except ValueError:
        raise ImproperlyConfigured(f"EMAIL_URL has a bad port; got {url!r}") from None
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parts.hostname,
        "EMAIL_PORT": port,
        "EMAIL_HOST_USER": urllib.parse.unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": urllib.parse.unquote(parts.password or ""),
        "EMAIL_USE_TLS": parts.scheme == "smtp",
        "EMAIL_USE_SSL": parts.scheme == "smtps",
        "EMAIL_TIMEOUT": 30,
    }


globals().update(_email_settings(EMAIL_URL))
DEFAULT_FROM_EMAIL = env_str("MAIL_FROM", "clubrating <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# The site's address as its readers reach it: the links in mail are built from it.
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
if not SITE_URL.startswith(("http://", "https://")):
    raise ImproperlyConfigured(f"SITE_URL must start with http:// or https://; got {SITE_URL!r}")
# The daily mail to the volunteers (open reports) goes at this hour of TIME_ZONE.
MAIL_DAILY_HOUR = env_int("MAIL_DAILY_HOUR", 18)
if not 0 <= MAIL_DAILY_HOUR <= 23:
    raise ImproperlyConfigured(f"MAIL_DAILY_HOUR must be 0 to 23; got {MAIL_DAILY_HOUR}")
CELERY_BEAT_SCHEDULE["mail-sweep"] = {
    "task": "notifications.tasks.mail_sweep",
    "schedule": RATINGS_SWEEP_SECONDS,
}

# --- Database timeouts of the web process. A request waiting on a lock or a slow
# statement holds a gunicorn worker; with all of them held, every page (and /health/)
# waits. In the web process (gunicorn.conf.py sets CLUBRATING_WEB_PROCESS)
# PostgreSQL cancels a statement after WEB_STATEMENT_TIMEOUT_SECONDS and a wait for a
# lock after WEB_LOCK_TIMEOUT_SECONDS: the request fails (the error page) and the
# worker is free, before gunicorn's own 30 s timeout would kill it. The Celery worker,
# beat and manage.py keep no limit: a recompute rewrites histories for minutes. With
# no broker the recompute runs inside the web process, so there no limit is set. On
# SQLite the web process waits WEB_STATEMENT_TIMEOUT_SECONDS for the write lock (the
# busy timeout), the others a minute.
WEB_STATEMENT_TIMEOUT_SECONDS = env_int("WEB_STATEMENT_TIMEOUT_SECONDS", 20)
WEB_LOCK_TIMEOUT_SECONDS = env_int("WEB_LOCK_TIMEOUT_SECONDS", 5)
for _name, _value in (
    ("WEB_STATEMENT_TIMEOUT_SECONDS", WEB_STATEMENT_TIMEOUT_SECONDS),
    ("WEB_LOCK_TIMEOUT_SECONDS", WEB_LOCK_TIMEOUT_SECONDS),
):
    if _value < 1:
        raise ImproperlyConfigured(f"{_name} must be at least 1; got {_value}")
WEB_PROCESS = env_bool("CLUBRATING_WEB_PROCESS", False)
if WEB_PROCESS and not CELERY_TASK_ALWAYS_EAGER:
    _options = DATABASES["default"].setdefault("OPTIONS", {})
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        _limits = (
            f"-c statement_timeout={WEB_STATEMENT_TIMEOUT_SECONDS * 1000} "
            f"-c lock_timeout={WEB_LOCK_TIMEOUT_SECONDS * 1000}"
        )
        _options["options"] = (
            f"{_options['options']} {_limits}".strip() if _options.get("options") else _limits
        )
    elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        _options["timeout"] = WEB_STATEMENT_TIMEOUT_SECONDS

# --- Cache: shared by every process when Redis is there (recompute progress);
# in-process otherwise, which is right for the embedded default where
# tasks run inside the web process.
_redis_url = env_str("REDIS_URL") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else None
)
if _redis_url:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": _redis_url,
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "clubrating"),
            # A Redis that hangs fails a cache read in seconds; the pages that read the
            # cache then build uncached (players.web.tournament_cache).
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 2},
        }
    }
elif CELERY_BROKER_URL.startswith("filesystem://"):
    # The embedded set-up: the worker's heartbeat and a recompute's progress must reach
    # the web process; files in var/cache/ do that without a server.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "clubrating"),
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Ratings.
# Empty means every algorithm the engine registers.
RATINGS_ALGORITHMS = env_list("RATINGS_ALGORITHMS")
RATINGS_PRIMARY_ALGORITHM = env_str("RATINGS_PRIMARY_ALGORITHM", "sagc")
if RATINGS_ALGORITHMS and RATINGS_PRIMARY_ALGORITHM not in RATINGS_ALGORITHMS:
    raise ImproperlyConfigured(
        f"RATINGS_PRIMARY_ALGORITHM {RATINGS_PRIMARY_ALGORITHM!r} is not among "
        f"RATINGS_ALGORITHMS ({', '.join(RATINGS_ALGORITHMS)})"
    )
# A recompute resumes from the last engine checkpoint before the dirty date. Near the
# end of the history they are this many games (or tournaments) apart, more in a club
# of more than 2,500 players; further back at least a tenth of what follows apart.
RATINGS_CHECKPOINT_EVERY = env_int("RATINGS_CHECKPOINT_EVERY", 2000)
if RATINGS_CHECKPOINT_EVERY < 1:
    raise ImproperlyConfigured(
        f"RATINGS_CHECKPOINT_EVERY must be at least 1; got {RATINGS_CHECKPOINT_EVERY}"
    )

# A recompute task is stopped (and rolled back) after this many seconds; the hard
# limit kills its process a minute later. A lab report has the same limit.
RATINGS_RECOMPUTE_TIME_LIMIT = env_int("RATINGS_RECOMPUTE_TIME_LIMIT", 3600)
# The lab's report of an algorithm is brought up to date this long after its last
# recompute, once: a burst of entries makes one lab run, not one per entry.
RATINGS_LAB_DELAY_SECONDS = env_int("RATINGS_LAB_DELAY_SECONDS", 10)
if RATINGS_RECOMPUTE_TIME_LIMIT < 1:
    raise ImproperlyConfigured(
        f"RATINGS_RECOMPUTE_TIME_LIMIT must be at least 1; got {RATINGS_RECOMPUTE_TIME_LIMIT}"
    )
if RATINGS_LAB_DELAY_SECONDS < 0:
    raise ImproperlyConfigured(
        f"RATINGS_LAB_DELAY_SECONDS must not be negative; got {RATINGS_LAB_DELAY_SECONDS}"
    )

LOG_LEVEL = env_str("LOG_LEVEL", "INFO").upper()
if LOG_LEVEL not in logging.getLevelNamesMapping():
    raise ImproperlyConfigured(
        f"LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL; got {LOG_LEVEL!r}"
    )
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"},
    },
    "filters": {
        "no_traceback_below_500": {
            "()": "django.utils.log.CallbackFilter",
            "callback": "ext://clubrating.logfilters.no_traceback_below_500",
        },
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain"},
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # Django's own handlers would print each of its records a second time
        # (and try to mail ADMINS); through the root they print once.
        "django": {"handlers": [], "level": "NOTSET"},
        # A 403 or 404 in one line; a server error with its traceback.
        "django.request": {"filters": ["no_traceback_below_500"]},
        # django-axes logs every successful log-in and its start at INFO; failures and
        # lockouts, the ones that matter, are warnings.
        "axes": {"level": "WARNING"},
    },
}
