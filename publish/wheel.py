"""The package as a wheel, for what a course hands out.

The repository publishes only its ``main`` branch and has no release tags, so a course
folder (publish/course_folder.py) and an autograder (publish/assignments.py) carry the package
they install: the wheel built here, ``two_vs_one_step-<companion.__version__>-py3-none-any.whl``.
It is built with ``python -m build --wheel`` from a temporary copy of the files git knows
(tracked, or new and not ignored), so that nothing else in the checkout (``build/``, an
``egg-info``, a stray module) ends up in it.

Usage: ``python -m publish wheel [--out DIR]`` (default ``_build/wheels``).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "_build" / "wheels"
#: what the copy leaves out when git cannot list the files
IGNORED = (".git", ".venv", "_build", "__pycache__", "*.egg-info", ".pytest_cache",
           ".ipynb_checkpoints", "build", "dist")


def version() -> str:
    text = (ROOT / "companion" / "__init__.py").read_text()
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def name() -> str:
    """The wheel's file name (a pure-Python wheel: one for every platform)."""
    return f"two_vs_one_step-{version()}-py3-none-any.whl"


def _copy(dest: Path) -> Path:
    proc = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                          cwd=ROOT, capture_output=True) if shutil.which("git") else None
    if proc is None or proc.returncode != 0:
        shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(*IGNORED))
        return dest
    for file in (f for f in proc.stdout.decode().split("\0") if f):
        if (ROOT / file).is_file():
            (dest / file).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / file, dest / file)
    return dest


def build(out: Path = OUT) -> Path:
    """Build the wheel into ``out`` (replacing one of the same name); returns its path."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = _copy(Path(tmp) / "src")
        built = Path(tmp) / "dist"
        proc = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(built),
                               str(src)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"python -m build --wheel failed:\n{proc.stdout[-3000:]}\n"
                               f"{proc.stderr[-3000:]}")
        wheel = built / name()
        if not wheel.exists():
            raise RuntimeError(f"the build wrote {sorted(p.name for p in built.iterdir())}, "
                               f"not {name()}")
        shutil.copy2(wheel, out / wheel.name)
    return out / name()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="output folder")
    args = parser.parse_args(argv)
    print(f"wheel: {build(args.out.resolve())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
