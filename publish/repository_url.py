"""The repository's address: one source, and every literal copy of it.

The source is ``_config.yml``: ``repository.url`` (``https://github.com/OWNER/NAME``) and
``repository.branch``. Jupyter Book builds the Binder and Colab launch buttons from them.
A few places must hold the address literally, because they are read where the
configuration is not (a notebook opened in Colab, the README on the repository's page):

* the Colab cell of every chapter: ``%pip install ... @ git+https://github.com/OWNER/NAME"``;
* clone instructions: ``git clone https://github.com/OWNER/NAME.git`` and ``cd NAME``;
* Binder and Colab links written out by hand (``mybinder.org/v2/gh/OWNER/NAME/BRANCH``,
  ``colab.research.google.com/github/OWNER/NAME/blob/BRANCH/``);
* a Markdown link that shows the address, ``[OWNER/NAME](https://github.com/OWNER/NAME)``;
* ``[project.urls]`` in ``pyproject.toml``;
* ``url`` and ``repository-code`` in ``CITATION.cff``.

Usage (from the repository's root; standard library only, so ``python3`` outside the venv
will do)::

    python3 -m publish repository-url            # list every copy; exit 1 if one differs
    python3 -m publish repository-url --write    # rewrite every copy from _config.yml

``make repository-url`` runs ``--write``; ``tests/test_repository_url.py`` checks that every
copy equals the source.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: files that may hold a copy (globs relative to the repository's root)
FILES = ("README.md", "pyproject.toml", "CITATION.cff", "book/**/*.ipynb", "book/**/*.md",
         "companion/**/*.md")

_S = r"[\w.-]+"          # one component: an owner, a name or a branch
#: the forms a copy takes; the named groups are what must equal the source
#: (``slug`` OWNER/NAME, ``name`` NAME, ``branch`` BRANCH; a trailing digit tells apart
#: two groups of the same kind in one pattern)
PATTERNS = {
    "pip install from git":
        rf"git\+https://github\.com/(?P<slug>{_S}?/{_S}?)(?:\.git)?(?=[\s\"'@#]|$)",
    "git clone":
        rf"git clone https://github\.com/(?P<slug>{_S}?/{_S}?)(?:\.git)?(?=[\s\"'`]|$)",
    "cd into the clone":
        rf"git clone https://github\.com/{_S}?/{_S}?(?:\.git)?[ \t]*\n\s*cd (?P<name>{_S})",
    "Binder link":
        rf"mybinder\.org/v2/gh/(?P<slug>{_S}/{_S})/(?P<branch>{_S})",
    "Colab link":
        rf"colab\.research\.google\.com/github/(?P<slug>{_S}/{_S})/blob/(?P<branch>{_S})/",
    "Markdown link to the repository":
        rf"\[(?P<slug1>{_S}/{_S})\]\(https://github\.com/(?P<slug2>{_S}/{_S}?)/?\)",
    "project URL":
        rf"(?m)^(?:Repository|Homepage|Source)\s*=\s*\"https://github\.com/(?P<slug>{_S}/{_S}?)(?:\.git)?/?\"",
    "citation URL":
        rf"(?m)^(?:url|repository-code):\s*\"https://github\.com/(?P<slug>{_S}/{_S}?)(?:\.git)?/?\"",
}


@dataclass(frozen=True)
class Source:
    url: str
    branch: str

    @property
    def slug(self) -> str:
        return self.url.removeprefix("https://github.com/")

    @property
    def name(self) -> str:
        return self.slug.split("/")[1]

    def expected(self, group: str) -> str:
        return {"slug": self.slug, "name": self.name, "branch": self.branch}[group.rstrip("0123456789")]


@dataclass(frozen=True)
class Copy:
    path: str          # relative to the root
    where: str         # "line 12" or "cell 3, line 4"
    form: str          # a key of PATTERNS
    group: str
    found: str
    expected: str

    @property
    def ok(self) -> bool:
        return self.found == self.expected


def source(root: Path = ROOT) -> Source:
    """``repository.url`` and ``repository.branch`` of ``_config.yml`` (read without a YAML
    library: the ``repository:`` block holds plain ``key: value`` lines)."""
    text = (root / "_config.yml").read_text(encoding="utf-8")
    block = re.search(r"(?m)^repository:\s*\n((?:[ \t]+.*\n?|\s*\n)*)", text)
    if not block:
        raise SystemExit("_config.yml has no repository: block")
    values = dict(re.findall(r"(?m)^[ \t]+(\w+):[ \t]*(\S*)[ \t]*(?:#.*)?$", block.group(1)))
    url, branch = values.get("url", "").strip("\"'").rstrip("/"), values.get("branch", "main")
    if not re.fullmatch(rf"https://github\.com/{_S}/{_S}", url) or url.endswith(".git"):
        raise SystemExit(f"_config.yml: repository.url must be https://github.com/OWNER/NAME "
                         f"(the launch buttons need a GitHub repository), not {url!r}")
    return Source(url, branch.strip("\"'"))


def _files(root: Path) -> list[Path]:
    seen = {}
    for pattern in FILES:
        for path in sorted(root.glob(pattern)):
            # book/plain/ is generated from the chapters (publish/plain_edition.py): `make
            # repository-url` regenerates it after rewriting them
            if path.is_file() and ".ipynb_checkpoints" not in path.parts \
                    and "plain" not in path.relative_to(root).parts[:2]:
                seen[path] = None
    return list(seen)


def _scan(text: str, src: Source, path: str, where: str) -> tuple[list[Copy], str]:
    """The copies in ``text`` and the text with each rewritten from ``src``."""
    copies = []
    for form, pattern in PATTERNS.items():
        pieces, last = [], 0
        for match in re.finditer(pattern, text):
            line = text.count("\n", 0, match.start()) + 1
            for group, found in match.groupdict().items():
                copies.append(Copy(path, f"{where}line {line}", form, group, found,
                                   src.expected(group)))
            spans = sorted((match.span(g), src.expected(g)) for g in match.groupdict())
            for (start, end), value in spans:
                pieces += [text[last:start], value]
                last = end
        text = "".join(pieces) + text[last:]
    return copies, text


def scan(root: Path = ROOT, write: bool = False) -> list[Copy]:
    """Every copy of the address under ``root``; with ``write``, rewrite those that differ."""
    root = Path(root)
    src = source(root)
    copies = []
    for path in _files(root):
        rel = str(path.relative_to(root))
        raw = path.read_text(encoding="utf-8")
        if path.suffix == ".ipynb":
            nb = json.loads(raw)
            changed = False
            for i, cell in enumerate(nb.get("cells", [])):
                text = "".join(cell.get("source", []))
                found, new = _scan(text, src, rel, f"cell {i + 1}, ")
                copies += found
                if new != text:
                    cell["source"] = new.splitlines(keepends=True)
                    changed = True
            if write and changed:
                path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n",
                                encoding="utf-8")
        else:
            found, new = _scan(raw, src, rel, "")
            copies += found
            if write and new != raw:
                path.write_text(new, encoding="utf-8")
    return copies


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true",
                        help="rewrite every copy from _config.yml")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    src = source(args.root)
    copies = scan(args.root, write=args.write)
    print(f"source: _config.yml repository.url = {src.url}, branch = {src.branch}")
    for c in copies:
        state = "ok" if c.ok else ("rewritten" if args.write else f"DIFFERS (expected {c.expected})")
        print(f"  {c.path}, {c.where}: {c.form}: {c.found} {state}")
    bad = [c for c in copies if not c.ok]
    if bad and not args.write:
        print(f"{len(bad)} copies differ from _config.yml: run `make repository-url`",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
