"""Tests of companion.experiments.reuse_vs_fresh (chapter "Reused versus fresh batches";
SPEC 3.3, E6 to E9). Small sizes (N = 150 to 500); the slowest test takes a few seconds.

At these sizes the He_3 headline (E7) is not visible (reused and fresh overlap below
N ~ 1000, see the chapter), so the science checks use what is robust at small N: the
first-direction alignment (E6) and the bounded odd target (E8), whose reuse signal is
the strongest of the book's targets."""

import numpy as np
import pytest

import companion as cp
from companion.experiments import reuse_vs_fresh as rv


# -- the mechanism's numbers ------------------------------------------------------------------
def test_link_moments_he3_and_mixture():
    m = rv.link_moments({"he3": "he3", "mix": rv.he2_plus_he3}, powers=(1, 2, 3))
    assert list(m["link"]) == ["he3", "mix"]
    assert m["information_exponent"].tolist() == [3, 2]
    # He_3: E[z g] = E[z g^2] = 0, E[z g^3] = 22.045 (SPEC 3.3)
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


def test_activation_moments_tanh_and_relu():
    m = rv.activation_moments(["tanh", "relu"], pairs=((1, 1), (2, 2)))
    assert m["m1"][0] == pytest.approx(0.6057, abs=1e-4)
    assert m["kappa_22"][0] == pytest.approx(-0.4916, abs=1e-4)
    assert abs(m["kappa_11"][0]) < 1e-10  # tanh odd
    assert m["kappa_22"][1] == 0.0 and m["m2"][1] == pytest.approx(0.3989, abs=1e-4)


def test_learnability_table_matches_the_statement():
    t = rv.learnability_table({"he3": "he3", "he2": "he2", "he1": "he1"}, rv.E7_SETTINGS,
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


# -- summarize --------------------------------------------------------------------------------
def test_summarize_groups_in_order_of_appearance():
    runs = {"N": np.array([10, 10, 20, 20, 10]), "batch": np.array(["r", "r", "r", "f", "f"]),
            "projection": np.array([1.0, 3.0, 5.0, 7.0, 9.0])}
    s = rv.summarize(runs, ("N", "batch"))
    assert s["N"].tolist() == [10, 20, 20, 10]
    assert s["batch"].tolist() == ["r", "r", "f", "f"]
    np.testing.assert_allclose(s["mean"], [2.0, 5.0, 7.0, 9.0])
    np.testing.assert_allclose(s["std"], [1.0, 0.0, 0.0, 0.0])
    assert s["min"][0] == 1.0 and s["max"][0] == 3.0
    assert s["count"].tolist() == [2, 1, 1, 1]


# -- E6 ---------------------------------------------------------------------------------------
def test_first_direction_runs_shapes_reproducible_and_science():
    kw = dict(N=200, alpha_pairs=[(0.2, 0.2)], seeds=(0, 1, 2))
    a = rv.first_direction_runs(**kw)
    b = rv.first_direction_runs(**kw)
    assert a["cos2"].shape == (6,)
    assert a["batch"].tolist() == ["reused"] * 3 + ["fresh"] * 3
    np.testing.assert_array_equal(a["cos2"], b["cos2"])
    # limits of SPEC 3.3 (He_1, psi = 1): reused 1/2; fresh at equal steps 2/3
    np.testing.assert_allclose(a["limit"][:3], 0.5)
    np.testing.assert_allclose(a["limit"][3:], 2 / 3)
    # the fresh batch aligns the first direction better (by ~0.15; seed noise ~0.03)
    assert a["cos2"][3:].mean() > a["cos2"][:3].mean() + 0.08
    # Lambda = 0: each run matches its own finite-size prediction cos2(ubar) (1 - 1/theta^2)
    assert np.max(np.abs(a["cos2"] - a["finite_size_prediction"])) < 0.05
    assert np.all((0 < a["spike_factor"]) & (a["spike_factor"] < 1))
    assert np.all(a["limit_finite_n"] < a["limit"])


def test_first_direction_runs_psi_two():
    r = rv.first_direction_runs(150, alpha_pairs=[(0.2, 0.2)], seeds=(0,), batches=("reused",),
                                n=300)
    assert r["limit"][0] == pytest.approx(2 / 3)  # mu^2 / (mu^2 + E y^2 / psi), psi = 2


# -- E7 to E9 ---------------------------------------------------------------------------------
def test_projection_runs_shapes_labels_and_reproducible():
    kw = dict(Ns=(150,), seeds=(0, 1), settings=rv.E7_SETTINGS, targets="he3", m=4)
    a = rv.projection_runs(**kw)
    b = rv.projection_runs(**kw)
    assert a["projection"].shape == (6,)
    assert a["s"].shape == (6, 4)
    np.testing.assert_array_equal(a["projection"], b["projection"])
    assert np.all((a["projection"] >= 0) & (a["projection"] <= 1))
    np.testing.assert_allclose(a["chance"], 4 / 150)
    assert a["learnable"].tolist() == [True, True, False, False, False, False]
    assert a["lambda"].tolist() == [3, 3, 1, 1, 3, 3]
    assert np.all(np.diff(a["s"], axis=1) <= 0)  # singular values sorted
    np.testing.assert_allclose(a["cos2"].sum(axis=1), a["projection"], rtol=1e-8)


def test_projection_runs_dict_labels_and_aspect_ratios():
    r = rv.projection_runs((120,), seeds=(0,), settings=[("reused", 0.35, 0.45)],
                           targets={"mix": rv.he2_plus_he3},
                           activations={"shift": "shifted_tanh"}, phi=2.0, psi=0.5)
    assert r["target"].tolist() == ["mix"] and r["activation"].tolist() == ["shift"]
    np.testing.assert_allclose(r["chance"], 4 / 60)  # d = N / phi


def test_reuse_learns_bounded_odd_target_fresh_does_not():
    """E8 at small size: the bounded odd target (mu* = 0, exponent 3) is picked up with a
    reused batch at Lambda = 3 and much less with a fresh one (measured at N = 500, seeds
    0-2: means 0.13 against 0.05; chance 0.008)."""
    r = rv.projection_runs((500,), seeds=(0, 1, 2),
                           settings=[("reused", 0.35, 0.45), ("fresh", 0.35, 0.45)],
                           targets={"bounded": rv.bounded_odd_link("sharp")})
    reused = r["projection"][r["batch"] == "reused"].mean()
    fresh = r["projection"][r["batch"] == "fresh"].mean()
    assert reused > 2 * fresh
    assert reused > 10 * r["chance"][0]


def test_bad_seeds_rejected():
    with pytest.raises(ValueError, match="seeds"):
        rv.projection_runs((100,), seeds=(-1,))


# -- stored paper-scale runs ------------------------------------------------------------------
def test_paper_scale_runs_reads_a_tidy_csv(tmp_path):
    (tmp_path / "E7.csv").write_text(
        "N,batch,alpha1,target,seed,projection,learnable\n"
        "1024,reused,0.35,He_3,0,0.1,True\n"
        "1024,fresh,0.35,He_3,1,0.02,False\n")
    r = rv.paper_scale_runs("E7", root=tmp_path)
    assert r["N"].dtype.kind == "i" and r["seed"].tolist() == [0, 1]
    assert r["batch"].tolist() == ["reused", "fresh"]
    np.testing.assert_allclose(r["projection"], [0.1, 0.02])
    assert r["learnable"].tolist() == [True, False]
    assert rv.paper_scale_runs("E9", root=tmp_path) is None  # missing file: None, no error
