"""Benchmarks of the companion (issue 30, "A house to live in"). Not part of the test suite.

    python benchmarks/run.py                  # every part
    python benchmarks/run.py --only cli,store # some parts; the others' results are kept
    python benchmarks/run.py --quick          # a smoke run of the same code, small sizes
    python benchmarks/run.py --write-tables   # benchmarks/README.md's and book/instructors.md's tables
    python -m pyperf stats benchmarks/results.pyperf.json   # pyperf's view of every series

Every goal is a ratio against a baseline timed in the same run, on the same machine:

* ``chapters``: each chapter's Run all (``book/*.ipynb``, a fresh kernel through nbclient, one
  BLAS thread: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1``) against the expert script
  (PyTorch autograd for the two steps, ``scipy.sparse.linalg.svds`` for the top 8 singular
  values of W0, W1 and W2 at N = 2048) as a process with the same environment; goal: each
  chapter at most 3 times the script. Measured with OpenBLAS's own choice of kernels and
  again with ``OPENBLAS_CORETYPE=Haswell`` (an AVX2-only machine's kernels).
* ``cli``: ``python -m companion simulate --N 2048 --target he1+he3 --json`` as a whole
  process against the expert script as a whole process; goal at most 0.7.
* ``store``: every stored experiment loaded (``companion.core.store.load``) in a fresh
  process; goal under 0.5 s for all of them.
* ``floor`` (information): the two-step update against the four N x n x d products it cannot
  avoid.
* ``topk`` (information): the top 8 singular triplets (``companion.top_singular``: ARPACK)
  against LAPACK's full SVD (``scipy.linalg.svd``, gesdd) of the same matrix.
* ``memory``: a full reused run (two steps, top-16 triplets, alignments) in a fresh
  process against ``companion.core.network.estimate_run_bytes``, which counts the run's
  arrays: the peak of the arrays it allocates (``tracemalloc``, which NumPy reports its
  buffers to; goal: within the estimate) and, for information, its peak resident memory less
  the memory of its imports, which also holds what the libraries first touch during the run
  (OpenBLAS's work buffers, code pages).

Why pyperf's Runner does not run the timings. pyperf (``pyperf.Runner.bench_func``,
``bench_command``) runs a benchmark as a series of worker processes and finishes all of them
before the next benchmark starts: the baseline's values and the candidate's are taken at
different times, never interleaved, and ``pyperf compare_to`` compares the two samples'
means (a t-test of unpaired samples). On a 2-core machine shared with other work the load
changes within minutes, so a busy phase hits one side only and moves the ratio by tens of
percent; what holds still is the ratio of two timings taken back to back. pyperf has no
option to alternate two benchmarks. Its defaults (20 worker processes, each a warm-up and 3
values; ``--fast`` 10 processes of 1 + 2) would also take hours for a chapter's Run all, and a
process may hold only one Runner, which takes over the command line. So the timings here are
a small hand-written interleaving (``paired``: every repetition runs the candidate and its
baseline back to back, in alternating order), the ratio reported is the median of the
per-pair ratios (with the ratio of the medians beside it), and pyperf keeps the data:
every series is written as a ``pyperf.Benchmark`` to ``benchmarks/results.pyperf.json``
with pyperf's metadata of the machine, so that ``python -m pyperf stats``, ``hist``,
``dump`` and ``compare_to`` (between two runs of this script, e.g. two machines) read it.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import companion as cp  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results.json"
PARTS = ("chapters", "cli", "store", "floor", "topk", "memory")
#: the goals, as the largest ratio (or seconds, for the store) that meets them
GOALS = {"chapters": 3.0, "cli": 0.7, "store_s": 0.5}
ONE_THREAD = {v: "1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
#: OPENBLAS_CORETYPE values measured for the chapters (None: OpenBLAS's own choice)
CORETYPES = (None, "Haswell")


# -- the interleaving ---------------------------------------------------------------------------
def paired(fns: dict, repeats: int) -> dict[str, list[float]]:
    """{name: seconds of each repetition}. Each function returns the seconds it measured. Every
    repetition runs all of them back to back, in reversed order every other time, so that a
    busy phase of a shared machine hits the candidate and its baseline alike."""
    times = {name: [] for name in fns}
    names = list(fns)
    for rep in range(repeats):
        for name in (names if rep % 2 == 0 else names[::-1]):
            times[name].append(fns[name]())
    return times


def compare(candidate: list[float], baseline: list[float]) -> dict:
    """The candidate against its baseline: medians, the median of the per-pair ratios and the
    ratio of the medians."""
    c, b = statistics.median(candidate), statistics.median(baseline)
    return {"candidate_s": c, "baseline_s": b, "ratio_of_medians": c / b,
            "paired_ratio": statistics.median(x / y for x, y in zip(candidate, baseline)),
            "pairs": len(candidate), "candidate_times": candidate, "baseline_times": baseline}


def timed(fn):
    def run():
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0
    return run


def process(args, env=None):
    """A function that runs ``args`` as a process and returns its wall time."""
    full_env = {**os.environ, **(env or {})}

    def run():
        t0 = time.perf_counter()
        subprocess.run(args, capture_output=True, text=True, cwd=ROOT, check=True, env=full_env)
        return time.perf_counter() - t0
    return run


def machine() -> dict:
    from threadpoolctl import threadpool_info

    cpu, flags = platform.processor(), None
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
            elif line.startswith("flags") and flags is None:
                flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    # whether the CPU has AVX-512: OpenBLAS may still pick its Haswell (AVX2) kernels on it
    # (it does on the AMD EPYC of 2026-12-05), so the kernels are recorded apart ("blas")
    info = {"cpu": cpu, "avx512": None if flags is None else "avx512f" in flags,
            "cores": os.cpu_count(), "python": platform.python_version(),
            "numpy": np.__version__,
            "blas": [{k: p.get(k) for k in ("internal_api", "version", "architecture",
                                             "num_threads")} for p in threadpool_info()]}
    for name in ("scipy", "torch", "pyperf"):
        try:
            info[name] = __import__(name).__version__
        except ImportError:
            info[name] = None
    try:
        info["load_average_at_start"] = os.getloadavg()
    except OSError:
        pass
    return info


# -- the expert script ----------------------------------------------------------------------------
# PyTorch autograd for two steps of gradient descent on the correlation loss (Gaussian inputs,
# he1 + he3 on two orthonormal directions, W0 with entries N(0, 1/d), a with entries N(0, 1/N),
# eta_t = N^alpha_t), then ARPACK (scipy.sparse.linalg.svds, default tolerance) for the top 8
# singular values of W0, W1 and W2, with W2's right singular vectors for the alignments: the
# command line's output, as an expert would write it. `python -c EXPERT_SCRIPT N`.
EXPERT_SCRIPT = r'''
import json, math, sys, time
import numpy as np
import torch
from scipy.sparse.linalg import svds

def two_steps(N, seed=0):
    dt = torch.float64
    g = torch.Generator().manual_seed(seed)
    beta = torch.linalg.qr(torch.randn(N, 2, generator=g, dtype=dt))[0].T
    W0 = torch.randn(N, N, generator=g, dtype=dt) / math.sqrt(N)
    a = torch.randn(N, generator=g, dtype=dt) / math.sqrt(N)
    X = torch.randn(N, N, generator=g, dtype=dt)
    z = X @ beta.T
    y = z[:, 0] + (z[:, 1] ** 3 - 3 * z[:, 1]) / math.sqrt(6)
    Ws = [W0]
    for eta in (N ** 0.35, N ** 0.45):
        W = Ws[-1].clone().requires_grad_(True)
        loss = -(y * (torch.tanh(X @ W.T) @ a)).mean()     # correlation loss
        loss.backward()
        with torch.no_grad():
            Ws.append(W - eta * W.grad)
    return Ws, beta

def job(N, seed=0):
    t0 = time.perf_counter()
    Ws, beta = two_steps(N, seed)
    out = {"singular_values": {}}
    for name, W in zip(("W0", "W1", "W2"), Ws):
        W = W.detach().numpy()
        if name == "W2":
            _, s, Vh = svds(W, k=8)
            order = np.argsort(s)[::-1]
            s, Vh = s[order], Vh[order]
            B = beta.numpy()
            out["alignment"] = {"top_vector_cos2": ((Vh[0] @ B.T) ** 2).tolist(),
                                "top4_projection": ((Vh[:4] @ B.T) ** 2).sum(0).tolist()}
        else:
            s = np.sort(svds(W, k=8, return_singular_vectors=False))[::-1]
        out["singular_values"][name] = s.tolist()
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out

if __name__ == "__main__":
    print(json.dumps(job(int(sys.argv[1]))))
'''


def expert(N: int, env=None):
    return process([sys.executable, "-c", EXPERT_SCRIPT, str(N)], env)


# -- chapters against the expert script -----------------------------------------------------------
# One chapter's Run all in a fresh kernel (started by nbclient, with the CurveZMQ keys the
# book's build gives it, publish/execute_chapter.py), timed from the kernel's start to the last
# cell; the kernel inherits the process's environment (the BLAS threads, OPENBLAS_CORETYPE).
CHAPTER_SCRIPT = r'''
import json, sys, time
from pathlib import Path
import nbformat
from nbclient import NotebookClient
path = Path(sys.argv[1])
nb = nbformat.read(path, as_version=4)
client = NotebookClient(nb, timeout=900, kernel_name="python3",
                        resources={"metadata": {"path": str(path.parent)}})
client.create_kernel_manager().transport_encryption = "auto"
t0 = time.perf_counter()
client.execute()
print(json.dumps({"seconds": time.perf_counter() - t0}))
'''

BLAS_SCRIPT = ("import json, numpy, threadpoolctl; print(json.dumps([(p['internal_api'], "
               "p.get('architecture')) for p in threadpoolctl.threadpool_info()]))")


def chapter(path: Path, env):
    full_env = {**os.environ, **env}

    def run():
        res = subprocess.run([sys.executable, "-c", CHAPTER_SCRIPT, str(path)],
                             capture_output=True, text=True, cwd=ROOT, check=True, env=full_env)
        return json.loads(res.stdout.strip().splitlines()[-1])["seconds"]
    return run


def bench_chapters(N: int, repeats: int, coretypes, only=None, save=None) -> dict:
    """``save(partial)`` is called after each core type (the chapters take long)."""
    paths = [p for p in sorted((ROOT / "book").glob("*.ipynb")) if not only or p.stem in only]
    out = {"N": N, "environment": dict(ONE_THREAD), "runs": {}}
    for coretype in coretypes:
        env = dict(ONE_THREAD, **({"OPENBLAS_CORETYPE": coretype} if coretype else {}))
        blas = subprocess.run([sys.executable, "-c", BLAS_SCRIPT], capture_output=True,
                              text=True, check=True, env={**os.environ, **env}).stdout
        base = expert(N, env)
        base()                                    # warm-up: the file cache, the imports
        rows = {}
        for path in paths:
            t = paired({"chapter": chapter(path, env), "expert": base}, repeats)
            # each row dated: with --chapters, rows of several days share a table
            rows[path.stem] = {**compare(t["chapter"], t["expert"]),
                               "date": time.strftime("%Y-%m-%d")}
            r = rows[path.stem]
            print(f"   {coretype or 'default'} {path.stem}: {r['candidate_s']:.1f} s against "
                  f"{r['baseline_s']:.1f} s, paired ratio {r['paired_ratio']:.2f}", flush=True)
        out["runs"][coretype or "default"] = {"coretype": coretype, "blas": json.loads(blas),
                                              "chapters": rows}
        if save:
            save(out)
    return out


# -- the command line against the expert script ---------------------------------------------------
def bench_cli(N: int, repeats: int) -> dict:
    """With the machine's BLAS threads (the goal) and again with one BLAS thread on both
    sides (``one_thread``: less at the mercy of other work on a shared machine, where
    threads that wait for each other lose most)."""
    # The package byte-compiled first, as an installed one is (pip compiles it): otherwise
    # each process would compile the companion's modules while PyTorch's and SciPy's come
    # compiled.
    compileall.compile_dir(str(ROOT / "companion"), quiet=1, legacy=False)
    args = [sys.executable, "-m", "companion", "simulate", "--N", str(N), "--target",
            "he1+he3", "--json"]
    out = {"N": N}
    for label, env in (("threads", None), ("one_thread", ONE_THREAD)):
        cli, base = process(args, env), expert(N, env)
        cli(), base()                              # warm-up
        t = paired({"cli": cli, "expert": base}, repeats)
        r = compare(t["cli"], t["expert"])
        if label == "threads":
            out.update(r)
        else:
            out[label] = r
    return out


# -- the stored paper-scale runs ------------------------------------------------------------------
# In a fresh process (the package imported first, outside the timing): load the experiments
# named on the command line, one after the other, and print the seconds of each and of all.
STORE_SCRIPT = r'''
import json, sys, time
from companion.core import store
times = {}
t0 = time.perf_counter()
for eid in sys.argv[1:]:
    t = time.perf_counter()
    assert store.load(eid) is not None, eid
    times[eid] = time.perf_counter() - t
times["all"] = time.perf_counter() - t0
print(json.dumps(times))
'''


def bench_store(repeats: int) -> dict:
    """Seconds to load every stored run in one fresh process (medians over ``repeats``
    processes). The files may be in the operating system's page cache (nothing flushes it)."""
    from companion.core import store
    from companion.reproduce import EXPERIMENT_IDS

    def run():
        res = subprocess.run([sys.executable, "-c", STORE_SCRIPT, *EXPERIMENT_IDS],
                             capture_output=True, text=True, cwd=ROOT, check=True)
        return json.loads(res.stdout)

    together = [run() for _ in range(repeats)]
    return {"all_s": statistics.median(t["all"] for t in together),
            "all_times": [t["all"] for t in together],
            "each_s": {eid: statistics.median(t[eid] for t in together)
                       for eid in EXPERIMENT_IDS},
            "bytes": sum((store.data_dir() / f"{eid}.npz").stat().st_size
                         for eid in EXPERIMENT_IDS if store.data_dir() is not None)}


# -- the update against its four products ---------------------------------------------------------
def problem(N: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    W0, a = cp.init_network(N, N, rng)
    target = cp.make_target("he1+he3", N, rng)
    X, y = target.sample(N, rng)
    return W0, a, X, y


def four_products(W0, X):
    """The floor: the four N x n x d products of two gradients (buffers allocated once)."""
    P = np.empty((W0.shape[0], X.shape[0]))
    G = np.empty_like(W0)

    def run():
        for _ in range(2):
            np.matmul(W0, X.T, out=P)
            np.matmul(P, X, out=G)
    return run


def bench_floor(N: int, repeats: int) -> dict:
    W0, a, X, y = problem(N)
    update = timed(lambda: cp.two_step_update(W0, a, X, y, N ** 0.35, N ** 0.45))
    floor = timed(four_products(W0, X))
    update(), floor()                              # warm-up
    t = paired({"update": update, "floor": floor}, repeats)
    return {"N": N, **compare(t["update"], t["floor"])}


# -- the top-k against LAPACK's full SVD ----------------------------------------------------------
def bench_topk(N: int, k: int, repeats: int) -> dict:
    import scipy.linalg

    run = cp.run_two_steps(N=N, alpha1=0.35, alpha2=0.45, batch="reused", target="he1+he3",
                           seed=0)
    out = {"N": N, "k": k, "matrices": {}}
    for name, W in (("W0", run.W0), ("W2", run.W2)):
        topk = timed(lambda: cp.top_singular(W, k))
        lapack = timed(lambda: scipy.linalg.svd(W, full_matrices=False))
        topk(), lapack()                           # warm-up
        t = paired({"topk": topk, "lapack": lapack}, repeats)
        s_ref = scipy.linalg.svdvals(W)[:k]
        s = cp.top_singular(W, k)[1]
        out["matrices"][name] = {**compare(t["topk"], t["lapack"]),
                                 "max_rel_error": float(np.max(np.abs(s - s_ref) / s_ref))}
    return out


# -- peak memory of a large run -------------------------------------------------------------------
MEMORY_SCRIPT = r"""
import json, sys, time, tracemalloc
import numpy as np
import companion as cp
from companion.core.network import estimate_run_bytes
N, dtype = int(sys.argv[1]), sys.argv[2]
def hwm():     # VmHWM: this process's peak since its exec (ru_maxrss keeps the parent's)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
base = hwm()                                       # the imports' memory
tracemalloc.start()                                # NumPy reports its buffers to it
t0 = time.perf_counter()
run = cp.run_two_steps(N=N, alpha1=0.35, alpha2=0.45, batch="reused", target="he1+he3",
                       seed=0, dtype=dtype)
t_steps = time.perf_counter() - t0
U, s, Vt = cp.top_singular(run.W2, 16)
cos2 = cp.cos2_with_directions(Vt, run.target.directions)
proj = cp.subspace_projection(Vt[:4], run.target.directions)
total = time.perf_counter() - t0
peak = hwm()
traced = tracemalloc.get_traced_memory()[1]
print(json.dumps({"N": N, "dtype": dtype, "steps_s": t_steps, "total_s": total,
                  "peak_rss_bytes": peak, "rss_after_imports_bytes": base,
                  "traced_peak_bytes": traced,
                  "estimate_bytes": estimate_run_bytes(N, N, N, "reused",
                                                       np.dtype(dtype).itemsize, top_k=16),
                  "top4_projection": [float(v) for v in proj]}))
"""


def bench_memory(N: int, dtype: str) -> dict:
    res = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, str(N), dtype],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    r = json.loads(res.stdout)
    # the estimate counts the run's arrays: compared with what the run adds to the imports'
    r["peak_over_estimate"] = ((r["peak_rss_bytes"] - r["rss_after_imports_bytes"])
                               / r["estimate_bytes"])
    r["arrays_over_estimate"] = r["traced_peak_bytes"] / r["estimate_bytes"]
    return r


# -- pyperf's file ----------------------------------------------------------------------------
def series(results: dict) -> dict[str, list[float]]:
    """Every timed series of ``results``: name -> seconds."""
    out = {}
    for key, run in results.get("chapters", {}).get("runs", {}).items():
        for stem, r in run["chapters"].items():
            out[f"chapters/{key}/{stem}"] = r["candidate_times"]
            out[f"chapters/{key}/{stem}/expert"] = r["baseline_times"]
    pairs = (("cli", "simulate", "expert"), ("floor", "update", "four_products"))
    for part, cand, base in pairs:
        if part in results:
            out[f"{part}/{cand}"] = results[part]["candidate_times"]
            out[f"{part}/{base}"] = results[part]["baseline_times"]
    if "one_thread" in results.get("cli", {}):
        out["cli/one_thread/simulate"] = results["cli"]["one_thread"]["candidate_times"]
        out["cli/one_thread/expert"] = results["cli"]["one_thread"]["baseline_times"]
    for name, r in results.get("topk", {}).get("matrices", {}).items():
        out[f"topk/{name}/top_singular"] = r["candidate_times"]
        out[f"topk/{name}/lapack_svd"] = r["baseline_times"]
    if "store" in results:
        out["store/load_all"] = results["store"]["all_times"]
    return out


def write_pyperf(results: dict, path: Path) -> None:
    """Every series as a pyperf benchmark (one run of its values), each with pyperf's
    description of this machine (CPU, Python, platform; collected when the file is written)."""
    import pyperf

    probe = pyperf.Run([1.0], metadata={"name": "probe"}, collect_metadata=True)
    machine_keys = ("cpu_config", "cpu_count", "cpu_model_name", "perf_version", "platform",
                    "python_compiler", "python_implementation", "python_version", "timer")
    common = {k: v for k, v in probe.get_metadata().items() if k in machine_keys}
    benchmarks = [pyperf.Benchmark([pyperf.Run(values, collect_metadata=False,
                                               metadata={**common, "name": name,
                                                         "unit": "second"})])
                  for name, values in series(results).items()]
    if path.exists():
        path.unlink()
    if benchmarks:                                  # (pyperf's suite cannot be empty)
        pyperf.BenchmarkSuite(benchmarks).dump(str(path))


# -- the tables -------------------------------------------------------------------------------
CHAPTER_ORDER = ["intro", "one_step", "two_steps", "reuse_vs_fresh", "finite_size", "explorer"]


def _stems(rows) -> list[str]:
    return [k for k in CHAPTER_ORDER if k in rows] + [k for k in rows if k not in CHAPTER_ORDER]


def _ratio(r) -> str:
    return f"**{r['paired_ratio']:.2f}** ({r['ratio_of_medians']:.2f})"


def _met(value, goal) -> str:
    return "met" if value <= goal else "not met"


def _blas(m) -> str:
    return ", ".join(sorted({f"{b['internal_api']} {b['version']} ({b['architecture']}, "
                             f"{b['num_threads']} threads)" for b in m["blas"]}))


def markdown_table(results: dict) -> str:
    """benchmarks/README.md's tables, rendered from a results.json."""
    m = results["machine"]
    when = {}
    for part, info in results.get("measured", {}).items():
        load = info.get("load_average")
        when.setdefault((info["date"], None if load is None else round(load[0], 1)),
                        []).append(part)
    dated = "; ".join(f"{', '.join(sorted(p))} on {date}"
                      + (f" (load average {load} at the start)" if load is not None else "")
                      for (date, load), p in sorted(when.items()))
    avx = {True: " with AVX-512", False: " without AVX-512"}.get(m.get("avx512"), "")
    text = (f"Measured on {m['cpu']}{avx}, {m['cores']} cores: {dated}. Python {m['python']}, "
            f"NumPy {m['numpy']}, SciPy {m['scipy']}, {_blas(m)}, PyTorch {m['torch']}. "
            f"A ratio is the median of the ratios of back-to-back pairs (in brackets the "
            f"ratio of the medians); times are medians.\n\n")
    c = results.get("chapters")
    if c:
        runs = c["runs"]
        keys = list(runs)
        head = "| chapter (one BLAS thread) |"
        rule = "| --- |"
        for key in keys:
            label = "OpenBLAS's kernels" if runs[key]["coretype"] is None else \
                f"`OPENBLAS_CORETYPE={runs[key]['coretype']}`"
            arch = ", ".join(sorted({a for api, a in runs[key]["blas"] if api == "openblas"}))
            head += f" {label} ({arch}): Run all / expert script | ratio |"
            rule += " ---: | ---: |"
        lines = [head + " goal |", rule + " --- |"]
        for stem in _stems(runs[keys[0]]["chapters"]):
            line = f"| {stem} |"
            worst = 0.0
            for key in keys:
                r = runs[key]["chapters"].get(stem)
                if r is None:
                    line += " - | - |"
                    continue
                worst = max(worst, r["paired_ratio"])
                line += f" {r['candidate_s']:.1f} s / {r['baseline_s']:.1f} s | {_ratio(r)} |"
            lines.append(line + f" <= {GOALS['chapters']:g}: {_met(worst, GOALS['chapters'])} |")
        counts = sorted({r["pairs"] for run in runs.values() for r in run["chapters"].values()})
        pairs = " or ".join(map(str, counts))          # rows of several runs may differ
        text += (f"Each chapter's Run all against the expert script at N = {c['N']} (PyTorch "
                 f"autograd two steps, `scipy.sparse.linalg.svds` top-8 of W0, W1, W2), both "
                 f"as processes with one BLAS thread, {pairs} pairs each:\n\n"
                 + "\n".join(lines) + "\n\n")
    rows = ["| measurement | companion | baseline | ratio | goal |",
            "| --- | ---: | ---: | ---: | --- |"]
    if "cli" in results:
        r = results["cli"]
        rows.append(f"| `python -m companion simulate --N {r['N']} --target he1+he3 --json`, "
                    f"whole process, {r['pairs']} pairs | {r['candidate_s']:.2f} s | expert "
                    f"script, whole process: {r['baseline_s']:.2f} s | {_ratio(r)} | "
                    f"<= {GOALS['cli']:g}: {_met(r['paired_ratio'], GOALS['cli'])} |")
        if "one_thread" in r:
            o = r["one_thread"]
            rows.append(f"| the same, both with one BLAS thread, {o['pairs']} pairs | "
                        f"{o['candidate_s']:.2f} s | {o['baseline_s']:.2f} s | {_ratio(o)} | "
                        f"information |")
    if "store" in results:
        r = results["store"]
        slowest = max(r["each_s"], key=r["each_s"].get)
        rows.append(f"| all {len(r['each_s'])} stored experiments loaded in a fresh process "
                    f"({r['bytes'] / 1e6:.1f} MB of npz; slowest {slowest} "
                    f"{r['each_s'][slowest]:.3f} s) | {r['all_s']:.3f} s | | | < "
                    f"{GOALS['store_s']:g} s: {_met(r['all_s'], GOALS['store_s'])} |")
    if "floor" in results:
        r = results["floor"]
        rows.append(f"| two-step update, N = d = n = {r['N']}, float64 | {r['candidate_s']:.2f} "
                    f"s | its four N x n x d products {r['baseline_s']:.2f} s | {_ratio(r)} | "
                    f"information |")
    for name, r in results.get("topk", {}).get("matrices", {}).items():
        t = results["topk"]
        rows.append(f"| top-{t['k']} singular triplets of {name} (N = {t['N']}; ARPACK, "
                    f"largest relative error of the values {r['max_rel_error']:.0e}) | "
                    f"{r['candidate_s'] * 1e3:.0f} ms | LAPACK's full SVD (`scipy.linalg.svd`) "
                    f"{r['baseline_s'] * 1e3:.0f} ms | {_ratio(r)} | information |")
    if "memory" in results:
        r = results["memory"]
        run = (f"full reused run, N = d = n = {r['N']}, {r['dtype']}: two steps, top-16, "
               f"alignments, fresh process ({r['total_s']:.0f} s)")
        estimate = f"`estimate_run_bytes` {r['estimate_bytes'] / 2**30:.2f} GiB"
        if "arrays_over_estimate" in r:
            rows.append(f"| {run}: peak of its arrays (`tracemalloc`) | "
                        f"{r['traced_peak_bytes'] / 2**30:.3f} GiB | {estimate} | "
                        f"{r['arrays_over_estimate']:.3f} | "
                        f"<= 1: {_met(r['arrays_over_estimate'], 1.0)} |")
        rows.append(f"| the same run's peak RSS less its imports' | "
                    f"{(r['peak_rss_bytes'] - r['rss_after_imports_bytes']) / 2**30:.2f} GiB "
                    f"(peak {r['peak_rss_bytes'] / 2**30:.2f} GiB, imports "
                    f"{r['rss_after_imports_bytes'] / 2**30:.2f} GiB) | {estimate} | "
                    f"{r['peak_over_estimate']:.2f} | information |")
    return text + "\n".join(rows) + "\n"


def chapter_times_table(results: dict) -> str:
    """The instructors' page's table of chapter times (book/instructors.md)."""
    m, c = results["machine"], results["chapters"]
    runs = c["runs"]
    keys = list(runs)
    labels = {k: ("1 BLAS thread" if runs[k]["coretype"] is None else
                  f"1 BLAS thread, {runs[k]['coretype']} kernels") for k in keys}
    rows = ["| chapter | " + " | ".join(labels[k] for k in keys) + " |",
            "| --- |" + " ---: |" * len(keys)]
    for stem in _stems(runs[keys[0]]["chapters"]):
        cells = [f"{runs[k]['chapters'][stem]['candidate_s']:.0f} s"
                 if stem in runs[k]["chapters"] else "-" for k in keys]
        rows.append(f"| {stem} | " + " | ".join(cells) + " |")
    totals = [sum(r["candidate_s"] for r in runs[k]["chapters"].values()) for k in keys]
    rows.append("| **all** | " + " | ".join(f"**{t:.0f} s**" for t in totals) + " |")
    date = results.get("measured", {}).get("chapters", {}).get("date", results["date"])
    note = (f"Measured {date} with `python benchmarks/run.py --only chapters` on {m['cpu']} "
            f"({m['cores']} cores{_load_text(results, 'chapters')}, Python {m['python']}); "
            f"medians of "
            f"{min(r['pairs'] for run in runs.values() for r in run['chapters'].values())} "
            f"runs, each including the kernel's start.")
    return note + "\n\n" + "\n".join(rows) + "\n"


def _load_text(results: dict, part: str) -> str:
    """", load average L at the start" of ``part``'s measurement, where it was recorded."""
    load = results.get("measured", {}).get(part, {}).get("load_average")
    return "" if load is None else f", load average {load[0]:.1f} at the start"


#: the places whose tables benchmarks/run.py --write-tables regenerates, between the markers
TABLES = {
    "benchmarks/README.md": ("<!-- benchmark table: start -->",
                             "<!-- benchmark table: end -->", "markdown_table"),
    "book/instructors.md": ("<!-- chapter times: start -->", "<!-- chapter times: end -->",
                            "chapter_times_table"),
}


def rendered_tables(results: dict) -> dict[str, str]:
    """path -> the file's text with its table regenerated from ``results``."""
    out = {}
    for rel, (start, end, render) in TABLES.items():
        text = (ROOT / rel).read_text()
        if start not in text or end not in text:
            raise SystemExit(f"{rel} has no markers {start} ... {end}")
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        out[rel] = f"{head}{start}\n{globals()[render](results)}{end}{tail}"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repetition")
    parser.add_argument("--only", default=",".join(PARTS),
                        help=f"comma-separated parts: {', '.join(PARTS)}")
    parser.add_argument("--repeats", type=int, default=None,
                        help="pairs per measurement (default 5; chapters 2)")
    parser.add_argument("--chapters", default=None,
                        help="comma-separated chapter stems (default: every chapter)")
    parser.add_argument("--coretypes", default="default,Haswell",
                        help="OPENBLAS_CORETYPE values for the chapters ('default': none)")
    parser.add_argument("--floor-N", type=int, default=4096)
    parser.add_argument("--memory-N", type=int, default=8192)
    parser.add_argument("--memory-dtype", default="float32")
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("--table", action="store_true",
                        help="print benchmarks/README.md's tables from --out and exit")
    parser.add_argument("--write-tables", action="store_true",
                        help="rewrite the tables of benchmarks/README.md and book/instructors.md from "
                             "--out and exit")
    args = parser.parse_args()
    out = Path(args.out)
    if args.table:
        print(markdown_table(json.loads(out.read_text())))
        return
    if args.write_tables:
        for rel, text in rendered_tables(json.loads(out.read_text())).items():
            (ROOT / rel).write_text(text)
            print(f"rewrote the table of {rel}")
        write_pyperf(json.loads(out.read_text()), out.with_suffix(".pyperf.json"))
        return
    q = args.quick
    reps = args.repeats or (1 if q else 5)
    parts = [{"book": "chapters"}.get(p, p) for p in args.only.split(",") if p]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")
    results = json.loads(out.read_text()) if out.exists() else {}
    if results.get("layout") != 2:                 # a results.json of the old harness
        results = {}
    results.update({"layout": 2, "machine": machine(), "date": time.strftime("%Y-%m-%d")})
    for part in parts:
        results.setdefault("measured", {})[part] = {
            "date": results["date"], "load_average": results["machine"].get("load_average_at_start")}
    print("machine:", json.dumps(results["machine"]), flush=True)

    if "chapters" in parts:
        print("chapters (one BLAS thread) against the expert script", flush=True)
        coretypes = [None if c == "default" else c for c in args.coretypes.split(",")]
        only = set(args.chapters.split(",")) if args.chapters else (
            {"intro", "explorer"} if q else None)
        kept = results.get("chapters", {}).get("runs", {})     # the runs measured before

        def merged(runs: dict) -> dict:
            """The new runs over the kept ones: with --chapters, a core type keeps the rows
            of the chapters not measured now."""
            out_runs = dict(kept)
            for key, run in runs.items():
                rows = {**kept[key]["chapters"], **run["chapters"]} if (
                    only and key in kept) else run["chapters"]
                out_runs[key] = {**run, "chapters": rows}
            return out_runs

        def save(partial):
            out.write_text(json.dumps({**results, "chapters": {**partial, "runs": merged(
                partial["runs"])}}, indent=2) + "\n")
        results["chapters"] = bench_chapters(512 if q else 2048, args.repeats or (1 if q else 2),
                                             coretypes, only, save)
        results["chapters"]["runs"] = merged(results["chapters"]["runs"])
    if "cli" in parts:
        r = results["cli"] = bench_cli(512 if q else 2048, reps)
        for label, c in (("threads", r), ("one thread", r["one_thread"])):
            print(f"cli ({label}): simulate {c['candidate_s']:.2f} s, expert "
                  f"{c['baseline_s']:.2f} s, paired ratio {c['paired_ratio']:.3f} (ratio of "
                  f"medians {c['ratio_of_medians']:.3f})", flush=True)
    if "store" in parts:
        r = results["store"] = bench_store(reps)
        print(f"store: all in one process {r['all_s']:.3f} s; "
              + ", ".join(f"{e} {v:.3f}" for e, v in r["each_s"].items()), flush=True)
    if "floor" in parts:
        r = results["floor"] = bench_floor(1024 if q else args.floor_N, reps)
        print(f"floor: update {r['candidate_s']:.2f} s, four products {r['baseline_s']:.2f} s, "
              f"paired ratio {r['paired_ratio']:.3f}", flush=True)
    if "topk" in parts:
        r = results["topk"] = bench_topk(512 if q else 2048, 8, reps)
        for name, m in r["matrices"].items():
            print(f"topk {name}: {m['candidate_s'] * 1e3:.0f} ms, LAPACK svd "
                  f"{m['baseline_s'] * 1e3:.0f} ms, paired ratio {m['paired_ratio']:.3f}, "
                  f"error {m['max_rel_error']:.1e}", flush=True)
    if "memory" in parts:
        r = results["memory"] = bench_memory(1024 if q else args.memory_N, args.memory_dtype)
        print(f"memory: N = {r['N']} {r['dtype']}: peak {r['peak_rss_bytes'] / 2**30:.2f} GiB "
              f"(imports {r['rss_after_imports_bytes'] / 2**30:.2f} GiB), "
              f"estimate {r['estimate_bytes'] / 2**30:.2f} GiB ({r['peak_over_estimate']:.2f}); "
              f"arrays {r['traced_peak_bytes'] / 2**30:.3f} GiB "
              f"({r['arrays_over_estimate']:.3f}); "
              f"{r['total_s']:.0f} s", flush=True)

    out.write_text(json.dumps(results, indent=2) + "\n")
    pyperf_path = out.with_suffix(".pyperf.json")
    write_pyperf(results, pyperf_path)
    print(f"\nwritten to {out} and {pyperf_path}")


if __name__ == "__main__":
    main()
