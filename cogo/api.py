"""The workflow fronts of the curated API (``cogo.train``, ``cogo.load``, ``cogo.classify``, ``cogo.verify``).

Thin, documented entry points over the modules that do the work; ``import cogo`` exposes them
(see :mod:`cogo`).
"""
from __future__ import annotations

from typing import Any

__all__ = ["train", "load", "classify", "verify"]


def load(path: Any, group: Any = None):
    """Read a checkpoint (``.pt``, ``.npz`` or ``.safetensors``, weights only) once into a checkpoint object.

    The same validated reader every command uses (:func:`cogo.io.checkpoint.read_checkpoint`): a
    malformed, hostile or inconsistent file raises :class:`cogo.checkpoints.CheckpointError`
    (one line). ``group`` overrides the group recorded in the file. The object can be handed to
    :func:`classify` and :func:`verify` in place of the path (the file is not read again).

    Returns
    -------
    cogo.io.checkpoint.Checkpoint
        ``.Wa`` (q, n), ``.Wb`` (q, n), ``.Wc`` (n, q) float64 arrays, ``.group``, ``.meta``, ``.layout``,
        ``.activation``, ``.dtype``, ``.snapshots``.
    """
    from cogo.checkpoints import load_weights

    return load_weights(path, group=group)


def train(group: Any = 23, seeds: Any = (1,), *, weight_decays: Any = None, progress: bool = False,
          **config: Any):
    """Train one model per ``(weight decay, seed)`` as one batched program (SPEC 1).

    ``config`` holds the fields of :class:`cogo.solvers.training.TrainConfig` (``hidden``,
    ``epochs``, ``lr``, ``weight_decay``, ...); the defaults are the reference experiment's.
    A thin front to :func:`cogo.solvers.training.train`.

    Returns
    -------
    list of cogo.solvers.training.TrainResult
        One per model, weight decay first, then seed; ``cogo.solvers.training.save_run`` writes them.

    References
    ----------
    .. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
    """
    from cogo.solvers.training import TrainConfig
    from cogo.solvers.training import train as _train

    cfg = TrainConfig(group=str(group) if isinstance(group, int) else group, **config)
    return _train(cfg, seeds=list(seeds), weight_decays=weight_decays, progress=progress)


def classify(paths: Any, group: Any = None, settings: Any = None):
    """Read trained checkpoints: blocks, Kronecker factors, catalogue names (SPEC 8).

    ``paths``: one checkpoint path, or a list of them (aggregated with error bars, as
    ``cogo classify`` does). ``settings``: :class:`cogo.analysis.classify.Settings`
    (tolerances, the paper preset).

    Returns
    -------
    report
        For one path, the reading of that network (:func:`cogo.analysis.classify.classify_checkpoint`);
        for a list, the aggregate (:func:`cogo.analysis.classify.classify_many`).
    """
    from cogo.analysis import classify as _c

    if isinstance(paths, (list, tuple)):
        return _c.classify_many(paths, group=group, settings=settings)
    return _c.classify_checkpoint(paths, group=group, settings=settings)


def verify(group: Any = None, method: str = "both", checkpoint: Any = None, *, tol: float | None = None,
           max_distance: float | None = None, keys: Any = None, shared_embedding: bool = False,
           activation: str | None = None):
    """Check the theorems of SPEC 3-7 on ``group`` (default Z_23), or judge one checkpoint.

    Without ``checkpoint``: every theorem, exact and/or numeric (``method``), with its
    negative controls (:func:`cogo.verify.registry.run_all`), a list of
    :class:`cogo.verify.results.TheoremResult`; ``all(r.passed for r in results)`` is the
    verdict. With ``checkpoint`` (a path, or a checkpoint from :func:`load`): what
    ``cogo verify --checkpoint`` says, with its options (``tol``, ``max_distance``, ``keys``,
    ``shared_embedding``, ``activation``; ``group`` overrides the file's group):
    :func:`cogo.verify.checkpoint.verify_checkpoint`, whose ``to_dict()`` is the command's JSON and
    whose ``exit_code`` its exit status.

    Returns
    -------
    list of TheoremResult, or CheckpointVerdict
        The theorem rows without ``checkpoint``; the checkpoint's verdict
        (:class:`cogo.verify.checkpoint.CheckpointVerdict`: ``verdict``, ``nearest_optimum``,
        ``exit_code``, ``optimal`` (the secondary loss line)) with it.
    """
    if checkpoint is not None:
        from cogo.readers import read_options
        from cogo.verify.checkpoint import DEFAULT_MAX_DISTANCE, verify_checkpoint

        with read_options(keys=keys, shared_embedding=shared_embedding, activation=activation):
            return verify_checkpoint(checkpoint, group=group, tol=tol,
                                     max_distance=DEFAULT_MAX_DISTANCE if max_distance is None else max_distance)
    from cogo.verify.registry import run_all

    return run_all(23 if group is None else group, method=method)
