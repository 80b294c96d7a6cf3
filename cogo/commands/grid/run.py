"""The end-to-end experiment: train a grid, classify every model, verify, publish one report.

``run_experiment`` is what ``cogo experiment`` and ``cogo demo`` run:

1. validate everything (groups, hyperparameters, device, output directory)
   before any work;
2. per group, train the seeds (and weight decays) that are not yet in the
   output directory as one batched program (:func:`cogo.solvers.training.train`),
   writing each checkpoint as soon as its batch ends, so an interrupted run
   loses no finished model; a checkpoint already there is reused only if its
   metadata matches the requested hyperparameters;
3. classify every final checkpoint (SPEC 8, :mod:`cogo.analysis.classify`);
4. run the theorem verifier on each group (SPEC 3-7, :mod:`cogo.proofs.registry`);
5. write ``report.md``, ``report.json`` and the figures (training curves,
   block-order histogram and angle histograms per group), each atomically.

Layout of the output directory::

    OUT/report.md  OUT/report.json
    OUT/d23/d23_q512_wd5e-05_seed1.pt ...      (one checkpoint per model)
    OUT/d23/classification.json  OUT/d23/classification.md
    OUT/figures/curves_d23.png  OUT/figures/orders_d23.png  OUT/figures/angles_d23_nu.png ...

The pipeline is the paper's experiment [1]_.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from cogo.algebra.activations import THEORY
from cogo.algebra.group_parsing import display_name, parse_group
from cogo.analysis.classify import classify_many
from cogo.analysis.nodes import activation_reports, catalogue_refusal
from cogo.analysis.report.render import angle_histograms, render_markdown, to_json_dict
from cogo.commands.grid.config import ExperimentConfig, check_resume, reusable
from cogo.commands.grid.report import curves, md_table, order_counts, order_histogram, summary_md, write_report
from cogo.dynamics.runs import aggregate, analyse_run, write_dynamics
from cogo.io.tables import dumps_json
from cogo.io.outputs import atomic_write, atomic_write_text
from cogo.io.weights import read_checkpoint, save_checkpoint
from cogo.runtime.executors import run_jobs
from cogo.runtime.limits import progress_callback
from cogo.runtime.threads import choose_threads, thread_limit
from cogo.io.run_names import checkpoint_name
from cogo.io.outputs import check_output_dir
from cogo.solvers.training import train

__all__ = ["run_experiment", "train_checkpoints"]


def _train_group(cfg: ExperimentConfig, label: str, run_dir: Path, progress: bool, log: Callable,
                 force: bool = False) -> list[Path]:
    paths: list[Path] = []
    for wd in cfg.weight_decays:
        tc = cfg.train_config(label, wd)
        todo = []
        for seed in cfg.seeds:
            p = run_dir / checkpoint_name(label, cfg.hidden, wd, seed)
            paths.append(p)
            if not reusable(p, tc, wd, seed, force=force):
                todo.append(seed)
        done = len(cfg.seeds) - len(todo)
        if done:
            log(f"  {display_name(label)}, wd {wd:g}: reusing {done} trained model(s) in {run_dir}")
        if todo:
            log(f"  {display_name(label)}, wd {wd:g}: training seeds {todo} as one batched program "
                f"(q={cfg.hidden}, {cfg.epochs} epochs, {cfg.device})")
            for r in train(tc, todo, [wd], progress=progress, snapshot_dir=run_dir if cfg.dynamics else None,
                           threads=cfg.threads):
                save_checkpoint(run_dir / checkpoint_name(label, cfg.hidden, wd, r.seed), r.Wa, r.Wb, r.Wc, r.meta())
    return paths


def train_checkpoints(tc, seeds: Sequence[int], wd: float, run_dir: str, snapshots: bool = False,
                      threads: int | None = None) -> list[str]:
    """One job of ``--executor`` (:mod:`cogo.runtime.executors`): train ``seeds`` as one batched program, write their checkpoints.

    Each checkpoint is written atomically as soon as the batch ends, so a job that
    dies loses only its own models; returns the paths written.
    """

    paths = []
    for r in train(tc, list(seeds), [wd], progress=False, snapshot_dir=Path(run_dir) if snapshots else None,
                   threads=threads):
        p = Path(run_dir) / checkpoint_name(tc.group, tc.hidden, wd, r.seed)
        save_checkpoint(p, r.Wa, r.Wb, r.Wc, r.meta())
        paths.append(str(p))
    return paths


def _train_on_executor(cfg: ExperimentConfig, labels: list[str], out: Path, executor, log: Callable,
                       force: bool = False) -> None:
    """Train every group x weight decay with missing checkpoints as one job each on ``executor`` (all groups at
    once); the per-group loop then finds every checkpoint trained and reuses it (resume as in-process)."""

    calls, names = [], []
    for label in labels:
        run_dir = check_output_dir(out / f"d{label}")
        for wd in cfg.weight_decays:
            tc = cfg.train_config(label, wd)
            todo = [s for s in cfg.seeds
                    if not reusable(run_dir / checkpoint_name(label, cfg.hidden, wd, s), tc, wd, s, force=force)]
            if todo:
                calls.append((tc, todo, float(wd), str(run_dir), bool(cfg.dynamics), cfg.threads))
                names.append(f"{display_name(label)} wd {wd:g} seeds {todo}")
    if calls:
        log(f"[train] {len(calls)} job(s) on the {executor.kind} executor (job files in {executor.folder})")

    def finished(i: int, paths: list[str]) -> None:
        log(f"  {names[i]}: wrote {len(paths)} checkpoint(s)")

    run_jobs(executor, train_checkpoints, calls, finished, names=names, log=log)

# --------------------------------------------------------------------------- the run
def run_experiment(cfg: ExperimentConfig, out: str | os.PathLike, progress: bool = True,
                   log: Callable[[str], None] = print, command: str = "", force: bool = False,
                   executor=None) -> dict:
    """Train, classify and verify the grid ``cfg`` into directory ``out``; return the report dict.

    ``executor`` (:class:`cogo.runtime.executors.ExecutorSettings`): where the training jobs run
    (default in this process); the checkpoints they write are gathered and reused as on resume.

    See the module docstring for the layout.

    Returns
    -------
    dict
        The report written to ``OUT/report.json`` (format ``cogo-experiment/1``): the configuration, one
        ``training`` row per model, per group the checkpoints, the classification (SPEC 8) or per-node reading,
        the figures and the dynamics, and the ``verification`` results of each group (SPEC 3-7).

    Raises
    ------
    ValueError
        One line (a :class:`cogo.runtime.errors.CogoError`), before any work, for a bad configuration, device, output
        directory or a resume with other settings.
    """

    t0 = time.perf_counter()
    cfg.validate()
    check_resume(cfg, out, force=force)  # before anything is written
    out = check_output_dir(out)
    labels = [parse_group(g).label for g in cfg.groups]
    figdir = out / "figures"
    figdir.mkdir(exist_ok=True)
    if executor is not None and executor.remote:
        _train_on_executor(cfg, labels, out, executor, log, force=force)

    groups_out, training, verification, class_md = [], [], {}, {}
    for label in labels:
        run_dir = check_output_dir(out / f"d{label}")
        log(f"[train] {display_name(label)}")
        paths = _train_group(cfg, label, run_dir, progress, log, force=force)
        metas = [read_checkpoint(p).meta for p in paths]
        training += _training_entries(label, paths, metas, out)
        if cfg.activation != THEORY:  # no catalogue form for another activation: the per-node report (SPEC 8.3)
            groups_out.append(_node_reading(cfg, label, paths, run_dir, out, metas, class_md, log))
        else:
            groups_out.append(_classify_group(cfg, label, paths, run_dir, out, metas, class_md, progress, log))
        if cfg.dynamics:
            groups_out[-1]["dynamics"] = _dynamics(paths, run_dir, out, label, log)
        if cfg.verify != "none":
            verification[label] = _verify(label, cfg, progress, log)
    return write_report(cfg, out, labels, command, training, groups_out, verification, class_md, t0)


def _training_entries(label: str, paths: list, metas: list[dict], out: Path) -> list[dict]:
    """The report's ``training`` rows of one group: seed, weight decay, path, wall time and final losses."""
    rows = []
    for p, m in zip(paths, metas):
        fin = m.get("final", {})
        rows.append({"group": label, "seed": m["seed"], "weight_decay": m["weight_decay"],
                     "path": os.path.relpath(p, out), "wall_time_s": m.get("wall_time_s"),
                     **{k: fin.get(k) for k in ("train_loss", "test_loss", "train_acc", "test_acc")}})
    return rows


def _classify_group(cfg: ExperimentConfig, label: str, paths: list, run_dir: Path, out: Path, metas: list,
                    class_md: dict, progress: bool, log: Callable) -> dict:
    """Classify one group's checkpoints (SPEC 8), write their reports and figures; the report's group entry."""

    log(f"[classify] {display_name(label)}: {len(paths)} checkpoint(s)")

    with thread_limit(cfg.threads or choose_threads("classify")):
        result = classify_many([str(p) for p in paths], progress=progress)
    cjson = to_json_dict(result)
    cmd_path = run_dir / "classification.md"
    atomic_write_text(run_dir / "classification.json", dumps_json(cjson))
    atomic_write_text(cmd_path, render_markdown(result))
    class_md[label] = summary_md(result.summary)

    figs = {"curves": f"figures/curves_d{label}.png", "orders": f"figures/orders_d{label}.png", "angles": {}}
    curves(metas, cfg.train_config(label), out / figs["curves"])
    png = order_histogram(result.reports, label)
    if png is None:  # no block in any model: no empty figure
        figs["orders"] = None
    else:
        with atomic_write(out / figs["orders"], "wb") as fh:
            fh.write(png)
    for name, data in angle_histograms(result).items():
        rel = f"figures/{name.replace('.png', '')}_d{label}.png"
        with atomic_write(out / rel, "wb") as fh:
            fh.write(data)
        figs["angles"][name.replace(".png", "")] = rel
    counts = order_counts(result.reports)
    return {
        "group": label,
        "checkpoints": [os.path.relpath(p, out) for p in paths],
        "order_histogram": {str(k): counts[k] for k in sorted(counts)},
        "classification": {"summary": cjson["summary"], "checkpoints": cjson["checkpoints"]},
        "classification_markdown": os.path.relpath(cmd_path, out),
        "figures": figs,
    }



def _dynamics(paths: list, run_dir: Path, out: Path, label: str, log: Callable) -> dict:
    """Read every run over time (cogo dynamics) into ``run_dir/dynamics``; the report's entry."""

    log(f"[dynamics] {display_name(label)}: reading the snapshots of {len(paths)} run(s)")
    runs = [analyse_run(p, cache_dir=run_dir / "dynamics" / "cache") for p in paths]
    written = write_dynamics(runs, run_dir / "dynamics")
    return {"json": os.path.relpath(written[0], out), "figures": [os.path.relpath(w, out) for w in written[1:]],
            "aggregate": aggregate(runs)}


def _verify(label: str, cfg: ExperimentConfig, progress: bool, log: Callable) -> list[dict]:
    """The theorem verifier on one group (SPEC 3-7), as plain dicts."""
    from cogo.proofs.registry import run_all, theorem_list  # late: sympy (--verify none needs no exact arithmetic)

    log(f"[verify] {display_name(label)} ({cfg.verify})")
    G = parse_group(label)
    tick = progress_callback(len(theorem_list(G)) * (2 if cfg.verify == "both" else 1), f"verify {G}",
                             off=not progress)
    return [r.to_dict() for r in run_all(G, cfg.verify, progress=tick)]


def _node_reading(cfg: ExperimentConfig, label: str, paths: list, run_dir: Path, out: Path, metas: list,
                  class_md: dict, log: Callable) -> dict:
    """The per-node frequency reading of a non-``sqr`` group (:mod:`cogo.analysis.nodes`): no catalogue name."""

    log(f"[nodes] {display_name(label)}: {len(paths)} checkpoint(s), activation {cfg.activation}")
    text, dicts = activation_reports([str(p) for p in paths], "experiment")
    note = catalogue_refusal(cfg.activation, "experiment").rsplit(".", 1)[0] + "."
    cmd_path = run_dir / "classification.md"
    atomic_write_text(run_dir / "classification.json", dumps_json({"format": "cogo-nodes/1", "note": note,
                                                                   "checkpoints": dicts}))
    atomic_write_text(cmd_path, f"# Per-node reading (activation {cfg.activation})\n\n```text\n{text}```\n")
    rows = [[os.path.basename(d["path"]), str(d["live"]), f"{d['single_frequency_fraction']:.3f}",
             f"{np.mean([n['ipr'] for n in d['nodes']]) if d['nodes'] else 0.0:.3f}", f"{d['accuracy']:.4f}"]
            for d in dicts]
    class_md[label] = note + "\n\n" + md_table(["checkpoint", "live nodes", "single-frequency fraction", "mean IPR",
                                                  "accuracy (all pairs)"], rows)
    figs = {"curves": f"figures/curves_d{label}.png", "orders": None, "angles": {}}
    curves(metas, cfg.train_config(label), out / figs["curves"])
    return {"group": label, "checkpoints": [os.path.relpath(p, out) for p in paths], "order_histogram": {},
            "classification": None, "nodes": {"activation": cfg.activation, "note": note, "checkpoints": dicts},
            "classification_markdown": os.path.relpath(cmd_path, out), "figures": figs}


