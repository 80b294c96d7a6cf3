"""The ``cogo`` commands: one module per command (the parser and ``main`` stay in :mod:`cogo.cli`)."""
