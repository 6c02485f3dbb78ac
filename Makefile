# The two commands of the quick start: `make serve` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml client/pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: install serve deploy test coverage bench bench-ismcts ismcts-extra bench-scale soak fuzz redis-server chromium screenshots wrk curl-jq

# setup.py compiles the search's inner loop in place: an edit to it is built again before it runs.
$(STAMP): pyproject.toml client/pyproject.toml setup.py domain/bots/rollout.py \
		domain/bots/sampling.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]' -e ./client
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

serve: install
	$(VENV)/bin/cardems serve $(ARGS)

# The whole deployment on one machine under honcho: two Redis servers, the API processes
# behind one port, RQ workers (docs/deploy.md). Ctrl-C or SIGTERM stops every piece.
DEPLOY_DATA ?= data/deploy
DEPLOY_WORKERS ?= 2
deploy: install redis-server
	mkdir -p $(DEPLOY_DATA)/store $(DEPLOY_DATA)/queue
	DATA=$(DEPLOY_DATA) PATH="$(CURDIR)/$(VENV)/bin:$$PATH" \
		$(VENV)/bin/honcho start -f deploy/Procfile -c worker=$(DEPLOY_WORKERS)

redis-server:
	@command -v redis-server >/dev/null || (apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null)

# The web table's tests drive Debian's Chromium through Playwright; no browser is downloaded.
chromium:
	@command -v chromium >/dev/null || (apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

# The README's curl block is run by a test, as written.
curl-jq:
	@command -v curl >/dev/null && command -v jq >/dev/null || (apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl jq >/dev/null)

# Two test files at a time, one a core: most of the suite waits on servers, browsers and
# Redis. A file's tests run together and share the servers it starts.
test: install redis-server chromium curl-jq
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(PY) -m pytest -n 2 --dist loadfile

# The whole suite with branch coverage, the processes it starts included.
coverage: install redis-server chromium curl-jq
	rm -rf .coverage-data && mkdir -p .coverage-data
	$(VENV)/bin/coverage run -m pytest
	$(VENV)/bin/coverage combine --quiet
	$(VENV)/bin/coverage report

# The README's pictures of the table, taken by the web tests.
screenshots: install chromium
	CARDEMS_ARTIFACTS=docs/screenshots $(PY) -m pytest tests/web

wrk:
	@command -v wrk >/dev/null || (apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null)

bench: install redis-server wrk ismcts-extra
	$(PY) -m bench

# OpenSpiel, for `bench ismcts` alone; `bench ismcts-full` is the long run (hours).
ismcts-extra: install
	@$(PY) -c "import pyspiel" 2>/dev/null || $(PY) -m pip install --quiet -e '.[ismcts]'

bench-ismcts: ismcts-extra
	$(PY) -m bench ismcts

# Scale-out: appends on a Redis Cluster, then five minutes of load with faults (about 8 min).
bench-scale: install redis-server
	$(PY) -m bench cluster load

# Thirty minutes of load on the whole deployment; draws docs/img/soak.png.
soak: install redis-server
	$(PY) -m bench soak

# The long contract fuzzing run: thousands of cases, the exhaustive coverage phase too.
fuzz: install
	$(PY) -m tests.e2e.fuzz_long
