"""gunicorn's settings for the site (docker-compose's web service and the image's
command: ``gunicorn --config gunicorn.conf.py clubrating.wsgi``).

- The web process is marked (``CLUBRATING_WEB_PROCESS``) so that the settings give
  its database connections short timeouts (settings, "Database timeouts of the web
  process"): a request stuck on a lock fails in seconds and frees its worker, before
  ``timeout`` would kill it.
- Each worker is replaced after ``max_requests`` requests, give or take the jitter
  (so the three are not all replaced at once): the memory a large upload made Python
  keep (612 MiB after one) goes back to the system with the worker.
"""

bind = "0.0.0.0:8000"
workers = 3
timeout = 30
max_requests = 500
max_requests_jitter = 100
accesslog = "-"
raw_env = ["CLUBRATING_WEB_PROCESS=1"]
