"""The nearest catalogue form of a block: fitted directly, or from an exact reading (SPEC 7, 8.6).

:func:`nearest_family` fits every family of a block's order directly: a
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

import itertools
import math
from typing import Any, Sequence

import numpy as np

from cogo import catalogue as _cat
from cogo.analysis.factor.canonical import canonical_node_order
from cogo.analysis.factor.kronecker import _feature_keys, balance_gauge, node_features

__all__ = ["NEAREST_FROM_READING", "nearest_family", "nearest_from_reading", "nearest_from_readings", "block_features",
           "features_misfit",
           "order_misfits"]

#: A block read as a catalogue form with error and naming residuals at most this is its own nearest form
#: (the direct fit's parameter resolution, about 0.02 degrees, gives distances of this order).
NEAREST_FROM_READING = 1e-3

_PERMS: dict = {}


def _perms(m: int) -> np.ndarray:
    """Every node order of ``m`` nodes, (m!, m), in :func:`itertools.permutations` order (cached)."""
    if m not in _PERMS:
        _PERMS[m] = np.array(list(itertools.permutations(range(m))), dtype=np.int64)
    return _PERMS[m]


def block_features(x: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The balanced, order-free features ``F`` (m, 4) of a block ``x`` (3, m) and ``||F||^2`` (None: all zero).

    As :func:`nearest_family` reads a block: balanced (SPEC 8.4), features
    ``(a^2, a b, b^2, c)``, nodes in :func:`cogo.analysis.factor.canonical.canonical_node_order`.
    """
    ab, bb, cb, _ = balance_gauge(*x)
    F = node_features(ab, bb, cb)
    F = F[canonical_node_order(F / np.cbrt(max(float(np.abs(ab * bb * cb).mean()), 1e-300)))]
    fn = float((np.abs(F) ** 2).sum())
    return (F, fn) if fn > 0 else None


_PLANS: dict = {}


def _order_plan(perms: np.ndarray) -> tuple[list, np.ndarray]:
    """How :func:`order_misfits` sums each node order's ``m`` picked entries, sharing the common prefixes.

    Order ``p`` picks entry ``l m + inv_p[l]`` (model node ``l`` against block node ``inv_p[l]``) for
    ``l = 0, ..., m-1`` and sums them in that order.  Level ``k`` holds the distinct prefixes ``inv_p[:k + 1]`` in
    lexicographic order, each as ``(parent prefix, entry)`` (and ``c`` when every parent has ``c`` children, in
    a row); the last level is every order, and ``at[p]`` is the place of order ``p`` there.
    """
    P, m = perms.shape
    every = perms is _PERMS.get(m)
    if every and m in _PLANS:
        return _PLANS[m]
    inv = np.argsort(perms, axis=1)
    levels, prev = [], np.zeros(P, dtype=np.int64)
    for k in range(m):
        _, first, ids = np.unique(prev * m + inv[:, k], return_index=True, return_inverse=True)
        parent = prev[first]
        c = len(parent) // (parent[-1] + 1)
        regular = np.array_equal(parent, np.repeat(np.arange(parent[-1] + 1), c))
        levels.append((parent, inv[first, k] + k * m, c if regular else 0))
        prev = ids.reshape(-1)
    plan = (levels, prev)
    if every:
        _PLANS[m] = plan
    return plan


def order_misfits(F: np.ndarray, G: np.ndarray, perms: np.ndarray | None = None,
                  smallest: int | None = None) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """``res[b, t, p] = sum_ch min_lam ||F[b]_ch - lam G[b, t]_{perm_p, ch}||^2`` for every node order ``p`` at once.

    ``F`` (B, m, 4): block features; ``G`` (B, T, m, 4): model features; ``perms`` (P, m): the node orders
    (default every one of :func:`_perms`).  The per-channel complex scale ``lam`` (SPEC 8.4) in closed form:
    ``||F_ch||^2 - |<G_ch, F_ch>|^2 / ||G_ch||^2``, clipped at 0.  The inner products of every order are sums of
    ``m`` of the products of every model node with every block node, in model-node order, the orders sharing
    their common prefixes (:func:`_order_plan`: about ``2 m!`` vector additions instead of a ``(P, m^2)`` matrix
    product); the model-block pairs are processed a few at a time, so everything stays in cache.

    ``smallest``: keep only that many orders per model-block pair (``numpy.argpartition`` of each row at
    ``min(smallest, P - 1)``, the first ``smallest`` places), pass by pass: the (B, T, P) array is never made.

    Returns
    -------
    numpy.ndarray or tuple
        Shape (B, T, P): squared misfits (divide by ``||F[b]||^2`` for the relative one); with ``smallest``,
        ``(misfits, orders)`` of shape (B, T, smallest) each (the orders as indices into ``perms``).
    """
    B, T, m = G.shape[:3]
    perms = _perms(m) if perms is None else perms
    levels, at = _order_plan(perms)
    P, n = len(perms), B * T
    Gc, Fr = np.conj(G).reshape(n, m, 4), np.repeat(F, T, axis=0)                   # per model-block pair
    gn = np.maximum((np.abs(G) ** 2).sum(axis=2), 1e-300).reshape(n, 4).T                    # (4, B T)
    fn = np.repeat((np.abs(F) ** 2).sum(axis=1), T, axis=0).T                                 # (4, B T)
    keep = None if smallest is None else min(smallest, P)
    out = np.empty((n, P if keep is None else keep))
    order = None if keep is None else np.empty((n, keep), dtype=np.int64)
    step = max(1, min(n, max(16, 11520 // P)))                        # pairs per pass (everything in cache)
    bufs = [np.empty((len(entry), 8 * step)) for _, entry, _ in levels]  # reused by every pass
    D = len(levels[-1][1])                                              # distinct orders (D = P but for repeats)
    q, tot = np.empty((4, D, step)), np.empty((D, step))               # q: channel-major, each channel contiguous
    for s in range(0, n, step):
        e = min(n, s + step)
        GF = Gc[s:e, :, None, :] * Fr[s:e, None, :, :]                  # [pair, l, j, c]: model node l, block node j
        Ac = np.ascontiguousarray(GF.reshape(e - s, m * m, 4).transpose(1, 2, 0)).view(np.float64).reshape(m * m, -1)
        L = np.zeros((1, Ac.shape[1]))
        for (parent, entry, c), buf in zip(levels, bufs):
            Lk = buf[:, :Ac.shape[1]] if e - s == step else np.empty((len(entry), Ac.shape[1]))
            if c:  # every prefix extended by c entries, in a row: no gather of the prefixes
                np.add(L[:, None, :], Ac[entry].reshape(len(L), c, -1), out=Lk.reshape(len(L), c, -1))
            else:
                np.add(L[parent], Ac[entry], out=Lk)
            L = Lk
        qc = q[:, :, :e - s]
        np.abs(L.view(np.complex128).reshape(D, 4, e - s), out=qc.transpose(1, 0, 2))   # |<G_ch, F_ch>|
        np.square(qc, out=qc)
        np.divide(qc, gn[:, None, s:e], out=qc)
        np.subtract(fn[:, None, s:e], qc, out=qc)
        if keep is None:
            out[s:e] = np.sum(qc, axis=0, out=tot[:, :e - s])[at].T    # the channels in order; orders as perms
            continue
        rows = np.maximum(np.sum(qc, axis=0, out=tot[:, :e - s])[at].T, 0.0)
        order[s:e] = np.argpartition(rows, min(keep, P - 1), axis=1)[:, :keep]
        out[s:e] = np.take_along_axis(rows, order[s:e], axis=1)
    if keep is not None:
        return out.reshape(B, T, keep), order.reshape(B, T, keep)
    np.maximum(out, 0.0, out=out)
    return out.reshape(B, T, P)


def features_misfit(F: np.ndarray, G: np.ndarray) -> float:
    """``min over node orders pi of sum_ch min_lam ||F_ch - lam G_pi,ch||^2``: one model ``G`` (m, 4), all ``m!`` orders.

    The per-channel complex scale ``lam`` (SPEC 8.4) in closed form, as the direct fit's objective
    (:func:`order_misfits`).

    Returns
    -------
    float
        The smallest squared misfit over the node orders (divide by ``||F||^2`` for the relative one).
    """
    return float(order_misfits(F[None], G[None, None])[0, 0].min())


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

    ``rep``: the block's :class:`cogo.analysis.report.network_report.BlockReport` (type, factors, error);
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
    return nearest_from_readings([(rep, x)], preset)[0]


def nearest_from_readings(items: Sequence[tuple], preset: str = "default") -> list[dict | None]:
    """:func:`nearest_from_reading` of every ``(rep, x)`` of ``items`` (a network's blocks), the misfits of all
    blocks of one order over every node order in one :func:`order_misfits` call (the same numbers)."""
    plans = [_reading_form(rep, preset) for rep, _ in items]
    out: list = [None] * len(items)
    by_order: dict = {}
    for i, plan in enumerate(plans):
        if plan is not None:
            by_order.setdefault(np.shape(items[i][1])[1], []).append(i)
    for m, idx in by_order.items():
        X = np.stack([np.asarray(items[i][1], dtype=np.complex128).reshape(3, m) for i in idx])
        if not np.isfinite(X).all():
            raise ValueError("block vectors contain NaN or infinite values")
        ab, bb, cb = _balanced(X)                                       # as block_features reads each block
        F = node_features(ab, bb, cb)                                   # (B, m, 4)
        scale = np.cbrt(np.maximum(np.abs(ab * bb * cb).mean(axis=1), 1e-300))
        keys = _feature_keys((F / scale[:, None, None]).reshape(-1, 4))
        Fs, fns, keep = [], [], []
        for r, i in enumerate(idx):
            kb = keys[r * m:(r + 1) * m]
            Fb = F[r][np.array(sorted(range(m), key=lambda j: kb[j]), dtype=np.int64)]
            fn = float((np.abs(Fb) ** 2).sum())
            if fn > 0:
                Fs.append(Fb)
                fns.append(fn)
                keep.append(i)
        if not keep:
            continue
        models = np.stack([np.stack([(ps := plans[i][1].model(plans[i][2])).a, ps.b, ps.c]) for i in keep])
        G = _balanced_features(np.asarray(models, dtype=np.complex128))
        res = order_misfits(np.stack(Fs), G[:, None])
        for i, r, fn in zip(keep, res[:, 0], fns):
            typ, nf, folded = plans[i]
            d = math.sqrt(float(r.min()) / fn)
            if not d <= 4.0 * NEAREST_FROM_READING:  # the model at the read parameters does not fit: search instead
                continue
            params = {n: round(v, 3) + 0.0 for n, v in zip(nf.params, folded)}
            out[i] = {"type": typ, "distance": d, "params": [{"degrees": params}], "method": "kronecker"}
    return out


def _balanced(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`cogo.analysis.factor.kronecker.balance_gauge` of a stack of blocks ``X`` (B, 3, m): the same operations, entry by entry."""
    a, b, c = X[:, 0], X[:, 1], X[:, 2]
    ma, mb, mc = np.abs(a), np.abs(b), np.abs(c)
    ok = (ma > 0) & (mb > 0) & (mc > 0)
    t = np.ones(a.shape)
    t[ok] = np.cbrt(mc[ok] / np.sqrt(ma[ok] * mb[ok]))
    return a * t, b * t, c / t ** 2


def _balanced_features(X: np.ndarray) -> np.ndarray:
    """``(a^2, a b, b^2, c)`` of the balanced nodes of a stack of blocks ``X`` (B, 3, m): (B, m, 4)."""
    return node_features(*_balanced(X))


def _reading_form(rep: Any, preset: str) -> tuple | None:
    """``(type, form, folded parameters)``: the form the block is read as, at its read parameters, or None when
    :func:`nearest_from_reading` does not apply (it runs the search)."""
    if preset != "default" or not rep.factors or any(f["name"] == "unknown" for f in rep.factors):
        return None
    form = _form_of(rep)
    if form is None:
        return None
    typ, nf = form
    # each factor's residual as the form it is evaluated as: a special case (z_nu=i) read within a general form
    # (z_nu * z_syn) carries that form's parameters, so its general residual is the reading's error there
    names = typ.split(" * ")
    res = [f.get("residual") if f["name"] in names or not f.get("special") else f.get("general_residual")
           for f in rep.factors]
    if any(r is None for r in res):
        return None
    read = max([rep.error or 0.0] + [float(r) for r in res])
    if not read <= NEAREST_FROM_READING:
        return None
    values = {}
    for f in rep.factors:
        for k, v in f["params"].items():
            values.setdefault(k, v)
    if any(n not in values for n in nf.params):
        return None
    t = tuple(math.degrees(float(np.angle(complex(values[n])))) for n in nf.params)
    return typ, nf, tuple(nf.fold(t))


def _feature_misfit(F: np.ndarray, G: np.ndarray, perms: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Smallest ``sum_ch min_lam ||F_ch - lam G_pi,ch||^2`` over node orders ``pi``, per model.

    ``F`` (m, 4) block features, ``G`` (K, m, 4) model features; ``perms``
    the node orders tried (default: all ``m! <= 720``).  The per-channel
    complex scale ``lam`` (the per-``p`` scale of SPEC 8.4) is solved in
    closed form.  Returns the residuals (K,) and, per node order, the
    residual of the best model (P,).
    """
    res = order_misfits(F[None], G[None], perms)[0]   # (K, P)
    fn = (np.abs(F) ** 2).sum(axis=0)
    k = int(np.argmin(np.round(res.min(axis=1) / max(float(fn.sum()), 1e-300), 9)))  # ties: float noise decides nothing
    return res.min(axis=1), res[k]


#: Refinement rounds of :func:`nearest_family` (3 points per parameter, the step halved each round).
_REFINE_ROUNDS = 7
#: Node orders kept from the coarse grid for the refinement rounds.
_KEEP_ORDERS = 24
_COARSE: dict = {}
_cat.on_change(_COARSE.clear)  # a registered form changes what the cached coarse grids mean


def _models(model, cand: np.ndarray, memo: dict | None = None) -> np.ndarray:
    """Balanced features (K, m, 4) of the catalogue models at the parameter rows ``cand`` (degrees).

    The models are built one by one, balanced and featurized all at once (the same operations,
    entry by entry); ``memo`` (parameter tuple -> features) reuses the models already built.
    """
    memo = {} if memo is None else memo
    keys = [tuple(float(v) for v in t) for t in cand]
    new = [k for k in dict.fromkeys(keys) if k not in memo]
    if new:
        pss = [model(k) for k in new]
        m = len(pss[0].a)
        a, b, c = (np.concatenate([np.asarray(getattr(ps, p), dtype=np.complex128).reshape(-1) for ps in pss])
                   for p in "abc")
        ab, bb, cb, _ = balance_gauge(a, b, c)
        F = node_features(ab, bb, cb).reshape(len(new), m, 4)
        for k, f in zip(new, F):
            memo[k] = f
    return np.stack([memo[k] for k in keys])


def _coarse_models(typ: str, model, step: float, period: tuple) -> tuple[np.ndarray, np.ndarray]:
    """The coarse parameter grid of a family and its models (cached: they do not depend on the block)."""
    if typ not in _COARSE:
        cand = np.array(list(itertools.product(*[np.arange(0.0, per, step) for per in period])))
        _COARSE[typ] = (cand, _models(model, cand))
    return _COARSE[typ]


def nearest_family(a: Any, b: Any, c: Any) -> dict:
    """The catalogue family nearest to a block, fitted directly (SPEC 7, gauge of SPEC 8.4).

    Every family of the block's order (order 2: ``z_nu``, ``z_xi``; 3:
    ``z_syn,ab``; 4: ``z_nu=i * z_xi``; 6: ``z_nu * z_syn``,
    ``z_nu=i * z_syn,ab``) is fitted over its continuous parameters (unit
    modulus ``nu``, ``xi``, ``alpha``, ``beta``; ``s = -1`` is ``s = +1`` with
    the nodes swapped) and the gauge: node order (all ``m!``), per-node
    ``(t a, t b, c / t^2)`` and sign (the balanced, sign-invariant features
    ``(a^2, a b, b^2, c)``), per-factor and per-``p`` scaling (a complex scale
    per feature channel).  A coarse grid over the parameters (2 degrees, 4 for
    a lone factor; 15 and 20 for ``alpha, beta``), then 3-point grids per
    parameter around the best, the step halved each round
    (:data:`_REFINE_ROUNDS` rounds: to about 0.02-0.1 degrees).  ``distance``: the relative feature misfit
    ``sqrt(min ||F - lam G||^2 / ||F||^2)`` (features are quadratic in
    ``a, b``: about twice the relative misfit of the entries); ``params``:
    canonical representatives in degrees (``nu`` of ``z_nu * z_syn`` in
    [0, 30], of a lone ``z_nu`` in [0, 90]; ``xi`` of ``z_nu=i * z_xi`` in
    [0, 90); ``alpha, beta`` of ``z_nu=i * z_syn,ab`` modulo 90).  The special
    cases are points of their families (``z_nu=i * z_syn`` is ``z_nu * z_syn``
    at ``nu = 90`` degrees, 30 after folding, and ``z_nu=i * z_syn,ab`` at 0, 0);
    ties go to the family listed first.
    """
    x = np.stack([np.asarray(v, dtype=np.complex128).reshape(-1) for v in (a, b, c)])
    q = x.shape[1]
    forms = {q_: [(typ, nf.model, nf.params, nf.step, nf.period, nf.fold) for typ, nf in v]
             for q_, v in _cat.nearest_forms().items()}
    none = {"type": None, "distance": None, "params": [], "method": "none"}
    if q not in forms or not np.all(np.isfinite(x)):
        return none
    bf = block_features(x)  # balanced, order-free
    if bf is None:
        return none
    F, fn = bf
    best = None
    for typ, model, names, step, period, fold in forms[q]:
        cand, G = _coarse_models(typ, model, step, period)
        memo: dict = {}
        perms = None
        for _ in range(_REFINE_ROUNDS):
            r, per_perm = _feature_misfit(F, G, perms)
            # ties (symmetric blocks fit many node orders and parameters equally) are read to 1e-9, so float
            # noise does not pick among them; the stable order then decides
            per_perm = np.round(per_perm / fn, 9)
            if perms is None:  # the refinement keeps the node orders that fit best on the coarse grid
                perms = _perms(q)[np.argsort(per_perm, kind="stable")[:_KEEP_ORDERS]]
            else:
                perms = perms[np.argsort(per_perm, kind="stable")]
            i = int(np.argmin(np.round(r / fn, 9)))
            t0, r0 = cand[i], float(r[i])
            step /= 2.0
            cand = np.array(list(itertools.product(*[t + np.arange(-1, 2) * step for t in t0])))
            G = _models(model, cand, memo)
        d = math.sqrt(r0 / fn)
        if best is None or d < best[1] - 1e-12:
            best = (typ, d, {n: round(v, 3) + 0.0 for n, v in zip(names, fold(tuple(t0)))})
    typ, d, params = best
    return {"type": typ, "distance": d, "params": [{"degrees": params}], "method": "direct fit"}
