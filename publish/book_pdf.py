"""The book as one PDF (`make pdf`): every page of the built book (``_build/html``, from
`make book`), in the order of ``_toc.yml``, printed by headless Chromium through Playwright
(``page.pdf``) with the book's print stylesheet (``_css/print.css``: no navigation, figures
whole, boxes that scroll on a screen shown whole, solutions open), joined into
``_build/pdf/book.pdf``, and copied to ``_build/html/book.pdf``, where the footer of every
page links it (``_config.yml``, ``html.extra_footer``) and where the published site serves it.

* Each page is printed on its own, so each chapter starts on a new sheet; a page is printed
  only once MathJax has typeset all of its math (the tool fails if a formula is left as
  LaTeX) and its images have loaded.
* The PDF has an outline: one entry per page of the book, with the page's own headings
  under it (Chromium's outline of each page).
* The pages are numbered through the whole book at the foot of each sheet, and each sheet
  names its chapter at the top.
* A link to another page of the book leads to that page's first sheet in the PDF; a link to
  another file of the site (a download) stays a link relative to the site's root, where the
  PDF is published; links to the web stay as they are.

The browser is the system's Chromium (``apt-get install chromium``), as in the tests;
Playwright never downloads one. The pages' order is the table of contents as
publish/sources.py reads it. tests/test_book_pdf.py reads the PDF back.

    python -m publish pdf [--html _build/html] [--out _build/pdf/book.pdf]
"""

from __future__ import annotations

import argparse
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

from pypdf import PdfReader, PdfWriter
from pypdf.generic import ArrayObject, NameObject, NullObject, TextStringObject

from publish.sources import ROOT, config, toc

HTML = ROOT / "_build" / "html"
OUT = ROOT / "_build" / "pdf" / "book.pdf"
#: where the published site serves the PDF, relative to the site's root (the footer's link)
SITE_NAME = "book.pdf"

PAPER = {"format": "A4", "margin": {"top": "18mm", "bottom": "16mm", "left": "16mm",
                                    "right": "16mm"}}

#: resolves once MathJax (where the page loads it) has typeset the page
MATH_SETTLED = """() => (window.MathJax && MathJax.startup && MathJax.startup.promise)
    ? MathJax.startup.promise.then(() => true) : true"""

#: the formulas MathJax left as LaTeX (Sphinx's math spans and blocks without MathJax's output)
UNTYPESET = """() => [...document.querySelectorAll('.math')]
    .filter(e => !e.querySelector('mjx-container') && /\\\\[(\\[]/.test(e.textContent))
    .map(e => e.textContent.trim().slice(0, 80))"""

#: every image loaded (Chromium prints only what has loaded)
IMAGES_LOADED = """() => Promise.all([...document.images].map(img => {
    img.loading = 'eager';
    return img.complete ? true : new Promise(r => { img.onload = img.onerror = r; });
})).then(() => document.fonts.ready).then(() => true)"""

#: the page's title: its heading (with the chapter's number; the theme's own print title,
#: #jb-print-docs-body, has none), without the permalink sign
TITLE = """() => { const h = document.querySelector('article section h1')
        || document.querySelector('h1');
    if (!h) return document.title;
    const c = h.cloneNode(true);
    c.querySelectorAll('.headerlink, mjx-assistive-mml').forEach(e => e.remove());
    return c.textContent.replace(/\\s+/g, ' ').trim(); }"""

HEADER = ('<div style="font-size:7.5pt; color:#666; width:100%; margin:0 16mm; '
          'font-family:sans-serif;">{title}</div>')
FOOTER = ('<div style="font-size:8pt; color:#666; width:100%; text-align:center; '
          'font-family:sans-serif;"><span class="pageNumber"></span></div>')


def toc_pages(root: Path = ROOT) -> list[str]:
    """Every file of ``_toc.yml`` (the root first, then parts, chapters and their sections in
    reading order), without its extension."""
    return [doc.name for doc in toc(root)]


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        raise SystemExit("book_pdf: no chromium on PATH (apt-get install chromium)")
    return path


def print_pages(html: Path, stems: list[str], workdir: Path) -> list[tuple[str, str, Path]]:
    """(stem, title, PDF of that page) for every page, printed one by one."""
    from playwright.sync_api import sync_playwright

    printed = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        context = browser.new_context(color_scheme="light", viewport={"width": 1200,
                                                                       "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        for i, stem in enumerate(stems):
            source = html / f"{stem}.html"
            if not source.exists():
                raise SystemExit(f"book_pdf: {source} is missing: build the book first "
                                 f"(make book)")
            page.goto(source.resolve().as_uri())
            page.wait_for_load_state("load")
            if page.locator("#phase-explorer").count():   # the explorer draws from its data
                page.wait_for_selector("#phase-explorer[data-ready='1']", state="attached",
                                       timeout=60_000)
            page.evaluate(MATH_SETTLED)
            page.evaluate(IMAGES_LOADED)
            left = page.evaluate(UNTYPESET)
            if left:
                raise SystemExit(f"book_pdf: {stem}: MathJax left {len(left)} formulas as "
                                 f"LaTeX, e.g. {left[:3]}")
            title = page.evaluate(TITLE)
            out = workdir / f"{i:02d}.pdf"
            page.pdf(path=str(out), print_background=True, outline=True, tagged=True,
                     display_header_footer=True,
                     header_template=HEADER.format(title=_html_escape(title)),
                     footer_template="<span></span>", **PAPER)
            printed.append((stem, title, out))
        if errors:
            raise SystemExit(f"book_pdf: script errors while printing: {errors[:3]}")
        # the page numbers through the whole book: one sheet per page of the book, empty but
        # for its number, laid over it (a print job numbers its own sheets only)
        total = sum(len(PdfReader(path).pages) for _, _, path in printed)
        page.set_content("<style>div{break-after:page;height:1px}</style>"
                         + "<div></div>" * total)
        page.pdf(path=str(workdir / "numbers.pdf"), display_header_footer=True,
                 header_template="<span></span>", footer_template=FOOTER, **PAPER)
        browser.close()
    return printed


def _link_target(uri: str, html: Path) -> tuple[Path, str] | None:
    """(file, fragment) of a ``file:`` link into the built site, else None."""
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return None
    path = Path(unquote(parts.path)).resolve()
    return (path, parts.fragment) if path.is_relative_to(html.resolve()) else None


def join(printed: list[tuple[str, str, Path]], numbers: Path, html: Path,
         title: str, author: str) -> PdfWriter:
    writer = PdfWriter()
    first_page: dict[Path, int] = {}
    for stem, page_title, path in printed:
        first_page[(html / f"{stem}.html").resolve()] = len(writer.pages)
        writer.append(str(path), outline_item=page_title)
    # links: another page of the book -> its first sheet; another file of the site -> a
    # link relative to the site's root (where the PDF is published); anything else as it is
    for page in writer.pages:
        for ref in page.get("/Annots", []) or []:
            annot = ref.get_object()
            action = annot.get("/A")
            if annot.get("/Subtype") != "/Link" or action is None:
                continue
            action = action.get_object()
            target = _link_target(str(action.get("/URI", "")), html)
            if target is None:
                continue
            path, fragment = target
            if path in first_page:
                dest = writer.pages[first_page[path]].indirect_reference
                annot[NameObject("/Dest")] = ArrayObject([dest, NameObject("/XYZ"), NullObject(),
                                                          NullObject(), NullObject()])
                del annot["/A"]
            else:
                relative = path.relative_to(html.resolve()).as_posix()
                action[NameObject("/URI")] = TextStringObject(
                    relative + (f"#{fragment}" if fragment else ""))
    # the page numbers, laid over each sheet
    stamps = PdfReader(str(numbers)).pages
    assert len(stamps) == len(writer.pages), (len(stamps), len(writer.pages))
    for page, stamp in zip(writer.pages, stamps, strict=True):
        page.merge_page(stamp, over=True)
        page.compress_content_streams()   # merge_page leaves the joined stream uncompressed
    writer.add_metadata({"/Title": title, "/Author": author,
                         "/Subject": "An executable companion to Moniri and Hassani, arXiv "
                                     "2605.17767",
                         "/Creator": "publish/book_pdf.py (Chromium through Playwright)"})
    writer.page_mode = "/UseOutlines"
    return writer


def build(html: Path = HTML, out: Path = OUT, copy_to_site: bool = True) -> Path:
    start = time.perf_counter()
    settings = config(ROOT)
    stems = toc_pages(ROOT)
    with tempfile.TemporaryDirectory(prefix="book-pdf-") as tmp:
        workdir = Path(tmp)
        printed = print_pages(html, stems, workdir)
        writer = join(printed, workdir / "numbers.pdf", html, settings.get("title", ""),
                      settings.get("author", ""))
        out.parent.mkdir(parents=True, exist_ok=True)
        buffer = io.BytesIO()
        writer.write(buffer)
        writer.close()
        out.write_bytes(buffer.getvalue())
    if copy_to_site:
        shutil.copyfile(out, html / SITE_NAME)
    pages = len(PdfReader(str(out)).pages)
    print(f"book_pdf: {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}: "
          f"{len(stems)} pages of the book, {pages} sheets, "
          f"{out.stat().st_size / 1e6:.1f} MB, in {time.perf_counter() - start:.0f} s"
          + (f"; copied to {html / SITE_NAME}" if copy_to_site else ""))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m publish pdf",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", type=Path, default=HTML, help="the built book (make book)")
    parser.add_argument("--out", type=Path, default=OUT, help="the PDF to write")
    parser.add_argument("--no-site-copy", action="store_true",
                        help=f"do not copy the PDF to <html>/{SITE_NAME}")
    args = parser.parse_args(argv)
    build(args.html.resolve(), args.out.resolve(), copy_to_site=not args.no_site_copy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
