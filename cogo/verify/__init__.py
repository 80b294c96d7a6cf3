"""Theorem checks (SPEC 3-7), exact certificates and negative controls.

:mod:`cogo.verify.theorems` (the eight theorems, :func:`run_all`), :mod:`cogo.verify.certificates`
(block and z_M certificates, the exact general loss), :mod:`cogo.verify.controls` (negative controls
with predicted failing conditions and loss), :mod:`cogo.verify.results` (records, table, JSON).
"""
import sys
from typing import Any

from cogo.verify.results import TheoremResult, all_ok, format_table
from cogo.verify.registry import run_all

__all__ = ["TheoremResult", "run_all", "all_ok", "format_table"]


class _CallablePackage(type(sys.modules[__name__])):
    """``cogo.verify(group=23)`` / ``cogo.verify(checkpoint="run.pt")``: this package is callable (see :func:`cogo.api.verify`)."""

    def __call__(self, group: Any = None, method: str = "both", checkpoint: Any = None, **options: Any):
        from cogo.api import verify

        return verify(group=group, method=method, checkpoint=checkpoint, **options)  # tol, max_distance, keys, ...


sys.modules[__name__].__class__ = _CallablePackage
