"""The classification as a flat table: one row per block (SPEC 8), for CSV files and dataframes.

A :class:`cogo.analysis.classify.ClassifyResult` is nested (checkpoints, their
blocks, each block's Kronecker factors and their parameters).  :func:`to_records`
flattens it into one ``dict`` per block with these columns:

* ``checkpoint`` (path), ``group``, ``seed`` and ``weight_decay`` (from the
  checkpoint's metadata, empty when absent);
* ``k`` (frequency index), ``k_coords``, ``order`` (nodes in the block),
  ``type`` (the block's name, SPEC 8.5), ``factorable``, ``shape`` (``2x3``),
  ``error`` (relative reconstruction error of the factorization);
* per factor ``i = 1, 2, ...``: ``f{i}_name`` and each parameter ``p`` of the
  factor as ``f{i}_{p}_abs`` and ``f{i}_{p}_deg`` (modulus and argument in
  degrees of the complex value: ``nu``, ``xi``, ``alpha``, ``beta``) or
  ``f{i}_{p}`` (a real one such as the sign ``s``);
* ``nearest`` and ``nearest_distance`` (the closest catalogue type, SPEC 7, and
  the block's distance to its snapped certified form, :mod:`cogo.analysis.verdict.snap`: the number
  ``cogo verify --checkpoint`` prints for the block and ``cogo classify --json`` gives as the block's
  ``distance``; empty when not computed, ``--no-verdict``), ``fit_misfit`` (the misfit of the fit that
  named the nearest type, the relative misfit of the balanced node features: a search quantity, not the
  distance);
* ``optimal`` (every condition of SPEC 5 holds on the block alone),
  ``failed_conditions`` (``;``-separated), the residuals ``R_g``, ``R_c``,
  ``R_n``, ``R_*``, ``|r_kkk|`` and ``mixed_nodes``.

The columns are the union over all rows (fixed ones first, then the factor
columns in order of first appearance); a missing value is ``None`` (an empty
CSV field).  :func:`to_pandas` gives the same table as a ``pandas.DataFrame``
when pandas is installed; cogo does not depend on pandas.

The block types and conditions tabulated here are those of CoGO [1]_.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import cmath
import csv
import io
import math
import os
from typing import Any

from cogo.io.outputs import atomic_write_text

__all__ = ["FIXED_COLUMNS", "to_records", "to_pandas", "to_csv_text", "write_csv"]

#: the columns every row has, in this order (factor columns follow)
FIXED_COLUMNS = ("checkpoint", "group", "seed", "weight_decay", "k", "k_coords", "order", "type", "factorable",
                 "shape", "error", "nearest", "nearest_distance", "fit_misfit", "optimal", "failed_conditions",
                 "R_g", "R_c", "R_n", "R_*", "|r_kkk|", "mixed_nodes")


def _num(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, complex):
        return v
    try:
        return float(v)
    except (TypeError, ValueError):
        return v


def _factor_columns(i: int, f: dict) -> dict:
    out: dict = {f"f{i}_name": f.get("name")}
    for p, v in (f.get("params") or {}).items():
        if p.startswith("|"):          # a derived modulus ('|xi|'), already in f{i}_xi_abs
            continue
        if isinstance(v, complex) or (hasattr(v, "imag") and not isinstance(v, (int, float))):
            z = complex(v)
            out[f"f{i}_{p}_abs"] = abs(z)
            out[f"f{i}_{p}_deg"] = math.degrees(cmath.phase(z))
        else:
            out[f"f{i}_{p}"] = _num(v)
    return out


def _block_row(rep: Any, b: Any) -> dict:
    meta = getattr(rep, "meta", None) or {}
    near = b.nearest or {}
    res = b.residuals or {}
    row = {
        "checkpoint": rep.path, "group": str(rep.group), "seed": meta.get("seed"),
        "weight_decay": meta.get("weight_decay"), "k": int(b.k),
        "k_coords": ",".join(str(int(c)) for c in b.k_coords), "order": int(b.order), "type": b.type,
        "factorable": bool(b.factorable), "shape": "x".join(map(str, b.shape)) if b.shape else None,
        "error": _num(b.error), "nearest": near.get("type"), "nearest_distance": _num(getattr(b, "distance", None)),
        "fit_misfit": _num(near.get("distance")),
        "optimal": bool(b.optimal), "failed_conditions": ";".join(b.failed_conditions),
        "R_g": _num(res.get("R_g")), "R_c": _num(res.get("R_c")), "R_n": _num(res.get("R_n")),
        "R_*": _num(res.get("R_*")), "|r_kkk|": abs(complex(b.r_kkk)), "mixed_nodes": int(b.mixed_nodes),
    }
    for i, f in enumerate(b.factors or [], start=1):
        row.update(_factor_columns(i, f))
    return row


def to_records(result: Any) -> list[dict]:
    """One dict per block of every checkpoint of ``result`` (a ClassifyResult or a list of NetworkReports).

    Every dict has the same keys (:func:`columns` order); values are plain
    Python numbers, strings, booleans or None.

    Examples
    --------
    >>> from cogo.analysis.classify import read_network
    >>> from cogo.solvers.constructions import z_F46
    >>> rows = to_records([read_network(*z_F46(7).to_weights(real=True), group=7)])
    >>> [(r["k"], r["order"], r["type"], r["optimal"]) for r in rows]
    [(1, 6, 'z_nu * z_syn', True), (2, 4, 'z_nu=i * z_xi', False), (3, 4, 'z_nu=i * z_xi', False)]
    >>> rows[1]["failed_conditions"], rows[1]["f1_name"], round(rows[1]["f1_nu_deg"], 6)
    ('R_n', 'z_nu=i', 90.0)
    """
    reports = getattr(result, "reports", result)
    rows = [_block_row(rep, b) for rep in reports for b in rep.blocks]
    cols = columns(rows)
    return [{c: r.get(c) for c in cols} for r in rows]


def columns(rows: list[dict]) -> list[str]:
    """The fixed columns, then every other key in order of first appearance."""
    cols = list(FIXED_COLUMNS)
    seen = set(cols)
    for r in rows:
        for c in r:
            if c not in seen:
                seen.add(c)
                cols.append(c)
    return cols


def to_pandas(result: Any):
    """The table of :func:`to_records` as a ``pandas.DataFrame`` (one row per block); needs pandas.

    Raises ImportError with the install hint when pandas is missing (cogo does not depend on it).

    Returns
    -------
    pandas.DataFrame
        One row per block, the columns of :func:`to_records` (the fixed columns when there is no block).

    Raises
    ------
    ImportError
        When pandas is not installed (with the install hint).
    """
    try:
        import pandas as pd  # late: pandas
    except ImportError:
        raise ImportError("to_pandas() needs pandas, which cogo does not install: pip install pandas "
                          "(or use to_records(), a list of dicts)") from None
    rows = to_records(result)
    return pd.DataFrame(rows, columns=columns(rows) if rows else list(FIXED_COLUMNS))


def to_csv_text(result: Any) -> str:
    """The table of :func:`to_records` as CSV text (a header row; floats with ``repr`` precision, None empty).

    Examples
    --------
    >>> from cogo.analysis.classify import read_network
    >>> from cogo.solvers.constructions import z_F6
    >>> text = to_csv_text([read_network(*z_F6(5).to_weights(real=True), group=5)])
    >>> text.splitlines()[0].split(",")[:8]
    ['checkpoint', 'group', 'seed', 'weight_decay', 'k', 'k_coords', 'order', 'type']
    >>> len(text.splitlines())                       # header + the two blocks of z_F6 on Z_5
    3
    """
    rows, cols = _table(result)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if v is None else v) for k, v in r.items()})
    return buf.getvalue()


def _table(result: Any) -> tuple[list[dict], list[str]]:
    """The rows and columns of ``result``'s one table: its own :class:`Records` (the irreps reading, one row per
    checkpoint and irrep family) or the block table of :func:`to_records`."""
    own = getattr(result, "to_records", None)
    rows = own() if callable(own) else to_records(result)
    if isinstance(rows, Records):
        return list(rows), rows.columns
    return rows, columns(rows) if rows else list(FIXED_COLUMNS)


def write_csv(result: Any, path: str | os.PathLike) -> str:
    """Write :func:`to_csv_text` atomically to ``path`` (checked by the caller, :mod:`cogo.io.outputs`); returns it."""
    atomic_write_text(path, to_csv_text(result))
    return str(path)


class Records(list):
    """A list of records (dicts) with :meth:`to_pandas`: the one table type of cogo's readings.

    Used by :func:`cogo.dynamics.progress.progress_table` (one record per snapshot); the
    block table of :func:`to_records` is a plain list of the same kind of dicts.

    ``fixed``: the columns every table of this kind has, first and in this order (also those of an empty table).

    >>> Records([{"epoch": 0, "x": 1.0}]).columns
    ['epoch', 'x']
    >>> Records([], fixed=("checkpoint", "irrep")).columns
    ['checkpoint', 'irrep']
    """

    def __init__(self, rows: Any = (), fixed: Any = ()) -> None:
        super().__init__(rows)
        self.fixed = tuple(fixed)

    @property
    def columns(self) -> list:
        cols: list = list(self.fixed)
        for r in self:
            for k in r:
                if k not in cols:
                    cols.append(k)
        return cols

    def to_pandas(self):
        """A ``pandas.DataFrame`` (pandas is optional: ImportError with a one-line reason without it)."""
        try:
            import pandas as pd  # late: pandas
        except ImportError:
            raise ImportError("to_pandas() needs pandas, which cogo does not install: pip install pandas "
                              "(or use the records, a list of dicts)") from None
        return pd.DataFrame(list(self), columns=self.columns)

