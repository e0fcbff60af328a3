"""The package's layers (README, "The package"): every module imports only from its own layer
or the layers below it, and no two modules import each other, directly or through others."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "companion"

#: the layers from the bottom up, as the README's table lists them
LAYERS = [
    ("core numerics", {"validation", "blas", "gaussian", "activations", "targets", "network",
                       "lanczos", "spectra", "alignment"}),
    ("the companion's theory", {"spikes", "expansion", "theory"}),
    ("results", {"runs", "store"}),
    ("experiments", {"experiments"}),
    ("figures", {"figures", "plotting", "book", "exercises", "explorer", "summaries"}),
    ("reproduce", {"reproduce", "cache", "sweep"}),
    ("entry points", {"claims", "simulate", "cli", "__main__", "__init__"}),
]


def _name(path: Path) -> str:
    """Dotted module name inside the package: 'network', 'experiments.two_steps', ..."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


def _layer(module: str) -> int:
    top = module.split(".")[0]
    for i, (_, members) in enumerate(LAYERS):
        if top in members:
            return i
    raise AssertionError(f"companion.{module} is in no layer of tests/test_architecture.py")


def _imports(path: Path) -> set[str]:
    """Modules of the package that ``path`` imports at any level of its code."""
    here = _name(path)
    package = here.split(".")[:-1] if path.name != "__init__.py" else here.split(".")
    if here == "__init__":
        package = []
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                target = ".".join([*base, *(node.module.split(".") if node.module else [])])
                if node.module is None:             # from . import x
                    found.update(f"{target}.{a.name}".strip(".") for a in node.names)
                else:
                    found.add(target)
            elif node.module and node.module.split(".")[0] == "companion":
                found.add(".".join(node.module.split(".")[1:]) or "__init__")
        elif isinstance(node, ast.Import):
            found.update(".".join(a.name.split(".")[1:]) for a in node.names
                         if a.name.split(".")[0] == "companion" and "." in a.name)
    modules = {_name(p) for p in PACKAGE.rglob("*.py")}
    # "from .figures import two_steps" names a module; "from .theory import n_spikes" a name
    # "from . import __version__": a name of the package itself, whose __init__ runs first
    # whatever a module imports, so it counts as no import
    named = {m if m in modules else m.rsplit(".", 1)[0] if "." in m else "__init__"
             for m in found if m}
    return named - {here, "__init__"}


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
    """A new module must be placed in the README's table of layers (and here)."""
    for path in MODULES:
        _layer(_name(path))
