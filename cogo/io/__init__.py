"""Reading and writing files: the ground floor of cogo (checkpoints first).

:mod:`cogo.io.checkpoint` reads one checkpoint once into a :class:`~cogo.io.checkpoint.Checkpoint`;
:mod:`cogo.io.file_formats` holds the per-format readers and their checks.
"""
