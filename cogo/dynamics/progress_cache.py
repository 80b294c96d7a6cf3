"""The progress measures of each snapshot on disk: one ``.npz`` per snapshot, named by what they depend on.

``cogo dynamics`` keeps every snapshot's progress measures (and the peers')
under ``OUT/cache/progress/``, one ``.npz`` file per snapshot written atomically,
named by a SHA-256 of the weights and of everything the measures depend on:
group, loss, activation, weight decay and ridge constant, training pairs, the
first snapshot, the key families (cogo's, Nanda et al.'s, Chughtai et al.'s) and
the recorded Li^2 statistics.  Reading a run again computes nothing it has
read before; a changed run misses the cache; an unreadable file is recomputed.
"""
from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from cogo.io.outputs import atomic_write
from cogo.solvers.li2_record import LI2_STATS

__all__ = ["PROGRESS_CACHE_VERSION", "ProgressCache"]

#: Bump when the progress measures change meaning: cached values of an older version are not reused.
PROGRESS_CACHE_VERSION = "2"   # 2: the peers' measures (cogo.dynamics.peers) are cached too


class ProgressCache:
    """Per-snapshot progress measures of :class:`cogo.dynamics.progress_reader.ProgressReader` on disk.

    ``reader`` gives the context hashed into every name (``G``, ``loss``, ``activation``, ``weight_decay``,
    ``eta``, ``train_idx``, ``W0``; ``key`` and ``peer_keys`` per snapshot name).
    """

    def __init__(self, directory: Any, reader: Any):
        self.reader = reader
        self.dir = Path(directory) / "progress"
        self.dir.mkdir(parents=True, exist_ok=True)
        h = hashlib.sha256(f"{PROGRESS_CACHE_VERSION}|{reader.G.label}|{reader.loss}|{reader.activation}|"
                           f"{reader.weight_decay!r}|{reader.eta!r}".encode())
        for a in ([] if reader.train_idx is None else [reader.train_idx]) + list(reader.W0):
            h.update(str(np.shape(a)).encode())
            h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
        self.context = h

    def _hash(self, tag: str, W: Sequence[np.ndarray], li2: dict | None) -> str:
        h = self.context.copy()
        h.update(tag.encode())
        for w in W:
            h.update(str(np.shape(w)).encode())
            h.update(np.ascontiguousarray(w, dtype=np.float64).tobytes())
        if li2 is not None:
            h.update(np.asarray([np.asarray(li2[k], dtype=np.float64).ravel() for k in LI2_STATS]).tobytes())
        return h.hexdigest()

    def key(self, last: Sequence[np.ndarray], li2: dict | None) -> list | None:
        """cogo's key families read from the last snapshot ``last`` before, or None."""
        got = self.load("key-" + self._hash("key", last, li2))
        return None if got is None else [int(f) for f in got["key"]]

    def save_key(self, last: Sequence[np.ndarray], li2: dict | None, key: list) -> None:
        self.save("key-" + self._hash("key", last, li2), {"key": np.asarray(key, dtype=np.int64)})

    def name(self, Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, li2: dict | None) -> str:
        """The file name (without ``.npz``) of one snapshot's measures."""
        r = self.reader   # the key families (cogo's, Nanda et al.'s, Chughtai et al.'s) decide the restricted losses
        keys = repr((r.key, r.peer_keys.get("nanda"), r.peer_keys.get("chughtai")))
        return self._hash("snapshot" + keys, (Wa, Wb, Wc), li2)

    def load(self, name: str) -> dict | None:
        """The arrays of ``name``, or None when the file is absent or unreadable (then they are recomputed)."""
        path = self.dir / f"{name}.npz"
        try:
            with np.load(path, allow_pickle=False) as z:
                return {k: z[k] for k in z.files}
        except (OSError, ValueError, KeyError):
            return None  # absent or unreadable: recompute

    def save(self, name: str, arrays: dict) -> None:
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        with atomic_write(self.dir / f"{name}.npz", "wb") as fh:
            fh.write(buf.getvalue())
