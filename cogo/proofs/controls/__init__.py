"""Negative controls: broken inputs whose failing conditions and loss are derived by hand, for every route of
``cogo verify``."""
