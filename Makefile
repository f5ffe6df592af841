# Two commands on a fresh machine: `make demo` and `make test`. Each makes its own .venv.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
DEMO ?= demo-vault

.PHONY: venv test lint demo bench clean-demo

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]'
	@touch $@

test: venv
	$(PY) -m pytest -q -n 2 -p no:cacheprovider

lint: venv
	$(BIN)/ruff check biocortex_cli tests benchmarks
	$(BIN)/mypy

demo: venv
	@rm -rf $(DEMO)
	@echo "== biocortex init $(DEMO)" >&2
	$(BIN)/biocortex init $(DEMO)
	@echo "== import the shipped sample episodes" >&2
	$(BIN)/biocortex --vault $(DEMO) episode import examples/sample_episodes.jsonl
	@echo "== the five newest episodes" >&2
	$(BIN)/biocortex --vault $(DEMO) episode list --limit 5
	@echo "== failed scRNA-seq analyses" >&2
	$(BIN)/biocortex --vault $(DEMO) episode list --domain scRNA-seq --failure
	@echo "== recall: what went wrong last time? (--explain on stderr shows why each hit ranks)" >&2
	$(BIN)/biocortex --vault $(DEMO) recall "what went wrong last time we removed doublets from 10x multiome data?" --explain
	@echo "== recall with a small budget, as JSON (the shape agents parse)" >&2
	$(BIN)/biocortex --vault $(DEMO) recall "KRAS G12C CRISPR screen resistance" --budget 400 --json
	@echo "== check the vault" >&2
	$(BIN)/biocortex --vault $(DEMO) check
	@echo "== git log of the vault" >&2
	git -C $(DEMO) log --oneline | head -5

bench: venv
	$(PY) benchmarks/startup.py
