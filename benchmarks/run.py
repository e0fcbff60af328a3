"""Benchmarks of the companion (issue: performance and scale). Not part of the test suite.

    python benchmarks/run.py            # everything, about 10-15 minutes on 2 cores
    python benchmarks/run.py --quick    # smaller sizes, a smoke run of the same code

Every figure is a median over repetitions, reported as a ratio against a baseline timed in the
same process on the same arrays:

1. baseline a researcher would write: PyTorch autograd (`loss.backward()` on the correlation
   loss) for the two steps, then `torch.linalg.svdvals(W2)`, against companion's two steps plus
   the spectrum the book needs (top-k Lanczos; a full spectrum for histograms is a second row);
2. the floor: companion's two-step update against the four N x n x d matrix products it
   cannot avoid;
3. scale: wall time and peak resident memory of a full N = d = n = 8192 reused run with the
   top-16 singular values and all alignments, float64 and float32 (each in a fresh process);
4. the book: time to execute each chapter at its default sizes.

Results are printed as a table and written to benchmarks/results.json with the machine's
description (CPU, cores, BLAS and its threads).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import companion as cp  # noqa: E402


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
        import torch
        info["torch"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
    except ImportError:
        info["torch"] = None
    return info


def problem(N: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    W0, a = cp.init_network(N, N, rng)
    target = cp.make_target("he1+he3", N, rng)
    X, y = target.sample(N, rng)
    return W0, a, X, y, target


# -- 1. against PyTorch autograd --------------------------------------------------------------
def torch_two_steps(W0, a, X, y, eta1, eta2):
    """The baseline a researcher would write: two steps by autograd on the correlation loss."""
    import torch

    Wt = torch.from_numpy(W0.copy())
    at, Xt, yt = torch.from_numpy(a), torch.from_numpy(X), torch.from_numpy(y)
    for eta in (eta1, eta2):
        W = Wt.clone().requires_grad_(True)
        loss = -(yt * (torch.tanh(Xt @ W.T) @ at)).mean()   # correlation loss
        loss.backward()
        with torch.no_grad():
            Wt = W - eta * W.grad
    return Wt


def torch_two_steps_svdvals(W0, a, X, y, eta1, eta2):
    import torch

    return torch.linalg.svdvals(torch_two_steps(W0, a, X, y, eta1, eta2)).numpy()


def four_products(W0, X):
    """The floor: the four N x n x d products of two gradients (buffers allocated once)."""
    P = np.empty((W0.shape[0], X.shape[0]))
    G = np.empty_like(W0)

    def run():
        for _ in range(2):
            np.matmul(W0, X.T, out=P)
            np.matmul(P, X, out=G)
    return run


def bench_vs_torch(N: int, repeats: int) -> dict:
    import torch

    W0, a, X, y, _ = problem(N)
    eta1, eta2 = N ** 0.35, N ** 0.45
    out = {"N": N}
    _, W2 = cp.two_step_update(W0, a, X, y, eta1, eta2)
    W2t = torch.from_numpy(W2)
    fns = {
        "torch": lambda: torch_two_steps_svdvals(W0, a, X, y, eta1, eta2),
        "ours_topk": lambda: cp.singular_values(cp.two_step_update(W0, a, X, y, eta1, eta2)[1], 16),
        "ours_full": lambda: cp.singular_values(cp.two_step_update(W0, a, X, y, eta1, eta2)[1]),
        # the parts, for the profile
        "torch_steps": lambda: torch_two_steps(W0, a, X, y, eta1, eta2),
        "torch_svdvals": lambda: torch.linalg.svdvals(W2t),
        "ours_steps": lambda: cp.two_step_update(W0, a, X, y, eta1, eta2),
        "ours_top16": lambda: cp.top_singular(W2, 16),
        "four_products": four_products(W0, X),
    }
    s_torch = torch_two_steps_svdvals(W0, a, X, y, eta1, eta2)
    s_ours = cp.singular_values(W2)
    out["max_rel_diff_singular_values"] = float(np.max(np.abs(s_torch - s_ours) / s_ours[0]))
    for name, (med, times) in interleaved_times(fns, repeats).items():
        out[f"{name}_s"], out[f"{name}_times"] = med, times
    out["ratio_topk"] = out["ours_topk_s"] / out["torch_s"]
    out["ratio_full"] = out["ours_full_s"] / out["torch_s"]
    # no float64 implementation of the same two steps can beat the four products it must do
    out["ratio_floor_bound"] = out["four_products_s"] / out["torch_s"]
    return out


# -- 2. against the four unavoidable products -------------------------------------------------
def bench_vs_floor(N: int, repeats: int) -> dict:
    W0, a, X, y, _ = problem(N)
    eta1, eta2 = N ** 0.35, N ** 0.45
    def ours():
        cp.two_step_update(W0, a, X, y, eta1, eta2)

    t = interleaved_times({"floor": four_products(W0, X), "ours": ours}, repeats)
    (floor_s, floor_times), (ours_s, ours_times) = t["floor"], t["ours"]
    return {"N": N, "floor_s": floor_s, "floor_times": floor_times, "ours_s": ours_s,
            "ours_times": ours_times, "ratio": ours_s / floor_s}


# -- 3. scale ----------------------------------------------------------------------------------
SCALE_SCRIPT = r"""
import json, resource, sys, time
import numpy as np
import companion as cp
N, dtype = int(sys.argv[1]), sys.argv[2]
t0 = time.perf_counter()
run = cp.run_two_steps(N=N, alpha1=0.35, alpha2=0.45, batch="reused", target="he1+he3",
                       seed=0, dtype=dtype)
t_steps = time.perf_counter() - t0
U, s, Vt = cp.top_singular(run.W2, 16)
cos2 = cp.cos2_with_directions(Vt, run.target.directions)
proj = cp.subspace_projection(Vt[:4], run.target.directions)
terms = cp.term_sizes(run.W2 - run.W0, run.a, 4)
total = time.perf_counter() - t0
print(json.dumps({"N": N, "dtype": dtype, "steps_s": t_steps, "total_s": total,
                  "peak_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
                  "top_singular_values": [float(v) for v in s],
                  "top4_projection": [float(v) for v in proj]}))
"""


def bench_scale(N: int) -> list[dict]:
    rows = []
    for dtype in ("float64", "float32"):
        res = subprocess.run([sys.executable, "-c", SCALE_SCRIPT, str(N), dtype],
                             capture_output=True, text=True, cwd=ROOT, check=True)
        rows.append(json.loads(res.stdout))
    return rows


# -- 4. the book -------------------------------------------------------------------------------
def bench_book() -> dict:
    import nbformat
    from nbclient import NotebookClient

    times = {}
    for nb_path in sorted((ROOT / "book").glob("*.ipynb")):
        nb = nbformat.read(nb_path, as_version=4)
        t0 = time.perf_counter()
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(nb_path.parent)}}).execute()
        times[nb_path.stem] = time.perf_counter() - t0
    times["total"] = sum(times.values())
    return times


def paired_ratio(candidate_times, baseline_times) -> float:
    """Median over repetitions of candidate / baseline timed back to back: less sensitive to a
    machine whose speed drifts during the run than the ratio of the two medians."""
    return statistics.median(c / b for c, b in zip(candidate_times, baseline_times))


def markdown_table(results: dict) -> str:
    """The README's performance table, rendered from a results.json."""
    m, t, f = results["machine"], results["vs_torch"], results["vs_floor"]
    blas = ", ".join(sorted({f"{b['internal_api']} {b['version']} ({b['architecture']}, "
                             f"{b['num_threads']} threads)" for b in m["blas"]}))
    rows = [
        "| measurement | companion | baseline | ratio | goal |",
        "| --- | --- | --- | --- | --- |",
        f"| two steps + top-16 singular values, N = d = n = {t['N']}, float64 | "
        f"{t['ours_topk_s']:.2f} s | PyTorch autograd + `svdvals` {t['torch_s']:.2f} s | "
        f"**{t['ratio_topk']:.2f}** ({paired_ratio(t['ours_topk_times'], t['torch_times']):.2f}) "
        f"| <= 0.2 |",
        f"| the same with the full spectrum (histograms) | {t['ours_full_s']:.2f} s | "
        f"{t['torch_s']:.2f} s | {t['ratio_full']:.2f} | |",
        f"| of which: the two steps | {t['ours_steps_s']:.2f} s | PyTorch's two steps "
        f"{t['torch_steps_s']:.2f} s | {t['ours_steps_s'] / t['torch_steps_s']:.2f} | |",
        f"| of which: the spectrum | top-16 (PROPACK) {t['ours_top16_s']:.2f} s | "
        f"`torch.linalg.svdvals` {t['torch_svdvals_s']:.2f} s | "
        f"{t['ours_top16_s'] / t['torch_svdvals_s']:.2f} | |",
        f"| the four N x n x d products alone (lower bound) | {t['four_products_s']:.2f} s | "
        f"{t['torch_s']:.2f} s | {t['ratio_floor_bound']:.2f} | |",
        f"| two-step update, N = d = n = {f['N']}, float64 | {f['ours_s']:.2f} s | "
        f"the four products {f['floor_s']:.2f} s | **{f['ratio']:.2f}** "
        f"({paired_ratio(f['ours_times'], f['floor_times']):.2f}) | <= 1.3 |",
    ]
    for r in results["scale"]:
        goal = "<= 4 GiB" if r["dtype"] == "float64" else "<= 2.5 GiB"
        rows.append(f"| full reused run, N = d = n = {r['N']}, {r['dtype']}: two steps, top-16, "
                    f"alignments | {r['total_s']:.0f} s, **{r['peak_rss_gib']:.2f} GiB** peak "
                    f"RSS | | | {goal} |")
    if "scale_float32_max_rel_diff" in results:
        rows.append(f"| float32 vs float64, top-16 singular values at N = "
                    f"{results['scale'][0]['N']} | max relative difference "
                    f"{results['scale_float32_max_rel_diff']:.1e} | | | <= 1e-4 |")
    if "book" in results:
        b = results["book"]
        parts = ", ".join(f"{k} {v:.0f} s" for k, v in b.items() if k != "total")
        rows.append(f"| the book: every chapter at its default size | **{b['total']:.0f} s** "
                    f"({parts}) | | | < 300 s |")
    head = (f"Measured {results['date']} on {m['cpu']}, {m['cores']} cores, Python "
            f"{m['python']}, NumPy {m['numpy']}, {blas}, PyTorch {m.get('torch', '-')} "
            f"({m.get('torch_threads', '-')} threads). Times are medians of interleaved "
            f"repetitions; a ratio is the ratio of the medians, and in brackets the median of "
            f"the ratios of back-to-back repetitions.")
    return head + "\n\n" + "\n".join(rows) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repetition")
    parser.add_argument("--skip-book", action="store_true", help="do not time the chapters")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results.json"))
    parser.add_argument("--table", action="store_true",
                        help="print the README's markdown table from --out and exit")
    args = parser.parse_args()
    if args.table:
        print(markdown_table(json.loads(Path(args.out).read_text())))
        return
    q = args.quick
    results = {"machine": machine(), "date": time.strftime("%Y-%m-%d")}
    print("machine:", json.dumps(results["machine"]))

    r = bench_vs_torch(512 if q else 2048, 1 if q else 5)
    results["vs_torch"] = r
    print(f"\n1. vs PyTorch autograd + svdvals, N = d = n = {r['N']} (float64, reused, tanh)")
    print(f"   torch {r['torch_s']:.2f} s | companion two steps + top-16 {r['ours_topk_s']:.2f} s "
          f"(ratio {r['ratio_topk']:.3f}) | + full spectrum {r['ours_full_s']:.2f} s "
          f"(ratio {r['ratio_full']:.3f}); singular values agree to "
          f"{r['max_rel_diff_singular_values']:.1e}")
    print(f"   profile: torch = steps {r['torch_steps_s']:.2f} s"
          f" + svdvals {r['torch_svdvals_s']:.2f} s;"
          f" companion = steps {r['ours_steps_s']:.2f} s + top-16 {r['ours_top16_s']:.2f} s;"
          f" the four products alone {r['four_products_s']:.2f} s = {r['ratio_floor_bound']:.3f}"
          f" of torch (a lower bound on the ratio in float64)")

    r = bench_vs_floor(1024 if q else 4096, 1 if q else 5)
    results["vs_floor"] = r
    print(f"\n2. vs the four N x n x d products, N = d = n = {r['N']}")
    print(f"   four products {r['floor_s']:.2f} s | companion two-step update {r['ours_s']:.2f} s "
          f"(ratio {r['ratio']:.3f}; median of paired ratios "
          f"{paired_ratio(r['ours_times'], r['floor_times']):.3f})")

    rows = bench_scale(1024 if q else 8192)
    results["scale"] = rows
    print(f"\n3. scale: full reused run, top-16 singular values and alignments")
    for row in rows:
        print(f"   N = {row['N']} {row['dtype']}: steps {row['steps_s']:.1f} s, total "
              f"{row['total_s']:.1f} s, peak RSS {row['peak_rss_gib']:.2f} GiB")
    s64, s32 = (np.array(r_["top_singular_values"]) for r_ in rows)
    results["scale_float32_max_rel_diff"] = float(np.max(np.abs(s32 - s64) / s64))
    print(f"   float32 vs float64 top-16 singular values: max relative difference "
          f"{results['scale_float32_max_rel_diff']:.1e}")

    if not args.skip_book:
        results["book"] = bench_book()
        print("\n4. the book at default sizes (seconds):",
              ", ".join(f"{k} {v:.0f}" for k, v in results["book"].items()))

    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nwritten to {args.out}")


if __name__ == "__main__":
    main()
