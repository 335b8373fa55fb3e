# Two commands do everything on a fresh Debian machine with Python 3.11+:
#   make run   - install the app's packages into .venv and start the app
#   make test  - install test packages (+ Chromium and a CJK font when root), lint, run every test
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8501
SCREENSHOTS ?= artifacts/screenshots

.PHONY: run test bench lint system-deps

$(PY):
	scripts/make_venv.sh $(PYTHON) $(VENV)

$(VENV)/.app-installed: requirements.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.dev-installed: requirements.txt requirements-dev.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(VENV)/.app-installed $@

run: $(VENV)/.app-installed
	$(PY) -m streamlit run app.py --server.port $(PORT)

system-deps:
	scripts/install_system_deps.sh

lint: $(VENV)/.dev-installed
	$(PY) -m ruff check .

test: $(VENV)/.dev-installed system-deps lint
	BPEVIZ_SCREENSHOTS=$(SCREENSHOTS) $(PY) -m pytest

bench: $(VENV)/.dev-installed
	$(PY) benchmarks/run.py
