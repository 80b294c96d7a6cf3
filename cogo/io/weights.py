"""Reading and writing network checkpoints (the reference layout, SPEC 1).

A checkpoint is a ``torch.save`` file holding a dict::

    {"model": {"layera.weight": (q, n_G), "layerb.weight": (q, n_G),
               "layerc.weight": (n_G, q)},
     "meta": {"group": "23", ...}}

Bare state dicts (the three keys at top level) and ``.npz`` files with arrays
``Wa``, ``Wb``, ``Wc`` (and optionally a string ``group``) are read too.

Checkpoints are untrusted input: they are loaded with
``torch.load(..., weights_only=True)`` and every array is checked for shape,
dtype and finiteness before use.  Every writer in cogo goes through
:func:`cogo.io.outputs.atomic_write` so that an error never leaves a partial output file.
"""
from __future__ import annotations

import io
import os
from typing import Any, Callable

import numpy as np

from cogo.io.arrays import as_array
from cogo.io.outputs import atomic_write
from cogo.io.ptzip import write_pt_bytes
from cogo.io.checkpoint import Checkpoint, read_checkpoint, peek_shapes
from cogo.io.layouts import DEFAULT_OPTIONS, ReadOptions
from cogo.io.file_formats import (MAX_CHECKPOINT_BYTES, WEIGHT_KEYS, CheckpointError,  # noqa: F401 - re-exported
                             check_shapes, max_weight_magnitude)

__all__ = [
    "CheckpointError",
    "Checkpoint",
    "save_checkpoint",
    "read_checkpoint",
    "WEIGHT_KEYS",
    "inert_nodes",
    "peek_shapes",
]

def save_checkpoint(path: str | os.PathLike, Wa, Wb, Wc, meta: dict | None = None) -> None:
    """Save real weights in the reference layout, atomically.

    ``Wa``, ``Wb``: (q, n_G); ``Wc``: (n_G, q); numpy arrays or torch tensors.
    ``meta`` must hold only plain Python values (str, int, float, bool, None,
    lists, dicts, and tensors) so that ``weights_only=True`` can read it back.
    Numpy weights with a meta of plain values are written without importing torch
    (:func:`cogo.io.ptzip.write_pt_bytes`, the same file format); torch tensors go through ``torch.save``.

    >>> import os, tempfile
    >>> import numpy as np
    >>> from cogo.algebra import real_loss
    >>> from cogo.solvers.constructions import z_M
    >>> Wa, Wb, Wc = z_M(3).to_weights(real=True)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     save_checkpoint(os.path.join(d, "zm.pt"), Wa, Wb, Wc, meta={"group": "3", "name": "z_M"})
    ...     w = read_checkpoint(os.path.join(d, "zm.pt"))      # read back with weights_only=True
    >>> bool(np.array_equal(w.Wa, Wa)), w.meta["name"], real_loss(w.Wa, w.Wb, w.Wc, group=w.group) < 1e-20
    (True, 'z_M', True)
    """
    if not any(type(x).__module__.startswith("torch") for x in (Wa, Wb, Wc)):
        arrays = [np.asarray(x) for x in (Wa, Wb, Wc)]
        check_shapes(*(a.shape for a in arrays), where=str(path))
        try:  # numpy weights and a plain meta: written as torch.save would, without importing torch
            data = write_pt_bytes({"model": dict(zip(WEIGHT_KEYS, arrays)), "meta": dict(meta or {})})
        except TypeError:
            data = None  # a tensor or another torch object in the meta: torch writes it
        if data is not None:
            with atomic_write(path, "wb") as fh:
                fh.write(data)
            return
    import torch  # late: torch

    def as_tensor(x):
        if isinstance(x, torch.Tensor):
            return x.detach().cpu().clone()
        return torch.as_tensor(np.asarray(x))

    Wa, Wb, Wc = (as_tensor(x) for x in (Wa, Wb, Wc))
    check_shapes(Wa.shape, Wb.shape, Wc.shape, where=str(path))
    payload = {"model": dict(zip(WEIGHT_KEYS, (Wa, Wb, Wc))), "meta": dict(meta or {})}
    buf = io.BytesIO()
    torch.save(payload, buf)
    with atomic_write(path, "wb") as fh:
        fh.write(buf.getvalue())



def inert_nodes(Wa: Any, Wb: Any, Wc: Any, keep_inputs: bool = False, chunk: int = 4096) -> np.ndarray:
    """Bool per hidden node: it contributes exactly nothing (dead under every rule of SPEC 8.2).

    Node ``j`` computes ``Wc[:, j] (Wa[j, x] + Wb[j, y])^2``: it is zero for every input when its input
    weights are all 0, or its output weights are all 0 (its Fourier strength ``(A^2 C)^(1/3)`` is then 0).
    With ``keep_inputs`` (``dead_threshold = 0``: only nodes with zero inputs are dead) only the first
    case counts.  Read in chunks of ``chunk`` nodes, so no copy of the weights is made: readers drop these
    nodes before anything of size ``q x n`` complex (or ``q x n^2``) is allocated.

    Examples
    --------
    >>> import numpy as np
    >>> Wa = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]]); Wc = np.array([[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]])
    >>> inert_nodes(Wa, Wa, Wc).tolist(), inert_nodes(Wa, Wa, Wc, keep_inputs=True).tolist()
    ([True, False, True], [True, False, False])
    """
    q = int(np.shape(Wa)[0])
    out = np.zeros(q, dtype=bool)
    for s in range(0, q, chunk):
        e = min(q, s + chunk)
        no_in = ~(np.any(as_array(Wa[s:e]) != 0, axis=1) | np.any(as_array(Wb[s:e]) != 0, axis=1))
        out[s:e] = no_in if keep_inputs else no_in | ~np.any(as_array(Wc[:, s:e]) != 0, axis=0)
    return out



