"""The nearest catalogue form of a block read exactly, without the parameter search (SPEC 7, 8.6).

:func:`cogo.analysis.classify.nearest_family` fits every family of a block's order directly: a
coarse grid over the parameters, then refinement rounds, each over the node orders (``m!``), which
costs tens of milliseconds per order-6 block.  When the Kronecker reading has already named the
block as one of those families within :data:`NEAREST_FROM_READING` (its reconstruction error and
its factors' naming residuals, below the direct fit's own resolution of about 0.02 degrees), the
search cannot say more: the nearest form is the reading's family at the reading's parameters.
:func:`nearest_from_reading` then evaluates the direct fit's objective once, at those parameters
(folded to the same canonical representative), over every node order in closed form, so
``distance`` keeps its meaning (the relative misfit of the balanced features, as the search
reports it) and ``params`` are exact rather than read off a grid.  Anything else (an unnamed block,
a larger misfit, the paper preset, whose reading divides the nodes by their amplitude) goes through
the search.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from cogo import catalogue as _cat
from cogo.analysis.factorization import balance_gauge, canonical_node_order, node_features

__all__ = ["NEAREST_FROM_READING", "nearest_from_reading", "block_features", "features_misfit"]

#: A block read as a catalogue form with error and naming residuals at most this is its own nearest form
#: (the direct fit's parameter resolution, about 0.02 degrees, gives distances of this order).
NEAREST_FROM_READING = 1e-3

_PERMS: dict = {}


def _perms(m: int) -> np.ndarray:
    """Every node order of ``m`` nodes, (m!, m), in :func:`itertools.permutations` order (cached)."""
    import itertools

    if m not in _PERMS:
        _PERMS[m] = np.array(list(itertools.permutations(range(m))), dtype=np.int64)
    return _PERMS[m]


def block_features(x: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The balanced, order-free features ``F`` (m, 4) of a block ``x`` (3, m) and ``||F||^2`` (None: all zero).

    As :func:`cogo.analysis.classify.nearest_family` reads a block: balanced (SPEC 8.4), features
    ``(a^2, a b, b^2, c)``, nodes in :func:`cogo.analysis.factorization.canonical_node_order`.

    Returns
    -------
    tuple ``(F, ||F||^2)`` or None
        The features (m, 4) and their squared norm; None when every feature is zero.
    """
    ab, bb, cb, _ = balance_gauge(*x)
    F = node_features(ab, bb, cb)
    F = F[canonical_node_order(F / np.cbrt(max(float(np.abs(ab * bb * cb).mean()), 1e-300)))]
    fn = float((np.abs(F) ** 2).sum())
    return (F, fn) if fn > 0 else None


def features_misfit(F: np.ndarray, G: np.ndarray) -> float:
    """``min over node orders pi of sum_ch min_lam ||F_ch - lam G_pi,ch||^2``: one model ``G`` (m, 4), all ``m!`` orders.

    The per-channel complex scale ``lam`` (SPEC 8.4) in closed form, as the direct fit's objective.

    Returns
    -------
    float
        The smallest squared misfit over the node orders (divide by ``||F||^2`` for the relative one).
    """
    P = _perms(F.shape[0])
    S = (np.conj(G)[P] * F[None, :, :]).sum(axis=1)  # (P, 4)
    gn = np.maximum((np.abs(G) ** 2).sum(axis=0), 1e-300)
    fn = (np.abs(F) ** 2).sum(axis=0)
    return float(np.maximum((fn[None, :] - np.abs(S) ** 2 / gn[None, :]).sum(axis=1), 0.0).min())


def _form_of(rep: Any) -> tuple[str, Any] | None:
    """The direct-fit form (name, :class:`cogo.catalogue.NearestForm`) of the block's own type, if it has one."""
    forms = _cat.nearest_forms().get(rep.order, [])
    typ = rep.type
    if len(rep.factors) == 1:  # a lone special factor is a point of its general form (z_nu=i of z_nu)
        typ = _cat.general_of(typ) or typ
    for name, nf in forms:
        if name == typ:
            return name, nf
    return None


def nearest_from_reading(rep: Any, x: np.ndarray, preset: str = "default") -> dict | None:
    """``nearest`` of a block whose reading names it a catalogue form exactly (module docstring), else None.

    ``rep``: the block's :class:`cogo.analysis.classify.BlockReport` (type, factors, error);
    ``x``: its values (3, m) as given.  The form's parameters are the factors' (``params`` by
    name), folded as the direct fit folds them; ``distance`` is the direct fit's objective at those
    parameters, minimized over every node order.  None (run the search) when the block is not read
    as a family of its order within :data:`NEAREST_FROM_READING`, when the preset is not the
    default, or when the evaluated distance is not as small as the reading says (a form whose
    parameters do not map onto its model).

    Returns
    -------
    dict or None
        ``{type, distance, params: [{"degrees": {...}}], method: "kronecker"}``, or None (run the search).
    """
    if preset != "default" or not rep.factors or any(f["name"] == "unknown" for f in rep.factors):
        return None
    res = [f.get("residual") for f in rep.factors]
    if any(r is None for r in res):
        return None
    read = max([rep.error or 0.0] + [float(r) for r in res])
    if not read <= NEAREST_FROM_READING:
        return None
    form = _form_of(rep)
    if form is None:
        return None
    typ, nf = form
    values = {}
    for f in rep.factors:
        for k, v in f["params"].items():
            values.setdefault(k, v)
    if any(n not in values for n in nf.params):
        return None
    t = tuple(math.degrees(float(np.angle(complex(values[n])))) for n in nf.params)
    folded = tuple(nf.fold(t))
    bf = block_features(x)
    if bf is None:
        return None
    F, fn = bf
    ps = nf.model(folded)
    G = node_features(*balance_gauge(ps.a, ps.b, ps.c)[:3])
    d = math.sqrt(features_misfit(F, G) / fn)
    if not d <= 4.0 * NEAREST_FROM_READING:  # the model at the read parameters does not fit: search instead
        return None
    params = {n: round(v, 3) + 0.0 for n, v in zip(nf.params, folded)}
    return {"type": typ, "distance": d, "params": [{"degrees": params}], "method": "kronecker"}
