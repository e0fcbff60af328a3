"""Execute chapters top to bottom and store what a reader sees: the code cells' outputs and
the values of the ``{eval}`` roles of the markdown cells.

    python -m publish execute book/two_steps.ipynb [book/one_step.ipynb ...]

This replaces ``jupyter execute --inplace``. It runs the notebook the way JupyterLab with the
MyST extension (``jupyterlab-myst``) runs it: every code cell in order, and after the code
above it, each markdown cell's ``{eval}`` expressions through the kernel's
``user_expressions`` (the same request JupyterLab sends). The results are stored in the
markdown cell's metadata under ``user_expressions``, in jupyterlab-myst's own format, so that

* JupyterLab shows the numbers as soon as the chapter is opened, before it is run;
* the plain edition (publish/plain_edition.py) prints them where MyST is not available;
* ``tests/test_book.py`` compares them with what the book's build evaluates, as it compares
  the code outputs (the build evaluates the same roles with MyST-NB's inline mode).

A figure's caption lives in the metadata of the code cell that draws it (``mystnb.figure``);
its ``{eval}`` values are stored in that code cell's metadata, in the same format.

The notebook's metadata is stored as JupyterLab writes it when it opens the chapter: the
kernelspec of publish/plain_edition.py (``KERNELSPEC``) and the kernel's own
``language_info``, so that opening the chapter does not mark it modified.

A cell's printing is stored as printed, its consecutive stream outputs joined as the book's
build joins them (``joined`` of publish/extensions/merge_streams.py) and as JupyterLab's
output area does: how a cell's printing was split into messages depends on timing, and the
stored chapter must not.

Then it writes the plain edition (``book/plain/``, publish/plain_edition.py) from the
chapters as they now are, so that a chapter's edit is: edit, execute, test.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from publish import plain_edition
from publish.extensions.merge_streams import joined
from publish.plain_edition import KERNELSPEC
from publish.sources import EVAL_ROLE, ROOT

TIMEOUT = 300   # seconds per cell, as the build's execute.timeout


def expressions(source: str) -> list[str]:
    """The ``{eval}`` expressions of a markdown cell, in order, each once."""
    return list(dict.fromkeys(EVAL_ROLE.findall(source)))


def prose(cell) -> str:
    """The text of a cell that the book renders as MyST: a markdown cell's source, or the
    caption of the figure a code cell draws (``mystnb.figure.caption`` in its metadata,
    rendered after the cell has run; its values are stored in the code cell's metadata)."""
    if cell.cell_type == "markdown":
        return cell.source
    return str(cell.metadata.get("mystnb", {}).get("figure", {}).get("caption", ""))


def _evaluate(client: NotebookClient, exprs: list[str]) -> list[dict]:
    """Evaluate ``exprs`` in the running kernel as jupyterlab-myst does (an empty execute
    request carrying ``user_expressions``); raise on any error."""
    msg_id = client.kc.execute("", silent=False, store_history=False,
                               user_expressions={str(i): e for i, e in enumerate(exprs)})
    reply = client.wait_for_reply(msg_id)
    results = reply["content"]["user_expressions"]
    out = []
    for i, expr in enumerate(exprs):
        result = results[str(i)]
        if result.get("status") != "ok":
            raise RuntimeError(f"{{eval}}`{expr}` failed: {result.get('ename')}: "
                               f"{result.get('evalue')}")
        out.append({"expression": expr,
                    "result": {"status": "ok", "data": dict(result.get("data", {})),
                               "metadata": dict(result.get("metadata", {}))}})
    return out


def execute(path: Path) -> nbformat.NotebookNode:
    """Run the notebook at ``path`` in a fresh kernel (working directory: its folder) and
    return it with outputs, execution counts and stored expressions."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=TIMEOUT, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}})
    # CurveZMQ keys for the kernel, as the book's build does
    # (publish/extensions/kernel_encryption.py):
    # without them ipykernel warns that it runs over TCP without encryption
    client.create_kernel_manager().transport_encryption = "auto"
    with client.setup_kernel():
        # what JupyterLab writes on opening the chapter: its kernelspec, the kernel's language
        info = client.wait_for_reply(client.kc.kernel_info())
        nb.metadata["kernelspec"] = dict(KERNELSPEC)
        nb.metadata["language_info"] = info["content"]["language_info"]
        count = 0
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                count += 1
                client.execute_cell(cell, index, execution_count=count)
                cell.outputs = joined(cell.outputs)
            if cell.cell_type in ("code", "markdown"):
                exprs = expressions(prose(cell))
                if exprs:
                    cell.metadata["user_expressions"] = _evaluate(client, exprs)
                else:
                    cell.metadata.pop("user_expressions", None)
    return nb


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m publish execute",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for path in args.notebooks:
        nb = execute(path)
        nbformat.write(nb, path)
        n = sum(len(c.metadata.get("user_expressions", [])) for c in nb.cells)
        print(f"{path}: executed, {n} expressions stored")
    if any(path.resolve().is_relative_to(ROOT / "book") for path in args.notebooks):
        written = plain_edition.write()
        print(f"the plain edition: {len(written)} files in "
              f"{plain_edition.OUT.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
