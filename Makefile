# Two self-contained entry points: `make demo` (the main job) and `make test` (the suite).
# Both create .venv, install the CPU build of torch FIRST (a plain `torch` requirement would
# pull a multi-GB CUDA build), then the project with its extras.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TORCH ?= torch==2.13.0
export HF_HUB_OFFLINE := 1
export HF_DATASETS_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install install-test demo test lint clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install -q $(TORCH)
	$(BIN)/pip install -q -e '.[train]'

install-test: $(BIN)/python
	$(BIN)/pip install -q $(TORCH)
	$(BIN)/pip install -q -e '.[train,ray,trackers,test]'

demo: install
	$(BIN)/python scripts/demo.py

test: install-test
	$(BIN)/ruff check .
	HYPOTHESIS_PROFILE=ci TESTS_CPU_RECORD=.test-cpu.json $(BIN)/python -m pytest -q -p no:cacheprovider
	$(BIN)/python scripts/fast_tier_budget.py --warn-only .test-cpu.json

lint:
	$(BIN)/ruff check .

clean:
	rm -rf demo-out .pytest_cache .test-cpu.json
