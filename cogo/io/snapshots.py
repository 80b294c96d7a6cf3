"""Streaming storage of training snapshots (the weights every N epochs, SPEC 1 layout).

Training with ``snapshot_every = N`` writes, for each model, a directory beside
its checkpoint::

    d23_q512_wd5e-05_seed1.pt
    d23_q512_wd5e-05_seed1.snapshots/
        index.json                      {"format": "cogo-snapshots/1", "group", "n", "hidden",
                                         "dtype", "epochs": [...], "files": [...]}
        epoch_0000000.safetensors       layera.weight (q, n), layerb.weight (q, n), layerc.weight (n, q)
        epoch_0000100.safetensors
        ...

One safetensors file per snapshot, written atomically while training runs
(:class:`SnapshotWriter`), so a run never holds more than one snapshot of each
model in memory; ``index.json`` is rewritten atomically after every file, so an
interrupted run leaves a readable prefix.  safetensors is a plain header plus
raw little-endian arrays: reading it runs no code (no pickle).

The checkpoint's ``meta['snapshots']`` then holds only
``{"format": "cogo-snapshots/1", "dir": "<name>.snapshots", "epoch": [...]}``.
Checkpoints of the older layout, with the stacked snapshot tensors inside
``meta['snapshots']`` (``(S, q, n)``, ``(S, q, n)``, ``(S, n, q)``), are read too.

Reading (:func:`open_snapshots`) treats every file as untrusted: the snapshot
directory must be a plain name beside the checkpoint (no path separators, no
``..``), each file is size-checked before it is opened (at most the size of its
three arrays in float64 plus a 1 MiB header), and every array is checked for
its key, shape, dtype and finiteness.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from cogo.io.arrays import as_array
from cogo.io.file_formats import CheckpointError, WEIGHT_KEYS
from cogo.io.outputs import atomic_write, atomic_write_text
from cogo.io.weights import read_checkpoint

__all__ = ["SNAPSHOT_FORMAT", "SPACINGS", "SnapshotWriter", "sorted_header", "Snapshots", "open_snapshots", "snapshot_dir_name",
           "snapshot_epochs"]

SNAPSHOT_FORMAT = "cogo-snapshots/1"
_HEADER_SLACK = 1 << 20
_MAX_INDEX_BYTES = 16 << 20
_NAME = re.compile(r"^[A-Za-z0-9_.+=-]+\.snapshots$")
_FILE = re.compile(r"^epoch_[0-9]{7,}\.safetensors$")


#: How ``--snapshots N`` places its N epochs (``--snapshot-every`` keeps the plain every-N-epochs rule).
SPACINGS = ("log", "uniform")


def snapshot_epochs(epochs: int, every: int = 0, count: int = 0, spacing: str = "log") -> list[int]:
    """The epochs at which training keeps the weights (sorted, distinct).

    ``every > 0``: ``0, every, 2 every, ...`` up to ``epochs`` (the historical
    ``--snapshot-every`` rule, unchanged).  ``count > 0`` (``--snapshots N``):
    exactly ``min(count, epochs + 1)`` epochs, always ``0`` and ``epochs``;
    ``spacing="uniform"``: ``round(i epochs / (N - 1))``; ``spacing="log"``:
    geometric between 1 and ``epochs``, each next epoch
    ``max(e + 1, round(e (epochs / e)^(1 / m)))`` with ``m`` the epochs still
    to place, so that the early epochs, where most of the change happens, are
    taken one by one until the geometric step exceeds 1.  Neither: ``[]``.

    Returns
    -------
    list of int
        The snapshot epochs in increasing order, ``0`` and ``epochs`` included (``[]`` when neither ``every`` nor
        ``count`` is given).

    Raises
    ------
    ValueError
        For an unknown ``spacing``, or when both ``every`` and ``count`` are given.

    Examples
    --------
    >>> snapshot_epochs(10000, count=12)
    [0, 1, 3, 7, 17, 42, 105, 261, 649, 1615, 4019, 10000]
    >>> snapshot_epochs(100, count=5, spacing="uniform"), snapshot_epochs(100, every=40)
    ([0, 25, 50, 75, 100], [0, 40, 80])
    >>> snapshot_epochs(3, count=60)              # never more epochs than there are
    [0, 1, 2, 3]
    """
    if spacing not in SPACINGS:
        raise ValueError(f"unknown snapshot spacing {spacing!r}; choose one of {', '.join(SPACINGS)}")
    if every and count:
        raise ValueError("give either a snapshot interval (--snapshot-every) or a snapshot count (--snapshots), not both")
    E = int(epochs)
    if every:
        return list(range(0, E + 1, int(every)))
    if not count:
        return []
    N = min(int(count), E + 1)
    if N <= 2:
        return [0, E][:N] if E > 0 else [0]
    if spacing == "uniform":
        return sorted({int(round(i * E / (N - 1))) for i in range(N)})
    out = [0, 1]
    while len(out) < N - 1:
        e = out[-1]
        left = N - len(out)                   # epochs still to place, the last (E) included
        out.append(min(E - left + 1, max(e + 1, int(round(e * (E / e) ** (1.0 / left))))))
    out.append(E)
    return out


def snapshot_dir_name(checkpoint_name: str) -> str:
    """``d23_q512_wd5e-05_seed1.pt`` -> ``d23_q512_wd5e-05_seed1.snapshots``."""
    stem = checkpoint_name[:-3] if checkpoint_name.endswith(".pt") else checkpoint_name
    return stem + ".snapshots"


def sorted_header(blob: bytes) -> bytes:
    """A safetensors file with its JSON header's keys sorted, so equal weights give equal bytes.

    safetensors writes the header from a hash map, so its key order (``__metadata__`` and its keys) changes
    from one call to the next.  The header is 8 bytes of length, then JSON padded with spaces to that length,
    then the data at offsets the JSON gives: the same JSON with sorted keys and no spaces has the same length
    (the same keys and values), so only the order changes and every offset stays valid.

    Examples
    --------
    >>> import numpy as np
    >>> from safetensors.numpy import save
    >>> w = {"b": np.zeros(2), "a": np.ones(3)}
    >>> len({sorted_header(save(w, metadata={"y": "1", "x": "2"})) for _ in range(8)})
    1
    """
    n = int.from_bytes(blob[:8], "little")
    head = json.dumps(json.loads(blob[8:8 + n]), sort_keys=True, separators=(",", ":")).encode()
    if len(head) > n:  # never: the library writes the compact form; keep its bytes rather than break them
        return blob
    return blob[:8] + head.ljust(n, b" ") + blob[8 + n:]


class SnapshotWriter:
    """Append snapshots of one model to ``directory`` (created), one safetensors file each.

    ``write(epoch, Wa, Wb, Wc)`` takes the reference layout (numpy arrays or CPU
    tensors); each file and the updated ``index.json`` are written atomically.
    """

    def __init__(self, directory: str | os.PathLike, group: str, n: int, hidden: int, dtype: str):
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.index = {"format": SNAPSHOT_FORMAT, "group": str(group), "n": int(n), "hidden": int(hidden),
                      "dtype": str(dtype), "epochs": [], "files": []}

    def write(self, epoch: int, Wa: Any, Wb: Any, Wc: Any) -> Path:
        from safetensors.numpy import save  # late: safetensors (start-up)

        arrays = {k: np.ascontiguousarray(as_array(w)) for k, w in zip(WEIGHT_KEYS, (Wa, Wb, Wc))}
        name = f"epoch_{int(epoch):07d}.safetensors"
        path = self.dir / name
        with atomic_write(path, "wb") as fh:
            fh.write(sorted_header(save(arrays, metadata={"epoch": str(int(epoch)), "format": SNAPSHOT_FORMAT})))
        self.index["epochs"].append(int(epoch))
        self.index["files"].append(name)
        atomic_write_text(self.dir / "index.json", json.dumps(self.index, indent=1) + "\n")
        return path

    @property
    def epochs(self) -> list[int]:
        return list(self.index["epochs"])


@dataclass
class Snapshots:
    """The snapshots of one training run: ``epochs`` and a loader per snapshot.

    ``files`` (streamed layout) or ``arrays`` (older in-memory layout) hold the
    weights; :meth:`load` returns float64 ``(Wa, Wb, Wc)`` of one snapshot,
    :meth:`chunks` stacks consecutive snapshots ``(S, q, n)``, ``(S, q, n)``, ``(S, n, q)``.
    ``final`` is the checkpoint's own (last) weights, ``meta`` its metadata.
    """

    path: str
    group: Any
    n: int
    hidden: int
    epochs: list
    files: list | None = None
    arrays: tuple | None = None
    meta: dict = field(default_factory=dict)
    final: tuple | None = None

    def __len__(self) -> int:
        return len(self.epochs)

    def source(self, i: int) -> str:
        """A name of snapshot ``i`` for messages and cache keys."""
        return str(self.files[i]) if self.files is not None else f"{self.path}#snapshot{i}"

    def load(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self.files is not None:
            return read_snapshot_file(self.files[i], self.n, self.hidden)
        assert self.arrays is not None
        return tuple(np.asarray(a[i], dtype=np.float64) for a in self.arrays)  # type: ignore[return-value]

    def chunks(self, size: int = 16, indices: Sequence[int] | None = None
               ) -> Iterator[tuple[list[int], np.ndarray, np.ndarray, np.ndarray]]:
        """Yield ``(indices, Wa, Wb, Wc)`` for at most ``size`` snapshots at a time (bounded memory)."""
        idx = list(range(len(self))) if indices is None else list(indices)
        for s in range(0, len(idx), max(1, int(size))):
            part = idx[s:s + size]
            ws = [self.load(i) for i in part]
            yield part, *(np.stack([w[j] for w in ws]) for j in range(3))


def read_snapshot_file(path: str | os.PathLike, n: int, q: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Read one snapshot file (untrusted): size-bounded, keys, shapes, dtype and finiteness checked."""
    from safetensors import SafetensorError  # late: safetensors (start-up)
    from safetensors.numpy import load  # late: safetensors (start-up)

    p = Path(path)
    if not p.is_file():
        raise CheckpointError(f"{p}: snapshot file missing")
    limit = 3 * n * q * 8 + _HEADER_SLACK
    size = p.stat().st_size
    if size > limit:
        raise CheckpointError(f"{p}: snapshot file of {size} bytes exceeds the {limit}-byte bound for q={q}, n={n}")
    try:
        data = load(p.read_bytes())
    except (SafetensorError, ValueError, OSError) as exc:
        raise CheckpointError(f"{p}: not a readable safetensors file ({str(exc).splitlines()[0][:120]})") from None
    shapes = {"layera.weight": (q, n), "layerb.weight": (q, n), "layerc.weight": (n, q)}
    out = []
    for k in WEIGHT_KEYS:
        if k not in data:
            raise CheckpointError(f"{p}: snapshot lacks {k}")
        x = data[k]
        if x.dtype not in (np.float32, np.float64) or tuple(x.shape) != shapes[k]:
            raise CheckpointError(f"{p}: {k} has dtype {x.dtype} and shape {tuple(x.shape)}, "
                                  f"expected float32/float64 {shapes[k]}")
        x = x.astype(np.float64)
        if not np.all(np.isfinite(x)):
            raise CheckpointError(f"{p}: {k} contains NaN or infinite values")
        out.append(x)
    return tuple(out)  # type: ignore[return-value]


def open_snapshots(path: str | os.PathLike, group: Any = None) -> Snapshots:
    """The snapshots recorded with a checkpoint (streamed directory or older in-memory layout).

    Raises :class:`cogo.io.file_formats.CheckpointError` (one line) when the
    checkpoint has no snapshots or they are malformed.

    Raises
    ------
    cogo.io.file_formats.CheckpointError
        One line, when the checkpoint has no snapshots or they are malformed.
    """
    w = read_checkpoint(path, group=group)
    where = str(path)
    q, n = w.Wa.shape
    snap = w.meta.get("snapshots")
    if not isinstance(snap, dict):
        raise CheckpointError(f"{where}: the checkpoint has no snapshots (train with --snapshot-every N)")
    epochs = snap.get("epoch")
    if not isinstance(epochs, list) or not epochs or not all(isinstance(e, int) and e >= 0 for e in epochs) \
            or epochs != sorted(set(epochs)):
        raise CheckpointError(f"{where}: snapshot epochs must be a non-empty increasing list of integers")
    common = dict(path=where, group=w.group, n=n, hidden=q, meta=w.meta, final=(w.Wa, w.Wb, w.Wc))
    if "dir" in snap:
        name = snap["dir"]
        if not isinstance(name, str) or not _NAME.match(name) or name.startswith("."):
            raise CheckpointError(f"{where}: bad snapshot directory name {name!r} (a plain name beside the checkpoint)")
        d = Path(path).parent / name
        idx_path = d / "index.json"
        if not idx_path.is_file():
            raise CheckpointError(f"{where}: snapshot index {idx_path} is missing")
        if idx_path.stat().st_size > _MAX_INDEX_BYTES:
            raise CheckpointError(f"{idx_path}: index larger than {_MAX_INDEX_BYTES} bytes")
        try:
            index = json.loads(idx_path.read_text())
        except (ValueError, OSError, UnicodeDecodeError) as exc:
            raise CheckpointError(f"{idx_path}: unreadable snapshot index ({type(exc).__name__})") from None
        if not isinstance(index, dict) or index.get("format") != SNAPSHOT_FORMAT:
            raise CheckpointError(f"{idx_path}: not a {SNAPSHOT_FORMAT} index")
        files = index.get("files")
        if index.get("epochs") != epochs or not isinstance(files, list) or len(files) != len(epochs) \
                or not all(isinstance(f, str) and _FILE.match(f) for f in files):
            raise CheckpointError(f"{idx_path}: index does not match the checkpoint's snapshot epochs")
        if index.get("n") != n or index.get("hidden") != q:
            raise CheckpointError(f"{idx_path}: index shape (n={index.get('n')}, q={index.get('hidden')}) "
                                  f"differs from the checkpoint's (n={n}, q={q})")
        return Snapshots(epochs=list(epochs), files=[str(d / f) for f in files], **common)
    arrays = []
    for k, shape in zip(WEIGHT_KEYS, ((q, n), (q, n), (n, q))):
        x = snap.get(k)
        if x is None or not hasattr(x, "shape") or tuple(x.shape) != (len(epochs), *shape):
            raise CheckpointError(f"{where}: in-memory snapshots lack {k} of shape {(len(epochs), *shape)}")
        x = as_array(x, dtype=np.float64)
        if not np.all(np.isfinite(x)):
            raise CheckpointError(f"{where}: snapshot {k} contains NaN or infinite values")
        arrays.append(x)
    return Snapshots(epochs=list(epochs), arrays=tuple(arrays), **common)
