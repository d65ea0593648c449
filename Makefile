# Everything runs in a project virtualenv that the targets create on first use.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

MIN_VENV ?= .venv-min
NEWEST_VENV ?= .venv-newest
# The suite runs in one process per core, at most four (each crawl test starts its own
# loopback servers; more processes than cores only slow each other). PYTEST_WORKERS=0: one process.
PYTEST_WORKERS ?= auto
PYTEST_PARALLEL := -n $(PYTEST_WORKERS) --maxprocesses=4
# The oldest and newest Python to test on (CI passes the ones the machine has).
MIN_PYTHON ?= $(PYTHON)
NEWEST_PYTHON ?= $(PYTHON)

.PHONY: demo compare explain test test-full test-min test-newest test-compiled lint bench docs plots clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

## demo: crawl the bundled demo web with the add-on and print the redundancy report
demo: $(VENV)/.installed
	cd example_project && ../$(VENV)/bin/scrapy crawl demo

## compare: stock Scrapy vs the add-on vs the aggressive preset on the demo web
compare: $(VENV)/.installed
	$(PY) benchmarks/bench_crawl.py --small-only

## explain: normalize and explain the sample URLs (no crawl)
explain: $(VENV)/.installed
	$(PY) -m scrapy_urlnorm explain --policy aggressive < examples/urls.txt

## test: lint and type-check, then the test suite (the regression crawls on a sample: see test-full)
test: $(VENV)/.installed
	@command -v redis-server >/dev/null || echo "note: redis-server is not installed, so the Redis tests are skipped (apt-get install redis-server)"
	$(PY) -m ruff check .
	$(PY) -m mypy
	URLNORM_DIFFERENTIAL=quick $(PY) -m pytest $(PYTEST_PARALLEL)

## test-full: the suite with every regression crawl (what CI's test-newest runs on the newest releases)
test-full: $(VENV)/.installed
	$(PY) -m pytest $(PYTEST_PARALLEL)

## test-min: lint and the suite (as make test samples it) with every dependency at the floor pyproject.toml declares (on MIN_PYTHON)
test-min:
	$(MIN_PYTHON) -m venv $(MIN_VENV)
	$(MIN_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(PYTHON) .ci/min_constraints.py > $(MIN_VENV)/constraints.txt
	$(MIN_VENV)/bin/python -m pip install --quiet -c $(MIN_VENV)/constraints.txt -e '.[test]'
	$(MIN_VENV)/bin/python -m ruff check .
	URLNORM_DIFFERENTIAL=quick $(MIN_VENV)/bin/python -m pytest -p no:cacheprovider $(PYTEST_PARALLEL)

## test-newest: the whole suite, every regression crawl, on NEWEST_PYTHON with the newest releases of every dependency
test-newest:
	$(NEWEST_PYTHON) -m venv $(NEWEST_VENV)
	$(NEWEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(NEWEST_VENV)/bin/python -m pip install --quiet --upgrade -e '.[test]'
	$(NEWEST_VENV)/bin/python -m pytest -p no:cacheprovider $(PYTEST_PARALLEL)

## docs: build the docs site into site/, warnings as errors (what CI runs)
docs: $(VENV)/.docs-installed
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

$(VENV)/.docs-installed: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[docs]'
	touch $@

## plots: rerun the differential benchmark (a few minutes) and redraw docs/img/differential.svg
plots: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[bench]'
	-$(PY) benchmarks/bench_differential.py --seeds 48 --json docs/data/differential.jsonl
	$(PY) benchmarks/plot_differential.py docs/data/differential.jsonl -o docs/img/differential.svg

lint: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

## test-compiled: build the mypyc-compiled core, test it in a fresh venv, check outputs equal plain Python's
test-compiled: $(VENV)/.installed
	bash .ci/test_compiled.sh $(PYTHON)

bench: $(VENV)/.installed
	$(PY) benchmarks/bench_normalize.py
	if command -v valgrind >/dev/null; then $(PY) benchmarks/count_instructions.py; fi
	$(PY) benchmarks/bench_filter.py
	if command -v redis-server >/dev/null; then $(PY) benchmarks/bench_redis.py; fi
	$(PY) benchmarks/bench_frontier.py
	$(PY) benchmarks/bench_hostile.py
	$(PY) benchmarks/bench_crawl.py

clean:
	rm -rf $(VENV) $(MIN_VENV) $(NEWEST_VENV) site build dist *.egg-info .pytest_cache .hypothesis
