"""Shared pytest configuration and the fixtures several test modules use (their plain
helpers are in tests/_helpers.py; no test module imports another)."""

import os

import pytest
from threadpoolctl import threadpool_limits

from companion.core.blas import threads_per_worker

from _helpers import browser_or_skip, build_if_stale


@pytest.fixture(scope="session")
def built_book():
    """``_build/html`` from a strict build of the book, built once per session when missing
    or older than an input (``_helpers.build_if_stale``)."""
    return build_if_stale()


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (the system's, driven by Playwright), one per test module; skipped
    without chromium or playwright unless ``COMPANION_REQUIRE_BROWSER=1``."""
    chromium, sync_playwright = browser_or_skip()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield b
        b.close()


def _blas_threads_per_worker() -> None:
    """Under pytest-xdist (``make test-quick``: one worker per core), each worker's BLAS gets
    its share of the cores, not all of them: workers that each start a thread per core
    oversubscribe the machine and wait on one another's threads (ARPACK's many small products
    most; ``make test-quick`` prints its time). In-process only (threadpoolctl); subprocesses
    keep the user's settings. The share is the one ``reproduce --jobs`` gives its workers
    (:func:`companion.core.blas.threads_per_worker`); tests/test_workers.py checks it."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if workers > 1:
        threadpool_limits(limits=threads_per_worker(workers))


def pytest_configure(config):
    _blas_threads_per_worker()
    config.addinivalue_line(
        "markers",
        "book: tests of the Jupyter Book (stored outputs, nbval, strict build); "
        "select with -m book, skip with -m 'not book'")
    config.addinivalue_line(
        "markers",
        "slow: builds fresh environments and executes every chapter there (Binder, Colab, one "
        "BLAS thread, pip install); part of `make test` and CI, skip with -m 'not slow'")


def pytest_terminal_summary(terminalreporter):
    """The times the play tests measured (fresh environments, each chapter's execution)."""
    try:
        from _play import TIMINGS
    except ImportError:
        return
    if TIMINGS:
        terminalreporter.section("measured times (seconds)")
        for label, seconds in TIMINGS.items():
            terminalreporter.write_line(f"{seconds:8.1f}  {label}")
