# The two commands of the README: `make run` and `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
export LEDGER_HOME ?= $(CURDIR)/.ledger
export HF_HUB_OFFLINE := 1

.PHONY: setup run test dev browser bench clean

setup: $(VENV)/.installed

# torch first, pinned to the CPU build: a bare `torch` requirement resolves to a multi-GB CUDA build.
# scripts/install_deps.py installs with uv where it can (as pip would resolve, in parallel), else with pip.
$(VENV)/.installed: pyproject.toml scripts/install_deps.py
	$(PY) -m venv $(VENV)
	$(BIN)/python scripts/install_deps.py torch==2.13.0
	$(BIN)/python scripts/install_deps.py -e '.[dev]'
	touch $@

# Ingest this repository on the embedded defaults, then ask it one question.
run: setup
	$(BIN)/ledger add-repo . --id code-ledger --exist-ok
	$(BIN)/ledger ingest code-ledger
	$(BIN)/ledger query "where are chunk points upserted into Qdrant" --repo code-ledger --k 5

test: setup browser
	$(BIN)/python -m pytest -q

# Debian's chromium for the headless UI test (nothing downloads a browser).
browser:
	@scripts/ensure_chromium.sh

# The Dagster UI on the ledger's instance (`make dev PORT=3001`), with the project's dagster.yaml (copied
# each time, so edits reach it). It starts in DAGSTER_HOME with the workspace file: from the project root,
# dagster warns that ./dagster.yaml is ignored (DAGSTER_HOME is elsewhere), and dg's project mode warns
# unless this venv is the activated one.
PORT ?= 3000
dev: setup
	mkdir -p $(LEDGER_HOME)/dagster
	cp dagster.yaml $(LEDGER_HOME)/dagster/dagster.yaml
	cd $(LEDGER_HOME)/dagster && LEDGER_HOME="$(abspath $(LEDGER_HOME))" DAGSTER_HOME="$$PWD" \
	  "$(abspath $(BIN))/dg" dev -w "$(CURDIR)/workspace.yaml" --port $(PORT)

bench: setup
	$(BIN)/pip install -q torch==2.13.0 tree-sitter-language-pack==0.13.0 -e '.[bench]'
	$(BIN)/python benchmarks/chunk_throughput.py . --ext .py
	$(BIN)/python benchmarks/reingest.py
	$(BIN)/python benchmarks/embed_throughput.py
	$(BIN)/python benchmarks/query_latency.py

clean:
	rm -rf $(LEDGER_HOME)
