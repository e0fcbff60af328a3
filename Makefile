# Quick start: `make book` builds the book strictly, `make test` runs the whole test suite.
# Both create .venv from requirements-course.txt (requirements.txt and the grader) on first
# use (Python 3.11+ is all they need).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: venv test test-quick book pdf editions plain student assignments answer-key course repository-url clean

# The pinned environment with the course's tools (requirements-course.txt: requirements.txt
# and otter-grader, which make assignments, make course and their tests use), then the
# package itself, editable. Binder installs binder/requirements.txt (the readers' pins, no
# test tools) and then the package non-editable through binder/postBuild
# (tests/test_anywhere.py plays that), so readers get neither the grader nor the test tools.
$(BIN)/activate: requirements.txt requirements-course.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-course.txt -e .
	touch $(BIN)/activate

venv: $(BIN)/activate

# Everything, the slow tests included (fresh Binder and Colab environments, one BLAS thread,
# the built book's launch links): what CI runs.
test: venv
	$(BIN)/python -m pytest

# The quick loop while editing: the package's tests without the slow ones (fresh
# environments, paper-size recomputations) and without the book's (which rebuild the whole
# book after any change to companion/), on every core (pytest-xdist; worksteal: a worker
# that runs out takes tests from the other's queue, so no core idles at the end): meant to
# take under 90 s on 2 cores (its time is printed at the end).
test-quick: venv
	$(BIN)/python -m pytest -m "not slow and not book" -n auto --dist worksteal

# --all: every page is re-read and every chapter re-executed, so a change in companion/ is never
# shown with stale numbers and every warning is raised again. The first import builds
# matplotlib's font cache, whose notice on stderr would otherwise fail a chapter on a fresh
# machine; MPLBACKEND is unset because a forced backend (Agg) silently drops every figure.
book: venv
	$(BIN)/python -c "import matplotlib.pyplot, seaborn"
	env -u MPLBACKEND $(BIN)/jupyter-book build --all -W -n --keep-going .

# The book as one PDF (publish/book_pdf.py): every page of the built book (make book first), in
# the order of _toc.yml, printed by the system's chromium (apt-get install chromium) through
# Playwright with the print stylesheet (_css/print.css), joined into _build/pdf/book.pdf and
# copied to _build/html/book.pdf, which the footer of every page links and the published
# site serves. tests/test_book_pdf.py reads it back.
pdf: venv
	$(BIN)/python -m publish pdf

# Every edition from the sources, by one command (publish/editions.py): the plain edition
# (book/plain/, committed: Colab opens it from GitHub; tests/test_plain_edition.py checks it is
# current), the JupyterLab reading (_build/editions/jupyterlab/: what Binder shows, where
# binder/postBuild writes it in place with `python -m publish jupyterlab --in-place book`) and
# the student notebooks (_build/student/notebooks/). Markdown only: nothing is executed.
editions: venv
	$(BIN)/python -m publish editions

# The plain edition alone (book/plain/): every chapter for Colab, GitHub and Jupyter without
# MyST, boxes as quotes and the prose's numbers as stored, and the derivations page and
# glossary as plain Markdown. `python -m publish execute book/<chapter>.ipynb` writes it
# after running a chapter; run this (or `make editions`) after editing a page that is not a
# notebook (the derivations, the glossary).
plain: venv
	$(BIN)/python -m publish plain

# The student edition (book/instructors.md): every chapter without its solutions, as notebooks
# (_build/student/notebooks/) and as a strictly built book (_build/student/html/), from the
# stored outputs, without executing the chapters again.
student: venv
	$(BIN)/python -m publish student

# Autograded assignments for otter-grader (book/instructors.md, "Graded assignments"): one per
# chapter in _build/assignments/<chapter>/dist/ (student/ to hand out, autograder/ with the
# zip that `otter run` and Gradescope grade with), and the hand-graded questions' rubrics
# in _build/assignments/rubrics.md. The package's wheel (publish/wheel.py) goes into each zip
# and student folder, and the zip's requirements install it from there (no git tag or
# branch). The chapters are read, not executed.
assignments: venv
	$(BIN)/python -m publish assignments

# A course folder (publish/course_folder.py): the student notebooks, the package's wheel
# (wheels/), a requirements.txt that installs that wheel by path with the book's pins,
# runtime.txt and a README, in _build/course/, ready to be a course's repository (Binder,
# Colab, local Jupyter). COURSE_FLAGS=--assignments adds the graded notebooks.
course: venv
	$(BIN)/python -m publish course $(COURSE_FLAGS)

# The exercises' hashed answer key (companion/exercises/key.json), regenerated from
# publish/answer_key.py after an exercise's answer, tolerance or likely mistakes change;
# tests/test_checkers.py checks that it is current.
answer-key: venv
	$(BIN)/python -m publish answer-key --write

# The repository's address lives in _config.yml (repository.url, repository.branch); this
# writes it into every place that must hold it literally (the Colab cell of each chapter,
# README, the intro, pyproject), then regenerates the plain edition from the chapters.
# tests/test_repository_url.py checks that they agree.
repository-url: venv
	$(PYTHON) -m publish repository-url --write
	$(BIN)/python -m publish plain

clean:
	rm -rf _build
