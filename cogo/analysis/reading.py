"""The one contract of a reading of networks: what `cogo classify` (and Python) gets back.

Two readings exist: the block reading of an Abelian group (SPEC 8,
:class:`cogo.analysis.classify.ClassifyResult` of
:class:`cogo.analysis.report.network_report.NetworkReport`) and the irreducible-representation
reading of any finite group (SPEC 9, :class:`cogo.analysis.irreps.IrrepsResult`
of :class:`cogo.analysis.irreps.IrrepReport`).  Both implement :class:`Reading`,
and their per-checkpoint reports :class:`Report`, so a caller never asks which
one it holds:

* ``reports``: one report per checkpoint, each with ``path``, ``group``,
  ``hidden``, ``live_nodes``, ``meta`` and ``to_dict()``;
* ``summary``: the aggregate over checkpoints, a dict;
* ``to_dict()``: every value as plain JSON (``format`` names the layout);
* ``render_text()``, ``render_markdown()``, ``render_json()``;
* ``write_outputs(json_path, markdown_path, plots_dir, force=False)``: checks
  every path first (:mod:`cogo.io.outputs`), renders in memory, writes
  atomically, returns the paths written.
* ``to_records()``: the reading as one flat table (a list of dicts: one row per
  block for the block reading, one per checkpoint and irrep family for the irreps
  reading), ``to_pandas()`` the same table as a ``pandas.DataFrame`` (pandas is
  optional) and ``cogo classify --csv`` the same table as CSV
  (:func:`cogo.analysis.report.records.to_csv_text`).

``tests/analysis/test_reading.py`` holds both readings to this contract.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [2] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Reading", "Report"]


@runtime_checkable
class Report(Protocol):
    """One checkpoint's reading."""

    path: str
    hidden: int
    meta: dict

    @property
    def live_nodes(self) -> int: ...

    def to_dict(self) -> dict: ...


@runtime_checkable
class Reading(Protocol):
    """The readings of one or more checkpoints (module docstring)."""

    reports: list

    @property
    def summary(self) -> dict: ...

    def to_dict(self) -> dict: ...

    def render_text(self) -> str: ...

    def render_markdown(self) -> str: ...

    def render_json(self) -> str: ...

    def write_outputs(self, json_path: Any = None, markdown_path: Any = None, plots_dir: Any = None,
                      force: bool = False) -> list[str]: ...

    def to_records(self) -> list: ...

    def to_pandas(self) -> Any: ...
