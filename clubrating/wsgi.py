"""WSGI entry point, for gunicorn: ``gunicorn clubrating.wsgi``."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubrating.settings")

application = get_wsgi_application()


def freeze_loaded_objects() -> None:
    """Leave what is loaded at start (Django, the apps, the URLconf and its views: about
    90,000 objects that live as long as the process) out of the garbage collector's
    full collections. A page that builds many objects (a tournament of 600 players
    builds tens of thousands) set off a full collection nearly every request, each
    walking all of them: 50 ms more on the largest tournament's page under load
    (docs/performance.md, "Tournaments at federation scale")."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 -- imports the views
    gc.collect()
    gc.freeze()


freeze_loaded_objects()
