# Two commands do everything on a fresh Debian machine with Python 3.11+:
#   make run   - install the app's packages into .venv and start the app
#   make test  - install test packages (+ Chromium and a CJK font when root), lint, run every test
#   make serve - a class: WORKERS app processes behind nginx on PORT (see docs/teaching.md, "Serving a class")
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8501
SCREENSHOTS ?=
JOBS ?= $(shell echo $$(( $$(nproc) + 1 )))
WORKERS ?= 2
ADDRESS ?= 0.0.0.0

.PHONY: run serve test bench lint system-deps node-deps tekken

$(PY):
	scripts/make_venv.sh $(PYTHON) $(VENV)

$(VENV)/.app-installed: requirements.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

# --no-compile: pip would compile every module of every package (half its 17 s); the test
# run compiles, once, the ones it imports (2.5 s) and keeps them (see `test` below).
$(VENV)/.dev-installed: requirements.txt requirements-dev.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-compile -r requirements-dev.txt
	touch $(VENV)/.app-installed $@

# Mistral's Tekken tokenizer: the mistral-common wheel, downloaded (never installed) into the
# venv and checked by pip against PyPI's SHA-256. The app reads tekken_240911.json out of it
# (bpeviz/real/mistral_tekken.py); without it Tekken is simply not offered.
$(VENV)/.tekken-downloaded: requirements-tekken.txt | $(PY)
	$(PY) -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
		--require-hashes -r requirements-tekken.txt -d $(VENV)/share/bpeviz
	touch $@

run: $(VENV)/.app-installed $(VENV)/.tekken-downloaded
	FORWARDED_ALLOW_IPS= $(PY) -m streamlit run server.py --server.port $(PORT)

serve: $(VENV)/.app-installed $(VENV)/.tekken-downloaded system-deps
	$(PY) scripts/serve.py --workers $(WORKERS) --port $(PORT) --address $(ADDRESS)

tekken: $(VENV)/.tekken-downloaded

system-deps:
	scripts/install_system_deps.sh

# Test-only JavaScript (axe-core, pinned in package-lock.json) into node_modules: installed
# from the lock file, never fetched by the tests. Without npm the axe tests skip (fail under
# BPEVIZ_REQUIRE_BROWSER=1).
node_modules/.installed: package.json package-lock.json
	if command -v npm >/dev/null; then npm ci --no-audit --no-fund && touch $@; \
	else echo "note: npm missing: the axe-core tests will skip" >&2; fi

node-deps: system-deps
	$(MAKE) node_modules/.installed

lint: $(VENV)/.dev-installed
	$(PY) -m ruff check .

# Two passes: every test not marked `serial` on JOBS pytest-xdist workers, one more than the
# cores, as a browser test waits on its page and server a sixth of its time (on 2 cores a fresh
# clone's run took 10:52 with 3 workers, 12:49 with 2; 4 were no faster than 3); a module's
# tests stay on one worker, so module fixtures start once, and each worker has its own app
# server. Then the
# `serial` ones (a classroom of browsers, nginx and Redis, timings) alone on the machine. Both
# always run; the target fails if either did. `make test SCREENSHOTS=artifacts/screenshots`
# also takes the screenshots made for a person to look at (tests/browser/conftest.py); no test
# reads them, so by default none is taken.
# The test run keeps Python's bytecode (__pycache__, ignored by git) even where the machine's
# environment says not to: every worker, app server and CLI run would compile bpeviz and
# the tests again (a worker's collection took 7.0 s so, 3.0 s with it kept).
# The serial pass collects only the files that mark tests `serial` (collecting all of them
# again took 6 s of the pass's 45).
SERIAL_FILES = $(shell grep -rl --include='test_*.py' 'pytest.mark.serial' tests)
test: $(VENV)/.dev-installed $(VENV)/.tekken-downloaded system-deps node-deps lint
	export BPEVIZ_SCREENSHOTS=$(SCREENSHOTS); unset PYTHONDONTWRITEBYTECODE; \
	$(PY) -m pytest -n $(JOBS) --dist loadscope -m "not serial" --durations=25; parallel=$$?; \
	$(PY) -m pytest -p no:xdist -m serial --durations=10 $(SERIAL_FILES); serial=$$?; \
	test $$parallel = 0 -a $$serial = 0

bench: $(VENV)/.dev-installed $(VENV)/.tekken-downloaded
	$(PY) benchmarks/run.py
