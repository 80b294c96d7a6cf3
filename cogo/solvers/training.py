"""Batched training of 2-layer quadratic networks on group addition (SPEC 1).

The network and loss are exactly those of SPEC section 1::

    o(a, b) = W_c . (W_a[:, a] + W_b[:, b])**2          W_a, W_b: (q, n_G), W_c: (n_G, q)
    loss    = mean over pairs of || P(o) - P(e_c) ||^2    P(x) = x - mean(x), c = a + b

(``loss='ce'`` replaces the MSE by the cross-entropy of ``softmax(o)``.)
Inputs are one-hot, so the first layer is a column lookup (gather /
broadcast), never a matmul; there are no biases.  Training is full batch.

Batching
--------
Every model of a run (one per ``(weight_decay, seed)`` pair) is trained by
ONE batched tensor program: the weights of ``M`` models are stacked into a
single tensor of shape ``(3, M, n_G, q)`` holding ``W_a^T``, ``W_b^T`` and
``W_c`` (all three are ``n_G x q``); the forward and the hand-written
backward pass are a few broadcasts or gathers, three ``torch.bmm`` and two
reductions (or ``index_add_``), and the optimizer is an elementwise update of
the whole stack.  The objective is the SUM over models of each model's own
mean loss, so every model's gradient is exactly its own; the optimizers are
elementwise and take a per-model weight decay, so each model's trajectory is
independent of which other models share the batch.  Each model's data split
and initialization depend only on its own seed (:func:`split_pairs`,
:func:`init_weights`): a model trained alone and inside a batch follows the
same loss curve (the tests check this to 1e-5 relative in float32).

Two kernels compute the same gradient (:func:`choose_kernel`): ``grid`` forms
``h`` for all ``n^2`` pairs by broadcasting and multiplies the residual of each
model's test pairs by 0 (fastest when most pairs train; the full-data metrics
come for free), ``gather`` forms ``h`` for each model's training pairs only
by ``index_select`` and scatters the gradient back with ``index_add_``.

Metrics (loss and accuracy on the train and test pairs) are recorded for the
weights after ``epoch`` updates, at epoch 0, every ``log_every`` epochs and at
the last epoch; the loss is the training objective of SPEC 1 (without the
weight-decay term).

The optimizers are ``torch.optim.Adam``, ``torch.optim.AdamW`` and
``torch.optim.SGD`` (optional momentum) acting on the stacked tensor, with each
model's own weight decay applied as those optimizers apply theirs (L2 added to
the gradient for Adam and SGD, decoupled ``W *= 1 - lr wd`` for AdamW); the
tests compare whole trajectories with a plain ``nn.Linear`` + autograd +
``torch.optim`` reference.  The backward pass stays hand-written: it is 2-3x
faster than autograd on the same batched program (``benchmarks/bench_training.py``).

Checkpoints
-----------
:func:`save_run` writes one file per model, ``d{label}_q{q}_wd{wd}_seed{s}.pt``,
through :func:`cogo.io.weights.save_checkpoint` (reference layout
``layera.weight`` (q, n), ``layerb.weight`` (q, n), ``layerc.weight`` (n, q))
with a ``meta`` dict of plain Python values and tensors only, so that
``torch.load(path, weights_only=True)`` reads it.  ``meta`` keys:

``format`` ("cogo-train/1"), ``cogo_version``, ``torch_version``, ``group``
(label such as ``'23'`` or ``'3x5'``), ``n``, every hyperparameter of
:class:`TrainConfig` (``hidden``, ``lr``, ``weight_decay``, ``epochs``,
``test_fraction``, ``loss``, ``optimizer``, ``momentum``, ``betas``, ``eps``,
``dtype``, ``device``, ``log_every``, ``snapshot_every``, ``snapshots``, ``snapshot_spacing``), ``seed``, ``init``
and ``split`` (one-line descriptions), ``train_idx`` and ``test_idx`` (int64
tensors of pair indices ``a * n + b``), ``final`` (dict of ``train_loss``,
``test_loss``, ``train_acc``, ``test_acc``), ``history`` (dict of equal-length
lists ``epoch``, ``train_loss``, ``test_loss``, ``train_acc``, ``test_acc``,
recorded at epoch 0, every ``log_every`` epochs, at every snapshot epoch and at the last epoch),
``wall_time_s`` (of the batched program the model was in), ``kernel``, ``threads`` (CPU threads used;
the weights do not depend on it) and ``denormals`` (how float32 denormals were treated), and, when ``snapshot_every > 0`` or ``snapshots > 0``,
``snapshots``: a dict with ``epoch`` (list: 0, N, 2N, ..., or the ``snapshots`` epochs of
:func:`cogo.io.snapshots.snapshot_epochs`) and either, when
:func:`train` streamed them to disk (``snapshot_dir``, what ``cogo train`` does),
``format`` ("cogo-snapshots/1") and ``dir``, the name of the directory beside
the checkpoint holding one safetensors file per snapshot (see
:mod:`cogo.io.snapshots`), or, when kept in memory, the three weight keys holding
stacked tensors ``(S, q, n)``, ``(S, q, n)``, ``(S, n, q)``; and ``li2``: the Li^2
kernel statistics recorded at those epochs (docs/li2.md; as the reference code
records them every epoch): a dict with ``epoch``, ``eta`` and one list of floats
per :data:`cogo.dynamics.progress.LI2_STATS` entry (mean diagonal and
off-diagonal of ``F~^T F~`` and ``F F^T``, ``||G_F||`` and ``cos(G_F, Y~Y~^T F~)``),
computed by :func:`cogo.dynamics.progress.li2_statistics_of` on the model's
training pairs; ``cogo dynamics`` reads them instead of recomputing.

A ``summary.json`` beside the checkpoints lists every model's final metrics.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
import torch

from cogo._version import __version__
from cogo.io.naming import _fmt_wd, checkpoint_name  # noqa: F401 (re-exported: a file name of a run)
from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.spec import parse_group
from cogo.io.formats import WEIGHT_KEYS
from cogo.io.outputs import atomic_write, atomic_write_text
from cogo.io.weights import save_checkpoint

__all__ = [
    "TrainConfig",
    "TrainResult",
    "DEFAULT_HYPERPARAMETERS",
    "default_hyperparameters",
    "LOSSES",
    "OPTIMIZERS",
    "DTYPES",
    "split_pairs",
    "init_weights",
    "pair_targets",
    "pair_metrics",
    "train",
    "validate_run",
    "choose_kernel",
    "check_device",
    "split_sizes",
    "summary_dict",
    "checkpoint_name",
    "check_output_dir",
    "save_run",
    "mergeable_summary",
    "plot_history",
]

LOSSES = ("mse", "ce")
OPTIMIZERS = ("adam", "adamw", "sgd", "muon")   # muon: cogo.solvers.training_options
DTYPES = {"float32": torch.float32, "float64": torch.float64}
FORMAT = "cogo-train/1"
_METRICS = ("train_loss", "test_loss", "train_acc", "test_acc")


# ---------------------------------------------------------------- configuration
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
    family = "abelian" if parse_group(group).abelian is not None else "non-abelian"
    return dict(DEFAULT_HYPERPARAMETERS[family])


@dataclass(frozen=True)
class TrainConfig:
    """Hyperparameters of one training run (SPEC 1); defaults = the reference experiment.

    ``lr`` and ``weight_decay`` left at ``None`` take the group family's
    defaults (:func:`default_hyperparameters`: the reference experiment's for
    Abelian groups).  ``weight_decay`` is the decay used when :func:`train` is
    given no explicit list of weight decays.  ``log_every`` sets how often the
    full-data metrics are recorded; ``snapshot_every`` (0 = off) how often the
    weights are kept; ``snapshots`` (0 = off) how many epochs are kept instead,
    placed by ``snapshot_spacing`` (:func:`cogo.io.snapshots.snapshot_epochs`:
    ``"log"`` or ``"uniform"``, always epoch 0 and the last).  Metrics are
    also recorded at every snapshot epoch.

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
    activation: str = "sqr"
    batch_size: int = 0
    label_noise: float = 0.0
    top: str = "trained"
    ridge: float = 1e-3
    snapshots: int = 0                # > 0: keep the weights at this many epochs (0 and the last included)
    snapshot_spacing: str = "log"     # how those epochs are placed: "log" or "uniform" (cogo.io.snapshots.snapshot_epochs)

    def __post_init__(self) -> None:
        # normalise an int, tuple or group to its label ('23', '3x5'); bad values are left to validate()
        try:
            object.__setattr__(self, "group", parse_group(self.group).label)
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
        return parse_group(self.group)

    @property
    def torch_dtype(self) -> torch.dtype:
        return DTYPES[self.dtype]

    def validate(self, weight_decays: Sequence[float] | None = None) -> "TrainConfig":
        """Check every value; raise ValueError with a one-line message on the first bad one.

        Also checks that the device exists (``cuda`` needs
        ``torch.cuda.is_available()``).  Returns ``self`` for chaining.
        """
        G = parse_group(self.group)  # raises ValueError on a bad label
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
        from cogo.io.snapshots import SPACINGS

        if isinstance(self.snapshots, bool) or not isinstance(self.snapshots, (int, np.integer)) or self.snapshots < 0:
            raise ValueError(f"snapshots must be an integer >= 0, got {self.snapshots!r}")
        if self.snapshot_spacing not in SPACINGS:
            raise ValueError(f"unknown snapshot spacing {self.snapshot_spacing!r}; choose one of {', '.join(SPACINGS)}")
        if self.snapshots and self.snapshot_every:
            raise ValueError("give either --snapshot-every N (every N epochs) or --snapshots N (N epochs, "
                             "--spacing log|uniform), not both")
        check_device(self.device)
        from cogo.solvers.training_options import validate_options

        validate_options(self, n_train)
        return self

    def hyperparameters(self) -> dict:
        """The configuration as plain Python values (for checkpoint metadata)."""
        d = dataclasses.asdict(self)
        d["betas"] = [float(b) for b in self.betas]
        return d


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) and math.isfinite(x)


def check_device(device: str) -> torch.device:
    """Return ``torch.device(device)``; ValueError if it is unknown or unavailable.

    Returns
    -------
    torch.device
        The device, ``cpu`` or an available ``cuda`` device.

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


from cogo.solvers.batch import (  # noqa: F401 (moved there; importable from here as before)
    GRID_MIN_TRAIN_FRACTION, KERNELS, _available_bytes, _Batch, _derived_seed, _loss_and_correct, _per_pair,
    _work_elements, choose_kernel, init_weights, pair_targets, split_pairs, split_sizes)


def pair_metrics(Wa: torch.Tensor, Wb: torch.Tensor, Wc: torch.Tensor, group: Any,
                 loss: str = "mse") -> tuple[torch.Tensor, torch.Tensor]:
    """Loss and correctness of every pair ``p = a * n + b`` (SPEC 1), reference layout.

    ``Wa, Wb``: (q, n) or (M, q, n); ``Wc``: (n, q) or (M, n, q).  Returns the
    per-pair loss ``||P(o) - P(e_c)||^2`` (``loss='mse'``) or cross-entropy
    (``'ce'``), and ``argmax o == c``, each of shape (n^2,) or (M, n^2).

    Returns
    -------
    loss : torch.Tensor
        The per-pair loss (SPEC 1), shape (n^2,) or (M, n^2).
    correct : torch.Tensor
        bool, ``argmax o == c`` per pair, the same shape.

    References
    ----------
    .. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
    """
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; choose one of {', '.join(LOSSES)}")
    single = Wa.dim() == 2
    if single:
        Wa, Wb, Wc = Wa[None], Wb[None], Wc[None]
    a, b, c = (t.to(Wa.device) for t in pair_targets(group))
    per, correct = _per_pair(Wa.transpose(1, 2), Wb.transpose(1, 2), Wc, a, b, c, loss)
    return (per[0], correct[0]) if single else (per, correct)


# ---------------------------------------------------------------- results
@dataclass
class TrainResult:
    """One trained model: final weights (CPU, reference layout), split, metrics, history."""

    config: TrainConfig
    seed: int
    weight_decay: float
    Wa: torch.Tensor
    Wb: torch.Tensor
    Wc: torch.Tensor
    train_idx: torch.Tensor
    test_idx: torch.Tensor
    history: dict
    final: dict
    snapshots: dict | None = None
    wall_time_s: float = 0.0
    kernel: str = "grid"
    threads: int = 1
    denormals: str = "flushed on every thread"
    extra: dict | None = None     # what the options record (cogo.solvers.training_options), e.g. label_noise

    @property
    def group(self) -> str:
        return parse_group(self.config.group).label

    def meta(self) -> dict:
        """Checkpoint metadata: plain Python values and tensors only (see module docstring)."""
        hp = self.config.hyperparameters()
        hp["weight_decay"] = float(self.weight_decay)
        G = parse_group(self.config.group)
        meta = {
            "format": FORMAT,
            "cogo_version": __version__,
            "torch_version": str(torch.__version__),
            "group": G.label,
            "n": G.order,
            **({} if G.abelian is not None else {"group_table": torch.from_numpy(np.array(G.table))}),
            **({"group_source": dict(G.source)} if getattr(G, "source", None) else {}),  # GAP id and name
            **hp,
            "seed": int(self.seed),
            "init": "torch.nn.Linear default (kaiming_uniform_, a=sqrt(5)) for layera, layerb, layerc "
                    "in that order, float32, torch.Generator().manual_seed(seed)",
            "split": "torch.randperm(n^2) from torch.Generator seeded by SeedSequence([seed, 1]); "
                     "first floor((1-test_fraction) n^2) pairs train",
            "train_idx": self.train_idx.clone(),
            "test_idx": self.test_idx.clone(),
            "final": dict(self.final),
            "history": {k: list(v) for k, v in self.history.items()},
            "wall_time_s": float(self.wall_time_s),
            "kernel": self.kernel,
            "threads": int(self.threads),   # CPU threads used; the weights do not depend on it (cogo.runtime.threads)
            "denormals": self.denormals,
            **(self.extra or {}),
        }
        if self.snapshots is not None:
            meta["snapshots"] = {k: (v.clone() if isinstance(v, torch.Tensor) else v if isinstance(v, str)
                                     else json.loads(json.dumps(v)) if isinstance(v, dict)  # li2: plain copy
                                     else list(v)) for k, v in self.snapshots.items()}
        return meta


def _as_float(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def validate_run(config: TrainConfig, seeds: Iterable[int], weight_decays: Sequence[float] | None = None,
                 max_batch: int | None = None, kernel: str = "auto") -> tuple[list[int], list[float], str, int]:
    """Check a whole run before any work; return ``(seeds, weight_decays, kernel, max_batch)``.

    Raises ValueError with a one-line message on a bad configuration, bad or
    duplicate seeds or weight decays, an unavailable device, or a model too
    large for the free memory of the device.  ``max_batch`` defaults to as
    many models as fit in half the free memory (all of them if unknown).

    Returns
    -------
    seeds : list of int
        The seeds, as integers.
    weight_decays : list of float
        The weight decays (``[config.weight_decay]`` when none are given).
    kernel : str
        ``'grid'`` or ``'gather'`` (:func:`choose_kernel`).
    max_batch : int
        How many models share one batched program.
    """
    try:
        seeds = [int(s) for s in seeds]
        wds = [float(config.weight_decay)] if weight_decays is None else [float(w) for w in weight_decays]
    except (TypeError, ValueError):
        raise ValueError("seeds must be integers and weight decays numbers") from None
    config.validate(wds)
    if not seeds:
        raise ValueError("at least one seed is required")
    if any(s < 0 for s in seeds):
        raise ValueError(f"seeds must be non-negative integers, got {seeds}")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"duplicate seeds in {seeds}")
    if not wds:
        raise ValueError("at least one weight decay is required")
    if len({_fmt_wd(w) for w in wds}) != len(wds):
        raise ValueError(f"duplicate weight decays in {wds} (compared to 6 significant digits)")
    if max_batch is not None and (isinstance(max_batch, bool) or int(max_batch) != max_batch or max_batch < 1):
        raise ValueError(f"max batch must be a positive integer, got {max_batch!r}")
    device = check_device(config.device)
    n = parse_group(config.group).order
    n_train, _ = split_sizes(n, config.test_fraction)
    kernel = choose_kernel(n, n_train, kernel)
    per_model = _work_elements(n, config.hidden, n_train, kernel) * config.torch_dtype.itemsize
    free = _available_bytes(device)
    n_models = len(seeds) * len(wds)
    from cogo.runtime.limits import models_per_batch

    fit = models_per_batch(per_model, free, f"one model (group order {n}, hidden {config.hidden}, {config.dtype})",
                           str(device))  # CogoError (a ValueError) when one model exceeds half the free memory
    if max_batch is None and fit is not None:
        max_batch = fit
    return seeds, wds, kernel, int(min(max_batch or n_models, n_models))


def train(config: TrainConfig, seeds: Iterable[int], weight_decays: Sequence[float] | None = None,
          progress: bool = True, max_batch: int | None = None, kernel: str = "auto",
          snapshot_dir: str | os.PathLike | None = None, threads: int | None = None,
          resume_every: int = 0, resume: bool = False, log: Any = None) -> list[TrainResult]:
    """Train one model per ``(weight_decay, seed)`` as one batched program (SPEC 1).

    Models are ordered weight decay first, then seed.  ``weight_decays``
    defaults to ``[config.weight_decay]``.  ``max_batch`` caps how many models
    share one batched program (default: as many as fit in half the free
    memory of the device); ``kernel`` picks the gradient kernel (see
    :func:`choose_kernel`).  Neither changes the results beyond rounding.
    Raises ValueError (one line) on any bad value before any work starts.
    Returns one :class:`TrainResult` per model, weights on the CPU in the
    training dtype.

    With ``snapshot_dir`` and ``config.snapshot_every > 0`` the
    snapshots are streamed to ``snapshot_dir/<checkpoint stem>.snapshots/`` as
    training runs (:class:`cogo.io.snapshots.SnapshotWriter`), never all held in
    memory; without it they are kept in memory (``TrainResult.snapshots``).
    ``threads`` (CPU threads) defaults to :func:`cogo.runtime.threads.choose_threads`; the
    weights are bit-identical for every thread count (denormals are flushed on
    every thread, see :mod:`cogo.runtime.threads`).

    ``resume_every = N > 0`` saves the whole state of each batched program every
    ``N`` epochs into ``snapshot_dir`` (atomic; :mod:`cogo.solvers.resume`);
    ``resume=True`` continues from a saved state, bit-identically to an
    uninterrupted run.  ``log`` receives the lines saying so.

    Returns
    -------
    list of TrainResult
        One per ``(weight_decay, seed)``, weight decay first; weights on the CPU in the training dtype.

    References
    ----------
    .. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.

    Examples
    --------
    >>> cfg = TrainConfig(group="7", hidden=16, epochs=50, log_every=25)
    >>> res = train(cfg, seeds=[1, 2], weight_decays=[0.0, 1e-3], progress=False)
    >>> [(r.weight_decay, r.seed, r.history["epoch"]) for r in res]
    [(0.0, 1, [0, 25, 50]), (0.0, 2, [0, 25, 50]), (0.001, 1, [0, 25, 50]), (0.001, 2, [0, 25, 50])]
    >>> res[0].Wa.shape, res[0].Wc.shape
    (torch.Size([16, 7]), torch.Size([7, 16]))
    """
    from cogo.runtime.threads import choose_threads, flush_denormals, set_flush_denormal_all, thread_limit, training_elements
    from cogo.runtime.threads import threads_override

    threads = threads if threads is not None else threads_override()  # set_threads / COGO_THREADS (cogo.runtime.threads)

    seeds, wds, kernel, max_batch = validate_run(config, seeds, weight_decays, max_batch, kernel)
    device = torch.device(config.device)
    models = [(wd, s) for wd in wds for s in seeds]
    size = int(max_batch or len(models))
    results: list[TrainResult] = []
    if threads is None:
        n = parse_group(config.group).order
        rows = n * n if kernel == "grid" else split_sizes(n, config.test_fraction)[0]
        threads = 1 if device.type != "cpu" else choose_threads("train", training_elements(n, config.hidden, size, rows))
    # Weight decay drives dead nodes to ~1e-39 (SPEC 8.2), below float32's smallest normal
    # number; x86 CPUs do denormal arithmetic ~10x slower (measured: 9x on a d=23 run).
    # Flushing denormals to zero changes no value above 1.2e-38 and so not the network's function.
    # The flag is per thread: set on every pool thread, else results depend on the thread count.
    with thread_limit(threads):
        threads, denormals = flush_denormals(threads)
        try:
            for start in range(0, len(models), size):
                results.extend(_train_batch(config, models[start:start + size], device, progress, kernel,
                                            snapshot_dir, resume_every=resume_every, resume=resume, log=log))
        finally:
            set_flush_denormal_all(False, threads)
    for r in results:
        r.threads, r.denormals = threads, denormals
    return results


def _train_batch(cfg: TrainConfig, models: list[tuple[float, int]], device: torch.device,
                 progress: bool, kernel: str, snapshot_dir: str | os.PathLike | None = None,
                 resume_every: int = 0, resume: bool = False, log: Any = None) -> list[TrainResult]:
    """Train one batched program of ``models`` (see :func:`train`); one :class:`TrainResult` per model."""
    t0 = time.perf_counter()
    from cogo.solvers.training_options import OptionsBatch, uses_options

    batch = (OptionsBatch if uses_options(cfg) else _Batch)(cfg, models, device, kernel)
    M = batch.M
    history: list[dict[str, list]] = [{"epoch": [], **{k: [] for k in _METRICS}} for _ in range(M)]
    snaps: list[tuple[torch.Tensor, ...]] = []
    snap_epochs: list[int] = []
    from cogo.io.snapshots import snapshot_epochs

    snap_at = set(snapshot_epochs(cfg.epochs, cfg.snapshot_every, cfg.snapshots, cfg.snapshot_spacing))
    writers = _snapshot_writers(cfg, models, batch, snap_at, snapshot_dir)
    start_epoch, saver = 0, None
    if resume_every or resume:  # resumable training (cogo.solvers.resume): periodic atomic states, kept snapshots
        from cogo.solvers.resume import ResumeState

        saver = ResumeState(snapshot_dir, cfg, models, batch.kernel, device, every=resume_every, log=log)
        if resume:
            start_epoch = saver.restore(batch, history, snap_epochs, writers)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=cfg.epochs, initial=start_epoch, desc=f"train {parse_group(cfg.group)} q={cfg.hidden} x{M}",
                   unit="epoch", dynamic_ncols=True)
    _run_epochs(cfg, batch, models, history, snaps, snap_epochs, snap_at, writers, saver, bar, start_epoch)
    if bar is not None:
        bar.close()
    wall = time.perf_counter() - t0
    if saver is not None:
        wall += saver.elapsed_before
        saver.done()
    results = _batch_results(cfg, models, batch, history, snaps, snap_epochs, snap_at, writers, wall)
    if hasattr(batch, "finish"):
        batch.finish(results)
    return results


def _snapshot_writers(cfg: TrainConfig, models: list[tuple[float, int]], batch: Any, snap_at: set,
                      snapshot_dir: str | os.PathLike | None) -> list:
    """One :class:`cogo.io.snapshots.SnapshotWriter` per model when snapshots stream to ``snapshot_dir``, else ``[]``."""
    if not (snap_at and snapshot_dir is not None):
        return []
    from cogo.io.snapshots import SnapshotWriter, snapshot_dir_name

    return [SnapshotWriter(Path(snapshot_dir) / snapshot_dir_name(checkpoint_name(cfg.group, cfg.hidden, wd, s)),
                           cfg.group, batch.n, batch.q, cfg.dtype) for wd, s in models]


def _run_epochs(cfg: TrainConfig, batch: Any, models: list[tuple[float, int]], history: list, snaps: list,
                snap_epochs: list, snap_at: set, writers: list, saver: Any, bar: Any, start_epoch: int) -> None:
    """The epoch loop: save a resumable state, record, snapshot, then update (the last epoch only records)."""
    M = batch.M
    last_bar = start_epoch
    # iteration `epoch` sees the weights after `epoch` updates: record, snapshot, then update
    for epoch in range(start_epoch, cfg.epochs + 1):
        if saver is not None:
            saver.maybe_save(epoch, batch, history, snap_epochs, writers, cfg.epochs)
        log = epoch % cfg.log_every == 0 or epoch == cfg.epochs or epoch in snap_at
        if epoch in snap_at:
            snap_epochs.append(epoch)
            W = batch.weights()
            _record_li2(cfg, batch, models, W, history, epoch)
            if writers:  # streamed: one snapshot of each model in memory at a time
                for m, wr in enumerate(writers):
                    wr.write(epoch, W[0][m], W[1][m], W[2][m])
            else:
                snaps.append(W)
            del W
        if epoch == cfg.epochs:
            vals = batch.evaluate()
        else:
            vals = batch.gradient(metrics=log)
            batch.step()
        if log:
            assert vals is not None
            for m in range(M):
                history[m]["epoch"].append(epoch)
                for i, key in enumerate(_METRICS):
                    history[m][key].append(_as_float(float(vals[i, m])))
            if bar is not None:
                bar.update(epoch - last_bar)
                last_bar = epoch
                bar.set_postfix(train_loss=f"{vals[0].mean():.3g}", test_loss=f"{vals[1].mean():.3g}",
                                test_acc=f"{vals[3].mean():.3f}", refresh=False)


def _batch_results(cfg: TrainConfig, models: list[tuple[float, int]], batch: Any, history: list, snaps: list,
                   snap_epochs: list, snap_at: set, writers: list, wall: float) -> list[TrainResult]:
    """One :class:`TrainResult` per model: final weights, split, history, final metrics and snapshots."""
    Wa, Wb, Wc = batch.weights()
    results = []
    for m, (wd, seed) in enumerate(models):
        final = {k: history[m][k][-1] for k in _METRICS}
        li2 = history[m].pop("li2", None)
        snapshots = None
        if writers:
            snapshots = {"format": "cogo-snapshots/1", "dir": writers[m].dir.name, "epoch": list(snap_epochs)}
        elif snap_at:
            snapshots = {"epoch": list(snap_epochs)}
            for i, key in enumerate(WEIGHT_KEYS):
                snapshots[key] = torch.stack([s[i][m] for s in snaps])
        if snapshots is not None and li2 is not None:
            snapshots["li2"] = li2
        tr, te = batch.splits[seed]
        results.append(TrainResult(cfg, seed, wd, Wa[m].clone(), Wb[m].clone(), Wc[m].clone(), tr.clone(),
                                   te.clone(), history[m], final, snapshots, wall, batch.kernel))
    return results


def _record_li2(cfg: TrainConfig, batch: Any, models: list, W: tuple, history: list, epoch: int) -> None:
    """Record the Li^2 kernel statistics of every model at a snapshot epoch (``history[m]["li2"]``).

    :func:`cogo.dynamics.progress.li2_statistics_of` (the one definition) of
    the model's hidden features on its training pairs, with ``eta`` the ridge
    constant of ``--top ridge`` or else :func:`cogo.dynamics.progress.ridge_eta`
    of the model's weight decay.  Reads the weights only: training is unchanged.
    The history travels with the resumable state; at the end it moves to the
    checkpoint's ``meta["snapshots"]["li2"]``.
    """
    from cogo.solvers.li2_record import li2_statistics_of, LI2_STATS, ridge_eta

    for m, (wd, seed) in enumerate(models):
        tr = batch.splits[seed][0].cpu().numpy()
        eta = float(cfg.ridge) if cfg.top == "ridge" else ridge_eta(wd, len(tr))
        st = li2_statistics_of(W[0][m].numpy(), W[1][m].numpy(), cfg.group, tr, eta, cfg.activation)
        rec = history[m].setdefault("li2", {"epoch": [], "eta": eta, **{k: [] for k in LI2_STATS}})
        rec["epoch"].append(int(epoch))
        for k in LI2_STATS:
            rec[k].append(float(st[k][0]))


# ---------------------------------------------------------------- output
def check_output_dir(out_dir: str | os.PathLike) -> Path:
    """Create ``out_dir`` if missing and check that files can be written in it.

    Raises CogoError (one line) otherwise.  Writes nothing that stays behind
    (the output policy of :mod:`cogo.io.outputs`).

    Returns
    -------
    pathlib.Path
        ``out_dir``, existing and writable.
    """
    from cogo.io.outputs import check_output_dir as _check

    return _check(out_dir)


def check_run_outputs(config: TrainConfig, seeds: Iterable[int], weight_decays: Sequence[float], out_dir: Path,
                      force: bool = False, plot: bool = False) -> list[Path]:
    """Check every file :func:`save_run` (and ``plot``) will write in ``out_dir``, before training.

    A checkpoint of the same name already in ``out_dir`` is refused (one
    line) unless ``force``: it would be overwritten and ``summary.json``
    would list only the new models.  Each path also passes
    :func:`cogo.io.outputs.check_output_file`.
    """
    from cogo.runtime.errors import CogoError
    from cogo.io.outputs import check_output_file

    out = Path(out_dir)
    names = [checkpoint_name(config.group, config.hidden, wd, s) for wd in weight_decays for s in seeds]
    if not force:
        there = [nm for nm in names if os.path.lexists(out / nm)]
        if there:
            raise CogoError(f"{out} already holds {len(there)} checkpoint(s) of this run ({there[0]}"
                            f"{', ...' if len(there) > 1 else ''}); use another --out or --force to replace them")
    merge = mergeable_summary(out, config, refuse=not force) is not None  # more seeds into the same folder
    files = names + (["curves.png"] if plot else [])
    return ([check_output_file(out / nm, force=force, label="output") for nm in files]
            + [check_output_file(out / "summary.json", force=force, label="output", existing_ok=merge)])


#: the settings two runs may differ in and still share a folder and its summary.json (one row per model)
MERGE_FREE = ("weight_decay", "device")


def _same_settings(summary: dict, config: TrainConfig) -> bool:
    mine = json.loads(json.dumps(config.hyperparameters()))
    theirs = summary.get("config")
    return (isinstance(theirs, dict) and summary.get("group") == parse_group(config.group).label
            and {k: v for k, v in theirs.items() if k not in MERGE_FREE}
            == {k: v for k, v in mine.items() if k not in MERGE_FREE})


def mergeable_summary(out_dir: str | os.PathLike, config: TrainConfig, refuse: bool = False) -> dict | None:
    """The ``summary.json`` in ``out_dir`` when a run of the same settings wrote it: this run's models join it.

    Same settings: the group and every hyperparameter but those of :data:`MERGE_FREE` (a folder
    holds many seeds and weight decays).  ``refuse``: a summary of other settings (or not cogo's)
    raises CogoError (one line) instead of returning None.

    Returns
    -------
    dict or None
        The summary read, or None when there is none (or, without ``refuse``, when it cannot be merged).
    """
    from cogo.runtime.errors import CogoError

    path = Path(out_dir) / "summary.json"
    if not path.is_file():
        return None
    try:
        summary = json.loads(path.read_text())
        ok = isinstance(summary, dict) and summary.get("format") == FORMAT and isinstance(summary.get("models"), list)
    except (OSError, ValueError):
        summary, ok = None, False
    if ok and _same_settings(summary, config):
        return summary
    if refuse:
        raise CogoError(f"{path} records a run of other settings (or is not a cogo train summary); the models of "
                        "one folder share their settings: use another --out, or --force to replace the summary")
    return None


def summary_dict(results: Sequence[TrainResult], paths: Sequence[str] | None = None) -> dict:
    """The JSON summary of a run: configuration, environment and per-model final metrics.

    Returns
    -------
    dict
        JSON-ready: format, cogo and torch versions, platform, group, configuration, the weight decays
        and seeds, the wall time, and one row per model (seed, weight decay, final metrics, and the
        checkpoint's file name when ``paths`` is given).
    """
    if not results:
        raise ValueError("no results to summarize")
    cfg = results[0].config
    models = []
    for i, r in enumerate(results):
        row = {"seed": r.seed, "weight_decay": r.weight_decay, **r.final}
        if paths is not None:
            row["file"] = os.path.basename(paths[i])
        models.append(row)
    return {
        "format": FORMAT,
        "cogo_version": __version__,
        "torch_version": str(torch.__version__),
        "platform": platform.platform(),
        "group": parse_group(cfg.group).label,
        "config": cfg.hyperparameters(),
        "weight_decays": sorted({r.weight_decay for r in results}),
        "seeds": sorted({r.seed for r in results}),
        "wall_time_s": float(sum(set(r.wall_time_s for r in results))),  # one value per batched program
        "models": models,
    }


def save_run(results: TrainResult | Sequence[TrainResult], out_dir: str | os.PathLike) -> list[str]:
    """Write one checkpoint per model and ``summary.json`` into ``out_dir``; return the paths.

    Every file is written atomically (see :mod:`cogo.io.weights`).  A ``summary.json`` already there from
    a run of the same settings (:func:`mergeable_summary`) keeps its other models: a folder takes more seeds.

    Returns
    -------
    list of str
        The checkpoint paths, one per model in the order of ``results``, then that of ``summary.json``.
    """
    if isinstance(results, TrainResult):
        results = [results]
    out = check_output_dir(out_dir)
    paths = []
    for r in results:
        path = out / checkpoint_name(r.config.group, r.config.hidden, r.weight_decay, r.seed)
        save_checkpoint(path, r.Wa, r.Wb, r.Wc, r.meta())
        paths.append(str(path))
    summary = out / "summary.json"
    doc = summary_dict(results, paths)
    old = mergeable_summary(out, results[0].config)
    if old is not None:  # a folder of the same settings: its other models stay listed (more seeds, more decays)
        mine = {row["file"] for row in doc["models"]}
        kept = [row for row in old["models"] if row.get("file") not in mine]
        doc["models"] = kept + doc["models"]
        doc["seeds"] = sorted({row["seed"] for row in doc["models"]})
        doc["weight_decays"] = sorted({row["weight_decay"] for row in doc["models"]})
        doc["wall_time_s"] = float(old.get("wall_time_s") or 0.0) + doc["wall_time_s"]
    atomic_write_text(summary, json.dumps(doc, indent=2) + "\n")
    return paths + [str(summary)]


def plot_history(results: Sequence[TrainResult], path: str | os.PathLike) -> str:
    """Plot train/test loss and accuracy against epoch; PNG, atomic.

    Models are grouped by weight decay (a seed group): each group is one
    colour, drawn as its median over seeds with a band from the lowest to
    the highest seed (a single line for one seed).  The epoch axis is
    logarithmic (``epoch + 1``), so the first 1% of training, where the
    accuracy moves, is as wide as the rest; the loss axis is logarithmic.

    Returns
    -------
    str
        ``path``, the PNG written.
    """
    from matplotlib.figure import Figure  # a Figure of its own: the caller's pyplot backend is never touched
    from matplotlib.lines import Line2D

    if isinstance(results, TrainResult):
        results = [results]
    groups: dict[str, list] = {}
    for r in results:
        groups.setdefault(_fmt_wd(r.weight_decay), []).append(r)
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    ax_l, ax_a = fig.subplots(1, 2)

    def arr(h, k):
        return np.asarray([np.nan if v is None else v for v in h[k]], dtype=float)

    for i, (wd, runs) in enumerate(groups.items()):
        color = f"C{i % 10}"
        n_ep = min(len(r.history["epoch"]) for r in runs)
        ep = np.asarray(runs[0].history["epoch"][:n_ep], dtype=float) + 1.0
        seeds = ", ".join(str(r.seed) for r in runs[:6]) + (", ..." if len(runs) > 6 else "")
        lab = f"wd {wd}: {len(runs)} seed(s) ({seeds})"
        for ax, keys in ((ax_l, ("train_loss", "test_loss")), (ax_a, ("train_acc", "test_acc"))):
            for key, ls in zip(keys, ("-", "--")):
                Y = np.stack([arr(r.history, key)[:n_ep] for r in runs])
                ok = np.isfinite(Y)
                cols = ok.any(axis=0)
                if not cols.any():
                    continue
                Yf = np.where(ok, Y, np.nan)[:, cols]
                with np.errstate(all="ignore"):
                    med = np.nanmedian(Yf, axis=0)
                ax.plot(ep[cols], med, color=color, lw=1.2, ls=ls, label=lab if key.startswith("train") else None)
                if len(runs) > 1:
                    ax.fill_between(ep[cols], np.nanmin(Yf, axis=0), np.nanmax(Yf, axis=0), color=color,
                                    alpha=0.15 if ls == "-" else 0.08, lw=0)
    cfg = results[0].config
    title = f"{parse_group(cfg.group)}, q={cfg.hidden}, {cfg.optimizer} lr={cfg.lr}, {cfg.loss}"
    for ax in (ax_l, ax_a):
        ax.set_xscale("log")
        ax.set_xlabel("epoch + 1 (log scale)")
    ax_l.set_yscale("log")
    ax_l.set_ylabel("loss (log scale)")
    ax_a.set_ylabel("accuracy")
    ax_a.set_ylim(-0.02, 1.02)
    ax_l.set_title(f"loss: {title}", fontsize=9)
    ax_a.set_title(f"accuracy: {title}", fontsize=9)
    fig.suptitle("median over seeds; band: lowest to highest seed", fontsize=8)
    styles = [Line2D([], [], color="0.3", lw=1.2, label="train"),
              Line2D([], [], color="0.3", lw=1.2, ls="--", label="test")]
    ax_l.legend(handles=styles, fontsize=7, loc="upper right")
    ax_a.legend(fontsize=7, loc="lower right")
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=110)
    return str(path)
