"""A learned direction without detection (companion/chapters/learned_directions/own_parts.py;
book: ld-def-learned), the leading order behind the transects (book: dv-leading-order) and the
chapter's findings as values for the registry page."""

from __future__ import annotations

import numpy as np
import pytest

from companion.chapters.learned_directions import own_parts, summaries
from companion.chapters.learned_directions import transect_summaries as trs
from companion.core import store
from companion.core.expansion import leading_order_constants
from companion.core.runs import Run, Runs
from companion.core.spikes import bbp_detection_strength


def _unit(N, point, seed):
    """An E14 unit whose answers are chosen: the reused k = 2 own part carries 0.01 N/512 of
    beta*_2 (0.01 at 512, 0.02 at 1024), the fresh own parts at most 0.015 (its k = 1 part);
    the reused k = 1 own part 0.012, above that level only in seed 0 at 512 (0.02); the
    reused run has a k = 2 spike on the powers of a in seed 0 only."""
    own_r = np.zeros((5, 2))
    own_r[0] = (0.33, 0.001)
    own_r[1, 1] = 0.02 if (seed == 0 and N == 512) else 0.012
    own_r[2] = (0.01, 0.01 * N / 512)
    own_f = np.zeros((5, 2))
    own_f[0] = (0.34, 0.002)
    own_f[1] = (0.004, 0.015)
    own_f[2, 1] = 0.003
    weight = np.array([0.9, 0.5, 0.5 if seed == 0 else 0.01])
    result = {"own_cos2_reused": own_r, "own_cos2_fresh": own_f,
              "weight_reused": weight, "order_reused": np.array([0, 1, 2])}
    return Run(dict(N=N, alpha1=point[0], alpha2=point[1], activation="shifted_tanh",
                    target="he1+he3"), seed, result)


def _runs():
    return Runs([_unit(N, p, s) for N in (512, 1024) for p in own_parts.POINTS
                 for s in range(2)])


def test_fresh_level_leaves_the_first_part_out_only_for_a_learnable_direction():
    r = _unit(512, own_parts.POINTS[0], 0)
    assert own_parts.fresh_own_level(r, 1, (1.0, 0.0)) == 0.015        # every part
    assert own_parts.fresh_own_level(r, 0, (1.0, 0.0)) == 0.004        # the first left out


def test_the_own_part_reading_by_size_and_seed():
    runs = _runs()
    rows = own_parts.own_rows(runs)
    assert len(rows) == 2 * len(own_parts.POINTS)
    small = [r for r in rows if r["N"] == 512]
    assert all(list(r["above"][:3]) == [0, 1, 0] for r in small)     # 0.01 < 0.015
    large = [r for r in rows if r["N"] == 1024]
    assert all(list(r["above"][:3]) == [0, 0, 2] for r in large)     # 0.02 > 0.015
    assert all(r["spikes"][2] == 1 for r in rows)
    assert own_parts.first_size_carried_everywhere(runs) == 1024
    out = own_parts.learned(runs)
    assert out.N_from == "1024" and out.k2_from == "8 of 8" and out.k2_small == "0 of 8"
    assert out.k1_above == "4" and out.k1_of == "8"
    # the k = 2 own part carries beta*_2 in the 8 units at 1024, 4 of them without a spike
    assert out.no_spike == "4" and out.no_spike_of == "8"
    table = own_parts.own_table(runs).splitlines()
    assert table[-1].split()[0] == "1024" and "4/4" in table[-1]
    assert max(len(line) for line in table) <= 76
    assert own_parts.learned(None).N_from == "n/a" and own_parts.own_table(None) == "no stored runs"


def test_the_leading_order_constants_and_widths():
    """book: dv-leading-order. He_3's sixth moment makes the He_1 + He_3 constant an order of
    magnitude above the bounded link's, so its leading order falls below the census's need
    at a far larger width."""
    lo = trs.leading_order()
    c = {target: c2 for target, _, c2, _ in lo["rows"]}
    N = {target: n for target, _, _, n in lo["rows"]}
    assert lo["exponent"] == pytest.approx(-0.08) and lo["need"] == bbp_detection_strength(2.0)
    assert c["he1+he3"] == pytest.approx(leading_order_constants("he1+he3", "shifted_tanh",
                                                                 K=3)[2])
    assert c["he1+he3"] > 10 * c["bounded"] > 10 * c["he1"] / 2
    for target in c:           # c_2 N^e equals the need at the width the table gives
        assert c[target] * N[target] ** lo["exponent"] == pytest.approx(lo["need"], rel=1e-6)
    assert N["he1+he3"] > 1e20 > N["bounded"] > N["he1"]
    out = trs.leading_order_numbers()
    assert out.ratio == "15" and out.need == "1.22" and "×" in out.N_he1he3
    text = trs.leading_order_table().splitlines()
    assert text[2].startswith("He_1") and "e-" not in "".join(text)
    assert max(len(line) for line in text) <= 76


def test_the_registry_values_follow_the_stored_runs():
    e12, e14 = store.load("E12"), store.load("E14")
    if e12 is None or e14 is None:
        pytest.skip("no stored runs (COMPANION_PAPER_DATA=off)")
    k1, k2 = summaries.spike_he3_content(e12, 1), summaries.spike_he3_content(e12, 2)
    level = summaries.fresh_level_he3(e12)
    assert k2 > 10 * level and k1 < 2 * level
    he1, he3 = summaries.k2_limit_content()
    assert he1 > he3 > 0
    assert 6e4 < summaries.k2_he3_content_peak_size() < 1.3e5
    counted, runs = summaries.k1_spikes_counted_across_the_count_line(e14)
    assert runs >= 4 * 8 * 4 and 0 <= counted < runs / 10
    assert summaries.k2_own_part_carries_he3_from(e14) in sorted(e14.unique("N"))
