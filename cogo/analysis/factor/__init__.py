"""The Kronecker factorization of a per-frequency block (SPEC 8.4-8.5): grids, tilings, rank-1 fits, the canonical
answer."""
