"""The numbers of the introduction (book/intro.ipynb): its headline figure's and the
step-size points' (``intro-conj-count``, ``intro-conj-he3``)."""

from __future__ import annotations

from companion.chapters.intro.figures import SPIKE_POINT, spike_runs
from companion.core.runs import Runs
from companion.core.spikes import spike_counts
from companion.core.theory import (
    KNIFE_EDGE,
    lambda_count,
    nearest_line,
    phase_line,
    spike_exponent,
)
from companion.presentation.book import Numbers, fmt, fmt_fixed, fmt_signed


def headline(spikes: Runs | None = None, projection: Runs | None = None) -> Numbers:
    """The numbers the introduction quotes from its headline figure
    (``fig-intro-headline``; observations ``intro-obs-spikes`` and ``intro-obs-he3``),
    ``"n/a"`` where the stored runs are absent:

    * ``spikes_Ns``, ``spikes_seeds``: sizes and seeds per size of panel (a);
      ``spikes_first``, ``spikes_last``: mean number of outliers with tanh(z + 1/2) at the
      smallest and the largest N; ``spikes_tanh``: the same with tanh at the largest N;
      ``spikes_first_range``, ``spikes_last_range``, ``spikes_tanh_range``: the smallest and
      largest count over the seeds there (the interval shown: with 4 seeds a bootstrap
      interval of a mean of small integers says no more; one aggregation,
      :func:`companion.chapters.two_steps.summaries.spike_counts`);
    * ``he3_Ns``, ``he3_seeds``: sizes and seeds of panel (b); ``he3_reused_first`` and
      ``he3_reused``: the mean projection, reused at (0.35, 0.45), at the smallest and the
      largest N; ``he3_control``: reused at (0.20, 0.45), ``he3_fresh``: fresh at
      (0.35, 0.45), ``he3_chance``: 4/d, all at the largest N.
    """
    out = dict.fromkeys(("spikes_Ns", "spikes_seeds", "spikes_first", "spikes_last",
                         "spikes_tanh", "spikes_first_range", "spikes_last_range",
                         "spikes_tanh_range", "he3_Ns", "he3_seeds", "he3_reused_first",
                         "he3_reused", "he3_control", "he3_fresh", "he3_chance"), "n/a")
    if spikes is not None and len(spikes):
        counts = spike_counts(spike_runs(spikes), ("shifted_tanh", "tanh"))
        shifted, tanh = (counts[(*SPIKE_POINT, act)] for act in ("shifted_tanh", "tanh"))

        def at(row, i, key="mean"):
            return fmt(row[key][i])

        def span(row, i):
            return f"[{int(row['min'][i])}, {int(row['max'][i])}]"

        out.update(spikes_Ns=fmt(list(shifted["N"])), spikes_seeds=fmt(shifted["seeds"][-1]),
                   spikes_first=at(shifted, 0), spikes_last=at(shifted, -1),
                   spikes_tanh=at(tanh, -1), spikes_first_range=span(shifted, 0),
                   spikes_last_range=span(shifted, -1), spikes_tanh_range=span(tanh, -1))
    if projection is not None and len(projection):
        runs = projection.where(target="He_3", activation="tanh")
        Ns = sorted(runs.unique("N"))
        last = runs.where(N=Ns[-1])
        reused = runs.where(batch="reused", alpha1=0.35, alpha2=0.45)
        out.update(he3_Ns=fmt(Ns), he3_seeds=fmt(len(reused.where(N=Ns[-1]))),
                   he3_reused_first=fmt(reused.where(N=Ns[0]).mean("projection")),
                   he3_reused=fmt(reused.where(N=Ns[-1]).mean("projection")),
                   he3_control=fmt(last.where(batch="reused", alpha1=0.20)
                                   .mean("projection")),
                   he3_fresh=fmt(last.where(batch="fresh", alpha1=0.35).mean("projection")),
                   he3_chance=fmt(last.mean("chance")))
    return Numbers(**out)


def step_sizes() -> Numbers:
    """The counts and exponents the introduction quotes for its step-size points: Lambda at
    (0.20, 0.45) and (0.35, 0.45) (``thm-spiked-spectrum``), the phase line of (0.35, 0.45),
    and the exponents of the terms k = 2 there and k = 3 at (0.38, 0.45)
    (``conj-w2-expansion``); ``edge_k``, ``edge_exponent``: the phase line nearest to
    (0.38, 0.45) and its term's exponent (:func:`companion.core.theory.nearest_line`), within
    ``knife_edge`` of zero."""
    k, e = nearest_line(0.38, 0.45)
    return Numbers(edge_k=k, edge_exponent=fmt_signed(e), knife_edge=fmt_fixed(KNIFE_EDGE),
                   lambda_low=lambda_count(0.20, 0.45),
                   lambda_high=lambda_count(0.35, 0.45),
                   line_k=phase_line(0.35, 0.45),
                   exponent_k2=fmt_signed(spike_exponent(0.35, 0.45, 2)),
                   exponent_k3=fmt_signed(spike_exponent(0.38, 0.45, 3)))
