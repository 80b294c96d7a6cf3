"""``cogo verify --checkpoint``: the verdict of one trained or constructed network, and its exact certificate.

:func:`checkpoint_report` reads a checkpoint (weights only), gives the numeric verdict of
:func:`cogo.analysis.verdict.network_verdict` ("optimal within tolerance t", SPEC 5) and, for a file
written by ``cogo construct``, rebuilds the construction exactly and certifies it with the optimality
row (:func:`cogo.verify.theorems.optimality`).

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from cogo.threads import thread_policy as _thread_policy

__all__ = ["checkpoint_report"]


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.threads)
def checkpoint_report(path: Any, group: Any = None, tol: float | None = None) -> dict:
    """Is the network in a checkpoint a global optimizer?  (``cogo verify --checkpoint``.)

    Numerically, for any checkpoint (constructed or trained): the network
    verdict of :func:`cogo.analysis.verdict.network_verdict` -- the real-space
    loss on all pairs, each SPEC 5 condition's largest residual, the blocks
    that fail which condition.  Exactly, for a checkpoint written by
    ``cogo construct`` (its ``meta`` records ``construction``, ``group`` and
    ``seed``, hence the exact parameters): the construction is rebuilt with
    exact parameters, its real weights must match the file's (float64, 1e-9
    relative), and :func:`cogo.verify.theorems.optimality` certifies the exact
    network (general loss in ``Q(zeta_L)`` up to order 31, block route above).
    Bad files raise :class:`cogo.checkpoints.CheckpointError` (one line).

    Two words, two meanings: ``exact.certified`` is a proof (exact arithmetic
    only); the numeric verdict says "optimal within tolerance t" with the loss
    and ``t`` (``tol``; default :func:`cogo.analysis.verdict.default_loss_tol`
    of the file's dtype: ``1e4 eps^2``) in ``verdict.statement``.

    Returns
    -------
    dict
        ``path``, ``group``, ``hidden``, ``verdict`` (the numeric verdict as a dict), ``tolerance`` (the
        loss tolerance, the dtype and where the tolerance came from) and ``exact``: None for a file not
        written by ``cogo construct``, else a dict with ``certified`` (bool) and either ``reason`` (why
        nothing was certified) or ``construction``, ``seed``, ``statement``, ``route`` and ``loss_exact``.

    Raises
    ------
    cogo.checkpoints.CheckpointError
        One line, on a file that cannot be read as a checkpoint.
    """
    from cogo.analysis.verdict import network_verdict
    from cogo.checkpoints import load_weights
    from cogo.solvers.constructions import KIND_OF, KINDS, construct

    NAME_OF = {k: n for n, k in KIND_OF.items()}

    lw = load_weights(path, group=group)
    G = lw.group
    verdict = network_verdict(Wa=lw.Wa, Wb=lw.Wb, Wc=lw.Wc, group=G, loss_tol=tol, dtype=lw.dtype)
    out: dict = {"path": str(path), "group": G.label, "hidden": int(lw.hidden), "verdict": verdict.to_dict(),
                 "exact": None, "tolerance": {"loss_tol": verdict.loss_tol, "dtype": lw.dtype,
                                              "source": "--tol" if tol is not None else
                                              f"default 1e4 eps^2 of {lw.dtype}"}}
    kind, seed = lw.meta.get("construction"), lw.meta.get("seed")
    if kind in KINDS and (seed is None or isinstance(seed, int)):
        from cogo.verify.theorems import optimality

        try:
            net, _ = construct(NAME_OF[kind], G, seed=seed, exact=True)  # the recorded kind -> its name
            W = net.to_numeric().to_weights(real=True)
        except ValueError as exc:
            out["exact"] = {"certified": False, "reason": f"cannot rebuild {kind} on {G}: {exc}"}
            return out
        scale = max(1.0, max(float(np.abs(w).max(initial=0.0)) for w in W))
        same = all(w.shape == v.shape and float(np.abs(w - v).max(initial=0.0)) <= 1e-9 * scale
                   for w, v in zip(W, (lw.Wa, lw.Wb, lw.Wc)))
        if not same:
            out["exact"] = {"certified": False, "reason": f"weights differ from {kind} rebuilt with seed {seed}: "
                                                          "no exact parameters for this file"}
            return out
        r = (optimality(G, kind, "exact", seed=seed) if kind == "mem"
             else optimality(G, kind, "exact", net=net))
        out["exact"] = {"certified": bool(r.passed), "construction": kind, "seed": seed,
                        "statement": r.statement, "route": r.details.get("route"),
                        "loss_exact": r.details.get("loss_exact", "0" if r.passed else None)}
    return out
