# The everyday commands; README.md explains them. Needs GNU make and python3.11.

VENV := .venv
VENV_PY := $(VENV)/bin/python
# The interpreter that creates the virtualenv: python3.11 if on PATH, else python3.
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
# The port of `make run`, e.g. make run PORT=8001.
PORT ?= 8000
# Extra arguments for pytest, e.g. make test PYTEST_ARGS="-k health -x".
PYTEST_ARGS ?=
# The suite is CPU-bound: one pytest-xdist process per core, at most 4 (each builds its
# own test database). TEST_WORKERS=0 runs it in this process, e.g. for pdb.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); echo $$(( n < 4 ? n : 4 )))

.PHONY: venv run test lint typecheck bench messages messages-check clean

venv: $(VENV)/.installed

# The stamp is newer than pyproject.toml once its dependencies are installed.
$(VENV)/.installed: pyproject.toml
	test -x $(VENV_PY) || $(PYTHON) -m venv $(VENV)
	$(VENV_PY) -m pip install --quiet -e '.[dev]'
	touch $@

run: venv
	$(VENV_PY) manage.py migrate --noinput
	if $(VENV_PY) manage.py help load_demo >/dev/null 2>&1; then \
		$(VENV_PY) manage.py load_demo --if-empty; \
	fi
	$(VENV_PY) -m clubrating.devserver 127.0.0.1:$(PORT)

# --dist load (not worksteal): each process runs its tests in pytest-django's order, the
# transactional tests last. Those flush the database, data migrations' rows (the roles'
# groups) included, so a test that ran after one in the same process would see 403s.
test: venv
	$(VENV)/bin/pytest -n $(TEST_WORKERS) --dist load $(PYTEST_ARGS)

# ruff, then the import contracts of .importlinter (which way imports go).
lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	PYTHONPATH=. $(VENV)/bin/lint-imports --no-cache

# The site's types (pyproject.toml's [tool.mypy]): zero errors over the whole site.
typecheck: venv
	$(VENV)/bin/mypy

# The translations (locale/<language>/LC_MESSAGES): extract every marked message of the
# code and templates into each shipped language's catalogue, then compile them. Needs
# GNU gettext (apt-get install gettext); the compiled .mo files are committed, so
# `make run` and `make test` do not.
MESSAGE_IGNORES := --ignore=.venv --ignore=staticfiles --ignore=tests --ignore=bench \
	--ignore=docs --ignore=static --ignore=test-output
messages: venv
	$(VENV_PY) manage.py makemessages --all --no-location --no-obsolete $(MESSAGE_IGNORES)
	$(VENV_PY) manage.py compilemessages --ignore=.venv

# What CI checks of the translations (.ci/messages-check): the catalogues are current with
# the code (needs GNU gettext), every message is translated in every shipped language (not
# fuzzy), and each .mo is what its .po compiles to.
messages-check: venv
	.ci/messages-check $(MESSAGE_IGNORES)

bench: venv
	if [ -f bench/__main__.py ]; then \
		$(VENV_PY) -m bench; \
	else \
		echo "No benchmarks yet (bench/__main__.py does not exist)."; \
	fi

# Everything generated, including the virtualenv; never the database db.sqlite3 (nor
# var/, which holds the entries the embedded worker has not taken yet).
clean:
	rm -rf $(VENV) staticfiles test-output .pytest_cache .ruff_cache .mypy_cache .hypothesis *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
