"""The hidden activations ``sigma`` of a network ``o(a, b) = W_c sigma(W_a[:, a] + W_b[:, b])`` (SPEC 1): one registry.

``sqr`` (``sigma(x) = x^2``) is the activation of the theory; ``relu``, ``silu`` and ``relusqr`` are the
variants the trainer, the readers of trained networks and the progress measures also accept.  Each is one
:class:`Activation` record of :data:`ACTIVATIONS` with its numpy form (float64, may work in place), its torch
form and its derivative for the hand-written backward pass of the trainer.  The torch forms use tensor
methods only, so this module imports neither torch nor anything of cogo's.

Adding an activation is one record here; every command line choice, every reader's check and every
measure takes its list from :data:`ACTIVATIONS`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

__all__ = ["Activation", "ACTIVATIONS", "NAMES", "THEORY", "activation", "unknown_message"]


@dataclass(frozen=True)
class Activation:
    """One hidden activation: its name, formula and three forms.

    ``numpy_(h)`` returns ``sigma(h)`` for a float64 array and may overwrite ``h`` (the progress measures use it
    on arrays of shape (s, q, M^2), where a second copy would double the memory); ``torch_(h)`` returns a new
    tensor; ``grad_mul_(dh, h)`` multiplies ``dh`` in place by ``sigma'(h)`` and returns it.
    """

    name: str
    formula: str
    numpy_: Callable[[np.ndarray], np.ndarray]
    torch_: Callable[[Any], Any]
    grad_mul_: Callable[[Any, Any], Any]

    def numpy(self, x: np.ndarray) -> np.ndarray:
        """``sigma(x)`` as a new float64 array (``x`` untouched).

        >>> ACTIVATIONS["relusqr"].numpy(np.array([-1.0, 2.0])).tolist()
        [0.0, 4.0]
        """
        return self.numpy_(np.array(x, dtype=np.float64))


def _relusqr_torch(h: Any) -> Any:
    r = h.relu()
    return r * r


def _silu_grad_mul_(dh: Any, h: Any) -> Any:
    s = h.sigmoid()
    return dh.mul_(s * (1.0 + h * (1.0 - s)))


#: Every activation cogo knows, by the name a checkpoint's ``meta["activation"]`` and ``--activation`` use.
ACTIVATIONS: dict[str, Activation] = {a.name: a for a in (
    Activation("sqr", "x^2", lambda h: np.multiply(h, h, out=h), lambda h: h * h,
               lambda dh, h: dh.mul_(h).mul_(2.0)),
    Activation("relu", "max(x, 0)", lambda h: np.maximum(h, 0.0, out=h), lambda h: h.relu(),
               lambda dh, h: dh.mul_(h > 0)),
    Activation("silu", "x sigmoid(x)", lambda h: h / (1.0 + np.exp(-h)), lambda h: h * h.sigmoid(),
               _silu_grad_mul_),
    Activation("relusqr", "max(x, 0)^2", lambda h: np.square(np.maximum(h, 0.0, out=h), out=h),
               _relusqr_torch, lambda dh, h: dh.mul_(h.relu()).mul_(2.0)),
)}

#: The names, in the order the help texts list them.
NAMES: tuple[str, ...] = tuple(ACTIVATIONS)
#: The activation of the theory (SPEC 1, ``sigma(x) = x^2``): every default, what a checkpoint without
#: ``meta["activation"]`` holds, and the only one the catalogue reading applies to.
THEORY: str = "sqr"


def unknown_message(name: Any) -> str:
    """The one message for a name that is no activation's (ValueError, CogoError and the readers all print it).

    >>> unknown_message("tanh")
    "unknown activation 'tanh'; choose one of sqr, relu, silu, relusqr"
    """
    return f"unknown activation {name!r}; choose one of {', '.join(NAMES)}"


def activation(name: str) -> Activation:
    """The record of ``name``; ValueError (one line, naming the choices) for any other name.

    >>> activation("silu").formula
    'x sigmoid(x)'
    """
    try:
        return ACTIVATIONS[name]
    except (KeyError, TypeError):
        raise ValueError(unknown_message(name)) from None
