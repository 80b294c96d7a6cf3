"""The paper table's error columns by the reference's definitions (cogo.analysis.report.paper_measures).

The expected values come from a small implementation written here from the reference's definition
(facebookresearch/luckmatters 625b5f7, ssl/real-dataset/cogo/factorize_sol.py: analyze_component_v2 and
summarize46), in plain Python loops over complex numbers, and from closed forms on hand-made blocks.
"""
from __future__ import annotations

import cmath
import itertools
import math
from types import SimpleNamespace

import numpy as np
import pytest

from cogo.analysis.report import paper_measures as pm
from cogo.analysis.classify import ClassifyResult, Settings, classify_block, read_network
from cogo.analysis.report.paper_measures import reference_error, reference_factorable, reference_row
from cogo.analysis.report.render import render_text
from cogo.analysis.report.summary import summarize
from cogo.catalogue.partial import z_nu, z_nu_i, z_syn, z_xi


# --------------------------------------------------------------------------- the independent implementation
def _spread(values: list) -> float:
    m = sum(values) / len(values)
    return math.sqrt(sum(abs(v - m) ** 2 for v in values))


def independent_err(rows: list) -> float | None:
    """The reference's ``err`` of one block: ``rows`` = [a, b, c], lists of complex (one per node)."""
    q = len(rows[0])
    h = q // 2
    best, order = math.inf, None
    for perm in itertools.permutations(range(q)):      # pairing: c alone, the first minimum
        c = [rows[2][j] for j in perm]
        try:
            e = _spread([c[i] / c[h + i] for i in range(h)])
        except ZeroDivisionError:
            continue
        if order is None or e < best * (1 - 1e-12):     # ties in exact arithmetic: rounding does not break them
            best, order = e, perm
    if order is None:
        return None
    F = [[row[j] for j in order] for row in rows]
    t0 = F[0][h] / F[0][0]
    for i in range(h):                                  # the (-1, -1, 1) gauge on first-half nodes
        if abs(F[0][h + i] / F[0][i] - t0) > 0.2:
            F[0][i], F[1][i] = -F[0][i], -F[1][i]
    total = sum(_spread([row[h + i] / row[i] for i in range(h)]) ** 2 for row in F)
    return math.sqrt(total)


def _rows(y) -> list:
    return [[complex(v) for v in np.ravel(y.a)], [complex(v) for v in np.ravel(y.b)], [complex(v) for v in np.ravel(y.c)]]


def _handmade(y: float, eps: float) -> list:
    """An order-4 block whose err is sqrt((y^2 + 9 eps^2) / 2).

    a = (1, 1, 1, 1), b = (1, 1, 1, 1 + y), c = (1, 2, 3, 6 (1 + eps)): the pairing (0, 1 | 2, 3) wins (c ratios
    1/3 and 1/(3 (1 + eps)); the other pairings spread more), no node is flipped (a's ratios are all 1); the
    ratio rows are a: (1, 1), b: (1, 1 + y), c: (3, 3 (1 + eps)): spreads 0, y / sqrt 2, 3 eps / sqrt 2.
    """
    return [[1, 1, 1, 1], [1, 1, 1, 1 + y], [1, 2, 3, 6 * (1 + eps)]]


def _closed(y: float, eps: float) -> float:
    return math.sqrt((y * y + 9 * eps * eps) / 2)


# --------------------------------------------------------------------------- one block
@pytest.mark.parametrize("y", [z_nu_i() * z_syn(), z_nu(cmath.exp(0.7j)) * z_syn(), z_nu_i() * z_xi(1, 1),
                               z_nu_i() * z_xi(cmath.exp(0.3j), 1)], ids=["nu=i*syn", "nu*syn", "nu=i*xi", "xi(0.3)"])
def test_exact_products_have_zero_error(y):
    assert reference_error(y.a, y.b, y.c) < 1e-12
    assert independent_err(_rows(y)) < 1e-12


def test_closed_form_and_the_threshold():
    for y, eps, factorable in ((0.4, 0.01, True), (0.6, 0.01, False), (0.0, 0.05, True)):
        rows = _handmade(y, eps)
        err = reference_error(*rows)
        assert err == pytest.approx(_closed(y, eps), rel=1e-12)
        assert independent_err([[complex(v) for v in r] for r in rows]) == pytest.approx(_closed(y, eps), rel=1e-12)
        # the reference's bound for order 4: 0.1 sqrt(12) = 0.3464
        assert reference_factorable(err, 4) is factorable


def test_scale_and_conjugation_change_nothing():
    """cogo's block values are the reference's times a constant per row, or conjugated (the block at -k)."""
    rows = np.array(_handmade(0.4, 0.01), dtype=complex)
    base = reference_error(*rows)
    scaled = rows * np.array([[2.0 + 1j], [0.5], [-3j]])
    assert reference_error(*scaled) == pytest.approx(base, rel=1e-12)
    assert reference_error(*rows.conj()) == pytest.approx(base, rel=1e-12)


def test_sign_gauge_is_undone_and_the_check_can_fail(monkeypatch):
    """A (-1, -1, 1) gauge on one node of an exact order-6 block: err 0 after the sign fix, not without it."""
    y = z_nu(cmath.exp(0.7j)) * z_syn()
    a, b, c = (np.array(np.ravel(v), dtype=complex) for v in (y.a, y.b, y.c))
    for j in range(6):
        aj, bj = a.copy(), b.copy()
        aj[j], bj[j] = -aj[j], -bj[j]
        assert reference_error(aj, bj, c) < 1e-12
        assert independent_err([list(aj), list(bj), list(c)]) < 1e-12
    monkeypatch.setattr(pm, "SIGN_TOL", 1e9)           # the mutation: no sign fix
    a[0], b[0] = -a[0], -b[0]
    assert reference_error(a, b, c) > 1.0


@pytest.mark.parametrize("q", [4, 6])
def test_agrees_with_the_independent_implementation(q):
    rng = np.random.default_rng(q)
    for trial in range(12):
        if trial % 2:      # generic complex blocks
            F = rng.standard_normal((3, q)) + 1j * rng.standard_normal((3, q))
        else:              # a noisy product, its nodes shuffled and some of them gauge-flipped
            y = (z_nu_i() * z_xi(cmath.exp(1j * rng.uniform(0, 6)), 1)) if q == 4 else \
                (z_nu(cmath.exp(1j * rng.uniform(0, 6))) * z_syn())
            F = np.array([np.ravel(y.a), np.ravel(y.b), np.ravel(y.c)], dtype=complex)
            F = F + 0.05 * (rng.standard_normal(F.shape) + 1j * rng.standard_normal(F.shape))
            F = F[:, rng.permutation(q)]
            flip = rng.random(q) < 0.5
            F[:2, flip] *= -1
        got = reference_error(*F)
        want = independent_err([list(r) for r in F])
        assert got == pytest.approx(want, rel=1e-9, abs=1e-14)


def test_undefined_and_refused():
    assert reference_error([1, 1, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0]) is None  # no finite c ratio
    assert not reference_factorable(None, 4)
    with pytest.raises(ValueError, match="4 or 6 nodes"):
        reference_error([1] * 5, [1] * 5, [1] * 5)


# --------------------------------------------------------------------------- the columns
def _block(rows):
    return classify_block(*rows, k=1, settings=Settings.preset_named("paper"))


def test_columns_over_networks_and_their_rendering():
    exact4 = _rows(4 ** (-1 / 3) * (z_nu_i() * z_xi(1, 1)))
    exact6 = _rows(6 ** (-1 / 3) * (z_nu_i() * z_syn()))
    rng = np.random.default_rng(1)
    order5 = list(rng.standard_normal((3, 5)) + 0j)
    net1 = [_block(exact4), _block(_handmade(0.6, 0.01)), _block(exact6), _block(order5)]
    net2 = [_block(_handmade(0.4, 0.01))]
    assert [b.reference_err is None for b in net1] == [False, False, False, True]
    row1, row2 = reference_row(net1), reference_row(net2)
    assert row1["0_non_4_6_0"] == 1 and row1["1nonfact_4"] == 0.5 and row1["1nonfact_6"] == 0.0
    assert row1["err_4"] < 1e-12 and row1["err_6"] < 1e-12          # the non-factorable block is not averaged
    assert row2["0_non_4_6_0"] == 0 and row2["1nonfact_6"] == 0.0    # no order-6 block: 0, as the reference
    assert row2["err_4"] == pytest.approx(_closed(0.4, 0.01), rel=1e-12) and row2["err_6"] is None

    nets = [SimpleNamespace(blocks=bl, live_nodes=sum(b.order for b in bl)) for bl in (net1, net2)]
    rt = summarize(nets)["reference_table"]
    assert rt["0_non_4_6_0"]["mean"] == 0.5 and rt["1nonfact_4"]["mean"] == 0.25
    assert rt["err_4"]["mean"] == pytest.approx(_closed(0.4, 0.01) / 2, rel=1e-9) and rt["err_4"]["n"] == 2
    assert rt["err_6"]["n"] == 1                                     # undefined for net2: left out

    text = render_text(ClassifyResult([], summarize([nets[1]]), Settings.preset_named("paper")))  # the summary only
    line = next(s for s in text.splitlines() if "[err_4 x 100]" in s)
    assert f"{100 * _closed(0.4, 0.01):.2f}" in line                # 28.36, in the reference's units (1e-2)
    assert "cogo: mean relative reconstruction error, order 4" in text


def _reference_fourier(W, d: int, sign: int) -> np.ndarray:
    """The reference's unscaled coefficients X[k, j] = (1/d) sum_x W[j, x] e^{sign 2 pi i k x / d}."""
    x = np.arange(d)
    return (np.asarray(W, dtype=float) @ np.exp(sign * 2j * np.pi * np.outer(x, x) / d) / d).T


def test_read_network_blocks_match_the_reference_transform():
    """The error of each block read by cogo equals the reference's on its own Fourier coefficients."""
    from cogo.solvers.constructions import z_F46

    d = 11
    rng = np.random.default_rng(3)
    Wa, Wb, Wc = (w + 0.01 * rng.standard_normal(np.shape(w)) for w in z_F46(d).to_weights(real=True))
    rep = read_network(Wa, Wb, Wc, group=d, settings=Settings.preset_named("paper"), with_verdict=False)
    A, B = _reference_fourier(Wa, d, -1), _reference_fourier(Wb, d, -1)
    C = _reference_fourier(np.asarray(Wc).T, d, +1)
    checked = 0
    for b in rep.blocks:
        k = b.k if b.k <= (d - 1) // 2 else d - b.k
        rows = [[complex(X[k, j]) for j in b.nodes] for X in (A, B, C)]
        assert b.reference_err == pytest.approx(independent_err(rows), rel=1e-8)
        assert 1e-3 < b.reference_err < 0.3                             # noisy, not exact: the test can tell
        checked += 1
    assert checked == 5


def test_json_carries_both_errors_under_their_names():
    from cogo.solvers.constructions import z_F46

    rep = read_network(*z_F46(7).to_weights(real=True), group=7, with_verdict=False)
    doc = ClassifyResult([rep], summarize([rep]), Settings()).to_dict()
    blocks = doc["checkpoints"][0]["blocks"]
    assert [b["order"] for b in blocks] == [6, 4, 4] and all(b["reference_err"] < 1e-12 for b in blocks)
    s = doc["summary"]
    assert set(s["reference_table"]) == {"0_non_4_6_0", "1nonfact_4", "1nonfact_6", "err_4", "err_6"}
    assert s["reference_table"]["1nonfact_6"]["mean"] == 0.0 and s["reference_table"]["err_4"]["mean"] < 1e-12
    assert "mean_relative_error_order_4" in s and "mean_error_order_4" not in s   # cogo's own, renamed
