"""The exact loss of SPEC 5 against the real-space loss of SPEC 1."""
import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from cogo.algebra import (
    Cyclic,
    Network,
    condition_residuals,
    fourier_loss,
    parse_group,
    per_frequency_loss,
    published_loss,
    real_loss,
)
from strategies import groups

REL = 1e-9


def reference_loss(Wa, Wb, Wc, group):
    """SPEC 1 literally: one-hot inputs, o = Wc (Wa x_a + Wb x_b)^2, mean ||P(o) - P(e_c)||^2."""
    q, n = Wa.shape
    I = np.eye(n)
    total = 0.0
    for a in range(n):
        for b in range(n):
            o = Wc @ (Wa @ I[a] + Wb @ I[b]) ** 2
            e = I[group.add_table[a, b]]
            d = (o - o.mean()) - (e - e.mean())
            total += d @ d
    return total / n**2


@given(groups, st.integers(1, 6), st.integers(0, 2**32 - 1), st.floats(0.0, 2.0))
def test_fourier_loss_equals_real_loss(G, q, seed, mean_shift):
    rng = np.random.default_rng(seed)
    n = G.order
    Wa = rng.normal(size=(q, n)) + mean_shift
    Wb = rng.normal(size=(q, n)) - mean_shift
    Wc = rng.normal(size=(n, q)) + 0.5 * mean_shift
    real = real_loss(Wa, Wb, Wc, group=G)
    four = fourier_loss(Network.from_weights(Wa, Wb, Wc, G))
    assert abs(four - real) <= REL * max(1.0, abs(real))


@pytest.mark.parametrize("orders", [(5,), (6,), (2, 3)])
def test_real_loss_matches_literal_definition(orders):
    G = parse_group(orders)
    rng = np.random.default_rng(0)
    Wa, Wb, Wc = rng.normal(size=(3, G.order)), rng.normal(size=(3, G.order)), rng.normal(size=(G.order, 3))
    assert np.isclose(real_loss(Wa, Wb, Wc, group=G), reference_loss(Wa, Wb, Wc, G), rtol=1e-12)
    # chunking does not change the value
    assert np.isclose(real_loss(Wa, Wb, Wc, group=G, chunk_elements=7), reference_loss(Wa, Wb, Wc, G), rtol=1e-12)


def test_published_form_is_wrong_for_nonzero_means_and_right_for_zero_means():
    G = Cyclic(7)
    rng = np.random.default_rng(3)
    Wa, Wb, Wc = rng.normal(size=(4, 7)) + 1.0, rng.normal(size=(4, 7)) + 1.0, rng.normal(size=(7, 4))
    real = real_loss(Wa, Wb, Wc)
    z = Network.from_weights(Wa, Wb, Wc)
    assert abs(published_loss(z) - real) > 1e-3 * real
    Wa0, Wb0 = Wa - Wa.mean(1, keepdims=True), Wb - Wb.mean(1, keepdims=True)
    z0 = Network.from_weights(Wa0, Wb0, Wc)
    assert np.allclose(z0.a[0], 0) and np.allclose(z0.b[0], 0)
    assert np.isclose(published_loss(z0), real_loss(Wa0, Wb0, Wc), rtol=1e-10)


def test_pairs_argument():
    G = Cyclic(5)
    rng = np.random.default_rng(1)
    Wa, Wb, Wc = rng.normal(size=(3, 5)), rng.normal(size=(3, 5)), rng.normal(size=(5, 3))
    full = real_loss(Wa, Wb, Wc)
    idx = np.arange(25)
    assert np.isclose(real_loss(Wa, Wb, Wc, pairs=idx), full)
    ab = np.stack(np.divmod(idx, 5), axis=1)
    assert np.isclose(real_loss(Wa, Wb, Wc, pairs=ab), full)
    part = real_loss(Wa, Wb, Wc, pairs=idx[:7])
    assert not np.isclose(part, full)


def test_per_frequency_terms_sum_to_loss():
    G = Cyclic(9)
    rng = np.random.default_rng(2)
    z = Network.from_weights(rng.normal(size=(5, 9)), rng.normal(size=(5, 9)), rng.normal(size=(9, 5)))
    lk = per_frequency_loss(z)
    assert lk[0] == 0
    assert np.isclose(lk.sum() / 9 + 1 - 1 / 9, fourier_loss(z))


def test_exact_loss_of_exact_network_matches_real_loss():
    G = Cyclic(3)
    Wa = np.array([[1, 0, 2], [sympy.Rational(1, 2), -1, 0]], dtype=object)
    Wb = np.array([[0, 1, 1], [1, 1, -2]], dtype=object)
    Wc = np.array([[1, -1], [0, 2], [sympy.Rational(1, 3), 1]], dtype=object)
    z = Network.from_weights(Wa, Wb, Wc, G)
    assert z.exact
    exact = sympy.nsimplify(sympy.simplify(fourier_loss(z)))
    ref = real_loss(Wa.astype(float), Wb.astype(float), Wc.astype(float))
    assert exact.is_Rational  # rational weights give a rational loss, computed exactly
    assert abs(float(exact) - ref) < 1e-12


def _optimal_block_network(G):
    """z_F6 built by hand from SPEC 7.1 (independent of cogo.solvers)."""
    w = np.exp(2j * np.pi / 3)
    syn = np.array([1, w, w**2])
    nets = []
    for k in G.positive_frequencies:
        nu = np.exp(1j * (0.3 + k))
        a = np.kron(syn, [1, nu]) * 6 ** (-1 / 3)
        b = np.kron(syn, [1, -nu]) * 6 ** (-1 / 3)
        c = np.kron(syn, [1, -nu**-2]) * 6 ** (-1 / 3)
        nets.append(Network.block(G, k, a, b, c))
    return Network.sum(nets)


def test_conditions_on_optimal_and_broken_networks():
    G = Cyclic(11)
    z = _optimal_block_network(G)
    cond = condition_residuals(z)
    assert all(cond.holds(1e-12).values())
    assert abs(fourier_loss(z)) < 1e-12
    broken = z.copy()
    broken.z[2, 1, 0] *= 1.1
    broken.z[2, 10, 0] = np.conj(broken.z[2, 1, 0])
    held = condition_residuals(broken).holds(1e-9)
    assert not held["R_g"] and fourier_loss(broken) > 1e-6


def test_exact_conditions():
    G = Cyclic(5)
    w = sympy.Rational(-1, 2) + sympy.sqrt(3) * sympy.I / 2
    s = sympy.cbrt(sympy.Rational(1, 3))
    v = [s, s * w, s * w**2]
    z = Network.sum([Network.block(G, k, v, v, v) for k in (1, 2)])
    cond = condition_residuals(z)
    held = cond.exactly_zero()
    # z_syn / 3^(1/3): abc = 1 exactly, R_c and R_n vanish, but a^2 c = 1 != 0
    assert held["R_g"] and held["R_c"] and held["R_n"] and not held["R_*"]
    with pytest.raises(ValueError):
        condition_residuals(z.to_numeric()).exactly_zero()


def test_real_loss_names_the_valid_pair_range():
    """A pair index outside 0..n^2-1 is refused with the range written out (n = 5: 0..24; pairs as (a, b): 0..4)."""
    import numpy as np
    import pytest

    from cogo.algebra.loss import real_loss
    from cogo.solvers.constructions import z_F6

    Wa, Wb, Wc = z_F6(5).to_weights(real=True)
    with pytest.raises(ValueError, match=r"^pair indices must lie in 0\.\.24$"):
        real_loss(Wa, Wb, Wc, pairs=np.array([0, 25]), group=5)
    with pytest.raises(ValueError, match=r"^pair elements must lie in 0\.\.4$"):
        real_loss(Wa, Wb, Wc, pairs=np.array([[0, 5]]), group=5)
