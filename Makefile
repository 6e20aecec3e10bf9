# Two commands for a new user: `make play` and `make test`. Both bootstrap .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# What playing needs only (no linters, type checker, test tools or plotting): `make play` is quick.
PSTAMP := $(VENV)/.play-installed
WSTAMP := $(VENV)/.web-installed
# The engine compiled with mypyc lives in a virtual environment of its own (docs/speed.md).
CVENV := .venv-compiled
CBIN := $(CVENV)/bin
CSTAMP := $(CVENV)/.installed

BSTAMP := $(VENV)/.browser-installed
# pytest's workers: one more than the cores. A fifth of the suite waits (for servers, bots,
# subprocesses and their time limits) rather than computes, and a third worker fills those
# waits: on two cores `make test`'s tests took 7:46 instead of 8:47 with one per core.
WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); echo $$((n + 1)))

.PHONY: play test lint typecheck pytest bench bench-openspiel compiled test-compiled bench-compiled clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

$(PSTAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $(PSTAMP)

# ARGS passes options on: make play ARGS='--resume' (or run .venv/bin/cribbage directly).
# FIFTEENTWO_LAUNCHER tells the game it was started here, so the commands it tells you to type
# are in this form (make play ARGS='--resume ID'; fifteentwo/app/launch.py).
play: $(PSTAMP)
	FIFTEENTWO_LAUNCHER=make $(BIN)/cribbage play $(ARGS)

.PHONY: serve test-browser

# The browser game (docs/web.md): the web extra only.
$(WSTAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[web]'
	touch $(WSTAMP)

serve: $(WSTAMP)
	FIFTEENTWO_LAUNCHER=make $(BIN)/cribbage serve $(ARGS)

# Browser tests (tests/browser, not part of make test): Playwright for Python driving Debian's
# Chromium, installed with apt-get when missing; Playwright never downloads a browser.
$(BSTAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev,web,browser]'
	touch $(BSTAMP)

test-browser: $(BSTAMP)
	test -x /usr/bin/chromium || { \
		if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y chromium; \
		else sudo apt-get update && sudo apt-get install -y chromium; fi; }
	command -v npm >/dev/null || { \
		if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y npm; \
		else sudo apt-get update && sudo apt-get install -y npm; fi; }
	npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
	FIFTEENTWO_BROWSER=1 $(BIN)/pytest -p no:xdist -p no:cacheprovider -q tests/browser

test: $(STAMP) lint typecheck pytest

# The web tests against a deployment (docs/web.md, Deployment): every web test that does not
# reach into the server's process, against two processes on PostgreSQL and Redis behind an
# nginx of their own (make test runs a subset), and the rolling restarts.
.PHONY: test-web-cluster
test-web-cluster: $(STAMP) nginx
	FIFTEENTWO_CLUSTER_ALL=1 FIFTEENTWO_REQUIRE_POSTGRES=1 FIFTEENTWO_REQUIRE_REDIS=1 \
		$(BIN)/pytest -p no:xdist -p no:cacheprovider -q tests/test_web_cluster.py tests/test_web_rolling.py

lint: $(STAMP)
	$(BIN)/ruff check src tests bench setup.py
	$(BIN)/ruff format --check src tests bench setup.py

typecheck: $(STAMP)
	$(BIN)/mypy --strict src

# nginx: the load balancer of the multi-process web tests, installed with apt-get when missing.
.PHONY: nginx
nginx:
	test -x /usr/sbin/nginx || { \
		if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y nginx; \
		else sudo apt-get update && sudo apt-get install -y nginx; fi; }

pytest: $(STAMP) nginx
	FIFTEENTWO_REQUIRE_POSTGRES=1 FIFTEENTWO_REQUIRE_REDIS=1 \
		$(BIN)/pytest -n $(WORKERS) --dist worksteal -m 'not walk' src tests

# The terminal game's longer key walks (tests/test_tui_keys.py; one of them runs in make test).
.PHONY: test-walks
test-walks: $(STAMP)
	$(BIN)/pytest -n $(WORKERS) --dist worksteal -p no:cacheprovider -m walk tests/test_tui_keys.py

bench: $(STAMP)
	@for f in bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

# The engine benchmark against OpenSpiel's C++ cribbage (a large optional install), for the
# pure-Python engine and the compiled one.
bench-openspiel: $(STAMP) $(CSTAMP)
	$(BIN)/python -m pip install --quiet -e '.[openspiel]'
	$(CBIN)/python -m pip install --quiet 'open_spiel>=1.5'
	$(BIN)/python bench/bench_engine.py
	$(CBIN)/python bench/bench_engine.py

# It needs a C compiler and Python's headers, and installs the project without -e, so the
# compiled modules never shadow the sources .venv runs.
$(CSTAMP): pyproject.toml setup.py $(shell find src -name '*.py' -o -name '*.tcss')
	test -x $(CBIN)/python || $(PYTHON) -m venv $(CVENV)
	$(CBIN)/python -m pip install --quiet --upgrade pip setuptools wheel 'mypy>=1.10'
	rm -rf build  # (setuptools' build directory: no compiled module may leak into a pure wheel)
	$(CBIN)/python -m pip install --quiet '.[dev]'
	FIFTEENTWO_COMPILE=1 $(CBIN)/python -m pip install --quiet --no-build-isolation --no-deps \
		--force-reinstall .
	rm -rf build
	touch $(CSTAMP)

compiled: $(CSTAMP)

# The browser game served with the compiled engine (docs/web.md, "Hosting at scale").
.PHONY: serve-compiled
serve-compiled: $(CSTAMP)
	FIFTEENTWO_LAUNCHER=make $(CBIN)/cribbage serve $(ARGS)

# The tests against the compiled engine (fewer random games: the code is the same, this run is
# for what compiling could change).
test-compiled: $(CSTAMP)
	FIFTEENTWO_EXPECT_COMPILED=1 FIFTEENTWO_RANDOM_GAMES=20000 \
		$(CBIN)/pytest -n $(WORKERS) --dist worksteal -p no:cacheprovider tests

bench-compiled: $(CSTAMP)
	$(CBIN)/python bench/bench_engine.py
	$(CBIN)/python bench/bench_players.py

# Self-play on Ray (docs/cluster.md): the optional extra, then the tests that start a real local
# Ray cluster on 127.0.0.1 (one at a time, so no xdist; bounded, as every Ray process must stop).
.PHONY: test-cluster bench-cluster
test-cluster: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,cluster]'
	timeout 600 $(BIN)/pytest -p no:xdist -q tests/cluster

bench-cluster: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,cluster]'
	$(BIN)/python bench/bench_cluster.py

clean:
	rm -rf $(VENV) $(CVENV) build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
