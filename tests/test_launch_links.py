"""The built book's launch links: on every chapter page, the Binder and Colab buttons and the
download link lead to the configured repository and branch (``_config.yml``) and to a
notebook that exists in the repository (and is committed, where git can tell).

Reads ``_build/html`` as `make book` left it; skipped, saying so, when the book is not
built (`make test` runs after `make book` in CI; tests/test_book.py builds it otherwise)."""

from __future__ import annotations

import html
import re
import subprocess
from urllib.parse import parse_qs, urlsplit

import pytest

import _play
from _play import ROOT

pytestmark = pytest.mark.book

HTML = ROOT / "_build" / "html"
CHAPTERS = _play.chapters()


def _config() -> dict:
    import yaml
    return yaml.safe_load((ROOT / "_config.yml").read_text())


def _links(stem: str) -> list[str]:
    page = HTML / (stem + ".html")
    if not page.exists():
        pytest.skip(f"the book is not built ({page.relative_to(ROOT)} is missing): run `make book`")
    return [html.unescape(h) for h in re.findall(r'href="([^"]+)"', page.read_text())]


def _committed() -> set[str] | None:
    proc = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    return set(proc.stdout.split()) if proc.returncode == 0 and proc.stdout else None


@pytest.mark.parametrize("stem", CHAPTERS)
def test_launch_links_lead_to_the_repository_and_the_notebook(stem):
    links = _links(stem)
    config = _config()
    repo = config["repository"]
    slug = repo["url"].removeprefix("https://github.com/").rstrip("/")
    branch = repo.get("branch", "main")
    path = "/".join(p for p in (repo.get("path_to_book", "").strip("/"), stem + ".ipynb") if p)
    buttons = config["launch_buttons"]
    binder = [h for h in links if h.startswith(buttons["binderhub_url"].rstrip("/") + "/v2/")]
    colab = [h for h in links if h.startswith(buttons["colab_url"].rstrip("/") + "/github/")]
    assert binder, f"{stem}.html has no Binder link"
    assert colab, f"{stem}.html has no Colab link"
    for href in binder:
        parts = urlsplit(href)
        assert parts.path == f"/v2/gh/{slug}/{branch}", href
        urlpath = parse_qs(parts.query)["urlpath"][0]
        interface = "lab/tree" if buttons.get("notebook_interface") == "jupyterlab" else "tree"
        assert urlpath == f"{interface}/{path}", href
    plain = "/".join(p for p in (repo.get("path_to_book", "").strip("/"), "book", "plain",
                                   stem.removeprefix("book/") + ".ipynb") if p)
    for href in colab:
        # Colab renders no MyST: its button opens the plain edition (publish/extensions/colab_plain.py)
        assert urlsplit(href).path == f"/github/{slug}/blob/{branch}/{plain}", href
        assert (ROOT / plain).is_file(), f"the Colab link opens {plain}, which does not exist"
    assert (ROOT / path).is_file(), f"the launch links open {path}, which does not exist"
    committed = _committed()
    if committed is not None:
        assert path in committed, f"the launch links open {path}, which is not committed"
    assert repo["url"] in links, f"{stem}.html has no link to the repository {repo['url']}"
    downloads = [h for h in links if h.endswith(".ipynb") and "_sources/" in h]
    assert downloads, f"{stem}.html has no download link for the notebook"
    page_dir = (HTML / stem).parent
    for href in downloads:
        assert (page_dir / href).resolve().is_file(), f"{stem}.html: download link {href} is broken"
