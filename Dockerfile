# The clubrating image: the web process (gunicorn), the Celery worker and beat.
FROM python:3.11-slim

# PYTHONPATH: the project directory wins over the copy pip installs into
# site-packages, so that BASE_DIR (templates/, static/) is /app whichever
# command starts (gunicorn, celery, manage.py).
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONPATH=/app

WORKDIR /app

COPY . .
RUN pip install .

# Hashed, compressed static files, served by whitenoise. The key and the database URL
# only let the settings load; nothing is signed and no database is opened.
RUN DEBUG=0 SECRET_KEY=collectstatic-at-build-only DATABASE_URL=sqlite:////tmp/unused.sqlite3 \
    python manage.py collectstatic --noinput

RUN useradd --create-home --uid 1000 clubrating && chown -R clubrating /app
USER clubrating

EXPOSE 8000
# gunicorn.conf.py: the port, three workers recycled after about 500 requests, and the
# web process's short database timeouts.
CMD ["gunicorn", "--config", "gunicorn.conf.py", "clubrating.wsgi"]
