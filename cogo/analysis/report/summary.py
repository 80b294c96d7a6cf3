"""The aggregate of many networks' block readings: mean +- standard error per statistic (SPEC 8).

Each statistic is computed per checkpoint, then averaged over the checkpoints with its standard
error (:func:`summarize`); the reference's table columns are :func:`paper_column` (the definitions
are the catalogue's, :func:`cogo.catalogue.paper_column`), and its error columns (``reference_table``:
% not order 4/6, % non-factorable and the mean factorization error per order) are
:func:`cogo.analysis.report.paper_measures.reference_row`, by the reference's definitions.  cogo's own
non-factorable share and reconstruction error (``frac_nonfactorable_order_*``,
``mean_relative_error_order_*``) use cogo's factorization and are a different measure.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [2] facebookresearch/luckmatters, ssl/real-dataset/cogo/ (the paper's code).
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from cogo import catalogue as _cat
from cogo.analysis.report.network_report import BlockReport, NetworkReport
from cogo.analysis.report.paper_measures import REFERENCE_KEYS, reference_row

__all__ = ["summarize", "paper_column"]


def _mse(values: Sequence[float]) -> dict:
    """Mean and standard error (``std(ddof=1) / sqrt(n)``) over checkpoints; None where undefined."""
    v = np.asarray([x for x in values if x is not None and math.isfinite(x)], dtype=float)
    n = len(v)
    mean = float(v.mean()) if n else None
    se = float(v.std(ddof=1) / math.sqrt(n)) if n > 1 else None
    return {"mean": mean, "se": se, "n": n}


def _frac(num: int, den: int) -> float | None:
    return num / den if den else None


def summarize(reports: Sequence[NetworkReport]) -> dict:
    """Aggregate over checkpoints: each statistic is computed per checkpoint, then mean +- standard error.

    A per-checkpoint statistic that is undefined (e.g. no order-4 block) is
    left out of that statistic's mean; ``n`` says how many checkpoints count.

    Returns
    -------
    dict
        ``checkpoints``, ``blocks`` and ``order_counts`` (counts over all checkpoints); every other
        statistic as ``{"mean", "se", "n"}`` (``n``: the checkpoints where it is defined);
        ``reference_table``: the reference's five error columns under its names
        (:func:`cogo.analysis.report.paper_measures.reference_row`; unscaled: the paper shows 100 x all
        but ``0_non_4_6_0``).

    Examples
    --------
    >>> from cogo.analysis.classify import read_network
    >>> from cogo.solvers.constructions import z_F6, z_F46
    >>> reps = [read_network(*z.to_weights(real=True), group=7, with_verdict=False) for z in (z_F6(7), z_F46(7))]
    >>> s = summarize(reps)
    >>> s["checkpoints"], s["order_counts"], s["live_nodes"]["mean"]
    (2, {'4': 2, '6': 4}, 16.0)
    >>> round(s["frac_blocks_optimal"]["mean"], 9)     # per checkpoint 3/3 and 1/3, then the mean
    0.666666667
    """
    per = []
    types: set = set()
    for r in reports:
        bl = r.blocks
        o4 = [b for b in bl if b.order == 4]
        o6 = [b for b in bl if b.order == 6]
        fact = [b for b in bl if b.factorable]
        counts: dict = {}
        for b in fact:
            counts[b.type] = counts.get(b.type, 0) + 1
        types.update(counts)
        per.append({
            "blocks": len(bl),
            "not_4_or_6": _frac(sum(1 for b in bl if b.order not in (4, 6)), len(bl)),
            "nonfact_4": _frac(sum(1 for b in o4 if not b.factorable), len(o4)),
            "nonfact_6": _frac(sum(1 for b in o6 if not b.factorable), len(o6)),
            "rel_err_4": float(np.mean([b.error for b in o4 if b.error is not None])) if any(
                b.error is not None for b in o4) else None,
            "rel_err_6": float(np.mean([b.error for b in o6 if b.error is not None])) if any(
                b.error is not None for b in o6) else None,
            "optimal": _frac(sum(1 for b in bl if b.optimal), len(bl)),
            "types": {t: c / len(fact) for t, c in counts.items()} if fact else None,
            "live": r.live_nodes,
            "paper": _paper_columns(bl),
            "reference": reference_row(bl),
        })
    orders: dict = {}
    for r in reports:
        for b in r.blocks:
            orders[b.order] = orders.get(b.order, 0) + 1
    known = _cat.block_types()
    type_order = [t for t in known if t in types] + sorted(types - set(known))
    return {
        "checkpoints": len(reports),
        "blocks": int(sum(p["blocks"] for p in per)),
        "order_counts": {str(k): v for k, v in sorted(orders.items())},
        "live_nodes": _mse([p["live"] for p in per]),
        "frac_blocks_not_order_4_or_6": _mse([p["not_4_or_6"] for p in per]),
        "frac_nonfactorable_order_4": _mse([p["nonfact_4"] for p in per]),
        "frac_nonfactorable_order_6": _mse([p["nonfact_6"] for p in per]),
        "mean_relative_error_order_4": _mse([p["rel_err_4"] for p in per]),
        "mean_relative_error_order_6": _mse([p["rel_err_6"] for p in per]),
        "frac_blocks_optimal": _mse([p["optimal"] for p in per]),
        "type_distribution": {t: _mse([(p["types"] or {}).get(t, 0.0) if p["types"] is not None else None
                                       for p in per]) for t in type_order},
        "paper_columns": {c: _mse([p["paper"][c] if p["paper"] is not None else None for p in per])
                          for c in _cat.PAPER_COLUMNS},
        "reference_table": {k: _mse([p["reference"][k] for p in per]) for k in REFERENCE_KEYS},
    }


def paper_column(b: BlockReport) -> str | None:
    """The reference's column of a block (None: not counted, i.e. order not 4 or 6, or not factorable).

    ``nu=i*xi``: ``z_nu=i * z_xi``; ``nu=i*syn_ab``: ``z_nu=i * z_syn,ab`` and
    ``z_nu=i * z_syn`` (a ``z_nu * z_syn`` block whose 2-factor is the special
    case ``z_nu=i``: the reference counts it here); ``nu*syn``: the other
    ``z_nu * z_syn`` blocks; ``others``: every other factorable block.

    Examples
    --------
    >>> from cogo.analysis.classify import read_network
    >>> from cogo.solvers.constructions import z_F46
    >>> rep = read_network(*z_F46(7).to_weights(real=True), group=7, with_verdict=False)
    >>> [paper_column(b) for b in rep.blocks]
    ['nu*syn', 'nu=i*xi', 'nu=i*xi']
    """

    if b.order not in (4, 6) or not b.factorable:
        return None
    return _cat.paper_column(b.type, [f["name"] for f in b.factors])


def _paper_columns(blocks: Sequence[BlockReport]) -> dict | None:
    cols = [paper_column(b) for b in blocks]
    cols = [c for c in cols if c is not None]
    if not cols:
        return None
    return {c: cols.count(c) / len(cols) for c in _cat.PAPER_COLUMNS}
