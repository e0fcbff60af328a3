"""MyST-NB's inline execution keeps the strict build's guarantees (issue 18).

The book executes its chapters with ``execute_notebooks: inline`` (MyST-NB runs the kernel
while it renders the page, so that ``{eval}`` roles show the values computed above them).
These tests build tiny one-page books with the book's own ``_config.yml`` and extensions,
strictly (``-W``) as ``make book`` does, and check that inline mode still fails the build
on what the book's strictness is for: a cell that raises, a cell that writes to stderr, a
cell that runs past the timeout, an ``{eval}`` role that cannot be evaluated or is not a
name; that a healthy page shows the role's value and the record of it
(publish/extensions/record_eval.py) that tests/test_book.py compares with the stored values; and that
a line the kernel sent in two chunks is one line on the page
(publish/extensions/merge_streams.py).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.book


def _build(tmp_path: Path, cells: list, timeout: int | None = None) -> subprocess.CompletedProcess:
    book = tmp_path / "book"
    book.mkdir(parents=True)
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    if timeout is not None:
        config["execute"]["timeout"] = timeout
    for key in [k for k in config["sphinx"]["config"] if k.startswith("bibtex_")]:
        del config["sphinx"]["config"][key]
    config["sphinx"]["extra_extensions"] = [e for e in config["sphinx"]["extra_extensions"]
                                            if e != "sphinxcontrib.bibtex"]
    # the book's own extensions, from this repository's root (publish/extensions/)
    config["sphinx"]["local_extensions"] = {name: str(ROOT) for name
                                            in config["sphinx"]["local_extensions"]}
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(config))
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: book/page\n")
    for static in config["sphinx"]["config"].get("html_static_path", []):
        shutil.copytree(ROOT / static, tmp_path / static)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# A page")] + cells
    nbformat.write(nb, book / "page.ipynb")
    return subprocess.run(
        [sys.executable, "-c", "import sys; from jupyter_book.cli.main import main; "
         "sys.exit(main())", "build", "--all", "-W", "-n", "--keep-going", str(tmp_path)],
        capture_output=True, text=True, timeout=600)


code, md = nbformat.v4.new_code_cell, nbformat.v4.new_markdown_cell


def test_a_healthy_page_shows_and_records_its_numbers(tmp_path):
    proc = _build(tmp_path, [code("from companion.presentation.book import Numbers\n"
                                  "ns = Numbers(half=1024 // 2, slope='+0.15')"),
                             md("Half is {eval}`ns.half`, the slope {eval}`ns.slope`.")])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    page = (tmp_path / "_build" / "html" / "book" / "page.html").read_text()
    shown = re.findall(r'<span class="output text_plain">([^<]*)</span>', page)
    assert shown == ["512", "+0.15"], shown
    record = json.loads((tmp_path / "_build" / "jupyter_execute" / "book" /
                         "page.eval.json").read_text())
    assert [r["expression"] for r in record] == ["ns.half", "ns.slope"]
    assert [r["text/plain"] for r in record] == ["512", "+0.15"]


@pytest.mark.parametrize("case, cells, timeout, message", [
    ("a cell raises", [code("raise ValueError('boom')")], None, "CellExecutionError"),
    ("a cell writes to stderr", [code("import sys\nprint('careful', file=sys.stderr)")],
     None, "stderr"),
    ("a cell runs past the timeout", [code("import time\ntime.sleep(8)")], 3, "Timeout"),
    ("a role names nothing defined", [md("The value is {eval}`nowhere`.")], None,
     "NameError"),
    ("a role is not a name", [code("x = 2"), md("The value is {eval}`x + 1`.")], None,
     "x + 1"),
])
def test_the_strict_build_fails_when(tmp_path, case, cells, timeout, message):
    proc = _build(tmp_path, cells, timeout)
    assert proc.returncode != 0, f"the strict build passed although {case}"
    warnings = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "WARNING" in ln]
    assert any(message in ln for ln in warnings), (
        f"{case}: the build failed, but not with a warning about it:\n" + "\n".join(warnings))


def test_a_line_sent_in_chunks_is_shown_as_printed(tmp_path):
    """The kernel sends a cell's printing in chunks cut where its buffer is flushed (here by
    the cell itself, after trailing spaces and before a newline); the page and the executed
    copy show one line as printed (publish/extensions/merge_streams.py; MyST-NB's merge broke the
    line and stripped the spaces: issue 44)."""
    printed = "sizes: [1, 2]   predicted: +0.15\nend  "
    proc = _build(tmp_path, [code("import sys\n"
                                  "print('sizes:', [1, 2], end='  ')\n"
                                  "sys.stdout.flush()\n"
                                  "print(' predicted: +0.15', end='')\n"
                                  "sys.stdout.flush()\n"
                                  "print()\n"
                                  "print('end  ', end='')")])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    executed = nbformat.read(tmp_path / "_build" / "jupyter_execute" / "book" / "page.ipynb",
                             as_version=4)
    outputs = [o for c in executed.cells if c.cell_type == "code" for o in c.outputs]
    assert [(o.output_type, o.get("name"), o.get("text")) for o in outputs] == [
        ("stream", "stdout", printed)]
    page = (tmp_path / "_build" / "html" / "book" / "page.html").read_text()
    blocks = [html.unescape(re.sub(r"<[^>]+>", "", b))
              for b in re.findall(r'<div class="output stream[^"]*">.*?<pre>(.*?)</pre>', page,
                                  re.S)]
    # (Pygments ends the highlighted block with a newline where the text has none)
    assert blocks in ([printed], [printed + "\n"]), blocks
