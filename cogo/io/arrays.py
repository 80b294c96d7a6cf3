"""A weight as a numpy array, whether it came as a torch tensor, a numpy array or a nested list.

Every reader of weights (checkpoints, the irreps and node readings, the progress measures, the verdict)
converts through :func:`as_array`, so a tensor on any device and of any floating dtype (``bfloat16``
included, which numpy cannot hold) is read the same way everywhere.  This module imports neither torch
nor anything of cogo's: a tensor is recognised by its ``detach`` method.
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["as_array", "as_stack", "DTYPE_EPS", "weights_dtype"]

#: Unit roundoff (machine epsilon) of the dtypes a checkpoint can store.
DTYPE_EPS = {"float64": 2.0 ** -52, "float32": 2.0 ** -23, "bfloat16": 2.0 ** -7, "float16": 2.0 ** -10}


def as_array(x: Any, dtype: Any = None) -> np.ndarray:
    """``x`` as a numpy array, on the CPU and detached from any autograd graph.

    Parameters
    ----------
    x : torch.Tensor, numpy.ndarray or array-like
        The weights.
    dtype : numpy dtype, optional
        The dtype of the result.  A floating tensor asked for ``float64`` is widened by torch before it
        leaves torch, so a ``bfloat16`` or ``float16`` tensor reads exactly.  ``None`` keeps the dtype
        (a ``bfloat16`` tensor, which numpy has no dtype for, becomes ``float32``, exactly).

    Returns
    -------
    numpy.ndarray
        A new array or a view of ``x`` (never a tensor).

    Examples
    --------
    >>> as_array([[1, 2]], dtype=np.float64)
    array([[1., 2.]])
    >>> import torch
    >>> as_array(torch.tensor([0.1], dtype=torch.bfloat16), dtype=np.float64).tolist()
    [0.10009765625]
    """
    if hasattr(x, "detach"):
        t = x.detach().cpu()
        if t.is_floating_point() and (np.dtype(dtype) == np.float64 if dtype is not None else False):
            t = t.double()
        elif str(t.dtype) == "torch.bfloat16":
            t = t.float()
        x = t.numpy()
    return np.asarray(x, dtype=dtype)


def weights_dtype(*weights: Any) -> str:
    """The coarsest floating dtype among numpy arrays / torch tensors (``float64`` for integers and others).

    Returns
    -------
    str
        A key of :data:`DTYPE_EPS`: the one with the largest unit roundoff among the arguments.

    Examples
    --------
    >>> weights_dtype(np.zeros(2), np.zeros(2, dtype=np.float32))
    'float32'
    """
    worst = "float64"
    for w in weights:
        name = str(getattr(w, "dtype", "float64")).replace("torch.", "")
        if name in DTYPE_EPS and DTYPE_EPS[name] > DTYPE_EPS[worst]:
            worst = name
    return worst


def as_stack(W: Any) -> np.ndarray:
    """``W`` as float64 with a leading stack axis: one network (q, n) becomes (1, q, n); a stack stays."""
    W = as_array(W, dtype=np.float64)
    return W[None] if W.ndim == 2 else W
