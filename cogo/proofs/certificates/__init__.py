"""Exact certificates and the exact tools they stand on: the block certificate and the general loss, the design
reader, z_M's routes, the exact zero test, formal indeterminates."""
