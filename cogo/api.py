"""The workflow fronts of the curated API (``cogo.train``, ``cogo.load``, ``cogo.classify``, ``cogo.verify``).

Thin, documented entry points over the modules that do the work; ``import cogo`` exposes them
(see :mod:`cogo`); ``cogo.save`` writes what ``cogo.load`` reads.  The model and its training are the paper's [1]_.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from cogo.algebra.network import Network
from cogo.analysis.classify import classify_many
from cogo.io.checkpoint import checkpoint_from_arrays
from cogo.io.layouts import read_options
from cogo.io.outputs import check_output_file
from cogo.io.sources import ACCEPTED, gather, label_of, weights_and_meta
from cogo.io.weights import read_checkpoint, save_checkpoint
from cogo.runtime.errors import CogoError
from cogo.runtime.limits import classify_estimate
from cogo.solvers.constructions import to_checkpoint

__all__ = ["train", "load", "save", "classify", "verify"]


def load(path: Any, group: Any = None, *, keys: Any = None, shared_embedding: bool = False,
         activation: str | None = None, force_group: bool = False):
    """Read a checkpoint (``.pt``, ``.npz`` or ``.safetensors``, weights only) once into a checkpoint object.

    The same validated reader every command uses (:func:`cogo.io.checkpoint.read_checkpoint`): a
    malformed, hostile or inconsistent file raises :class:`cogo.io.file_formats.CheckpointError`
    (one line). ``group``: the file's group (one that contradicts the group the file records is refused, unless
    ``force_group``); ``keys``, ``shared_embedding``, ``activation``: as ``cogo classify``'s flags (a foreign
    file's key map, docs/cli.md#layouts). The object can be handed to
    :func:`classify` and :func:`verify` in place of the path (the file is not read again).

    Returns
    -------
    cogo.io.checkpoint.Checkpoint
        ``.Wa`` (q, n), ``.Wb`` (q, n), ``.Wc`` (n, q) float64 arrays, ``.group``, ``.meta``, ``.layout``,
        ``.activation``, ``.dtype``, ``.snapshots``.
    """
    return read_checkpoint(path, group=group, options=read_options(keys=keys, shared_embedding=shared_embedding,
                                                                 activation=activation, force_group=force_group))


def train(group: Any = 23, seeds: Any = (1,), *, weight_decays: Any = None, progress: bool = False,
          **config: Any):
    """Train one model per ``(weight decay, seed)`` as one batched program (SPEC 1).

    ``config`` holds the fields of :class:`cogo.solvers.training_config.TrainConfig` (``hidden``,
    ``epochs``, ``lr``, ``weight_decay``, ...); the defaults are the reference experiment's.
    A thin front to :func:`cogo.solvers.training.train`.

    Returns
    -------
    list of cogo.solvers.training_results.TrainResult
        One per model, weight decay first, then seed; ``cogo.solvers.training_results.save_run`` writes them.
    """
    from cogo.solvers.training_config import TrainConfig  # late: torch
    from cogo.solvers.training import train as _train  # late: torch

    cfg = TrainConfig(group=str(group) if isinstance(group, int) else group, **config)
    return _train(cfg, seeds=list(seeds), weight_decays=weight_decays, progress=progress)


def classify(source: Any, group: Any = None, settings: Any = None, progress: bool = False):
    """Read trained networks: blocks, Kronecker factors, catalogue names (SPEC 8), aggregated with error bars.

    ``source``: a checkpoint path, a folder of checkpoints, a list, a training result (what
    :func:`train` returns, or one element of it) or an object with ``Wa, Wb, Wc, group``
    (what :func:`load` returns); every form is listed in :mod:`cogo.io.sources`.  ``group`` overrides
    the group recorded in the files; ``settings``: :class:`cogo.analysis.classify.Settings`
    (tolerances, the paper preset).  In-memory networks get the checks a file's weights get
    (:func:`cogo.io.checkpoint.checkpoint_from_arrays`, no file written); their reports name them
    ``<training result ...>``.

    Returns
    -------
    cogo.analysis.classify.ClassifyResult
        Always this one type, for one network or many (``cogo classify`` prints the same): ``.reports``
        (one :class:`cogo.analysis.report.network_report.NetworkReport` per network, ``.reports[0].blocks``),
        ``.summary``, ``.to_records()``, ``.to_pandas()`` (needs pandas).  A group without Abelian
        coordinates gets the irreducible-representation reading
        (:class:`cogo.analysis.irreps.IrrepsResult`, SPEC 9) instead.
    """
    items = gather(source)
    sources = [it if isinstance(it, Path) else checkpoint_from_arrays(*weights_and_meta(it), where=label_of(it, i),
                                                                      estimate=classify_estimate)
               for i, it in enumerate(items)]  # in-memory networks: validated as a file's weights, never written
    result = classify_many(sources, group=group, settings=settings, progress=progress)
    return result


def save(network: Any, path: Any, force: bool = False) -> Path:
    """Write a network as a checkpoint that :func:`load`, :func:`classify` and every command read.

    ``network``: a training result (one element of what :func:`train` returns: its whole record,
    as ``cogo train`` writes it), an object with ``Wa, Wb, Wc, group`` (what :func:`load` returns)
    or a :class:`cogo.algebra.network.Network` (a construction: its real weights, which must be
    Hermitian).  An existing file is refused (:class:`cogo.runtime.errors.CogoError`, one line) unless
    ``force``; the write is atomic.  Returns the path written.
    """
    try:
        out = check_output_file(path, force=force, label="path")
    except CogoError as exc:  # the command line's wording names --force; here it is the keyword
        raise CogoError(str(exc).replace("use --force", "pass force=True")) from None
    if isinstance(network, Network):
        to_checkpoint(network, out)
        return out
    if not (all(hasattr(network, a) for a in ("Wa", "Wb", "Wc"))
            and (hasattr(network, "group") or hasattr(network, "config"))):
        raise CogoError(f"cannot save a {type(network).__name__}: give one network ({ACCEPTED.split(', a list')[0]}"
                        ", or a cogo Network); save the results of cogo.train one by one")
    Wa, Wb, Wc, meta = weights_and_meta(network)
    save_checkpoint(out, Wa, Wb, Wc, meta)
    return out


def verify(group: Any = None, method: str = "both", checkpoint: Any = None, *, tol: float | None = None,
           max_distance: float | None = None, keys: Any = None, shared_embedding: bool = False,
           activation: str | None = None, max_relative_loss: float | None = None, force_group: bool = False,
           certificates: str | None = None):
    """Check the theorems of SPEC 3-7 on ``group`` (default Z_23), or judge one checkpoint.

    Without ``checkpoint``: every theorem, exact and/or numeric (``method``), with its
    negative controls (:func:`cogo.proofs.registry.run_all`), a list of
    :class:`cogo.proofs.results.TheoremResult`; ``all(r.passed for r in results)`` is the
    verdict. With ``checkpoint`` (a path, or a checkpoint from :func:`load`): what
    ``cogo verify --checkpoint`` says, with its options (``tol``, ``max_distance``, ``max_relative_loss``, ``keys``,
    ``shared_embedding``, ``activation``; ``group`` is the file's group, as ``cogo classify --group`` reads it: one
    that contradicts the group the file records is refused unless ``force_group``):
    :func:`cogo.proofs.trained.verify_checkpoint`, whose ``to_dict()`` is the command's JSON and
    whose ``exit_code`` its exit status.  ``certificates`` (a directory; theorems only): also write the
    certificates of ``cogo verify --certificates`` for the independent checker ``cogo-check``
    (:mod:`cogo.proofs.export`).

    Returns
    -------
    list of TheoremResult, or CheckpointVerdict
        The theorem rows without ``checkpoint``; the checkpoint's verdict
        (:class:`cogo.proofs.trained.CheckpointVerdict`: ``verdict``, ``nearest_optimum``,
        ``exit_code``, ``optimal`` (the secondary loss line)) with it.
    """
    if checkpoint is not None:
        from cogo.proofs.trained import DEFAULT_MAX_DISTANCE, DEFAULT_MAX_RELATIVE_LOSS, verify_checkpoint  # late: sympy

        if certificates is not None:
            raise ValueError("certificates: for a checkpoint use `cogo verify --checkpoint FILE --certificates DIR`")
        options = read_options(keys=keys, shared_embedding=shared_embedding, activation=activation,
                               force_group=force_group)
        return verify_checkpoint(checkpoint, group=group, tol=tol,
                                 max_distance=DEFAULT_MAX_DISTANCE if max_distance is None else max_distance,
                                 max_relative_loss=(DEFAULT_MAX_RELATIVE_LOSS if max_relative_loss is None
                                                    else max_relative_loss), options=options)
    from cogo.proofs.registry import run_all  # late: sympy

    if certificates is None:
        return run_all(23 if group is None else group, method=method)
    from cogo.algebra.group_parsing import parse_group  # late: start-up
    from cogo.proofs.export import check_target, export_run  # late: sympy

    G = parse_group(23 if group is None else group)
    check_target(certificates, force=False)
    results = run_all(G, method=method)
    export_run(certificates, G, results, f"cogo.verify({G.label!r}, {method!r})")
    return results
