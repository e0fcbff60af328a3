"""``python -m companion``: see :mod:`companion.cli`."""

import sys

from .cli import main

sys.exit(main())
