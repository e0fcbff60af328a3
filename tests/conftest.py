"""Shared pytest configuration."""

import pytest


@pytest.fixture(scope="session")
def built_book():
    """``_build/html`` from a strict build of the book, built once per session when missing
    or older than an input (``test_book.build_if_stale``)."""
    from test_book import build_if_stale
    return build_if_stale()


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
