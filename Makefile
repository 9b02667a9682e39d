# pbem: the two set-up commands are `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# test workers (pytest-xdist): one per core; TEST_WORKERS=0 runs the tests in this one process
TEST_WORKERS ?= auto

.PHONY: demo test typecheck system-deps bench install clean
.NOTPARALLEL:

# the system tools the tests use for real (age, ssh-keygen, dovecot, fonts...): apt-get installs any missing
system-deps:
	@$(PYTHON) tools/ensure_system_deps.py

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# A regular (non-editable) install: commands are tested as users get them.
$(STAMP): $(BIN)/python pyproject.toml $(shell find pbem games templates -type f -not -name '*.pyc')
	$(BIN)/python -m pip install --quiet --force-reinstall --no-deps . && \
	$(BIN)/python -m pip install --quiet ".[test]"
	touch $(STAMP)

install: $(STAMP)

# the console script does not put the checkout on sys.path: this runs the installed package
demo: $(STAMP)
	$(BIN)/pbem demo --dir demo-game

# mypy over pbem/ (configured in pyproject.toml); part of `make test`
typecheck: $(STAMP)
	$(BIN)/python -m mypy

# slow tests start first, longest first (tests/conftest.py); --maxschedchunk 2 hands out tests a few at a time
test: system-deps $(STAMP) typecheck
	cd tests && ../$(BIN)/python -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist load --maxschedchunk 2 \
		$(PYTEST_ARGS) .

# speed figures beside the goals of issue 12 (docs/performance.md); SOAK=1: 10,000 bot games, memory at start and end
BENCH_ARGS ?=
bench: $(STAMP)
	$(BIN)/python benchmarks/run.py $(if $(SOAK),--soak,) $(BENCH_ARGS)

clean:
	rm -rf $(VENV) demo-game build dist .bench
