"""Proofs for every group order at once (``cogo verify --every-order``): symbolic frequencies, their arithmetic, the
run."""
