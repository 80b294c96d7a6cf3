"""Reading trained networks (SPEC 8): blocks, Kronecker factorization, naming, classification, reports.

Submodules are imported on demand (``cogo.analysis.classify`` etc.) so that importing
this package stays cheap.
"""
