"""What every part of the checker shares: its failure type and a file's sha256 (standard library only)."""
from __future__ import annotations

import hashlib


class Bad(Exception):
    """A claim that does not hold (or cannot be read); the message says why."""


def sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
