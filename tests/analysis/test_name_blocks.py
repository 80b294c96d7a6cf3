"""A network's blocks named together (issue 37): the catalogue fits of every factor in one call per family give
each block the answer it gets alone, and each factor the fits it gets alone."""
import numpy as np
import pytest

from cogo import catalogue as _cat
from cogo.analysis.classify import Settings, classify_block, classify_blocks
from cogo.analysis.factor.factorization import factor_block
from cogo.analysis.naming import _fits, _fits_many, _naming_request, stabilizer, stabilizers
from cogo.catalogue.partial import z_nu, z_nu_i, z_syn, z_syn_ab, z_xi

from strategies import scrambled_block as scrambled, unit_deg as unit  # noqa: E402


FORMS = [z_nu(unit(17)) * z_syn(), z_nu_i() * z_syn(), z_nu_i() * z_xi(unit(40), 1), z_nu_i() * z_xi(unit(20), -1),
         z_nu_i() * z_syn_ab(unit(40), unit(70)), z_nu(unit(50)), z_syn_ab(unit(20), unit(75)), z_syn(),
         z_nu_i() * z_nu(unit(30)) * z_syn(), z_nu_i() * z_xi(unit(10), 1) * z_nu(unit(25))]


def blocks():
    out = [scrambled(ps, i, noise) for i, ps in enumerate(FORMS) for noise in (0.0, 1e-4, 3e-2)]
    rng = np.random.default_rng(7)
    out.append(rng.normal(size=(3, 6)) + 1j * rng.normal(size=(3, 6)))  # not factorable
    out.append(rng.normal(size=(3, 4)))                                 # real, order 4
    z = scrambled(FORMS[0], 1, 0.0)
    z[:, 2] = 0.0                                                       # a zero node
    out.append(z)
    return out


def _plain(rep):
    d = {k: v for k, v in vars(rep).items() if k not in ("seconds",)}
    return repr(d)


@pytest.mark.parametrize("preset", ["default", "paper"])
def test_blocks_named_together_get_the_answers_they_get_alone(preset):
    st = Settings.preset_named(preset)
    xs = blocks()
    together = classify_blocks([dict(a=x[0], b=x[1], c=x[2], k=i + 1) for i, x in enumerate(xs)], settings=st)
    alone = [classify_block(*x, k=i + 1, settings=st) for i, x in enumerate(xs)]
    types = {r.type for r in alone}
    assert {"z_nu * z_syn", "z_nu=i * z_xi", "z_nu=i * z_syn,ab", "non-factorable"} <= types  # the cases are varied
    for t, a in zip(together, alone):
        assert _plain(t) == _plain(a)


def test_factors_fitted_together_get_the_fits_they_get_alone():
    """Every row of every family (z_xi's two runs of rows included) is the factor's own, bit for bit."""
    rng = np.random.default_rng(3)
    reqs = []
    for i, ps in enumerate(FORMS[:5]):
        x = scrambled(ps, i, 1e-3)
        fz = factor_block(*x).best
        for j, f in enumerate(fz.factors):
            others = [g.vectors for k, g in enumerate(fz.factors) if k != j]
            partner = others[0] if others else None
            reqs.append(_naming_request(f.vectors, partner))
    reqs.append(_naming_request(np.vstack([np.ones(2), rng.normal(size=2) + 1j, rng.normal(size=2)]).astype(complex)))
    assert len({r[0].shape[1] for r in reqs}) == 2 and max(len(r[1]) for r in reqs) > 1  # sizes 2 and 3, stabilizers
    many = _fits_many(reqs)
    for r, got in zip(reqs, many):
        want = _fits(*r)
        assert list(got) == list(want)
        for name in want:
            assert np.array_equal(got[name][1], want[name][1])
            assert list(got[name][2]) == list(want[name][2])
    xi = [m["z_xi"][1] for m in many if "z_xi" in m]
    assert xi and all(len(v) == 2 * len(m["z_nu"][1]) for v, m in zip(xi, [m for m in many if "z_xi" in m]))


def test_row_params_are_the_list_they_stand_for():
    V = np.exp(1j * np.random.default_rng(0).uniform(-3, 3, size=(5, 3)))
    res, params = _cat.family("z_xi").fit(V)
    assert len(params) == len(res) == 10
    assert [p["s"] for p in params] == [1] * 5 + [-1] * 5
    assert params[-1] == params[9] and params[2:4] == [params[2], params[3]]
    with pytest.raises(IndexError):
        params[10]
    assert list(params.take([7, 0])) == [params[7], params[0]]


def test_a_family_whose_rows_are_not_runs_is_refused():
    """A registered fit that returns a residual count no run layout explains cannot be taken apart per factor."""
    bad = _cat.Family("z_toy", 2, (), build=None, fit=lambda V: (np.zeros(len(V) + 1), [{}] * (len(V) + 1)))
    u = np.array([[1, 1j], [1, -1j], [1, 1]], dtype=complex)
    with _cat.registered(bad):
        with pytest.raises(ValueError, match="z_toy.fit returned"):
            _fits_many([_naming_request(u)] * 2)


def _stabilizer_by_definition(V, tol=0.05):
    """Multipliers lam = V[:, j] / V[:, 0] under which lam V is V as a node set modulo signs: some one-to-one
    matching of the nodes (every order tried) with every relative feature distance within tol."""
    import itertools
    feats = lambda X: np.stack([X[0] ** 2, X[0] * X[1], X[1] ** 2, X[2]], axis=1)   # (a^2, ab, b^2, c): sign-free
    F = feats(V)
    out = [np.ones(3)]
    for j in range(1, V.shape[1]):
        G = feats(V * (V[:, j] / V[:, 0])[:, None])
        D = np.linalg.norm(G[:, None] - F[None], axis=-1) / np.linalg.norm(G, axis=-1)[:, None]
        if any(all(D[i, p[i]] <= tol for i in range(len(p))) for p in itertools.permutations(range(V.shape[1]))):
            out.append(V[:, j] / V[:, 0])
    return np.array(out)


def test_stabilizers_of_many_factors_at_once_are_each_alone_and_the_definition():
    # partners of several node counts, a zero node (no stabilizer but 1) and clear-cut cases: z_syn (the cube roots
    # of unity), z_nu=i (multiplying by (i, i, -1) swaps its nodes), a random partner (1 only), at noise 1e-6; and
    # nodes (1, 1, w, w^2): w maps every node near one of V, but not one to one (w, w, w^2, 1), so w is not kept
    rng = np.random.default_rng(3)
    w = np.exp(2j * np.pi / 3)
    noisy = lambda X: X * (1 + 1e-6 * rng.normal(size=X.shape))
    Vs = [noisy(np.array([[1, w, w * w]] * 3)), noisy(np.array([[1, 1j], [1, 1j], [1, -1]])),
          rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3)), np.ones((3, 1)),
          noisy(np.array([[1, w, w * w]] * 3))[:, [2, 0, 1]], np.zeros((3, 2)),
          noisy(np.stack([np.kron(x, y) for x, y in zip(np.array([[1, 1j], [1, 1j], [1, -1]]), [[1, w, w * w]] * 3)])),
          noisy(np.array([[1, 1, w, w * w]] * 3))]
    together = stabilizers(Vs)
    for V, S in zip(Vs, together):
        alone = stabilizer(V)
        assert S.shape == alone.shape and np.array_equal(S, alone)
        assert S.shape == _stabilizer_by_definition(V).shape if np.all(V[:, 0] != 0) else S.shape == (1, 3)
    assert [len(S) for S in together] == [3, 2, 1, 1, 3, 1, 6, 2]
    assert np.allclose(together[0] ** 3, 1, atol=1e-5) and np.allclose(together[1][1], [1j, 1j, -1], atol=1e-5)
