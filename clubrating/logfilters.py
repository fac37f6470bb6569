"""Filters of the site's log records (settings.LOGGING)."""

from __future__ import annotations

import logging


def no_traceback_below_500(record: logging.LogRecord) -> bool:
    """Keep a request's record, without its traceback unless the answer was a server
    error: a 403 page (a club's volunteer on another club's game) or a 404 is the
    site working as meant, and Django logs each with its exception's every frame (37
    tracebacks in one evening's walk through the site)."""
    if getattr(record, "status_code", 500) < 500:
        record.exc_info = None
        record.exc_text = None
    return True
