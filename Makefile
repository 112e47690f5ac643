# The two commands of the README:
#   make book   set up, prepare data, execute every chapter, build the site (_build/html)
#   make test   set up and run the test suite (what CI runs)
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
DATA_SOURCE ?= simulated
SEED ?= 20240601
FAST ?=
DEVICE ?= cpu
JOBS ?=
CHROMIUM ?= /usr/bin/chromium
MATHJAX := book/_mathjax/mathjax/tex-chtml.js
PYTEST_ARGS ?=

# Bytecode: pip installs with --no-compile (below), so Python compiles each module on its first
# import and caches it. Images that set PYTHONDONTWRITEBYTECODE (this project's CI image does)
# would then recompile ~2,500 modules in every process, chapter kernels included: 5.9 of a
# kernel's 10.8 s start-up on 2 cores. The cache goes under the venv, outside the source tree.
unexport PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX := $(CURDIR)/$(VENV)/pycache

.PHONY: book test test-fast lint test-slow smoke data data-leaderboard bench lock clean help publish

help:
	@grep -E '^[a-z-]+:.*## ' Makefile | sed 's/:.*## /\t/'

$(VENV)/.installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-compile -r requirements.txt  # bytecode: on first import, only the modules used (127 → 55 s)
	$(PY) -m pip install --quiet --no-deps -e .
	touch $@

venv: $(VENV)/.installed

$(VENV)/.installed-gpu: $(VENV)/.installed requirements-gpu.txt  # JAX's CUDA wheels, only for DEVICE=gpu
	$(PY) -m pip install --quiet -r requirements-gpu.txt
	touch $@

$(CHROMIUM):  # the browser test drives the system Chromium (CI runs as root)
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

data: $(VENV)/.installed  ## mirror the staged data into data/ (sha256-checked), parse the stems, embed the items, generate the simulated worlds
	$(PY) -m mmlu_audit.book.prepare --seed $(SEED)

data-leaderboard: $(VENV)/.installed  ## MODELS=file.txt: download the Open LLM Leaderboard matrix (needs the Hub)
	@test -n "$(MODELS)" || { echo "make data-leaderboard: set MODELS=<file with one org/model per line>"; exit 2; }
	$(PY) -m mmlu_audit.data.leaderboard --models $(MODELS)

$(MATHJAX):
	npm install --silent --no-audit --no-fund --prefix node_modules/.mathjax mathjax@3
	mkdir -p book/_mathjax/mathjax
	cp -r node_modules/.mathjax/node_modules/mathjax/es5/. book/_mathjax/mathjax/

execute: $(VENV)/.installed $(if $(filter gpu,$(DEVICE)),$(VENV)/.installed-gpu)
	$(PY) -m mmlu_audit.book.build --data-source $(DATA_SOURCE) --seed $(SEED) --device $(DEVICE) $(if $(JOBS),--jobs $(JOBS)) $(if $(FAST),--fast)

html: $(VENV)/.installed $(MATHJAX)  # the findings box (from the executed chapters) and the audit example are written first
	$(PY) -m mmlu_audit.book.findings --data-source $(DATA_SOURCE) --seed $(SEED) $(if $(FAST),--fast)
	$(PY) -m mmlu_audit.book.examples
	$(VENV)/bin/jupyter-book build . --warningiserror --nitpick --keep-going --builder html

book: data execute html  ## set up, prepare data, execute every chapter, build _build/html (DEVICE=gpu: on CUDA)

smoke: ## every chapter in fast mode + the book build
	$(MAKE) book FAST=1

publish: $(VENV)/.installed  ## push _build/html to the gh-pages branch with ghp-import (without GitHub Actions; build first)
	$(PY) -m mmlu_audit.book.publish

test: $(VENV)/.installed $(MATHJAX) $(CHROMIUM)  ## lint, then run the default test suite (includes the smoke build and the browser test)
	$(VENV)/bin/ruff check lib tests chapters bench
	$(VENV)/bin/actionlint  # the workflows in .github/workflows (config: .github/actionlint.yaml)
	$(VENV)/bin/codespell lib tests chapters book README.md  # spelling; config in pyproject.toml
	$(VENV)/bin/pytest $(PYTEST_ARGS)

test-fast: $(VENV)/.installed  ## the developers' inner loop: lint and every test but the smoke build and browser check (CI runs them all)
	$(VENV)/bin/ruff check lib tests chapters bench
	$(VENV)/bin/actionlint  # the workflows in .github/workflows (config: .github/actionlint.yaml)
	$(VENV)/bin/codespell lib tests chapters book README.md  # spelling; config in pyproject.toml
	$(VENV)/bin/pytest -m 'not slow and not r and not smoke' $(PYTEST_ARGS)

lint: $(VENV)/.installed  ## ruff over lib, tests, chapters and bench; codespell over the prose too (config in pyproject.toml)
	$(VENV)/bin/ruff check lib tests chapters bench
	$(VENV)/bin/actionlint  # the workflows in .github/workflows (config: .github/actionlint.yaml)
	$(VENV)/bin/codespell lib tests chapters book README.md  # spelling; config in pyproject.toml

test-slow: $(VENV)/.installed  ## the full-size recovery and size/power tests (long)
	$(VENV)/bin/pytest -m slow $(PYTEST_ARGS)

PYIRT := bench/.venv-pyirt/bin/python

$(PYIRT): bench/requirements-pyirt.txt  # the peer of the IRT benchmark, kept out of the project venv
	$(PYTHON) -m venv bench/.venv-pyirt
	$(PYIRT) -m pip install --quiet -r bench/requirements-pyirt.txt
	touch $@

GIRTH := bench/.venv-girth/bin/python

$(GIRTH): bench/requirements-girth.txt  # the MML peer of the IRT benchmark (girth), in its own venv too
	$(PYTHON) -m venv bench/.venv-girth
	$(GIRTH) -m pip install --quiet -r bench/requirements-girth.txt
	touch $@

bench: $(VENV)/.installed $(PYIRT) $(GIRTH)  ## benchmarks (long); results land in bench/results/ and on the Performance page
	$(PY) bench/bench_irt.py
	$(PY) bench/bench_scaling.py
	$(PY) bench/bench_features.py
	$(PY) bench/bench_inference.py --size-power
	$(PY) bench/bench_validity.py
	$(PY) bench/bench_seed_study.py
	$(PY) bench/bench_dask.py
	$(PY) bench/bench_seed_study_fits.py
	$(PY) bench/bench_lambda_coverage.py
	$(PY) bench/bench_dner_estimated.py
	$(PY) bench/bench_interaction_bootstrap.py
	$(PY) bench/bench_mmlu_pro.py
	$(PY) bench/bench_modelside.py --chapters 08 11
	$(PY) bench/bench_real_power.py --worlds floor_false
	$(PY) bench/bench_outcome_power.py
	$(PY) bench/bench_multiverse.py

lock: $(VENV)/.installed  ## re-pin requirements.txt from the current environment
	$(PY) -m pip freeze --exclude-editable | sed 's/^torch==\(.*\)+cpu/torch==\1/' > requirements.txt

clean:  ## remove generated artefacts (keeps the venv)
	rm -rf _build book/_executed data/cache .pytest_cache
