"""``python -m companion``: see :mod:`companion.cli`."""

from .cli import run

run()
