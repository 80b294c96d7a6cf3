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
4. run the theorem verifier on each group (SPEC 3-7, :mod:`cogo.proofs.theorems`);
5. write ``report.md``, ``report.json`` and the figures (training curves,
   block-order histogram and angle histograms per group), each atomically.

Layout of the output directory::

    OUT/report.md  OUT/report.json
    OUT/d23/d23_q512_wd5e-05_seed1.pt ...      (one checkpoint per model)
    OUT/d23/classification.json  OUT/d23/classification.md
    OUT/figures/curves_d23.png  OUT/figures/orders_d23.png  OUT/figures/angles_d23_nu.png ...
"""
from __future__ import annotations

import json
import math
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Sequence

import numpy as np

from cogo._version import __version__
from cogo.algebra.spec import parse_group
from cogo.runtime.errors import CogoError
from cogo.io.formatting import dumps_json, render_table

__all__ = ["ExperimentConfig", "run_experiment", "DEMO_CONFIG", "fresh_directory"]

#: The training options of cogo.solvers.training_options and their defaults (named in the report when changed).
_OPTION_DEFAULTS = {"activation": "sqr", "batch_size": 0, "label_noise": 0.0, "top": "trained", "ridge": 1e-3}
#: Hyperparameters whose recorded value must match for a checkpoint to be reused.
#: (The label-noise fraction is not among them: the checkpoint records the corrupted pairs under that key; the
#: report's grid check, :data:`_GRID_KEYS`, holds the fraction.)
_MATCH_KEYS = ("hidden", "lr", "epochs", "test_fraction", "loss", "optimizer", "dtype", "activation", "batch_size",
               "top", "ridge")


@dataclass
class ExperimentConfig:
    """A grid of training runs: every group x weight decay x seed (defaults: the reference experiment)."""

    groups: Sequence[str] = ("23",)
    seeds: Sequence[int] = (1, 2, 3, 4, 5)
    weight_decays: Sequence[float] = (5e-5,)
    hidden: int = 512
    epochs: int = 10000
    lr: float = 0.01
    test_fraction: float = 0.1
    loss: str = "mse"
    optimizer: str = "adam"
    dtype: str = "float32"
    device: str = "cpu"
    verify: str = "both"  # 'exact', 'numeric', 'both' or 'none'
    log_every: int = 50
    dynamics: int = 0  # > 0: snapshot every N epochs and read each run over time (cogo.dynamics.runs)
    threads: int | None = None  # CPU threads; None: the policy of cogo.runtime.threads (results do not depend on it)
    #: the training options of cogo.solvers.training_options (cogo train's flags of the same names)
    activation: str = "sqr"
    batch_size: int = 0
    label_noise: float = 0.0
    top: str = "trained"
    ridge: float = 1e-3

    def train_config(self, group: str, weight_decay: float | None = None):
        from cogo.solvers.training_config import TrainConfig

        return TrainConfig(group=parse_group(group).label, hidden=self.hidden, lr=self.lr,
                           weight_decay=self.weight_decays[0] if weight_decay is None else weight_decay,
                           epochs=self.epochs, test_fraction=self.test_fraction, loss=self.loss,
                           optimizer=self.optimizer, dtype=self.dtype, device=self.device,
                           log_every=self.log_every, snapshot_every=int(self.dynamics), activation=self.activation,
                           batch_size=self.batch_size, label_noise=self.label_noise, top=self.top, ridge=self.ridge,
                           log_early=True)  # the curves' epoch axis is logarithmic: record 1, 2, 5, ... too

    def validate(self) -> "ExperimentConfig":
        """Raise ValueError (one line) on any bad value; nothing is trained or written."""
        from cogo.solvers.training import validate_run

        if not self.groups:
            raise CogoError("at least one group is required")
        labels = [parse_group(g).label for g in self.groups]
        if len(set(labels)) != len(labels):
            raise CogoError(f"duplicate groups in {list(self.groups)}")
        for g in self.groups:  # the experiment's classify/verify steps are the Abelian ones (SPEC 3-8)
            if parse_group(g).abelian is None:
                raise CogoError(f"cogo experiment needs Abelian groups Z_d1 x ... x Z_dn; for {g} use cogo train "
                                "and cogo classify (the irreducible-representation reading, SPEC 9)")
        if self.verify not in ("exact", "numeric", "both", "none"):
            raise CogoError(f"verify must be exact, numeric, both or none; got {self.verify!r}")
        if self.threads is not None and (isinstance(self.threads, bool) or not isinstance(self.threads, int)
                                         or self.threads < 1):
            raise CogoError(f"threads must be a positive integer, got {self.threads!r}")
        for g in labels:
            validate_run(self.train_config(g), self.seeds, self.weight_decays)
            if self.verify in ("numeric", "both"):
                from cogo.runtime.limits import require, verify_estimate

                n = parse_group(g).order
                require(verify_estimate(n, self.verify, n % 2 == 0))
        return self


#: ``cogo demo``: d=23 at the reference hyperparameters, 5 seeds (about a minute on 2 CPU cores).
DEMO_CONFIG = ExperimentConfig(groups=("23",), seeds=(1, 2, 3, 4, 5))


def fresh_directory(prefix: str = "cogo-demo", parent: str | os.PathLike = ".") -> Path:
    """A directory name that does not exist yet: ``PREFIX-YYYYmmdd-HHMMSS`` (with a suffix if needed).

    Returns
    -------
    pathlib.Path
        ``PARENT/PREFIX-YYYYmmdd-HHMMSS`` (or with ``-1``, ``-2``, ... appended), which does not exist yet.
    """
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(parent) / f"{prefix}-{stamp}"
    path, i = base, 1
    while path.exists():
        path = Path(f"{base}-{i}")
        i += 1
    return path


# --------------------------------------------------------------------------- training with resume
#: Settings of the grid that a resumed experiment must repeat exactly (``report.json`` ``config``).
_GRID_KEYS = ("groups", "seeds", "weight_decays", "hidden", "epochs", "lr", "test_fraction", "loss", "optimizer",
              "dtype", "log_every", "dynamics", "activation", "batch_size", "label_noise", "top", "ridge")


def check_resume(cfg: ExperimentConfig, out: str | os.PathLike, force: bool = False) -> None:
    """Before anything is written: refuse to resume into ``out`` with other settings (CogoError, one line).

    * ``out/report.json`` of an earlier run must describe the same grid
      (:data:`_GRID_KEYS`): a new grid in an old folder is an error unless
      ``force`` (then the new report describes only the new grid);
    * every checkpoint already in ``out/d*/`` is read now, so a corrupt one in
      any group is reported before any file is rewritten; one that is not part
      of the requested grid (another ``--hidden`` or ``--wd``, which are in the
      file names, another seed or group) or was trained with other settings is
      an error unless ``force``;
    * the report files and figure folder must pass :mod:`cogo.io.outputs`.
    """
    from cogo.io.weights import load_weights
    from cogo.io.outputs import check_output_file
    from cogo.io.naming import checkpoint_name

    out = Path(out)
    if not out.is_dir():
        return
    labels = [parse_group(g).label for g in cfg.groups]
    rep = out / "report.json"
    if rep.exists() and not force:
        try:
            old = json.loads(rep.read_text())["config"]
        except (OSError, ValueError, KeyError, TypeError):
            raise CogoError(f"{rep} is not a readable experiment report; use a fresh --out, or --force") from None
        new = {**asdict(cfg), "groups": labels, "seeds": list(cfg.seeds),
               "weight_decays": [float(w) for w in cfg.weight_decays]}
        diff = []
        defaults = asdict(ExperimentConfig())  # a report of an earlier release lacks the keys added since
        for k in _GRID_KEYS:
            a, b = old.get(k, defaults.get(k) if k not in ("dynamics",) else None), new.get(k)
            if isinstance(b, list):
                same = isinstance(a, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
            else:
                same = a is None and k == "dynamics" and not b or _same(a, b)
            if not same:
                diff.append(f"{k} {a!r} -> {b!r}")
        if diff:
            raise CogoError(f"{out} holds an experiment with other settings ({'; '.join(diff)}); resuming would mix "
                            "them: use a fresh --out, or --force to run the new grid there")
    expected = {}
    for label in labels:
        for wd in cfg.weight_decays:
            for seed in cfg.seeds:
                expected[out / f"d{label}" / checkpoint_name(label, cfg.hidden, wd, seed)] = (label, wd, seed)
    for path in sorted(out.glob("d*/*.pt")):
        w = load_weights(path)  # CheckpointError (one line) for a corrupt file, before anything is written
        if path not in expected:
            if not force:
                raise CogoError(f"{path} is not part of the requested grid (other hidden size, weight decay, seed "
                                "or group); resuming would mix settings: use a fresh --out, or --force")
            continue
        label, wd, seed = expected[path]
        if not force:
            _reusable(path, cfg.train_config(label, wd), wd, seed, weights=w)
    for name in ("report.json", "report.md"):
        check_output_file(out / name, force=force, label="report", existing_ok=True)  # resuming replaces the report


def _reusable(path: Path, cfg, wd: float, seed: int, weights: Any = None, force: bool = False) -> bool:
    """True if ``path`` is a valid checkpoint trained with exactly these settings.

    A readable checkpoint with other settings raises CogoError: the output
    directory belongs to another experiment (with ``force`` it is retrained).
    """
    from cogo.io.weights import load_weights

    if not path.is_file():
        return False
    w = weights if weights is not None else load_weights(path)  # CheckpointError (one line) if malformed
    meta = w.meta
    want = {k: getattr(cfg, k) for k in _MATCH_KEYS}
    want.update(group=cfg.group, seed=seed)
    got = {k: meta.get(k) for k in want}
    bad = [k for k in want if not _same(got[k], want[k])]
    if not _same(meta.get("weight_decay"), wd):
        bad.append("weight_decay")
    if bad and force:
        return False
    if bad:
        raise CogoError(
            f"{path} was trained with other settings ({', '.join(f'{k}={got.get(k, meta.get(k))!r}' for k in bad)}); "
            "use a fresh --out directory"
        )
    return True


def _same(a: Any, b: Any) -> bool:
    if isinstance(b, float) or isinstance(a, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=0.0)
        except (TypeError, ValueError):
            return False
    return a == b


def _train_group(cfg: ExperimentConfig, label: str, run_dir: Path, progress: bool, log: Callable,
                 force: bool = False) -> list[Path]:
    from cogo.io.weights import save_checkpoint
    from cogo.io.naming import checkpoint_name
    from cogo.solvers.training import train

    paths: list[Path] = []
    for wd in cfg.weight_decays:
        tc = cfg.train_config(label, wd)
        todo = []
        for seed in cfg.seeds:
            p = run_dir / checkpoint_name(label, cfg.hidden, wd, seed)
            paths.append(p)
            if not _reusable(p, tc, wd, seed, force=force):
                todo.append(seed)
        done = len(cfg.seeds) - len(todo)
        if done:
            log(f"  Z_{label}, wd {wd:g}: reusing {done} trained model(s) in {run_dir}")
        if todo:
            log(f"  Z_{label}, wd {wd:g}: training seeds {todo} as one batched program "
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
    from cogo.io.weights import save_checkpoint
    from cogo.io.naming import checkpoint_name
    from cogo.solvers.training import train

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
    from cogo.runtime.executors import run_jobs
    from cogo.io.naming import checkpoint_name
    from cogo.io.outputs import check_output_dir

    calls, names = [], []
    for label in labels:
        run_dir = check_output_dir(out / f"d{label}")
        for wd in cfg.weight_decays:
            tc = cfg.train_config(label, wd)
            todo = [s for s in cfg.seeds
                    if not _reusable(run_dir / checkpoint_name(label, cfg.hidden, wd, s), tc, wd, s, force=force)]
            if todo:
                calls.append((tc, todo, float(wd), str(run_dir), bool(cfg.dynamics), cfg.threads))
                names.append(f"Z_{label} wd {wd:g} seeds {todo}")
    if calls:
        log(f"[train] {len(calls)} job(s) on the {executor.kind} executor (job files in {executor.folder})")

    def finished(i: int, paths: list[str]) -> None:
        log(f"  {names[i]}: wrote {len(paths)} checkpoint(s)")

    run_jobs(executor, train_checkpoints, calls, finished, names=names, log=log)


# --------------------------------------------------------------------------- figures
def _order_histogram(reports, label: str) -> bytes | None:
    """PNG of the block-order histogram (SPEC 8.3), or None when there is no block to draw."""
    import io

    from matplotlib.figure import Figure  # a Figure of its own: the caller's pyplot backend is never touched
    from matplotlib.patches import Patch

    counts = _order_counts(reports)
    if not counts:
        return None
    fig = Figure(figsize=(5, 3.2), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    keys = sorted(counts)
    ax.bar([str(k) for k in keys], [counts[k] for k in keys], color=["C0" if k in (4, 6) else "C3" for k in keys])
    ax.set_xlabel("block order (live nodes per frequency)")
    ax.set_ylabel("blocks (all frequencies, all seeds)")
    total = sum(counts.values())
    ax.set_title(f"Z_{label}: {total} blocks in {len(reports)} model(s)")
    if any(k in (4, 6) for k in keys) and any(k not in (4, 6) for k in keys):  # two colours: say which is which
        ax.legend(handles=[Patch(color="C0", label="order 4 or 6"), Patch(color="C3", label="other orders")],
                  fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _order_counts(reports) -> dict[int, int]:
    counts: dict[int, int] = {}
    for r in reports:
        for b in r.blocks:
            counts[b.order] = counts.get(b.order, 0) + 1
    return counts


def _curves(metas: list[dict], tc, path: Path) -> None:
    from cogo.solvers.training_results import plot_history

    runs = [SimpleNamespace(seed=m["seed"], weight_decay=m["weight_decay"], history=m["history"], config=tc)
            for m in metas]
    plot_history(runs, path)


# --------------------------------------------------------------------------- report
def _fmt(x: Any, fmt: str) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    if isinstance(x, str):
        return x
    return format(x, fmt)


def _md_table(head: list[str], rows: list[list[str]]) -> str:
    return render_table(head, rows, markdown=True)


def _training_rows(training: list[dict]) -> list[list[str]]:
    return [[f"Z_{t['group']}", str(t["seed"]), f"{t['weight_decay']:g}", _fmt(t["train_loss"], ".3e"),
             _fmt(t["test_loss"], ".3e"), _fmt(t["train_acc"], ".4f"), _fmt(t["test_acc"], ".4f"),
             _fmt(t.get("wall_time_s"), ".1f")] for t in training]


def _verification_rows(results: list[dict]) -> list[list[str]]:
    rows = []
    for r in results:
        status = ("CAUGHT" if r["passed"] else "MISSED") if r["negative_control"] else ("PASS" if r["passed"] else "FAIL")
        rows.append([("control: " if r["negative_control"] else "") + r["name"], r["method"], status, _fmt(r["residual"], ".1e"), _fmt(r["seconds"], ".2f")])
    return rows


def _render_markdown(report: dict, class_md: dict[str, str]) -> str:
    cfg = report["config"]
    out = ["# cogo experiment report", ""]
    out.append(f"Command: `{report['command']}`  ")
    out.append(f"cogo {report['cogo_version']}, {report['date']}, device {cfg['device']}, "
               f"total wall time {report['wall_time_s']:.0f} s.")
    out.append("")
    out.append(f"Setting (SPEC 1): groups {', '.join('Z_' + g for g in cfg['groups'])}; q = {cfg['hidden']} hidden "
               f"nodes; {cfg['optimizer']} lr {cfg['lr']}, weight decay {', '.join(f'{w:g}' for w in cfg['weight_decays'])}; "
               f"{cfg['epochs']} full-batch epochs; {cfg['loss']} loss; test fraction {cfg['test_fraction']}; "
               f"seeds {', '.join(map(str, cfg['seeds']))}."
               + "".join(f" {k.replace('_', ' ')} {cfg[k]};" for k, v in _OPTION_DEFAULTS.items()
                         if k in cfg and cfg[k] != v).rstrip(";"))
    out.append("")
    out.append("## Training")
    out.append("")
    out.append(_md_table(["group", "seed", "wd", "train loss", "test loss", "train acc", "test acc", "wall s"],
                         _training_rows(report["training"])))
    for g in report["groups"]:
        out.append("")
        out.append(f"![training curves Z_{g['group']}]({g['figures']['curves']})")
    out.append("")
    out.append("## Classification (SPEC 8)")
    for g in report["groups"]:
        if g.get("nodes"):  # another activation: the per-node reading
            out += ["", f"### Z_{g['group']}", "", class_md[g["group"]], "",
                    f"Per-node tables: [`{g['classification_markdown']}`]({g['classification_markdown']})."]
            continue
        s = g["classification"]["summary"]
        out.append("")
        out.append(f"### Z_{g['group']}")
        out.append("")
        orders = g["order_histogram"]
        total = sum(orders.values())
        o46 = orders.get("4", 0) + orders.get("6", 0)
        out.append(f"{s['blocks']} blocks in {s['checkpoints']} model(s); block orders "
                   + ", ".join(f"{k}: {v}" for k, v in orders.items())
                   + (f" ({o46 / total:.1%} of order 4 or 6)." if total else "."))
        out.append("")
        out.append(class_md[g["group"]])
        out.append("")
        if g["figures"]["orders"]:
            out.append(f"![block orders Z_{g['group']}]({g['figures']['orders']})")
        for name, fig in g["figures"]["angles"].items():
            out.append(f"![{name} Z_{g['group']}]({fig})")
        out.append("")
        out.append(f"Per-block tables: [`{g['classification_markdown']}`]({g['classification_markdown']}).")
    if report["verification"]:
        out.append("")
        out.append("## Verification of the constructions (SPEC 3-7)")
        for g, res in report["verification"].items():
            out.append("")
            out.append(f"### Z_{g}")
            out.append("")
            out.append(_md_table(["theorem", "method", "status", "residual", "seconds"], _verification_rows(res)))
            ok = all(r["passed"] for r in res)
            out.append("")
            out.append("Every theorem holds and every negative control is caught." if ok else
                       "**Some checks failed** (see the rows above).")
    return "\n".join(out) + "\n"


def _summary_md(summary: dict) -> str:
    """The aggregate classification table (mean +- standard error over models) as Markdown."""
    rows = []
    labels = [("frac_blocks_not_order_4_or_6", "blocks not of order 4 or 6 (fraction)", ".3f"),
              ("frac_nonfactorable_order_4", "non-factorable among order-4 blocks", ".3f"),
              ("frac_nonfactorable_order_6", "non-factorable among order-6 blocks", ".3f"),
              ("mean_error_order_4", "mean factorization error, order 4", ".1e"),
              ("mean_error_order_6", "mean factorization error, order 6", ".1e"),
              ("frac_blocks_optimal", "blocks optimal on their own (fraction)", ".3f")]
    for key, label, fmt in labels:
        d = summary[key]
        rows.append([label, f"{_fmt(d['mean'], fmt)} ± {_fmt(d['se'], fmt)}", str(d["n"])])
    for t, d in summary["type_distribution"].items():
        rows.append([f"type `{t}` (fraction of factorable)", f"{_fmt(d['mean'], '.3f')} ± {_fmt(d['se'], '.3f')}",
                     str(d["n"])])
    return _md_table(["statistic", "mean ± s.e. over models", "n"], rows)


# --------------------------------------------------------------------------- the run
def run_experiment(cfg: ExperimentConfig, out: str | os.PathLike, progress: bool = True,
                   log: Callable[[str], None] = print, command: str = "", force: bool = False,
                   executor=None) -> dict:
    """Train, classify and verify the grid ``cfg`` into directory ``out``; return the report dict.

    ``executor`` (:class:`cogo.runtime.executors.ExecutorSettings`): where the training jobs run
    (default in this process); the checkpoints they write are gathered and reused as on resume.

    Raises ValueError (one line) before any work if the configuration, device
    or output directory is bad.  See the module docstring for the layout.

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

    References
    ----------
    .. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
    """
    from cogo.io.weights import load_weights
    from cogo.io.outputs import check_output_dir

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
        log(f"[train] Z_{label}")
        paths = _train_group(cfg, label, run_dir, progress, log, force=force)
        metas = [load_weights(p).meta for p in paths]
        training += _training_entries(label, paths, metas, out)
        if cfg.activation != "sqr":  # no catalogue form for another activation: the per-node report (SPEC 8.3)
            groups_out.append(_node_reading(cfg, label, paths, run_dir, out, metas, class_md, log))
        else:
            groups_out.append(_classify_group(cfg, label, paths, run_dir, out, metas, class_md, progress, log))
        if cfg.dynamics:
            groups_out[-1]["dynamics"] = _dynamics(paths, run_dir, out, label, log)
        if cfg.verify != "none":
            verification[label] = _verify(label, cfg, progress, log)
    return _write_report(cfg, out, labels, command, training, groups_out, verification, class_md, t0)


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
    from cogo.io.outputs import atomic_write, atomic_write_text
    from cogo.analysis.classify import classify_many
    from cogo.analysis.report import angle_histograms, render_markdown, to_json_dict

    log(f"[classify] Z_{label}: {len(paths)} checkpoint(s)")
    from cogo.runtime.threads import choose_threads, thread_limit

    with thread_limit(cfg.threads or choose_threads("classify")):
        result = classify_many([str(p) for p in paths], progress=progress)
    cjson = to_json_dict(result)
    cmd_path = run_dir / "classification.md"
    atomic_write_text(run_dir / "classification.json", dumps_json(cjson))
    atomic_write_text(cmd_path, render_markdown(result))
    class_md[label] = _summary_md(result.summary)

    figs = {"curves": f"figures/curves_d{label}.png", "orders": f"figures/orders_d{label}.png", "angles": {}}
    _curves(metas, cfg.train_config(label), out / figs["curves"])
    png = _order_histogram(result.reports, label)
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
    counts = _order_counts(result.reports)
    return {
        "group": label,
        "checkpoints": [os.path.relpath(p, out) for p in paths],
        "order_histogram": {str(k): counts[k] for k in sorted(counts)},
        "classification": {"summary": cjson["summary"], "checkpoints": cjson["checkpoints"]},
        "classification_markdown": os.path.relpath(cmd_path, out),
        "figures": figs,
    }


def _write_report(cfg: ExperimentConfig, out: Path, labels: list[str], command: str, training: list,
                  groups_out: list, verification: dict, class_md: dict, t0: float) -> dict:
    """Assemble the report dict, write ``report.json`` and ``report.md`` (atomically); return the dict."""
    from cogo.io.outputs import atomic_write_text

    report = {
        "format": "cogo-experiment/1",
        "cogo_version": __version__,
        "command": command or "cogo.commands.experiment.run_experiment",
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "config": {**asdict(cfg), "groups": labels, "seeds": list(cfg.seeds),
                   "weight_decays": [float(w) for w in cfg.weight_decays]},
        "training": training,
        "groups": groups_out,
        "verification": verification,
        "wall_time_s": time.perf_counter() - t0,
    }
    atomic_write_text(out / "report.json", dumps_json(report))
    atomic_write_text(out / "report.md", _render_markdown(report, class_md))
    return report


def _dynamics(paths: list, run_dir: Path, out: Path, label: str, log: Callable) -> dict:
    """Read every run over time (cogo dynamics) into ``run_dir/dynamics``; the report's entry."""
    from cogo.dynamics.runs import aggregate, analyse_run, write_dynamics

    log(f"[dynamics] Z_{label}: reading the snapshots of {len(paths)} run(s)")
    runs = [analyse_run(p, cache_dir=run_dir / "dynamics" / "cache") for p in paths]
    written = write_dynamics(runs, run_dir / "dynamics")
    return {"json": os.path.relpath(written[0], out), "figures": [os.path.relpath(w, out) for w in written[1:]],
            "aggregate": aggregate(runs)}


def _verify(label: str, cfg: ExperimentConfig, progress: bool, log: Callable) -> list[dict]:
    """The theorem verifier on one group (SPEC 3-7), as plain dicts."""
    from cogo.runtime.limits import progress_callback
    from cogo.proofs.registry import run_all, theorem_list

    log(f"[verify] Z_{label} ({cfg.verify})")
    G = parse_group(label)
    tick = progress_callback(len(theorem_list(G)) * (2 if cfg.verify == "both" else 1), f"verify {G}",
                             off=not progress)
    return [r.to_dict() for r in run_all(G, cfg.verify, progress=tick)]


def _node_reading(cfg: ExperimentConfig, label: str, paths: list, run_dir: Path, out: Path, metas: list,
                  class_md: dict, log: Callable) -> dict:
    """The per-node frequency reading of a non-``sqr`` group (:mod:`cogo.analysis.nodes`): no catalogue name."""
    from cogo.analysis.nodes import activation_reports, catalogue_refusal
    from cogo.io.outputs import atomic_write_text

    log(f"[nodes] Z_{label}: {len(paths)} checkpoint(s), activation {cfg.activation}")
    text, dicts = activation_reports([str(p) for p in paths], "experiment")
    note = catalogue_refusal(cfg.activation, "experiment").rsplit(".", 1)[0] + "."
    cmd_path = run_dir / "classification.md"
    atomic_write_text(run_dir / "classification.json", dumps_json({"format": "cogo-nodes/1", "note": note,
                                                                   "checkpoints": dicts}))
    atomic_write_text(cmd_path, f"# Per-node reading (activation {cfg.activation})\n\n```text\n{text}```\n")
    rows = [[os.path.basename(d["path"]), str(d["live"]), f"{d['single_frequency_fraction']:.3f}",
             f"{np.mean([n['ipr'] for n in d['nodes']]) if d['nodes'] else 0.0:.3f}", f"{d['accuracy']:.4f}"]
            for d in dicts]
    class_md[label] = note + "\n\n" + _md_table(["checkpoint", "live nodes", "single-frequency fraction", "mean IPR",
                                                  "accuracy (all pairs)"], rows)
    figs = {"curves": f"figures/curves_d{label}.png", "orders": None, "angles": {}}
    _curves(metas, cfg.train_config(label), out / figs["curves"])
    return {"group": label, "checkpoints": [os.path.relpath(p, out) for p in paths], "order_histogram": {},
            "classification": None, "nodes": {"activation": cfg.activation, "note": note, "checkpoints": dicts},
            "classification_markdown": os.path.relpath(cmd_path, out), "figures": figs}


def summary_text(report: dict) -> str:
    """A short plain-text digest of a report for the terminal."""
    lines = []
    rows = _training_rows(report["training"])
    head = ["group", "seed", "wd", "train loss", "test loss", "train acc", "test acc", "wall s"]
    lines += _plain_table(head, rows)
    for g in report["groups"]:
        if g.get("nodes"):  # another activation: no catalogue name, the per-node reading
            lines += ["", f"Z_{g['group']}: {g['nodes']['note']}"]
            lines += _plain_table(["checkpoint", "live", "single-frequency", "accuracy"],
                                  [[os.path.basename(d["path"]), str(d["live"]),
                                    f"{d['single_frequency_fraction']:.3f}", f"{d['accuracy']:.4f}"]
                                   for d in g["nodes"]["checkpoints"]])
            continue
        s = g["classification"]["summary"]
        lines.append("")
        lines.append(f"Z_{g['group']}: {s['blocks']} blocks, orders "
                     + ", ".join(f"{k}: {v}" for k, v in g["order_histogram"].items()))
        trows = []
        for key, label, fmt in (("frac_blocks_not_order_4_or_6", "not order 4 or 6", ".3f"),
                                ("frac_nonfactorable_order_4", "non-factorable, order 4", ".3f"),
                                ("frac_nonfactorable_order_6", "non-factorable, order 6", ".3f"),
                                ("mean_error_order_4", "mean error, order 4", ".1e"),
                                ("mean_error_order_6", "mean error, order 6", ".1e")):
            d = s[key]
            trows.append([label, f"{_fmt(d['mean'], fmt)} +- {_fmt(d['se'], fmt)}", str(d["n"])])
        for t, d in s["type_distribution"].items():
            trows.append([t, f"{_fmt(d['mean'], '.3f')} +- {_fmt(d['se'], '.3f')}", str(d["n"])])
        lines += _plain_table(["statistic / block type", "mean +- s.e.", "n"], trows)
    for g, res in report["verification"].items():
        lines.append("")
        lines.append(f"Verification, Z_{g}:")
        lines += _plain_table(["theorem", "method", "status", "residual", "seconds"], _verification_rows(res))
    return "\n".join(lines) + "\n"


def _plain_table(head: list[str], rows: list[list[str]]) -> list[str]:
    return render_table(head, rows).splitlines()


def verification_ok(report: dict) -> bool:
    """True when every theorem passed and every negative control was caught (or nothing was verified)."""
    return all(r["passed"] for res in report["verification"].values() for r in res)
