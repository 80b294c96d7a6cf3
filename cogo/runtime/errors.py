"""The one exception type for user errors.

Every error a user can cause (bad flag value, malformed or hostile input file,
unsupported group, a size that cannot fit, an unwritable output) raises
:class:`CogoError` with a one-line message.  The command-line interface turns
it, and only it, into ``cogo: error: <message>`` with exit status 2; any other
exception is an internal bug and keeps its traceback.
"""
from __future__ import annotations

__all__ = ["CogoError"]


class CogoError(ValueError):
    """A user error: one line, shown as ``cogo: error: ...``, exit status 2.

    A subclass of :class:`ValueError`, so ``except ValueError`` still catches it.
    """
