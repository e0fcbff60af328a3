"""The built book on a phone: every page at 390 x 844 CSS pixels in headless Chromium.

* no page is wider than the screen: ``document.documentElement.scrollWidth <= 390`` for
  every page of ``_build/html`` (wide equations and tables scroll in their own box, never
  the page, and long inline code breaks: ``_css/book.css``), and nothing is cut off without
  a way to scroll to it (a long inline formula);
* the explorer fits at several views (every kind of stored-run table, the glossary open),
  its controls lie on the screen and work there, and each of its tables either fits or
  scrolls in its own box;
* every table keeps its last column reachable (the instructors' tables end in ``check``):
  scrolled to the end of its box, the column lies on the screen;
* a box that scrolls says so: every display equation and table wider than its box on the
  phone (the central expansion of two_steps, the explorer's Lambda formula and its
  stored-runs tables among them) draws a scrollbar (measured in a Chromium that draws
  scrollbars: Playwright's headless default hides them) and a shadow at its edge.

A full-page screenshot of every page goes to ``_build/phone/`` (a look at them is part of
a change to the book's style). The browser is the fixture of tests/conftest.py: without
chromium or playwright these tests are skipped, unless ``COMPANION_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.core import theory

from _helpers import SETTLED, browser_or_skip, built_pages

pytestmark = pytest.mark.book

WIDTH, HEIGHT = 390, 844
SHOTS = Path(__file__).resolve().parents[1] / "_build" / "phone"

#: the elements that stick out of the screen, not inside a box that scrolls or clips (what a
#: failure names)
OVERFLOWING = """(width) => {
  const out = [];
  for (const e of document.querySelectorAll("body *")) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.right <= width + 0.5) continue;
    let p = e.parentElement, held = false;
    while (p && p !== document.body) {
      const style = getComputedStyle(p);
      if (style.position === "fixed" ||          // off-canvas sidebars: not part of the page
          (["auto", "scroll", "hidden", "clip"].includes(style.overflowX)
           && p.getBoundingClientRect().right <= width + 0.5)) { held = true; break; }
      p = p.parentElement;
    }
    if (!held) out.push(e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + " " +
                        String(e.className && e.className.baseVal === undefined ?
                               e.className : "").slice(0, 40) + " right=" + Math.round(r.right));
  }
  return out.slice(0, 6);
}"""


#: per table: its last header cell, after scrolling the box that holds the table to its end
#: (left, right, whether a scrolling box holds it, the header's text)
LAST_COLUMNS = """() => [...document.querySelectorAll("article table, main table")].map(t => {
  const row = t.querySelector("tr");
  const cell = row && row.lastElementChild;
  if (!cell) return null;
  let box = t.parentElement;
  while (box && box !== document.body &&
         !["auto", "scroll"].includes(getComputedStyle(box).overflowX)) box = box.parentElement;
  const scrolls = !!box && box !== document.body;
  if (scrolls) box.scrollLeft = box.scrollWidth;
  const r = cell.getBoundingClientRect();
  return [Math.round(r.left), Math.round(r.right), scrolls, cell.innerText.trim().slice(0, 30)];
}).filter(x => x)"""


#: the boxes that hide content they cannot show (no scrolling), MathJax's visually hidden
#: copy for screen readers apart
CLIPPED = """() => [...document.querySelectorAll("article *")].filter(e =>
  ["hidden", "clip"].includes(getComputedStyle(e).overflowX)
  && e.scrollWidth > e.clientWidth + 1 && !e.closest("mjx-assistive-mml"))
  .map(e => e.tagName.toLowerCase() + "." + String(e.className).slice(0, 30) + " " +
            e.scrollWidth + " > " + e.clientWidth + ": " + e.textContent.trim().slice(0, 50))"""


@pytest.fixture(scope="module")
def phone(browser):
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT},
                                  device_scale_factor=1, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    yield page
    context.close()


def _open(page, url: str):
    page.goto(url)
    page.wait_for_load_state("load")
    page.evaluate(SETTLED)
    return page


def _width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_every_page_fits_a_phone(built_book, phone):
    pages = built_pages(built_book)
    assert len(pages) >= 10, f"only {len(pages)} pages in {built_book}"
    wide, cut, clipped, columns = {}, [], [], {}
    for path in pages:
        name = str(path.relative_to(built_book).with_suffix("")).replace("/", "_")
        _open(phone, path.resolve().as_uri())
        _shot(phone, name)
        width = _width(phone)
        if width > WIDTH:
            wide[name] = (width, phone.evaluate(OVERFLOWING, WIDTH))
        # the last column of every table is on the screen, or reachable in its own box
        clipped += [(name, c) for c in phone.evaluate(CLIPPED)]
        columns[name] = phone.evaluate(LAST_COLUMNS)
        cut += [(name, c) for c in columns[name] if c[0] < 0 or c[1] > WIDTH]
    assert not wide, "pages wider than the phone's 390 px (scrollWidth, what sticks out): " + \
        "; ".join(f"{k}: {w} {els}" for k, (w, els) in wide.items())
    assert not cut, f"tables whose last column cannot be reached: {cut}"
    assert not clipped, f"content cut off without a way to scroll to it: {clipped[:8]}"
    # the instructors' tables end in the `check` column
    assert any(c[3] == "check" for c in columns["book_instructors"]), columns["book_instructors"]


VIEWS = [("0.38", "0.45", "generic"),   # the spike tables of two activations
         ("0.35", "0.45", "tanh"),      # term sizes, He_3 projections, two steps against one
         ("0.30", "0.38", "tanh"),      # a note where finite width disagrees with the limit
         ("0.45", "0.45", "generic"),   # many terms
         ("0.05", "0.05", "tanh")]      # nothing stored nearby


@pytest.mark.parametrize("a1,a2,act", VIEWS)
def test_explorer_fits_a_phone(built_book, phone, a1, a2, act):
    url = (built_book / "book" / "explorer.html").resolve().as_uri()
    page = _open(phone, f"{url}?alpha1={a1}&alpha2={a2}&activation={act}")
    page.wait_for_selector("#phase-explorer[data-ready='1']", state="attached")
    page.evaluate("document.querySelector('#phase-explorer details').open = true")
    page.evaluate(SETTLED)
    _shot(page, f"explorer_{a1}_{a2}_{act}")
    assert _width(page) <= WIDTH, page.evaluate(OVERFLOWING, WIDTH)
    # every table fits its box or scrolls in it; the box lies on the screen
    boxes = page.evaluate("""() => [...document.querySelectorAll('#phase-explorer table')]
      .map(t => { const b = t.parentElement, r = b.getBoundingClientRect();
        return [t.id || t.className, Math.round(r.left), Math.round(r.right),
                t.scrollWidth <= b.clientWidth + 1 || getComputedStyle(b).overflowX === 'auto'];
      })""")
    assert boxes
    for name, left, right, reachable in boxes:
        assert left >= 0 and right <= WIDTH and reachable, (name, left, right)
    # the controls lie on the screen, wide enough to use, and work there
    for sel in ("#pe-alpha1", "#pe-alpha2", "#pe-activation", "#pe-diagram"):
        r = page.locator(sel).bounding_box()
        assert r["x"] >= 0 and r["x"] + r["width"] <= WIDTH, (sel, r)
    assert page.locator("#pe-alpha1").bounding_box()["width"] >= 250
    page.fill("#pe-alpha2", "0.2")
    assert page.inner_text("#lambda") == str(theory.lambda_count(float(a1), 0.2))
    page.evaluate(SETTLED)
    assert _width(page) <= WIDTH
    assert not phone.errors, phone.errors




#: the boxes that scroll wide content (_css/book.css), and per box wider than its content
#: area: what it is, how much is hidden, the height its scrollbar takes, its background
SCROLL_BOXES = """() => [...document.querySelectorAll(
    'mjx-container[display="true"], .pst-scrollable-table-container, '
    + '.cell_output .output.text_html, .phase-explorer .pe-scroll')]
  .filter(e => e.scrollWidth > e.clientWidth + 8 && e.getBoundingClientRect().width > 0)
  .map(e => { const s = getComputedStyle(e);
    return {what: e.tagName.toLowerCase() + " " + e.textContent.trim().slice(0, 40),
            hidden: e.scrollWidth - e.clientWidth, overflow: s.overflowX,
            scrollbar: e.offsetHeight - e.clientHeight
                       - parseFloat(s.borderTopWidth) - parseFloat(s.borderBottomWidth),
            shadow: s.backgroundImage.includes("gradient")}; })"""


@pytest.fixture(scope="module")
def phone_with_scrollbars(browser):
    """A phone-sized page in a Chromium that draws scrollbars (Playwright starts headless
    Chromium with --hide-scrollbars), started by the module browser's Playwright."""
    b = browser.browser_type.launch(executable_path=browser_or_skip()[0], args=["--no-sandbox"],
                                    ignore_default_args=["--hide-scrollbars"])
    context = b.new_context(viewport={"width": WIDTH, "height": HEIGHT},
                            device_scale_factor=1, is_mobile=True, has_touch=True)
    yield context.new_page()
    b.close()


def test_a_box_that_scrolls_shows_it(built_book, phone_with_scrollbars):
    page = phone_with_scrollbars
    boxes, silent = {}, []
    urls = [(str(p.relative_to(built_book).with_suffix("")), p.resolve().as_uri())
            for p in built_pages(built_book)]
    explorer = (built_book / "book" / "explorer.html").resolve().as_uri()
    urls.append(("explorer_tanh", explorer + "?alpha1=0.35&alpha2=0.45&activation=tanh"))
    for name, url in urls:
        _open(page, url)
        boxes[name] = page.evaluate(SCROLL_BOXES)
        silent += [(name, b) for b in boxes[name]
                   if b["overflow"] not in ("auto", "scroll") or b["scrollbar"] < 4
                   or not b["shadow"]]
    assert not silent, f"boxes that scroll without showing it: {silent[:8]}"
    # the wide content this was made for: two_steps' central expansion (and its v_k
    # line), the explorer's Lambda formula, its stored-runs table
    assert any("W2" in b["what"] for b in boxes["book/two_steps"]), boxes["book/two_steps"]
    assert any(b["what"].startswith("mjx-container Λ") for b in boxes["book/explorer"])
    assert any(b["what"].startswith("div batch") for b in boxes["explorer_tanh"])
