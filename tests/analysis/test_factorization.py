"""Kronecker factorization of blocks (SPEC 8.4-8.5): cogo.analysis.factor.factorization."""
import itertools
from pathlib import Path
import time

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from cogo.analysis.factor.assignment import linear_assignment
from cogo.analysis.factor.factorization import _prepare, factor_block, factor_block_shape
from cogo.analysis.factor.kronecker import FACTOR_TOL, balance_gauge, factor_shapes, fit_grid, kron_vectors
from cogo.analysis.factor.lowrank import rank1
from cogo.catalogue.partial import z_nu, z_nu_i, z_syn, z_syn_ab, z_xi

from strategies import angles, seeds, signs  # noqa: E402


def unit(t):
    return complex(np.exp(1j * t))


def scrambled(ps, seed, noise=1e-3, gauge=True):
    """The block q^(-1/3) ps with a random node order, per-node real gauge t (signs included) and noise.

    The noise is absolute while the gauge scales c by t^-2 (t = exp(0.4 N)), so the relative error
    of the exact product alone reaches a few 1e-3: recovery is checked at 1e-2 (a wrong grid is ~0.3).
    """
    rng = np.random.default_rng(seed)
    q = ps.q
    x = np.stack([ps.a, ps.b, ps.c]) * q ** (-1 / 3)
    perm = rng.permutation(q)
    x = x[:, perm]
    if gauge:
        t = np.exp(rng.normal(size=q) * 0.4) * rng.choice([-1.0, 1.0], size=q)
        x = x * np.stack([t, t, t ** -2.0])
    nz = rng.uniform(-1, 1, size=(3, q)) + 1j * rng.uniform(-1, 1, size=(3, q))
    x = x + noise * nz / np.sqrt(2)
    return x, perm


def check_recovered(x, fz, q_tol=1e-2):
    """The factorization reproduces the block (in the block's own gauge) and is normalized (SPEC 8.4)."""
    assert sorted(fz.grid.reshape(-1).tolist()) == list(range(x.shape[1]))
    rec = fz.reconstruct()
    assert np.linalg.norm(rec - x) <= 10 * q_tol * np.linalg.norm(x)
    for f in fz.factors:
        assert np.allclose(f.vectors[:, 0], 1.0)
    assert fz.error <= q_tol


# --------------------------------------------------------------------------- helpers
def test_factor_shapes():
    assert factor_shapes(4) == [(2, 2)]
    assert factor_shapes(6) == [(2, 3)]
    assert factor_shapes(8) == [(2, 2, 2), (2, 4)]
    assert factor_shapes(12) == [(2, 2, 3), (2, 6), (3, 4)]
    assert factor_shapes(7) == [] and factor_shapes(2) == [] and factor_shapes(1) == []


@given(st.integers(1, 7), seeds)
def test_linear_assignment_is_optimal(n, seed):
    rng = np.random.default_rng(seed)
    cost = rng.random((n, n))
    col = linear_assignment(cost)
    assert sorted(col.tolist()) == list(range(n))
    best = min(sum(cost[i, p[i]] for i in range(n)) for p in itertools.permutations(range(n)))
    assert cost[np.arange(n), col].sum() == pytest.approx(best)


@given(seeds, st.sampled_from([(2, 3), (2, 2, 3), (3, 4), (2, 2, 2)]))
def test_rank1_recovers_a_kronecker_tensor(seed, shape):
    rng = np.random.default_rng(seed)
    us = [rng.normal(size=m) + 1j * rng.normal(size=m) for m in shape]
    T = kron_vectors([u[None, :] for u in us])[0].reshape(shape)
    lam, vs = rank1(T)
    R = lam * kron_vectors([v[None, :] for v in vs])[0].reshape(shape)
    assert np.allclose(R, T, atol=1e-9 * np.abs(T).max())


@given(seeds)
def test_balance_gauge_is_gauge_invariant(seed):
    rng = np.random.default_rng(seed)
    a, b, c = (rng.normal(size=5) + 1j * rng.normal(size=5) for _ in range(3))
    t = np.exp(rng.normal(size=5))
    x1 = balance_gauge(a, b, c)
    x2 = balance_gauge(a * t, b * t, c / t ** 2)
    for u, v in zip(x1[:3], x2[:3]):
        assert np.allclose(u, v)
    A, B, C, _ = x1
    assert np.allclose(np.abs(A) * np.abs(B), np.abs(C) ** 2)


# --------------------------------------------------------------------------- catalogue blocks
@given(angles, signs, seeds)
def test_order4_nu_i_times_xi(t, s, seed):
    x, _ = scrambled(z_nu_i() * z_xi(unit(t), s), seed)
    bf = factor_block(*x)
    assert bf.factorable and bf.best.shape == (2, 2)
    check_recovered(x, bf.best)


@given(angles, seeds)
def test_order6_nu_times_syn(t, seed):
    x, _ = scrambled(z_nu(unit(t)) * z_syn(), seed)
    bf = factor_block(*x)
    assert bf.factorable and bf.best.shape == (2, 3)
    check_recovered(x, bf.best)


@given(angles, angles, seeds)
def test_order6_nu_i_times_syn_ab(t1, t2, seed):
    x, _ = scrambled(z_nu_i() * z_syn_ab(unit(t1), unit(t2)), seed)
    bf = factor_block(*x)
    assert bf.factorable and bf.best.shape == (2, 3)
    check_recovered(x, bf.best)


@given(angles, angles, signs, seeds)
def test_order8_products_factor_2x2x2(t1, t2, s, seed):
    x, _ = scrambled(z_nu_i() * z_xi(unit(t1), s) * z_nu(unit(t2)), seed)
    bf = factor_block(*x)
    assert bf.factorable and bf.best.shape == (2, 2, 2)
    check_recovered(x, bf.best)
    # the coarser shape is exact too
    assert bf.best_for((2, 4)).error <= 5e-3


@given(angles, angles, angles, seeds)
def test_order12_products_factor_2x2x3(t1, t2, t3, seed):
    x, _ = scrambled(z_xi(unit(t1), 1) * z_nu(unit(t2)) * z_syn_ab(unit(t3), unit(t1 + t2)), seed)
    bf = factor_block(*x)
    assert bf.factorable and bf.best.shape == (2, 2, 3)
    check_recovered(x, bf.best)
    # coarser shapes fit at least as well as the finest one (their grids are merged from it)
    assert bf.best_for((2, 6)).error <= bf.best.error + 1e-12
    assert bf.best_for((3, 4)).error <= bf.best.error + 1e-12


# Near-degenerate products found by hypothesis's random profile (the property tests above run derandomized
# by default, tests/conftest.py), kept as regression tests.
# z_nu=i * z_xi(e^3i, 1) * z_nu(nu ~ -i): nodes a few percent apart are one cluster and the tiling finds no
# 2 x 2 x 2 grid (local search: error 0.54) while the 2 x 4 grid is exact; its 4-node factor is now factored
# on its own and the 2 x 4 grid split into 2 x 2 x 2.
def test_order8_2x2x2_near_degenerate_split_from_2x4():
    test_order8_products_factor_2x2x2.hypothesis.inner_test(3.0, 4.736328125, 1, 20882682)


def test_order8_2x2x2_near_degenerate_finds_the_true_grid():

    x, perm = scrambled(z_nu_i() * z_xi(unit(3.0), 1) * z_nu(unit(4.736328125)), 20882682)
    true_grid = np.argsort(perm).reshape(2, 2, 2)
    X, F, _ = _prepare(*x)
    true_err = fit_grid(X, F, true_grid, reassign=False)[-1]
    assert true_err < 3e-3
    bf = factor_block(*x)
    assert bf.best.shape == (2, 2, 2) and bf.best.error <= 1.5 * true_err
    # the identity grid, which the local search for 2 x 2 x 2 started from, is far from a product
    assert fit_grid(X, F, np.arange(8).reshape(2, 2, 2))[-1] > 10 * FACTOR_TOL


def test_order12_all_parameters_1_is_split_and_merged_back():
    """z_xi(1, 1) * z_nu(1) * z_syn,ab(1, 1) (hypothesis 'stress' example): z_nu(1) has two equal nodes.

    The tiling finds no 2 x 2 x 3 grid (local search: error 0.49) nor 3 x 4; the 2 x 6 grid is split into
    2 x 2 x 3, and 3 x 4 must then be merged back from it (it was left at 0.49).
    """
    test_order12_products_factor_2x2x3.hypothesis.inner_test(0.0, 0.0, 0.0, 814620)


def test_order12_coarser_grid_never_worse_than_a_finer_exact_one():
    """z_xi(1, 1) * z_nu(w) * z_syn,ab(e^0.02i, w) (w = e^(2 pi i/3)): the tiling's own 2 x 6 grid fit at 0.0046,
    four times worse than the exact 2 x 2 x 3 grid (0.0011) it is a merge of; it is now merged back."""
    test_order12_products_factor_2x2x3.hypothesis.inner_test(0.0, 2 * np.pi / 3, 0.02, 0)


# z_nu=i * z_xi(1, -1) * z_nu(nu) with nu 0.025 rad from i (found by a sweep of special angles): z_nu(i) is z_nu=i,
# so the 8 nodes are nearly 4 pairs and several 2 x 4 grids fit within tolerance; the best one (0.0005, below the
# true grid's 0.0008) has a 4-node factor that is no product, and the 2 x 2 x 2 local search stays at 0.31.  The
# other exact 2 x 4 grids of the local search are now split in turn.
def test_order8_xi_1_nu_near_i_split_from_another_2x4():
    test_order8_products_factor_2x2x2.hypothesis.inner_test(0.0, np.pi / 2 - 0.025, -1, 1)


def test_order8_xi_1_nu_near_i_best_2x4_does_not_split():
    """The premise of the test above: the best 2 x 4 grid's 4-node factor is far from a 2 x 2 product."""
    x, _ = scrambled(z_nu_i() * z_xi(unit(0.0), -1) * z_nu(unit(np.pi / 2 - 0.025)), 1)
    bf = factor_block(*x)
    f4 = bf.best_for((2, 4)).factors[1]
    assert bf.best_for((2, 4)).error <= 1e-3
    assert factor_block(f4.a, f4.b, f4.c).min_error > 5 * FACTOR_TOL
    assert bf.best_for((2, 2, 2)).error <= 1e-3


# A finer shape asked for alone (factor_block(..., shapes=[...]) or factor_block_shape): the coarser shapes it can
# be split from are searched too when it has no exact grid, but not reported.
@pytest.mark.parametrize("params", [(3.0, 4.736328125, 1, 20882682), (0.0, np.pi / 2 - 0.025, -1, 1)])
def test_order8_2x2x2_alone_is_split_from_a_searched_2x4(params):
    t1, t2, s, seed = params
    x, _ = scrambled(z_nu_i() * z_xi(unit(t1), s) * z_nu(unit(t2)), seed)
    bf = factor_block(*x, shapes=[(2, 2, 2)])
    assert list(bf.by_shape) == [(2, 2, 2)]
    assert bf.best.shape == (2, 2, 2)
    check_recovered(x, bf.best)
    fs = factor_block_shape(*x, (2, 2, 2))
    assert fs[0].shape == (2, 2, 2) and fs[0].error <= 1e-2


# Two or three factors near a degenerate value at once (xi ~ -1, nu ~ 1, z_syn,ab ~ (1, -1); found by a sweep of
# special angles): the ratio sets nearly form a group, 22 sets tile within the match tolerance and the assemblies
# started from the first six are all wrong (every shape fit at ~0.015, the true 2 x 2 x 3 grid 0.0012).  The
# translate grid of each set no assembly started from is now fitted, and a 3 x 4 grid twice better is split.
P2, P = np.pi / 2, np.pi
@pytest.mark.parametrize("t", [(P + 0.03, 0.02, 0.02), (3 * P2 + 0.03, 0.02, P2 + 0.03),
                               (3 * P2 - 0.025, P - 0.025, P2 - 0.025), (3 * P2 + 0.02, P + 0.02, P),
                               (P + 0.03, 3 * P2 + 0.02, P + 0.03)])
def test_order12_several_near_degenerate_factors(t):
    test_order12_products_factor_2x2x3.hypothesis.inner_test(*t, 0)


def test_order12_several_near_degenerate_factors_finds_the_true_grid():

    t1, t2, t3 = P + 0.03, 0.02, 0.02
    x, perm = scrambled(z_xi(unit(t1), 1) * z_nu(unit(t2)) * z_syn_ab(unit(t3), unit(t1 + t2)), 0)
    true_grid = np.argsort(perm).reshape(2, 2, 3)
    X, F, _ = _prepare(*x)
    true_err = fit_grid(X, F, true_grid, reassign=False)[-1]
    assert true_err < 3e-3
    bf = factor_block(*x)
    assert bf.best.shape == (2, 2, 3) and bf.best.error <= 1.5 * true_err
    assert sorted(sorted(f) for f in bf.best.grid.reshape(4, 3).tolist()) == \
        sorted(sorted(f) for f in true_grid.reshape(4, 3).tolist())
    # the premise: grids well within FACTOR_TOL but ten times worse than the true one exist (the old answer)
    assert any(5 * true_err < f.error <= FACTOR_TOL for f in bf.by_shape[(2, 2, 3)])


# z_nu=i * z_xi(~+-1, 1) * z_nu(nu) with nu 0.02 rad from +-i (special-angle sweep): four pairs of nodes 0.02-0.05
# apart are one cluster each, the tiling places each pair's two nodes in either cell, and a grid with pairs swapped
# is a fixed point of the reassignment (2 x 2 x 2 at 0.0097, 2 x 4 at 0.0069; the true grid 0.0008).  Near-equal
# pairs are now swapped between their cells when that fits better.
@pytest.mark.parametrize("params", [(np.pi, np.pi / 2 + 0.02, 1, 1), (0.02, np.pi / 2 + 0.02, 1, 1),
                                    (3 * np.pi / 2 + 0.03, 3 * np.pi / 2 + 0.02, 1, 1)])
def test_order8_xi_near_1_nu_near_i_pairs_not_swapped(params):
    test_order8_products_factor_2x2x2.hypothesis.inner_test(*params)


def test_order8_xi_near_1_nu_near_i_finds_the_true_grid():
    from cogo.analysis.factor.kronecker import _rel_dist
    from cogo.analysis.factor.tiling import CLUSTER_TOL

    x, perm = scrambled(z_nu_i() * z_xi(unit(np.pi), 1) * z_nu(unit(np.pi / 2 + 0.02)), 1)
    true_grid = np.argsort(perm).reshape(2, 2, 2)
    X, F, _ = _prepare(*x)
    true_err = fit_grid(X, F, true_grid, reassign=False)[-1]
    assert true_err < 2e-3
    # the premise: the nodes are four pairs within the cluster tolerance, each pair two distinct nodes
    D = _rel_dist(F, F)
    near = [(i, j) for i in range(8) for j in range(i + 1, 8) if D[i, j] <= CLUSTER_TOL]
    assert len(near) == 4 and all(D[i, j] > 10 * true_err for i, j in near)
    bf = factor_block(*x)
    assert bf.best.shape == (2, 2, 2) and bf.best.error <= 1.5 * true_err
    # the true grid up to relabelling: a permutation of the axes and a reversal of some of them
    relabelled = [np.flip(np.transpose(true_grid, axes), [k for k in range(3) if flips[k]]) if any(flips)
                  else np.transpose(true_grid, axes)
                  for axes in itertools.permutations(range(3)) for flips in itertools.product([0, 1], repeat=3)]
    # (or a grid that fits better still: the canonical ranking may find one the old search order missed)
    assert any(np.array_equal(bf.best.grid, g) for g in relabelled) or bf.best.error < true_err
    assert bf.best_for((2, 4)).error <= 1.5 * true_err
    # a grid with one pair swapped (what the search used to return) is measurably worse
    i, j = near[0]
    wrong = true_grid.reshape(-1).copy()
    a, b = int(np.flatnonzero(wrong == i)[0]), int(np.flatnonzero(wrong == j)[0])
    wrong[a], wrong[b] = j, i
    assert fit_grid(X, F, wrong.reshape(2, 2, 2), reassign=False)[-1] > 3 * true_err


# z_xi(1, 1) * z_nu(nu ~ -1) * z_syn,ab(1, nu): the ratios of z_xi(1, 1) square to those of z_nu(-1), so the
# 2 x 2 part is nearly a cyclic group and z_syn,ab(1, -1) nearly z_syn; the tiling found the right triples but
# some in the wrong order along the 3-axis (error 0.0101 against 0.0012 for the true grid, and 10x the 2 x 6
# grid's), a fixed point of the reassignment.  Fibers along axes of size 2 and 3 are now re-aligned.
def test_order12_2x2x3_near_degenerate_is_aligned():
    test_order12_products_factor_2x2x3.hypothesis.inner_test(0.0, 3.171875, 0.0, 0)


def test_order12_2x2x3_near_degenerate_finds_the_true_grid():

    x, perm = scrambled(z_xi(unit(0.0), 1) * z_nu(unit(3.171875)) * z_syn_ab(unit(0.0), unit(3.171875)), 0)
    true_grid = np.argsort(perm).reshape(2, 2, 3)
    X, F, _ = _prepare(*x)
    true_err = fit_grid(X, F, true_grid, reassign=False)[-1]
    assert true_err < 3e-3
    best = factor_block(*x).best
    assert best.shape == (2, 2, 3) and best.error <= 1.5 * true_err
    # the 3-fibers are the true ones, in a consistent order: the grid equals the true one up to relabelling each axis
    assert sorted(sorted(f) for f in best.grid.reshape(4, 3).tolist()) == \
        sorted(sorted(f) for f in true_grid.reshape(4, 3).tolist())
    # a grid with one 3-fiber in another order (what the search used to return) is measurably worse
    wrong = true_grid.copy()
    wrong[0, 0] = wrong[0, 0, [1, 0, 2]]
    assert fit_grid(X, F, wrong, reassign=False)[-1] > 3 * true_err


def product_phase_defect(r) -> float:
    """How far 4 unit-modulus nodes are from a 2 x 2 Kronecker product, by phases alone (independent of cogo).

    A 2 x 2 product [[p, q], [r, s]] has x_p x_s = x_q x_r in every channel; per-node real gauges (signs
    included) change a phase by pi at most, so the defect of a pairing is measured modulo pi.  The value
    is the smallest, over the three pairings, of the largest channel defect (radians, in [0, pi/2]).
    """
    best = np.inf
    for (i, j), (k, m) in (((0, 3), (1, 2)), ((0, 2), (1, 3)), ((0, 1), (2, 3))):
        worst = 0.0
        for x in (r.a, r.b, r.c):
            ph = np.angle(x[i]) + np.angle(x[j]) - np.angle(x[k]) - np.angle(x[m])
            worst = max(worst, abs((ph + np.pi / 2) % np.pi - np.pi / 2))
        best = min(best, worst)
    return best


@given(angles, seeds)
def test_order12_with_a_non_catalogue_4_factor_is_3x4(t, seed):
    rng = np.random.default_rng(seed)
    from cogo.catalogue.partial import PartialSolution

    r4 = PartialSolution("r", *(np.exp(2j * np.pi * rng.random(4)) for _ in range(3)))
    # a random r4 can itself lie within the factoring tolerance of a 2 x 2 product (seed 425: 0.045),
    # and then 2 x 2 x 3 is a right answer; keep r4 at least 0.5 rad from any product (on 3000 seeds
    # every such r4 fits no 2 x 2 grid better than 0.076 > FACTOR_TOL)
    assume(product_phase_defect(r4) > 0.5)
    x, _ = scrambled(z_syn_ab(unit(t), unit(2 * t + 1)) * r4, seed)
    bf = factor_block(*x)
    assert bf.factorable and bf.best.shape == (3, 4)
    check_recovered(x, bf.best)


@given(angles, seeds)
def test_order12_with_a_non_catalogue_6_factor_is_2x6(t, seed):
    rng = np.random.default_rng(seed)
    from cogo.catalogue.partial import PartialSolution

    r6 = PartialSolution("r", *(np.exp(2j * np.pi * rng.random(6)) for _ in range(3)))
    x, _ = scrambled(z_nu(unit(t)) * r6, seed)
    bf = factor_block(*x)
    assert bf.factorable and bf.best.shape == (2, 6)
    check_recovered(x, bf.best)


# nu close to 1: the two rows of the 2 x 6 grid are nearly equal, so which node of a pair goes in which row is
# nearly tied; the search used to return some pairs flipped (error ~0.012 against ~0.001 for the true grid).
# 6.265625 is the hypothesis example (radians, nu 1.006 degrees below 1); the others are nu at 0.5..8 degrees.
@pytest.mark.parametrize("t", [6.265625, np.deg2rad(0.5), np.deg2rad(2), np.deg2rad(4), np.deg2rad(8)])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_order12_nu_near_1_finds_the_true_2x6_grid(t, seed):
    from cogo.catalogue.partial import PartialSolution

    rng = np.random.default_rng(seed)
    r6 = PartialSolution("r", *(np.exp(2j * np.pi * rng.random(6)) for _ in range(3)))
    x, perm = scrambled(z_nu(unit(t)) * r6, seed)
    true_grid = np.argsort(perm).reshape(2, 6)  # node of the product at cell (i, j) of z_nu x r6
    X, F, _ = _prepare(*x)
    true_err = fit_grid(X, F, true_grid, reassign=False)[-1]
    assert true_err < 3e-3  # the noise level of scrambled(): the reference itself is sound
    best = factor_block(*x).best
    assert best.shape == (2, 6)
    assert best.error <= 1.5 * true_err
    rows = sorted(sorted(r) for r in best.grid.tolist())
    assert rows == sorted(sorted(r) for r in true_grid.tolist())
    # a grid with one pair flipped is measurably worse (the assertion above can fail)
    flipped = true_grid.copy()
    flipped[:, 1] = flipped[::-1, 1]
    assert fit_grid(X, F, flipped, reassign=False)[-1] > 1.5 * true_err


def _brute_force_2x2_error(a, b, c):
    """Smallest rank-1 misfit of a balanced 4-node block over every node order and per-node sign."""
    import itertools


    X = np.stack(balance_gauge(a, b, c)[:3])
    best = np.inf
    for perm in itertools.permutations(range(1, 4)):
        for signs in itertools.product((1.0, -1.0), repeat=3):
            s = np.array((1.0,) + signs)
            Y = X[:, (0,) + perm] * np.stack([s, s, np.ones(4)])
            sv = np.linalg.svd(Y.reshape(3, 2, 2), compute_uv=False)
            best = min(best, np.sqrt((sv[:, 1] ** 2).sum() / (np.abs(Y) ** 2).sum()))
    return best


@given(st.sampled_from([4, 6, 8, 12]), seeds)
def test_random_block_is_not_factorable(q, seed):
    rng = np.random.default_rng(seed)
    a, b, c = (rng.normal(size=q) + 1j * rng.normal(size=q) for _ in range(3))
    bf = factor_block(a, b, c)
    if q == 4:
        # about 1 random 4-node block in 2000 really is within tolerance of a 2x2 product:
        # there the answer must agree with an exhaustive search
        assert bf.factorable == (_brute_force_2x2_error(a, b, c) <= FACTOR_TOL)
        return
    assert not bf.factorable
    assert bf.min_error > FACTOR_TOL


def test_random_block_within_tolerance_is_reported_factorable():
    """A random block that happens to lie within tolerance of a 2x2 product (found by exhaustive search)."""
    rng = np.random.default_rng(353636)
    a, b, c = (rng.normal(size=4) + 1j * rng.normal(size=4) for _ in range(3))
    ref = _brute_force_2x2_error(a, b, c)
    assert ref < FACTOR_TOL
    bf = factor_block(a, b, c)
    assert bf.factorable and bf.best.error == pytest.approx(ref, rel=1e-6)


def test_exact_block_has_machine_precision_error():
    ps = z_nu_i() * z_nu(unit(0.4)) * z_syn()
    x, _ = scrambled(ps, 7, noise=0.0)
    bf = factor_block(*x)
    assert bf.best.error < 1e-12
    assert bf.best.abc_scale == pytest.approx(1 / 12, abs=1e-12)


def test_shape_must_factor_the_order():
    with pytest.raises(ValueError, match="not a factorization"):
        factor_block_shape(np.ones(6), np.ones(6), np.ones(6), (2, 2))
    with pytest.raises(ValueError, match="NaN"):
        factor_block([1, np.nan, 1, 1], np.ones(4), np.ones(4))
    with pytest.raises(ValueError, match="equal lengths"):
        factor_block(np.ones(4), np.ones(3), np.ones(4))


def test_order_24_scales_polynomially():
    """2x2x2x3 at q = 24: found without enumerating 24! orders (generous bound: seconds, not ages)."""
    ps = z_nu_i() * z_xi(unit(0.3), 1) * z_nu(unit(1.1)) * z_syn()
    x, _ = scrambled(ps, 3)
    t0 = time.perf_counter()
    fz = factor_block_shape(*x, (2, 2, 2, 3))
    dt = time.perf_counter() - t0
    assert fz[0].error <= 5e-3
    assert dt < 20.0


def _brute_force_2x3_error(a, b, c):
    """Smallest ||x - rank-1 fits|| / ||x|| over every node order and per-node sign (reference, 720 x 32 grids)."""
    import itertools

    X = np.stack([a, b, c])
    best = np.inf
    for perm in itertools.permutations(range(1, 6)):
        order = (0,) + perm
        for signs in itertools.product((1.0, -1.0), repeat=5):
            s = np.array((1.0,) + signs)
            Y = X[:, order] * np.stack([s, s, np.ones(6)])
            sv = np.linalg.svd(Y.reshape(3, 2, 3), compute_uv=False)  # per channel, 2x3 grid
            best = min(best, np.sqrt((sv[:, 1] ** 2).sum() / (np.abs(Y) ** 2).sum()))
    return best


@pytest.mark.parametrize("seed", range(4))
def test_noisy_block_finds_the_best_grid(seed):
    """A block a few percent off a product (as trained blocks are) gets the grid brute force finds.

    The threshold-based tiling alone missed such grids (reported error 0.5 where a grid with 0.03 exists).
    """
    from cogo.catalogue.partial import z_nu, z_syn

    rng = np.random.default_rng(seed)
    x = z_syn() * z_nu(np.exp(1j * rng.uniform(0, 2 * np.pi)))
    V = np.stack([x.a, x.b, x.c]) * (1 + 0.03 * (rng.normal(size=(3, 6)) + 1j * rng.normal(size=(3, 6))))
    perm = rng.permutation(6)
    sg = rng.choice([-1.0, 1.0], size=6)
    a, b, c = V[0, perm] * sg, V[1, perm] * sg, V[2, perm]
    res = factor_block(a, b, c)
    assert res.factorable
    ab, bb, cb, _ = balance_gauge(a, b, c)
    ref = _brute_force_2x3_error(ab, bb, cb)
    assert res.best_for((2, 3)).error <= ref * 1.01 + 1e-12


# --------------------------------------------------------------------------- no slow blocks (issue 10)
@pytest.mark.parametrize("seed", range(6))
def test_repeated_nodes_nu_syn_syn_is_2x3x3(seed):
    """z_nu * z_syn * z_syn: 18 nodes that are 6 features 3 times; the finest grid in every node order.

    (The enumeration before the factor-set search typed it right in 5 of 12 node orders, seconds each.)
    """
    from cogo.analysis.classify import classify_block

    x, _ = scrambled(z_nu(unit(0.4)) * z_syn() * z_syn(), seed)
    bf = factor_block(*x)
    assert bf.best.shape == (2, 3, 3)
    check_recovered(x, bf.best)
    assert classify_block(*x).type == "z_nu * z_syn * z_syn"


def test_order_36_and_64_factor_completely():
    """2x2x3x3 with repeated nodes (was 577 s and missed) and a 2^6 product with an involution (z_nu=i)."""
    x, _ = scrambled(z_syn() * z_syn() * z_nu(unit(0.4)) * z_nu(unit(1.1)), 2)
    bf = factor_block(*x)
    assert bf.best.shape == (2, 2, 3, 3)
    check_recovered(x, bf.best)
    ps = z_nu_i() * z_xi(unit(0.7), 1) * z_nu(unit(0.4)) * z_nu(unit(1.3)) * z_xi(unit(2.0), -1) * z_nu(unit(2.9))
    x, _ = scrambled(ps, 5)
    bf = factor_block(*x)
    assert bf.best.shape == (2,) * 6
    check_recovered(x, bf.best)


def test_search_budget_is_enforced_and_reported():
    """A search that runs out of its budget says so instead of running on (and reports no exact grid)."""
    from cogo.analysis.factor.factorization import MAX_ORDER

    # (a product whose canonically ordered nodes are no 2 x 12 grid for the local search to find by itself)
    x, _ = scrambled(z_xi(unit(0.4), 1) * z_nu(unit(1.2)) * z_syn_ab(unit(0.5), unit(2.0)) * z_nu(unit(2.2)), 1)
    assert factor_block(*x).factorable
    bf = factor_block(*x, budget=1)
    assert not bf.factorable and "search bound" in bf.skipped
    big = np.ones(MAX_ORDER + 1)
    assert "exceeds" in factor_block(big, big, big).skipped


# --------------------------------------------------------------------------- each pass is needed
# cogo.analysis.factor.passes runs named passes over a pool of candidate grids.  For every pass that is not the
# search itself, a block (found by dropping the pass over a few hundred random catalogue products and
# near-degenerate sweeps, docs/analysis.md "How a block is factored") whose answer the pass makes right: with
# all passes the grid fits as well as the true grid (known from the construction), without it clearly worse.
def _product_and_shape(*factors):
    ps = factors[0]
    for f in factors[1:]:
        ps = ps * f
    return ps, tuple(len(f.a) for f in factors)


PASS_CASES = {
    # two z_nu within 0.01 rad of 1 times z_syn: ratio sets that nearly form a group, the assemblies all wrong
    "translates": (lambda: _product_and_shape(z_nu(unit(0.00324)), z_nu(unit(0.00843)), z_syn()), 0, 0.0, None),
    # z_xi near -1 with z_nu=i: near-equal nodes in each other's cells, a fixed point of the reassignment
    "swap": (lambda: _product_and_shape(z_xi(unit(np.pi + 0.015197), 1), z_nu_i(), z_xi(unit(1.5639), 1)), 0, 0.0,
             None),
    # z_nu(nu) 0.025 rad from i: the best 2 x 4 grid's 4-node factor is no product, another 2 x 4 grid splits
    "split": (lambda: _product_and_shape(z_nu_i(), z_xi(unit(0.0), -1), z_nu(unit(np.pi / 2 - 0.025))), 1, 1e-3, None),
    # the same block asked for 2 x 2 x 2 alone: the 2 x 4 grids to split from must be searched
    "coarser shapes": (lambda: _product_and_shape(z_nu_i(), z_xi(unit(0.0), -1), z_nu(unit(np.pi / 2 - 0.025))), 1,
                       1e-3, [(2, 2, 2)]),
    # four z_nu at 1% noise: the tiling finds no 4 x 4 grid, the finer exact grid merged up is one
    "merge": (lambda: _product_and_shape(z_nu(unit(0.5)), z_nu(unit(2.0)), z_nu(unit(3.0)), z_nu(unit(4.5))), 2, 1e-2,
              None),
}


@pytest.mark.parametrize("name", sorted(PASS_CASES))
def test_each_pass_is_needed(monkeypatch, name):
    from cogo.analysis.factor import passes as factor_passes

    build, seed, noise, shapes = PASS_CASES[name]
    ps, true_shape = build()
    x, perm = scrambled(ps, seed, noise=noise)
    X, F, _ = _prepare(*x)
    true_err = fit_grid(X, F, np.argsort(perm).reshape(true_shape), reassign=False).error
    full = factor_block(*x, shapes=shapes)
    assert full.best.shape == tuple(sorted(true_shape)) and full.best.error <= 1.5 * true_err + 1e-12
    assert name in [p.name for p in factor_passes.PASSES]
    monkeypatch.setattr(factor_passes, "PASSES", tuple(p for p in factor_passes.PASSES if p.name != name))
    cut = factor_block(*x, shapes=shapes)
    worse = [s for s, alts in full.by_shape.items()
             if not cut.by_shape.get(s) or cut.by_shape[s][0].error > 2 * alts[0].error + 1e-9]
    assert worse, f"the {name} pass changes nothing on its case"


def test_passes_are_documented():
    from cogo.analysis.factor import passes as factor_passes

    doc = (Path(__file__).resolve().parents[2] / "docs" / "analysis.md").read_text()
    for p in factor_passes.PASSES:
        assert f"``{p.name}``" in factor_passes.__doc__ and f"`{p.name}`" in doc, p.name
        assert p.run.__doc__ and p.contract and p.cost


# --------------------------------------------------------------------------- the closed form of orders 4 and 6
@pytest.mark.parametrize("q", [4, 6])
def test_two_row_grids_are_every_grid_once(q):
    # every node order of q nodes, read as a 2 x q/2 grid, up to swapping rows and permuting columns
    from cogo.analysis.factor.passes import two_row_grids
    m = q // 2

    def key(g):  # a grid up to its symmetries: the rows as sets and the columns as sets
        r0, r1 = g
        return frozenset([frozenset(r0), frozenset(r1)]), frozenset(frozenset(c) for c in zip(r0, r1))
    want = {key((p[:m], p[m:])) for p in itertools.permutations(range(q))}
    got = [key(g) for g in two_row_grids(q).tolist()]
    assert len(got) == len(set(got)) == len(want) and set(got) == want


def test_feature_misfits_equal_the_second_singular_values():
    from cogo.analysis.factor.passes import feature_misfits, two_row_grids
    rng = np.random.default_rng(3)
    F = rng.normal(size=(6, 4)) + 1j * rng.normal(size=(6, 4))
    grids = two_row_grids(6)
    got = feature_misfits(F, grids)
    for g, e in zip(grids, got):
        s2 = sum(np.linalg.svd(F[g][:, :, c], compute_uv=False)[1] ** 2 for c in range(4))
        assert e == pytest.approx(np.sqrt(s2 / (np.abs(F) ** 2).sum()), rel=1e-9)


@pytest.mark.slow  # 17 s at load 6 (issue 53): CI's slow step runs it
@given(seed=seeds, t=angles)
def test_closed_form_and_tiling_search_read_order_4_and_6_blocks_alike(seed, t):
    # the closed form (every 2 x q/2 grid) against the tiling search it replaces for orders 4 and 6: the same
    # reading of the block, and a grid at least as good (the closed form tries every grid; at degenerate
    # parameters, t = 0, several splits are exact and the search may stop at a worse one)
    import cogo.analysis.factor.passes as fp
    from cogo.analysis.classify import classify_block
    for ps in (z_nu(unit(t)) * z_syn(), z_nu_i() * z_xi(unit(t), 1), z_nu_i() * z_syn_ab(unit(t), unit(2 * t))):
        x, _ = scrambled(ps, seed)
        fast, fast_type = factor_block(*x).best, classify_block(*x).type
        saved = fp.CLOSED_FORM_ORDERS
        fp.CLOSED_FORM_ORDERS = ()
        try:
            slow, slow_type = factor_block(*x).best, classify_block(*x).type
        finally:
            fp.CLOSED_FORM_ORDERS = saved
        assert fast.shape == slow.shape and fast_type == slow_type
        assert fast.error <= slow.error * (1 + 1e-6) + 1e-12


def _noisy_blocks(seed):
    # order-4 and order-6 catalogue blocks with noise and shuffled nodes, a random order-6 block, an order-8 one
    rng = np.random.default_rng(seed)
    out = []
    for x in (6 ** (-1 / 3) * (z_nu_i() * z_syn()), 4 ** (-1 / 3) * (z_nu_i() * z_xi(1, 1)),
              6 ** (-1 / 3) * (z_nu(0.7) * z_syn()), 8 ** (-1 / 3) * (z_nu_i() * z_xi(1, 1) * z_nu(-1.0))):
        p = rng.permutation(len(x.a))
        out.append(tuple(v[p] + 1e-4 * (rng.normal(size=len(p)) + 1j * rng.normal(size=len(p))) for v in (x.a, x.b, x.c)))
    out.append(tuple(rng.normal(size=6) + 1j * rng.normal(size=6) for _ in range(3)))
    return out


def _same_factorization(f, g):
    return (f.shape == g.shape and np.array_equal(f.grid, g.grid) and f.error == g.error
            and np.array_equal(f.scale, g.scale) and np.array_equal(f.signs, g.signs)
            and all(np.array_equal(u.vectors, v.vectors) for u, v in zip(f.factors, g.factors)))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_factor_blocks_answers_each_block_as_factor_block_alone(seed):
    # several blocks at once (closed form and canonical forms read together) against each block alone, bit for bit
    from cogo.analysis.factor.factorization import factor_blocks
    blocks = _noisy_blocks(seed)
    many = factor_blocks(blocks + blocks[:2])
    for (a, b, c), got in zip(blocks + blocks[:2], many):
        want = factor_block(a, b, c)
        assert sorted(got.by_shape) == sorted(want.by_shape) and got.skipped == want.skipped
        for shape, alts in want.by_shape.items():
            assert len(got.by_shape[shape]) == len(alts)
            assert all(_same_factorization(f, g) for f, g in zip(got.by_shape[shape], alts))
    assert many[0].factorable and not many[4].factorable  # the check reads real answers


def test_closed_form_fits_and_feature_misfits_of_many_blocks_are_each_blocks_own():
    from cogo.analysis.factor.passes import closed_form_fits, feature_misfits, two_row_grids
    from cogo.analysis.factor.factorization import _read
    reads = [_read(_prepare(*b)) for b in _noisy_blocks(5) if len(b[0]) in (4, 6)]
    items = [(r[0][:, r[4]], r[1][r[4]], FACTOR_TOL, 6) for r in reads]
    got = closed_form_fits(items)
    assert sum(len(g) for g in got) >= 3  # exact grids were found
    for item, fits in zip(items, got):
        want = closed_form_fits([item])[0]
        assert len(fits) == len(want)
        for f, w in zip(fits, want):
            assert np.array_equal(f.grid, w.grid) and np.array_equal(f.signs, w.signs) and f.error == w.error
            assert np.array_equal(f.scale, w.scale) and all(np.array_equal(u, v) for u, v in zip(f.factors, w.factors))
    six = np.stack([it[1] for it in items if len(it[1]) == 6])
    assert np.array_equal(feature_misfits(six, two_row_grids(6)),
                          np.stack([feature_misfits(F, two_row_grids(6)) for F in six]))


def test_fit_grids_with_offsets_reads_each_block_as_alone():
    from cogo.analysis.factor.kronecker import fit_grids, node_features
    rng = np.random.default_rng(7)
    xs = [rng.normal(size=(3, 6)) + 1j * rng.normal(size=(3, 6)) for _ in range(3)]
    Fs = [node_features(*x) for x in xs]
    grids = np.stack([rng.permutation(6).reshape(2, 3) for _ in range(3)])
    got = fit_grids(np.concatenate(xs, axis=1), np.concatenate(Fs), grids + 6 * np.arange(3)[:, None, None],
                    6 * np.arange(3))
    for n in range(3):
        want = fit_grids(xs[n], Fs[n], grids[n:n + 1])[0]
        assert np.array_equal(got[n].grid, want.grid) and np.array_equal(got[n].signs, want.signs)
        assert got[n].error == want.error and np.array_equal(got[n].scale, want.scale)
