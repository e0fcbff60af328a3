"""The claim table (companion/claims.py) behind the book's registry page: every claim maps to
a figure placed in exactly one chapter, an existing test and the stored data of its
experiments; every experiment is mapped; the page is generated from the table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion import claims
from companion import reproduce as rp
from companion.core import store

ROOT = Path(__file__).resolve().parents[1]


def _figure_names() -> dict[str, list[str]]:
    names: dict[str, list[str]] = {}
    for nb in sorted((ROOT / "book").glob("*.ipynb")):
        for cell in json.loads(nb.read_text())["cells"]:
            # a figure named in its drawing cell's metadata (MyST-NB), or in a glue block
            name = cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("name")
            if name:
                names.setdefault(name, []).append(nb.stem)
            if cell["cell_type"] != "markdown":
                continue
            for line in "".join(cell["source"]).splitlines():
                if line.strip().startswith(":name: fig-"):
                    names.setdefault(line.split(":name:")[1].strip(), []).append(nb.stem)
    return names


def test_claim_table_is_complete_and_every_entry_exists():
    figures = _figure_names()
    assert len(claims.CLAIMS) >= 12
    mapped = set()
    for c in claims.CLAIMS:
        assert figures.get(c.figure, []) and len(figures[c.figure]) == 1, c.figure
        path, _, func = c.test.partition("::")
        assert (ROOT / path).exists(), c.test
        assert f"def {func}(" in (ROOT / path).read_text(), c.test
        for eid in c.experiments:
            assert eid in rp.EXPERIMENT_IDS, eid
            mapped.add(eid)
        for data in c.data:
            assert (ROOT / data).exists(), data
    assert mapped == set(rp.EXPERIMENT_IDS)                   # every experiment is mapped


def test_paper_claims_quote_only_the_abstract_or_summary():
    """A claim labelled as the paper's carries none of the companion's readings."""
    readings = ("1 + \\Lambda", "added", "iff", "\\lfloor \\Lambda/2", "degree of the activation")
    for c in claims.CLAIMS:
        if c.source.startswith("paper"):
            assert not any(r in c.claim for r in readings), c.claim


def test_claims_page_is_generated_from_the_table():
    page = (ROOT / "book" / "registry.md").read_text()
    assert page == claims.render(), "run: python -m companion.claims > book/registry.md"
    assert "book/registry" in (ROOT / "_toc.yml").read_text()
    assert "{numref}`fig-ts-emergence`" in page


def test_the_registry_links_every_experiments_stored_files_and_figure():
    """Each experiment's row offers its stored CSV, JSON and NPZ and its figure as a PDF for
    download (the build copies them into the book); every linked stored file exists, and a
    PDF is linked exactly where the runs it is drawn from are stored (the build draws it:
    publish/extensions/registry_figures.py; tests/test_book.py finds it in the built book)."""
    page = (ROOT / "book" / "registry.md").read_text()
    links = re.findall(r"\{download\}`[^`<]*<\.\./([^>]+)>`", page)
    stored = [link for link in links if link.startswith(claims.DATA_DIR)]
    pdfs = {link for link in links if link.startswith(claims.FIGURES_DIR)}
    assert stored and all((ROOT / link).is_file() for link in stored)
    assert set(links) == set(stored) | pdfs
    with_runs = [eid for eid in rp.EXPERIMENT_IDS
                 if (ROOT / claims.DATA_DIR / f"{eid}.npz").is_file()]
    assert pdfs == {f"{claims.FIGURES_DIR}/{eid}.pdf" for eid in with_runs}
    for eid in with_runs:
        for kind in ("csv", "json", "npz"):
            assert f"{claims.DATA_DIR}/{eid}.{kind}>" in page, (eid, kind)


#: ASCII math, as the registry wrote it before its math was rendered (alpha1, eta = ...,
#: N^..., He_3, floor(...), cos^2, Lambda as a word)
ASCII_MATH = re.compile(r"\b(alpha ?[12]|eta ?[12]?|Lambda|Theta|W ?[012]|He_\d|he\d|s1|"
                        r"sqrt\d?|cos\^2|tanh)\b|\^|floor\(|>=|\ba\^\{o")


def test_the_registry_writes_its_math_as_math():
    """Outside its math, code and links, the page has no ASCII math (its claims and the
    experiments' titles: companion.claims.TITLE_MATH)."""
    page = (ROOT / "book" / "registry.md").read_text()
    text = re.sub(r"\$[^$]*\$|`[^`]*`|<!--.*?-->|```.*?```|[Cc]hecked by \*[^*]+\*", " ", page,
                  flags=re.S)
    found = sorted({m.group(0) for m in ASCII_MATH.finditer(text)})
    assert not found, f"ASCII math on the registry page: {found}"
    assert claims.math_title("one step at eta = N^alpha: vs N") == (
        r"one step at $\eta = N^\alpha$: vs $N$")


@pytest.mark.book
def test_the_built_registry_offers_each_figure_as_a_pdf(built_book):
    """The build drew a PDF for every experiment with stored runs and copied it into the
    book, where the registry's links find it (a PDF file, not an empty placeholder)."""
    page = (built_book / "book" / "registry.html").read_text()
    pdfs = sorted(set(re.findall(r'href="\.\./(_downloads/[^"]+/(E\d+)\.pdf)"', page)))
    with_runs = {eid for eid in rp.EXPERIMENT_IDS
                 if (ROOT / claims.DATA_DIR / f"{eid}.npz").is_file()}
    assert {eid for _, eid in pdfs} == with_runs
    for path, eid in pdfs:
        data = (built_book / path).read_bytes()
        assert data.startswith(b"%PDF") and len(data) > 5000, (eid, len(data))


# --- the registry's numbers are the chapters' (issue 42) ---------------------------------

#: every number the registry quotes: (name, key) of a chapter's summary
QUOTED = sorted({m.groups() for c in claims.CLAIMS for m in claims.PLACEHOLDER.finditer(c.claim)})
#: a chapter's code: ``from companion.chapters.<chapter> import a, b as c``
IMPORT = re.compile(r"^from (companion\.chapters\.\w+) import \(?\s*([^)\n]+)\)?", re.M)
BINDING = re.compile(r"^(\w+) = (\w+)\.(\w+)\(([^\n]*)\)", re.M)
LOADED = re.compile(r"^(\w+) = store\.load\(\"(E\d+)\"\)", re.M)


def _chapter_code(chapter: str) -> str:
    """The code a chapter runs for its own pages: its code cells, without the exercises'
    starters and solutions (which run alone)."""
    cells = json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text())["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code"
                     and not {"exercise", "solution"} & set(c["metadata"].get("tags", [])))


def chapter_calls(chapter: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    """{"module.function": (the name the chapter binds its value to, the stored experiments
    it passes, in order)} for each call of a function of the chapters' packages that the
    chapter binds to a name (its first such call)."""
    code = _chapter_code(chapter)
    modules = {}
    for package, names in IMPORT.findall(code):
        for name in names.split(","):
            name, _, alias = name.strip().partition(" as ")
            modules[(alias or name).strip()] = f"{package}.{name.strip()}"
    loaded = dict(LOADED.findall(code))
    calls: dict = {}
    for var, alias, func, args in BINDING.findall(code):
        if alias not in modules:
            continue
        eids = []
        for arg in (a.strip() for a in args.split(",")):
            found = re.findall(r"\"(E\d+)\"", arg)
            eids += found if found else [loaded[arg]] if arg in loaded else []
        calls.setdefault(f"{modules[alias]}.{func}", (var, tuple(eids)))
    return calls


def stored_values(chapter: str) -> dict[str, str]:
    """Every {eval} value the chapter stores (its prose and its figures' captions)."""
    cells = json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text())["cells"]
    return {e["expression"]: "".join(e["result"]["data"]["text/plain"])
            for c in cells for e in c["metadata"].get("user_expressions", [])
            if e.get("result", {}).get("status") == "ok"}


def test_the_registry_quotes_numbers_and_each_is_a_summary_value():
    assert len(QUOTED) >= 15
    values = claims.numbers()
    for name, key in QUOTED:
        assert name in claims.SUMMARIES, name
        assert key in values[name], (name, key, sorted(values[name]))


@pytest.mark.parametrize("name,key", QUOTED, ids=[f"{n}.{k}" for n, k in QUOTED])
def test_every_registry_number_is_its_chapters(name, key):
    """The registry's number is the value of the summaries function its chapter quotes it
    from, called by the chapter on the same stored runs; where the chapter's prose quotes
    it, the value the chapter stores is the registry's."""
    src = claims.SUMMARIES[name]
    function = f"{src.function.__module__}.{src.function.__name__}"
    calls = chapter_calls(src.chapter)
    assert function in calls, (f"{src.chapter}.ipynb does not call {function}: the registry "
                               f"reads a summary its chapter no longer uses")
    var, eids = calls[function]
    assert eids == src.experiments, (f"{src.chapter}.ipynb calls {function} on {eids}, "
                                     f"the registry on {src.experiments}")
    value = claims.numbers()[name][key]
    fresh = src.function(*(store.load(e) for e in src.experiments)).as_dict()[key]
    assert value == fresh and value != "n/a"
    assert claims.shown(value) in claims.render()
    chapter = stored_values(src.chapter).get(f"{var}.{key}")
    if chapter is not None:
        assert chapter == value, (f"{src.chapter} shows {var}.{key} = {chapter!r}, the "
                                  f"registry {value!r}")


def test_a_claim_types_no_number():
    """A claim writes every number it quotes as a summary's value: outside its math no digit,
    and in its math formulas only (no decimal, no number of three digits or more, no power
    of ten). The check bites on the numbers the registry once typed."""

    def typed(text: str) -> list[str]:
        text = claims.PLACEHOLDER.sub(" ", text)
        found = re.findall(r"\d+", re.sub(r"\$[^$]*\$", " ", text))
        for math in re.findall(r"\$([^$]*)\$", text):
            found += re.findall(r"\d+\.\d+|\d{3,}|10\^\{?\d", math)
        return found

    for c in claims.CLAIMS:
        assert not typed(c.claim), (typed(c.claim), c.claim)
    for old in ("(134 of 144 runs agree)", "at $N \\le 512$", "($N = 10^3$ to $10^6$)",
                "the census's 2% margin", "$\\cos^2$ about 0.016", "at $N = 4096$ a"):
        assert typed(old), old


def test_a_number_in_a_programs_notation_is_written_as_a_reader_writes_it():
    assert claims.shown("1.0e3, 1.0e4, 1.9e5") == "10³, 10⁴, 1.9 × 10⁵"
    assert claims.shown("203 of 216") == "203 of 216"
    assert claims.fill("at ⟨a.b⟩ runs", {"a": {"b": "1.0e6"}}) == "at 10⁶ runs"
