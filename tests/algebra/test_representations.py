"""Character tables, irreps, projectors and the group Fourier transform (SPEC 9).

Expected tables are the ones in the literature (e.g. James & Liebeck,
*Representations and Characters of Groups*), typed in by hand with each
class's size and element order; they are compared with the computed tables
up to the order of rows and of columns.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import sympy

from cogo.algebra.finite_groups import named_group
from cogo.algebra.groups import Cyclic, FiniteAbelianGroup
from cogo.algebra.group_parsing import parse_group
from cogo.algebra.representations import (character_table, conjugacy_classes, group_fourier, group_fourier_inverse,
                                          irreps, isotypic_energy, isotypic_projectors, theorem3_nodes)
from cogo.runtime.errors import CogoError

w3 = complex(-0.5, math.sqrt(3) / 2)
phi = (1 + math.sqrt(5)) / 2
c72, c144 = 2 * math.cos(2 * math.pi / 5), 2 * math.cos(4 * math.pi / 5)

# name: (class sizes, element orders per class, rows, Frobenius-Schur indicators per row)
LITERATURE = {
    "S3": ([1, 3, 2], [1, 2, 3], [[1, 1, 1], [1, -1, 1], [2, 0, -1]], [1, 1, 1]),
    "S4": ([1, 6, 3, 8, 6], [1, 2, 2, 3, 4],
           [[1, 1, 1, 1, 1], [1, -1, 1, 1, -1], [2, 0, 2, -1, 0], [3, 1, -1, 0, -1], [3, -1, -1, 0, 1]],
           [1, 1, 1, 1, 1]),
    "A4": ([1, 3, 4, 4], [1, 2, 3, 3],
           [[1, 1, 1, 1], [1, 1, w3, w3 ** 2], [1, 1, w3 ** 2, w3], [3, -1, 0, 0]], [1, 0, 0, 1]),
    "A5": ([1, 15, 20, 12, 12], [1, 2, 3, 5, 5],
           [[1, 1, 1, 1, 1], [3, -1, 0, phi, 1 - phi], [3, -1, 0, 1 - phi, phi], [4, 0, 1, -1, -1],
            [5, 1, -1, 0, 0]], [1, 1, 1, 1, 1]),
    "D5": ([1, 2, 2, 5], [1, 5, 5, 2],
           [[1, 1, 1, 1], [1, 1, 1, -1], [2, c72, c144, 0], [2, c144, c72, 0]], [1, 1, 1, 1]),
    "D4": ([1, 1, 2, 2, 2], [1, 2, 4, 2, 2],
           [[1, 1, 1, 1, 1], [1, 1, 1, -1, -1], [1, 1, -1, 1, -1], [1, 1, -1, -1, 1], [2, -2, 0, 0, 0]],
           [1, 1, 1, 1, 1]),
    "Q8": ([1, 1, 2, 2, 2], [1, 2, 4, 4, 4],
           [[1, 1, 1, 1, 1], [1, 1, 1, -1, -1], [1, 1, -1, 1, -1], [1, 1, -1, -1, 1], [2, -2, 0, 0, 0]],
           [1, 1, 1, 1, -1]),
}


def matches_literature(ct, sizes, orders, rows, inds, tol=1e-9) -> bool:
    """True when some column permutation (respecting class size and element order) and row order match."""
    lit = np.asarray(rows, dtype=complex)
    if ct.values.shape != lit.shape:
        return False
    ckey = list(zip(ct.class_sizes.tolist(), ct.class_orders.tolist()))
    lkey = list(zip(sizes, orders))
    if sorted(ckey) != sorted(lkey):
        return False
    cols = [[j for j in range(len(ckey)) if ckey[j] == lk] for lk in lkey]
    for choice in itertools.product(*[itertools.permutations(c) for c in cols]):
        # choice[i] is a tuple; pick distinct columns per literature column
        used, perm = set(), []
        for lk_i, tup in enumerate(choice):
            cand = [j for j in tup if j not in used]
            if not cand:
                break
            perm.append(cand[0])
            used.add(cand[0])
        if len(perm) != len(lkey):
            continue
        V = ct.values[:, perm]
        rows_left = list(range(len(lit)))
        ok = True
        for i, row in enumerate(lit):
            hit = [k for k in rows_left if np.abs(V[k] - row).max() < tol and int(ct.indicators[k]) == inds[i]]
            if not hit:
                ok = False
                break
            rows_left.remove(hit[0])
        if ok:
            return True
    return False


@pytest.mark.parametrize("name", sorted(LITERATURE))
def test_character_table_matches_literature(name):
    ct = character_table(name)
    assert matches_literature(ct, *LITERATURE[name])


def test_matcher_can_fail():
    # D4 and Q8 share their character table but not their indicators; a changed entry is caught too
    assert not matches_literature(character_table("Q8"), *LITERATURE["D4"])
    sizes, orders, rows, inds = LITERATURE["S4"]
    bad = [list(r) for r in rows]
    bad[3][1] = -1
    assert not matches_literature(character_table("S4"), sizes, orders, bad, inds)
    assert not matches_literature(character_table("A4"), *LITERATURE["S4"])


def test_exact_values():
    A5 = character_table("A5").exact_values()
    golden = sympy.Rational(1, 2) + sympy.sqrt(5) / 2
    assert any(sympy.simplify(v - golden) == 0 for v in A5)
    assert any(sympy.simplify(v - (1 - golden)) == 0 for v in A5)
    S4 = character_table("S4").exact_values()
    assert all(v.is_Integer for v in S4)
    A4 = character_table("A4").exact_values()
    w = sympy.Rational(-1, 2) + sympy.sqrt(3) * sympy.I / 2
    assert any(sympy.expand(v - w) == 0 for v in A4)
    # exact and float tables agree
    ct = character_table("A4")
    assert np.abs(np.asarray(A4.evalf(), dtype=complex) - ct.values).max() < 1e-12


GROUPS = ["S3", "S4", "A4", "A5", "D5", "D6", "Q8", "Dic3", "S3x3", "Q16", "D4x2"]


@pytest.mark.parametrize("name", GROUPS)
def test_orthogonality_and_degrees(name):
    G = named_group(name)
    ct = character_table(G)
    M = G.order
    X = ct.characters                                  # (K, M)
    assert np.abs(X @ X.conj().T / M - np.eye(len(ct))).max() < 1e-12          # rows
    V = ct.values
    col = V.conj().T @ V
    assert np.abs(col - np.diag(M / ct.class_sizes)).max() < 1e-10              # columns
    assert int((ct.dims ** 2).sum()) == M
    assert len(ct) == len(conjugacy_classes(G))
    assert np.allclose(ct.values[0], 1)                # trivial first
    # Frobenius-Schur count: sum_k nu_k d_k = #{x : x^2 = e}, counted from the table
    roots = int(np.sum(G.table[np.arange(M), np.arange(M)] == G.identity))
    assert int((ct.indicators * ct.dims).sum()) == roots
    # conjugate characters
    assert np.abs(ct.values[ct.conjugate] - ct.values.conj()).max() < 1e-12
    assert np.all((ct.indicators == 0) == (ct.conjugate != np.arange(len(ct))))


def test_classes_of_s4():
    sizes = sorted(len(c) for c in conjugacy_classes("S4"))
    assert sizes == [1, 3, 6, 6, 8]


@pytest.mark.parametrize("name", GROUPS)
def test_irreps_are_unitary_homomorphisms(name):
    G = named_group(name)
    t = G.table
    for R in irreps(G):
        A = R.matrices
        d = R.dim
        assert A.shape == (G.order, d, d)
        prod = np.einsum("gij,hjk->ghik", A, A)
        assert np.abs(prod - A[t]).max() < 1e-10                               # rho(g) rho(h) = rho(gh)
        assert np.abs(np.einsum("gji,gjk->gik", A.conj(), A) - np.eye(d)).max() < 1e-10
        assert np.abs(np.einsum("gii->g", A) - R.character).max() < 1e-10
        assert abs(np.sum(np.abs(R.character) ** 2) - G.order) < 1e-9           # irreducible
        if R.indicator == 1:
            assert not np.iscomplexobj(A)                                       # real orthogonal form


@pytest.mark.parametrize("name", ["S3", "Q8", "A4", "S3x3"])
def test_projectors(name):
    G = named_group(name)
    P = isotypic_projectors(G)
    ct = character_table(G)
    M = G.order
    assert np.abs(P.sum(0) - np.eye(M)).max() < 1e-12
    for k in range(len(ct)):
        assert np.abs(P[k] @ P[k] - P[k]).max() < 1e-12
        assert np.abs(P[k] - P[k].conj().T).max() < 1e-12
        assert abs(np.trace(P[k]) - ct.dims[k] ** 2) < 1e-10
        for l_ in range(k):
            assert np.abs(P[k] @ P[l_]).max() < 1e-12
    # commutes with the right regular representation R_g f(x) = f(x g)
    for g in range(M):
        Rg = np.zeros((M, M))
        Rg[np.arange(M), G.table[:, g]] = 1.0
        assert np.abs(Rg @ P[1] - P[1] @ Rg).max() < 1e-12


def test_fourier_plancherel_and_inverse():
    G = named_group("S4")
    rng = np.random.default_rng(0)
    w = rng.standard_normal((G.order, 3))
    F = group_fourier(G, w)
    reps = irreps(G)
    assert [f.shape[:2] for f in F] == [(R.dim, R.dim) for R in reps]
    assert np.abs(group_fourier_inverse(G, F) - w).max() < 1e-12
    E = isotypic_energy(G, w)
    P = isotypic_projectors(G)
    for k, R in enumerate(reps):
        direct = np.linalg.norm(P[k] @ w, axis=0) ** 2
        assert np.abs(E[k] - direct).max() < 1e-10
        assert np.abs(E[k] - R.dim / G.order * np.sum(np.abs(F[k]) ** 2, axis=(0, 1))).max() < 1e-10
    assert np.abs(E.sum(0) - np.sum(w ** 2, axis=0)).max() < 1e-10
    # a matrix coefficient of the 2-dim irrep lives entirely in it
    k2 = [k for k, R in enumerate(reps) if R.dim == 2][0]
    e = isotypic_energy(G, reps[k2].matrices[:, 0, 1].real)
    assert e[k2, 0] > 0.99 * e.sum()


def test_abelian_groups_are_frequencies():
    G = Cyclic(7)
    ct = character_table(G)
    assert ct.dims.tolist() == [1] * 7 and ct.indicators.tolist() == [1, 0, 0, 0, 0, 0, 0]
    w = np.arange(7.0)
    F = group_fourier(G, w)
    m = np.arange(7)
    for k in range(7):        # SPEC 2's sign: sum_m w[m] exp(-2 pi i k m / d)
        assert abs(F[k][0, 0] - np.sum(w * np.exp(-2j * np.pi * k * m / 7))) < 1e-10
    G2 = FiniteAbelianGroup((2, 4))
    assert character_table(G2).indicators.sum() == 4              # 4 real characters (x = -x)
    # the Abelian table equals the table computed from the Cayley table (up to order)
    F2 = named_group("2x4")
    assert sorted(np.round(character_table(F2).values.sum(1), 8).tolist(), key=str) == \
        sorted(np.round(character_table(G2).values.sum(1), 8).tolist(), key=str)


def test_theorem3_counts():
    assert theorem3_nodes("S3")["total"] == 10                     # 2 (1 + 4)
    assert theorem3_nodes("S3")["per_irrep"] == [0, 2, 8]
    assert theorem3_nodes(23)["total"] == 44                       # 2|G| - 2
    assert theorem3_nodes("S3", m={2: 2})["total"] == 2 + 32


def test_projector_memory_refused(monkeypatch):
    import cogo.algebra.representations as rep

    monkeypatch.setattr(rep, "MAX_PROJECTOR_BYTES", 1000)
    with pytest.raises(CogoError, match="GiB"):
        rep.isotypic_projectors(parse_group("S4"))
