"""Theorem checks (SPEC 3-7), certificates and negative controls."""
from cogo.verify.results import TheoremResult, all_ok, format_table
from cogo.verify.theorems import run_all

__all__ = ["TheoremResult", "run_all", "all_ok", "format_table"]
