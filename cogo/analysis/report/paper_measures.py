"""The reference's factorization error of a block and the error columns of the paper's table (SPEC 8).

The CoGO paper's table of trained solutions [1] has, beside the solution types, five columns computed
by the reference's classifier (``factorize_sol.py`` of [2], commit 625b5f7): the blocks of order neither 4 nor 6, the
share of non-factorable order-4 and order-6 blocks, and the mean factorization error of each order.
They are defined by that code, not by cogo's factorization (:mod:`cogo.analysis.factor.factorization`), so
cogo computes them as a peer measure, from a reading of the reference's definitions (its code is
not copied):

1. **Pairing** (order ``q`` = 4 or 6, ``h = q / 2``): over all ``q!`` orders of the block's nodes, the
   order whose output ratios ``c[first h] / c[last h]`` vary least (smallest
   ``|| r - mean(r) ||``); the first such order in :func:`itertools.permutations` order, ties taken
   in exact arithmetic (orders that only list the same pairs in another order tie; the first has its
   first half increasing).  Only ``c`` decides.  An order with a zero ``c`` entry (a ratio that is not
   finite) never wins.
2. **Sign gauge**: with ``t = a[last h] / a[first h]``, every first-half node whose ``|t_j - t_0|``
   exceeds :data:`SIGN_TOL` (0.2) gets ``(a_j, b_j) -> (-a_j, -b_j)`` (the gauge ``(-1, -1, 1)``,
   which keeps ``a_j b_j c_j``).
3. **Error**: ``R = (last h) / (first h)`` for each of ``a``, ``b``, ``c`` (a 3 x h array); the
   *reference factorization error* ``err`` is the Frobenius norm of ``R`` minus its row means (0 for
   an exact 2 x h grid).  It is scale free: each row is a ratio of the same row.
4. **Factorable**: ``err <= REF_TOL sqrt(3 q)`` (:data:`REF_TOL` = 0.1).

The table's columns, per network, under the reference's names (its ``summarize46``):

* ``0_non_4_6_0``: the number of frequencies whose block has neither 0, 4 nor 6 nodes (a count, not a
  percent: the reference prints the keys starting ``0_`` unscaled);
* ``1nonfact_4``, ``1nonfact_6``: non-factorable blocks of that order over all blocks of that order
  (0 for a network with none, as the reference's ``n / (n4 + 1e-8)``);
* ``err_4``, ``err_6``: the mean ``err`` of the factorable blocks of that order (undefined for a
  network with none: the reference's mean of an empty tensor is NaN; here that network is left out).

The table shows the mean over seeds and its standard error, the keys not starting ``0_`` multiplied by
100 (percent; the error in units of 1e-2).  cogo's own reconstruction error of a block
(:attr:`cogo.analysis.report.network_report.BlockReport.error`, relative, from its grid search) is a different
quantity: cogo reports it as ``mean_relative_error_order_4`` / ``_6``.

Where this reading is not the reference's: the blocks (which nodes share a frequency) are cogo's
(:func:`cogo.analysis.block_extraction.extract_blocks`: dominant frequency of ``(a, b, c)``, relative dead
threshold), not the reference's (largest ``|A[k]|`` alone, absolute threshold 0.05 on unscaled
coefficients); the arithmetic is complex128 (the reference: complex64); an ``err`` that is not finite
(a zero first-half ``a`` or ``b`` entry) makes the block non-factorable (the reference would count it
factorable with a NaN error).  cogo's Fourier values of a block differ from the reference's by one
constant per row (the scale ``(2 n)^(1/3)``) or by complex conjugation (the block at ``-k``), which
change no ratio's deviation.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [2] facebookresearch/luckmatters, ssl/real-dataset/cogo/ (the paper's code).
"""
from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

__all__ = ["REF_TOL", "SIGN_TOL", "REFERENCE_ORDERS", "REFERENCE_KEYS", "reference_error", "reference_errors",
           "reference_factorable", "reference_row"]

#: The reference's tolerance: a block of ``q`` nodes is factorable when ``err <= REF_TOL * sqrt(3 q)``.
REF_TOL = 0.1
#: The reference's sign-gauge threshold (step 2 of the module docstring).
SIGN_TOL = 0.2
#: The block orders the reference factors.
REFERENCE_ORDERS = (4, 6)
#: The reference's names of the five columns, in its (sorted) order.
REFERENCE_KEYS = ("0_non_4_6_0", "1nonfact_4", "1nonfact_6", "err_4", "err_6")


@lru_cache(maxsize=None)
def _orders(q: int) -> np.ndarray:
    """The node orders searched (step 1): those whose first half increases, in :func:`itertools.permutations` order.

    Orders that list the same pairs ``(first_i, second_i)`` in another order have the same spread; the first of
    them in permutation order is the one whose first half increases, so the ``q! / (q/2)!`` orders kept give the
    reference's choice in exact arithmetic (its own choice among such equal spreads is made by rounding).
    """
    h = q // 2
    return np.array([p for p in itertools.permutations(range(q)) if list(p[:h]) == sorted(p[:h])], dtype=np.intp)


def reference_error(a: Any, b: Any, c: Any) -> float | None:
    """The reference's factorization error ``err`` of one block of 4 or 6 nodes (module docstring, steps 1-3).

    ``a``, ``b``, ``c``: the block's Fourier values, one per node (any common scale per row).  Returns
    None when no node order has finite ratios, or when ``err`` is not finite.

    Examples
    --------
    >>> from cogo.catalogue.partial import z_nu_i, z_syn, z_xi
    >>> y = z_nu_i() * z_syn()                          # an exact 2 x 3 grid
    >>> round(reference_error(y.a, y.b, y.c), 12)
    0.0
    >>> y = z_nu_i() * z_xi(1, 1)                       # order 4, exact
    >>> round(reference_error(y.a, y.b, y.c), 12)
    0.0
    """
    return reference_errors([(a, b, c)])[0]


def reference_errors(blocks: Sequence[tuple]) -> list:
    """:func:`reference_error` of many blocks ``(a, b, c)``, the blocks of one order at once (the same values)."""
    out: list = [None] * len(blocks)
    by_order: dict = {}
    for i, abc in enumerate(blocks):
        F = np.stack([np.asarray(v, dtype=np.complex128).reshape(-1) for v in abc])
        if F.shape[1] not in REFERENCE_ORDERS:
            raise ValueError(f"the reference factors blocks of 4 or 6 nodes, got {F.shape[1]}")
        by_order.setdefault(F.shape[1], []).append((i, F))
    for q, items in by_order.items():
        for (i, _), e in zip(items, _errors(np.stack([F for _, F in items]))):
            out[i] = e
    return out


def _errors(F: np.ndarray) -> list:
    """Steps 1-3 for blocks ``F`` (n, 3, q) of one order ``q``: ``err`` per block (None where undefined)."""
    n, _, q = F.shape
    h = q // 2
    P = _orders(q)
    rows = np.arange(n)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        c = F[:, 2, :]
        r = (c[:, :, None] / c[:, None, :])[:, P[:, :h], P[:, h:]]   # (n, q!, h): c[first] / c[second], every order
        dev = r - r.mean(axis=2, keepdims=True)
        spread = (dev.real ** 2 + dev.imag ** 2).sum(axis=2)        # squared: the same order, the same first minimum
    spread = np.where(np.isfinite(spread), spread, np.inf)
    best = spread.argmin(axis=1)                                     # the first smallest, as the reference's strict "<"
    found = np.isfinite(spread[rows, best])
    G = np.take_along_axis(F, P[best][:, None, :], axis=2)            # (n, 3, q) in the chosen order (a copy)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = G[:, 0, h:] / G[:, 0, :h]
        flip = np.abs(t - t[:, :1]) > SIGN_TOL                       # first-half nodes to gauge
        G[:, :2, :h] *= np.where(flip, -1.0, 1.0)[:, None, :]
        R = G[:, :, h:] / G[:, :, :h]
        dev = R - R.mean(axis=2, keepdims=True)
        err = np.sqrt((dev.real ** 2 + dev.imag ** 2).sum(axis=(1, 2)))
    return [float(e) if ok and math.isfinite(e) else None for ok, e in zip(found, err)]


def reference_factorable(err: float | None, order: int) -> bool:
    """The reference's test: ``err <= REF_TOL sqrt(3 order)`` (False for an undefined ``err``).

    >>> reference_factorable(0.34, 4), reference_factorable(0.35, 4), reference_factorable(None, 6)
    (True, False, False)
    """
    return err is not None and err <= REF_TOL * math.sqrt(3 * order)


def reference_row(blocks: Sequence[Any]) -> dict:
    """One network's five columns under the reference's names (module docstring), unscaled.

    ``blocks``: the network's blocks, each with ``order`` and ``reference_err``
    (:class:`cogo.analysis.report.network_report.BlockReport`).  ``err_4`` / ``err_6`` are None where the
    network has no factorable block of that order.

    Examples
    --------
    >>> from types import SimpleNamespace as B
    >>> row = reference_row([B(order=4, reference_err=0.02), B(order=4, reference_err=0.5),
    ...                      B(order=6, reference_err=0.1), B(order=5, reference_err=None)])
    >>> row["0_non_4_6_0"], row["1nonfact_4"], row["1nonfact_6"], row["err_4"], row["err_6"]
    (1, 0.5, 0.0, 0.02, 0.1)
    """
    out: dict = {"0_non_4_6_0": sum(1 for b in blocks if b.order and b.order not in REFERENCE_ORDERS)}
    for q in REFERENCE_ORDERS:
        errs = [b.reference_err for b in blocks if b.order == q]
        good = [e for e in errs if reference_factorable(e, q)]
        out[f"1nonfact_{q}"] = (len(errs) - len(good)) / len(errs) if errs else 0.0
        out[f"err_{q}"] = float(np.mean(good)) if good else None
    return out
