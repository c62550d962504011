PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8001
# Two workers: this project's CI machine has two cores. Whole modules go to one worker, so a
# module's expensive fixtures (parsed CR archives, built databases, a browser) are made once; in
# the order tests/conftest.py gives them (longest first, the snapshot's readers after the rest).
PYTEST_WORKERS ?= 2
# `make test` is the two-minute loop; the long proofs (every real CR file imported, every prefix
# of the snapshot's words searched, tens of thousands of generated texts) run in `make proofs`,
# which CI runs after it and `make bench` runs first.
PYTEST_MARKS ?= not long_proof
# The tests' databases and raw stores go to a RAM disk where it and the memory free have room
# for them (~3.5 GB at once): on this machine's disk the suite spent a third of its time in the kernel, writing and
# syncing files no test keeps (124–132 s against 111 s). Elsewhere (a container's 64 MB
# /dev/shm), the system's temporary folder as before. `make test TEST_TMPDIR=` turns it off.
TEST_TMPDIR ?= $(shell [ -d /dev/shm ] && [ "$$(df -Pk /dev/shm 2>/dev/null | awk 'NR==2 {print $$4}')" -gt 8000000 ] 2>/dev/null \
  && [ "$$(awk '/^MemAvailable:/ {print $$2}' /proc/meminfo 2>/dev/null)" -gt 12000000 ] 2>/dev/null && echo /dev/shm)

.PHONY: run test proofs lint build serve bench clean

# What running needs: the package and its runtime dependencies only.
$(BIN)/mtgkb: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	@# setuptools prints a generic notice about editable installs: not ours to act on, so hidden.
	PYTHONWARNINGS=ignore $(BIN)/pip install --quiet -e .
	touch $(BIN)/mtgkb

# What testing and linting need on top: pytest, Playwright's Python package (the browser is
# Debian's chromium, never a downloaded one), ruff, mypy.
$(VENV)/.dev-installed: $(BIN)/mtgkb
	PYTHONWARNINGS=ignore $(BIN)/pip install --quiet -e '.[test,lint]'
	touch $(VENV)/.dev-installed

# Built again when the snapshot or the package's declaration changes; not when `make test`
# installs the test extras, which rewrites $(BIN)/mtgkb: that rebuilt the file and dropped what
# was imported into it by hand (a newcomer's review). Order-only: it must exist, its age is not asked.
data/kb.db: pyproject.toml $(shell find data/snapshot -type f 2>/dev/null) | $(BIN)/mtgkb
	$(BIN)/mtgkb build --snapshot data/snapshot --db data/kb.db

build: $(BIN)/mtgkb
	$(BIN)/mtgkb build --snapshot data/snapshot --db data/kb.db

run: data/kb.db
	$(BIN)/mtgkb serve --db data/kb.db --port $(PORT)

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check kb scraper tests bench
	$(BIN)/mypy

test: $(VENV)/.dev-installed
	@# Byte-compiled first: the suite starts a few dozen interpreters (servers, refreshes, the
	@# CLI), and where PYTHONDONTWRITEBYTECODE is set (this machine, CI) each compiled every
	@# module of the package again (a clean clone's run, two pairs: 4 s of CPU, 2.4–3.7 s of its wall time).
	@$(BIN)/python -m compileall -q -j 0 kb scraper tests bench > /dev/null
	@# pytest keeps each test module with its asserts rewritten beside it (__pycache__, a name of
	@# its own) only where writing bytecode is allowed; unset here, so only a run's first workers
	@# rewrite the 170-odd modules (2.5 s of each worker's start on this machine, every run).
	@# pytest exits 5 when it collected no tests: that is a failure, never a pass.
	@# On the RAM disk only a failed test's folder is kept (pytest keeps three runs' otherwise).
	$(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR) )env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadscope --no-loadscope-reorder \
	  $(if $(TEST_TMPDIR),-o tmp_path_retention_policy=failed )-m "$(PYTEST_MARKS)" $(PYTEST_ARGS); status=$$?; \
	  if [ $$status = 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$status

proofs: $(VENV)/.dev-installed
	@$(MAKE) --no-print-directory test PYTEST_MARKS=long_proof

bench: $(VENV)/.dev-installed
	$(BIN)/python -m bench.run_all

# What make run and make build leave: the environment, the database, the inspect file `mtgkb serve`
# writes beside it, and the half-built file of a build that was killed. The raw store (data/raw),
# fetched from the network, stays.
clean:
	rm -rf $(VENV) data/kb.db data/kb.inspect.json data/.kb.db.building-*
