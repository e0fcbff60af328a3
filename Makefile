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

# --all: every page is re-read and every chapter re-executed, so a change in companion/ is never
# shown with stale numbers and every warning is raised again. The first import builds
# matplotlib's font cache, whose notice on stderr would otherwise fail a chapter on a fresh
# machine; MPLBACKEND is unset because a forced backend (Agg) silently drops every figure.
book: venv
	$(BIN)/python -c "import matplotlib.pyplot, seaborn"
	env -u MPLBACKEND $(BIN)/jupyter-book build --all -W -n --keep-going .

clean:
	rm -rf _build
