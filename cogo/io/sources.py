"""What the Python API reads networks from: a path, a folder, a list, a training result or a weights object.

``cogo.classify`` and ``cogo.save`` (:mod:`cogo.api`) take any of

- a checkpoint path (``.pt`` or ``.npz``), read by the one validated reader (:func:`cogo.io.weights.read_checkpoint`);
- a folder: every ``*.pt`` and ``*.npz`` directly in it, in name order (hidden files, such as the resumable
  states ``.<name>.resume.pt`` of ``cogo train``, and sub-folders are not read);
- a training result (:class:`cogo.solvers.training_results.TrainResult`, one element of what ``cogo.train`` returns);
- any object with ``Wa`` (q, n), ``Wb`` (q, n), ``Wc`` (n, q) and ``group`` attributes
  (:class:`cogo.io.checkpoint.Checkpoint`, what ``cogo.load`` returns, and any checkpoint object like it);
- a list or tuple of these (flattened, in order).

Anything else is refused with one :class:`cogo.runtime.errors.CogoError` line saying what is accepted.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from cogo.algebra.group_parsing import as_group
from cogo.io.run_names import checkpoint_name
from cogo.runtime.errors import CogoError

__all__ = ["ACCEPTED", "gather", "folder_checkpoints", "weights_and_meta", "label_of"]

#: the one sentence saying what a network source may be (in every refusal)
ACCEPTED = ("a checkpoint path (.pt, .npz), a folder of them, a training result (cogo.train), an object with "
            "Wa, Wb, Wc and group attributes (cogo.load), or a list of these")


def folder_checkpoints(folder: str | os.PathLike) -> list[Path]:
    """The checkpoints directly in ``folder``: ``*.pt`` and ``*.npz`` files, hidden files excluded, in name order.

    Returns
    -------
    list of pathlib.Path
        The files; a folder without any is refused (CogoError, one line).
    """
    d = Path(folder)
    files = sorted(p for p in d.iterdir()
                   if p.is_file() and not p.name.startswith(".") and p.suffix.lower() in (".pt", ".npz"))
    if not files:
        raise CogoError(f"{d} is a folder without checkpoints (*.pt, *.npz directly in it)")
    return files


def _is_weights(x: Any) -> bool:
    return all(hasattr(x, a) for a in ("Wa", "Wb", "Wc")) and (hasattr(x, "group") or hasattr(x, "config"))


def gather(source: Any) -> list:
    """Flatten ``source`` (module docstring) into a list of checkpoint paths and in-memory weights objects.

    Returns
    -------
    list
        Each item a :class:`pathlib.Path` (a file to read) or an object with ``Wa, Wb, Wc``.
    """
    if isinstance(source, (str, os.PathLike)):
        p = Path(source)
        return folder_checkpoints(p) if p.is_dir() else [p]
    if _is_weights(source):
        return [source]
    if isinstance(source, (list, tuple)):
        out = [x for item in source for x in gather(item)]
        if not out:
            raise CogoError(f"nothing to read: an empty {type(source).__name__}; give {ACCEPTED}")
        return out
    raise CogoError(f"cannot read a network from a {type(source).__name__}: give {ACCEPTED}")


def weights_and_meta(obj: Any) -> tuple:
    """``(Wa, Wb, Wc, meta)`` of an in-memory weights object, ``meta`` holding what a checkpoint records.

    A training result gives its full record (:meth:`cogo.solvers.training_results.TrainResult.meta`); any
    other object its group (label, order, and Cayley table for a group without Abelian coordinates)
    plus the plain values of its ``meta`` (layout, activation, ...) when it has one.

    Returns
    -------
    tuple
        ``Wa, Wb, Wc`` as given (numpy arrays or torch tensors) and a dict of plain values.
    """
    if hasattr(obj, "config") and hasattr(obj, "meta") and callable(obj.meta):  # a TrainResult
        return obj.Wa, obj.Wb, obj.Wc, obj.meta()
    G = as_group(obj.group)
    given = getattr(obj, "meta", None)
    given = given if isinstance(given, dict) else {}
    meta = {k: v for k, v in given.items()
            if isinstance(v, (str, int, float, bool)) and k not in ("group", "n", "path")}
    meta.update(group=G.label, n=G.order)
    if G.as_product is None:
        import torch  # late: torch

        meta["group_table"] = torch.from_numpy(np.array(G.table))
    return obj.Wa, obj.Wb, obj.Wc, meta


def label_of(obj: Any, i: int) -> str:
    """How a report names an in-memory network: its file when it came from one, else what it is.

    Returns
    -------
    str
        ``path`` of the object when set, ``<training result d23_q512_wd5e-05_seed1>`` for a training
        result, else ``<TypeName #i>``.
    """
    if getattr(obj, "path", ""):
        return str(obj.path)
    if hasattr(obj, "config") and hasattr(obj, "seed"):
        stem = checkpoint_name(obj.config.group, obj.config.hidden, obj.weight_decay, obj.seed)[:-3]
        return f"<training result {stem}>"
    return f"<{type(obj).__name__} #{i}>"
