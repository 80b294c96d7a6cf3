"""Exact certificates: the block certificate and the general loss, the design reader, the z_M routes, the exact zero test, formal indeterminates, and the export for the independent checker."""
