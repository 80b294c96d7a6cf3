"""cogo: exact and numeric verification of the solutions quadratic networks learn.

The mathematics is docs/math.md ("SPEC n" in the docstrings is its section n); start with README.md.

``import cogo`` gives the names a researcher scripts with, grouped by topic (the
rest stays importable from its module, see docs/api/index.md):

- groups: :func:`group` (parse any group spec), :class:`Cyclic`, :class:`FiniteAbelianGroup`,
  :class:`FiniteGroup`;
- the semiring (SPEC 2-3): :class:`Network`;
- the catalogue and the constructions (SPEC 7): :func:`z_syn`, :func:`z_syn_ab`, :func:`z_nu`,
  :func:`z_nu_i`, :func:`z_xi`, :func:`z_F6`, :func:`z_F6_ab`, :func:`z_F46`, :func:`z_M`,
  :func:`construct`;
- the workflow: :func:`train`, :func:`load`, :func:`classify`, :func:`verify`.

Every name is imported on first use (PEP 562), so ``import cogo`` stays as cheap as
``import cogo.cli``: sympy, networkx and torch load only when a name that needs them is used.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural
   nets" (CoGO), 2024.
.. [2] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking"
   (Li^2), 2025.
"""
from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: name -> (module, attribute) of the curated API; everything else stays in its module.
_API = {
    # groups (SPEC 1, docs/groups.md)
    "group": ("cogo.algebra.groups", "parse_group"),
    "Cyclic": ("cogo.algebra.groups", "Cyclic"),
    "FiniteAbelianGroup": ("cogo.algebra.groups", "FiniteAbelianGroup"),
    "FiniteGroup": ("cogo.algebra.finite_groups", "FiniteGroup"),
    # the semiring (SPEC 2-3)
    "Network": ("cogo.algebra.network", "Network"),
    # the catalogue (SPEC 7)
    "z_syn": ("cogo.solvers.partial", "z_syn"),
    "z_syn_ab": ("cogo.solvers.partial", "z_syn_ab"),
    "z_nu": ("cogo.solvers.partial", "z_nu"),
    "z_nu_i": ("cogo.solvers.partial", "z_nu_i"),
    "z_xi": ("cogo.solvers.partial", "z_xi"),
    "z_F6": ("cogo.solvers.constructions", "z_F6"),
    "z_F6_ab": ("cogo.solvers.constructions", "z_F6_ab"),
    "z_F46": ("cogo.solvers.constructions", "z_F46"),
    "z_M": ("cogo.solvers.constructions", "z_M"),
    "construct": ("cogo.solvers.constructions", "construct"),
    # the workflow
    "TrainConfig": ("cogo.solvers.training", "TrainConfig"),
    "CogoError": ("cogo.errors", "CogoError"),
}

__all__ = sorted([*_API, "train", "load", "classify", "verify"])

# ``cogo.verify`` is both the package of the theorem checks and the function below: importing the
# package binds the name ``verify`` here to the package, so the package itself is callable
# (cogo/verify/__init__.py) and calls :func:`_verify`.


def __getattr__(name: str) -> Any:
    if name == "verify":
        return importlib.import_module("cogo.verify")
    if name in _API:
        module, attr = _API[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value  # cache: the next access is a plain attribute
        return value
    raise AttributeError(f"module 'cogo' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


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
    .. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural
       nets" (CoGO), 2024, the training setting of its experiments.
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


def _verify(group: Any = None, method: str = "both", checkpoint: Any = None):
    """Check the theorems of SPEC 3-7 on ``group`` (default Z_23), or judge one checkpoint.

    Without ``checkpoint``: every theorem, exact and/or numeric (``method``), with its
    negative controls (:func:`cogo.verify.theorems.run_all`), a list of
    :class:`cogo.verify.results.TheoremResult`; ``all(r.passed for r in results)`` is the
    verdict. With ``checkpoint``: the numeric verdict of that network
    (:func:`cogo.analysis.verdict.network_verdict`), whose ``.optimal`` says whether its loss
    and every condition of SPEC 5 hold within the stated tolerances.

    References
    ----------
    .. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural
       nets" (CoGO), 2024.
    """
    if checkpoint is not None:
        from cogo.analysis.verdict import network_verdict

        w = load(checkpoint, group=group)
        return network_verdict(Wa=w.Wa, Wb=w.Wb, Wc=w.Wc, group=w.group)
    from cogo.verify.theorems import run_all

    return run_all(23 if group is None else group, method=method)
