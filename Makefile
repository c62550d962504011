PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8001

.PHONY: run test build serve bench clean

$(BIN)/mtgkb: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/mtgkb

data/kb.db: $(BIN)/mtgkb $(shell find data/snapshot -type f 2>/dev/null)
	$(BIN)/mtgkb build --snapshot data/snapshot --db data/kb.db

build: $(BIN)/mtgkb
	$(BIN)/mtgkb build --snapshot data/snapshot --db data/kb.db

run: data/kb.db
	$(BIN)/mtgkb serve --db data/kb.db --port $(PORT)

test: $(BIN)/mtgkb
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

bench: $(BIN)/mtgkb
	$(BIN)/python -m bench.run_all

clean:
	rm -rf $(VENV) data/kb.db data/counts.json
