"""Theorem checks (SPEC 3-7), exact certificates, negative controls and the verdict on a trained network.

The floor has four rooms and a frame:

- ``theorems/``: one module per theorem row of ``cogo verify`` (:mod:`~cogo.proofs.theorems.laws` 1-2,
  :mod:`~cogo.proofs.theorems.loss_decomposition` 3, :mod:`~cogo.proofs.theorems.zero_sets` 4-5,
  :mod:`~cogo.proofs.theorems.optimality` 6, :mod:`~cogo.proofs.theorems.node_counts` 7,
  :mod:`~cogo.proofs.theorems.occam` 8);
- ``certificates/``: the exact certificates and the exact tools they stand on (the block certificate and the
  general loss, the design reader, the z_M routes, the exact zero test, formal indeterminates);
- ``controls/``: the negative controls (broken inputs with their failing conditions and loss derived by hand);
- ``every_order/``: ``cogo verify --every-order`` (symbolic frequencies and their arithmetic);
- the frame: :mod:`cogo.proofs.registry` (every row, :func:`run_all`), :mod:`cogo.proofs.rows` (a row),
  :mod:`cogo.proofs.results` (records, table, JSON), :mod:`cogo.proofs.trained` (``cogo verify --checkpoint``) and
  :mod:`cogo.proofs.export` (the certificates of every exact claim, for the independent checker ``cogo-check``).
"""
from cogo.proofs.registry import run_all
from cogo.proofs.results import TheoremResult, all_ok, format_table

__all__ = ["TheoremResult", "run_all", "all_ok", "format_table"]
