"""Tests of the per-node report valid for any activation (cogo.analysis.nodes)."""
from __future__ import annotations

import numpy as np
import pytest

from cogo.algebra.representations import isotypic_projectors
from cogo.analysis.nodes import inverse_participation_ratio, network_metrics, node_report, node_spectrum


def test_pure_irrep_nodes_of_a_nonabelian_group():
    W = isotypic_projectors("S3").real[2][:4]             # rows in the irrep rho2 of S3
    rep = node_report(W, W, W.T, "S3", activation="relu")
    assert rep.dominant == ["rho2"] * 4 and np.allclose(rep.share, 1.0) and rep.single_fraction == 1.0
    assert np.allclose(rep.ipr, 1.0)


def test_mixed_node_share_and_ipr_by_hand():
    n = 11
    x = np.arange(n)
    # energy 1:3 in frequencies 2 and 5 (amplitudes 1 and sqrt 3), in a, b and c alike
    v = np.cos(2 * np.pi * 2 * x / n) + np.sqrt(3) * np.cos(2 * np.pi * 5 * x / n)
    E, names = node_spectrum(v[None], v[None], v[:, None], n)
    p = E[:, 0] / E[:, 0].sum()
    assert names[int(np.argmax(p))] == "5" and abs(p.max() - 0.75) < 1e-12
    assert abs(inverse_participation_ratio(E)[0] - (0.25 ** 2 + 0.75 ** 2)) < 1e-12
    rep = node_report(v[None], v[None], v[:, None], n)
    assert rep.single_fraction == 0.0                      # 0.75 < 0.9


@pytest.mark.parametrize("act", ["sqr", "relu", "silu", "relusqr"])
def test_network_metrics_against_one_hot_forward(act):
    rng = np.random.default_rng(0)
    n, q = 5, 7
    Wa, Wb, Wc = rng.normal(size=(q, n)), rng.normal(size=(q, n)), rng.normal(size=(n, q))
    f = {"sqr": lambda h: h ** 2, "relu": lambda h: np.maximum(h, 0), "silu": lambda h: h / (1 + np.exp(-h)),
         "relusqr": lambda h: np.maximum(h, 0) ** 2}[act]
    loss, acc = 0.0, 0
    for a in range(n):
        for b in range(n):
            o = Wc @ f(Wa @ np.eye(n)[a] + Wb @ np.eye(n)[b])
            t = np.eye(n)[(a + b) % n]
            loss += np.sum(((o - o.mean()) - (t - 1 / n)) ** 2)
            acc += int(np.argmax(o) == (a + b) % n)
    m = network_metrics(Wa, Wb, Wc, n, act)
    assert abs(m["loss"] - loss / n ** 2) < 1e-10 * max(1, loss) and m["accuracy"] == acc / n ** 2
    other = network_metrics(Wa, Wb, Wc, n, "relu" if act != "relu" else "sqr")
    assert abs(other["loss"] - m["loss"]) > 1e-6             # the activation is not ignored
