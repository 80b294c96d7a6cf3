"""The Li^2 statistics of a network, as the trainer records them at each snapshot (Li^2 theory, SPEC 9).

For the hidden activations ``F`` (n, q) on the training pairs and the centred one-hot targets, :func:`li2_statistics`
gives the Gram statistics of ``F`` and the norm and direction of the energy gradient ``G_F`` of the Li^2 paper
(section 4) at ridge ``eta`` (:func:`ridge_eta`); :data:`LI2_STATS` names them.  The trainer
(:mod:`cogo.solvers.training`) records them during training and the progress measures
(:mod:`cogo.dynamics.progress`) read and stage them, so they sit here, below both.

References
----------
.. [1] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from cogo.algebra.activations import ACTIVATIONS, THEORY, unknown_message
from cogo.algebra.group_parsing import pair_tables, as_group
from cogo.io.arrays import as_stack

__all__ = ["LI2_STATS", "li2_statistics", "li2_statistics_of", "ridge_eta", "GRAM_RCOND"]


def ridge_eta(weight_decay: float | None, n_train: int) -> float:
    """The ridge constant of SPEC 9 matching a run's weight decay: ``eta = n_train * wd / 2``.

    cogo's loss is the mean over the ``n_train`` pairs of ``||P(o) - P(e_c)||^2``
    with ``wd/2 ||W||^2`` added (Adam's L2); multiplied by ``n_train / 2`` it is
    Li^2's ``1/2 ||Y~ - F~ C||^2 + eta/2 ||C||^2``.

    Examples
    --------
    >>> ridge_eta(5e-5, 476)
    0.0119
    """
    return float(n_train) * float(weight_decay or 0.0) / 2.0


def li2_statistics(F: np.ndarray, c: np.ndarray, M: int, eta: float) -> dict:
    """Li^2 kernel statistics of hidden features ``F`` (S, n, q) on ``n`` samples with answers ``c`` (SPEC 9).

    ``F~ = (I - 1 1^T / n) F``, ``Y~`` the same centring of the one-hot answers.
    Returns, each of shape (S,): ``FtF_diag``, ``FtF_offdiag`` (mean diagonal
    and off-diagonal entry of ``F~^T F~``, q x q), ``FFt_diag``, ``FFt_offdiag``
    (of ``F F^T``, n x n, from ``sum_i |F_i|^2`` and ``|sum_i F_i|^2`` without
    forming it), ``G_F_norm`` = ``||G_F||_F`` with
    ``G_F = eta (F~F~^T + eta I)^-1 Y~Y~^T F~ (F~^T F~ + eta I)^-1``, computed
    as ``R C^T`` (``C = (F~^T F~ + eta)^-1 F~^T Y~`` the ridge top layer,
    ``R = Y~ - F~ C`` its residual; Woodbury; ``eta = 0``: least squares, the
    limit, of minimum norm, through the eigenvalues of ``F~^T F~``: those below
    :data:`GRAM_RCOND` times the largest count as null, i.e. singular values of
    ``F~`` below ``1e-6`` of the largest), and ``G_F_cos`` =
    ``cos(G_F, Y~ Y~^T F~)`` (1: the independent regime of Lemma 1).  Cost per
    snapshot ``O(n q^2 + q^3)``; no ``n x n`` matrix and no SVD of ``F~``.

    Returns
    -------
    dict of str to numpy.ndarray
        The :data:`LI2_STATS` entries above, each of shape (S,).

    Examples
    --------
    >>> import numpy as np
    >>> from cogo.li2.theorems import gradient_ridge
    >>> rng = np.random.default_rng(0)
    >>> F, c = rng.normal(size=(1, 12, 5)), rng.integers(0, 3, 12)
    >>> Yt = np.eye(3)[c] - np.eye(3)[c].mean(0)
    >>> st = li2_statistics(F, c, 3, eta=0.5)
    >>> bool(np.isclose(st["G_F_norm"][0], np.linalg.norm(gradient_ridge(F[0], Yt, 0.5)), rtol=1e-10))
    True
    """
    S, n, q = F.shape
    c = np.asarray(c)
    Y = np.zeros((n, M))
    Y[np.arange(n), c] = 1.0
    Yt = Y - Y.mean(0)
    out = {k: np.zeros(S) for k in ("FtF_diag", "FtF_offdiag", "FFt_diag", "FFt_offdiag", "G_F_norm", "G_F_cos")}
    YtY = Yt.T @ Yt
    grouped = bool(np.all(np.diff(c) >= 0))                        # samples already sorted by answer: no copy
    order = slice(None) if grouped else np.argsort(c, kind="stable")  # grouped by answer: F~^T Y by class sums
    cls, starts = np.unique(c[order], return_index=True)
    ybar = Y.mean(0)
    for s in range(S):
        f = F[s]
        mu = f.mean(0)
        G = f.T @ f                                                 # F^T F (syrk); F~^T F~ = F^T F - n mu mu^T
        K = G - n * np.outer(mu, mu)
        d = np.trace(K)
        out["FtF_diag"][s] = d / q if q else 0.0
        out["FtF_offdiag"][s] = (K.sum() - d) / (q * (q - 1)) if q > 1 else 0.0
        rows = np.trace(G)                                          # sum_i |F_i|^2
        tot = n * mu                                                # sum_i F_i
        out["FFt_diag"][s] = rows / n
        out["FFt_offdiag"][s] = (tot @ tot - rows) / (n * (n - 1)) if n > 1 else 0.0
        FY = np.zeros((q, M))                                       # F~^T Y~ = F^T Y - n mu ybar^T (class sums)
        FY[:, cls] = np.add.reduceat(f[order], starts, axis=0).T
        FY -= n * np.outer(mu, ybar)
        out["G_F_norm"][s], out["G_F_cos"][s] = _gradient_norm_cos(K, FY, YtY, eta)
    return out


def _gradient_norm_cos(K: np.ndarray, FY: np.ndarray, YtY: np.ndarray, eta: float) -> tuple[float, float]:
    """``||G_F||_F`` and ``cos(G_F, Y~ Y~^T F~)`` of one snapshot from ``K = F~^T F~``, ``F~^T Y~`` and ``Y~^T Y~``."""
    q = K.shape[0]
    if eta > 0:
        try:
            C = np.linalg.solve(K + eta * np.eye(q), FY)
        except np.linalg.LinAlgError:  # pragma: no cover - K + eta I is positive definite
            C = np.linalg.lstsq(K + eta * np.eye(q), FY, rcond=None)[0]
    else:  # least squares of minimum norm through the q x q Gram matrix (pinv(F~) = pinv(K) F~^T)
        lam, V = np.linalg.eigh(K)
        keep = lam > GRAM_RCOND * max(float(lam.max(initial=0.0)), 0.0)
        C = (V[:, keep] / lam[keep]) @ (V[:, keep].T @ FY)
    # R = Y~ - F~ C is never formed: R^T R and R^T Y~ from the q x q and q x M products
    FYC = FY.T @ C
    RtR = YtY - FYC - FYC.T + C.T @ (K @ C)
    RtY = YtY - C.T @ FY
    g2 = float(np.sum(RtR * (C.T @ C)))
    A2 = FY.T                                                   # Y~^T F~ (M, q)
    ref2 = float(np.sum((A2.T @ YtY) * A2.T))                   # ||Y~ Y~^T F~||^2
    dot = float(np.sum((RtY @ A2) * C.T))                       # <R C^T, Y~ Y~^T F~>
    gn = math.sqrt(max(g2, 0.0))
    return gn, (dot / (gn * math.sqrt(ref2)) if gn > 0 and ref2 > 0 else float("nan"))


#: ``eta = 0`` in :func:`li2_statistics`: eigenvalues of ``F~^T F~`` below this times the largest are null.
GRAM_RCOND = 1e-12
#: The Li^2 kernel statistics of :func:`li2_statistics`, in the order they are recorded and reported.
LI2_STATS = ("FtF_diag", "FtF_offdiag", "FFt_diag", "FFt_offdiag", "G_F_norm", "G_F_cos")


def li2_statistics_of(Wa: Any, Wb: Any, group: Any, train_idx: Any, eta: float, activation: str = THEORY) -> dict:
    """:func:`li2_statistics` of a network's hidden features on its training pairs (SPEC 9).

    ``Wa``, ``Wb``: (S, q, M) or (q, M); ``train_idx``: the training pairs
    ``a M + b``; the features are ``F = sigma(W_a[:, a] + W_b[:, b])`` over the
    training pairs grouped by answer, exactly as :func:`progress_measures`
    forms them (so the values agree to the last bit).  Called by the trainer
    at every snapshot epoch (``cogo train --snapshots``; the checkpoint's
    ``meta["snapshots"]["li2"]``) and by the progress measures.

    Returns
    -------
    dict of str to numpy.ndarray
        The :data:`LI2_STATS` entries of :func:`li2_statistics`, each of shape (S,) (S = 1 for one network).

    Raises
    ------
    ValueError
        If ``activation`` is not one of :data:`ACTIVATIONS` (the activations this module can read).

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F6
    >>> Wa, Wb, Wc = z_F6(5).to_weights(real=True)
    >>> st = li2_statistics_of(Wa, Wb, 5, range(25), eta=0.0)
    >>> sorted(st) == sorted(LI2_STATS), st["FtF_diag"].shape
    (True, (1,))
    """
    G = as_group(group)
    if activation not in ACTIVATIONS:
        raise ValueError(unknown_message(activation))
    Wa, Wb = as_stack(Wa), as_stack(Wb)
    M = Wa.shape[2]
    a, b, ab, _ = pair_tables(G)
    tr = np.asarray(list(train_idx) if not hasattr(train_idx, "__array__") else train_idx, dtype=np.int64).reshape(-1)
    trc = tr[np.argsort(ab[tr], kind="stable")]                    # grouped by answer, as progress_measures
    H = Wa[:, :, a[trc]] + Wb[:, :, b[trc]]                        # (S, q, n)
    F = np.swapaxes(ACTIVATIONS[activation].numpy_(H), 1, 2)              # (S, n, q)
    return li2_statistics(F, ab[trc], M, eta)
