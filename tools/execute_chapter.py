"""Execute chapters top to bottom and store what a reader sees: the code cells' outputs and
the values of the ``{eval}`` roles of the markdown cells.

    python tools/execute_chapter.py book/two_steps.ipynb [book/one_step.ipynb ...]

This replaces ``jupyter execute --inplace``. It runs the notebook the way JupyterLab with the
MyST extension (``jupyterlab-myst``) runs it: every code cell in order, and after the code
above it, each markdown cell's ``{eval}`` expressions through the kernel's
``user_expressions`` (the same request JupyterLab sends). The results are stored in the
markdown cell's metadata under ``user_expressions``, in jupyterlab-myst's own format, so that

* JupyterLab shows the numbers as soon as the chapter is opened, before it is run;
* the plain edition (``tools/plain_edition.py``) prints them where MyST is not available;
* ``tests/test_book.py`` compares them with what the book's build evaluates, as it compares
  the code outputs (the build evaluates the same roles with MyST-NB's inline mode).

A figure's caption lives in the metadata of the code cell that draws it (``mystnb.figure``);
its ``{eval}`` values are stored in that code cell's metadata, in the same format.

The notebook's metadata is stored as JupyterLab writes it when it opens the chapter: the
kernelspec of ``tools/plain_edition.py`` (``KERNELSPEC``) and the kernel's own
``language_info``, so that opening the chapter does not mark it modified.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from plain_edition import KERNELSPEC  # noqa: E402

#: an ``{eval}`` role in markdown: {eval}`expression`
EVAL_ROLE = re.compile(r"\{eval\}`([^`]+)`")
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


def coalesced(outputs: list) -> list:
    """``outputs`` with each run of consecutive stream outputs of the same name (stdout,
    stderr) joined into one, as JupyterLab's output area joins them: how a cell's printing
    was split into messages depends on timing, and the stored chapter must not. The text is
    kept as printed, as the book's build joins it (``joined`` in book/_ext/merge_streams.py,
    which this tool cannot import: book/_ext is on the path only in the build;
    tests/test_merge_streams.py holds the two to the same result)."""
    out = []
    for output in outputs:
        if (output.output_type == "stream" and out and out[-1].output_type == "stream"
                and out[-1].name == output.name):
            out[-1].text += output.text
        else:
            out.append(output)
    return out


def execute(path: Path) -> nbformat.NotebookNode:
    """Run the notebook at ``path`` in a fresh kernel (working directory: its folder) and
    return it with outputs, execution counts and stored expressions."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=TIMEOUT, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}})
    # CurveZMQ keys for the kernel, as the book's build does (book/_ext/kernel_encryption.py):
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
                cell.outputs = coalesced(cell.outputs)
            if cell.cell_type in ("code", "markdown"):
                exprs = expressions(prose(cell))
                if exprs:
                    cell.metadata["user_expressions"] = _evaluate(client, exprs)
                else:
                    cell.metadata.pop("user_expressions", None)
    return nb


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for path in args.notebooks:
        nb = execute(path)
        nbformat.write(nb, path)
        n = sum(len(c.metadata.get("user_expressions", [])) for c in nb.cells)
        print(f"{path}: executed, {n} expressions stored")
    return 0


if __name__ == "__main__":
    sys.exit(main())
