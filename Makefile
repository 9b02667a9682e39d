# pbem: the two set-up commands are `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test typecheck bench install clean

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

test: typecheck
	cd tests && ../$(BIN)/python -m pytest -q -p no:cacheprovider $(PYTEST_ARGS) .

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) demo-game build dist .bench
