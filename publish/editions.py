"""Every edition from the sources, by one command: ``python -m publish editions``
(``make editions``).

* the plain edition, ``book/plain/`` (committed: Colab opens it from GitHub;
  publish/plain_edition.py, tests/test_plain_edition.py regenerates it and compares);
* the JupyterLab reading, ``_build/editions/jupyterlab/`` (what Binder shows, where
  ``binder/postBuild`` writes it in place: publish/jupyterlab.py);
* the student notebooks, ``_build/student/notebooks/`` (the plain edition without solutions:
  publish/student_edition.py; ``make student`` also builds their book).

The chapters' stored outputs and prose values come from ``python -m publish execute``, which
writes the plain edition itself after running a chapter; a change of a page that is not a
notebook (the derivations, the glossary) needs this command, or ``make plain``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from publish import jupyterlab, plain_edition, student_edition
from publish.sources import ROOT

JUPYTERLAB = ROOT / "_build" / "editions" / "jupyterlab"
STUDENT = ROOT / "_build" / "student"


def write() -> list[Path]:
    written = plain_edition.write()
    written += jupyterlab.write(JUPYTERLAB)
    student_edition.write_sources(STUDENT)
    written += sorted((STUDENT / "notebooks").glob("*.ipynb"))
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m publish editions",
                                     description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    for path in write():
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
