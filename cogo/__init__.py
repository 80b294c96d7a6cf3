"""cogo: exact and numeric verification of the solutions quadratic networks learn.

See ``../shared/SPEC.md`` (the mathematical reference) and README.md.
"""
__version__ = "0.1.0"
