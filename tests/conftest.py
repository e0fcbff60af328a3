"""Shared pytest configuration."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "book: tests of the Jupyter Book (stored outputs, nbval, strict build); "
        "select with -m book, skip with -m 'not book'")
