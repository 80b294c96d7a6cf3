"""cogo: exact and numeric verification of the solutions quadratic networks learn.

The mathematics is docs/math.md ("SPEC n" in the docstrings is its section n); start with README.md.
"""
__version__ = "0.1.0"
