"""The memorization-generalization boundary of SPEC 9 (Theorem 4) as an experiment.

Theorem 4: ``n >~ d_k^2 M log(M / delta)`` random training pairs keep the
generalizing maxima; below, the network memorizes.  The paper's code puts the
boundary for ``d_k = 1`` at the train fraction ``2.7482 log(M) / M``, i.e. at
``n / (M log M) = 2.7482`` with ``n = fraction * M^2`` training pairs.

Groups are cyclic or Abelian (``11``, ``3x5``) or named finite groups
(``S3``, ``D5``, ``A4``, from :mod:`cogo.algebra.finite_groups`; ``M`` is the
order).  The overlaid theoretical boundary of a group is Theorem 4's scaling
with the paper's constant, ``x* = 2.7482 d_max^2`` with ``d_max`` the largest
irrep dimension (:func:`theory_boundary`): every irrep must be learned for
test accuracy 1, and the largest needs the most pairs.  The constant was
fitted for ``d_k = 1`` only; for ``d_max > 1`` the line is the scaling
prediction, not a measured constant.

:func:`sweep` trains, for every group and every ``x = n / (M log M)``,
the seeds as one batched program with :func:`cogo.solvers.training.train`
(train fraction ``x log(M) / M``), records the final test accuracy, and
:func:`fit_constant` reads off where the mean test accuracy crosses 1/2
(linear interpolation in ``x``; the median over ``M`` is the fitted constant).
:func:`phase_diagram_png` draws test accuracy over ``(M, x)`` with the
theoretical line ``x = 2.7482``.

References
----------
.. [1] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
"""
from __future__ import annotations

import io
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from cogo.runtime.errors import CogoError
from cogo.runtime.executors import run_jobs
from cogo.runtime.limits import progress_callback
from cogo.algebra.representations import character_table
from cogo.algebra.group_parsing import display_name, as_group
from cogo.io.tables import render_table
from cogo.io.outputs import atomic_write
from cogo.analysis.irreps import read_irreps

__all__ = ["PAPER_CONSTANT", "SweepConfig", "sweep", "train_cell", "theory_boundary", "group_info", "learned_irreps", "fit_constant", "phase_diagram_png", "sweep_table",
           "seed_crossings", "dk_law", "dk_law_table", "dk_law_text", "dk_law_png", "dk_law_report"]

#: The paper's boundary constant for d_k = 1: train fraction 2.7482 log(M) / M.
PAPER_CONSTANT = 2.7482


def group_info(spec) -> dict:
    """``{"group": label, "name": str, "M": order, "d_max": largest irrep dimension}`` of a group spec (CogoError if bad).

    Returns
    -------
    dict
        ``group``, ``name``, ``M`` and ``d_max`` (with ``gap_id`` and ``gap_name`` for a SmallGroups group).

    Raises
    ------
    CogoError
        One line, on a group spec that names no group.

    Examples
    --------
    >>> group_info("S3"), group_info(7)
    ({'group': 'S3', 'name': 'S3', 'M': 6, 'd_max': 2}, {'group': '7', 'name': 'Z_7', 'M': 7, 'd_max': 1})
    """
    try:
        G = as_group(str(spec))
    except CogoError:
        raise
    except ValueError as exc:
        raise CogoError(" ".join(str(exc).split())) from None
    if G.as_product is not None:
        d_max = 1
    else:
        d_max = int(max(character_table(G).dims))
    info = {"group": str(G.label), "name": str(G), "M": int(G.order), "d_max": int(d_max)}
    src = getattr(G, "source", None)  # a group of GAP's SmallGroups library: its id and name (cogo.algebra.smallgroups)
    if src:
        info.update(gap_id=list(src["id"]), gap_name=str(src["name"]))
    return info


def theory_boundary(d_max: int) -> float:
    """Theorem 4's boundary in ``x = n / (M log M)``: ``2.7482 d_max^2`` (the paper's constant, fitted for d = 1).

    Examples
    --------
    >>> theory_boundary(1), round(theory_boundary(2), 4)   # d_max = 2 (S3) needs 4 times the pairs
    (2.7482, 10.9928)
    """
    return PAPER_CONSTANT * int(d_max) ** 2


@dataclass
class SweepConfig:
    """A grid of (M, x = n / (M log M), lr) with seeds batched; training hyperparameters of SPEC 1.

    >>> cfg = SweepConfig(groups=(5,), xs=(1.0, 2.0), seeds=(1,), hidden=8, epochs=10)
    >>> cfg.optimizer, cfg.lrs, cfg.weight_decay
    ('adam', (0.01,), 0.0005)
    """

    groups: Sequence[int | str] = (11, 17, 23, 31)
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
        from cogo.solvers.training import validate_run  # late: torch

        if not self.groups or not self.xs or not self.seeds or not self.lrs:
            raise CogoError("the sweep needs at least one group, fraction, seed and learning rate")
        labels = []
        for g in self.groups:
            if isinstance(g, bool) or isinstance(g, float):
                raise CogoError(f"groups are orders, products or names (11, 3x5, S3), got {g!r}")
            info = group_info(g)
            if info["M"] < 3:
                raise CogoError(f"group orders must be >= 3, got {info['name']} of order {info['M']}")
            labels.append(info["group"])
        if len(set(labels)) != len(labels):
            raise CogoError(f"duplicate groups in {list(self.groups)}")
        for x in self.xs:
            if not (math.isfinite(x) and x > 0):
                raise CogoError(f"x = n / (M log M) must be positive, got {x!r}")
        try:
            for g in self.groups:
                for lr in self.lrs:
                    validate_run(self.train_config(g, self.xs[0], lr), self.seeds)
        except CogoError:
            raise
        except ValueError as exc:
            raise CogoError(" ".join(str(exc).split())) from None
        return self

    def train_config(self, group, x: float, lr: float):
        from cogo.solvers.training_config import TrainConfig  # late: torch

        info = group_info(group)
        return TrainConfig(group=info["group"], hidden=self.hidden, lr=float(lr), weight_decay=self.weight_decay,
                           epochs=self.epochs, test_fraction=1.0 - self.fraction(info["M"], x), optimizer=self.optimizer,
                           device=self.device, log_every=max(1, self.epochs))


def train_cell(cfg: SweepConfig, group, x: float, lr: float, seeds: Sequence[int]) -> list[dict]:
    """One cell (group, x, lr): train ``seeds`` as one batched program; one row per model (a job of the executor).

    Returns
    -------
    list of dict
        One row per seed: group, M, d_max, x, fraction, lr, seed, n_train, the final accuracies and
        test loss, the cell's wall time (and the learned irreps when ``d_max > 1``).

    Examples
    --------
    >>> cfg = SweepConfig(groups=(5,), xs=(1.0,), seeds=(1, 2), hidden=8, epochs=10)   # a 10-epoch toy cell
    >>> rows = train_cell(cfg, 5, 1.0, 0.01, [1, 2])
    >>> [(r["group"], r["x"], r["seed"], r["n_train"]) for r in rows]   # n = x M log M = 8 of the 25 pairs
    [('5', 1.0, 1, 8), ('5', 1.0, 2, 8)]
    """
    from cogo.solvers.training import train  # late: torch

    info = group_info(group)
    M = info["M"]
    t0 = time.perf_counter()
    res = train(cfg.train_config(group, x, lr), list(seeds), progress=False)
    wall = time.perf_counter() - t0
    extra = {k: info[k] for k in ("gap_id", "gap_name") if k in info}
    return [{"group": info["group"], "M": M, "d_max": info["d_max"], "x": float(x), "fraction": cfg.fraction(M, x),
             "lr": float(lr),
             "seed": int(r.seed), "n_train": int(r.train_idx.numel()),
             "train_acc": r.final["train_acc"], "test_acc": r.final["test_acc"],
             "test_loss": r.final["test_loss"], "wall_s": wall, **extra,
             **({} if info["d_max"] == 1 else learned_irreps(r.Wa, r.Wb, r.Wc, info["group"]))} for r in res]


def learned_irreps(Wa, Wb, Wc, group) -> dict:
    """The irreps a trained network carries (SPEC 9): ``{"learned_dims": [d_k, ...] (by irrep index), "learned_d2": sum d_k^2}``.

    An irrep counts as learned when at least one live node lives in its family
    (:func:`cogo.analysis.irreps.read_irreps`; a complex irrep and its conjugate form one family
    and both count).  The trivial irrep is never needed (the target is zero-mean).

    Examples
    --------
    >>> from cogo.algebra.representations import isotypic_projectors
    >>> W = isotypic_projectors("S3").real[2][:4]       # 4 nodes in the 2-dimensional irrep of S3
    >>> learned_irreps(W, W, W.T, "S3")
    {'learned_dims': [2], 'learned_d2': 4}
    """
    rep = read_irreps(Wa, Wb, Wc, group)
    dims = character_table(rep.group).dims
    ks = sorted(k for f, members in enumerate(rep.families) if rep.counts[f] > 0 for k in members)
    return {"learned_dims": [int(dims[k]) for k in ks], "learned_d2": int(sum(int(dims[k]) ** 2 for k in ks))}


def _key(group, x, lr, seed) -> tuple:
    return (str(group), float(x), float(lr), int(seed))


def row_key(r: dict) -> tuple:
    """``(group label, x, lr, seed)`` of a row (rows of older sweep.json files have only ``M``: Z_M)."""
    return _key(r.get("group", r["M"]), r["x"], r["lr"], r["seed"])


def _plan_cells(cfg: SweepConfig, infos: list[dict], have: dict) -> tuple[list, list[str], dict[tuple, tuple]]:
    """``(calls, names, same_as)``: the cells :func:`sweep` trains, their names, and the cells copied instead."""
    calls, names = [], []
    # past the cap on the train fraction (small groups), a larger x trains the same split as a smaller one:
    # seed for seed the same program, so its rows are copied from that cell instead of trained again
    same_as: dict[tuple, tuple] = {}
    for info in infos:
        for lr in cfg.lrs:
            first: dict[float, float] = {}
            for x in sorted(cfg.xs):
                f = cfg.fraction(info["M"], x)
                if f in first:
                    same_as[(info["group"], float(x), float(lr))] = (info["group"], first[f], float(lr))
                else:
                    first[f] = float(x)
            for x in cfg.xs:
                if (info["group"], float(x), float(lr)) in same_as:
                    continue
                todo = [int(s) for s in cfg.seeds if _key(info["group"], x, lr, s) not in have]
                if todo:
                    calls.append((cfg, info["group"], float(x), float(lr), todo))
                    names.append(f"{info['name']} x={x:g} lr={lr:g} seeds {todo}")
    return calls, names, same_as


def sweep(cfg: SweepConfig, log: Callable[[str], None] = print, done: dict | None = None,
          on_cell: Callable[[list], None] | None = None, executor=None, progress: bool = False) -> list[dict]:
    """Train every (M, x, lr) cell, seeds batched; one row per model (M, x, fraction, lr, seed, accuracies).

    ``done`` maps ``(group label, x, lr, seed)`` (:func:`row_key`) to rows already computed (resume: they are not
    trained again); ``on_cell(rows)`` is called after each batched cell (for
    checkpointing the partial results).  ``executor`` (:class:`cogo.runtime.executors.ExecutorSettings`)
    says where the cells train (default: in this process, one after another); the rows
    are returned, and passed to ``on_cell``, in the grid's order (M, lr, x, seed) whatever
    the order the cells finish in (groups as given).  ``progress``: a bar over the cells to train.

    Returns
    -------
    list of dict
        The rows of :func:`train_cell`, in the grid's order; a cell past the cap on the train fraction
        copies the rows of the smaller x it repeats (``same_split_as_x``).

    Examples
    --------
    >>> cfg = SweepConfig(groups=(5,), xs=(1.0, 2.0), seeds=(1, 2), hidden=8, epochs=10)
    >>> rows = sweep(cfg, log=lambda line: None)
    >>> [(r["x"], r["seed"]) for r in rows], all(0.0 <= r["test_acc"] <= 1.0 for r in rows)
    ([(1.0, 1), (1.0, 2), (2.0, 1), (2.0, 2)], True)
    """
    cfg.validate()
    have = {k: r for k, r in (done or {}).items()}
    infos = [group_info(g) for g in cfg.groups]
    order = [_key(i["group"], x, lr, s) for i in infos for lr in cfg.lrs for x in cfg.xs for s in cfg.seeds]
    calls, names, same_as = _plan_cells(cfg, infos, have)

    def copy_capped() -> None:
        for (g, x, lr), (_, x0, _) in same_as.items():
            for s in cfg.seeds:
                src = have.get(_key(g, x0, lr, s))
                if src is not None and _key(g, x, lr, s) not in have:
                    have[_key(g, x, lr, s)] = {**src, "x": x, "same_split_as_x": x0, "wall_s": 0.0}

    def ordered() -> list[dict]:
        return [have[k] for k in order if k in have]

    tick = progress_callback(len(calls), "li2-sweep", unit="cell", off=not progress)

    def finished(i: int, cell: list[dict]) -> None:
        _, g, x, lr, _ = calls[i]
        for r in cell:
            have[row_key(r)] = r
        copy_capped()
        accs = ", ".join(f"{c['test_acc']:.3f}" if c["test_acc"] is not None else "nan" for c in cell)
        M = cell[0]["M"] if cell else group_info(g)["M"]
        log(f"  {names[i].split(' x=')[0]} x={x:g} (train fraction {cfg.fraction(M, x):.3f}) lr={lr:g}: test acc {accs} "
            f"({cell[0]['wall_s'] if cell else 0.0:.1f} s)")
        if on_cell is not None:
            on_cell(ordered())
        if tick is not None:
            tick()

    copy_capped()
    run_jobs(executor, train_cell, calls, finished, names=names, log=log)
    copy_capped()
    return ordered()


def _groups(rows: list[dict]) -> list[dict]:
    """Groups of the rows, in first-seen order: label, name, M, d_max, theoretical x*."""
    out = {}
    for r in rows:
        g = str(r.get("group", r["M"]))
        if g not in out:
            d = int(r.get("d_max", 1))
            name = display_name(g)
            out[g] = {"group": g, "name": name, "M": int(r["M"]), "d_max": d, "theory": theory_boundary(d)}
    return list(out.values())


def _mean_acc(rows: list[dict], group: str, lr: float) -> tuple[np.ndarray, np.ndarray]:
    mine = [r for r in rows if str(r.get("group", r["M"])) == str(group) and r["lr"] == lr]
    xs = sorted({r["x"] for r in mine})
    acc = [np.mean([r["test_acc"] or 0.0 for r in mine if r["x"] == x]) for x in xs]
    return np.asarray(xs), np.asarray(acc)


def fit_constant(rows: list[dict], lr: float | None = None, level: float = 0.5) -> dict:
    """Where the mean test accuracy first crosses ``level`` along x, per group (linear interpolation).

    ``per_group[label]``: the crossing (None: never reached; NaN: already above ``level``
    at the smallest x).  ``constant``: the median over the groups with ``d_max = 1``
    (the paper's 2.7482 is for d = 1); ``scaled``: the median of crossing / d_max^2 over
    all groups, Theorem 4's scaling (compare with 2.7482 too); ``theory[label]`` = 2.7482 d_max^2.

    Returns
    -------
    dict
        ``lr``, ``per_group``, ``theory``, ``d_max`` (per group), ``constant``, ``scaled`` and ``paper`` (2.7482).

    Examples
    --------
    >>> rows = [{"group": "7", "M": 7, "d_max": 1, "x": x, "lr": 0.01, "seed": s, "test_acc": a}
    ...         for x, s, a in [(1.0, 1, 0.1), (1.0, 2, 0.2), (3.0, 1, 0.7), (3.0, 2, 0.9)]]
    >>> fit = fit_constant(rows)                         # mean 0.15 at x = 1, 0.8 at x = 3: crosses 1/2 at 27/13
    >>> round(fit["per_group"]["7"], 6), round(fit["constant"], 6), fit["paper"]
    (2.076923, 2.076923, 2.7482)
    """
    lr = rows[0]["lr"] if lr is None else lr
    per, theory, dmax = {}, {}, {}
    for info in _groups(rows):
        xs, acc = _mean_acc(rows, info["group"], lr)
        x50 = None
        for i in range(1, len(xs)):
            if acc[i - 1] < level <= acc[i]:
                x50 = float(xs[i - 1] + (level - acc[i - 1]) * (xs[i] - xs[i - 1]) / (acc[i] - acc[i - 1]))
                break
        if x50 is None and len(acc) and acc[0] >= level:
            x50 = float("nan")  # already generalizes at the smallest x: boundary below the grid
        per[info["group"]] = x50
        theory[info["group"]] = info["theory"]
        dmax[info["group"]] = info["d_max"]
    ok = lambda v: v is not None and math.isfinite(v)
    d1 = [v for g, v in per.items() if ok(v) and dmax[g] == 1]
    scaled = [v / dmax[g] ** 2 for g, v in per.items() if ok(v)]
    return {"lr": lr, "per_group": per, "theory": theory, "d_max": dmax,
            "constant": float(np.median(d1)) if d1 else None,
            "scaled": float(np.median(scaled)) if scaled else None, "paper": PAPER_CONSTANT}


def sweep_table(rows: list[dict]) -> tuple[list[str], list[list[str]]]:
    """Mean test accuracy per (lr, group) row and x column, with M, d_max and the theoretical x* = 2.7482 d_max^2.

    Returns
    -------
    head : list of str
        The column titles.
    body : list of list of str
        One row per (lr, group), the accuracies to 3 decimals.

    Examples
    --------
    >>> rows = [{"group": "7", "M": 7, "d_max": 1, "x": x, "lr": 0.01, "seed": s, "test_acc": a}
    ...         for x, s, a in [(1.0, 1, 0.1), (1.0, 2, 0.2), (3.0, 1, 0.7), (3.0, 2, 0.9)]]
    >>> sweep_table(rows)
    (['lr', 'group', 'M', 'd_max', 'x*', 'x=1', 'x=3'], [['0.01', 'Z_7', '7', '1', '2.75', '0.150', '0.800']])
    """
    xs = sorted({r["x"] for r in rows})
    head = ["lr", "group", "M", "d_max", "x*"] + [f"x={x:g}" for x in xs]
    out = []
    for lr in sorted({r["lr"] for r in rows}):
        for info in _groups(rows):
            gx, acc = _mean_acc(rows, info["group"], lr)
            cell = dict(zip(gx.tolist(), acc.tolist()))
            out.append([f"{lr:g}", info["name"], str(info["M"]), str(info["d_max"]), f"{info['theory']:.3g}"]
                       + [f"{cell[x]:.3f}" if x in cell else "-" for x in xs])
    return head, out


def phase_diagram_png(rows: list[dict], lr: float | None = None) -> bytes:
    """Test accuracy over (group, n / (M log M)); per group the theoretical boundary x* = 2.7482 d_max^2 (white
    dashes; a white triangle at the right edge when x* lies beyond the grid) and the fitted crossing (red dots).

    Examples
    --------
    >>> rows = [{"group": "7", "M": 7, "d_max": 1, "x": x, "lr": 0.01, "seed": 1, "test_acc": a}
    ...         for x, a in [(1.0, 0.1), (3.0, 0.9)]]
    >>> phase_diagram_png(rows)[1:4]                     # a PNG file's signature
    b'PNG'
    """
    from matplotlib.figure import Figure  # late: matplotlib

    lr = rows[0]["lr"] if lr is None else lr
    infos = _groups(rows)
    xs = sorted({r["x"] for r in rows})
    A = np.full((len(infos), len(xs)), np.nan)
    for i, info in enumerate(infos):
        gx, acc = _mean_acc(rows, info["group"], lr)
        for x, a in zip(gx, acc):
            A[i, xs.index(x)] = a
    fit = fit_constant(rows, lr)
    fig = Figure(figsize=(6.4, 1.6 + 0.45 * len(infos)), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    im = ax.imshow(A, origin="lower", aspect="auto", cmap="viridis", vmin=0, vmax=1,
                   extent=(-0.5, len(xs) - 0.5, -0.5, len(infos) - 0.5))
    ax.set_xticks(range(len(xs)), [f"{x:g}" for x in xs])
    ax.set_yticks(range(len(infos)), [f"{i['name']} (M={i['M']})" for i in infos])
    ax.set_xlabel("n / (M log M)   (n training pairs)")
    pos = lambda x: float(np.interp(x, xs, range(len(xs))))
    labelled = set()

    def label(text):
        if text in labelled:
            return None
        labelled.add(text)
        return text

    for i, info in enumerate(infos):
        t = info["theory"]
        if xs[0] <= t <= xs[-1]:
            ax.plot([pos(t)] * 2, [i - 0.5, i + 0.5], color="w", ls="--", label=label("theory: 2.7482 d_max^2"))
        else:
            ax.plot([len(xs) - 0.5 if t > xs[-1] else -0.5], [i], marker=">" if t > xs[-1] else "<", color="w",
                    mec="k", ms=9, ls="none", label=label("theory beyond the grid"))
        v = fit["per_group"].get(info["group"])
        if v is not None and math.isfinite(v):
            ax.plot([pos(v)] * 2, [i - 0.5, i + 0.5], color="r", ls=":", label=label("fitted crossing"))
    ax.legend(loc="lower right", fontsize=7)
    fig.colorbar(im, ax=ax, label="test accuracy (mean over seeds)")
    ax.set_title(f"memorization vs generalization (lr {lr:g})")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


# --------------------------------------------------------------------------- the d_k law across groups
def _x_eff(r: dict) -> float:
    """``n / (M log M)`` with the pairs actually trained (the fraction is capped for small groups)."""
    return r["n_train"] / (r["M"] * math.log(r["M"])) if r.get("n_train") else float(r["x"])


def seed_crossings(rows: list[dict], lr: float | None = None, level: float = 0.5) -> dict:
    """Per group, where each seed's test accuracy first crosses ``level`` along x, and their mean and s.e.

    x is the effective ``n / (M log M)`` of the pairs trained (cells past the cap on the train
    fraction, which repeat a split, count once).  Per seed: the first crossing by linear
    interpolation; ``"below"`` when the seed is already at or above ``level`` at the smallest x,
    ``None`` when it never gets there.  ``x_star``: the mean over the seeds that cross
    (``se``: their standard deviation / sqrt(n), NaN for one seed); ``learned_d2``: the mean over
    seeds of the sum of ``d_k^2`` over the irreps learned at the largest x (:func:`learned_irreps`);
    ``wall_s``: the training time of the group's cells (its cost).

    Returns
    -------
    dict
        Group label to the group's fields and ``per_seed``, ``x_star``, ``se``, ``n_crossed``, ``n_seeds``,
        ``learned_d2``, ``gap_name`` and ``wall_s``.

    Examples
    --------
    >>> rows = [{"group": "7", "M": 7, "d_max": 1, "x": x, "lr": 0.01, "seed": s, "test_acc": a, "wall_s": 1.0}
    ...         for s, accs in [(1, (0.0, 1.0)), (2, (0.2, 0.6))] for x, a in zip((1.0, 3.0), accs)]
    >>> c = seed_crossings(rows)["7"]                    # seed 1 crosses at 2, seed 2 at 2.5
    >>> c["per_seed"], c["x_star"], round(c["se"], 6), c["n_crossed"], c["wall_s"]
    ({1: 2.0, 2: 2.5}, 2.25, 0.25, 2, 2.0)
    """
    lr = rows[0]["lr"] if lr is None else lr
    out = {}
    for info in _groups(rows):
        g = info["group"]
        mine = [r for r in rows if str(r.get("group", r["M"])) == g and r["lr"] == lr]
        per: dict = {}
        learned = []
        for s in sorted({int(r["seed"]) for r in mine}):
            pts = {}
            for r in sorted((r for r in mine if int(r["seed"]) == s), key=lambda r: r["x"]):
                pts.setdefault(round(_x_eff(r), 9), r)
            xs = sorted(pts)
            acc = [pts[x]["test_acc"] or 0.0 for x in xs]
            cross = None
            if acc and acc[0] >= level:
                cross = "below"
            else:
                for i in range(1, len(xs)):
                    if acc[i - 1] < level <= acc[i]:
                        cross = float(xs[i - 1] + (level - acc[i - 1]) * (xs[i] - xs[i - 1]) / (acc[i] - acc[i - 1]))
                        break
            per[s] = cross
            top = pts[xs[-1]] if xs else {}
            if "learned_d2" in top:
                learned.append(int(top["learned_d2"]))
        vals = [v for v in per.values() if isinstance(v, float)]
        xstar = float(np.mean(vals)) if vals else None
        se = float(np.std(vals, ddof=1) / math.sqrt(len(vals))) if len(vals) > 1 else float("nan")
        first = mine[0] if mine else {}
        cells = {(r["x"], r["lr"]): r.get("wall_s", 0.0) for r in mine}
        out[g] = {**info, "per_seed": per, "x_star": xstar, "se": se if vals else None,
                  "n_crossed": len(vals), "n_seeds": len(per),
                  "learned_d2": float(np.mean(learned)) if learned else None,
                  "gap_name": first.get("gap_name"), "wall_s": float(sum(cells.values()))}
    return out


def _power_fit(d: np.ndarray, y: np.ndarray) -> dict:
    """Least squares of ``log y = log c + p log d``: ``c``, ``p`` and the standard error of ``p``."""
    X = np.stack([np.ones_like(d), np.log(d)], axis=1)
    ly = np.log(y)
    coef, *_ = np.linalg.lstsq(X, ly, rcond=None)
    res = ly - X @ coef
    dof = len(y) - 2
    if dof > 0 and np.linalg.matrix_rank(X) == 2:
        s2 = float(res @ res) / dof
        cov = s2 * np.linalg.inv(X.T @ X)
        sp, sc = float(math.sqrt(cov[1, 1])), float(math.sqrt(cov[0, 0]))
    else:
        sp = sc = float("nan")
    return {"c": float(math.exp(coef[0])), "log_c_se": sc, "p": float(coef[1]), "p_se": sp, "n": int(len(y))}


def dk_law(rows: list[dict], lr: float | None = None, level: float = 0.5) -> dict:
    """The boundary across groups against the irrep dimensions (SPEC 9, Theorem 4).

    From :func:`seed_crossings`: per ``d_max`` the mean of the groups' ``x*`` and its s.e. (over
    groups); the ratio ``x*(d) / x*(1)`` (or ``/ x*(2)`` without Abelian groups) beside the
    ratios the laws predict; the power fit ``x* = c d_max^p`` and ``x* = c S^p`` with ``S`` the sum of
    ``d_k^2`` over the learned irreps (:func:`_power_fit`, groups whose seeds all cross).  Theorem 4's
    ``d_k^2`` law is ``p = 2`` (with the paper's constant, ``x* = 2.7482 d_max^2``); a ``d_k / 2``
    correction of the split is linear in ``d`` (``p = 1``); no dependence on ``d`` is ``p = 0``.

    Returns
    -------
    dict
        ``lr``, ``level``, ``groups`` (:func:`seed_crossings`), ``by_dmax``, ``reference_dmax``, ``ratios``,
        the fits ``fit_dmax``, ``fit_dmax_nonabelian`` and ``fit_learned_d2`` (``c``, ``p`` and their
        errors) and ``paper``.

    Examples
    --------
    >>> rows = [{"group": g, "M": M, "d_max": d, "x": x, "lr": 0.01, "seed": 1, "test_acc": a, "wall_s": 0.0}
    ...         for g, M, d, x0 in [("7", 7, 1, 2.0), ("S3", 6, 2, 4.0), ("A4", 12, 3, 6.0)]
    ...         for x, a in [(x0 - 1, 0.0), (x0 + 1, 1.0)]]
    >>> law = dk_law(rows)                               # x* = 2, 4, 6: x* = 2 d, p = 1 exactly
    >>> round(law["fit_dmax"]["p"], 6), round(law["fit_dmax"]["c"], 6), law["by_dmax"][2]["x_star"]
    (1.0, 2.0, 4.0)
    """
    cr = seed_crossings(rows, lr, level)
    full = [c for c in cr.values() if c["x_star"] is not None and c["n_crossed"] == c["n_seeds"]]
    by = {}
    for d in sorted({c["d_max"] for c in cr.values()}):
        xs = [c["x_star"] for c in full if c["d_max"] == d]
        by[d] = {"groups": sum(1 for c in cr.values() if c["d_max"] == d), "fitted": len(xs),
                 "x_star": float(np.mean(xs)) if xs else None,
                 "se": float(np.std(xs, ddof=1) / math.sqrt(len(xs))) if len(xs) > 1 else None,
                 "theorem4_paper": theory_boundary(d)}
    ref = min((d for d in by if by[d]["x_star"]), default=None)
    ratios = {d: {"measured": by[d]["x_star"] / by[ref]["x_star"], "theorem4_d2": (d / ref) ** 2,
                  "linear_d_over_2": d / ref, "none": 1.0}
              for d in by if ref is not None and by[d]["x_star"] and d != ref}
    fit_d = fit_s = None
    if len({c["d_max"] for c in full}) >= 2:
        fit_d = _power_fit(np.asarray([c["d_max"] for c in full], float), np.asarray([c["x_star"] for c in full]))
    fit_na = None                                        # non-Abelian groups only (d_max >= 2): where a d_k / 2
    na = [c for c in full if c["d_max"] >= 2]            # correction of the split is meant to apply
    if len({c["d_max"] for c in na}) >= 2:
        fit_na = _power_fit(np.asarray([c["d_max"] for c in na], float), np.asarray([c["x_star"] for c in na]))
    withs = [c for c in full if c["learned_d2"]]
    if len({c["learned_d2"] for c in withs}) >= 2:
        fit_s = _power_fit(np.asarray([c["learned_d2"] for c in withs], float),
                           np.asarray([c["x_star"] for c in withs]))
    return {"lr": rows[0]["lr"] if lr is None else lr, "level": level, "groups": cr, "by_dmax": by,
            "reference_dmax": ref, "ratios": ratios, "fit_dmax": fit_d, "fit_dmax_nonabelian": fit_na,
            "fit_learned_d2": fit_s,
            "paper": PAPER_CONSTANT}


def dk_law_table(law: dict) -> tuple[list[str], list[list[str]]]:
    """One row per group: id, name, M, d_max, learned sum d_k^2, x* +- s.e. (seeds crossing), Theorem 4's x*, cost.

    Returns
    -------
    head : list of str
        The column titles.
    body : list of list of str
        One formatted row per group.
    """
    head = ["group", "name", "M", "d_max", "learned sum d_k^2", "x* +- s.e.", "seeds crossing", "2.7482 d_max^2",
            "train s"]
    body = []
    for c in law["groups"].values():
        xs = "-" if c["x_star"] is None else (f"{c['x_star']:.2f}" + ("" if c["se"] is None or not math.isfinite(c["se"])
                                                                    else f" +- {c['se']:.2f}"))
        body.append([c["group"], c.get("gap_name") or c["name"], str(c["M"]), str(c["d_max"]),
                     "-" if c["learned_d2"] is None else f"{c['learned_d2']:g}",
                     xs, f"{c['n_crossed']}/{c['n_seeds']}", f"{c['theory']:.3g}", f"{c['wall_s']:.0f}"])
    return head, body


def dk_law_text(law: dict) -> str:
    """The per-d_max summary and the fits of :func:`dk_law`, a few plain lines."""
    out = []
    for d, b in law["by_dmax"].items():
        v = "-" if b["x_star"] is None else f"{b['x_star']:.3f}" + ("" if b["se"] is None else f" +- {b['se']:.3f}")
        out.append(f"d_max = {d}: x* = {v} over {b['fitted']} of {b['groups']} groups "
                   f"(Theorem 4 with the paper's constant: {b['theorem4_paper']:.3g})")
    for d, r in law["ratios"].items():
        out.append(f"x*(d={d}) / x*(d={law['reference_dmax']}) = {r['measured']:.3f}; d^2 law {r['theorem4_d2']:.3f}, "
                   f"linear (d/2) {r['linear_d_over_2']:.3f}, none 1")
    for key, sym, which in (("fit_dmax", "d_max", "all"), ("fit_dmax_nonabelian", "d_max", "d_max >= 2:"),
                            ("fit_learned_d2", "S", "S = learned sum d_k^2;")):
        f = law.get(key)
        if f:
            out.append(f"fit x* = c {sym}^p ({which} {f['n']} groups): p = {f['p']:.3f} +- {f['p_se']:.3f}, "
                       f"c = {f['c']:.3f} (Theorem 4: p = 2 in d_max; a d/2 correction: p = 1)")
    return "\n".join(out)


def dk_law_png(law: dict) -> bytes:
    """x* +- s.e. per group against d_max (left) and the learned sum of d_k^2 (right), with the laws.

    Examples
    --------
    >>> rows = [{"group": g, "M": M, "d_max": d, "x": x, "lr": 0.01, "seed": 1, "test_acc": a, "wall_s": 0.0}
    ...         for g, M, d, x0 in [("7", 7, 1, 2.0), ("S3", 6, 2, 4.0), ("A4", 12, 3, 6.0)]
    ...         for x, a in [(x0 - 1, 0.0), (x0 + 1, 1.0)]]
    >>> dk_law_png(dk_law(rows))[1:4]
    b'PNG'
    """
    from matplotlib.figure import Figure  # late: matplotlib

    cs = [c for c in law["groups"].values() if c["x_star"] is not None]
    fig = Figure(figsize=(9.0, 3.6), dpi=90)
    ax, bx = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    rng = np.random.default_rng(0)
    for c in cs:
        j = c["d_max"] + rng.uniform(-0.12, 0.12)
        e = c["se"] if c["se"] is not None and math.isfinite(c["se"]) else 0.0
        ax.errorbar([j], [c["x_star"]], yerr=[e], fmt="o", ms=4, color="C0", alpha=0.8)
        if c["learned_d2"]:
            bx.errorbar([c["learned_d2"]], [c["x_star"]], yerr=[e], fmt="o", ms=4, color="C1", alpha=0.8)
    ds = np.linspace(1, max([c["d_max"] for c in cs] + [2]), 50)
    ax.plot(ds, PAPER_CONSTANT * ds ** 2, "k--", lw=1, label="Theorem 4: 2.7482 d^2")
    ax.plot(ds, PAPER_CONSTANT * ds / 2, "k:", lw=1, label="2.7482 d / 2")
    f = law["fit_dmax"]
    if f:
        ax.plot(ds, f["c"] * ds ** f["p"], "C3-", lw=1, label=f"fit: {f['c']:.2f} d^{f['p']:.2f}")
    top = max([c["x_star"] for c in cs] + [1.0]) * 1.6
    ax.set_ylim(0, top)
    ax.set_xlabel("largest irrep dimension d_max (jittered)")
    ax.set_ylabel("x* = n / (M log M) at test acc 1/2")
    ax.legend(fontsize=7)
    fs = law["fit_learned_d2"]
    if fs and cs:
        sv = [c["learned_d2"] for c in cs if c["learned_d2"]]
        ss = np.linspace(min(sv), max(sv), 50)
        bx.plot(ss, fs["c"] * ss ** fs["p"], "C3-", lw=1, label=f"fit: {fs['c']:.2f} S^{fs['p']:.2f}")
        bx.legend(fontsize=7)
    bx.set_ylim(0, top)
    bx.set_xlabel("S = sum of d_k^2 over the irreps learned (largest x)")
    fig.suptitle(f"memorization-generalization boundary across groups (lr {law['lr']:g}; mean +- s.e. over seeds)",
                 fontsize=9)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def dk_law_report(rows: list[dict], lrs: Sequence[float], out, log: Callable[[str], None] = print) -> dict:
    """For ``cogo li2-sweep``: when a group has ``d_max > 1``, print per lr the table and fits of :func:`dk_law`
    and write ``out/boundary_lr<LR>.png`` (:func:`dk_law_png`); returns ``{lr: law}`` for ``fit.json``.

    Returns
    -------
    dict
        ``{f"{lr:g}": law}`` per learning rate; empty when every group has ``d_max = 1`` (nothing printed or written).
    """
    laws = {}
    if not any(int(r.get("d_max", 1)) > 1 for r in rows):
        return laws
    for lr in lrs:
        law = dk_law(rows, lr)
        laws[f"{lr:g}"] = law
        log("")
        log(f"boundary per group (lr {lr:g}): x* where each seed's test accuracy crosses 1/2, mean +- s.e. over seeds")
        log(render_table(*dk_law_table(law)))
        log(dk_law_text(law))
        png = Path(out) / f"boundary_lr{lr:g}.png"
        with atomic_write(png, "wb") as fh:
            fh.write(dk_law_png(law))
        log(f"wrote {png}")
    return laws
