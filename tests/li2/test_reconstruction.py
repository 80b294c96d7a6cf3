"""Tests of Li^2 row 3 (cogo.li2.reconstruction) and of the ascent in a component's Fourier coordinates.

Expected maxima are SPEC 9's E* = M/(8 d) (real irrep) and M/(16 d) (complex pair), written out by hand; the
least-squares fits are compared with numpy's lstsq on all the columns, computed here.
"""
import numpy as np
import pytest

import cogo.algebra.smallgroups as sg
from cogo.li2 import energy as EN
from cogo.li2 import reconstruction as RC
from cogo.li2.energy import ascend, li2_group, random_sphere
from cogo.li2.theorems import _features, _target


def _starts(G, ci, n, seed=0):
    """``n`` random points of the unit sphere with ``u`` and ``v`` in component ``ci``."""
    P, M = G.components[ci].projector, G.order
    W = random_sphere(n, M, seed)
    W = np.concatenate([W[:, :M] @ P, W[:, M:] @ P], axis=1)
    return W / np.linalg.norm(W, axis=1, keepdims=True)


# group, component, E* by hand: M / (8 d) real, M / (16 d) complex pair
SPEC_MAXIMA = [("S3", 2, 6 / 16), ("A4", 2, 12 / 24), ("S4", 3, 24 / 24), ("S3x3", 5, 18 / 32), ("S3x3", 2, 18 / 16),
               ("5", 1, 5 / 16), ("D5", 3, 10 / 16)]


@pytest.mark.parametrize("group, ci, e_star", SPEC_MAXIMA)
def test_component_ascent_reaches_the_spec_maxima_as_the_full_ascent(group, ci, e_star):
    G = li2_group(group)
    W0 = _starts(G, ci, 12)
    fast, full = ascend(W0, G, component=ci), ascend(W0, G)
    assert fast.converged.all() and full.converged.all()
    assert np.abs(fast.E - e_star).max() < 1e-9
    assert np.abs(fast.W - full.W).max() < 1e-8          # the same steps, in other coordinates
    assert abs(fast.steps - full.steps) <= 2              # the full-space loop only confirms the end points


def test_component_ascent_quaternionic_matches_the_full_ascent():
    G = li2_group("Dic3")                                 # component 4: the quaternionic 2-dimensional irrep
    assert G.components[4].kind == "quaternionic"
    W0 = _starts(G, 4, 12, seed=3)
    fast, full = ascend(W0, G, component=4), ascend(W0, G)
    assert fast.converged.all() and full.converged.all()
    assert np.abs(fast.W - full.W).max() < 1e-8 and np.abs(fast.E - full.E).max() < 1e-12
    assert fast.E.min() > 0.1                             # a maximum, not the zero energy of u * v = 0


def test_component_ascent_refuses_rows_outside_the_component_and_the_trivial_one():
    G = li2_group("S3")
    with pytest.raises(ValueError, match="not in component"):
        ascend(random_sphere(3, 6, 0), G, component=2)
    with pytest.raises(ValueError, match="not in component"):
        ascend(_starts(G, 1, 3), G, component=2)          # in another component
    with pytest.raises(ValueError, match="trivial"):
        ascend(_starts(G, 0, 3), G, component=0)


def test_component_ascent_with_the_wrong_gradient_sign_misses_the_maxima(monkeypatch):
    G = li2_group("S3")
    W0 = _starts(G, 2, 8)
    right = EN._fourier_gradient
    monkeypatch.setattr(EN, "_fourier_gradient", lambda A, B, kappa: tuple(-g for g in right(A, B, kappa)))
    res = ascend(W0, G, component=2, max_steps=3000)
    assert not (res.converged & (np.abs(res.E - 6 / 16) < 1e-6)).any()   # descends: no row at E* = M/(8 d)
    monkeypatch.setattr(EN, "_fourier_gradient", right)
    res = ascend(W0, G, component=2, max_steps=3000)
    assert res.converged.all() and np.abs(res.E - 6 / 16).max() < 1e-9


# --------------------------------------------------------------------------- the fits
def _lstsq_rel(G, nodes):
    F = _features(G, nodes)
    F = F - F.mean(0, keepdims=True)
    Y = _target(G)
    R = Y - F @ np.linalg.lstsq(F, Y, rcond=None)[0]
    return float(np.linalg.norm(R) / np.linalg.norm(Y)), float(((Y - R).argmax(1) == G.table.reshape(-1)).mean())


def _parts(G):
    return RC._abelian_nodes(G) if G.as_product is not None else RC._component_nodes(G, 0)[0]


@pytest.mark.parametrize("group", ["S3", "Dic3", "3x5", "S3x3"])
def test_fit_brackets_lstsq_on_all_pairs(group):
    G = li2_group(group)
    parts, rows = _parts(G), RC._pair_rows(G)
    drop = min(parts)
    for nodes in (np.concatenate(list(parts.values())), np.concatenate([parts[c] for c in parts if c != drop])):
        lower, upper, acc = RC._fit(G, nodes, rows)
        ref, ref_acc = _lstsq_rel(G, nodes)
        assert lower - 1e-12 <= ref <= upper + 1e-12 and upper - lower < 1e-12 and acc == ref_acc == 1.0
    c = G.components[drop]                                 # without it: sqrt(sum_k d_k^2 / (M - 1)) by hand
    assert abs(upper - (len(c.irreps) * c.dim ** 2 / (G.order - 1)) ** 0.5) < 1e-9


def test_fit_bounds_part_for_nodes_outside_the_components():
    G = li2_group("S3")
    nodes = random_sphere(20, 6, 2)                        # u, v spread over all components: features off the pairs kept
    lower, upper, _ = RC._fit(G, nodes, RC._pair_rows(G))
    ref = _lstsq_rel(G, nodes)[0]
    assert lower - 1e-12 <= ref <= upper + 1e-12 and upper - lower > 1e-3
    assert not RC._drop_control(G, 1, 20, (lower, upper, 1.0), 0.0).passed   # a loose bracket: not the prediction


@pytest.mark.skipif(not sg.gap_available(), reason='GAP is not installed: pip install -e ".[gap]"')
def test_fit_cuts_off_as_lstsq_on_all_pairs():
    # Z_8 x Z_8 in GAP's order: on its 250 kept rows numpy's default cutoff (eps max(250, 248)) keeps directions that
    # lstsq on all 4096 pairs drops, and the control's lower bound fell 5e-9 below the prediction sqrt(1/63)
    rows = RC.theorem3("SmallGroup(64,2)")
    assert [r.passed for r in rows] == [True, True]
    assert abs(rows[1].details["lower_bound"] - (1 / 63) ** 0.5) < 1e-12


def test_row3_fails_when_the_pairs_kept_miss_some(monkeypatch):
    G = li2_group("S3")
    B, keep = RC._pair_rows(G)
    lab = np.repeat([0, 1, 2], [1, 1, 4])                  # S3's components: trivial, sign, 2-dimensional
    same = (lab[:, None] == lab[None, :]).reshape(-1)     # without the pairs (trivial, c): the u_g^2 / 2 terms
    monkeypatch.setattr(RC, "_pair_rows", lambda G: (B, same))
    row = RC.theorem3(G)[0]
    assert not row.passed and row.residual > 1e-3 and row.details["lower_bound"] < 1e-12


# --------------------------------------------------------------------------- the row and its control
def test_theorem3_passes_and_its_control_has_the_predicted_residual():
    rows = RC.theorem3("S3x3")                            # 2 x 2 (1 + 2 + 2 + 16 + 2 * 16) nodes
    assert [r.passed for r in rows] == [True, True] and rows[0].details["nodes"] == 212
    assert rows[0].details["unconverged"] == 0 and rows[0].residual < 1e-12
    assert abs(rows[1].residual - (1 / 17) ** 0.5) < 1e-9   # the sign irrep carries d^2/(M-1) = 1/17 of |Y~|^2


def test_theorem3_fails_when_the_ascents_do_not_converge(monkeypatch):
    real = RC.ascend
    monkeypatch.setattr(RC, "ascend", lambda W0, G, **kw: real(W0, G, max_steps=3, **kw))
    row = RC.theorem3("S3")[0]
    assert not row.passed and row.details["unconverged"] > 0


def test_theorem3_fails_with_the_wrong_gradient_sign(monkeypatch):
    right = EN._fourier_gradient
    monkeypatch.setattr(EN, "_fourier_gradient", lambda A, B, kappa: tuple(-g for g in right(A, B, kappa)))
    assert not RC.theorem3("S3")[0].passed


def test_the_control_fails_when_the_dropped_nodes_are_not_dropped():
    G = li2_group("S3")
    want = 0.2 ** 0.5                                      # sqrt(d^2 / (M - 1)) = sqrt(1/5)
    assert RC._drop_control(G, 1, 64, (want, want, 1.0), 0.0).passed
    assert not RC._drop_control(G, 1, 64, (1e-15, 1e-15, 1.0), 0.0).passed   # reconstructed: not caught
    assert not RC._drop_control(G, 1, 64, (0.5, 0.5, 1.0), 0.0).passed       # another residual than predicted
    assert not RC._drop_control(G, 1, 64, (want - 1e-6, want, 1.0), 0.0).passed   # the optimum may be below it
