"""Benchmarks of the companion (issues: performance and scale; spectra). Not part of the test suite.

    python benchmarks/run.py            # everything, about 25 minutes on 2 cores
    python benchmarks/run.py --quick    # smaller sizes, a smoke run of the same code
    python benchmarks/run.py --table    # the README's table from benchmarks/results.json

Every figure is a median over repetitions that alternate between the companion and its
baseline (so that a busy phase of a shared machine hits both), reported with the ratio of the
medians and the median of the ratios of back-to-back repetitions:

1. the command line's job, ``python -m companion simulate --N 2048 --target he1+he3 --json``
   (data, two steps, the top 8 singular values of W0, W1 and W2, alignments), against a plain
   PyTorch script that produces the same numbers (autograd for the two steps,
   ``torch.linalg.svdvals`` of the three matrices; a second variant takes the alignments from
   ``torch.linalg.svd`` of W2), and against the script an expert would write (PyTorch for the
   two steps, ARPACK's ``scipy.sparse.linalg.svds`` for the three top-8), all as whole
   processes (start-up and imports included) and in-process, with a profile of each;
2. the top-k singular triplets against their own matrix products: how many products of the
   N x d matrix with a block the block Lanczos method used, the time of one such product, where
   the rest of its time goes (reorthogonalization, Cholesky QR, Rayleigh-Ritz), and against
   ARPACK (``svds``, at its default tolerance and at a looser one; both within the same bound
   on the relative error of the values against LAPACK) and PROPACK;
3. the floor: the two-step update against the four N x n x d products it cannot avoid;
4. scale: wall time and peak resident memory of a full N = d = n = 16384 reused run (two
   steps, top-16 singular triplets, alignments), float32 and float64, each in a fresh process,
   against the memory estimate checked before allocating;
5. the book: time to execute each chapter at its default sizes, with all cores and with one
   BLAS thread (as on Binder); the instructors' page shows both (``--write-tables``);
6. the time to install the package with its notebooks extra into a fresh environment.
7. the time to load the stored paper-scale runs (``companion.core.store.load``), all of them in
   one fresh process and each experiment alone in its own.

Results are printed and written to benchmarks/results.json with the machine's description (CPU,
cores, BLAS and its threads).
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
from companion.core import store  # noqa: E402
from companion.simulate import simulate  # noqa: E402


def median_time(fn, repeats: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def interleaved_times(fns: dict, repeats: int) -> dict:
    """{name: (median, times)}: each repetition runs every function once, in turn, so that a
    slow phase of a shared machine hits the baseline and the candidate alike."""
    times = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {name: (statistics.median(v), v) for name, v in times.items()}


def paired_ratio(candidate_times, baseline_times) -> float:
    """Median over repetitions of candidate / baseline timed back to back: less sensitive to a
    machine whose speed drifts during the run than the ratio of the two medians."""
    return statistics.median(c / b for c, b in zip(candidate_times, baseline_times))


def machine() -> dict:
    from threadpoolctl import threadpool_info

    cpu = platform.processor()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info = {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "numpy": np.__version__,
            "blas": [{k: p.get(k) for k in ("internal_api", "version", "architecture",
                                             "num_threads")} for p in threadpool_info()]}
    try:
        import scipy
        info["scipy"] = scipy.__version__
        import torch
        info["torch"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
    except ImportError:
        info["torch"] = None
    try:
        info["load_average_at_start"] = os.getloadavg()
    except OSError:
        pass
    return info


def problem(N: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    W0, a = cp.init_network(N, N, rng)
    target = cp.make_target("he1+he3", N, rng)
    X, y = target.sample(N, rng)
    return W0, a, X, y, target


def four_products(W0, X):
    """The floor: the four N x n x d products of two gradients (buffers allocated once)."""
    P = np.empty((W0.shape[0], X.shape[0]))
    G = np.empty_like(W0)

    def run():
        for _ in range(2):
            np.matmul(W0, X.T, out=P)
            np.matmul(P, X, out=G)
    return run


# -- 1. the command line's job against PyTorch -----------------------------------------------
# What both baseline scripts share: data (Gaussian inputs, he1 + he3 on two orthonormal
# directions, W0 with entries N(0, 1/d), a with entries N(0, 1/N)) and two steps of gradient
# descent on the correlation loss by autograd, eta_t = N^alpha_t. `two_steps(N, data, seed)`
# returns (Ws, beta) with Ws = [W0, W1, W2].
_TORCH_STEPS = r'''
import json, math, sys, time
import torch

def two_steps(N, data=None, seed=0):
    dt = torch.float64
    if data is None:
        g = torch.Generator().manual_seed(seed)
        beta = torch.linalg.qr(torch.randn(N, 2, generator=g, dtype=dt))[0].T
        W0 = torch.randn(N, N, generator=g, dtype=dt) / math.sqrt(N)
        a = torch.randn(N, generator=g, dtype=dt) / math.sqrt(N)
        X = torch.randn(N, N, generator=g, dtype=dt)
        z = X @ beta.T
        y = z[:, 0] + (z[:, 1] ** 3 - 3 * z[:, 1]) / math.sqrt(6)
    else:
        W0, a, X, y, beta = data
    Ws = [W0]
    for eta in (N ** 0.35, N ** 0.45):
        W = Ws[-1].clone().requires_grad_(True)
        loss = -(y * (torch.tanh(X @ W.T) @ a)).mean()     # correlation loss
        loss.backward()
        with torch.no_grad():
            Ws.append(W - eta * W.grad)
    return Ws, beta
'''

# A plain PyTorch script with the command line's output: the shared two steps, then the top 8
# singular values of W0, W1 and W2 from torch.linalg.svdvals, and (vectors=True) the
# alignments of the top right singular vectors of W2 from torch.linalg.svd. Run as
# `python -c TORCH_SCRIPT N [vectors]`, or through job(N, vectors) in-process.
TORCH_SCRIPT = _TORCH_STEPS + r'''
def job(N, vectors=False, data=None, seed=0):
    t0 = time.perf_counter()
    Ws, beta = two_steps(N, data, seed)
    out = {"singular_values": {}}
    for name, W in zip(("W0", "W1", "W2"), Ws):
        if name == "W2" and vectors:
            _, s, Vh = torch.linalg.svd(W, full_matrices=False)
            cos2 = (Vh[0] @ beta.T) ** 2
            proj = ((Vh[:4] @ beta.T) ** 2).sum(0)
            out["alignment"] = {"top_vector_cos2": cos2.tolist(), "top4_projection": proj.tolist()}
        else:
            s = torch.linalg.svdvals(W)
        out["singular_values"][name] = s[:8].tolist()
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out

if __name__ == "__main__":
    print(json.dumps(job(int(sys.argv[1]), len(sys.argv) > 2 and sys.argv[2] == "vectors")))
'''


# The script an expert would write for the same output: the shared two steps, then ARPACK
# (scipy.sparse.linalg.svds, default tolerance) for the top 8 singular values of W0, W1 and
# W2, with W2's right singular vectors for the alignments. `python -c EXPERT_SCRIPT N`, or
# job(N) in-process.
EXPERT_SCRIPT = _TORCH_STEPS + r'''
import numpy as np
from scipy.sparse.linalg import svds

def job(N, data=None, seed=0):
    t0 = time.perf_counter()
    Ws, beta = two_steps(N, data, seed)
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


def expert_top8x3(Ws):
    """The expert script's three top-8: ARPACK (svds) on W0 and W1 (values), W2 (triplets)."""
    from scipy.sparse.linalg import svds

    return [svds(W, k=8, return_singular_vectors=(i == 2)) for i, W in enumerate(Ws)]


def _torch_namespace(script: str) -> dict:
    namespace = {"__name__": "torch_job"}
    exec(compile(script, "torch_script", "exec"), namespace)
    return namespace


def torch_two_steps(N, data):
    """The two autograd steps of both baseline scripts alone, on given data: W2."""
    return _torch_namespace(_TORCH_STEPS)["two_steps"](N, data)[0][-1]


def _torch_job(script=None):
    return _torch_namespace(script or TORCH_SCRIPT)["job"]


def _process(args) -> float:
    t0 = time.perf_counter()
    subprocess.run(args, capture_output=True, text=True, cwd=ROOT, check=True)
    return time.perf_counter() - t0


def bench_cli_vs_torch(N: int, repeats: int) -> dict:
    import torch

    job = _torch_job()
    expert = _torch_job(EXPERT_SCRIPT)
    out = {"N": N}
    # whole processes: python start-up and imports included on both sides. The package is
    # byte-compiled first, as an installed one is (pip compiles it; a first import writes the
    # .pyc files unless PYTHONDONTWRITEBYTECODE is set, as it is on the project's machines):
    # otherwise each process would compile the companion's modules (20 to 40 ms measured here) while
    # PyTorch's and SciPy's come compiled.
    out["byte_compiled"] = compileall.compile_dir(str(ROOT / "companion"), quiet=1,
                                                  legacy=False)
    cmds = {"companion": [sys.executable, "-m", "companion", "simulate", "--N", str(N),
                          "--target", "he1+he3", "--json"],
            "torch": [sys.executable, "-c", TORCH_SCRIPT, str(N)],
            "torch_vectors": [sys.executable, "-c", TORCH_SCRIPT, str(N), "vectors"],
            "expert": [sys.executable, "-c", EXPERT_SCRIPT, str(N)]}
    for name, cmd in cmds.items():            # warm the file cache
        _process(cmd)
    times = {name: [] for name in cmds}
    for _ in range(repeats):
        for name, cmd in cmds.items():
            times[name].append(_process(cmd))
    out["process"] = {f"{name}_times": v for name, v in times.items()}
    out["process"].update({f"{name}_s": statistics.median(v) for name, v in times.items()})

    # in-process, with the parts of both jobs
    run = cp.run_two_steps(N=N, alpha1=0.35, alpha2=0.45, batch="reused", target="he1+he3",
                           seed=0)
    W0, a, X, y = run.W0, run.a, run.X1, run.y1
    data = tuple(torch.from_numpy(np.ascontiguousarray(v)) for v in
                 (W0, a, X, y, run.target.directions))
    Wt = [torch.from_numpy(W) for W in (run.W0, run.W1, run.W2)]
    fns = {
        "companion": lambda: simulate(N=N, target="he1+he3"),
        "torch": lambda: job(N),
        "torch_vectors": lambda: job(N, vectors=True),
        "expert": lambda: expert(N),
        # the parts
        "companion_run": lambda: cp.run_two_steps(N=N, alpha1=0.35, alpha2=0.45,
                                                  batch="reused", target="he1+he3", seed=0),
        "companion_update": lambda: cp.two_step_update(W0, a, X, y, N ** 0.35, N ** 0.45),
        "companion_top8x3": lambda: cp.top_singular_each((run.W0, run.W1, run.W2), 8),
        "companion_top8x3_serial": lambda: [cp.top_singular(W, 8)
                                            for W in (run.W0, run.W1, run.W2)],
        "torch_steps": lambda: torch_two_steps(N, data),
        "torch_svdvalsx3": lambda: [torch.linalg.svdvals(W) for W in Wt],
        "torch_svd_W2": lambda: torch.linalg.svd(Wt[2], full_matrices=False),
        "expert_svdsx3": lambda: expert_top8x3((run.W0, run.W1, run.W2)),
        "four_products": four_products(W0, X),
    }
    for name in ("companion", "torch", "torch_vectors", "expert"):
        fns[name]()                           # warm-up (threads, caches, torch's first call)
    for name, (med, ts) in interleaved_times(fns, repeats).items():
        out[f"{name}_s"], out[f"{name}_times"] = med, ts
    # the same output: PyTorch's steps on the companion's data give the same singular values
    ours = simulate(N=N, target="he1+he3")
    theirs = job(N, vectors=True, data=data)
    out["max_rel_diff_top8"] = max(
        float(np.max(np.abs(np.array(ours["singular_values"][w]) - theirs["singular_values"][w])
                     / np.array(ours["singular_values"][w]))) for w in ("W0", "W1", "W2"))
    out["max_abs_diff_alignment"] = max(
        float(np.max(np.abs(np.array(ours["alignment"][key]) - theirs["alignment"][key])))
        for key in ("top_vector_cos2", "top4_projection"))
    mine = expert(N, data=data)
    out["expert_max_rel_diff_top8"] = max(
        float(np.max(np.abs(np.array(ours["singular_values"][w]) - mine["singular_values"][w])
                     / np.array(ours["singular_values"][w]))) for w in ("W0", "W1", "W2"))
    out["expert_max_abs_diff_alignment"] = max(
        float(np.max(np.abs(np.array(ours["alignment"][key]) - mine["alignment"][key])))
        for key in ("top_vector_cos2", "top4_projection"))
    for where, d in (("process", out["process"]), ("inproc", out)):
        for base in ("torch", "torch_vectors", "expert"):
            d[f"ratio_vs_{base}"] = d["companion_s"] / d[f"{base}_s"]
            d[f"paired_ratio_vs_{base}"] = paired_ratio(d["companion_times"], d[f"{base}_times"])
    out["top8x3_ratio_vs_svds"] = out["companion_top8x3_s"] / out["expert_svdsx3_s"]
    out["top8x3_paired_ratio_vs_svds"] = paired_ratio(out["companion_top8x3_times"],
                                                      out["expert_svdsx3_times"])
    return out


# -- 2. the top-k against its own products ----------------------------------------------------
def _count_propack_matvecs(W, k) -> int:
    from scipy.sparse.linalg import LinearOperator

    count = [0]

    def mv(x):
        count[0] += 1 if x.ndim == 1 else x.shape[1]
        return W @ x

    def rmv(x):
        count[0] += 1 if x.ndim == 1 else x.shape[1]
        return W.T @ x

    op = LinearOperator(W.shape, matvec=mv, rmatvec=rmv, matmat=mv, rmatmat=rmv, dtype=W.dtype)
    from scipy.sparse.linalg import svds
    svds(op, k=k, solver="propack")
    return count[0]


def _propack(W, k):
    from scipy.sparse.linalg import svds
    return svds(W, k=k, solver="propack")


def _limited(fn, threads):
    """fn run with BLAS limited to ``threads`` (None: unchanged)."""
    from threadpoolctl import threadpool_limits

    def run():
        with threadpool_limits(limits=threads, user_api="blas"):
            return fn()
    return run


#: the accuracy at which the top-k is compared with ARPACK: the largest relative error of the
#: k values against LAPACK's svdvals, which both methods must meet
ACCURACY_BOUND = 1e-12
#: ARPACK's tolerance in the second comparison: the loosest power of ten at which svds still
#: met ACCURACY_BOUND on the benchmark's W0, W1, W2 at N = 2048 (measured: 1e-3 gave 2e-12)
SVDS_LOOSE_TOL = 1e-4


def _svds_values(W, k, tol=0.0):
    from scipy.sparse.linalg import svds

    return np.sort(svds(W, k=k, tol=tol, return_singular_vectors=False,
                        random_state=np.random.default_rng(0)))[::-1]


def bench_topk(N: int, repeats: int) -> list[dict]:
    import scipy.linalg

    run = cp.run_two_steps(N=N, alpha1=0.35, alpha2=0.45, batch="reused", target="he1+he3",
                           seed=0)
    rows = []
    for name, W, k in (("W0", run.W0, 8), ("W1", run.W1, 8), ("W2", run.W2, 8),
                       ("W2", run.W2, 16), ("W0", run.W0, 16)):
        infos = []
        x = np.random.default_rng(0).standard_normal(N)
        t = interleaved_times({
            # the method times its own products with W (both precisions) as it runs
            "topk": lambda: infos.append(cp.top_singular(W, k) and {}),
            "svds": lambda: _svds_values(W, k),
            "svds_loose": lambda: _svds_values(W, k, SVDS_LOOSE_TOL),
            "propack": lambda: _propack(W, k),
            "matvec_pair": lambda: W.T @ (W @ x),
        }, repeats)
        s_ref = scipy.linalg.svdvals(W)[:k]
        errors = {name: float(np.max(np.abs(s - s_ref) / s_ref)) for name, s in (
            ("topk", cp.top_singular(W, k)[1]), ("svds", _svds_values(W, k)),
            ("svds_loose", _svds_values(W, k, SVDS_LOOSE_TOL)))}
        info = infos[-1]
        row = {"matrix": name, "N": N, "k": k, "block": info.get("block", k),
               "solver": info["solver"],
               **{key: info.get(key) for key in ("products", "products_float32", "steps",
                                                  "checks", "basis")},
               "propack_matvecs": _count_propack_matvecs(W, k)}
        for key, (med, ts) in t.items():
            row[f"{key}_s"], row[f"{key}_times"] = med, ts
        inside = [i["product_seconds"] + i.get("product_seconds_float32", 0.0) for i in infos]
        whole = [i["seconds"] + i.get("seconds_float32", 0.0) for i in infos]
        row["products_s"] = statistics.median(inside)
        row["products_fraction"] = statistics.median(p / w for p, w in zip(inside, whole))
        row["product_s"] = statistics.median(i["product_seconds"] / i["products"]
                                             for i in infos)
        row["product_float32_s"] = (statistics.median(
            i["product_seconds_float32"] / i["products_float32"] for i in infos)
            if info.get("products_float32") else None)
        row["propack_matvecs_s"] = row["matvec_pair_s"] * row["propack_matvecs"] / 2
        row["paired_ratio_vs_propack"] = paired_ratio(row["topk_times"], row["propack_times"])
        for base in ("svds", "svds_loose"):
            row[f"paired_ratio_vs_{base}"] = paired_ratio(row["topk_times"], row[f"{base}_times"])
        row["max_rel_error"] = errors
        row["accuracy_bound"] = ACCURACY_BOUND
        row["svds_loose_tol"] = SVDS_LOOSE_TOL
        for key in ("seconds", "product_seconds", "reorth_seconds", "qr_seconds", "rr_seconds"):
            row[f"parts_{key}"] = statistics.median(
                i[key] + i.get("info32", {}).get(key, 0.0) for i in infos)
        rows.append(row)
    return rows


# -- 3. against the four unavoidable products -------------------------------------------------
def bench_vs_floor(N: int, repeats: int) -> dict:
    W0, a, X, y, _ = problem(N)
    eta1, eta2 = N ** 0.35, N ** 0.45

    def ours():
        cp.two_step_update(W0, a, X, y, eta1, eta2)

    t = interleaved_times({"floor": four_products(W0, X), "ours": ours}, repeats)
    (floor_s, floor_times), (ours_s, ours_times) = t["floor"], t["ours"]
    return {"N": N, "floor_s": floor_s, "floor_times": floor_times, "ours_s": ours_s,
            "ours_times": ours_times, "ratio": ours_s / floor_s,
            "paired_ratio": paired_ratio(ours_times, floor_times)}


# -- 4. scale ----------------------------------------------------------------------------------
SCALE_SCRIPT = r"""
import json, resource, sys, time
import numpy as np
import companion as cp
from companion.core.network import estimate_run_bytes
N, dtype = int(sys.argv[1]), sys.argv[2]
t0 = time.perf_counter()
run = cp.run_two_steps(N=N, alpha1=0.35, alpha2=0.45, batch="reused", target="he1+he3",
                       seed=0, dtype=dtype)
t_steps = time.perf_counter() - t0
rss_run = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
t1 = time.perf_counter()
U, s, Vt = cp.top_singular(run.W2, 16)
info = {}
t_top = time.perf_counter() - t1
cos2 = cp.cos2_with_directions(Vt, run.target.directions)
proj = cp.subspace_projection(Vt[:4], run.target.directions)
terms = cp.term_sizes(run.W2 - run.W0, run.a, 4)
total = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(json.dumps({"N": N, "dtype": dtype, "steps_s": t_steps, "top16_s": t_top,
                  "total_s": total, "peak_rss_gib": peak, "peak_rss_after_run_gib": rss_run,
                  "estimate_gib": estimate_run_bytes(N, N, N, "reused",
                                                     np.dtype(dtype).itemsize) / 2**30,
                  "top16_products": info.get("products"),
                  "top16_products_float32": info.get("products_float32"),
                  "top_singular_values": [float(v) for v in s],
                  "top4_projection": [float(v) for v in proj]}))
"""


def bench_scale(N: int, dtypes=("float32", "float64")) -> list[dict]:
    rows = []
    for dtype in dtypes:
        res = subprocess.run([sys.executable, "-c", SCALE_SCRIPT, str(N), dtype],
                             capture_output=True, text=True, cwd=ROOT, check=True)
        rows.append(json.loads(res.stdout))
    return rows


# -- 5. the book -------------------------------------------------------------------------------
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                    "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def bench_book(threads: int | None = None) -> dict:
    """Seconds to execute each notebook of the book (kernel start included), with all cores
    (``threads=None``) or with the BLAS limited to ``threads`` threads in the kernel (as on
    Binder, whose sessions get about one core)."""
    import nbformat
    from nbclient import NotebookClient

    saved = {v: os.environ.get(v) for v in THREAD_VARIABLES}
    if threads:
        os.environ.update({v: str(threads) for v in THREAD_VARIABLES})
    try:
        times = {}
        for nb_path in sorted((ROOT / "book").glob("*.ipynb")):
            nb = nbformat.read(nb_path, as_version=4)
            t0 = time.perf_counter()
            NotebookClient(nb, timeout=900, kernel_name="python3",
                           resources={"metadata": {"path": str(nb_path.parent)}}).execute()
            times[nb_path.stem] = time.perf_counter() - t0
    finally:
        for v, value in saved.items():
            if value is None:
                os.environ.pop(v, None)
            else:
                os.environ[v] = value
    times["total"] = sum(times.values())
    return times


def bench_install() -> dict:
    """Seconds to install the package with its notebooks extra into a fresh virtual
    environment from the package index (what a chapter's Colab cell does, there on top of
    Colab's preinstalled NumPy, SciPy and Matplotlib, so Colab's install is shorter)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        t0 = time.perf_counter()
        subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "--no-cache-dir",
                        f"{ROOT}[notebooks]"], check=True)
        return {"fresh_venv_notebooks_extra_s": time.perf_counter() - t0}


# -- 7. the stored paper-scale runs ---------------------------------------------------------
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
    """Seconds to load the stored runs (companion.core.store.load) in a fresh process: all of
    them in one process, and each experiment alone in its own; medians over ``repeats``
    processes. The files may be in the operating system's page cache (nothing flushes it)."""
    from companion.reproduce import EXPERIMENT_IDS

    def run(eids):
        res = subprocess.run([sys.executable, "-c", STORE_SCRIPT, *eids], capture_output=True,
                             text=True, cwd=ROOT, check=True)
        return json.loads(res.stdout)

    together = [run(EXPERIMENT_IDS) for _ in range(repeats)]
    alone = {eid: statistics.median(run([eid])[eid] for _ in range(repeats))
             for eid in EXPERIMENT_IDS}
    return {"all_in_one_process_s": statistics.median(t["all"] for t in together),
            "in_one_process_s": {eid: statistics.median(t[eid] for t in together)
                                 for eid in EXPERIMENT_IDS},
            "alone_s": alone, "slowest_alone": max(alone, key=alone.get),
            "bytes": {eid: (store.data_dir() / f"{eid}.npz").stat().st_size
                      for eid in EXPERIMENT_IDS if store.data_dir() is not None}}


def chapter_times_table(results: dict) -> str:
    """The instructors' page's table of chapter times (book/instructors.md), from a
    results.json with the parts ``book``, ``book_one_thread`` and ``install``."""
    two, one = results["book"], results.get("book_one_thread", {})
    m = results["machine"]
    rows = [f"| chapter | {m['cores']} cores | 1 BLAS thread |", "| --- | ---: | ---: |"]
    order = ["intro", "one_step", "two_steps", "reuse_vs_fresh", "finite_size", "explorer"]
    stems = [k for k in order if k in two] + [k for k in two if k not in order + ["total"]]
    for stem in stems:
        rows.append(f"| {stem} | {two[stem]:.0f} s | "
                    f"{f'{one[stem]:.0f} s' if stem in one else '-'} |")
    rows.append(f"| **all** | **{two['total']:.0f} s** | "
                f"**{one['total']:.0f} s** |" if one else f"| **all** | {two['total']:.0f} s | - |")
    install = results.get("install", {}).get("fresh_venv_notebooks_extra_s")
    date = results.get("measured", {}).get("book", {}).get("date", results["date"])
    note = (f"Measured {date} with `python benchmarks/run.py --only book,install` "
            f"on {m['cpu']} ({m['cores']} cores, Python {m['python']}); each time includes "
            f"starting the kernel.")
    if install is not None:
        when = results.get("measured", {}).get("install", {}).get("date", date)
        note += (f" Installing the package with its notebooks extra into a fresh environment "
                 f"from the package index took {install:.0f} s"
                 f"{'' if when == date else f' (measured {when})'}.")
    return note + "\n\n" + "\n".join(rows) + "\n"


#: the places whose tables benchmarks/run.py --write-tables regenerates, between the markers
TABLES = {
    "README.md": ("<!-- benchmark table: start -->", "<!-- benchmark table: end -->",
                  "markdown_table"),
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


def markdown_table(results: dict) -> str:
    """The README's performance table, rendered from a results.json."""
    m = results["machine"]
    blas = ", ".join(sorted({f"{b['internal_api']} {b['version']} ({b['architecture']}, "
                             f"{b['num_threads']} threads)" for b in m["blas"]}))
    rows = ["| measurement | companion | baseline | ratio (paired) | goal |",
            "| --- | --- | --- | --- | --- |"]
    if "cli" in results:
        c, p = results["cli"], results["cli"]["process"]
        rows += [
            f"| `simulate --N {c['N']}` (two steps, top-8 of W0, W1, W2, alignments), whole "
            f"processes | {p['companion_s']:.2f} s | PyTorch script (autograd, `svdvals` x 3) "
            f"{p['torch_s']:.2f} s | **{p['ratio_vs_torch']:.2f}** "
            f"({p['paired_ratio_vs_torch']:.2f}) | <= 0.25 |",
            f"| the same, in-process | {c['companion_s']:.2f} s | {c['torch_s']:.2f} s | "
            f"**{c['ratio_vs_torch']:.2f}** ({c['paired_ratio_vs_torch']:.2f}) | <= 0.25 |",
            f"| the same against PyTorch with the alignments (`svd` of W2), in-process | "
            f"{c['companion_s']:.2f} s | {c['torch_vectors_s']:.2f} s | "
            f"{c['ratio_vs_torch_vectors']:.2f} ({c['paired_ratio_vs_torch_vectors']:.2f}) | |",
            f"| of which: data and two steps | {c['companion_run_s']:.2f} s (the update alone "
            f"{c['companion_update_s']:.2f} s; the four N x n x d products "
            f"{c['four_products_s']:.2f} s) | PyTorch's two steps {c['torch_steps_s']:.2f} s | "
            f"{c['companion_update_s'] / c['torch_steps_s']:.2f} (the update alone) | |",
            f"| of which: three top-8 | {c['companion_top8x3_s']:.2f} s | three `svdvals` "
            f"{c['torch_svdvalsx3_s']:.2f} s | "
            f"{c['companion_top8x3_s'] / c['torch_svdvalsx3_s']:.2f} | |",
        ]
        if "expert_s" in p:
            rows += [
                f"| `simulate --N {c['N']}`, whole processes | {p['companion_s']:.2f} s | "
                f"expert script (PyTorch steps, `scipy.sparse.linalg.svds` top-8 x 3) "
                f"{p['expert_s']:.2f} s | **{p['ratio_vs_expert']:.2f}** "
                f"({p['paired_ratio_vs_expert']:.2f}) | <= 0.45 |",
                f"| of which: three top-8 at once | {c['companion_top8x3_s']:.2f} s | three "
                f"`svds` {c['expert_svdsx3_s']:.2f} s | **{c['top8x3_ratio_vs_svds']:.2f}** "
                f"({c['top8x3_paired_ratio_vs_svds']:.2f}) | < 1 |",
            ]
    elif "vs_torch" in results:             # results.json written before the spectra issue
        t = results["vs_torch"]
        rows.append(f"| two steps + top-16 singular values, N = d = n = {t['N']}, float64 | "
                    f"{t['ours_topk_s']:.2f} s | PyTorch autograd + `svdvals` {t['torch_s']:.2f}"
                    f" s | **{t['ratio_topk']:.2f}** "
                    f"({paired_ratio(t['ours_topk_times'], t['torch_times']):.2f}) | |")
    for r in results.get("topk", []):
        rows.append(
            f"| top-{r['k']} of {r['matrix']} (N = {r['N']}): {r['products_float32']} float32 + "
            f"{r['products']} float64 products with a block of {r['block']} | "
            f"{r['topk_s'] * 1e3:.0f} ms, of which its products (timed inside) "
            f"{r['products_s'] * 1e3:.0f} ms ({r['products_fraction']:.0%}) | PROPACK "
            f"{r['propack_s'] * 1e3:.0f} ms, {r['propack_matvecs']} matrix-vector products | "
            f"{r['topk_s'] / r['propack_s']:.2f} ({r['paired_ratio_vs_propack']:.2f}) | |")
        if "svds_s" in r:
            e = r["max_rel_error"]
            rows.append(
                f"| the same against ARPACK (`svds`; relative errors of the values against "
                f"LAPACK: block {e['topk']:.0e}, `svds` {e['svds']:.0e}, with tol "
                f"{r['svds_loose_tol']:g} {e['svds_loose']:.0e}) | {r['topk_s'] * 1e3:.0f} ms | "
                f"`svds` {r['svds_s'] * 1e3:.0f} ms (tol {r['svds_loose_tol']:g}: "
                f"{r['svds_loose_s'] * 1e3:.0f} ms) | **{r['topk_s'] / r['svds_s']:.2f}** "
                f"({r['paired_ratio_vs_svds']:.2f}; tol {r['svds_loose_tol']:g}: "
                f"{r['paired_ratio_vs_svds_loose']:.2f}) | <= 0.8 |")
    if "vs_floor" in results:
        f = results["vs_floor"]
        rows.append(f"| two-step update, N = d = n = {f['N']}, float64 | {f['ours_s']:.2f} s | "
                    f"the four products {f['floor_s']:.2f} s | **{f['ratio']:.2f}** "
                    f"({paired_ratio(f['ours_times'], f['floor_times']):.2f}) | <= 1.1 |")
    for r in results.get("scale", []):
        goal = {("float64", 16384): "<= 12 GiB", ("float32", 16384): "<= 6 GiB",
                ("float64", 8192): "<= 4 GiB", ("float32", 8192): "<= 2.5 GiB"}.get(
                    (r["dtype"], r["N"]), "")
        est = (f" (estimate of the arrays {r['estimate_gib']:.2f} GiB)" if "estimate_gib" in r
               else "")
        split = (f"; steps {r['steps_s']:.0f} s, top-16 {r['top16_s']:.0f} s"
                 if "top16_s" in r else "")
        rows.append(f"| full reused run, N = d = n = {r['N']}, {r['dtype']}: two steps, top-16, "
                    f"alignments | {r['total_s']:.0f} s{split}; **{r['peak_rss_gib']:.2f} GiB** "
                    f"peak RSS{est} | | | {goal} |")
    if "scale_float32_max_rel_diff" in results:
        rows.append(f"| float32 vs float64, top-16 singular values at N = "
                    f"{results['scale'][0]['N']} | max relative difference "
                    f"{results['scale_float32_max_rel_diff']:.1e} | | | <= 1e-4 |")
    if "book" in results:
        b, one = results["book"], results.get("book_one_thread")
        parts = ", ".join(f"{k} {v:.0f} s" for k, v in b.items() if k != "total")
        rows.append(f"| the book: every chapter's Run all at its default size, fresh kernel, "
                    f"{m['cores']} cores | **{b['total']:.0f} s** ({parts}) | | | < 120 s |")
        if one:
            slowest = max((k for k in one if k != "total"), key=one.get)
            parts = ", ".join(f"{k} {v:.0f} s" for k, v in one.items() if k != "total")
            rows.append(f"| the same with one BLAS thread (as on Binder): the slowest chapter | "
                        f"**{one[slowest]:.0f} s** ({slowest}; {parts}; all "
                        f"{one['total']:.0f} s) | | | < 30 s each |")
    measured = results.get("measured", {})
    when = {}
    for part, info in measured.items():
        load = info.get("load_average")
        when.setdefault((info["date"], None if load is None else round(load[0], 1)), []).append(part)
    if when:
        dated = "; ".join(f"{', '.join(sorted(parts))} on {date}"
                          + (f" (load average {load} at the start)" if load is not None else "")
                          for (date, load), parts in sorted(when.items()))
        head = f"Measured on {m['cpu']}, {m['cores']} cores: {dated}. Python "
    else:
        load = m.get("load_average_at_start")
        head = (f"Measured {results['date']} on {m['cpu']}, {m['cores']} cores"
                f"{f' (load average {load[0]:.1f} at the start)' if load else ''}, Python ")
    head += (f"{m['python']}, NumPy {m['numpy']}, {blas}, PyTorch {m.get('torch', '-')} "
             f"({m.get('torch_threads', '-')} threads). Times are medians of interleaved "
             f"repetitions; a ratio is the ratio of the medians, and in brackets the median of "
             f"the ratios of back-to-back repetitions.")
    return head + "\n\n" + "\n".join(rows) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few repetitions")
    parser.add_argument("--skip-book", action="store_true", help="do not time the chapters")
    parser.add_argument("--skip-scale", action="store_true", help="no 16384 runs")
    parser.add_argument("--scale-N", type=int, default=16384, help="size of the scale runs")
    parser.add_argument("--repeats", type=int, default=None, help="repetitions (default 5)")
    parser.add_argument("--only", default=None,
                        help="comma-separated parts: cli, topk, floor, scale, book, install, store")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results.json"))
    parser.add_argument("--table", action="store_true",
                        help="print the README's markdown table from --out and exit")
    parser.add_argument("--write-tables", action="store_true",
                        help="rewrite the tables of README.md and book/instructors.md from "
                             "--out and exit")
    args = parser.parse_args()
    if args.table:
        print(markdown_table(json.loads(Path(args.out).read_text())))
        return
    if args.write_tables:
        for rel, text in rendered_tables(json.loads(Path(args.out).read_text())).items():
            (ROOT / rel).write_text(text)
            print(f"rewrote the table of {rel}")
        return
    q = args.quick
    reps = args.repeats or (1 if q else 5)
    parts = set((args.only or "cli,topk,floor,scale,book,install,store").split(","))
    if args.skip_book:
        parts.discard("book")
    if args.skip_scale:
        parts.discard("scale")
    out = Path(args.out)
    results = json.loads(out.read_text()) if args.only and out.exists() else {}
    results.update({"machine": machine(), "date": time.strftime("%Y-%m-%d")})
    # when each part was measured, and the machine's load then (a rerun of some parts
    # keeps the others' dates)
    for part in parts:
        results.setdefault("measured", {})[part] = {
            "date": results["date"], "load_average": results["machine"].get("load_average_at_start")}
    print("machine:", json.dumps(results["machine"]))

    if "cli" in parts:
        r = bench_cli_vs_torch(512 if q else 2048, reps)
        results["cli"] = r
        results.pop("vs_torch", None)
        p = r["process"]
        print(f"\n1. `simulate --N {r['N']}` against the PyTorch script (float64, reused, tanh)")
        print(f"   whole processes: companion {p['companion_s']:.2f} s | torch {p['torch_s']:.2f} s"
              f" (ratio {p['ratio_vs_torch']:.3f}, paired {p['paired_ratio_vs_torch']:.3f}) | "
              f"torch with svd of W2 {p['torch_vectors_s']:.2f} s (ratio "
              f"{p['ratio_vs_torch_vectors']:.3f})")
        print(f"   in-process: companion {r['companion_s']:.2f} s | torch {r['torch_s']:.2f} s "
              f"(ratio {r['ratio_vs_torch']:.3f}, paired {r['paired_ratio_vs_torch']:.3f}) | "
              f"torch with svd of W2 {r['torch_vectors_s']:.2f} s (ratio "
              f"{r['ratio_vs_torch_vectors']:.3f})")
        print(f"   profile: companion = run (data + steps) {r['companion_run_s']:.2f} s [update "
              f"{r['companion_update_s']:.2f} s, four products {r['four_products_s']:.2f} s] + "
              f"three top-8 {r['companion_top8x3_s']:.2f} s (at once; one after the other "
              f"{r['companion_top8x3_serial_s']:.2f} s); torch = steps "
              f"{r['torch_steps_s']:.2f} s + svdvals x 3 {r['torch_svdvalsx3_s']:.2f} s (svd of "
              f"W2 {r['torch_svd_W2_s']:.2f} s)")
        print(f"   same output: top-8 values agree to {r['max_rel_diff_top8']:.1e} (relative), "
              f"alignments to {r['max_abs_diff_alignment']:.1e}")
        print(f"   against the expert script (PyTorch steps, svds top-8): whole processes "
              f"companion {p['companion_s']:.2f} s | expert {p['expert_s']:.2f} s (ratio "
              f"{p['ratio_vs_expert']:.3f}, paired {p['paired_ratio_vs_expert']:.3f}); "
              f"in-process {r['expert_s']:.2f} s (paired {r['paired_ratio_vs_expert']:.3f}); "
              f"three top-8 {r['companion_top8x3_s']:.2f} s against three svds "
              f"{r['expert_svdsx3_s']:.2f} s (paired {r['top8x3_paired_ratio_vs_svds']:.3f}); "
              f"same output to {r['expert_max_rel_diff_top8']:.1e}, alignments to "
              f"{r['expert_max_abs_diff_alignment']:.1e}")

    if "topk" in parts:
        rows = bench_topk(512 if q else 2048, reps)
        results["topk"] = rows
        print("\n2. top-k against its own products (block Lanczos) and PROPACK")
        for r in rows:
            print(f"   top-{r['k']:2d} of {r['matrix']} (N = {r['N']}): "
                  f"{r['products_float32']} float32 + {r['products']} float64 products with a "
                  f"block of {r['block']} (float64: {r['steps']} steps, {r['checks']} "
                  f"Rayleigh-Ritz checks, basis {r['basis']}); {r['topk_s'] * 1e3:.0f} ms, of "
                  f"which products {r['products_s'] * 1e3:.0f} ms "
                  f"({r['products_fraction']:.0%}; one product "
                  f"{r['product_s'] * 1e3:.1f} ms, float32 "
                  f"{(r['product_float32_s'] or 0) * 1e3:.1f} ms) | PROPACK "
                  f"{r['propack_s'] * 1e3:.0f} ms, {r['propack_matvecs']} matrix-vector products "
                  f"({r['propack_matvecs_s'] * 1e3:.0f} ms of them); paired ratio "
                  f"{r['paired_ratio_vs_propack']:.2f}")
            e = r["max_rel_error"]
            print(f"      svds (ARPACK, tol 0) {r['svds_s'] * 1e3:.0f} ms, paired ratio "
                  f"{r['paired_ratio_vs_svds']:.2f}; svds tol {r['svds_loose_tol']:g} "
                  f"{r['svds_loose_s'] * 1e3:.0f} ms, paired {r['paired_ratio_vs_svds_loose']:.2f};"
                  f" errors against svdvals: block {e['topk']:.1e}, svds {e['svds']:.1e}, "
                  f"svds tol {r['svds_loose_tol']:g} {e['svds_loose']:.1e} (bound "
                  f"{r['accuracy_bound']:g}); parts: products "
                  f"{r['parts_product_seconds'] * 1e3:.0f} ms, reorthogonalization "
                  f"{r['parts_reorth_seconds'] * 1e3:.0f}, Cholesky QR "
                  f"{r['parts_qr_seconds'] * 1e3:.0f}, Rayleigh-Ritz "
                  f"{r['parts_rr_seconds'] * 1e3:.0f} of {r['parts_seconds'] * 1e3:.0f} ms")

    if "floor" in parts:
        r = bench_vs_floor(1024 if q else 4096, reps)
        results["vs_floor"] = r
        print(f"\n3. vs the four N x n x d products, N = d = n = {r['N']}")
        print(f"   four products {r['floor_s']:.2f} s | companion two-step update "
              f"{r['ours_s']:.2f} s (ratio {r['ratio']:.3f}; paired {r['paired_ratio']:.3f})")

    if "scale" in parts:
        rows = bench_scale(1024 if q else args.scale_N)
        results["scale"] = rows
        print("\n4. scale: full reused run, top-16 singular values and alignments")
        for row in rows:
            print(f"   N = {row['N']} {row['dtype']}: steps {row['steps_s']:.1f} s, top-16 "
                  f"{row['top16_s']:.1f} s, total {row['total_s']:.1f} s, peak RSS "
                  f"{row['peak_rss_gib']:.2f} GiB (estimate {row['estimate_gib']:.2f} GiB)")
        s32, s64 = (np.array(r_["top_singular_values"]) for r_ in rows)
        results["scale_float32_max_rel_diff"] = float(np.max(np.abs(s32 - s64) / s64))
        print(f"   float32 vs float64 top-16 singular values: max relative difference "
              f"{results['scale_float32_max_rel_diff']:.1e}")

    if "book" in parts:
        results["book"] = bench_book()
        print("\n5. the book at default sizes (seconds):",
              ", ".join(f"{k} {v:.0f}" for k, v in results["book"].items()))
        results["book_one_thread"] = bench_book(threads=1)
        print("   with one BLAS thread (as on Binder):",
              ", ".join(f"{k} {v:.0f}" for k, v in results["book_one_thread"].items()))

    if "install" in parts:
        results["install"] = bench_install()
        print(f"\n6. install into a fresh environment: "
              f"{results['install']['fresh_venv_notebooks_extra_s']:.0f} s")

    if "store" in parts:
        r = results["store"] = bench_store(reps)
        print(f"\n7. the stored runs, loaded in a fresh process: all "
              f"{len(r['alone_s'])} in one process {r['all_in_one_process_s']:.3f} s; alone, the "
              f"slowest {r['slowest_alone']} {r['alone_s'][r['slowest_alone']]:.3f} s")
        print("   alone: " + ", ".join(f"{e} {v:.3f}" for e, v in r["alone_s"].items()))
        print("   in one process: " + ", ".join(f"{e} {v:.3f}"
                                                for e, v in r["in_one_process_s"].items()))
        print(f"   {sum(r['bytes'].values()) / 1e6:.2f} MB of npz")

    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nwritten to {out}")


if __name__ == "__main__":
    main()
