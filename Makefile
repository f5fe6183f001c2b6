# Two commands for a newcomer: `make demo` and `make test`. Both bootstrap .venv on their own.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test lint demo clean

install: $(STAMP)

# Re-install whenever pyproject.toml changes; the stamp keeps repeat runs instant.
$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit("Python 3.11+ is required, found " + sys.version.split()[0]) if sys.version_info < (3, 11) else None'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q

# Tests are type-checked too, without demanding annotations on every test function.
lint: $(STAMP)
	$(PY) -m ruff check servers tests
	$(PY) -m ruff format --check servers tests
	$(PY) -m mypy servers
	$(PY) -m mypy --strict --allow-untyped-defs --allow-incomplete-defs tests

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
