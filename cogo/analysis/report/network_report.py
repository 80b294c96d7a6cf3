"""The report of one network's block reading: :class:`NetworkReport` and its :class:`BlockReport` (SPEC 8).

:func:`cogo.analysis.classify.read_network` fills them (each block by
:func:`cogo.analysis.classify.classify_block`); :mod:`cogo.analysis.report.render` renders them and
:mod:`cogo.analysis.report.records` flattens them into a table.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cogo.algebra.groups import FiniteAbelianGroup
from cogo.analysis.report.render import report_json

__all__ = ["BlockReport", "NetworkReport"]


@dataclass
class BlockReport:
    """One block (SPEC 6, 8.3-8.6) of a network.

    ``k``: frequency index (the residue for ``Z_d``), ``k_coords`` its
    coordinates; ``order``: number of nodes; ``nodes``: their indices in the
    network; ``type``: one of :func:`cogo.catalogue.block_types` or a product of
    :func:`cogo.catalogue.factor_names` (:mod:`cogo.analysis.naming`); ``factors``: dicts with ``name``,
    canonical ``params`` (complex values; ``s`` an int), fit ``residual`` and
    the normalized ``vectors`` (3, m) (unknown factors also carry ``closest``; a factor named as a special case,
    ``z_nu=i`` or ``z_syn``, carries ``special`` and its general form's ``general_residual``: its ``params`` are that
    form's);
    ``error``: relative reconstruction error of the reported factorization
    (for a non-factorable block: the smallest error found over all shapes,
    an upper bound on the true minimum; None for prime orders); ``shape``:
    its grid shape; ``optimal``: every condition of SPEC 5 holds on the block
    alone within ``opt_tol``, ``failed_conditions`` lists those that do not
    (``R_g``, ``R_c``, ``R_n``, ``R_*``); ``r_kkk``: ``sum_j a_j b_j c_j``;
    ``sums``: the eleven monomial sums of SPEC 6 and the R_n sum;
    ``abc_scale``: the common per-node ``a_j b_j c_j`` of the factorization
    (``1/q`` for the catalogue); ``grid``: network node indices on the grid.

    >>> from cogo.analysis.classify import classify_block
    >>> from cogo.analysis.report.summary import paper_column
    >>> from cogo.catalogue.partial import z_nu_i, z_xi
    >>> y = 4 ** (-1 / 3) * (z_nu_i() * z_xi(1, 1))     # an order-4 block of z_F4/6 (SPEC 7.3)
    >>> b = classify_block(y.a, y.b, y.c, k=2)
    >>> b.order, b.type, b.shape, b.optimal, b.failed_conditions, paper_column(b)
    (4, 'z_nu=i * z_xi', (2, 2), False, ['R_n'], 'nu=i*xi')
    """

    k: int
    k_coords: tuple
    order: int
    nodes: list
    type: str
    factors: list  # of dict(name, params, residual, vectors)
    error: float | None
    shape: tuple | None
    factorable: bool
    optimal: bool
    failed_conditions: list
    r_kkk: complex
    sums: dict
    abc_scale: complex | None = None
    mixed_nodes: int = 0
    self_conjugate: bool = False
    grid: list | None = None
    kind: str = "generic"
    residuals: dict = field(default_factory=dict)
    #: nearest catalogue type, its distance and parameters (:func:`cogo.analysis.classify.classify_block`)
    nearest: dict | None = None
    #: spread of the node amplitudes |a_j b_j c_j|: (max - min) / mean over the block
    amplitude_spread: float | None = None
    #: why the block was not factored (order above MAX_ORDER, or the search bound reached); None otherwise
    search_note: str | None = None
    #: the tolerance ``optimal`` was judged with (:mod:`cogo.analysis.classify`, step 8)
    opt_tol: float | None = None
    #: distance to the block's snapped certified form (:mod:`cogo.analysis.verdict.snap`; None when not computed)
    distance: float | None = None
    #: the reference's factorization error ``err`` of a block of 4 or 6 nodes (:mod:`cogo.analysis.report.paper_measures`;
    #: not :attr:`error`, cogo's relative reconstruction error); None for other orders or when undefined
    reference_err: float | None = None


@dataclass
class NetworkReport:
    """The analysis of one network (SPEC 8): node counts, per-node block frequency and the blocks.

    >>> from cogo.analysis.classify import read_network
    >>> from cogo.solvers.constructions import z_F46
    >>> rep = read_network(*z_F46(7).to_weights(real=True), group=7)
    >>> rep.hidden, rep.live_nodes, rep.dead_nodes, [(b.k, b.order) for b in rep.blocks]
    (14, 14, 0, [(1, 6), (2, 4), (3, 4)])
    >>> rep.verdict.optimal                             # the whole network is a global optimizer
    True
    """

    group: FiniteAbelianGroup
    hidden: int
    live_nodes: int
    dead_nodes: int
    zero_frequency_nodes: int
    mixed_nodes: int
    node_frequency: list  # per node: frequency index of its block, -1 dead, 0 zero-frequency
    blocks: list
    settings: Any  # the cogo.analysis.classify.Settings of the reading
    path: str = ""
    meta: dict = field(default_factory=dict)
    seconds: float = 0.0
    verdict: Any = None  # cogo.analysis.verdict.network_verdict.Verdict of the whole network
    snap: Any = None  # cogo.analysis.verdict.snap.Snap: the nearest certified optimizer and the distances to it

    def to_dict(self) -> dict:
        """This checkpoint's reading as plain JSON values (one entry of ``cogo classify --json``'s ``checkpoints``)."""
        return report_json(self)
