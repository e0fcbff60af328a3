"""The book as one PDF (`make pdf`, publish/book_pdf.py): ``_build/pdf/book.pdf``, printed from
the built pages by headless Chromium, read back with pypdf.

* one outline entry per page of the table of contents, in its order, each at a sheet that
  shows that page's title (with its chapter number), and every sheet numbered;
* every figure of a page is an image on that page's sheets;
* no raw MyST (a role or directive left as source), no LaTeX left for MathJax, no link to a
  file of the machine that printed it;
* every built page's footer links the PDF where the site serves it (``book.pdf`` at the
  site's root: _templates/extra-footer.html), and the copy there is the PDF.

The PDF is printed again when it is older than the build or the tool or the print
stylesheet. Marked ``book``; skipped without chromium or playwright, unless
``COMPANION_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import html as html_lib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from _helpers import browser_or_skip, built_pages, toc_files

pytestmark = pytest.mark.book

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT / "_build" / "pdf" / "book.pdf"
#: what the PDF is printed by: the tool and the reader of _toc.yml it uses
TOOL = [ROOT / "publish" / "book_pdf.py", ROOT / "publish" / "sources.py"]
#: what a role, a directive or a fence of MyST looks like when it is shown as source
RAW_MYST = ("{prf:", "{eval}", "```", "{exercise", "{solution", "{doc}", "{ref}", "{numref}",
            "{cite", "{glue", ":::{", "{math}")


@pytest.fixture(scope="module")
def pdf(built_book):
    browser_or_skip()
    inputs = [built_book / "searchindex.js", *TOOL, ROOT / "_css" / "print.css"]
    if not PDF.exists() or PDF.stat().st_mtime < max(p.stat().st_mtime for p in inputs):
        proc = subprocess.run([sys.executable, "-m", "publish", "pdf", "--html", str(built_book)],
                              cwd=ROOT, capture_output=True, text=True, timeout=1800)
        assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    from pypdf import PdfReader
    reader = PdfReader(str(PDF))
    texts = [page.extract_text() for page in reader.pages]
    return reader, texts


def _title(page: Path) -> str:
    """The page's title as the browser's tab shows it, without the book's."""
    title = re.search(r"<title>(.*?)</title>", page.read_text(), re.S).group(1)
    return html_lib.unescape(title).rsplit(" \u2014 ", 1)[0].strip()


def _figures(page: Path) -> set[str]:
    """The figures of a built page: its images from the build (not the theme's logos)."""
    return set(re.findall(r'<img[^>]*\bsrc="\.\./(_images/[^"]+)"', page.read_text()))


def _starts(reader) -> list[tuple[str, int]]:
    """(title, first sheet) of every top-level outline entry."""
    return [(item.title, reader.get_destination_page_number(item))
            for item in reader.outline if not isinstance(item, list)]


def _images(page) -> int:
    """The raster images a sheet draws (its image XObjects, also inside its forms), counted
    without decoding them."""
    def count(resources) -> int:
        found = 0
        for ref in (resources or {}).get("/XObject", {}).values():
            xobject = ref.get_object()
            if xobject.get("/Subtype") == "/Image":
                found += 1
            elif xobject.get("/Subtype") == "/Form":
                found += count(xobject.get("/Resources"))
        return found
    return count(page.get("/Resources"))


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).replace("\ufb01", "fi").replace("\ufb02", "fl")


def test_every_page_of_the_book_starts_a_part_with_its_title(built_book, pdf):
    reader, texts = pdf
    stems = toc_files()
    starts = _starts(reader)
    titles = [_title(built_book / f"{stem}.html") for stem in stems]
    assert [t for t, _ in starts] == titles, "the PDF's outline is not the table of contents"
    firsts = [first for _, first in starts]
    assert firsts[0] == 0 and firsts == sorted(set(firsts)), f"parts out of order: {firsts}"
    # on its first sheet, a part's title is its heading and the sheet's running head
    missing = [t for t, first in starts
               if _squash(texts[first]).count(_squash(re.sub(r"^\d+\. ", "", t))) < 2]
    assert not missing, f"these titles are not on the first sheet of their part: {missing}"
    # the chapters are numbered as in the book (use_multitoc_numbering)
    assert any(re.match(r"\d+\. ", t) for t in titles), titles


def test_every_sheet_is_numbered(pdf):
    reader, texts = pdf
    unnumbered = [i + 1 for i, text in enumerate(texts)
                  if not re.search(rf"(?m)^\s*{i + 1}\s*$", text)]
    assert not unnumbered, f"sheets without their number at the foot: {unnumbered[:10]}"


def test_every_figure_is_printed_on_its_pages(built_book, pdf):
    reader, _ = pdf
    starts = [first for _, first in _starts(reader)] + [len(reader.pages)]
    short = {}
    for i, stem in enumerate(toc_files()):
        figures = _figures(built_book / f"{stem}.html")
        printed = sum(_images(reader.pages[n]) for n in range(starts[i], starts[i + 1]))
        if printed < len(figures):
            short[stem] = (len(figures), printed)
    assert not short, f"pages with fewer images in the PDF than figures (figures, images): {short}"
    assert sum(len(_figures(p)) for p in built_pages(built_book)) >= 20


def test_no_raw_myst_no_latex_and_no_local_links(pdf):
    reader, texts = pdf
    text = "\n".join(texts)
    raw = {marker: text.count(marker) for marker in RAW_MYST if marker in text}
    assert not raw, f"raw MyST in the PDF: {raw}"
    latex = re.findall(r"\\[(\[]|\\frac|\\mathbb|\$\$", text)
    assert not latex, f"math left as LaTeX: {latex[:5]}"
    local = []
    for number, page in enumerate(reader.pages, 1):
        for ref in page.get("/Annots", []) or []:
            action = ref.get_object().get("/A")
            uri = str(action.get_object().get("/URI", "")) if action is not None else ""
            if uri.startswith("file:"):
                local.append((number, uri))
    assert not local, f"links to the printing machine's files: {local[:5]}"


def test_the_pages_link_the_pdf_where_the_site_serves_it(built_book, pdf):
    """The footer of every built page (_templates/extra-footer.html) links ``book.pdf`` at
    the site's root, relative to the page, and the copy there is the PDF."""
    pages = sorted(built_book.glob("*.html")) + built_pages(built_book)
    wrong = {}
    for page in pages:
        text = page.read_text()
        if 'http-equiv="Refresh"' in text:      # index.html only redirects
            continue
        links = re.findall(r'<a class="book-pdf" href="([^"]+)"', text)
        if len(links) != 1 or (page.parent / links[0]).resolve() != built_book / "book.pdf":
            wrong[str(page.relative_to(built_book))] = links
    assert not wrong, f"pages whose footer does not link <site>/book.pdf once: {wrong}"
    copy = built_book / "book.pdf"
    assert copy.exists() and copy.read_bytes() == PDF.read_bytes(), (
        "_build/html/book.pdf (what the footer links and the site serves) is not "
        "_build/pdf/book.pdf: run `make pdf`")
