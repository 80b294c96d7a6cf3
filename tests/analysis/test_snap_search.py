"""The snap's search (cogo.analysis.verdict.snap): the forms as trigonometric polynomials, the polish of many blocks at once."""
import numpy as np
import pytest

from cogo.analysis.verdict import snap as S
from cogo.catalogue import partial as P
from cogo.solvers.designs import abc_normalizer

TYPES = {"z_nu * z_syn": 1, "z_nu=i * z_syn,ab": 2, "z_nu=i * z_xi": 1}


def _product(typ, degrees):
    """The catalogue product written here from the catalogue's factors (not through the snap's _build)."""
    u = [np.exp(1j * np.deg2rad(x)) for x in degrees]
    if typ == "z_nu * z_syn":
        part, m = P.z_nu(u[0]) * P.z_syn(), 6
    elif typ == "z_nu=i * z_syn,ab":
        part, m = P.z_nu_i() * P.z_syn_ab(u[0], u[1]), 6
    else:
        part, m = P.z_nu_i() * P.z_xi(u[0], 1), 4
    return np.stack([part.a, part.b, part.c]) * m ** (-1 / 3)


@pytest.mark.parametrize("typ", sorted(TYPES))
def test_forms_equal_the_catalogue_products(typ):
    rng = np.random.default_rng(3)
    params = rng.uniform(-400.0, 400.0, size=(7, TYPES[typ]))
    got = S._forms(typ, params)
    want = np.stack([_product(typ, p) for p in params])
    assert got.shape == want.shape
    assert np.abs(got - want).max() < 1e-12


def test_a_form_that_is_no_trigonometric_polynomial_is_refused(monkeypatch):
    """A form with sqrt(nu) (period 720 degrees) cannot be sampled on the circle: the snap must stop, not misread."""
    real_build = S._build

    def half_angle(typ, units, exact):
        part = real_build(typ, units, exact)
        return P.PartialSolution(part.name, part.a * np.sqrt(units[0]), part.b, part.c)

    monkeypatch.setattr(S, "_build", half_angle)
    monkeypatch.setattr(S, "_POLYS", {})
    with pytest.raises(RuntimeError, match="not a trigonometric polynomial"):
        S._forms("z_nu * z_syn", np.zeros((1, 1)))


def _blocks(typ, B, seed):
    """B noisy blocks of ``typ``, shuffled nodes, random parameters and channel phases: (X, start, node order)."""
    rng = np.random.default_rng(seed)
    npar = TYPES[typ]
    V = np.concatenate([rng.uniform(0, 360, size=(B, npar)), rng.uniform(0, 360, size=(B, 2))], axis=1)
    Y = S._models(typ, V, npar)
    m = Y.shape[1]
    X = np.stack([y[rng.permutation(m)] for y in Y])
    X = X + 1e-3 * (rng.normal(size=X.shape) + 1j * rng.normal(size=X.shape))
    return X, V, m, npar


@pytest.mark.parametrize("typ", sorted(TYPES))
def test_polishing_blocks_together_equals_polishing_each_alone(typ):
    X, V, m, npar = _blocks(typ, 5, seed=11)
    deg = {"nu": 0.0} if typ == "z_nu * z_syn" else ({"xi": 0.0} if typ == "z_nu=i * z_xi" else
                                                     {"alpha": 0.0, "beta": 0.0})
    found = S._starts(X, typ, [deg] * len(X))
    assert [S._starts(X[b:b + 1], typ, [deg])[0][1].tolist() for b in range(len(X))] == [f[1].tolist() for f in found]
    starts = [(*t0, pa, pb) for t0, _, pa, pb in found]
    orders = [perm for _, perm, _, _ in found]
    Vt, Pt = S._polish(X, typ, np.array(starts), np.stack(orders), npar)
    for b in range(len(X)):
        v1, p1 = S._polish(X[b:b + 1], typ, np.array(starts[b:b + 1]), np.stack(orders[b:b + 1]), npar)
        assert np.array_equal(p1[0], Pt[b])
        assert np.abs(v1[0] - Vt[b]).max() < 1e-9


def test_the_polish_lowers_the_cost_to_the_noise_and_a_wrong_order_costs_more():
    typ = "z_nu * z_syn"
    X, V, m, npar = _blocks(typ, 4, seed=5)
    found = S._starts(X, typ, [{"nu": 0.0}] * len(X))
    starts = np.array([(*t0, pa, pb) for t0, _, pa, pb in found])
    orders = np.stack([perm for _, perm, _, _ in found])
    Vt, Pt = S._polish(X, typ, starts, orders, npar)
    after = S._costs(X, typ, Vt, Pt, npar)
    assert (after <= S._costs(X, typ, starts, orders, npar)).all()
    assert (after < 6 * m * 1e-6 * 4).all()                      # the 1e-3 noise: 6m real entries of variance 1e-6
    swapped = Pt.copy()
    swapped[:, [0, 1]] = swapped[:, [1, 0]]                      # two nodes matched to each other's form node
    assert (S._costs(X, typ, Vt, swapped, npar) > 100 * after).all()


def test_order_misfits_equal_a_loop_over_node_orders():
    """order_misfits against the per-order definition: min over a complex scale per channel, written out here."""
    import itertools

    from cogo.analysis.verdict.nearest import order_misfits

    rng = np.random.default_rng(7)
    cplx = lambda *s: rng.normal(size=s) + 1j * rng.normal(size=s)
    F, G = cplx(2, 4, 4), cplx(2, 3, 4, 4)
    perms = np.array(list(itertools.permutations(range(4))))
    got = order_misfits(F, G)
    assert got.shape == (2, 3, 24)
    for b, t, p in itertools.product(range(2), range(3), range(24)):
        want = 0.0
        for ch in range(4):
            f, g = F[b, :, ch], G[b, t, perms[p], ch]
            lam = np.vdot(g, f) / np.vdot(g, g)                  # the least-squares scale of g onto f
            want += float(np.sum(np.abs(f - lam * g) ** 2))
        assert abs(got[b, t, p] - want) < 1e-10 * max(1.0, want)
    for pick in ([5, 0, 17], [5, 0, 5, 23]):                      # some orders, one of them twice
        assert np.allclose(order_misfits(F, G, perms[pick]), got[:, :, pick], rtol=1e-12, atol=0)
    assert order_misfits(F[:0], G[:0]).shape == (0, 3, 24)
    # smallest=k: per pair the k orders numpy.argpartition of the whole row keeps, never making the row array
    F2, G2 = cplx(40, 4, 4), cplx(40, 15, 4, 4)                   # 600 pairs: more than one pass
    for (f, g), k in itertools.product(((F, G), (F2, G2)), (1, 6, 24, 30)):
        full = order_misfits(f, g)
        val, idx = order_misfits(f, g, smallest=k)
        part = np.argpartition(full, min(k, 23), axis=2)[:, :, :k]
        assert val.shape == idx.shape == g.shape[:2] + (min(k, 24),)
        np.testing.assert_array_equal(idx, part)
        np.testing.assert_array_equal(val, np.take_along_axis(full, part, axis=2))


def test_first_places_equal_a_loop_over_the_rounded_rows():
    """_first_places against the per-block loop it replaced: a dict of rounded rows' bytes, first place kept."""
    rng = np.random.default_rng(11)
    B, K = 5, 12
    Y = (rng.normal(size=(B, K, 3, 2)) + 1j * rng.normal(size=(B, K, 3, 2))).round(3)
    Y[:, 7] = Y[:, 2]                                            # repeats within a block ...
    Y[1, 9] = Y[1, 2] + 1e-14                                   # ... equal once rounded to 12 decimals
    Y[2, 4] = Y[3, 4]                                           # the same row in two blocks counts in each
    Y[4, 5] = -0.0
    Y[4, 8] = 0.0                                               # -0.0 equals 0.0
    Y[0, 3] = Y[0, 1] + 1e-9                                    # near but not equal: both kept
    want = []
    for b in range(B):
        seen: dict = {}
        for j in range(K):
            seen.setdefault((np.round(Y[b, j], 12) + 0.0).tobytes(), b * K + j)
        want += list(seen.values())
    got = S._first_places(Y)
    assert got.tolist() == want
    assert b * K + 8 not in got and 1 * K + 9 not in got and 0 * K + 3 in got and 2 * K + 4 in got
