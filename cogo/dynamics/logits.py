"""The logits of a stack of networks over all pairs, their loss and their fibre means (SPEC 1).

For ``S`` snapshots of ``o(a, b) = W_c sigma(W_a[:, a] + W_b[:, b])`` on a group
``G`` of order ``M``: the hidden features and the logits ``L(a, b, c)`` over all
``P = M^2`` pairs ``p = a M + b`` (:func:`features_and_logits`), a sub-stack of
snapshots at a time (memory bounded by :data:`MAX_ELEMENTS`,
:func:`substack_step`); the per-pair loss (:func:`pair_losses`); the mean of the
logits over each fibre of ``x = a b c^-1`` (:func:`fibre_mean`) and a function of
``x`` read back at every pair and output (:func:`at_x`).  Shared by cogo's
progress measures (:mod:`cogo.dynamics.progress`) and the peers'
(:mod:`cogo.dynamics.peers`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from cogo.algebra.group_parsing import as_finite_group

__all__ = ["MAX_ELEMENTS", "substack_step", "features_and_logits", "pair_losses", "fibre_mean", "at_x"]

#: Largest number of float64 elements of one intermediate array (``S' M^2 q``).
MAX_ELEMENTS = 1 << 23


def substack_step(P: int, q: int, M: int) -> int:
    """Snapshots per sub-stack: at most :data:`MAX_ELEMENTS` elements in ``P max(q, M)`` per snapshot (at least 1)."""
    return max(1, MAX_ELEMENTS // max(1, P * max(q, M)))


def features_and_logits(Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, sl: slice,
                        sigma: Any) -> tuple[np.ndarray, np.ndarray]:
    """Hidden features (s, P, q) and logits (s, P, M) of the snapshots ``sl`` over all pairs ``p = a M + b``."""
    q, M = Wa.shape[1], Wa.shape[2]
    P = M * M
    H = (Wa[sl][:, :, :, None] + Wb[sl][:, :, None, :]).reshape(len(Wa[sl]), q, P)   # (s, q, P), p = a M + b
    Fh = np.swapaxes(sigma(H), 1, 2)                           # hidden features (s, P, q)
    return Fh, Fh @ np.swapaxes(Wc[sl], 1, 2)                  # logits (s, P, M)


def pair_losses(L: np.ndarray, c: np.ndarray, loss: str) -> np.ndarray:
    """Per-pair loss (SPEC 1) of logits ``L`` (S, P, M) with answers ``c`` (P,): MSE on centred outputs or CE."""
    M = L.shape[-1]
    if loss == "mse":
        R = L - L.mean(-1, keepdims=True)
        R[..., np.arange(len(c)), c] -= 1.0
        R += 1.0 / M
        return (R * R).sum(-1)
    mx = L.max(-1, keepdims=True)
    lse = (mx[..., 0] + np.log(np.exp(L - mx).sum(-1)))
    return lse - L[..., np.arange(len(c)), c]


def fibre_mean(L: np.ndarray, cx: np.ndarray) -> np.ndarray:
    """``psi(x) = mean_p L[p, x^-1 a_p b_p]`` for a stack (S, P, M) -> (S, M)."""
    P = L.shape[-2]
    return np.stack([L[:, np.arange(P), cx[x]].mean(-1) for x in range(cx.shape[0])], axis=-1)


def at_x(phi: np.ndarray, ab: np.ndarray, G: Any) -> np.ndarray:
    """``phi(a b c^-1)`` for every pair and output: (S, M) -> (S, P, M)."""
    FG = as_finite_group(G)
    x = np.asarray(FG.table)[ab[:, None], np.asarray(FG.inverse)[None, :]]   # (P, M): (a b) c^-1
    return phi[:, x]
