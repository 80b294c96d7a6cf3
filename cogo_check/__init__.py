"""cogo-check: an independent checker of the certificates ``cogo verify --certificates DIR`` writes.

It imports nothing from cogo and needs only the Python standard library (docs/verify.md,
"Certificates anyone can check").
"""
from cogo_check.check import check_dir, main

__all__ = ["check_dir", "main"]
