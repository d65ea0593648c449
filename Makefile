# Everything runs in a project virtualenv that the targets create on first use.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: demo test lint bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

## demo: normalize and explain the sample URLs under each preset
demo: $(VENV)/.installed
	$(PY) -m scrapy_urlnorm explain --policy aggressive < examples/urls.txt

## test: lint, then the whole test suite
test: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m pytest

lint: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

bench: $(VENV)/.installed
	$(PY) benchmarks/bench_normalize.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .hypothesis
