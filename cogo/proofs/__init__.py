"""Theorem checks (SPEC 3-7), exact certificates, negative controls and the verdict on a trained network.

:mod:`cogo.proofs.registry` (every row, :func:`run_all`); the eight theorems in ``theorems_*``
(:mod:`~cogo.proofs.theorems_laws` 1-2, :mod:`~cogo.proofs.theorems_loss` 3, :mod:`~cogo.proofs.theorems_zero_sets`
4-5, :mod:`~cogo.proofs.theorems_optimality` 6, :mod:`~cogo.proofs.theorems_node_counts` 7,
:mod:`~cogo.proofs.theorems_occam` 8); the exact certificates (:mod:`~cogo.proofs.certificates`: blocks and the
general loss, :mod:`~cogo.proofs.design_reader`, :mod:`~cogo.proofs.mem_certificate`); the negative controls in
``controls_*`` (predicted failing conditions and loss); :mod:`cogo.proofs.results` (records, table, JSON).
"""
from cogo.proofs.registry import run_all
from cogo.proofs.results import TheoremResult, all_ok, format_table

__all__ = ["TheoremResult", "run_all", "all_ok", "format_table"]
