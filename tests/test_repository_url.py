"""The repository's address is set in one place, ``_config.yml`` (``repository.url`` and
``repository.branch``), and every literal copy of it equals that source: the Colab cell of
every chapter, the README (clone instructions, Binder and Colab links), the intro's clone
instructions, pyproject's project URL. ``make repository-url`` rewrites the copies
(publish/repository_url.py, which also says what counts as a copy)."""

from __future__ import annotations

import shutil

import _play
from _play import ROOT

repository_url = _play.repository()


def test_every_copy_of_the_address_equals_the_source():
    copies = repository_url.scan(ROOT)
    bad = [f"{c.path}, {c.where} ({c.form}): {c.found}, expected {c.expected}"
           for c in copies if not c.ok]
    assert not bad, ("copies of the repository address differ from _config.yml; run "
                     "`make repository-url`:\n  " + "\n  ".join(bad))


def test_the_copies_are_where_readers_need_them():
    places = {c.path for c in repository_url.scan(ROOT)}
    needed = {"README.md", "pyproject.toml"} | {s + ".ipynb" for s in _play.chapters()}
    assert not needed - places, f"no copy of the address in {sorted(needed - places)}"


def test_rewriting_changes_every_copy_and_nothing_else(tmp_path):
    """On a copy of the checkout: change the source, rewrite, and find every copy changed,
    the notebooks otherwise byte for byte the same."""
    repo = _play.checkout_copy(tmp_path / "repo")
    src = repository_url.source(repo)
    config = repo / "_config.yml"
    config.write_text(config.read_text().replace(src.url, "https://github.com/someone/renamed")
                      .replace(f"branch: {src.branch}", "branch: dev"))
    before = {p: p.read_text() for p in repo.rglob("*.ipynb")}
    repository_url.scan(repo, write=True)
    copies = repository_url.scan(repo)
    assert copies and all(c.ok for c in copies)
    assert {c.found for c in copies if c.group.startswith("slug")} == {"someone/renamed"}
    for path, text in before.items():
        after = path.read_text()
        # the only differences are the address itself
        assert after.replace("someone/renamed", src.slug).replace("cd renamed", f"cd {src.name}") \
            .replace("/blob/dev/", f"/blob/{src.branch}/") == text, path
    shutil.rmtree(repo)


def test_readme_launch_links_open_existing_notebooks():
    import re
    text = (ROOT / "README.md").read_text()
    paths = re.findall(r"mybinder\.org/v2/gh/[^)\s]*?urlpath=(?:lab/tree|tree)/([^)\s&]+\.ipynb)", text)
    paths += re.findall(r"colab\.research\.google\.com/github/[^)\s]*?/blob/[^/]+/([^)\s]+\.ipynb)", text)
    assert paths, "README.md has no Binder or Colab link to a notebook"
    missing = [p for p in paths if not (ROOT / p).is_file()]
    assert not missing, f"README.md links to notebooks that do not exist: {missing}"
