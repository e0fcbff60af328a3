"""The built book is quiet: every page of ``_build/html`` loads in headless Chromium with no
error in the browser's console (a script error, a failed request, a message a script logs
as an error).

Every page threw "Identifier 'THEBE_JS_URL' has already been declared" until
publish/extensions/inline_scripts_once.py (Sphinx 7.4 wrote sphinx-thebe's inline configuration
twice). The browser is the fixture of tests/conftest.py: without chromium or playwright this
is skipped, unless ``COMPANION_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import pytest

from _helpers import SETTLED, built_pages

pytestmark = pytest.mark.book


def test_every_page_loads_without_a_console_error(built_book, browser):
    pages = built_pages(built_book)
    assert len(pages) >= 10, f"only {len(pages)} pages in {built_book}"
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors, current = [], {"name": None}
    page.on("console", lambda m: errors.append((current["name"], m.text[:300]))
            if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append((current["name"], str(e)[:300])))
    for path in pages:
        current["name"] = str(path.relative_to(built_book))
        page.goto(path.resolve().as_uri())
        page.wait_for_load_state("load")
        page.evaluate(SETTLED)
    page.close()
    assert not errors, f"{len(errors)} console errors: {errors[:10]}"
