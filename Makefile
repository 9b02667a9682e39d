# pbem: the two set-up commands are `make demo` and `make test` (docs/development.md).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SOURCES := pyproject.toml $(shell find pbem games templates -type f -not -name '*.pyc')

# test workers (pytest-xdist): one per core; TEST_WORKERS=0 runs the tests in this one process
TEST_WORKERS ?= auto
PYTEST = python -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist load --maxschedchunk 2

# Everything .venv holds comes from the hashed lock in requirements/ (pip --require-hashes),
# for CPython 3.11 on Linux x86_64, what CI runs; pyproject.toml keeps ranges for users.
# Builds use the locked hatchling and setuptools (--no-build-isolation): nothing unhashed.
LOCKED := --quiet --require-hashes --no-build-isolation

.PHONY: demo test test-profile test-latest typecheck contracts system-deps bench soak-turnmodel install lock clean rules-coverage conformance-docs
.NOTPARALLEL:

# the system tools the tests use for real (age, ssh-keygen, dovecot, fonts...): apt-get installs any missing
system-deps:
	@$(PYTHON) tools/ensure_system_deps.py

# a new .venv gets pip itself and the build tools from the lock first
$(VENV)/.base: requirements/pip.txt requirements/build.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install $(LOCKED) -r requirements/pip.txt
	$(BIN)/python -m pip install $(LOCKED) -r requirements/build.txt
	touch $@

# what pbem needs to run (make demo)...
$(VENV)/.runtime: $(VENV)/.base requirements/runtime.txt
	$(BIN)/python -m pip install $(LOCKED) -r requirements/runtime.txt
	touch $@

# ...and to be tested (make test): the runtime part at the same versions, and the test tools
$(VENV)/.dev: $(VENV)/.runtime requirements/dev.txt
	$(BIN)/python -m pip install $(LOCKED) -r requirements/dev.txt
	touch $@

# pbem itself, a regular (non-editable) install: commands are tested as users get them.
# `pip check`: the lock still satisfies pyproject.toml (else: make lock)
$(VENV)/.pbem: $(VENV)/.runtime $(SOURCES)
	$(BIN)/python -m pip install --quiet --no-build-isolation --no-deps --force-reinstall .
	@$(BIN)/python -m pip check >/dev/null || { $(BIN)/python -m pip check; \
		echo "make: the lock (requirements/*.txt) does not satisfy pyproject.toml: run make lock"; exit 1; }
	touch $@

install: $(VENV)/.dev $(VENV)/.pbem

# the console script does not put the checkout on sys.path: this runs the installed package
demo: $(VENV)/.pbem
	$(BIN)/pbem demo --dir demo-game

# mypy over pbem/ (configured in pyproject.toml); part of `make test`
typecheck: install
	$(BIN)/python -m mypy

# the layer contract (pyproject.toml [tool.importlinter]; docs/architecture.md, "Layers") on the
# checkout's pbem/: every import counts, inside functions and under TYPE_CHECKING; part of `make test`
contracts: install
	$(BIN)/lint-imports --no-cache pyproject.toml

# slow tests start first, longest first (tests/conftest.py); --maxschedchunk 2 hands out tests a few at a time
# the test modules' compiled (assertion-rewritten) form stays in tests/__pycache__ (git ignores it)
# between runs, also where the environment says not to write bytecode: pytest rewrites and compiles
# them in every worker of every run otherwise (about 5 CPU-s a worker; docs/performance.md)
test test-profile test-latest: export PYTHONDONTWRITEBYTECODE =

test: system-deps install typecheck contracts
	cd tests && ../$(BIN)/$(PYTEST) $(PYTEST_ARGS) .

# `make test` with its costs (docs/performance.md, "The test suite"): the machine's load before and
# after, the wall and CPU time (every process: workers, pbem, git, age...) of mypy with the layer
# contract and of the suite, and the PROFILE_TOP tests that cost the most CPU
PROFILE_TOP ?= 40
# PROFILE_JSON=PATH also writes every test's CPU and wall seconds to PATH (absolute, or under tests/)
PROFILE_JSON ?=
TIME_FORMAT = %e s wall, %U s user + %S s system CPU
test-profile: system-deps install
	@uptime
	@/usr/bin/time -f "make test-profile: typecheck and contracts: $(TIME_FORMAT)" $(MAKE) --no-print-directory -s typecheck contracts
	cd tests && /usr/bin/time -f "make test-profile: the suite: $(TIME_FORMAT)" \
		../$(BIN)/$(PYTEST) --cpu-report $(PROFILE_TOP) $(if $(PROFILE_JSON),--cpu-json $(PROFILE_JSON),) $(PYTEST_ARGS) .
	@uptime

# every sentence of the rule texts cited by a conformance case or listed as not applicable
# (conformance/README.md); the texts are the publishers', not in the repository: RULES=DIR
rules-coverage: install
	$(BIN)/python tools/rules_coverage.py $(if $(RULES),--rules $(RULES),)

# docs/games/GAME-conformance.md (the rulings and the index of cases) from conformance/GAME.yaml
conformance-docs: install
	cd tests && ../$(BIN)/python -m conformance.render

# the turn models proven against the engine on many more states (docs/turn-model.md); SOAK=N
# multiplies the states looked at (default 10) and prints the share of turns modelled whole
SOAK_STATES ?= 10
soak-turnmodel: system-deps install
	cd tests && PBEM_TURNMODEL_SOAK=$(SOAK_STATES) ../$(BIN)/python -m pytest -q -s -p no:cacheprovider -n 0 turnmodel

# speed figures beside the goals of issue 12 (docs/performance.md); SOAK=1: 10,000 bot games, memory at start and end
BENCH_ARGS ?=
bench: install
	$(BIN)/python benchmarks/run.py $(if $(SOAK),--soak,) $(BENCH_ARGS)

# --- the lock ---------------------------------------------------------------------------------
# `make lock` resolves the newest releases within pyproject.toml's ranges again (UPGRADE= keeps
# the pins that still fit, e.g. after adding a dependency), with uv, for CPython 3.11 on Linux
# x86_64 whatever machine it runs on, and writes every file's hash from PyPI.
UV_VERSION := 0.13.9
LOCK_VENV  := .venv-lock
UPGRADE    ?= --upgrade
UV_COMPILE  = $(LOCK_VENV)/bin/uv pip compile --quiet $(UPGRADE) --generate-hashes --python-version 3.11 \
	--python-platform x86_64-manylinux_2_28 --custom-compile-command "make lock"

lock:
	test -x $(LOCK_VENV)/bin/uv && $(LOCK_VENV)/bin/uv --version | grep -q " $(UV_VERSION) " || \
		{ rm -rf $(LOCK_VENV) && $(PYTHON) -m venv $(LOCK_VENV) && \
		  $(LOCK_VENV)/bin/python -m pip install --quiet uv==$(UV_VERSION); }
	$(UV_COMPILE) pyproject.toml requirements/build.in --extra test -o requirements/dev.txt
	$(UV_COMPILE) pyproject.toml --constraint requirements/dev.txt -o requirements/runtime.txt
	$(UV_COMPILE) requirements/build.in --constraint requirements/dev.txt -o requirements/build.txt
	$(UV_COMPILE) requirements/pip.in -o requirements/pip.txt

# the suite against the newest releases, ignoring the lock, in a venv of its own: a breaking
# release shows here before users meet it (the versions that differ from the lock come first)
LATEST_VENV := .venv-latest
test-latest: system-deps
	rm -rf $(LATEST_VENV)
	$(PYTHON) -m venv $(LATEST_VENV)
	$(LATEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LATEST_VENV)/bin/python -m pip install --quiet --upgrade --upgrade-strategy eager ".[test]"
	$(LATEST_VENV)/bin/python tools/compare_lock.py requirements/dev.txt
	$(LATEST_VENV)/bin/python -m mypy
	cd tests && ../$(LATEST_VENV)/bin/$(PYTEST) $(PYTEST_ARGS) .

clean:
	rm -rf $(VENV) $(LATEST_VENV) $(LOCK_VENV) demo-game build dist .bench
