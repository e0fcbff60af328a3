"""Packaging: what `pip install two-vs-one-step` (or `pip install .`) gives a reader.

* pyproject.toml names every third-party module the package imports, as a dependency or in
  the extra that needs it, and the chapters need nothing beyond the ``notebooks`` extra;
* requirements.txt pins every one of them, satisfies pyproject's bounds, and leaves the
  package itself out (Binder installs it with ``pip install .``, make with ``-e .``);
* the Colab cell of every chapter installs this distribution with the ``notebooks`` extra;
* the licence metadata matches LICENSE: code MIT, text CC BY 4.0, as one SPDX expression
  with both licence texts; (slow) the wheel's metadata says so and carries both files;
* (slow) the sdist and the wheel built from it hold every module and the stored runs;
* (slow) ``pip install .`` into a fresh environment is enough for
  ``python -m companion simulate`` and ``python -m companion reproduce --only E6``.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import sys
import tarfile
import zipfile

import pytest
from packaging.requirements import Requirement

import _play
from _play import ROOT, code_cells, read_nb, run, source, timed

#: top-level module -> distribution that provides it (the third-party modules the package
#: or a chapter may import); a module missing here fails test_every_import_is_declared
PROVIDERS = {
    "numpy": "numpy", "scipy": "scipy", "matplotlib": "matplotlib", "seaborn": "seaborn",
    "threadpoolctl": "threadpoolctl", "tqdm": "tqdm", "joblib": "joblib",
    "dask": "dask", "distributed": "distributed", "myst_nb": "myst-nb",
    "IPython": "ipython",
    # brought by myst-nb (through ipykernel)
    "matplotlib_inline": "myst-nb", "ipykernel": "myst-nb",
}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> dict[str, set[str]]:
    """Distribution -> the extras it is declared in ('' for a runtime dependency), with the
    extras that include other extras of the same project expanded."""
    project = _play.pyproject()["project"]
    own = _norm(project["name"])
    extras = {"": project["dependencies"], **project.get("optional-dependencies", {})}

    def expand(extra, seen=()):
        for spec in extras[extra]:
            req = Requirement(spec)
            if _norm(req.name) == own:
                for sub in req.extras - set(seen):
                    yield from expand(sub, (*seen, sub))
            else:
                yield req

    declared: dict[str, set[str]] = {}
    for extra in extras:
        for req in expand(extra):
            declared.setdefault(_norm(req.name), set()).add(extra)
    return declared


def _imports(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _third_party(names: set[str]) -> set[str]:
    return {n for n in names if n not in sys.stdlib_module_names and n != "companion"}


def _package_imports() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "companion").rglob("*.py")):
        for name in _third_party(_imports(ast.parse(path.read_text()))):
            found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def _chapter_imports() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for stem in _play.chapters():
        for cell in code_cells(read_nb(ROOT / (stem + ".ipynb"))):
            # IPython magics (%pip, !cmd) are not Python: a `pass` in their place
            text = "\n".join(re.sub(r"^(\s*)[%!].*", r"\1pass", ln)
                             for ln in source(cell).splitlines())
            for name in _third_party(_imports(ast.parse(text))):
                found.setdefault(name, []).append(stem)
    return found


# --- declared dependencies -----------------------------------------------------------------------

def test_distribution_name_and_version():
    project = _play.pyproject()["project"]
    assert project["name"] == "two-vs-one-step", (
        "the distribution is two-vs-one-step ('companion' on the package index is another "
        "project); the import name stays companion")
    assert "version" in project.get("dynamic", []), "the version is read from companion.__version__"
    assert _play.pyproject()["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "companion.__version__"}


def test_every_import_is_declared():
    declared = _declared()
    unknown, missing = [], []
    for name, where in sorted(_package_imports().items()):
        if name not in PROVIDERS:
            unknown.append(f"{name} ({where[0]})")
        elif _norm(PROVIDERS[name]) not in declared:
            missing.append(f"{PROVIDERS[name]} for {name} ({', '.join(where)})")
    assert not unknown, (f"companion imports {unknown}: declare it in pyproject.toml (a "
                         f"dependency or an extra) and add it to PROVIDERS here")
    assert not missing, f"pyproject.toml declares none of {missing}"


def test_top_level_imports_need_only_the_runtime_dependencies():
    """Modules imported when a module is imported (not inside a function) must be runtime
    dependencies: `pip install two-vs-one-step` alone must import every module."""
    declared = _declared()
    lazy_ok = []
    for path in sorted((ROOT / "companion").rglob("*.py")):
        tree = ast.parse(path.read_text())
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        for name in _third_party(_imports(ast.Module(body=top, type_ignores=[]))):
            dist = _norm(PROVIDERS.get(name, name))
            if "" not in declared.get(dist, set()):
                lazy_ok.append(f"{path.relative_to(ROOT)} imports {name} at the top")
    assert not lazy_ok, (f"{lazy_ok}: not a runtime dependency; import it inside the function "
                         f"that needs it, or make it a dependency")


def test_chapters_need_only_the_notebooks_extra():
    declared = _declared()
    missing = [f"{name} ({', '.join(sorted(set(where)))})"
               for name, where in sorted(_chapter_imports().items())
               if not declared.get(_norm(PROVIDERS.get(name, name)), set()) & {"", "notebooks"}]
    assert not missing, (f"the chapters import {missing}, which neither the package's "
                         f"dependencies nor its notebooks extra install (Colab installs only "
                         f"those): add them to the notebooks extra in pyproject.toml")


def _pins() -> dict[str, Requirement]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            req = Requirement(line)
            pins[_norm(req.name)] = req
    return pins


def test_requirements_pin_every_dependency_and_leave_out_the_package():
    text = (ROOT / "requirements.txt").read_text()
    local = [ln for ln in text.splitlines()
             if re.match(r"\s*(-e|--editable|\.|file:|-r|-c)\b", ln.split("#")[0])]
    assert not local, (f"requirements.txt installs {local}: Binder installs requirements.txt and "
                       f"then runs `pip install .`; make installs the package with -e")
    pins = _pins()
    unpinned = [name for name, req in pins.items()
                if not (len(req.specifier) == 1 and next(iter(req.specifier)).operator == "==")]
    assert not unpinned, f"requirements.txt: {unpinned} are not pinned with =="
    project = _play.pyproject()["project"]
    own = _norm(project["name"])
    wanted = [Requirement(s) for s in project["dependencies"]]
    for extra, specs in project["optional-dependencies"].items():
        if extra != "bench":  # the benchmark's torch is installed by hand (README)
            wanted += [Requirement(s) for s in specs if _norm(Requirement(s).name) != own]
    problems = []
    for req in wanted:
        pin = pins.get(_norm(req.name))
        if pin is None:
            problems.append(f"{req.name} is not pinned")
        elif not req.specifier.contains(next(iter(pin.specifier)).version, prereleases=True):
            problems.append(f"{pin} does not satisfy pyproject's {req}")
    assert not problems, f"requirements.txt: {problems}"


def test_colab_cell_installs_this_distribution_with_the_notebooks_extra():
    assert "notebooks" in _play.pyproject()["project"]["optional-dependencies"]
    line = _play.colab_install_line()
    missing = [stem for stem in _play.chapters()
               if line not in source(code_cells(read_nb(ROOT / (stem + ".ipynb")))[0])]
    assert not missing, (f"the first code cell of {missing} does not carry the install line of "
                         f"book/CONVENTIONS.md:\n    {line}")


# --- licences ---------------------------------------------------------------------------------------

LICENCE = "MIT AND CC-BY-4.0"
LICENCE_FILES = ("LICENSE", "LICENSES/CC-BY-4.0.txt")


def test_licence_metadata_names_both_licences():
    project = _play.pyproject()["project"]
    assert project["license"] == LICENCE, (
        "code MIT, text CC BY 4.0 (LICENSE): pyproject.toml's license is the SPDX expression "
        f"{LICENCE!r}")
    assert not any(c.startswith("License ::") for c in project.get("classifiers", [])), (
        "an SPDX license expression replaces the licence classifiers (PEP 639)")
    matched = {str(p.relative_to(ROOT)) for pattern in project["license-files"]
               for p in ROOT.glob(pattern)}
    assert set(LICENCE_FILES) <= matched, (project["license-files"], matched)
    assert "MIT License" in (ROOT / "LICENSE").read_text()
    cc = (ROOT / "LICENSES" / "CC-BY-4.0.txt").read_text()
    assert "Creative Commons Attribution 4.0 International Public License" in cc
    # the build backend that understands an SPDX expression (PEP 639: setuptools >= 77)
    requires = [Requirement(r) for r in _play.pyproject()["build-system"]["requires"]]
    setuptools = next(r for r in requires if r.name == "setuptools")
    assert setuptools.specifier.contains("77") and not setuptools.specifier.contains("76.9")


# --- built distributions (slow) -------------------------------------------------------------------

def _shipped() -> set[str]:
    """What the package must ship: every module, the stored runs with their README, and the
    explorer's page."""
    files = {str(p.relative_to(ROOT)) for p in (ROOT / "companion").rglob("*.py")}
    for data in ("data", "explorer_page"):         # the stored runs, the explorer's page
        files |= {str(p.relative_to(ROOT)) for p in (ROOT / "companion" / data).rglob("*")
                  if p.is_file()}
    return {f for f in files if "__pycache__" not in f and ".ipynb_checkpoints" not in f}


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    return _play.checkout_copy(tmp_path_factory.mktemp("pkg") / "repo")


@pytest.mark.slow
def test_sdist_and_wheel_ship_the_modules_and_the_stored_runs(checkout, tmp_path):
    # python -m build: the sdist, then the wheel built from the sdist (as an index user gets it)
    run([sys.executable, "-m", "build", "--outdir", tmp_path, checkout], cwd=checkout,
        label="packaging: python -m build (sdist, then the wheel from it)", timeout=1800)
    wheel, = tmp_path.glob("*.whl")
    sdist, = tmp_path.glob("*.tar.gz")
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    with tarfile.open(sdist) as tar:
        in_sdist = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    shipped = _shipped()
    assert shipped, "nothing to ship?"
    assert not shipped - in_wheel, f"{wheel.name} lacks {sorted(shipped - in_wheel)}"
    assert not shipped - in_sdist, f"{sdist.name} lacks {sorted(shipped - in_sdist)}"
    assert wheel.name.startswith("two_vs_one_step-"), wheel.name
    # the licences: the metadata's SPDX expression and both texts, in the wheel and the sdist
    with zipfile.ZipFile(wheel) as zf:
        info = next(n.rsplit("/", 1)[0] for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = zf.read(f"{info}/METADATA").decode()
        for name in LICENCE_FILES:
            assert f"{info}/licenses/{name}" in zf.namelist(), f"{wheel.name} lacks {name}"
            assert zf.read(f"{info}/licenses/{name}") == (ROOT / name).read_bytes()
    assert f"License-Expression: {LICENCE}" in metadata.splitlines(), metadata[:2000]
    files = [ln.split(": ", 1)[1] for ln in metadata.splitlines() if ln.startswith("License-File: ")]
    assert sorted(files) == sorted(LICENCE_FILES), files
    assert not any(ln.startswith("Classifier: License ::") for ln in metadata.splitlines())
    assert set(LICENCE_FILES) <= in_sdist, f"{sdist.name} lacks a licence text"


@pytest.mark.slow
def test_plain_pip_install_runs_the_command_line(checkout, tmp_path):
    """`pip install .` into a fresh environment, nothing else: simulate and reproduce run."""
    with timed("packaging: fresh venv + pip install ."):
        python = _play.make_venv(tmp_path / "venv")
        run([python, "-m", "pip", "install", "--quiet", "."], cwd=checkout, timeout=1800)
    work = tmp_path / "work"  # away from the checkout: the installed package is imported
    work.mkdir()
    version = run([python, "-m", "companion", "--version"], cwd=work).stdout.split()[-1]
    assert f'__version__ = "{version}"' in (ROOT / "companion" / "__init__.py").read_text()
    out = run([python, "-m", "companion", "simulate", "--N", "200", "--json"], cwd=work,
              label="packaging: python -m companion simulate --N 200").stdout
    result = json.loads(out)
    assert result["n_outliers"] and result["singular_values"]
    # the console script (pyproject's [project.scripts]) gives the same output
    script = python.parent / "companion"
    scripted = run([script, "simulate", "--N", "200", "--json"], cwd=work,
                   label="packaging: the companion script, simulate --N 200").stdout
    assert {k: v for k, v in json.loads(scripted).items() if k != "seconds"} == {
        k: v for k, v in result.items() if k != "seconds"}
    run([python, "-m", "companion", "reproduce", "--scale", "small", "--only", "E6",
         "--out", work / "x"], cwd=work, timeout=1800,
        label="packaging: python -m companion reproduce --scale small --only E6")
    written = sorted(p.name for p in (work / "x").glob("E6.*"))
    shutil.rmtree(tmp_path / "venv", ignore_errors=True)
    assert {"E6.png", "E6.csv", "E6.json", "E6.npz"} <= set(written), written
