"""The loss of a network on all pairs, recomputed exactly: SPEC 5 from Fourier entries, SPEC 1 from real weights.

SPEC 5 (general form, any weights; n = |G|, sums over the nodes j):

    r[k1,k2,k] = sum_j a[k1,j] b[k2,j] c[k,j],   C_p[m,k] = sum_j sum_{k1+k2=m} p[k1,j] p[k2,j] c[k,j]  (p = a, b)
    l_k = -2 Re r[k,k,k] + sum_{k1,k2 != 0} |r[k1,k2,k]|^2 + |r[0,0,k] + (C_a[0,k] + C_b[0,k])/2|^2
          + sum_{m != 0} (|r[m,0,k] + C_a[m,k]/2|^2 + |r[0,m,k] + C_b[m,k]/2|^2)
    loss = (1/n) sum_{k != 0} l_k + 1 - 1/n

Only the nonzero entries are stored, so every sum runs over the nonzero products (a term missing from a
dictionary is exactly 0).  SPEC 1 (real space): loss = mean over the n^2 pairs (a, b) of
||P(o) - P(e_{a+b})||^2 with o = W_c (W_a[:, a] + W_b[:, b])^2 and P(x) = x - mean(x).
"""
from __future__ import annotations

from fractions import Fraction
from math import lcm

from cogo_check.arith import Field, Group


def fourier_loss(G: Group, F: Field, entries: dict, failing: set | None = None) -> tuple:
    """SPEC 5 for ``entries[p][j] = [(k, value), ...]`` (p in 'abc', k a group element, value in F).

    ``failing`` (a set, optional) receives the sufficient conditions of SPEC 5 that do not hold, for k != 0:
    R_g: r[k,k,k] = 1; R_c: r[k1,k2,k] = 0 for (k1,k2) != (k,k); R_n: C_a[0,k] + C_b[0,k] = 0;
    R_*: C_p[m,k] = 0 for m != 0 and each p."""
    r: dict = {}
    C = {"a": {}, "b": {}}
    nodes = set(entries["a"]) | set(entries["b"]) | set(entries["c"])
    for j in nodes:
        A, B, Cc = entries["a"].get(j, []), entries["b"].get(j, []), entries["c"].get(j, [])
        for k1, x in A:
            for k2, y in B:
                xy = F.mul(x, y)
                for k, w in Cc:
                    key = (k1, k2, k)
                    r[key] = F.add(r.get(key, F.zero), F.mul(xy, w))
        for p, X in (("a", A), ("b", B)):
            for k1, x in X:
                for k2, y in X:
                    xy = F.mul(x, y)
                    m = G.add(k1, k2)
                    for k, w in Cc:
                        C[p][(m, k)] = F.add(C[p].get((m, k), F.zero), F.mul(xy, w))
    z, half = G.zero, Fraction(1, 2)
    total = F.zero
    for k in G.elements:
        if k == z:
            continue
        x = r.get((k, k, k), F.zero)
        total = F.sub(total, F.add(x, F.conj(x)))
        dc = F.add(r.get((z, z, k), F.zero), F.scale(F.add(C["a"].get((z, k), F.zero),
                                                               C["b"].get((z, k), F.zero)), half))
        total = F.add(total, F.abs2(dc))
    for (k1, k2, k), x in r.items():
        if k1 != z and k2 != z and k != z:
            total = F.add(total, F.abs2(x))
    for p, first in (("a", True), ("b", False)):
        keys = {(m, k) for (m, k) in C[p] if m != z and k != z}
        keys |= {(k1 if first else k2, k) for (k1, k2, k) in r
                 if k != z and ((k2 == z and k1 != z) if first else (k1 == z and k2 != z))}
        for m, k in keys:
            rr = r.get((m, z, k) if first else (z, m, k), F.zero)
            total = F.add(total, F.abs2(F.add(rr, F.scale(C[p].get((m, k), F.zero), half))))
    if failing is not None:
        nz = [k for k in G.elements if k != z]
        if any(r.get((k, k, k), F.zero) != F.one for k in nz):
            failing.add("R_g")
        if any(k != z and (k1, k2) != (k, k) and not F.is_zero(x) for (k1, k2, k), x in r.items()):
            failing.add("R_c")
        if any(not F.is_zero(F.add(C["a"].get((z, k), F.zero), C["b"].get((z, k), F.zero))) for k in nz):
            failing.add("R_n")
        if any(m != z and k != z and not F.is_zero(x) for p in "ab" for (m, k), x in C[p].items()):
            failing.add("R_*")
    n = G.order
    return F.add(F.scale(total, Fraction(1, n)), F.rational(1 - Fraction(1, n)))


def real_loss(G: Group, Wa: dict, Wb: dict, Wc: dict) -> Fraction:
    """SPEC 1 for sparse rational weights: ``Wa[j] = {a: w}``, ``Wb[j] = {b: w}``, ``Wc[j] = {c: w}``.

    o(a, b) = A[a] + B[b] + X[a, b] with A[a] = sum_j W_c[:, j] W_a[j, a]^2, B[b] = sum_j W_c[:, j] W_b[j, b]^2,
    X[a, b] = 2 sum_j W_c[:, j] W_a[j, a] W_b[j, b]  (the square (W_a + W_b)^2 expanded).
    """
    els = G.elements
    idx = {e: i for i, e in enumerate(els)}
    n = G.order
    den = 1
    for W in (Wa, Wb, Wc):
        for row in W.values():
            for v in row.values():
                den = lcm(den, v.denominator)
    D = den ** 3  # o' = D o is an integer vector
    A = [[0] * n for _ in range(n)]
    B = [[0] * n for _ in range(n)]
    X: dict = {}
    for j in set(Wa) | set(Wb):
        ca, cb, cc = Wa.get(j, {}), Wb.get(j, {}), Wc.get(j, {})
        cc = [(idx[c], int(w * den)) for c, w in cc.items()]
        for M, col in ((A, ca), (B, cb)):
            for x, w in col.items():
                w2 = int(w * den) ** 2
                row = M[idx[x]]
                for c, wc in cc:
                    row[c] += w2 * wc
        for x, u in ca.items():
            for y, v in cb.items():
                uv = 2 * int(u * den) * int(v * den)
                acc = X.setdefault((idx[x], idx[y]), {})
                for c, wc in cc:
                    acc[c] = acc.get(c, 0) + uv * wc
    add = [[idx[G.add(x, y)] for y in els] for x in els]
    total = 0
    for a in range(n):
        Aa = A[a]
        for b in range(n):
            o = [u + v for u, v in zip(Aa, B[b])]
            for c, v in X.get((a, b), {}).items():
                o[c] += v
            s = sum(o)
            # D n (P(o) - P(e_t)) = n o' - sum(o') - D n e_t + D
            res = [n * v - s + D for v in o]
            res[add[a][b]] -= D * n
            total += sum(v * v for v in res)
    return Fraction(total, D * D * n ** 4)
