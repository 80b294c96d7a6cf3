"""Reading trained networks (SPEC 8): blocks, Kronecker factorization, naming, classification, reports.

Rooms: ``factor/`` (the Kronecker factorization of a block), ``verdict/`` (the network's loss and conditions, the
nearest certified optimizer, the snap), ``report/`` (records, aggregates, the paper's measures, rendering); beside
them the reading itself: :mod:`~cogo.analysis.block_extraction` (the blocks of a network),
:mod:`~cogo.analysis.naming` (a block's catalogue name), :mod:`~cogo.analysis.classify`,
:mod:`~cogo.analysis.reading`, :mod:`~cogo.analysis.many_networks`, :mod:`~cogo.analysis.nodes`, :mod:`~cogo.analysis.irreps`.
Submodules are imported on demand (``cogo.analysis.classify`` etc.) so that importing this package stays cheap.
"""
