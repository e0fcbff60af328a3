"""Command line: ``python -m companion simulate ...`` and ``python -m companion reproduce ...``
(see ``--help``)."""

from __future__ import annotations

import argparse
import json
import sys

from companion import __version__
from companion import reproduce as rp
from companion.core.activations import NAMED_ACTIVATIONS
from companion.core.network import BATCHES
from companion.simulate import RUN_DEFAULTS as D
from companion.simulate import simulate


def _fail(message: str, command: str | None = None) -> int:
    """One line on stderr that names the problem and where to read about the options."""
    where = f"python -m companion {command} --help" if command else "python -m companion --help"
    sys.stderr.write(f"companion: error: {message} (see {where})\n")
    return 2


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument in one line on stderr and exits with code 2."""

    def error(self, message):  # noqa: D401 - argparse API
        command = self.prog.split()[-1] if self.prog.split()[-1] in ("simulate", "reproduce") else None
        sys.exit(_fail(message, command))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m companion",
                     description="Two steps of gradient descent on a linear-width two-layer "
                                 "network (Moniri & Hassani, arXiv 2605.17767).")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sim = sub.add_parser(
        "simulate", help="run two GD steps and print spectra, outliers and alignments",
        description="Draw Gaussian data, a target and a network; take two gradient steps "
                    "on the first layer with eta_t = c_t N^alpha_t; print the top singular "
                    "values of W0, W1, W2, the outlier counts, Lambda and the number of spikes "
                    "from theory, and the alignments of the learned directions with each "
                    "target direction.")
    sim.add_argument("--N", type=int, default=D["N"], metavar="WIDTH",
                     help=f"hidden neurons (default {D['N']})")
    sim.add_argument("--d", type=int, default=None, metavar="DIM",
                     help="input dimension (default WIDTH)")
    sim.add_argument("--n", type=int, default=None, metavar="SAMPLES",
                     help="batch size (default WIDTH)")
    sim.add_argument("--alpha1", type=float, default=D["alpha1"],
                     help="first step size exponent, eta1 = N^alpha1, in [0, 1/2) "
                          f"(default {D['alpha1']:g})")
    sim.add_argument("--alpha2", type=float, default=D["alpha2"],
                     help="second step size exponent, eta2 = N^alpha2, in [0, 1/2) "
                          f"(default {D['alpha2']:g})")
    sim.add_argument("--c1", type=float, default=D["c1"],
                     help=f"constant of the first step, eta1 = c1 N^alpha1 (default {D['c1']:g})")
    sim.add_argument("--c2", type=float, default=D["c2"],
                     help=f"constant of the second step, eta2 = c2 N^alpha2 (default {D['c2']:g})")
    sim.add_argument("--batch", default=D["batch"], choices=BATCHES,
                     help=f"'reused' (both steps on one batch) or 'fresh' (default {D['batch']})")
    sim.add_argument("--activation", default=D["activation"],
                     help="one of " + ", ".join(NAMED_ACTIVATIONS[:-1])
                          + f" (default {D['activation']}), "
                          "or hermite:c0,c1,... (coefficients on He_j/sqrt(j!)); "
                          "shifted_tanh = tanh(z + 1/2) and gelu have every order, tanh and "
                          "erf only the even ones")
    sim.add_argument("--target", default=D["target"],
                     help="link names joined by '+', one direction each: he1, he2, he3, he4, "
                          f"tanh, e.g. he1+he3 (default {D['target']})")
    sim.add_argument("--noise", type=float, default=D["noise"],
                     help=f"label noise std (default {D['noise']:g})")
    sim.add_argument("--seed", type=int, default=D["seed"],
                     help=f"random seed (default {D['seed']})")
    sim.add_argument("--float32", action="store_true", help="compute in float32")
    sim.add_argument("--null", action="store_true",
                     help="also run a null (labels independent of x) and count the spikes "
                          "of W2 above its bulk edge whose left vectors lie on the powers of a")
    sim.add_argument("--readout", action="store_true",
                     help="also fit a ridge readout on sigma(W x) for W0, W1, W2 and the "
                          "one-step reference on an independent sample (n) and report its "
                          "test error on a fresh one (4n), split by target direction")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    rep = sub.add_parser(
        "reproduce", help="run the book's experiments (cached, resumable, parallel) "
                          "and write their figures and tidy data",
        description="Run the experiments of the book (the registry page lists them) at the "
                    "book's size (small) or at paper scale (each experiment's sizes are in "
                    "the registry's table); write one figure "
                    "(PNG and PDF) and one tidy data file (CSV plus a JSON sidecar) per "
                    "experiment to DIR. Every run is cached under DIR/cache: a rerun reuses "
                    "it and an interrupted run resumes.")
    rep.add_argument("--scale", default="small", choices=("small", "paper"),
                     help="small (the chapters' default sizes, default) or paper")
    rep.add_argument("--only", default=None, metavar="IDS",
                     help="comma-separated experiment ids, e.g. E4,E7 (default: all)")
    rep.add_argument("--jobs", type=int, default=1, metavar="K",
                     help="parallel worker processes (default 1)")
    rep.add_argument("--out", default="results", metavar="DIR",
                     help="output directory (default ./results)")
    rep.add_argument("--cache", default=None, metavar="CACHE",
                     help="cache directory (default DIR/cache)")
    rep.add_argument("--scheduler", default=None, metavar="ADDRESS",
                     help="run on a Dask cluster (e.g. tcp://host:8786) through joblib's dask "
                          "backend; K is then the number of concurrent tasks")
    rep.add_argument("--no-progress", action="store_true", help="no progress bars")
    rep.add_argument("--from-cache", action="store_true",
                     help="compute nothing: draw and store the sizes whose every unit the "
                          "cache holds (a stopped long run, stored with what it finished)")
    rep.add_argument("--reuse-stored", action="store_true",
                     help="take the units that the package's stored data hold (after "
                          "recomputing the cheapest and comparing), compute only the rest")
    return parser


def _table(res: dict) -> str:
    p = res["parameters"]
    lines = [f"two steps: N={p['N']} d={p['d']} n={p['n']} alpha1={p['alpha1']} "
             f"alpha2={p['alpha2']} (eta1={p['eta1']:.4g}, eta2={p['eta2']:.4g}) "
             f"batch={p['batch']} activation={p['activation']} target={p['target']} seed={p['seed']}",
             f"bulk edge (Marchenko-Pastur): {res['bulk_edge']:.4f}",
             "top singular values:"]
    for name, s in res["singular_values"].items():
        lines.append(f"  {name:8s} " + " ".join(f"{v:8.4f}" for v in s))
    lines.append("outliers above the bulk edge: " + ", ".join(
        f"{k} {v}" for k, v in res["n_outliers"].items()))
    lines.append(f"theory: Lambda = {res['lambda_theory']} (the paper's formula); spikes in all "
                 f"for this activation = {res['n_spikes_theory']} (the companion's count)")
    if res.get("n_spikes_predicted") is not None:
        n = res["n_spikes_predicted"]
        lines.append(f"finite-N prediction at this N: {n} spike{'' if n == 1 else 's'} (terms "
                     f"above the census's threshold {res['spike_threshold_predicted']:.4g})")
    names = p["target"].split("+")
    lines.append(f"{'direction':10s} {'top cos^2':>10s} {'theory':>8s} {'top-4 proj':>11s} "
                 f"{'learnable':>10s}")
    al, th = res["alignment"], res["theory"]
    for k, name in enumerate(names):
        lines.append(f"{name:10s} {al['top_vector_cos2'][k]:10.4f} {th['top_vector_cos2'][k]:8.4f} "
                     f"{al['top4_projection'][k]:11.4f} {_learnable(th['learnable'][k]):>10s}")
    lines.append(f"chance level of the top-4 projection: {al['chance']:.4f}")
    for key, what in (("spikes", "spikes of W2"), ("null_spikes", "spikes of the null run")):
        if key in res:
            lines.append(f"{what} (order k, value, separate strength, predicted, cos^2 per "
                         "direction):")
            for rec in res[key]:
                pred = rec.get("strength_predicted")
                lines.append(f"  k={rec['k']} {rec['value']:8.4f} {rec['strength']:8.4f} "
                             + (f"{pred:8.4f}" if pred is not None else "     n/a")
                             + " " + " ".join(f"{c:.4f}" for c in rec["cos2"]))
    if "readout" in res:
        ro = res["readout"]
        lines.append(f"ridge readout (n_train={ro['n_train']}, n_test={ro['n_test']}): test "
                     f"error, relative to Var y = {ro['var_y']:.4f}, lambda / feature scale, "
                     "error per direction:")
        for name, rec in ro.items():
            if isinstance(rec, dict):
                lines.append(f"  {name:18s} {rec['mse']:8.4f} {rec['relative']:8.4f} "
                             f"{rec['lam_over_scale']:8.3g} "
                             + " ".join(f"{c:.4f}" for c in rec["component_mse"]))
    lines.append(f"time: {res['seconds']:.1f} s")
    return "\n".join(lines)


def _learnable(value) -> str:
    return "n/a" if value is None else str(value)


def _reproduce(args) -> int:

    try:
        ids = rp.parse_only(args.only)
        if args.jobs < 1:
            raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
        out = rp.check_output_dir(args.out)
        if args.cache is not None:
            rp.check_output_dir(args.cache)
    except ValueError as exc:
        return _fail(str(exc), "reproduce")
    import signal

    def _stop(signum, frame):   # a terminated run stops its workers (finished runs stay cached)
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, _stop)
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:   # started in the background
        signal.signal(signal.SIGINT, _stop)
    if args.from_cache:
        try:
            written = {eid: rp.store_cached(eid, args.scale, out, args.cache) for eid in ids}
        except ValueError as exc:
            return _fail(str(exc), "reproduce")
        for eid, paths in written.items():
            print(f"{eid}: " + " ".join(str(p) for p in paths))
        return 0
    try:
        written = rp.reproduce(ids, scale=args.scale, jobs=args.jobs, out=out,
                               cache_dir=args.cache, scheduler=args.scheduler,
                               progress=not args.no_progress,
                               reuse_stored=args.reuse_stored)
    except KeyboardInterrupt:
        sys.stderr.write("companion: interrupted; finished runs are cached, rerun to resume\n")
        return 130
    for eid, paths in written.items():
        print(f"{eid}: " + " ".join(str(p) for p in paths))
    return 0


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "reproduce":
        return _reproduce(args)
    try:
        res = simulate(N=args.N, d=args.d, n=args.n, alpha1=args.alpha1, alpha2=args.alpha2,
                       batch=args.batch, activation=args.activation, target=args.target,
                       noise=args.noise, seed=args.seed,
                       dtype="float32" if args.float32 else "float64", null=args.null,
                       c1=args.c1, c2=args.c2, readout=args.readout)
    except ValueError as exc:
        return _fail(str(exc), "simulate")
    print(json.dumps(res) if args.json else _table(res))
    return 0


def run() -> None:
    """The process's entry point (``python -m companion`` and the ``companion`` script):
    :func:`main` on the command line's arguments, then exit with its status."""
    sys.exit(main(sys.argv[1:]))
