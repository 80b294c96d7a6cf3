"""The memorization-generalization boundary of SPEC 9 (Theorem 4) as an experiment.

Theorem 4: ``n >~ d_k^2 M log(M / delta)`` random training pairs keep the
generalizing maxima; below, the network memorizes.  The paper's code puts the
boundary for ``d_k = 1`` at the train fraction ``2.7482 log(M) / M``, i.e. at
``n / (M log M) = 2.7482`` with ``n = fraction * M^2`` training pairs.

:func:`sweep` trains, for every group order ``M`` and every ``x = n / (M log M)``,
the seeds as one batched program with :func:`cogo.solvers.training.train`
(train fraction ``x log(M) / M``), records the final test accuracy, and
:func:`fit_constant` reads off where the mean test accuracy crosses 1/2
(linear interpolation in ``x``; the median over ``M`` is the fitted constant).
:func:`phase_diagram_png` draws test accuracy over ``(M, x)`` with the
theoretical line ``x = 2.7482``.
"""
from __future__ import annotations

import io
import math
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Sequence

import numpy as np

from cogo.errors import CogoError

__all__ = ["PAPER_CONSTANT", "SweepConfig", "sweep", "train_cell", "fit_constant", "phase_diagram_png", "sweep_table"]

#: The paper's boundary constant for d_k = 1: train fraction 2.7482 log(M) / M.
PAPER_CONSTANT = 2.7482


@dataclass
class SweepConfig:
    """A grid of (M, x = n / (M log M), lr) with seeds batched; training hyperparameters of SPEC 1."""

    groups: Sequence[int] = (11, 17, 23, 31)
    xs: Sequence[float] = (0.75, 1.5, 2.25, 3.0, 3.75, 4.5)
    seeds: Sequence[int] = (1, 2, 3)
    lrs: Sequence[float] = (0.01,)
    hidden: int = 256
    epochs: int = 3000
    weight_decay: float = 5e-4
    optimizer: str = "adam"
    device: str = "cpu"

    def fraction(self, M: int, x: float) -> float:
        """Train fraction ``x log(M) / M`` for ``n = x M log M`` pairs, capped so that >= 1 pair tests."""
        return min(x * math.log(M) / M, 1.0 - 1.5 / (M * M))

    def validate(self) -> "SweepConfig":
        from cogo.solvers.training import TrainConfig, validate_run

        if not self.groups or not self.xs or not self.seeds or not self.lrs:
            raise CogoError("the sweep needs at least one group, fraction, seed and learning rate")
        for M in self.groups:
            if isinstance(M, bool) or int(M) != M or M < 3:
                raise CogoError(f"group orders must be integers >= 3, got {M!r}")
        for x in self.xs:
            if not (math.isfinite(x) and x > 0):
                raise CogoError(f"x = n / (M log M) must be positive, got {x!r}")
        try:
            for M in self.groups:
                for lr in self.lrs:
                    validate_run(self.train_config(M, self.xs[0], lr), self.seeds)
        except CogoError:
            raise
        except ValueError as exc:
            raise CogoError(" ".join(str(exc).split())) from None
        return self

    def train_config(self, M: int, x: float, lr: float):
        from cogo.solvers.training import TrainConfig

        return TrainConfig(group=str(int(M)), hidden=self.hidden, lr=float(lr), weight_decay=self.weight_decay,
                           epochs=self.epochs, test_fraction=1.0 - self.fraction(M, x), optimizer=self.optimizer,
                           device=self.device, log_every=max(1, self.epochs))


def train_cell(cfg: SweepConfig, M: int, x: float, lr: float, seeds: Sequence[int]) -> list[dict]:
    """One cell (M, x, lr): train ``seeds`` as one batched program; one row per model (a job of the executor)."""
    from cogo.solvers.training import train

    t0 = time.perf_counter()
    res = train(cfg.train_config(M, x, lr), list(seeds), progress=False)
    wall = time.perf_counter() - t0
    return [{"M": int(M), "x": float(x), "fraction": cfg.fraction(M, x), "lr": float(lr),
             "seed": int(r.seed), "n_train": int(r.train_idx.numel()),
             "train_acc": r.final["train_acc"], "test_acc": r.final["test_acc"],
             "test_loss": r.final["test_loss"], "wall_s": wall} for r in res]


def _key(M, x, lr, seed) -> tuple:
    return (int(M), float(x), float(lr), int(seed))


def sweep(cfg: SweepConfig, log: Callable[[str], None] = print, done: dict | None = None,
          on_cell: Callable[[list], None] | None = None, executor=None) -> list[dict]:
    """Train every (M, x, lr) cell, seeds batched; one row per model (M, x, fraction, lr, seed, accuracies).

    ``done`` maps ``(M, x, lr, seed)`` to rows already computed (resume: they are not
    trained again); ``on_cell(rows)`` is called after each batched cell (for
    checkpointing the partial results).  ``executor`` (:class:`cogo.executors.ExecutorSettings`)
    says where the cells train (default: in this process, one after another); the rows
    are returned, and passed to ``on_cell``, in the grid's order (M, lr, x, seed) whatever
    the order the cells finish in.
    """
    from cogo.executors import run_jobs

    cfg.validate()
    have = {k: r for k, r in (done or {}).items()}
    order = [_key(M, x, lr, s) for M in cfg.groups for lr in cfg.lrs for x in cfg.xs for s in cfg.seeds]
    calls, names = [], []
    for M in cfg.groups:
        for lr in cfg.lrs:
            for x in cfg.xs:
                todo = [int(s) for s in cfg.seeds if _key(M, x, lr, s) not in have]
                if todo:
                    calls.append((cfg, int(M), float(x), float(lr), todo))
                    names.append(f"Z_{M} x={x:g} lr={lr:g} seeds {todo}")

    def ordered() -> list[dict]:
        return [have[k] for k in order if k in have]

    def finished(i: int, cell: list[dict]) -> None:
        _, M, x, lr, _ = calls[i]
        for r in cell:
            have[_key(r["M"], r["x"], r["lr"], r["seed"])] = r
        accs = ", ".join(f"{c['test_acc']:.3f}" if c["test_acc"] is not None else "nan" for c in cell)
        log(f"  Z_{M} x={x:g} (train fraction {cfg.fraction(M, x):.3f}) lr={lr:g}: test acc {accs} "
            f"({cell[0]['wall_s'] if cell else 0.0:.1f} s)")
        if on_cell is not None:
            on_cell(ordered())

    run_jobs(executor, train_cell, calls, finished, names=names, log=log)
    return ordered()


def _mean_acc(rows: list[dict], M: int, lr: float) -> tuple[np.ndarray, np.ndarray]:
    xs = sorted({r["x"] for r in rows if r["M"] == M and r["lr"] == lr})
    acc = [np.mean([r["test_acc"] or 0.0 for r in rows if r["M"] == M and r["lr"] == lr and r["x"] == x]) for x in xs]
    return np.asarray(xs), np.asarray(acc)


def fit_constant(rows: list[dict], lr: float | None = None, level: float = 0.5) -> dict:
    """Where the mean test accuracy first crosses ``level`` along x, per M (linear interpolation); median over M."""
    lr = rows[0]["lr"] if lr is None else lr
    per = {}
    for M in sorted({r["M"] for r in rows}):
        xs, acc = _mean_acc(rows, M, lr)
        x50 = None
        for i in range(1, len(xs)):
            if acc[i - 1] < level <= acc[i]:
                x50 = float(xs[i - 1] + (level - acc[i - 1]) * (xs[i] - xs[i - 1]) / (acc[i] - acc[i - 1]))
                break
        if x50 is None and len(acc) and acc[0] >= level:
            x50 = float("nan")  # already generalizes at the smallest x: boundary below the grid
        per[M] = x50
    vals = [v for v in per.values() if v is not None and math.isfinite(v)]
    return {"lr": lr, "per_M": per, "constant": float(np.median(vals)) if vals else None, "paper": PAPER_CONSTANT}


def sweep_table(rows: list[dict]) -> tuple[list[str], list[list[str]]]:
    """Mean test accuracy per (lr, M) row and x column."""
    xs = sorted({r["x"] for r in rows})
    head = ["lr", "M"] + [f"x={x:g}" for x in xs]
    out = []
    for lr in sorted({r["lr"] for r in rows}):
        for M in sorted({r["M"] for r in rows}):
            _, acc = _mean_acc(rows, M, lr)
            out.append([f"{lr:g}", str(M)] + [f"{a:.3f}" for a in acc])
    return head, out


def phase_diagram_png(rows: list[dict], lr: float | None = None) -> bytes:
    """Test accuracy over (M, n / (M log M)) with the theoretical boundary x = 2.7482 and the fitted one."""
    from matplotlib.figure import Figure

    lr = rows[0]["lr"] if lr is None else lr
    Ms = sorted({r["M"] for r in rows})
    xs = sorted({r["x"] for r in rows})
    A = np.array([_mean_acc(rows, M, lr)[1] for M in Ms])
    fit = fit_constant(rows, lr)
    fig = Figure(figsize=(6, 3.8), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    im = ax.imshow(A, origin="lower", aspect="auto", cmap="viridis", vmin=0, vmax=1,
                   extent=(-0.5, len(xs) - 0.5, -0.5, len(Ms) - 0.5))
    ax.set_xticks(range(len(xs)), [f"{x:g}" for x in xs])
    ax.set_yticks(range(len(Ms)), [str(M) for M in Ms])
    ax.set_xlabel("n / (M log M)   (n training pairs)")
    ax.set_ylabel("group order M (Z_M)")
    pos = lambda x: float(np.interp(x, xs, range(len(xs))))
    ax.axvline(pos(PAPER_CONSTANT), color="w", ls="--", label=f"theory: {PAPER_CONSTANT}")
    if fit["constant"] is not None:
        ax.axvline(pos(fit["constant"]), color="r", ls=":", label=f"fitted: {fit['constant']:.3g}")
    ax.legend(loc="lower right", fontsize=8)
    fig.colorbar(im, ax=ax, label="test accuracy (mean over seeds)")
    ax.set_title(f"memorization vs generalization (lr {lr:g})")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()
