"""The package's layers: every module imports only from its own layer or the layers below it,
and no two modules import each other, directly or through others.

The layers are read from one place, the README's table under "The package" (first column:
the layer, second column: its modules, each in backticks outside parentheses), so the
README and this test cannot disagree. Every form of import counts: ``import companion.x``,
``from companion import x`` (x a module), ``from companion.x import name``, the relative
forms ``from . import x`` and ``from ..x import name``, and ``importlib.import_module`` with
a literal name.
"""

from __future__ import annotations

import ast
import functools
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "companion"


def _strip_parentheses(text: str) -> str:
    """``text`` without anything inside (possibly nested) parentheses."""
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif not depth:
            out.append(ch)
    return "".join(out)


def readme_layers(readme: Path = ROOT / "README.md") -> list[tuple[str, set[str]]]:
    """The layers from the bottom up, as the README's table of layers lists them."""
    lines = readme.read_text().splitlines()
    start = next(i for i, line in enumerate(lines)
                 if line.startswith("| layer | modules |"))
    layers = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        modules = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)/?`", _strip_parentheses(cells[1])))
        layers.append((cells[0], modules))
    assert layers, "README.md: no table of layers under 'The package'"
    return layers


LAYERS = readme_layers()


def _name(path: Path, package: Path = PACKAGE) -> str:
    """Dotted module name inside the package: 'network', 'experiments.two_steps', ..."""
    parts = path.relative_to(package).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


def _layer(module: str, layers=LAYERS) -> int:
    top = module.split(".")[0]
    for i, (_, members) in enumerate(layers):
        if top in members:
            return i
    raise AssertionError(f"companion.{module} is in no layer of the README's table")


@functools.cache
def _modules(package_dir: Path) -> frozenset[str]:
    return frozenset(_name(p, package_dir) for p in package_dir.rglob("*.py"))


def _imports(path: Path, package_dir: Path = PACKAGE) -> set[str]:
    """Modules of the package that ``path`` imports at any level of its code (names inside
    the package: 'network', 'figures.two_steps'; '__init__' never counts, since the package's
    own __init__ runs before any of its modules whatever they import)."""
    here = _name(path, package_dir)
    modules = _modules(package_dir)
    if here == "__init__":
        package: list[str] = []
    elif path.name == "__init__.py":
        package = here.split(".")
    else:
        package = here.split(".")[:-1]

    def resolve(dotted: str) -> str:
        """The module a dotted name inside the package refers to: itself when it is a module,
        else the module that defines it ('theory.n_spikes' -> 'theory')."""
        while dotted and dotted not in modules:
            dotted = dotted.rsplit(".", 1)[0] if "." in dotted else ""
        return dotted or "__init__"

    def inside(absolute: str) -> str | None:
        parts = absolute.split(".")
        return ".".join(parts[1:]) if parts[0] == "companion" else None

    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            else:
                target = inside(node.module or "")
                if target is None:
                    continue
            for alias in node.names:       # "from X import Y": Y may be a module of X
                sub = f"{target}.{alias.name}".strip(".")
                found.add(resolve(sub) if sub in modules else resolve(target))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                target = inside(alias.name)
                if target is not None:
                    found.add(resolve(target))
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and (getattr(node.func, "attr", None) == "import_module"
                   or getattr(node.func, "id", None) in ("import_module", "__import__"))):
            name = node.args[0].value
            if name.startswith("."):
                level = len(name) - len(name.lstrip("."))
                base = package[:len(package) - (level - 1)]
                target = ".".join([*base, *filter(None, name.lstrip(".").split("."))])
            else:
                target = inside(name)
            if target is not None:
                found.add(resolve(target))
    return found - {here, "__init__"}


def upward_imports(package_dir: Path = PACKAGE, layers=LAYERS, paths=None) -> list[str]:
    """Every import of a module from a layer above its own (in ``paths``, default every
    module of the package), as readable lines."""
    bad = []
    for path in sorted(package_dir.rglob("*.py")) if paths is None else paths:
        mine = _layer(_name(path, package_dir), layers)
        for m in sorted(_imports(path, package_dir)):
            if _layer(m, layers) > mine:
                bad.append(f"companion.{_name(path, package_dir)} ({layers[mine][0]}) imports "
                           f"companion.{m} ({layers[_layer(m, layers)][0]})")
    return bad


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: _name(p))
def test_no_upward_import(path):
    """A module of one layer imports nothing from a layer above it."""
    mine = _layer(_name(path))
    upward = sorted(m for m in _imports(path) if _layer(m) > mine)
    assert not upward, (f"companion.{_name(path)} ({LAYERS[mine][0]}) imports from a layer "
                        f"above it: {upward}")


def test_no_import_cycle():
    """The import graph of the package's modules (the package's own __init__ aside, which
    re-exports from everything) has no cycle."""
    graph = {_name(p): _imports(p) for p in MODULES if _name(p) != "__init__"}
    state: dict[str, int] = {}

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])


def test_every_module_is_in_a_layer():
    """A new module must be placed in the README's table of layers."""
    for path in MODULES:
        _layer(_name(path))


def test_readme_layers_name_only_existing_modules():
    """The README's table lists the package's modules and nothing else, each once."""
    tops = {_name(p).split(".")[0] for p in MODULES}
    listed = [m for _, members in LAYERS for m in members]
    assert len(listed) == len(set(listed)), f"a module in two layers: {listed}"
    assert set(listed) == tops, (f"README only: {sorted(set(listed) - tops)}; "
                                 f"package only: {sorted(tops - set(listed))}")
    assert [name for name, _ in LAYERS][:2] == ["core numerics", "the companion's theory"]


# Planted imports: every form, in a temporary copy of the package, must be caught.
PLANTED = [
    "from companion import figures, cli",
    "from companion import cli",
    "import companion.figures.two_steps",
    "import companion.cli as entry",
    "from companion.figures import two_steps",
    "from companion.cli import main",
    "from . import cli",
    "from .figures import two_steps",
    "from .reproduce.catalog import CATALOG",
    "import importlib; importlib.import_module('companion.cli')",
    "from importlib import import_module; import_module('.cli', 'companion')",
]


@pytest.fixture(scope="module")
def _copy(tmp_path_factory):
    copy = tmp_path_factory.mktemp("planted") / "companion"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("data", "__pycache__"))
    return copy


@pytest.fixture
def package_copy(_copy):
    """A temporary copy of the package; whatever a test plants in it is undone after it."""
    sources = {p: p.read_text() for p in _copy.rglob("*.py")}
    yield _copy
    for path, text in sources.items():
        path.write_text(text)


def test_clean_copy_passes(package_copy):
    assert upward_imports(package_copy) == []


@pytest.mark.parametrize("line", PLANTED)
def test_planted_upward_import_fails(package_copy, line):
    """An upward import planted in network.py (core numerics), in any form, is reported."""
    network = package_copy / "network.py"
    network.write_text(network.read_text() + f"\n\ndef _planted():\n    {line}\n")
    bad = upward_imports(package_copy, paths=[network])
    assert bad and all(b.startswith("companion.network (core numerics) imports") for b in bad)


def test_planted_import_in_a_subpackage_fails(package_copy):
    """``from .. import cli`` in experiments/two_steps.py (experiments) is reported."""
    module = package_copy / "experiments" / "two_steps.py"
    module.write_text(module.read_text() + "\nfrom .. import cli\n")
    assert upward_imports(package_copy, paths=[module]) == [
        "companion.experiments.two_steps (experiments) imports companion.cli (entry points)"]


#: the largest module the package allows (book/CONVENTIONS.md, "Files and layers")
MAX_LINES = 450


def test_no_module_over_450_lines():
    """A module that outgrows one screenful of structure is split (one piece of code per job)."""
    long = {_name(p): n for p in MODULES if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"
