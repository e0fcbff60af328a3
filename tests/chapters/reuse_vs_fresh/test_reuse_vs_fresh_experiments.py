"""Tests of companion.chapters.reuse_vs_fresh.experiments (chapter "Reused versus fresh batches";
E6 to E9; book: dv-learnability). Small sizes (N = 60 to 500); the slowest test takes a few seconds.

At these sizes the He_3 headline is not visible (reused and fresh overlap below N ~ 1000,
see the chapter), so the science checks use what is robust at small N: the first-direction
alignment and the bounded odd target, whose reuse signal is the strongest of the book's
targets."""

import numpy as np
import pytest

import companion as cp
from companion.chapters.reuse_vs_fresh import experiments as rv
from companion.core.experiment import Experiment, run_units
from companion.core.runs import Run, Runs


# -- the mechanism's numbers ------------------------------------------------------------------
def test_link_moments_he3_and_mixture():
    m = rv.link_moments({"he3": "he3", "mix": rv.he2_plus_he3}, powers=(1, 2, 3))
    assert list(m["link"]) == ["he3", "mix"]
    assert m["information_exponent"].tolist() == [3, 2]
    # He_3: E[z g] = E[z g^2] = 0, E[z g^3] = 22.045 (book: dv-hermite)
    assert abs(m["E_z_g1"][0]) < 1e-10 and abs(m["E_z_g2"][0]) < 1e-10
    assert m["E_z_g3"][0] == pytest.approx(22.045, abs=1e-3)
    # (He_2 + He_3)/sqrt2: mu* = 0 but E[z g^2] = sqrt(3) != 0
    assert abs(m["E_z_g1"][1]) < 1e-10
    assert m["E_z_g2"][1] == pytest.approx(np.sqrt(3), abs=1e-6)


@pytest.mark.parametrize("kind", ["sharp", "gentle"])
def test_bounded_odd_link_has_exponent_three_and_is_bounded(kind):
    link = rv.bounded_odd_link(kind)
    z = np.linspace(-30, 30, 2001)
    assert abs(link.mu_star) < 1e-10
    assert link.information_exponent() == 3
    assert link.moment(2) == pytest.approx(1.0, abs=1e-8)
    assert np.max(np.abs(link(z))) < 5
    np.testing.assert_allclose(link(-z), -link(z), atol=1e-12)  # odd
    assert link.z_moment(3) > (1.0 if kind == "sharp" else 0.05)


def test_bounded_odd_link_rejects_unknown_kind():
    with pytest.raises(ValueError, match="sharp"):
        rv.bounded_odd_link("smooth")


def test_target_spec_knows_the_labels():
    assert rv.target_spec("He_3") == "he3"
    assert rv.target_spec("bounded gentle").name == "bounded-gentle"
    assert set(rv.TARGET_LABELS) <= {"He_1", "He_3", "He_2", "(He_2+He_3)/sqrt2",
                                     "bounded odd", "bounded gentle"}
    with pytest.raises(ValueError, match="He_3"):
        rv.target_spec("He_4")


def test_activation_moments_tanh_and_relu():
    m = rv.activation_moments(["tanh", "relu"], pairs=((1, 1), (2, 2)))
    assert m["m1"][0] == pytest.approx(0.6057, abs=1e-4)
    assert m["kappa_22"][0] == pytest.approx(-0.4916, abs=1e-4)
    assert abs(m["kappa_11"][0]) < 1e-10  # tanh odd
    assert m["kappa_22"][1] == 0.0 and m["m2"][1] == pytest.approx(0.3989, abs=1e-4)


def test_learnability_table_matches_the_statement():
    t = rv.learnability_table({"he3": "he3", "he2": "he2", "he1": "he1"}, rv.HEADLINE_SETTINGS,
                              activations=["tanh", "relu"])
    def row(target, act):
        return t["learnable"][(t["target"] == target) & (t["activation"] == act)].tolist()
    # settings: reused Lambda=3, reused Lambda=1, fresh Lambda=3
    assert row("he3", "tanh") == [1.0, 0.0, 0.0]
    # ReLU lies outside the smooth expansion: no prediction (NaN) for a reused batch
    assert np.isnan(row("he3", "relu")[:2]).all() and row("he3", "relu")[2] == 0.0
    assert row("he2", "tanh") == [0.0, 0.0, 0.0]
    assert row("he1", "tanh") == [1.0, 1.0, 1.0]
    assert t["lambda"][:3].tolist() == [3, 1, 3]


def test_headline_point_lies_on_the_k3_line_and_inside_the_k2_region():
    a1, a2 = rv.HEADLINE_POINT
    assert cp.phase_line(a1, a2) == 3
    assert cp.spike_exponent(a1, a2, 2) == pytest.approx(0.15)
    assert rv.HEADLINE_SETTINGS[0] == ("reused", a1, a2)


# -- the first learned direction --------------------------------------------------------------
def _first(N, seeds, pair=(0.2, 0.2), **kw):
    units = [(dict(N=N, alpha1=pair[0], alpha2=pair[1], batch=b, target="he1",
                   activation="tanh", **kw), s) for b in ("reused", "fresh") for s in seeds]
    return run_units(rv.first_direction_unit, units)


def test_first_direction_unit_reproducible_and_science():
    a, b = _first(200, (0, 1, 2)), _first(200, (0, 1, 2))
    np.testing.assert_array_equal(a.values("cos2"), b.values("cos2"))
    reused, fresh = a.where(batch="reused"), a.where(batch="fresh")
    # limits (book: dv-first-direction) (He_1, psi = 1): reused 1/2; fresh at equal steps 2/3
    np.testing.assert_allclose(reused.values("limit"), 0.5)
    np.testing.assert_allclose(fresh.values("limit"), 2 / 3)
    # the fresh batch aligns the first direction better (by ~0.15; seed noise ~0.03)
    assert fresh.mean("cos2") > reused.mean("cos2") + 0.08
    # Lambda = 0: each run matches its own finite-size prediction cos2(ubar) (1 - 1/theta^2)
    assert np.max(np.abs(a.values("cos2") - a.values("finite_size_prediction"))) < 0.05
    assert np.all((0 < a.values("spike_factor")) & (a.values("spike_factor") < 1))
    assert np.all(a.values("limit_finite_n") < a.values("limit"))
    assert set(a[0].result) == {"cos2", "limit", "limit_finite_n", "ubar_cos2", "v_ubar_cos2",
                                "theta", "spike_factor", "finite_size_prediction", "s1",
                                "lambda"}   # the stored runs' keys


def test_first_direction_unit_psi_two():
    r = rv.first_direction_unit(150, 0.2, 0.2, "reused", "he1", "tanh", seed=0, psi=2)
    assert r["limit"] == pytest.approx(2 / 3)  # mu^2 / (mu^2 + E y^2 / psi), psi = 2


def test_first_direction_experiment_runs_every_pair_and_batch():
    runs = rv.FIRST_DIRECTION.run(N=60, seeds=1)
    assert len(runs) == 2 * len(rv.FIRST_DIRECTION_PAIRS)
    assert runs.unique("batch") == ["reused", "fresh"]
    assert runs.where(alpha1=0.35, alpha2=0.45)[0]["lambda"] == 3


# -- the projection runs ----------------------------------------------------------------------
def test_headline_runs_the_control_only_at_its_own_sizes():
    """``control_Ns``: the Lambda = 1 control at those sizes only, the other settings at all
    of ``Ns`` (the chapter's control stops at N // 2); without it, every setting everywhere."""
    params = [p for p, _ in rv.HEADLINE.grid(dict(Ns=[40, 80], control_Ns=[40], seeds=1))]
    control = [p["N"] for p in params if p["alpha1"] == 0.20]
    assert control == [40]
    assert sorted(p["N"] for p in params if p["alpha1"] == 0.35) == [40, 40, 80, 80]
    every = rv.HEADLINE.grid(dict(Ns=[40, 80], seeds=1))
    assert len(every) == 6 and len(params) == 5
    with pytest.raises(ValueError, match=r"control_Ns must be sizes of Ns = \[40, 80\]"):
        rv.HEADLINE.run(Ns=[40, 80], control_Ns=[60], seeds=1)


def test_projection_unit_keys_shapes_and_predictions():
    runs = rv.HEADLINE.run(Ns=[150], seeds=2)
    again = rv.HEADLINE.run(Ns=[150], seeds=2)
    np.testing.assert_array_equal(runs.values("projection"), again.values("projection"))
    assert len(runs) == 6
    proj = runs.values("projection")
    assert np.all((proj >= 0) & (proj <= 1))
    np.testing.assert_allclose(runs.values("chance"), 4 / 150)
    assert runs.values("learnable").tolist() == [1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    assert runs.values("lambda").tolist() == [3, 3, 1, 1, 3, 3]
    s = np.stack([runs.values(f"s_{i}") for i in range(4)], axis=1)
    assert np.all(np.diff(s, axis=1) <= 0)  # singular values sorted
    cos2 = np.stack([runs.values(f"cos2_{i}") for i in range(4)], axis=1)
    np.testing.assert_allclose(cos2.sum(axis=1), proj, rtol=1e-5)   # the small scale runs in float32
    left = runs.values("left")
    assert left.shape == (6, 4, 5)
    assert np.all(left.sum(axis=2) <= 1 + 1e-9)
    assert np.all(left[:, 0, 0] > 0.5)   # the first left vector is a (on q_1)


def test_projection_unit_relu_reused_has_no_prediction():
    r = rv.projection_unit(60, "reused", 0.35, 0.45, "He_3", "relu", 4, seed=0)
    assert np.isnan(r["learnable"])
    assert rv.projection_unit(60, "fresh", 0.35, 0.45, "He_3", "relu", 4, seed=0)[
        "learnable"] == 0.0


def test_reuse_learns_bounded_odd_target_fresh_does_not():
    """At small size: the bounded odd target (mu* = 0, exponent 3) is picked up with a
    reused batch at Lambda = 3 and much less with a fresh one (measured at N = 500, seeds
    0-2: means 0.13 against 0.05; chance 0.008)."""
    units = [(rv._proj({}, 500, b, 0.35, 0.45, target="bounded odd"), s)
             for b in ("reused", "fresh") for s in (0, 1, 2)]
    runs = run_units(rv.projection_unit, units)
    reused = runs.where(batch="reused").mean("projection")
    fresh = runs.where(batch="fresh").mean("projection")
    assert reused > 2 * fresh
    assert reused > 10 * runs[0]["chance"]


def test_run_missing_takes_the_runs_it_has():
    headline = rv.HEADLINE.run(Ns=[60], seeds=1)
    calls = []

    def counting(**kw):
        calls.append(kw)
        return rv.projection_unit(**kw)

    exp = Experiment("tiny", "tiny", counting, rv.OTHER_TARGETS.grid, rv.OTHER_TARGETS.sizes)
    others = rv.run_missing(exp, headline, N=60, seeds=1)
    assert others.unique("target") == list(rv.TARGET_LABELS)
    assert len(others) == 2 * len(rv.TARGET_LABELS)
    assert len(calls) == 2 * (len(rv.TARGET_LABELS) - 1)       # He_3 taken, not computed
    he3 = others.where(target="He_3", batch="reused")[0]
    assert he3 is headline.where(alpha1=0.35, batch="reused")[0]
    direct = rv.OTHER_TARGETS.run(N=60, seeds=1)
    np.testing.assert_array_equal(others.values("projection"), direct.values("projection"))


def test_ablation_grid_has_a_fresh_control_for_tanh_and_relu():
    units = rv.ACTIVATION_ABLATION.units("small")
    fresh = {p["activation"] for p, _ in units if p["batch"] == "fresh"}
    assert fresh == {"tanh", "relu"}
    assert {p["activation"] for p, _ in units} == set(rv.ABLATION_ACTIVATIONS)


# -- which vector carries beta* ---------------------------------------------------------------
def _fake(cos2, left=None):
    result = {f"cos2_{i}": c for i, c in enumerate(cos2)}
    result["projection"] = float(sum(cos2))
    if left is not None:
        result["left"] = np.asarray(left, float)
    return Run({"N": 10}, 0, result)


def test_beta_carrier_finds_the_vector_and_its_left_weights():
    left = np.zeros((4, 5))
    left[0, 0] = 0.98
    left[1, [0, 2, 4]] = [0.01, 0.3, 0.1]
    runs = Runs([_fake([0.05, 0.12, 0.0, 0.0], left), _fake([0.08, 0.06, 0.0, 0.0], left)])
    c = rv.beta_carrier(runs)
    assert c["index"] == 1 and c["largest_in"] == 1 and c["runs"] == 2
    np.testing.assert_allclose(c["share"], [0.065, 0.09, 0, 0])
    assert c["q3"] == pytest.approx(0.3)
    assert c["q3_of_powers"] == pytest.approx(0.3 / 0.41)
    np.testing.assert_allclose(c["left_first"][:, 0], 0.98)


def test_beta_carrier_without_left_vectors():
    c = rv.beta_carrier(Runs([_fake([0.01, 0.2, 0.0, 0.0])]))
    assert c["index"] == 1 and "q3" not in c and "left" not in c
