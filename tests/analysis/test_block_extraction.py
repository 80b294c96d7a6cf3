"""Block extraction (cogo.analysis.block_extraction, SPEC 6 / 8.2-8.3) and the network verdict (cogo.analysis.verdict.network_verdict)."""
import numpy as np
import pytest

from cogo.algebra import Network
from cogo.algebra.loss import condition_residuals, real_loss
from cogo.analysis.block_extraction import block_conditions, block_kind, extract_blocks
from cogo.analysis.classify import read_network
from cogo.analysis.verdict.network_verdict import largest_residuals, network_verdict
from cogo.catalogue.partial import z_nu, z_nu_i, z_syn, z_xi

SIX = 6 ** (-1 / 3) * (z_syn() * z_nu(1j))


def f6(d, skip=()):
    """z_F6 on Z_d (d odd or even), blocks at k = 1 .. (d-1)//2 except ``skip``."""
    return Network.sum([Network.block(d, k, SIX.a, SIX.b, SIX.c) for k in range(1, (d - 1) // 2 + 1)
                        if k not in skip])


def self_conjugate_block(d, t=1.3):
    """Two real nodes at k = d/2: a = (t, t), b = (t, -t), c = (1, -1)/(2 t^2): abc = 1, sum (a^2 + b^2) c = 0."""
    z = np.zeros((3, d, 2), dtype=np.complex128)
    z[:, d // 2, :] = [[t, t], [t, -t], [0.5 / t ** 2, -0.5 / t ** 2]]
    return Network(d, z)


def test_z24_global_optimizer_with_self_conjugate_block_is_optimal():
    """False name: a real 2-node block at k = 12 of Z_24 was reported failing (old rule: never optimal)."""
    net = f6(24) + self_conjugate_block(24)
    Wa, Wb, Wc = net.to_weights()
    assert real_loss(Wa, Wb, Wc) < 1e-20  # a global optimizer (independent check, real space)
    rep = read_network(Wa, Wb, Wc, 24)
    (b12,) = [b for b in rep.blocks if b.k == 12]
    assert b12.self_conjugate and b12.order == 2
    assert b12.optimal and b12.failed_conditions == []
    assert all(b.optimal for b in rep.blocks)
    assert rep.verdict.optimal and rep.verdict.failed == []


def test_self_conjugate_block_that_fails_is_reported():
    net = f6(24) + self_conjugate_block(24)
    z = net.z.copy()
    z[2, 12, -1] *= -1  # c = (1, 1)/(2t^2): abc = 0 and the R_n sum is 2 t^2 / t^2 = ... != 0
    bad = Network(24, z)
    Wa, Wb, Wc = bad.to_weights()
    assert real_loss(Wa, Wb, Wc) > 1e-3
    rep = read_network(Wa, Wb, Wc, 24)
    (b12,) = [b for b in rep.blocks if b.k == 12]
    assert not b12.optimal and set(b12.failed_conditions) == {"R_g", "R_n"}
    assert not rep.verdict.optimal and rep.verdict.block_failures == {12: ["R_g", "R_n"]}


def test_block_kinds():
    from cogo.algebra import parse_group

    G = parse_group(24)
    assert block_kind(G, 12) == "self-conjugate"
    assert block_kind(G, 6) == "quarter"
    assert block_kind(G, 5) == "generic"
    assert block_kind(parse_group(23), 5) == "generic"


def test_quarter_frequency_r_star_is_one_sum():
    # at k = n/4, a^2 c and conj(a)^2 c are the same potential index m = 2k = -2k: only their sum must vanish
    a = np.array([1.0, 1j]) * 2 ** (-1 / 3)
    b = a.copy()
    c = np.array([1.0, 1.0]) * 2 ** (-1 / 3)
    # a^2 c = (1 - 1) / 2 = 0 here; take a case where each term is nonzero but the sum is 0
    a = np.array([np.exp(1j * np.pi / 8), 1.0])
    sq = block_conditions(a, b, c, kind="quarter")["R_*"]
    gen = block_conditions(a, b, c, kind="generic")["R_*"]
    direct = max(abs(np.sum((a ** 2 + np.conj(a) ** 2) * c)), abs(np.sum((b ** 2 + np.conj(b) ** 2) * c)))
    assert sq == pytest.approx(direct)
    assert gen >= abs(np.sum(a * a * c)) - 1e-12


def test_quarter_block_network_conditions_agree():
    """Per-block conditions equal the network's SPEC 5 residuals for a lone block at k = n/4 (Z_8, k = 2)."""
    rng = np.random.default_rng(0)
    a, b, c = (rng.normal(size=3) + 1j * rng.normal(size=3) for _ in range(3))
    net = Network.block(8, 2, a, b, c)
    cond = condition_residuals(net).max_abs()
    blk = block_conditions(a, b, c, kind="quarter")
    # network R_n, R_* and R_c are over all k != 0; the lone block's are the only nonzero ones
    assert blk["R_*"] == pytest.approx(cond["R_*"], rel=1e-9)
    # the network's R_n sums r_p[k, -k, k] and r_p[-k, k, k]: twice the block's |a|^2 c + |b|^2 c (SPEC 6 table)
    assert 2 * blk["R_n"] == pytest.approx(cond["R_n"], rel=1e-9)
    assert blk["R_c"] == pytest.approx(cond["R_c"], rel=1e-9)


def test_extract_blocks_rules():
    rng = np.random.default_rng(1)
    net = f6(11)
    Wa, Wb, Wc = net.to_weights()
    q = Wa.shape[0]
    # two dead nodes and a permutation
    Wa = np.vstack([Wa, 1e-9 * rng.normal(size=(2, 11))])
    Wb = np.vstack([Wb, 1e-9 * rng.normal(size=(2, 11))])
    Wc = np.hstack([Wc, 1e-9 * rng.normal(size=(11, 2))])
    split = extract_blocks(Network.from_weights(Wa, Wb, Wc))
    assert split.dead_nodes == 2 and split.live_nodes == q
    assert split.counts() == {k: 6 for k in range(1, 6)}
    assert split.mixed_nodes == 0
    assert list(split.node_frequency[-2:]) == [-1, -1]
    # exact networks: same split, exact values
    ex = Network.block(7, 3, z_nu_i(exact=True).a, z_nu_i(exact=True).b, z_nu_i(exact=True).c)
    sp = extract_blocks(ex, dead_threshold=0.0)
    assert [(b.k, b.order) for b in sp.blocks] == [(3, 2)] and sp.blocks[0].a.dtype == object


def test_mixed_nodes_network_verdict():
    """False name: every block optimal, yet cross-frequency output weights make the loss positive."""
    net = f6(7)
    z = net.z.copy()
    blk1 = np.flatnonzero(np.abs(z[0, 1]) > 0)
    z[2, 2, blk1] += 0.3  # block-1 nodes also write to output frequency 2 (and conj at -2)
    z[2, 5, blk1] += 0.3
    mixed = Network(7, z)
    Wa, Wb, Wc = mixed.to_weights()
    loss = real_loss(Wa, Wb, Wc)
    assert loss > 0.05
    rep = read_network(Wa, Wb, Wc, 7)
    assert all(b.optimal for b in rep.blocks)  # each block on its own is optimal
    assert rep.mixed_nodes == 6
    v = rep.verdict
    assert not v.optimal and v.loss == pytest.approx(loss, rel=1e-9)
    assert v.failed and v.cross_frequency == v.failed and v.block_failures == {}
    d = v.to_dict()
    assert d["optimal"] is False and d["failed"] == v.failed


def test_f46_verdict_blocks_fail_but_network_holds():
    import cogo.solvers.constructions as cons
    net = cons.z_F46(13, seed=4)
    v = network_verdict(net)
    assert v.optimal and v.failed == []
    assert sorted(v.block_failures.values()) == [["R_n"]] * 5  # order-4 blocks miss R_n alone (SPEC 7.3)


def test_missing_block_is_noted():
    v = network_verdict(f6(11, skip=(3,)))
    assert not v.optimal and "R_g" in v.failed and any("[3]" in n for n in v.notes)
    assert v.cross_frequency == []


def test_chunked_residuals_equal_condition_residuals():
    rng = np.random.default_rng(2)
    z = rng.normal(size=(3, 9, 5)) + 1j * rng.normal(size=(3, 9, 5))
    net = Network(9, z)
    ref = condition_residuals(net).max_abs()
    got = largest_residuals(net, chunk_elements=50)  # forces the chunked path
    for k in ref:
        assert got[k] == pytest.approx(ref[k], rel=1e-12)


@pytest.mark.parametrize("group", ["9", "12", "Z_2 x Z_4", "Z_3 x Z_3"])
def test_fused_loss_and_cross_residual_equal_the_direct_ones(group):
    # the real-space product + FFT (loss_and_cross_residual) against real_loss and condition_residuals
    from cogo.algebra import parse_group
    from cogo.analysis.verdict.network_verdict import loss_and_cross_residual
    G = parse_group(group)
    rng = np.random.default_rng(5)
    Wa, Wb, Wc = rng.normal(size=(7, G.order)), rng.normal(size=(7, G.order)), rng.normal(size=(G.order, 7))
    loss, rc = loss_and_cross_residual(Wa, Wb, Wc, G)
    assert loss == pytest.approx(real_loss(Wa, Wb, Wc, group=G), rel=1e-12)
    assert rc == pytest.approx(condition_residuals(Network.from_weights(Wa, Wb, Wc, G)).max_abs()["R_c"], rel=1e-12)


def test_fused_cross_residual_skips_the_diagonal_and_sees_one_cross_term():
    # z_F6 has r_kkk = 1 on the diagonal and nothing across: R_c is 0 (the diagonal is not a cross term)
    from cogo.algebra import parse_group
    from cogo.analysis.verdict.network_verdict import loss_and_cross_residual
    net = f6(11)
    Wa, Wb, Wc = net.to_weights()
    G = parse_group(11)
    loss, rc = loss_and_cross_residual(Wa, Wb, Wc, G)
    assert loss < 1e-20 and rc < 1e-12
    # one node at frequencies (1, 2, 3) adds r[1, 2, 3] (and its conjugates) = its product: R_c sees it
    extra = Network.block(11, 1, [0.1], [0.0], [0.0]).z + Network.block(11, 2, [0.0], [0.1], [0.0]).z \
        + Network.block(11, 3, [0.0], [0.0], [0.1]).z
    net2 = Network(11, np.concatenate([net.z, extra], axis=2))
    W2 = net2.to_weights()
    _, rc2 = loss_and_cross_residual(*W2, G)
    assert rc2 == pytest.approx(condition_residuals(net2).max_abs()["R_c"], rel=1e-9) and rc2 > 1e-4


def test_verdict_of_a_large_network_takes_the_fused_path_and_agrees():
    # n^2 q > 2^22: network_verdict uses loss_and_cross_residual; the chunked Fourier path gives the same residuals
    rng = np.random.default_rng(9)
    n, q = 61, 1200
    Wa, Wb, Wc = 0.1 * rng.normal(size=(q, n)), 0.1 * rng.normal(size=(q, n)), 0.1 * rng.normal(size=(n, q))
    v = network_verdict(Wa=Wa, Wb=Wb, Wc=Wc, group=n)
    assert v.loss == pytest.approx(real_loss(Wa, Wb, Wc, group=n), rel=1e-12)
    ref = largest_residuals(Network.from_weights(Wa, Wb, Wc, n), chunk_elements=1 << 20)
    for k in ref:
        assert v.residuals[k] == pytest.approx(ref[k], rel=1e-10)


def test_exact_z_F6_at_127_is_optimal_through_the_fused_path():
    # 378 nodes at d = 127: n^2 q > 2^22, so the loss and R_c come from loss_and_cross_residual
    import cogo.solvers.constructions as cons
    Wa, Wb, Wc = cons.z_F6(127).to_weights(real=True)
    assert 127 ** 2 * Wa.shape[0] > 1 << 22
    v = network_verdict(Wa=Wa, Wb=Wb, Wc=Wc, group=127)
    assert v.optimal and v.failed == [] and v.loss < 1e-27 and v.residuals["R_c"] < 1e-14


def test_verdict_from_weights_and_pruning():
    net = f6(11)
    Wa, Wb, Wc = net.to_weights()
    Wa = np.vstack([Wa, np.full((3, 11), 1e-8)])
    Wb = np.vstack([Wb, np.full((3, 11), 1e-8)])
    Wc = np.hstack([Wc, np.full((11, 3), 1e-8)])
    v = network_verdict(Wa=Wa, Wb=Wb, Wc=Wc)
    assert v.nodes_used == Wa.shape[0] - 3 and v.optimal
    Wa[-1], Wb[-1], Wc[:, -1] = np.arange(11.0), np.arange(11.0), 1e-3 * np.arange(11.0)  # not negligible: kept, and the loss shows it
    v2 = network_verdict(Wa=Wa, Wb=Wb, Wc=Wc)
    assert v2.nodes_used == Wa.shape[0] - 2 and v2.loss > v.loss
