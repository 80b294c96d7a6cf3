"""The workflow fronts of the curated API (``cogo.train``, ``cogo.load``, ``cogo.classify``, ``cogo.verify``).

Thin, documented entry points over the modules that do the work; ``import cogo`` exposes them
(see :mod:`cogo`).
"""
from __future__ import annotations

from typing import Any

__all__ = ["train", "load", "classify", "verify"]


def load(path: Any, group: Any = None):
    """Read a checkpoint (``.pt`` or ``.npz``, weights only) into ``(Wa, Wb, Wc)``, its group and metadata.

    The same validated reader every command uses (:func:`cogo.checkpoints.load_weights`): a
    malformed, hostile or inconsistent file raises :class:`cogo.checkpoints.CheckpointError`
    (one line). ``group`` overrides the group recorded in the file.

    Returns
    -------
    cogo.checkpoints.LoadedWeights
        ``.Wa`` (q, n), ``.Wb`` (q, n), ``.Wc`` (n, q) float64 arrays, ``.group``, ``.meta``.
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


def verify(group: Any = None, method: str = "both", checkpoint: Any = None):
    """Check the theorems of SPEC 3-7 on ``group`` (default Z_23), or judge one checkpoint.

    Without ``checkpoint``: every theorem, exact and/or numeric (``method``), with its
    negative controls (:func:`cogo.verify.registry.run_all`), a list of
    :class:`cogo.verify.results.TheoremResult`; ``all(r.passed for r in results)`` is the
    verdict. With ``checkpoint``: the numeric verdict of that network
    (:func:`cogo.analysis.verdict.network_verdict`), whose ``.optimal`` says whether its loss
    and every condition of SPEC 5 hold within the stated tolerances.

    Returns
    -------
    list of TheoremResult, or Verdict
        The theorem rows without ``checkpoint``; the checkpoint's verdict
        (:class:`cogo.analysis.verdict.Verdict`) with it.
    """
    if checkpoint is not None:
        from cogo.analysis.verdict import network_verdict

        w = load(checkpoint, group=group)
        return network_verdict(Wa=w.Wa, Wb=w.Wb, Wc=w.Wc, group=w.group)
    from cogo.verify.registry import run_all

    return run_all(23 if group is None else group, method=method)
