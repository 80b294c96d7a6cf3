"""The hyperparameters of a training run (SPEC 1): :class:`TrainConfig`, its defaults and its checks.

Every value is checked by :meth:`TrainConfig.validate` before any work
starts (one-line ValueError); the options beyond the reference setting are
checked by :func:`cogo.solvers.training_options.validate_options`.  The
defaults are the reference experiment's [1]_ for Abelian groups
(:data:`DEFAULT_HYPERPARAMETERS`).

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch

from cogo.algebra.activations import THEORY
from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.group_parsing import as_group
from cogo.io.snapshots import SPACINGS
from cogo.solvers.batch import split_sizes
from cogo.solvers.training_options import validate_options

__all__ = [
    "TrainConfig",
    "DEFAULT_HYPERPARAMETERS",
    "default_hyperparameters",
    "LOSSES",
    "OPTIMIZERS",
    "DTYPES",
    "check_device",
]

LOSSES = ("mse", "ce")
OPTIMIZERS = ("adam", "adamw", "sgd", "muon")   # muon: cogo.solvers.training_options
DTYPES = {"float32": torch.float32, "float64": torch.float64}


#: The learning rate and weight decay a run gets when it names none, by group family.  Abelian
#: groups keep the reference experiment's (SPEC 1; the published table is read from such runs).
#: Non-Abelian groups get a smaller step and a stronger decay: on the smallest ones the default
#: 10% split leaves about as many training pairs as the scaling-law theory needs (SPEC 9), and
#: there 3000 epochs at width 128 with this setting bring about twice as many seeds to full test
#: accuracy (S3: 60 of 96 seeds against 33; Q8: 41 against 15; D4, D5, A4, Dic3: 94-96 of 96
#: with either); measured by ``python benchmarks/bench_group_defaults.py`` (docs/groups.md).
DEFAULT_HYPERPARAMETERS = {
    "abelian": {"lr": 0.01, "weight_decay": 5e-5},
    "non-abelian": {"lr": 0.003, "weight_decay": 2e-3},
}


def default_hyperparameters(group: Any) -> dict:
    """The ``lr`` and ``weight_decay`` of :data:`DEFAULT_HYPERPARAMETERS` for ``group``'s family.

    Returns
    -------
    dict
        ``{"lr": float, "weight_decay": float}``, a copy of the family's entry (``abelian`` or
        ``non-abelian``).

    Examples
    --------
    >>> default_hyperparameters("23")
    {'lr': 0.01, 'weight_decay': 5e-05}
    >>> default_hyperparameters("S3")
    {'lr': 0.003, 'weight_decay': 0.002}
    """
    family = "abelian" if as_group(group).as_product is not None else "non-abelian"
    return dict(DEFAULT_HYPERPARAMETERS[family])


@dataclass(frozen=True)
class TrainConfig:
    """Hyperparameters of one training run (SPEC 1); defaults = the reference experiment.

    ``lr`` and ``weight_decay`` left at ``None`` take the group family's
    defaults (:func:`default_hyperparameters`: the reference experiment's for
    Abelian groups).  ``weight_decay`` is the decay used when :func:`cogo.solvers.training.train` is
    given no explicit list of weight decays.  ``log_every`` sets how often the
    full-data metrics are recorded; ``snapshot_every`` (0 = off) how often the
    weights are kept; ``snapshots`` (0 = off) how many epochs are kept instead,
    placed by ``snapshot_spacing`` (:func:`cogo.io.snapshots.snapshot_epochs`:
    ``"log"`` or ``"uniform"``, always epoch 0 and the last).  Metrics are
    also recorded at every snapshot epoch and, with ``log_early``, at the
    epochs 1, 2, 5, 10, 20, 50, ... below ``log_every``
    (:meth:`early_log_epochs`): a log epoch axis then shows the start of
    training (``cogo demo`` turns it on).  What is recorded never changes the
    weights.

    >>> TrainConfig(group="S3").lr, TrainConfig(group="23").lr, TrainConfig(group="S3", lr=0.01).lr
    (0.003, 0.01, 0.01)
    """

    group: str = "23"
    hidden: int = 512
    lr: float | None = None
    weight_decay: float | None = None
    epochs: int = 10000
    test_fraction: float = 0.1
    loss: str = "mse"
    optimizer: str = "adam"
    momentum: float = 0.0
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    dtype: str = "float32"
    device: str = "cpu"
    log_every: int = 10
    snapshot_every: int = 0
    # options beyond the reference setting (cogo.solvers.training_options)
    activation: str = THEORY
    batch_size: int = 0
    label_noise: float = 0.0
    top: str = "trained"
    ridge: float = 1e-3
    snapshots: int = 0                # > 0: keep the weights at this many epochs (0 and the last included)
    snapshot_spacing: str = "log"     # how those epochs are placed: "log" or "uniform" (cogo.io.snapshots.snapshot_epochs)
    log_early: bool = False           # also record the metrics at 1, 2, 5, 10, ... below log_every (early_log_epochs)

    def __post_init__(self) -> None:
        # normalise an int, tuple or group to its label ('23', '3x5'); bad values are left to validate()
        try:
            object.__setattr__(self, "group", as_group(self.group).label)
            defaults = default_hyperparameters(self.group)
        except (ValueError, TypeError):
            defaults = DEFAULT_HYPERPARAMETERS["abelian"]  # validate() reports the bad group
        for name in ("lr", "weight_decay"):
            if getattr(self, name) is None:
                object.__setattr__(self, name, defaults[name])
        if isinstance(self.betas, list):
            object.__setattr__(self, "betas", tuple(self.betas))

    # -- derived ----------------------------------------------------------
    @property
    def group_obj(self) -> FiniteAbelianGroup:
        return as_group(self.group)

    @property
    def torch_dtype(self) -> torch.dtype:
        return DTYPES[self.dtype]

    def validate(self, weight_decays: Sequence[float] | None = None) -> "TrainConfig":
        """Check every value; raise ValueError with a one-line message on the first bad one.

        Also checks that the device exists (``cuda`` needs
        ``torch.cuda.is_available()``).  Returns ``self`` for chaining.
        """
        G = as_group(self.group)  # raises ValueError on a bad label
        n = G.order
        if isinstance(self.hidden, bool) or not isinstance(self.hidden, (int, np.integer)) or self.hidden < 1:
            raise ValueError(f"hidden size must be a positive integer, got {self.hidden!r}")
        if isinstance(self.epochs, bool) or not isinstance(self.epochs, (int, np.integer)) or self.epochs < 0:
            raise ValueError(f"epochs must be a non-negative integer, got {self.epochs!r}")
        if not (_finite(self.lr) and self.lr > 0):
            raise ValueError(f"learning rate must be a positive finite number, got {self.lr!r}")
        for wd in [self.weight_decay] + list(weight_decays or []):
            if not (_finite(wd) and wd >= 0):
                raise ValueError(f"weight decay must be a non-negative finite number, got {wd!r}")
        if not (_finite(self.test_fraction) and 0.0 < self.test_fraction < 1.0):
            raise ValueError(f"test fraction must lie strictly between 0 and 1, got {self.test_fraction!r}")
        n_train, n_test = split_sizes(n, self.test_fraction)
        if n_train < 1 or n_test < 1:
            raise ValueError(
                f"test fraction {self.test_fraction} leaves {n_train} training and {n_test} test pairs "
                f"out of {n * n} for group {G}; both must be at least 1"
            )
        if self.loss not in LOSSES:
            raise ValueError(f"unknown loss {self.loss!r}; choose one of {', '.join(LOSSES)}")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"unknown optimizer {self.optimizer!r}; choose one of {', '.join(OPTIMIZERS)}")
        if not (_finite(self.momentum) and 0.0 <= self.momentum < 1.0):
            raise ValueError(f"momentum must lie in [0, 1), got {self.momentum!r}")
        if self.momentum != 0.0 and self.optimizer != "sgd":
            raise ValueError(f"momentum applies to the sgd optimizer only (optimizer is {self.optimizer!r})")
        b1, b2 = self.betas
        if not (_finite(b1) and _finite(b2) and 0.0 <= b1 < 1.0 and 0.0 <= b2 < 1.0):
            raise ValueError(f"Adam betas must lie in [0, 1), got {self.betas!r}")
        if not (_finite(self.eps) and self.eps > 0):
            raise ValueError(f"eps must be a positive finite number, got {self.eps!r}")
        if self.dtype not in DTYPES:
            raise ValueError(f"unknown dtype {self.dtype!r}; choose one of {', '.join(DTYPES)}")
        for name in ("log_every", "snapshot_every"):
            v = getattr(self, name)
            lo = 1 if name == "log_every" else 0
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
                raise ValueError(f"{name.replace('_', '-')} must be an integer >= {lo}, got {v!r}")
        if not isinstance(self.log_early, (bool, np.bool_)):
            raise ValueError(f"log_early must be True or False, got {self.log_early!r}")
        if isinstance(self.snapshots, bool) or not isinstance(self.snapshots, (int, np.integer)) or self.snapshots < 0:
            raise ValueError(f"snapshots must be an integer >= 0, got {self.snapshots!r}")
        if self.snapshot_spacing not in SPACINGS:
            raise ValueError(f"unknown snapshot spacing {self.snapshot_spacing!r}; choose one of {', '.join(SPACINGS)}")
        if self.snapshots and self.snapshot_every:
            raise ValueError("give either --snapshot-every N (every N epochs) or --snapshots N (N epochs, "
                             "--spacing log|uniform), not both")
        check_device(self.device)
        validate_options(self, n_train)
        return self

    def early_log_epochs(self) -> list[int]:
        """The epochs ``1, 2, 5`` times a power of 10 below ``log_every`` (and ``epochs``) when ``log_early``, else none.

        Examples
        --------
        >>> TrainConfig(log_every=50, log_early=True).early_log_epochs()
        [1, 2, 5, 10, 20]
        >>> TrainConfig(log_every=50).early_log_epochs(), TrainConfig(log_every=1, log_early=True).early_log_epochs()
        ([], [])
        """
        if not self.log_early:
            return []
        out, decade = [], 1
        while decade < self.log_every:
            out += [e for e in (decade, 2 * decade, 5 * decade) if e < self.log_every and e <= self.epochs]
            decade *= 10
        return out

    def hyperparameters(self) -> dict:
        """The configuration as plain Python values (for checkpoint metadata)."""
        d = dataclasses.asdict(self)
        d["betas"] = [float(b) for b in self.betas]
        return d


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) and math.isfinite(x)


def check_device(device: str) -> torch.device:
    """Return ``torch.device(device)``; ValueError if it is unknown or unavailable.

    Raises
    ------
    ValueError
        One line: the device is unknown, unsupported, or CUDA (or that CUDA index) is not available.
    """
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(f"unknown device {device!r} ({exc})") from None
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"device {device!r} requested but CUDA is not available (torch.cuda.is_available() is False)")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise ValueError(f"device {device!r} requested but only {torch.cuda.device_count()} CUDA device(s) exist")
    elif dev.type != "cpu":
        raise ValueError(f"unsupported device {device!r}; use cpu or cuda")
    return dev

