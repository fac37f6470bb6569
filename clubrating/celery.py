"""The Celery app. Its settings are the ``CELERY_*`` names in clubrating/settings.py."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubrating.settings")

app = Celery("clubrating")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
