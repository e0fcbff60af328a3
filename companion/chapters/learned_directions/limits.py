"""What the companion's theory says each spike carries, beyond what the stored runs can show
(book: ld-def-learned, dv-fresh-level, dv-limit-content, dv-finite-n):

* :func:`fresh_level`: the squared cosine of a fresh batch's first spike with a target
  direction that it cannot learn, from the noise of u_1 and u_2 alone (book: dv-fresh-level);
* :func:`limit_content`: the cos^2 of each term's own part with each target direction as
  N -> infinity, from the leading-order expansion (book: dv-limit-content);
* :func:`content_path`: the same at finite N from the saturation-aware mean field
  (:func:`companion.core.finite_n.predicted_terms`), at E12's point up to N = 2^50;
* :func:`predicted_spike_content`: what each spike's right vector keeps of its term's own
  part, the limit law of the spiked model (book: dv-spike-overlap);
* :func:`beyond`: the k = 2 term's predicted strength at a point below the learnability
  line, far beyond reachable N.

The finite-N evaluations are slow quadratures, so the values the chapter
quotes are tabulated here (:data:`CONTENT_PATH`, :data:`BEYOND_TABLE`, computed with this
package); tests/chapters/learned_directions/test_learned_directions_limits.py
recomputes entries of both.
"""

from __future__ import annotations

from math import comb

import numpy as np
from numpy.polynomial import hermite_e

from companion.chapters.learned_directions.experiments import (
    E12_ACTIVATION,
    E12_POINTS,
    E12_TARGET,
)
from companion.core.activations import get_activation
from companion.core.finite_n import predicted_terms
from companion.core.gaussian import gaussian_expectation
from companion.core.network import step_size
from companion.core.targets import Target, target_moments
from companion.core.theory import predicted_spike_cos2
from companion.core.validation import positive_int, positive_real

#: the sizes of :data:`CONTENT_PATH`: half octaves from 2^9 to 2^20, then 2^24 .. 2^40, 2^50
PATH_LOG2 = tuple(j / 2 for j in range(18, 41)) + (24, 28, 32, 36, 40, 50)
#: :func:`content_path` at E12's point (0.30, 0.45), tanh(z + 1/2), he1+he3, reused batch:
#: log2 N -> (cos^2 of the k = 2 term's own part with beta*_1, with beta*_2, its separate
#: strength)
CONTENT_PATH: dict[float, tuple[float, float, float]] = {
    9.0: (0.006712631621295748, 0.010406228736892429, 1.1003346388087625),
    9.5: (0.005806290551092339, 0.015032060703189264, 1.2003054743001593),
    10.0: (0.0046756833281462505, 0.02049001401143618, 1.3264312899028006),
    10.5: (0.003446595258580549, 0.026557293422749036, 1.4827992973323747),
    11.0: (0.002256547569110767, 0.032972671943573464, 1.6743568139209226),
    11.5: (0.0012357021329208171, 0.03945046004032597, 1.9062301593721553),
    12.0: (0.00048451200231819846, 0.04574459007331961, 2.1848107212147423),
    12.5: (7.102218255499244e-05, 0.05163923114533321, 2.516908499905269),
    13.0: (2.8148420379395437e-05, 0.05697208788555798, 2.910380497258276),
    13.5: (0.0003592718355981818, 0.06163403550723996, 3.3745255510308243),
    14.0: (0.0010450510251636105, 0.06555674427609862, 3.919746678057071),
    14.5: (0.0020494412633777267, 0.06870887628912689, 4.557662255914715),
    15.0: (0.003326230907530402, 0.0710917749189141, 5.301617039201379),
    15.5: (0.004823017524241053, 0.07273043220907119, 6.166163101736673),
    16.0: (0.0064856945500776616, 0.07366985369386961, 7.167456201449031),
    16.5: (0.008261129806857993, 0.07396926641483736, 8.322990664364534),
    17.0: (0.010099417668653668, 0.0736975005092867, 9.651436707775876),
    17.5: (0.011955582690093194, 0.07292841822174896, 11.172506840953767),
    18.0: (0.013790463340971669, 0.07173658502066863, 12.906699266689833),
    18.5: (0.015571151086126084, 0.0701934261859649, 14.875229365735544),
    19.0: (0.01727070710843982, 0.06836436237276279, 17.099878884938825),
    19.5: (0.018867675270386398, 0.06630697209703443, 19.603118750073172),
    20.0: (0.020345291648869772, 0.06407049134637749, 22.40817236734461),
    24: (0.027017885178750985, 0.043725868155840515, 58.80797545571029),
    28: (0.0262681119392656, 0.027056043951606733, 127.84160967131739),
    32: (0.02280823615270848, 0.01746579670677589, 227.9389575251084),
    36: (0.019553972340674408, 0.012674976982953825, 341.301870368993),
    40: (0.01759682032745642, 0.010554078967392003, 448.4012147388676),
    50: (0.016271125037436187, 0.00933846842320258, 689.2183220481804),
}

#: the point below the learnability line of :func:`beyond` (Lambda = 1, k = 2 exponent -0.08)
BEYOND_POINT = (0.30, 0.32)
#: the sizes of :data:`BEYOND_TABLE`: 2^12, 2^16, ..., 2^60
BEYOND_LOG2 = tuple(range(12, 61, 4))
#: :func:`beyond` at :data:`BEYOND_POINT`, tanh(z + 1/2), reused batch: (target, log2 N) ->
#: the k = 2 term's predicted separate strength (with the floor) and its mean field alone
BEYOND_TABLE: dict[tuple[str, int], tuple[float, float]] = {
    ('he1+he3', 12): (0.7135619922387548, 0.6305787091648273),
    ('he1+he3', 16): (1.5909081503792, 1.5743417733006666),
    ('he1+he3', 20): (3.570377009336895, 3.5671579495154537),
    ('he1+he3', 24): (6.659487673217235, 6.658788900218627),
    ('he1+he3', 28): (10.19021984091241, 10.190045009040869),
    ('he1+he3', 32): (12.721268249976275, 12.72121657100802),
    ('he1+he3', 36): (13.303893252472974, 13.30387540955679),
    ('he1+he3', 40): (12.195521673500338, 12.19551472424512),
    ('he1+he3', 44): (10.346657779820884, 10.346654868344912),
    ('he1+he3', 48): (8.467972034054844, 8.467970770695446),
    ('he1+he3', 52): (6.834056384342344, 6.83405582809465),
    ('he1+he3', 56): (5.488243857861911, 5.48824361147232),
    ('he1+he3', 60): (4.400111817038181, 4.400111707582701),
    ('he1', 12): (0.48552594694254164, 0.41061335182856595),
    ('he1', 16): (0.6976122387203727, 0.6743019991678414),
    ('he1', 20): (0.8255110709019925, 0.8172859386557886),
    ('he1', 24): (0.7989412444640386, 0.7956836176444458),
    ('he1', 28): (0.6896505334143077, 0.688274205224383),
    ('he1', 32): (0.5671406898476445, 0.5665430284368778),
    ('he1', 36): (0.45828931196093464, 0.4580269960643107),
    ('he1', 40): (0.36814861710875785, 0.368032963693436),
    ('he1', 44): (0.2951686704550198, 0.29511755579536564),
    ('he1', 48): (0.2365110538570144, 0.23648842410925544),
    ('he1', 52): (0.18947455635326038, 0.18946452278645148),
    ('he1', 56): (0.15178426064472209, 0.15177980581351597),
    ('he1', 60): (0.12158965871096639, 0.12158767815697345),
}


def _moment_z2_y2(target: Target, j: int) -> float:
    """E[z_j^2 y^2] for y = sum_m g_m(z_m) (independent z_m): the variance of u_1's noise
    along beta*_j, times n (book: dv-fresh-level)."""
    link = target.links[j]
    others = Target(target.links[:j] + target.links[j + 1:], np.zeros((0, 0)), target.noise)
    rest = others.y_moments(2)
    own2 = gaussian_expectation(lambda z: z ** 2 * link(z) ** 2)
    own1 = gaussian_expectation(lambda z: z ** 2 * link(z))
    return float(own2 + 2.0 * own1 * rest[1] + rest[2])


def noise_moments(target=E12_TARGET) -> dict[str, np.ndarray]:
    """``z2y2`` (per direction j: E[z_j^2 y^2], what u_1's noise puts along beta*_j, times
    n), ``y2`` (E[y^2], what it puts along a direction orthogonal to every beta*), ``mu``
    (mu*_j) of a target (book: dv-fresh-level)."""
    tgt = target if isinstance(target, Target) else target_moments(target)
    return {"z2y2": np.array([_moment_z2_y2(tgt, j) for j in range(len(tgt.links))]),
            "y2": np.array(tgt.second_moment), "mu": tgt.mu_star}


def fresh_level(N: int, alpha1: float, alpha2: float, target=E12_TARGET, j: int = 1,
                psi: float = 1.0, c1: float = 1.0, c2: float = 1.0) -> float:
    """cos^2 of the fresh batch's first spike direction u = eta1 u_1 + eta2 u_2 with beta*_j
    (book: dv-fresh-level): each u_t = X_t^T y_t / n has mean mu* . beta* and a noise of
    variance E[z_j^2 y^2] / n along beta*_j (minus mu*_j^2) and E[y^2] / n along each of the
    other d directions, independent between the batches; before the spiked model's loss of
    overlap (near 1 for the first spike). N = d, n = psi d, eta_t = c_t N^alpha_t."""
    N = positive_int(N, "N")
    psi = positive_real(psi, "psi")
    tgt = target if isinstance(target, Target) else target_moments(target)
    eta1, eta2 = step_size(N, alpha1, c1), step_size(N, alpha2, c2)
    mom = noise_moments(tgt)
    n = psi * N
    mu = np.asarray(mom["mu"], float)
    sq = eta1 ** 2 + eta2 ** 2
    along = (eta1 + eta2) ** 2 * mu[j] ** 2 + sq * (mom["z2y2"][j] - mu[j] ** 2) / n
    total = (eta1 + eta2) ** 2 * float(mu @ mu) + sq * float(mom["y2"]) / psi
    return float(along / total)


def limit_content(activation=E12_ACTIVATION, target=E12_TARGET, K: int = 3, psi: float = 1.0,
                  nodes: int = 20) -> np.ndarray:
    """(K, m): the cos^2 of the own part of each term k = 0..K-1 of a reused batch's W2 (the
    part of its row orthogonal to the rows before it) with each target direction, as
    N -> infinity (book: dv-limit-content). Row k tends to a multiple of (1/n) X^T v_k
    with v_0 = y and v_k = y p_k(y / psi, m_1 h) (book: dv-expansion), h = mu* . z + omega nu;
    the rows' inner products are those of book: dv-finite-n. Gauss-Hermite quadrature with
    ``nodes`` nodes per dimension of a sample (exact for polynomial links and v_k)."""
    K = positive_int(K, "K")
    act = get_activation(activation)
    tgt = target if isinstance(target, Target) else target_moments(target)
    m = len(tgt.links)
    x, w = hermite_e.hermegauss(positive_int(nodes, "nodes"))
    w = w / np.sqrt(2.0 * np.pi)
    grids = np.meshgrid(*([x] * (m + 1)), indexing="ij")
    weights = np.prod(np.meshgrid(*([w] * (m + 1)), indexing="ij"), axis=0).ravel()
    feats = np.stack([g.ravel() for g in grids], axis=1)          # z_1..z_m, nu
    y = sum(link(feats[:, i]) for i, link in enumerate(tgt.links))
    omega = np.sqrt(tgt.second_moment / psi)
    s = act.m(1) * (feats[:, :m] @ tgt.mu_star + omega * feats[:, m])
    v = np.stack([y] + [y * sum(comb(k, r) * act.kappa(k, r) * (y / psi) ** r * s ** (k - r)
                                for r in range(k + 1)) for k in range(1, K)])
    moments = (v * weights) @ feats                                  # (K, m + 1)
    gram = moments @ moments.T + (v * weights) @ v.T / psi
    out = np.zeros((K, m))
    for k in range(K):
        coef = np.linalg.lstsq(gram[:k, :k], gram[:k, k], rcond=None)[0] if k else np.zeros(0)
        along = moments[k, :m] - coef @ moments[:k, :m]
        norm2 = gram[k, k] - gram[:k, k] @ coef
        out[k] = along ** 2 / norm2 if norm2 > 0 else 0.0
    return out


def content_path(log2_N=PATH_LOG2, point=E12_POINTS[0]) -> dict[str, np.ndarray]:
    """The k = 2 term's own part at finite N (:func:`companion.core.finite_n.predicted_terms`,
    reused batch, tanh(z + 1/2), he1+he3): ``N``, ``he1``, ``he3`` (its cos^2 with beta*_1,
    beta*_2) and ``strength`` (its separate strength) along ``log2_N``; read from
    :data:`CONTENT_PATH` at E12's point and sizes, computed otherwise."""
    rows = []
    for j in log2_N:
        if tuple(point) == E12_POINTS[0] and j in CONTENT_PATH:
            rows.append(CONTENT_PATH[j])
        else:
            p = predicted_terms(int(round(2.0 ** j)), point[0], point[1], E12_ACTIVATION,
                                E12_TARGET, K=3)
            rows.append((float(p["cos2"][2][0]), float(p["cos2"][2][1]),
                         float(p["strength"][2])))
    he1, he3, strength = np.array(rows, float).T
    return {"N": 2.0 ** np.asarray(log2_N, float), "he1": he1, "he3": he3,
            "strength": strength}


def peak(log2_N, values) -> tuple[float, float]:
    """(N, value) at the largest of ``values`` on the grid ``log2_N``, refined by the parabola
    through it and its two neighbours in log N."""
    x, v = np.asarray(log2_N, float), np.asarray(values, float)
    i = int(np.argmax(v))
    if 0 < i < len(v) - 1:
        (x0, x1, x2), (v0, v1, v2) = x[i - 1:i + 2], v[i - 1:i + 2]
        h = x1 - x0
        if abs((x2 - x1) - h) < 1e-9 and v0 - 2 * v1 + v2 < 0:
            shift = 0.5 * h * (v0 - v2) / (v0 - 2 * v1 + v2)
            top = v1 - 0.25 * (v0 - v2) * shift / h
            return float(2.0 ** (x1 + shift)), float(top)
    return float(2.0 ** x[i]), float(v[i])


def beyond(target: str = E12_TARGET, log2_N=BEYOND_LOG2, point=BEYOND_POINT
           ) -> dict[str, np.ndarray]:
    """The k = 2 term's predicted separate strength (``strength``, with the floor) and its
    mean field alone (``signal``) at ``point`` along N = 2^``log2_N`` (reused batch,
    tanh(z + 1/2)), and ``slope``, the local slope of ``strength`` between consecutive sizes;
    read from :data:`BEYOND_TABLE` where it holds them."""
    rows = []
    for j in log2_N:
        key = (target, int(j))
        if tuple(point) == BEYOND_POINT and key in BEYOND_TABLE:
            rows.append(BEYOND_TABLE[key])
        else:
            p = predicted_terms(2 ** int(j), point[0], point[1], E12_ACTIVATION, target, K=3)
            rows.append((float(p["strength"][2]), float(p["signal"][2])))
    strength, signal = np.array(rows, float).T
    logs = np.log(strength)
    slope = np.diff(logs) / (np.diff(np.asarray(log2_N, float)) * np.log(2.0))
    return {"N": 2.0 ** np.asarray(log2_N, float), "strength": strength, "signal": signal,
            "slope": slope}


def predicted_spike_content(N: int, point=E12_POINTS[0], K: int = 3,
                            activation=E12_ACTIVATION, target=E12_TARGET) -> np.ndarray:
    """(K, m): the predicted cos^2 of the right vector of each spike k = 0..K-1 of a reused
    batch's W2 with each target direction (book: dv-spike-overlap): the predicted content of
    the term's own part (:func:`companion.core.finite_n.predicted_terms`) times the BBP right
    overlap at its predicted separate strength
    (:func:`companion.core.theory.predicted_spike_cos2`; 0 below the threshold). The limit
    law: near the threshold a finite N keeps more."""
    N = positive_int(N, "N")
    p = predicted_terms(N, point[0], point[1], activation, target, K=K)
    return np.array([predicted_spike_cos2(p["strength"][k], p["cos2"][k], N)
                     for k in range(K)])


def predicted_spike_path(path: dict) -> dict[str, np.ndarray]:
    """The limit law along :func:`content_path`: ``he1``, ``he3``, the predicted cos^2 of the
    k = 2 spike's right vector with beta*_1 and beta*_2 at each of its sizes (its own part's
    content times the BBP overlap at its strength, book: dv-spike-overlap)."""
    out = np.array([predicted_spike_cos2(s, (a, b), int(round(n)))
                    for n, a, b, s in zip(path["N"], path["he1"], path["he3"],
                                          path["strength"])])
    return {"he1": out[:, 0], "he3": out[:, 1]}
