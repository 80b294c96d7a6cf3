"""Theorem checks (SPEC 3-7), exact certificates, negative controls and the verdict on a trained network.

:mod:`cogo.proofs.theorems` (the eight theorems, :func:`run_all`), :mod:`cogo.proofs.certificates`
(block and z_M certificates, the exact general loss), :mod:`cogo.proofs.controls` (negative controls
with predicted failing conditions and loss), :mod:`cogo.proofs.results` (records, table, JSON).
"""
from cogo.proofs.registry import run_all
from cogo.proofs.results import TheoremResult, all_ok, format_table

__all__ = ["TheoremResult", "run_all", "all_ok", "format_table"]
