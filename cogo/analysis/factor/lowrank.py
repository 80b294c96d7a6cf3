"""Best rank-1 approximations of complex tensors, one or a stack at a time (SPEC 8.5).

A Kronecker product of factors, arranged on its grid, is a rank-1 tensor per channel; the fit of a
grid (:func:`cogo.analysis.factor.kronecker.fit_grid`) and the factorization passes
(:mod:`cogo.analysis.factor.passes`) read the factors off the best rank-1 approximation:
the leading singular pair for two modes, higher-order power iteration from the HOSVD start for more.

References
----------
.. [1] C. F. Van Loan, N. Pitsianis, "Approximation with Kronecker products", Linear Algebra for Large Scale and Real-Time Applications, 1993.
.. [2] L. De Lathauwer, B. De Moor, J. Vandewalle, "On the best rank-1 and rank-(R1, ..., RN) approximation of higher-order tensors", SIAM J. Matrix Anal. Appl. 21, 2000.
"""
from __future__ import annotations

import numpy as np

__all__ = ["rank1", "rank1_batch"]


def rank1(T: np.ndarray, iters: int = 30, tol: float = 1e-10) -> tuple[complex, list[np.ndarray]]:
    """Best rank-1 approximation ``T ~ lam * u_1 (x) ... (x) u_k`` of a complex tensor (unit ``u_i``).

    Two modes: the leading singular pair.  More modes: higher-order power
    iteration started from the leading left singular vectors of the mode
    unfoldings (HOSVD), which converges in a few steps for the near rank-1
    tensors of interest.

    Returns
    -------
    tuple ``(lam, us)``
        ``lam`` complex, ``us`` the unit vectors ``u_1, ..., u_k``, one per mode.

    Examples
    --------
    >>> import numpy as np
    >>> T = np.multiply.outer(np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])).astype(complex)
    >>> lam, (u1, u2) = rank1(T)                         # exactly rank 1: lam u1 (x) u2 = T
    >>> bool(np.allclose(lam * np.multiply.outer(u1, u2), T)), round(abs(lam), 9)
    (True, 15.811388301)
    """
    T = np.asarray(T, dtype=np.complex128)
    k = T.ndim
    if k == 1:
        nrm = float(np.linalg.norm(T))
        return complex(nrm), [T / nrm if nrm > 0 else np.eye(len(T), 1, dtype=complex)[:, 0]]
    if k == 2:
        U, S, Vh = np.linalg.svd(T)
        return complex(S[0]), [U[:, 0], Vh[0]]
    us = []
    for i in range(k):
        unf = np.moveaxis(T, i, 0).reshape(T.shape[i], -1)
        U, _, _ = np.linalg.svd(unf, full_matrices=False)
        us.append(U[:, 0])
    letters = "abcdefghij"[:k]
    prev = None
    for _ in range(iters):
        for i in range(k):
            ops = [np.conj(us[j]) for j in range(k) if j != i]
            sub = ",".join(letters[j] for j in range(k) if j != i)
            w = np.einsum(f"{letters},{sub}->{letters[i]}", T, *ops)
            nrm = np.linalg.norm(w)
            us[i] = w / nrm if nrm > 0 else us[i]
        lam = complex(np.einsum(f"{letters},{','.join(letters)}->", T, *[np.conj(x) for x in us]))
        if prev is not None and abs(lam - prev) <= tol * max(1.0, abs(lam)):
            break
        prev = lam
    lam = complex(np.einsum(f"{letters},{','.join(letters)}->", T, *[np.conj(x) for x in us]))
    return lam, us


def rank1_batch(T: np.ndarray, iters: int = 30, tol: float = 1e-10) -> tuple[np.ndarray, list[np.ndarray]]:
    """:func:`rank1` for a stack of tensors ``T[c]`` at once: returns ``lam`` (C,) and ``u_i`` (C, m_i).

    Examples
    --------
    >>> import numpy as np
    >>> T = np.multiply.outer(np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])).astype(complex)
    >>> lam, us = rank1_batch(np.stack([T, 2 * T]))
    >>> np.round(np.abs(lam), 9).tolist(), [u.shape for u in us]
    ([15.811388301, 31.622776602], [(2, 2), (2, 3)])
    """
    T = np.asarray(T, dtype=np.complex128)
    C, shape = T.shape[0], T.shape[1:]
    k = len(shape)
    if k == 1:
        nrm = np.linalg.norm(T, axis=1)
        return nrm.astype(np.complex128), [T / np.where(nrm == 0, 1.0, nrm)[:, None]]
    if k == 2:
        U, S, Vh = np.linalg.svd(T)
        return S[:, 0].astype(np.complex128), [U[:, :, 0], Vh[:, 0, :]]
    us = []
    for i in range(k):
        unf = np.moveaxis(T, i + 1, 1).reshape(C, shape[i], -1)
        U, _, _ = np.linalg.svd(unf, full_matrices=False)
        us.append(U[:, :, 0])
    L = "abcdefghij"[:k]
    full = "z" + L + "," + ",".join("z" + ch for ch in L) + "->z"
    prev = None
    for _ in range(iters):
        for i in range(k):
            ops = [np.conj(us[j]) for j in range(k) if j != i]
            sub = ",".join("z" + L[j] for j in range(k) if j != i)
            w = np.einsum(f"z{L},{sub}->z{L[i]}", T, *ops)
            nrm = np.linalg.norm(w, axis=1, keepdims=True)
            us[i] = np.where(nrm > 0, w / np.where(nrm == 0, 1.0, nrm), us[i])
        lam = np.einsum(full, T, *[np.conj(u) for u in us])
        if prev is not None and np.all(np.abs(lam - prev) <= tol * np.maximum(1.0, np.abs(lam))):
            break
        prev = lam
    return lam, us


def _kron_batch(lam: np.ndarray, us: list[np.ndarray]) -> np.ndarray:
    """``lam[c] * kron(u_1[c], ..., u_k[c])`` for every c: (C, prod m_i)."""
    out = us[0]
    for u in us[1:]:
        out = (out[:, :, None] * u[:, None, :]).reshape(out.shape[0], -1)
    return lam[:, None] * out


def _rank1_cells(T: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Rank-1 reconstruction of each channel of ``T`` (cells, C) over the grid ``shape``; returns (cells, C)."""
    lam, us = rank1_batch(T.T.reshape((T.shape[1],) + tuple(shape)))
    return _kron_batch(lam, us).T
