# Quick start: `make book` builds the book strictly, `make test` runs the whole test suite.
# Both create .venv from requirements.txt on first use (Python 3.11+ is all they need).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: venv test book clean

$(BIN)/activate: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	touch $(BIN)/activate

venv: $(BIN)/activate

test: venv
	$(BIN)/python -m pytest

book: venv
	$(BIN)/jupyter-book build -W -n --keep-going .

clean:
	rm -rf _build
