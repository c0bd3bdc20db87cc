# Two commands do all set-up on a fresh machine with only python3 and make:
#   make demo   score the bundled example cases
#   make test   run the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test frameworks docs bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamps re-run the install when the packaging changes.
PLUGIN := plugins/agent-tool-metrics-trajectory
JUDGE := plugins/agent-tool-metrics-judge
TOOLUSE := plugins/agent-tool-metrics-tooluse
COMPAT := plugins/agent-tool-metrics-compat

# The plugin is installed like any third-party package, so the registry, the
# CLI, the batch evaluator and the pytest marker find it through entry points.
$(VENV)/.installed: pyproject.toml $(PLUGIN)/pyproject.toml $(JUDGE)/pyproject.toml $(TOOLUSE)/pyproject.toml $(COMPAT)/pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[fast]' -e $(PLUGIN) -e $(JUDGE) -e $(TOOLUSE) -e $(COMPAT)
	touch $@

$(VENV)/.installed-test: pyproject.toml $(PLUGIN)/pyproject.toml $(JUDGE)/pyproject.toml $(TOOLUSE)/pyproject.toml $(COMPAT)/pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]' -e '$(PLUGIN)[test]' -e '$(JUDGE)[test]' -e '$(TOOLUSE)[test]' -e '$(COMPAT)[test]'
	touch $@ $(VENV)/.installed

# The peer libraries that the compatibility metrics (plugins/agent-tool-metrics-compat)
# are tested against, in their own environment: their pins conflict with ours.
# Built only when the requirements' content changes: the stamp is a copy of the
# requirements it was built from, so a checkout that only touches the file's time
# rebuilds nothing; a rebuild starts from an empty directory, so nothing installed
# for the previous pins stays behind (1.2 GB, about 70 s from a warm cache).
PEERS := .venv-peers
$(PEERS)/.installed: tests/peers/requirements.txt
	@if cmp -s tests/peers/requirements.txt $(PEERS)/.installed; then touch $(PEERS)/.installed; else \
	    set -ex; \
	    rm -rf $(PEERS); \
	    $(PYTHON) -m venv $(PEERS); \
	    $(PEERS)/bin/python -m pip install --quiet --upgrade pip; \
	    $(PEERS)/bin/python -m pip install --quiet -r tests/peers/requirements.txt; \
	    cp tests/peers/requirements.txt $(PEERS)/.installed; \
	fi

# BFCL's checker (bfcl-eval), which bfcl_ast is tested against: installed without
# its dependencies (every model SDK, tree-sitter, ...), which the AST checker
# never uses; tests/peers/drive_bfcl.py stubs the one module that imports them.
BFCL := .venv-bfcl
$(BFCL)/.installed: tests/peers/bfcl-requirements.txt
	@if cmp -s tests/peers/bfcl-requirements.txt $(BFCL)/.installed; then touch $(BFCL)/.installed; else \
	    set -ex; \
	    rm -rf $(BFCL); \
	    $(PYTHON) -m venv $(BFCL); \
	    $(BFCL)/bin/python -m pip install --quiet --no-deps -r tests/peers/bfcl-requirements.txt; \
	    cp tests/peers/bfcl-requirements.txt $(BFCL)/.installed; \
	fi

# The framework matrix (tests/frameworks/README.md): agent frameworks and gateways under
# agentmetrics.capture(), in two environments (their pins conflict: llama-index wants
# openai<3, litellm and google-adk run on openai 3), each built only when its
# requirements change, as the peers' is; agentmetrics itself installed editable.
FW_AGENTS := .venv-fw-agents
FW_GATEWAYS := .venv-fw-gateways
.venv-fw-%/.installed: tests/frameworks/%/requirements.txt
	@if cmp -s $< $@; then touch $@; else \
	    set -ex; \
	    rm -rf .venv-fw-$*; \
	    $(PYTHON) -m venv .venv-fw-$*; \
	    .venv-fw-$*/bin/python -m pip install --quiet --upgrade pip; \
	    .venv-fw-$*/bin/python -m pip install --quiet -r $< -e .; \
	    cp $< $@; \
	fi

# For benchmarks/bench_peers.py: agentmetrics and its plugins beside the peers.
$(PEERS)/.installed-bench: $(PEERS)/.installed pyproject.toml $(PLUGIN)/pyproject.toml $(TOOLUSE)/pyproject.toml $(COMPAT)/pyproject.toml
	$(PEERS)/bin/python -m pip install --quiet -e '.[fast]' -e $(PLUGIN) -e $(TOOLUSE) -e $(COMPAT)
	touch $@

# The bundled tau2-bench runs scored and explained, in at most 100 columns.
demo: $(VENV)/.installed
	@$(BIN)/agentmetrics demo

# The two environments are built side by side (from a warm cache, 80 s together
# instead of 155 s one after the other), then the lint, then the suite on two
# xdist workers: every machine here has 2 cores and the suite is CPU-bound, so a
# third worker only adds its own 20 s collection; -n auto means 2 here, but
# whatever psutil counts elsewhere (TEST_WORKERS=auto to have it anyway).
# pyproject.toml's addopts keep each test module on one worker (--dist loadscope).
# The suite runs without make's variables, as it would from a shell: a test that
# runs `make` must not find itself inside this make (make[1]: Entering directory).
# It writes bytecode caches even where PYTHONDONTWRITEBYTECODE is set: without
# them every worker and every subprocess the tests start compiles the library
# again, and pytest rewrites the asserts of some 500 modules again (the tests',
# and every module of a package that registers a pytest plugin: ours,
# hypothesis, anyio, langsmith); measured, the suite's second run takes 214 s
# with the caches and 260 s without (__pycache__/ is in .gitignore).
TEST_WORKERS ?= 2
test:
	@$(MAKE) --no-print-directory -j2 --output-sync=target $(VENV)/.installed-test $(PEERS)/.installed $(BFCL)/.installed
	$(BIN)/python -m ruff check agentmetrics plugins tests benchmarks docs
	env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS -u PYTHONDONTWRITEBYTECODE AGENTMETRICS_REQUIRE_PEERS=1 $(BIN)/python -m pytest -n $(TEST_WORKERS)

# The framework matrix, CI's stage after `make test` (about a minute warm on 2 cores).
frameworks:
	@$(MAKE) --no-print-directory -j2 --output-sync=target $(FW_AGENTS)/.installed $(FW_GATEWAYS)/.installed
	env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS $(FW_AGENTS)/bin/python -m pytest -p no:cacheprovider -c tests/frameworks/pytest.ini -n 2 tests/frameworks/agents
	env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS $(FW_GATEWAYS)/bin/python -m pytest -p no:cacheprovider -c tests/frameworks/pytest.ini -n 2 tests/frameworks/gateways

# The documentation site; warnings are errors. Opens at docs/_build/html/index.html.
docs: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs docs/_build/html

# Bytecode is written here too (an empty PYTHONDONTWRITEBYTECODE is unset for
# Python): the peers' installed packages come compiled, and a command-line run
# timed with start-up should not compile our editable package on every call.
bench: export PYTHONDONTWRITEBYTECODE :=
bench: $(VENV)/.installed $(PEERS)/.installed-bench $(BFCL)/.installed
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/bench_startup.py
	$(BIN)/python benchmarks/bench_batch.py
	$(BIN)/python benchmarks/bench_concurrency.py
	$(BIN)/python benchmarks/bench_hardening.py
	$(BIN)/python benchmarks/bench_statistics.py
	$(BIN)/python benchmarks/bench_dask.py
	$(BIN)/python benchmarks/bench_engines.py
	$(BIN)/python benchmarks/bench_tooluse.py
	$(BIN)/python benchmarks/bench_capture.py
	$(BIN)/python benchmarks/bench_expectations.py
	$(BIN)/python benchmarks/bench_bfcl.py
	$(BIN)/python benchmarks/bench_report.py
	$(BIN)/python benchmarks/bench_runs.py
	$(PEERS)/bin/python benchmarks/bench_peers.py

clean:
	rm -rf $(VENV) $(PEERS) $(BFCL) $(FW_AGENTS) $(FW_GATEWAYS) .pytest_cache .hypothesis docs/_build docs/jupyter_execute
