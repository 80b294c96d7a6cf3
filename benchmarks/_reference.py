"""A re-implementation, for timing only, of the reference classifier's algorithm (not cogo's, not its code).

The paper's code (facebookresearch/luckmatters, ssl/real-dataset/cogo/, the factorization script)
reads a trained network as follows; this module re-implements those steps, written for this
benchmark, so that ``benchmarks/bench_classify.py`` can time the algorithm in the same process as
cogo.  It is not part of the package and nothing in cogo uses it.

1. Fourier transform of the weights along the group (torch; SPEC 2's convention); every node gets the frequency
   ``k <= (d - 1) / 2`` where ``|A[k, node]|`` is largest, and is kept when that is above 0.05.
2. Per frequency, the kept nodes form a block; only blocks of 4 or 6 nodes are read.
3. A block is factored by trying **every node order** (``q!``, each one a few torch operations):
   the order whose ratio ``c[first half] / c[second half]`` is closest to constant wins.
4. The two halves give a 2-node and a ``q/2``-node component (per-node sign fixed from the ratio
   of ``a``), each named by thresholds on its normalized entries (``z_nu``, ``z_nu=i``, ``z_xi``;
   ``z_syn``, ``z_syn,ab``); a block is non-factorable when the ratio spread exceeds
   ``sqrt(3 q) * 0.1``.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

THRESHOLD = 0.1


def _fourier(W, d: int):
    """``W`` (q, d) real -> (d, q) complex: each node's Fourier coefficients over Z_d."""
    import torch

    return torch.fft.fft(torch.as_tensor(np.asarray(W, dtype=np.float64)).T.contiguous(), dim=0)


def _best_order(F):
    """Try every node order: the one whose c-ratio between the halves is most constant (the reference's search)."""
    q = F.shape[1]
    h = q // 2
    best, best_perm = math.inf, None
    for perm in itertools.permutations(range(q)):
        G = F[:, list(perm)]
        r = G[2, :h] / G[2, h:]
        e = float((r - r.mean()).norm())
        if e < best:
            best, best_perm = e, perm
    return best, best_perm


def _components(F, perm):
    """The two components of a block in the order found, signs fixed from the ratio of ``a``; and the spread."""
    import torch

    q = F.shape[1]
    h = q // 2
    G = F[:, list(perm)].clone()
    t = G[0, h:] / G[0, :h]
    flip = ((t - t[0]).abs() > 0.2).nonzero().flatten()
    if len(flip):
        G[:2, h + flip] = -G[:2, h + flip]
    r = G[:, h:] / G[:, :h]
    spread = float((r - r.mean(dim=1, keepdim=True)).norm())
    two = torch.stack([torch.ones(3, dtype=G.dtype), r.mean(dim=1)], dim=1)
    rest = G[:, :h] / G[:, :1]
    return two, rest, spread


def _name(C) -> str:
    """Threshold naming of one normalized component (3, m), m = 2 or 3."""
    import torch

    C = C / C.prod(dim=0, keepdim=True) ** (1.0 / 3)
    one, i_ = torch.tensor(1 + 0j, dtype=C.dtype), torch.tensor(1j, dtype=C.dtype)
    if C.shape[1] == 2:
        if abs(C[0, 1] * C[1, 1] * C[2, 1] - one) > THRESHOLD:
            return "order-2-unnormalized"
        if min(abs(C[2, 1] - i_), abs(C[2, 1] + i_)) < THRESHOLD:
            return "order-2-xi"
        if abs(C[2, 1] - one) < THRESHOLD and min(abs(C[0, 1] - i_), abs(C[0, 1] + i_)) < THRESHOLD:
            return "order-2-4c"
        if abs(C[0, 1] + C[1, 1]) < THRESHOLD:
            return "order-2-nu"
        return "order-2-unknown"
    w = torch.tensor(complex(math.cos(2 * math.pi / 3), math.sin(2 * math.pi / 3)), dtype=C.dtype)
    for j in (1, 2):
        if abs(C[0, j] * C[1, j] * C[2, j] - one) > THRESHOLD:
            return "order-3-unnormalized"
    C = C.clone()
    for j in (1, 2):
        if C[0, j].real > 0:
            C[:2, j] = -C[:2, j]
    if C[2, 1].imag < 0:
        C = C.conj()
    if (C[:, 1] - w).norm() < THRESHOLD * math.sqrt(3) and (C[:, 2] - w.conj()).norm() < THRESHOLD * math.sqrt(3):
        return "order-3-syn"
    if abs(C[2, 1] - w) < THRESHOLD and abs(C[2, 2] - w.conj()) < THRESHOLD:
        return "order-3-syn-ab"
    return "order-3-unknown"


def classify(Wa, Wb, Wc, d: int) -> dict:
    """The reference algorithm on real weights ``Wa``, ``Wb`` (q, d), ``Wc`` (d, q): counts of block readings."""
    # SPEC 2's convention: a, b with the conjugate characters, c with the characters
    A, B, C = _fourier(Wa, d), _fourier(Wb, d), _fourier(np.asarray(Wc).T, d).conj()
    top, freq = A[:(d - 1) // 2 + 1].abs().max(dim=0)
    keep = (top > 0.05).nonzero().flatten().tolist()
    freq = freq.tolist()
    out: dict = {}
    for k in range(1, (d - 1) // 2 + 1):
        idx = [j for j in keep if freq[j] == k]
        if len(idx) not in (4, 6):
            continue
        import torch

        F = torch.stack([A[k, idx], B[k, idx], C[k, idx]])
        _, perm = _best_order(F)
        two, rest, spread = _components(F, perm)
        if spread > math.sqrt(3 * len(idx)) * THRESHOLD:
            key = "non-factorable"
        else:
            key = " * ".join(sorted((_name(two), _name(rest))))
        out[key] = out.get(key, 0) + 1
    return out
