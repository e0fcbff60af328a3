"""The book's page of the package's API (book/api.md), without a build.

* every public name of ``companion`` (its ``__all__`` where it has one, else every name
  companion/__init__.py binds that is neither private nor a module) is documented there by
  an autodoc directive, under its public name ``companion.<name>``, exactly once, so the
  page cannot fall behind the package;
* the page documents nothing else (no private path such as ``companion.core.theory.x``);
* the page is in the book and the build loads autodoc.

That every ``:func:`` of those docstrings resolves is the strict build's job (``-n``:
tests/test_book.py through the fixture ``built_book``).
"""

from __future__ import annotations

import re
import types
from collections import Counter

import yaml

import companion

from _helpers import ROOT, toc_files

PAGE = ROOT / "book" / "api.md"
#: an autodoc directive inside the page's ```{eval-rst} blocks: (kind, documented name)
DIRECTIVE = re.compile(r"^\s*\.\. auto(function|class|data|exception|attribute)::\s+(\S+)", re.M)
EVAL_RST = re.compile(r"^```\{eval-rst\}\n(.*?)^```", re.M | re.S)


def public_names() -> list[str]:
    """The names ``import companion`` offers its readers."""
    if hasattr(companion, "__all__"):
        return list(companion.__all__)
    return [name for name, value in vars(companion).items()
            if not name.startswith("_") and not isinstance(value, types.ModuleType)]


def documented() -> list[str]:
    """Every name an autodoc directive of the page documents, in the page's order."""
    blocks = EVAL_RST.findall(PAGE.read_text())
    return [name for block in blocks for _, name in DIRECTIVE.findall(block)]


def test_the_package_has_public_names():
    names = public_names()
    assert len(names) >= 40 and "run_two_steps" in names and "Target" in names, names


def test_the_directive_pattern_reads_the_page():
    block = "```{eval-rst}\n.. autofunction:: companion.a\n.. autoclass:: companion.B\n   :members: m\n```\n"
    assert [n for b in EVAL_RST.findall(block) for _, n in DIRECTIVE.findall(b)] == [
        "companion.a", "companion.B"]


def test_every_public_name_is_on_the_api_page_once():
    counts = Counter(documented())
    missing = [n for n in public_names() if counts[f"companion.{n}"] == 0]
    twice = sorted(n for n, c in counts.items() if c > 1)
    assert not missing, f"book/api.md documents no autodoc directive for: {missing}"
    assert not twice, f"book/api.md documents these more than once: {twice}"


def test_the_api_page_documents_only_public_names():
    public = {f"companion.{n}" for n in public_names()}
    other = [n for n in documented() if n not in public]
    assert not other, (f"book/api.md documents names that are not companion's public names "
                       f"(document the re-export, companion.<name>): {other}")


def test_the_api_page_is_in_the_book_and_autodoc_is_loaded():
    assert "book/api" in toc_files()
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert "sphinx.ext.autodoc" in config["sphinx"]["extra_extensions"]
