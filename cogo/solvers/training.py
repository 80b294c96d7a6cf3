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
and initialization depend only on its own seed (:func:`cogo.solvers.batch.split_pairs`,
:func:`cogo.solvers.batch.init_weights`): a model trained alone and inside a batch follows the
same loss curve (the tests check this to 1e-5 relative in float32).

Two kernels compute the same gradient (:func:`cogo.solvers.batch.choose_kernel`): ``grid`` forms
``h`` for all ``n^2`` pairs by broadcasting and multiplies the residual of each
model's test pairs by 0 (fastest when most pairs train; the full-data metrics
come for free), ``gather`` forms ``h`` for each model's training pairs only
by ``index_select`` and scatters the gradient back with ``index_add_``.

Metrics (loss and accuracy on the train and test pairs) are recorded for the
weights after ``epoch`` updates, at epoch 0, every ``log_every`` epochs, at
the last epoch and, with ``log_early``, at 1, 2, 5, 10, ... below
``log_every``; the loss is the training objective of SPEC 1 (without the
weight-decay term).

The optimizers are ``torch.optim.Adam``, ``torch.optim.AdamW`` and
``torch.optim.SGD`` (optional momentum) acting on the stacked tensor, with each
model's own weight decay applied as those optimizers apply theirs (L2 added to
the gradient for Adam and SGD, decoupled ``W *= 1 - lr wd`` for AdamW); the
tests compare whole trajectories with a plain ``nn.Linear`` + autograd +
``torch.optim`` reference.  The backward pass stays hand-written: it is 2-3x
faster than autograd on the same batched program (``benchmarks/bench_training.py``).

What a run leaves (checkpoints, ``summary.json``, ``curves.png``) is
:mod:`cogo.solvers.training_results`; the hyperparameters are
:class:`cogo.solvers.training_config.TrainConfig`; the batched program is
:mod:`cogo.solvers.batch`.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Any, Iterable, Sequence

import torch

from cogo.algebra.group_parsing import as_group
from cogo.io.file_formats import WEIGHT_KEYS
from cogo.io.run_names import _fmt_wd, checkpoint_name
from cogo.io.snapshots import SnapshotWriter, snapshot_dir_name, snapshot_epochs
from cogo.runtime.limits import models_per_batch
from cogo.runtime.threads import (choose_threads, flush_denormals, set_flush_denormal_all, thread_limit,
                                  threads_override, training_elements)
from cogo.solvers.batch import (_available_bytes, _Batch, _per_pair, _work_elements, choose_kernel, pair_targets,
                                split_sizes)
from cogo.solvers.li2_record import LI2_STATS, li2_statistics_of, ridge_eta
from cogo.solvers.resume import ResumeState
from cogo.solvers.training_config import LOSSES, TrainConfig, check_device
from cogo.solvers.training_options import OptionsBatch, uses_options
from cogo.solvers.training_results import TrainResult

__all__ = [
    "pair_metrics",
    "validate_run",
    "train",
]

_METRICS = ("train_loss", "test_loss", "train_acc", "test_acc")


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
    """
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; choose one of {', '.join(LOSSES)}")
    single = Wa.dim() == 2
    if single:
        Wa, Wb, Wc = Wa[None], Wb[None], Wc[None]
    a, b, c = (t.to(Wa.device) for t in pair_targets(group))
    per, correct = _per_pair(Wa.transpose(1, 2), Wb.transpose(1, 2), Wc, a, b, c, loss)
    return (per[0], correct[0]) if single else (per, correct)


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
        ``'grid'`` or ``'gather'`` (:func:`cogo.solvers.batch.choose_kernel`).
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
    n = as_group(config.group).order
    n_train, _ = split_sizes(n, config.test_fraction)
    kernel = choose_kernel(n, n_train, kernel)
    per_model = _work_elements(n, config.hidden, n_train, kernel) * config.torch_dtype.itemsize
    free = _available_bytes(device)
    n_models = len(seeds) * len(wds)
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
    :func:`cogo.solvers.batch.choose_kernel`).  Neither changes the results beyond rounding.
    Raises ValueError (one line) on any bad value before any work starts.
    Returns one :class:`cogo.solvers.training_results.TrainResult` per model, weights on the CPU in the
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

    Examples
    --------
    >>> cfg = TrainConfig(group="7", hidden=16, epochs=50, log_every=25)
    >>> res = train(cfg, seeds=[1, 2], weight_decays=[0.0, 1e-3], progress=False)
    >>> [(r.weight_decay, r.seed, r.history["epoch"]) for r in res]
    [(0.0, 1, [0, 25, 50]), (0.0, 2, [0, 25, 50]), (0.001, 1, [0, 25, 50]), (0.001, 2, [0, 25, 50])]
    >>> res[0].Wa.shape, res[0].Wc.shape
    (torch.Size([16, 7]), torch.Size([7, 16]))
    """
    threads = threads if threads is not None else threads_override()  # set_threads / COGO_THREADS (cogo.runtime.threads)

    seeds, wds, kernel, max_batch = validate_run(config, seeds, weight_decays, max_batch, kernel)
    device = torch.device(config.device)
    models = [(wd, s) for wd in wds for s in seeds]
    size = int(max_batch or len(models))
    results: list[TrainResult] = []
    if threads is None:
        n = as_group(config.group).order
        rows = n * n if kernel == "grid" else split_sizes(n, config.test_fraction)[0]
        threads = 1 if device.type != "cpu" else choose_threads("train", training_elements(n, config.hidden, size, rows))
    # Weight decay drives dead nodes to ~1e-39 (SPEC 8.2), below float32's smallest normal
    # number; x86 CPUs do denormal arithmetic ~10x slower (measured: 9x on a d=23 run).
    # Flushing denormals to zero changes no value above 1.2e-38 and so not the network's function.
    # The flag is per thread: set on every pool thread, else results depend on the thread count.
    with thread_limit(threads):
        threads, denormals = flush_denormals(threads)
        finished: list = []   # the states of the programs done, removed once every program is (a resume reuses them)
        try:
            for start in range(0, len(models), size):
                results.extend(_train_batch(config, models[start:start + size], device, progress, kernel,
                                            snapshot_dir, resume_every=resume_every, resume=resume, log=log,
                                            finished=finished))
        finally:
            set_flush_denormal_all(False, threads)
        for saver in finished:
            saver.done()
    for r in results:
        r.threads, r.denormals = threads, denormals
    return results


def _train_batch(cfg: TrainConfig, models: list[tuple[float, int]], device: torch.device,
                 progress: bool, kernel: str, snapshot_dir: str | os.PathLike | None = None,
                 resume_every: int = 0, resume: bool = False, log: Any = None,
                 finished: list | None = None) -> list[TrainResult]:
    """Train one batched program of ``models`` (see :func:`train`); one :class:`cogo.solvers.training_results.TrainResult` per model.

    ``finished``: the program's resume state is appended there, to be removed by the caller once every program
    is done (an interruption in a later program leaves it, so that ``--resume`` continues this one from it);
    None: removed at once."""
    t0 = time.perf_counter()
    batch = (OptionsBatch if uses_options(cfg) else _Batch)(cfg, models, device, kernel)
    M = batch.M
    history: list[dict[str, list]] = [{"epoch": [], **{k: [] for k in _METRICS}} for _ in range(M)]
    snaps: list[tuple[torch.Tensor, ...]] = []
    snap_epochs: list[int] = []
    snap_at = set(snapshot_epochs(cfg.epochs, cfg.snapshot_every, cfg.snapshots, cfg.snapshot_spacing))
    writers = _snapshot_writers(cfg, models, batch, snap_at, snapshot_dir)
    start_epoch, saver = 0, None
    if resume_every or resume:  # resumable training (cogo.solvers.resume): periodic atomic states, kept snapshots
        saver = ResumeState(snapshot_dir, cfg, models, batch.kernel, device, every=resume_every, log=log)
        if resume:
            start_epoch = saver.restore(batch, history, snap_epochs, writers)
    bar = None
    if progress:
        from tqdm.auto import tqdm  # late: tqdm

        bar = tqdm(total=cfg.epochs, initial=start_epoch, desc=f"train {as_group(cfg.group)} q={cfg.hidden} x{M}",
                   unit="epoch", dynamic_ncols=True)
    _run_epochs(cfg, batch, models, history, snaps, snap_epochs, snap_at, writers, saver, bar, start_epoch)
    if bar is not None:
        bar.close()
    wall = time.perf_counter() - t0
    if saver is not None:
        wall += saver.elapsed_before
        if finished is None:
            saver.done()
        else:
            finished.append(saver)
    results = _batch_results(cfg, models, batch, history, snaps, snap_epochs, snap_at, writers, wall)
    if hasattr(batch, "finish"):
        batch.finish(results)
    return results


def _snapshot_writers(cfg: TrainConfig, models: list[tuple[float, int]], batch: Any, snap_at: set,
                      snapshot_dir: str | os.PathLike | None) -> list:
    """One :class:`cogo.io.snapshots.SnapshotWriter` per model when snapshots stream to ``snapshot_dir``, else ``[]``."""
    if not (snap_at and snapshot_dir is not None):
        return []
    return [SnapshotWriter(Path(snapshot_dir) / snapshot_dir_name(checkpoint_name(cfg.group, cfg.hidden, wd, s)),
                           cfg.group, batch.n, batch.q, cfg.dtype) for wd, s in models]


def _run_epochs(cfg: TrainConfig, batch: Any, models: list[tuple[float, int]], history: list, snaps: list,
                snap_epochs: list, snap_at: set, writers: list, saver: Any, bar: Any, start_epoch: int) -> None:
    """The epoch loop: save a resumable state, record, snapshot, then update (the last epoch only records)."""
    M = batch.M
    last_bar = start_epoch
    early = set(cfg.early_log_epochs())
    # iteration `epoch` sees the weights after `epoch` updates: record, snapshot, then update
    for epoch in range(start_epoch, cfg.epochs + 1):
        if saver is not None:
            saver.maybe_save(epoch, batch, history, snap_epochs, writers, cfg.epochs)
        log = epoch % cfg.log_every == 0 or epoch == cfg.epochs or epoch in snap_at or epoch in early
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
    """One :class:`cogo.solvers.training_results.TrainResult` per model: final weights, split, history, final metrics and snapshots."""
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
    for m, (wd, seed) in enumerate(models):
        tr = batch.splits[seed][0].cpu().numpy()
        eta = float(cfg.ridge) if cfg.top == "ridge" else ridge_eta(wd, len(tr))
        st = li2_statistics_of(W[0][m].numpy(), W[1][m].numpy(), cfg.group, tr, eta, cfg.activation)
        rec = history[m].setdefault("li2", {"epoch": [], "eta": eta, **{k: [] for k in LI2_STATS}})
        rec["epoch"].append(int(epoch))
        for k in LI2_STATS:
            rec[k].append(float(st[k][0]))


