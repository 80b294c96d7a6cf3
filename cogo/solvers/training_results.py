"""What a training run leaves: :class:`TrainResult`, its checkpoints, ``summary.json`` and ``curves.png`` (SPEC 1).

Checkpoints
-----------
:func:`save_run` writes one file per model, ``d{label}_q{q}_wd{wd}_seed{s}.pt``,
through :func:`cogo.io.weights.save_checkpoint` (reference layout
``layera.weight`` (q, n), ``layerb.weight`` (q, n), ``layerc.weight`` (n, q))
with a ``meta`` dict of plain Python values and tensors only, so that
``torch.load(path, weights_only=True)`` reads it.  ``meta`` keys:

``format`` ("cogo-train/1"), ``cogo_version``, ``torch_version``, ``group``
(label such as ``'23'`` or ``'3x5'``), ``n``, every hyperparameter of
:class:`cogo.solvers.training_config.TrainConfig` (``hidden``, ``lr``, ``weight_decay``, ``epochs``,
``test_fraction``, ``loss``, ``optimizer``, ``momentum``, ``betas``, ``eps``,
``dtype``, ``device``, ``log_every``, ``snapshot_every``, ``snapshots``, ``snapshot_spacing``, ``log_early``),
``seed``, ``init``
and ``split`` (one-line descriptions), ``train_idx`` and ``test_idx`` (int64
tensors of pair indices ``a * n + b``), ``final`` (dict of ``train_loss``,
``test_loss``, ``train_acc``, ``test_acc``), ``history`` (dict of equal-length
lists ``epoch``, ``train_loss``, ``test_loss``, ``train_acc``, ``test_acc``,
recorded at epoch 0, every ``log_every`` epochs, at every snapshot epoch, at the last epoch and, with
``log_early``, at 1, 2, 5, 10, ... below ``log_every``),
``wall_time_s`` (of the batched program the model was in), ``kernel``, ``threads`` (CPU threads used;
the weights do not depend on it) and ``denormals`` (how float32 denormals were treated), and, when ``snapshot_every > 0`` or ``snapshots > 0``,
``snapshots``: a dict with ``epoch`` (list: 0, N, 2N, ..., or the ``snapshots`` epochs of
:func:`cogo.io.snapshots.snapshot_epochs`) and either, when
:func:`cogo.solvers.training.train` streamed them to disk (``snapshot_dir``, what ``cogo train`` does),
``format`` ("cogo-snapshots/1") and ``dir``, the name of the directory beside
the checkpoint holding one safetensors file per snapshot (see
:mod:`cogo.io.snapshots`), or, when kept in memory, the three weight keys holding
stacked tensors ``(S, q, n)``, ``(S, q, n)``, ``(S, n, q)``; and ``li2``: the Li^2
kernel statistics recorded at those epochs (docs/li2.md; as the reference code
records them every epoch): a dict with ``epoch``, ``eta`` and one list of floats
per :data:`cogo.solvers.li2_record.LI2_STATS` entry (mean diagonal and
off-diagonal of ``F~^T F~`` and ``F F^T``, ``||G_F||`` and ``cos(G_F, Y~Y~^T F~)``),
computed by :func:`cogo.solvers.li2_record.li2_statistics_of` on the model's
training pairs; ``cogo dynamics`` reads them instead of recomputing.

A ``summary.json`` beside the checkpoints lists every model's final metrics; a
folder takes more seeds (and weight decays) of the same settings
(:func:`mergeable_summary`).

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import json
import os
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import torch

from cogo._version import __version__
from cogo.algebra.group_parsing import as_group
from cogo.io.run_names import _fmt_wd, checkpoint_name
from cogo.io.outputs import atomic_write, atomic_write_text, check_output_dir, check_output_file
from cogo.io.weights import save_checkpoint
from cogo.runtime.errors import CogoError
from cogo.solvers.training_config import TrainConfig

__all__ = [
    "TrainResult",
    "FORMAT",
    "summary_dict",
    "check_run_outputs",
    "MERGE_FREE",
    "mergeable_summary",
    "save_run",
    "plot_history",
]

FORMAT = "cogo-train/1"


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
        return as_group(self.config.group).label

    def meta(self) -> dict:
        """Checkpoint metadata: plain Python values and tensors only (see module docstring)."""
        hp = self.config.hyperparameters()
        hp["weight_decay"] = float(self.weight_decay)
        G = as_group(self.config.group)
        meta = {
            "format": FORMAT,
            "cogo_version": __version__,
            "torch_version": str(torch.__version__),
            "group": G.label,
            "n": G.order,
            **({} if G.as_product is not None else {"group_table": torch.from_numpy(np.array(G.table))}),
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


def check_run_outputs(config: TrainConfig, seeds: Iterable[int], weight_decays: Sequence[float], out_dir: Path,
                      force: bool = False, plot: bool = False) -> list[Path]:
    """Check every file :func:`save_run` (and ``plot``) will write in ``out_dir``, before training.

    A checkpoint of the same name already in ``out_dir`` is refused (one
    line) unless ``force``: it would be overwritten and ``summary.json``
    would list only the new models.  Each path also passes
    :func:`cogo.io.outputs.check_output_file`.
    """
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
    return (isinstance(theirs, dict) and summary.get("group") == as_group(config.group).label
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
        "group": as_group(cfg.group).label,
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
    """
    from matplotlib.figure import Figure  # late: matplotlib; a Figure of its own, the caller's pyplot backend untouched
    from matplotlib.lines import Line2D  # late: matplotlib

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
    title = f"{as_group(cfg.group)}, q={cfg.hidden}, {cfg.optimizer} lr={cfg.lr}, {cfg.loss}"
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
