# The two sacred commands: `make play` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup chromium play play-terminal test test-fast test-experiments docs lint format bench bench-core clean

AOT_STAMP := src/othellolab/core/.aot-built

# pip also compiles Board's C fast path (setup.py, src/othellolab/core/_fastboard.c; a second),
# again when that source changes; if it does not compile, Board uses the Numba kernels.
$(STAMP): pyproject.toml setup.py src/othellolab/core/_fastboard.c
	@echo "setup 1/3: installing othellolab and its dependencies into $(VENV) with pip"
	@echo "           (the first time takes a few minutes: PyTorch alone is a large download)"
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,docs]'
	@touch $(STAMP)

# The scalar kernels compiled ahead of time (fast cold start); rebuilt when kernels.py changes.
$(AOT_STAMP): $(STAMP) src/othellolab/core/kernels.py src/othellolab/core/aot.py
	@echo "setup 2/3: compiling the board's rules ahead of time (about 10 s)"
	OTHELLOLAB_NO_AOT=1 $(PY) -m othellolab.core.aot
	@touch $(AOT_STAMP)

# Numba's on-disk cache misses changes to functions that a cached kernel inlined or calls
# recursively (a stale entry can crash or evaluate the wrong way): drop it when a source changes.
NUMBA_STAMP := $(VENV)/.numba-cache-fresh
$(NUMBA_STAMP): $(STAMP) $(shell find src -name '*.py' 2>/dev/null)
	@find src \( -name '*.nbi' -o -name '*.nbc' \) -delete
	@touch $@

# Compile the search players' kernels once (the exact solver's first compile takes about 40 s),
# so that no first move or first solve stalls; again only after a source change empties the cache.
WARM_STAMP := $(VENV)/.kernels-warm
$(WARM_STAMP): $(NUMBA_STAMP) $(AOT_STAMP)
	@echo "setup 3/3: compiling the search players' kernels (about 1 to 2 minutes; once, cached)"
	$(VENV)/bin/othellolab warm-up
	@touch $@

# How to reach what setup installed: othellolab is on no PATH until the environment is active.
NEXT := echo "next: source $(VENV)/bin/activate, then othellolab --help (or call $(VENV)/bin/othellolab)"

setup: $(STAMP) $(AOT_STAMP) $(NUMBA_STAMP) $(WARM_STAMP)
	@echo "setup: done ($(VENV) is ready; later runs skip every step whose inputs did not change)"
	@$(NEXT)

## play: the board in the browser against the strongest available player (prints the URL)
play: setup
	@echo "play: starting the web board (the URL follows; Ctrl-C stops the server)"
	$(VENV)/bin/othellolab serve --open

## play-terminal: the same game in the terminal
play-terminal: setup
	@echo "play-terminal: starting a game in the terminal"
	$(VENV)/bin/othellolab play

## chromium: Debian's Chromium for the browser test (installed when root with apt-get)
chromium:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing chromium for the browser test"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
			|| echo "could not install chromium: the browser test will skip"; \
	else echo "chromium is missing and cannot be installed here (not root or no apt-get): the browser test will skip"; fi

## test: lint, then the whole suite (README doctest included)
test: setup chromium
	$(VENV)/bin/ruff check src tests benchmarks examples experiments course
	$(PY) -m pytest -q
	@$(NEXT)

test-fast: setup
	$(PY) -m pytest -q -m "not slow"

## docs: the documentation site, built strictly (a broken link or any warning fails) into site/;
## open site/index.html, offline (tests/test_site.py builds it too, in make test; about 40 s)
docs: setup
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

## test-experiments: the experiments' own checks of their scripts and kept records (experiments/)
test-experiments: setup
	$(PY) -m pytest -q experiments

lint: setup
	$(VENV)/bin/ruff check src tests benchmarks examples experiments course
	$(VENV)/bin/ruff format --check src tests benchmarks experiments course

format: setup
	$(VENV)/bin/ruff format src tests benchmarks experiments course
	$(VENV)/bin/ruff check --fix src tests benchmarks experiments course

## bench: speed figures, written to docs/benchmarks.md
## bench: every speed benchmark (about 15 minutes); bench-core: the rules alone
bench: setup
	$(PY) benchmarks/bench_core.py --write docs/benchmarks.md
	$(PY) benchmarks/bench_records.py --write docs/benchmarks.md
	$(PY) benchmarks/bench_datasets.py --write docs/benchmarks.md
	$(PY) benchmarks/bench_mcts.py --write docs/benchmarks.md
	$(PY) benchmarks/bench_selfplay.py --write docs/benchmarks.md
	$(PY) benchmarks/bench_search.py --ffo 40-44 --write docs/benchmarks.md
	$(PY) benchmarks/bench_patterns.py --write docs/benchmarks.md
	$(PY) benchmarks/bench_envs.py --write docs/benchmarks.md
	$(PY) benchmarks/bench_rl.py --write docs/benchmarks.md
	$(PY) benchmarks/bench_nn.py --write docs/benchmarks.md
	$(PY) benchmarks/bench_nn.py --variants --write docs/benchmarks.md
	$(PY) benchmarks/bench_web.py --write docs/benchmarks.md

bench-core: setup
	$(PY) benchmarks/bench_core.py --write docs/benchmarks.md

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis site
	find src -name __pycache__ -type d -exec rm -rf {} +

## faults: every long job killed 20 times at seeded random moments and resumed, each finished
## run compared with an uninterrupted one (tests/faults; OTHELLOLAB_FAULT_KILLS sets the count,
## OTHELLOLAB_FAULT_SEED the moments); make test runs the same with 2 kills a job
.PHONY: faults
faults: setup
	OTHELLOLAB_FAULT_KILLS=$${OTHELLOLAB_FAULT_KILLS:-20} $(PY) -m pytest -q -s -p no:cacheprovider tests/faults
