"""``python -m companion reproduce`` (companion/reproduce/): the code fingerprint in the cache
key, every experiment end to end at tiny sizes (figure, tidy data, stored runs that redraw
the figure), and the command line's bad arguments."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion import __version__
from companion import reproduce as rp
from companion.core import store

from _helpers import command_line


def test_code_fingerprint_is_in_the_key(tmp_path, monkeypatch, tiny_sizes):
    # a change of the numerics' source (simulated) recomputes; an unchanged source does not
    fp = rp.code_fingerprint()
    assert len(fp) == 12 and fp == rp.code_fingerprint()
    rp.reproduce(["E10"], out=tmp_path, progress=False)
    import companion.core.sweep as sw
    calls = []
    real = sw._compute_unit
    monkeypatch.setattr(sw, "_compute_unit", lambda *a: calls.append(a) or real(*a))
    rp.reproduce(["E10"], out=tmp_path, progress=False)
    assert calls == []
    monkeypatch.setattr(rp, "experiment_fingerprint", lambda exp: "0" * 12)
    rp.reproduce(["E10"], out=tmp_path, progress=False)
    assert len(calls) == 1


def test_an_experiment_s_key_reads_the_core_and_its_own_chapter_only():
    """A long run of one chapter resumes while another chapter's units change."""
    from companion.reproduce.catalog import experiment_modules

    e14 = experiment_modules(rp.CATALOG["E14"].experiment)
    assert "core/network" in e14 and "chapters/learned_directions/transects" in e14
    assert not any(m.startswith(("chapters/two_steps", "chapters/one_step")) for m in e14)
    e3 = experiment_modules(rp.CATALOG["E3"].experiment)
    assert "chapters/two_steps/experiments" in e3
    assert "chapters/learned_directions/transects" not in e3
    assert (rp.experiment_fingerprint(rp.CATALOG["E3"].experiment)
            != rp.experiment_fingerprint(rp.CATALOG["E14"].experiment))


# -- every experiment end to end, at tiny sizes ---------------------------------------------
TINY = {"E1": dict(N=60, seeds=2), "E2": dict(Ns=[40, 80], seeds=2),
        "E3": dict(Ns=[40, 80], seeds=1), "E6": dict(N=60, seeds=2),
        "E7": dict(Ns=[40, 80], seeds=2), "E8": dict(N=60, seeds=2),
        "E9": dict(N=60, seeds=2), "E10": dict(N=60, seeds=1),
        "E11": dict(Ns=[40, 80], seeds=1), "E12": dict(Ns=[40, 80], seeds=1),
        "E13": dict(Ns=[40, 80], seeds=2, strengths=[0.5, 1.5, 3.0]),
        "E14": dict(Ns=[40], seeds=1), "E15": dict(Ns=[100], step=0.25),
        "E16": dict(Ns=[40], seeds=1), "E17": dict(Ns=[40], seeds=2)}


@pytest.fixture
def tiny_sizes(monkeypatch):
    """Every experiment's sizes replaced by tiny ones (the size tables of the experiment
    modules are patched in place; E5 shares E3's table, E4 gets E3's tiny sizes)."""
    for eid, entry in rp.CATALOG.items():
        tiny = TINY.get(eid, TINY["E3"])       # E4, E5: E3's tiny sizes
        for scale in ("small", "paper"):
            monkeypatch.setitem(entry.experiment.sizes, scale, tiny)


# every experiment end to end: about 18 s, out of the quick loop (make test-quick)
@pytest.mark.slow
def test_every_experiment_writes_figure_and_tidy_data(tmp_path, tiny_sizes):
    import io
    err = io.StringIO()
    written = rp.reproduce(scale="small", out=tmp_path, stream=err)
    assert list(written) == rp.EXPERIMENT_IDS
    for eid in rp.EXPERIMENT_IDS:
        for ext in ("png", "pdf", "csv", "json"):
            assert (tmp_path / f"{eid}.{ext}").stat().st_size > 0, (eid, ext)
        meta = json.loads((tmp_path / f"{eid}.json").read_text())
        assert meta["version"] == __version__ and meta["scale"] == "small"
        header = (tmp_path / f"{eid}.csv").read_text().splitlines()[0].split(",")
        assert "seed" in header and "N" in header
    e7 = (tmp_path / "E7.csv").read_text().splitlines()
    # one row per run and singular value (rank 1 to 4)
    assert len(e7) == 1 + 2 * 3 * 2 * 4 and "alpha1" in e7[0] and "rank" in e7[0]
    assert "all experiments" in err.getvalue()                  # the overall progress bar
    # shared namespaces: E4 and E5's reused runs are E3's; E8's He_3 and E9's tanh are E7's
    assert len(list((tmp_path / "cache" / "two_step_run").glob("*.npz"))) == 6 * 2 + 2 * 2
    e11 = json.loads((tmp_path / "E11.json").read_text())
    assert [p["alpha1"] for p in e11["headline"]["points"]] == [0.30, 0.38]
    header = (tmp_path / "E11.csv").read_text().splitlines()[0].split(",")
    for column in ("activation", "alpha1", "alpha2", "c1", "c2", "N", "seed", "n_outliers",
                   "n_spikes_theory", "strength_k0", "strength_k1", "strength_k2"):
        assert column in header, column
    # a rerun computes nothing
    calls = []
    import companion.core.sweep as sw
    real = sw._compute_unit
    sw._compute_unit = lambda *a: calls.append(a) or real(*a)
    try:
        rp.reproduce(["E7", "E10"], scale="small", out=tmp_path, progress=False)
    finally:
        sw._compute_unit = real
    assert calls == []
    # the stored runs redraw every figure without recomputing (the chapters' paper switch)
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure
    for eid in rp.EXPERIMENT_IDS:
        runs = store.load(eid, tmp_path)
        assert len(runs) == len(json.loads((tmp_path / f"{eid}.json").read_text())["parameters"])
        assert store.meta(eid, tmp_path) == {"experiment": eid, "version": __version__,
                                             "scale": "small"}
        fig = rp.CATALOG[eid].figure(runs)
        assert isinstance(fig, Figure) and fig.axes, eid
        plt.close(fig)
    first = store.load("E7", tmp_path)[0]
    assert {"N", "alpha1", "alpha2", "batch"} <= set(first.params) and first.seed == 0
    assert 0.0 <= float(first["projection"]) <= 1.0
    assert store.load("E7", tmp_path / "nowhere") is None


# -- the command line -----------------------------------------------------------------------
@pytest.mark.parametrize("args", [["--only", "E99"], ["--only", "E1,X"], ["--jobs", "0"],
                                  ["--jobs", "-3"], ["--jobs", "two"], ["--scale", "huge"],
                                  ["--out", "FILE/sub"]])
def test_bad_arguments_exit_2_with_one_line(tmp_path, capsys, args):
    blocker = tmp_path / "FILE"
    blocker.write_text("a file, not a directory")
    args = [a.replace("FILE", str(blocker)) for a in args]
    status, out, err = command_line(capsys, "reproduce", *args,
                                    *([] if "--out" in args else ["--out", tmp_path / "o"]))
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("companion: error:"), err
    assert out == ""
    assert not (tmp_path / "o" / "cache").exists()              # nothing was run


def test_cli_help_lists_reproduce():
    proc = subprocess.run([sys.executable, "-m", "companion", "reproduce", "--help"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    for opt in ("--scale", "--only", "--jobs", "--out", "--scheduler"):
        assert opt in proc.stdout


def test_store_cached_stores_only_sizes_whose_every_unit_is_cached(tmp_path, tiny_sizes):
    rp.reproduce(["E16"], out=tmp_path, progress=False)
    paths = rp.store_cached("E16", "small", tmp_path / "stored", tmp_path / "cache")
    meta = json.loads((tmp_path / "stored" / "E16.json").read_text())
    assert meta["stored"] == {"Ns": [40], "complete": True, "seeds_per_N": {"40": 1}}
    assert {p.suffix for p in paths} == {".png", ".pdf", ".csv", ".json", ".npz"}
    next((tmp_path / "cache" / "E16").glob("*.npz")).unlink()    # one unit of N = 40 lost
    with pytest.raises(ValueError, match="no size has every unit"):
        rp.store_cached("E16", "small", tmp_path / "again", tmp_path / "cache")


def test_e17_csv_names_its_quantities():
    """One row per run, batch, training size and weights, with the test error in a column
    named for it (not reused_n4_W2_parts_1)."""
    import csv

    from companion.core import store
    from companion.reproduce import tidy

    runs = store.load("E17")
    if runs is None:
        pytest.skip("no stored runs (COMPANION_PAPER_DATA=off)")
    rows = tidy.readout_rows(runs)
    assert len(rows) == len(runs) * 2 * 2 * 4
    path = Path(store.__file__).resolve().parents[1] / "data" / "paper" / "E17.csv"
    with open(path) as fh:
        stored = list(csv.DictReader(fh))
    assert len(stored) == len(rows)
    assert {"batch", "n_train_factor", "weights", "test_error", "test_error_he1"} <= set(stored[0])
    assert not any("_n1_" in c or "_parts" in c for c in stored[0])
    first = rows[0]
    assert float(stored[0]["test_error"]) == pytest.approx(first["test_error"], abs=1e-6)


@pytest.mark.parametrize("eid", sorted(rp.CATALOG, key=lambda e: int(e[1:])))
def test_every_stored_csv_is_long_and_names_its_quantities(eid):
    """Every stored table is tidy: no column numbered like ``s_0`` or ``terms_3`` (an entry
    of an array is a row, with its index as a column: ``k`` for a term, ``rank`` for a
    singular value), and the stored file holds what the catalog's rows function makes of
    the stored runs (issue 42)."""
    import csv
    import re

    runs = store.load(eid)
    if runs is None:
        pytest.skip("no stored runs (COMPANION_PAPER_DATA=off)")
    path = Path(store.__file__).resolve().parents[1] / "data" / "paper" / f"{eid}.csv"
    with open(path) as fh:
        stored = list(csv.DictReader(fh))
    numbered = [c for c in stored[0] if re.search(r"_\d+$", c)]
    assert not numbered, (eid, numbered)
    rows = rp.CATALOG[eid].rows(runs)
    assert len(stored) == len(rows)
    columns: list[str] = []
    for r in rows:
        columns += [k for k in r if k not in columns]
    assert list(stored[0]) == columns
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["rows"] == len(rows) and meta["columns"] == columns
