"""Shared pytest configuration and the fixtures several test modules use (their plain
helpers are in tests/_helpers.py; no test module imports another)."""

import pytest

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


def pytest_configure(config):
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
