"""``python -m companion``: see :mod:`companion.cli`."""

from companion.cli import run

run()
