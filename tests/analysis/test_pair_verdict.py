"""The verdict's loss and R_c from each node's frequency pair (cogo.analysis.verdict.pair_kernel.pair_loss_and_cross).

Checked against the definitions computed directly: real_loss (every pair in real space) and the R_c of
condition_residuals (every r[k1, k2, k] summed over the nodes), and the split's algebra against the dense tensors.
"""
import numpy as np
import pytest

from cogo.algebra import Network, parse_group
from cogo.algebra.loss import condition_residuals, real_loss
from cogo.analysis.verdict.network_verdict import network_verdict
from cogo.analysis.verdict.pair_kernel import CROSS_CANDIDATES, pair_loss_and_cross, pair_split, pair_terms
from cogo.catalogue.partial import z_nu, z_syn

SIX = 6 ** (-1 / 3) * (z_syn() * z_nu(1j))


def noisy_blocks(group, noise, seed=0, dead=5):
    """Real weights of catalogue blocks at every k != -k (one of each pair), plus ``dead`` pure-noise nodes, noisy."""
    G = parse_group(group)
    ks = [k for k in range(1, G.order) if k < G.neg[k]]
    net = Network.sum([Network.block(G, k, SIX.a, SIX.b, SIX.c) for k in ks])
    Wa, Wb, Wc = net.to_weights()
    rng = np.random.default_rng(seed)
    Wa, Wb, Wc = np.vstack([Wa, np.zeros((dead, G.order))]), np.vstack([Wb, np.zeros((dead, G.order))]), \
        np.hstack([Wc, np.zeros((G.order, dead))])
    return G, tuple(W + noise * rng.normal(size=W.shape) for W in (Wa, Wb, Wc))


def dense_r(z):
    return np.einsum("ij,kj,lj->ikl", z[0], z[1], z[2])


@pytest.mark.parametrize("group", ["9", "12", "Z_3 x Z_5", "Z_2 x Z_4", "24"])
@pytest.mark.parametrize("noise", [1e-7, 1e-4, 3e-3])
def test_pair_path_equals_the_definitions(group, noise):
    G, (Wa, Wb, Wc) = noisy_blocks(group, noise)
    z = Network.from_weights(Wa, Wb, Wc, G).z
    got = pair_loss_and_cross(Wa, Wb, Wc, z, G, cheaper_only=False)
    assert got is not None  # nearly single-frequency: the pair path answers
    ref_loss = real_loss(Wa, Wb, Wc, group=G)
    ref = condition_residuals(Network.from_weights(Wa, Wb, Wc, G)).max_abs()
    # both carry the rounding of the residuals (~1e-16 each): the loss to 1e-14 sqrt(loss) absolute
    assert got[0] == pytest.approx(ref_loss, rel=1e-11, abs=1e-14 * np.sqrt(ref_loss) + 1e-28)
    for c in ("R_c", "R_n", "R_*"):
        assert got[1][c] == pytest.approx(ref[c], rel=1e-9, abs=1e-15), c
        assert ref[c] > 10 * noise ** 2  # not trivially 0: the noise moves every sum


@pytest.mark.parametrize("group", ["9", "12", "Z_3 x Z_5"])
def test_pair_terms_and_the_leakage_bound(group):
    # X = r - sum_j e_a (x) e_b (x) e_c entry by entry, and every entry of that sum is within delta
    G, (Wa, Wb, Wc) = noisy_blocks(group, 2e-3, seed=3)
    z = Network.from_weights(Wa, Wb, Wc, G).z
    ps = pair_split(z, G)
    X = pair_terms(ps)
    q = z.shape[2]
    e = ps.e[:, :, :q]
    r, leak = dense_r(z)[:, :, ps.ks], dense_r(e)[:, :, ps.ks]
    np.testing.assert_allclose(X, r - leak, rtol=0, atol=1e-13)
    assert np.abs(leak).max() <= ps.delta
    assert np.abs(leak).max() > 1e-3 * ps.delta  # the bound is not vacuous here: the leakage term is there
    # the pairs hold each node's largest mass, and s + e = z
    np.testing.assert_array_equal(ps.s + ps.e, ps.z)
    mass = (np.abs(z) ** 2).sum(axis=0)
    assert np.all((mass + mass[G.neg])[ps.f, np.arange(q)] >= (mass + mass[G.neg]).max(axis=0))


def test_pair_path_refuses_when_it_would_cost_more():
    # every node on one frequency pair: J = q, the batched products cost more than the real-space product
    G = parse_group(9)
    x = 6 ** (-1 / 3) * (z_syn() * z_nu(1j))
    net = Network.sum([Network.block(G, 1, x.a, x.b, x.c)] * 20)
    Wa, Wb, Wc = net.to_weights()
    z = net.z
    assert pair_split(z, G).idx.shape[1] == Wa.shape[0]
    assert pair_loss_and_cross(Wa, Wb, Wc, z, G) is None
    assert pair_loss_and_cross(Wa, Wb, Wc, z, G, cheaper_only=False) is not None


def test_pair_path_refuses_a_network_that_is_not_single_frequency():
    rng = np.random.default_rng(1)
    G = parse_group(15)
    Wa, Wb, Wc = rng.normal(size=(30, 15)), rng.normal(size=(30, 15)), rng.normal(size=(15, 30))
    z = Network.from_weights(Wa, Wb, Wc, G).z
    assert pair_split(z, G) is None and pair_loss_and_cross(Wa, Wb, Wc, z, G, cheaper_only=False) is None


def test_pair_path_gives_up_when_cross_terms_are_at_the_rounding_level(monkeypatch):
    # an exact optimizer has R_c at the rounding: every entry is a candidate, more than allowed
    import cogo.analysis.verdict.pair_kernel as O
    G, (Wa, Wb, Wc) = noisy_blocks(15, 0.0, dead=0)
    z = Network.from_weights(Wa, Wb, Wc, G).z
    assert O.pair_split(z, G) is not None  # the split exists: None comes from the candidates
    monkeypatch.setattr(O, "CROSS_CANDIDATES", 50)
    assert O.pair_loss_and_cross(Wa, Wb, Wc, z, G, cheaper_only=False) is None
    assert CROSS_CANDIDATES >= 50


def test_verdict_of_a_large_nearly_single_frequency_network_takes_the_pair_path(monkeypatch):
    # n^2 q > 2^22 and the pair path cheaper than the real-space product: network_verdict's loss and R_c come from
    # the pair path, and agree with the direct definitions (computed here in chunks)
    import cogo.analysis.verdict.network_verdict as O
    G, (Wa, Wb, Wc) = noisy_blocks(101, 1e-4, dead=150)
    assert 101 ** 2 * Wa.shape[0] > 1 << 22
    calls = []
    monkeypatch.setattr(O, "loss_and_cross_residual", lambda *a: calls.append(a))
    v = network_verdict(Wa=Wa, Wb=Wb, Wc=Wc, group=G)
    assert calls == []  # the real-space product was not needed
    assert v.loss == pytest.approx(real_loss(Wa, Wb, Wc, group=G), rel=1e-11)
    ref = O.largest_residuals(Network.from_weights(Wa, Wb, Wc, G), chunk_elements=1 << 20)
    for c in ref:
        assert v.residuals[c] == pytest.approx(ref[c], rel=1e-9, abs=1e-15), c
    # the noise leaves it off the optimizer: the verdict must say so, every condition failing
    assert not v.optimal and v.failed == ["R_g", "R_c", "R_n", "R_*"]


def test_verdict_with_the_block_residuals_given_is_the_verdict_without():
    # read_network hands the verdict its blocks' conditions (computed for the block reports): the same verdict,
    # and a block's failures come from what is given (a wrong residual is reported as given)
    from cogo.analysis.block_extraction import extract_blocks
    G, (Wa, Wb, Wc) = noisy_blocks(13, 1e-3, dead=2)
    net = Network.from_weights(Wa, Wb, Wc, G)
    split = extract_blocks(net)
    given = [b.conditions() for b in split.blocks]
    v0 = network_verdict(net, Wa=Wa, Wb=Wb, Wc=Wc, group=G, split=split)
    v1 = network_verdict(net, Wa=Wa, Wb=Wb, Wc=Wc, group=G, split=split, block_residuals=given)
    assert v0.block_failures and v1.block_failures == v0.block_failures and v1.block_tol == v0.block_tol
    clean = [dict.fromkeys(d, 0.0) for d in given]
    v2 = network_verdict(net, Wa=Wa, Wb=Wb, Wc=Wc, group=G, split=split, block_residuals=clean)
    assert v2.block_failures == {}
    with pytest.raises(ValueError, match="block_residuals has 1 entries"):
        network_verdict(net, Wa=Wa, Wb=Wb, Wc=Wc, group=G, split=split, block_residuals=given[:1])


@pytest.mark.parametrize("step", [1, 3, None])
def test_pair_sums_read_in_rows_are_the_whole_tensors(step):
    # pair_sums reads X a few rows at a time: its sums, planes, diagonal, largest entry and R_c candidates are those
    # of the whole X (pair_terms) masked off k = 0 and k1 = k2 = k, whatever the number of rows at a time (to the
    # rounding: the batched products have other shapes)
    from cogo.analysis.verdict.pair_kernel import pair_sums
    G, (Wa, Wb, Wc) = noisy_blocks("Z_3 x Z_5", 1e-3, seed=5)
    ps = pair_split(Network.from_weights(Wa, Wb, Wc, G).z, G)
    X = pair_terms(ps)
    ks = ps.ks
    A = np.abs(X)
    A[:, :, ks == 0] = 0.0
    A[ks, ks, np.arange(len(ks))] = 0.0
    got = pair_sums(ps, step)
    np.testing.assert_allclose(got.bulk, (A[1:, 1:] ** 2).sum(axis=(0, 1)), rtol=1e-13)
    for part, ref in ((got.plane1, X[:, 0]), (got.plane2, X[0, 1:]), (got.diag, X[ks, ks, np.arange(len(ks))])):
        np.testing.assert_allclose(part, ref, rtol=0, atol=1e-15)  # products of other shapes: other rounding
    assert got.top == pytest.approx(A.max(), rel=1e-14)
    margin = 2.0 * (ps.delta + ps.allowance)
    np.testing.assert_array_equal(np.sort(got.candidates), np.flatnonzero(A >= A.max() - margin))
    assert 0 < len(got.candidates) < A.size // 10  # the noise singles out a few entries
