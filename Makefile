# Two commands for a newcomer: `make demo` and `make test`. Both bootstrap .venv on their own.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test test-slow lint demo clean new-server docs docs-check audit bench audit-corpus

install: $(STAMP)

# Re-install whenever pyproject.toml changes; the stamp keeps repeat runs instant.
$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit("Python 3.11+ is required, found " + sys.version.split()[0]) if sys.version_info < (3, 11) else None'
	@echo "Creating $(VENV) and installing the project with its development tools (about 75 packages,"
	@echo "1 to 2 minutes the first time; quiet until done). Servers alone: pip install . (docs/using.md)."
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)
	@echo "Installed into $(VENV)."

# The suite without the slow tier (about 4 minutes); CI runs both tiers.
test: $(STAMP)
	$(PY) -m pytest -q -m "not slow"

# Tests that build whole projects (a generated server's tests and lint, a copy in a fresh venv).
test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow

# The tutorial's worked example through the real servers; replays recorded weather when offline.
demo: $(STAMP)
	$(PY) -m instruments.demo

# Tests are type-checked too, without demanding annotations on every test function.
lint: $(STAMP)
	$(PY) -m ruff check servers instruments tests
	$(PY) -m ruff format --check servers instruments tests
	$(PY) -m mypy servers instruments
	$(PY) -m mypy --strict --allow-untyped-defs --allow-incomplete-defs tests

# Start a server from the template: make new-server NAME=notes
new-server:
	@if [ -z "$(NAME)" ]; then echo "Give the new server a name: make new-server NAME=yourname (one lowercase word, e.g. notes)." >&2; exit 2; fi
	@$(MAKE) --no-print-directory install
	$(PY) -m instruments.new $(NAME)

# docs/tools.md from the servers' live tools/list; docs-check fails when the committed page is stale.
docs: $(STAMP)
	$(PY) -m instruments.tooldocs

docs-check: $(STAMP)
	$(PY) -m instruments.tooldocs --check

# Audit every server under servers/ (one made with `make new-server` too) as a model sees them together;
# fails below a perfect checklist and probe score.
AUDITED := $(patsubst servers/%/server.py,%,$(wildcard servers/*/server.py))
audit: $(STAMP)
	$(PY) -m instruments.audit --fail-under 100 $(foreach s,$(AUDITED),--requests servers/$(s)/requests.jsonl) \
		$(foreach s,$(AUDITED),--server "$(PY) -m servers.$(s)")

# Install the pinned real servers (PyPI, npm) into .cache/audit-corpus, audit each in a sandbox, write
# docs/audit-corpus.md. Needs the network; not in CI.
audit-corpus: $(STAMP)
	$(PY) -m instruments.audit.corpus --record tests/instruments/audit/recordings --before instruments/audit/corpus-scores-before.json

# Measure every server against a bare SDK server; prints the table, writes docs/benchmarks.md. Not in CI.
bench: $(STAMP)
	$(PY) -m instruments.bench --output docs/benchmarks.md

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
