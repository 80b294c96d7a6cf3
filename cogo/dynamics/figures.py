"""The figures of ``cogo dynamics``: a run's structure and its progress measures over training (matplotlib Figures).

* :func:`figure_run`: structure and generalization of one run on one time axis
  (the SPEC 5-8 block reading: loss, ``r_kkk``, the R_c, R_n, R_* potentials,
  the block orders); :func:`figure_seeds`: when each block type appears and
  settles over runs (for groups without block types: when each irrep becomes
  key, Chughtai et al.'s order);
* :func:`figure_progress`: the progress measures of one run, one panel of
  :data:`cogo.dynamics.progress.PANELS` each (the lines of the measures of
  :data:`cogo.dynamics.progress.MEASURES`), and the logit FVE per family;
  :func:`figure_progress_seeds`: the same panels over many runs, median and range.

Nothing is written here but by :func:`save_png`; matplotlib is imported when a figure is drawn.

References
----------
.. [1] B. Chughtai, L. Chan, N. Nanda, "A toy model of universality: reverse engineering how networks learn group operations", ICML 2023.
"""
from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from cogo.algebra.group_parsing import display_name
from cogo.dynamics.peers import CHUGHTAI_KEY_SIMILARITY
from cogo.dynamics.progress import MEASURES, PANELS, grok_epoch
from cogo.io.outputs import atomic_write

__all__ = ["PALETTE", "LINE_STYLES", "MARKER_COLOR", "series_color", "series_style", "group_title", "run_name",
           "figure_run", "figure_seeds", "figure_progress", "figure_progress_seeds", "save_png"]


# --------------------------------------------------------------------------- the colour policy (one place)
#: The colours of every line series of cogo's figures, in order: matplotlib's tab10 without its grey, then
#: tab20's light partners of the same nine hues (18 colours, so 11 irrep families never share one).
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf",
           "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5")
#: Past :data:`PALETTE`, the colours repeat with the next of these line styles (no two series look the same).
LINE_STYLES = ("-", "--", "-.", ":")
#: Reference markers (the epoch test accuracy reaches 0.99, thresholds): a grey no series is drawn in.
MARKER_COLOR = "#555555"


def series_color(i: int) -> str:
    """The colour of series ``i`` (:data:`PALETTE`, repeating past its length)."""
    return PALETTE[i % len(PALETTE)]


def series_style(i: int) -> dict:
    """``color`` and ``ls`` of series ``i``: :func:`series_color`, with the next line style each time the palette
    repeats, so that no two of ``len(PALETTE) * len(LINE_STYLES)`` series share both.

    >>> series_style(0), series_style(len(PALETTE))
    ({'color': '#1f77b4', 'ls': '-'}, {'color': '#1f77b4', 'ls': '--'})
    """
    return {"color": series_color(i), "ls": LINE_STYLES[(i // len(PALETTE)) % len(LINE_STYLES)]}


def group_title(label: Any) -> str:
    """``Z_23`` for a cyclic group given by its order, ``Z_3 x Z_5`` for a product, the label otherwise
    (:func:`cogo.algebra.group_parsing.display_name`, the one display name).

    Examples
    --------
    >>> group_title("23"), group_title("S3"), group_title("3x5")
    ('Z_23', 'S3', 'Z_3 x Z_5')
    """
    return display_name(label)


def run_name(run: dict) -> str:
    """``seed N`` for a run that records its seed, else its file's name (a foreign series records none).

    >>> run_name({"seed": 3, "path": "a/m.pt"}), run_name({"seed": None, "path": "a/m.pt"})
    ('seed 3', 'm')
    """
    seed = run.get("seed")
    return f"seed {seed}" if seed is not None else Path(str(run.get("path", "run"))).stem



def _xaxis(ax, epochs: Sequence[int]) -> None:
    pos = [e for e in epochs if e > 0]
    if pos and max(pos) / max(min(pos), 1) >= 20:
        ax.set_xscale("symlog", linthresh=max(min(pos), 1))
    ax.set_xlabel("epoch")


def figure_run(run: dict):
    """Structure and generalization on one time axis: a matplotlib Figure of four panels sharing the epoch axis.

    Panels: train/test loss and test accuracy with the moment each final
    block settles (ticks coloured by type, and the fraction settled); ``r_kkk``
    per frequency (R_g asks for 1); the largest R_c, R_n, R_* potential over
    frequencies; the block order per frequency (image, frequency against epoch).

    Examples
    --------
    >>> import tempfile
    >>> from cogo.dynamics.runs import analyse_run
    >>> from cogo.solvers.training import train
    >>> from cogo.solvers.training_config import TrainConfig
    >>> from cogo.solvers.training_results import save_run
    >>> cfg = TrainConfig(group="5", hidden=8, epochs=20, log_every=10, snapshot_every=10)
    >>> results = train(cfg, seeds=[1], weight_decays=[0.0], progress=False, threads=1)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     run = analyse_run(save_run(results, d)[0], workers=1)
    >>> fig = figure_run(run)
    >>> type(fig).__name__, len(fig.axes) >= 4          # loss/accuracy, r_kkk, R_c/R_n/R_*, block orders
    ('Figure', True)
    """
    from matplotlib.figure import Figure  # late: matplotlib

    ep = np.asarray(run["epochs"], dtype=float)
    fr = run["frequencies"]
    ks = fr["k"]
    fig = Figure(figsize=(10, 11), layout="constrained")
    ax = fig.subplots(4, 1, sharex=True)
    title = f"{group_title(run['group'])}, q={run['hidden']}, {run_name(run)}: structure over training"
    fig.suptitle(title)
    _panel_training(ax[0], run)
    _panel_r_kkk(ax[1], ep, fr["r_kkk"], ks)
    _panel_conditions(ax[2], ep, fr)
    _panel_orders(fig, ax[3], ep, fr["order"], ks)
    for a in ax:
        _xaxis(a, run["epochs"])
        a.tick_params(labelbottom=True)   # shared axis, but every panel keeps its epoch labels
    return fig


def _panel_training(ax, run: dict) -> None:
    """Panel 1 of :func:`figure_run`: loss and accuracy, and the moment each final block settles."""
    h = run.get("history") or {}
    he = np.asarray(h.get("epoch", []), dtype=float)
    arr = lambda k: np.asarray([np.nan if v is None else v for v in h.get(k, [])], dtype=float)
    if len(he):
        ax.plot(he, arr("train_loss"), color="C0", lw=1.2, label="train loss")
        ax.plot(he, arr("test_loss"), color="C1", lw=1.2, label="test loss")
        ax.set_yscale("log")
    ax.set_ylabel("loss (SPEC 1)")
    tw = ax.twinx()
    if len(he):
        tw.plot(he, arr("test_acc"), color="C2", lw=1.0, ls=":", label="test accuracy")
    form = run["formation"]
    types = sorted({f["type"] for f in form})
    if form:
        settled = np.sort([f["settled"] for f in form])
        tw.step(settled, np.arange(1, len(settled) + 1) / len(settled), where="post", color="k", lw=1.2,
                label="fraction of final blocks settled")
        for i, t in enumerate(types):
            xs = [f["settled"] for f in form if f["type"] == t]
            tw.plot(xs, np.full(len(xs), -0.04 - 0.03 * i), "|", color=series_color(3 + i), ms=9, mew=1.5,
                    label=f"settles: {t}")
    tw.set_ylim(-0.06 - 0.03 * len(types), 1.05)
    tw.set_ylabel("accuracy / fraction")
    l1, n1 = ax.get_legend_handles_labels()
    l2, n2 = tw.get_legend_handles_labels()
    ax.legend(l1 + l2, n1 + n2, fontsize=7, loc="lower left")
    ax.set_title("loss, test accuracy and the moment each block reaches its final type", fontsize=9)


def _panel_r_kkk(ax, ep: np.ndarray, r_kkk: list, ks: list) -> None:
    """Panel 2 of :func:`figure_run`: the potential ``r_kkk`` per frequency (R_g asks for 1)."""
    r = np.asarray(r_kkk, dtype=float)
    rk = r[..., 0] if r.ndim == 3 else r
    from matplotlib import colormaps  # late: matplotlib

    cmap = colormaps["viridis"]
    for i, k in enumerate(ks):
        ax.plot(ep, rk[:, i], color=cmap(i / max(len(ks) - 1, 1)), lw=0.9, label=f"k={k}" if len(ks) <= 12 else None)
    ax.axhline(1.0, color="k", lw=0.6, ls="--", label="R_g: r_kkk = 1")
    ax.set_ylabel("Re r[k,k,k]")
    ax.set_title("potential r_kkk per frequency (colour: k)", fontsize=9)
    ax.legend(fontsize=6, ncol=4 if len(ks) <= 12 else 1, loc="upper left")


def _panel_conditions(ax, ep: np.ndarray, fr: dict) -> None:
    """Panel 3 of :func:`figure_run`: the largest and median R_c, R_n, R_* potentials over frequencies.

    R_n at the frequencies that hold an order-4 block is drawn apart: the block's own sum is ``1 + s_k i`` by
    design, paid by the order-6 block's output at ``k`` (a cross-frequency term, SPEC 7.3), so it is not 0 here.
    """
    four = np.asarray(fr["order"], dtype=float) == 4
    # a snapshot with no block of a kind has an all-NaN row: nanmax/nanmedian give NaN (a gap), not a warning
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for j, c in enumerate(("R_c", "R_n", "R_*")):
            v = np.asarray(fr[c], dtype=float)
            w = np.where(four, np.nan, v) if c == "R_n" else v
            note = " (no order-4 block)" if c == "R_n" else ""
            ax.plot(ep, np.nanmax(w, axis=1), color=series_color(j), lw=1.2, label=f"{c}: max over k{note}")
            ax.plot(ep, np.nanmedian(w, axis=1), color=series_color(j), lw=0.9, ls="--",
                    label=f"{c}: median over k{note}")
        if four.any():
            v4 = np.where(four, np.asarray(fr["R_n"], dtype=float), np.nan)
            ax.plot(ep, np.nanmax(v4, axis=1), color="0.5", lw=1.0, ls=":",
                    label="R_n at order-4 blocks: |1 + s i| by design (SPEC 7.3), not a violation")
    ax.set_yscale("log")
    ax.set_ylabel("|same-frequency potential|\n(SPEC 6 asks for 0)")
    ax.set_title("same-frequency potentials of R_c, R_n, R_* (SPEC 5-6)", fontsize=9)
    ax.legend(fontsize=7, ncol=2)


def _panel_orders(fig, ax, ep: np.ndarray, orders: list, ks: list) -> None:
    """Panel 4 of :func:`figure_run`: the block order per frequency, an image against epoch."""
    order = np.asarray(orders, dtype=float).T  # (K, S)
    edges = np.concatenate([ep[:1], (ep[1:] + ep[:-1]) / 2, ep[-1:]]) if len(ep) > 1 else np.array([ep[0] - .5, ep[0] + .5])
    im = ax.pcolormesh(edges, np.arange(len(ks) + 1) - 0.5, order, cmap="magma_r", shading="flat",
                       vmin=0, vmax=max(8, float(order.max(initial=0))))
    fig.colorbar(im, ax=ax, label="block order (nodes)")
    ax.set_ylabel("frequency index")
    ax.set_yticks(np.arange(len(ks))[:: max(1, len(ks) // 12)])
    ax.set_yticklabels([str(ks[i]) for i in range(0, len(ks), max(1, len(ks) // 12))])
    ax.set_title("block order against epoch, per frequency", fontsize=9)


def figure_seeds(agg: dict, runs: Sequence[dict] | None = None):
    """When each block type appears and settles, mean +- standard error over runs (a Figure).

    Runs with no blocks (groups that are not Abelian: the block reading of SPEC 5-8 is skipped) get instead
    :func:`_figure_key_order` of ``runs``, when given.

    Returns
    -------
    matplotlib.figure.Figure
        Per block type, the mean epochs of first appearance and of settling with their standard errors, and the
        mean grokking epoch (not saved).

    Examples
    --------
    >>> from cogo.dynamics.runs import aggregate, formation
    >>> run = {"snapshots": [{"epoch": e, "blocks": [{"k": 1, "type": "z_nu * z_syn", "order": 6}]} for e in (0, 100)]}
    >>> run["formation"] = formation(run)
    >>> type(figure_seeds(aggregate([run]))).__name__
    'Figure'
    """
    from matplotlib.figure import Figure  # late: matplotlib

    types = list(agg["types"])
    if not types and runs:
        return _figure_key_order(runs)
    fig = Figure(figsize=(8, 1.2 + 0.5 * max(len(types), 1)), layout="constrained")
    ax = fig.subplots()
    y = np.arange(len(types))
    for off, key, col, lab in ((-0.15, "first_appearance", "C0", "first appears"), (0.15, "settled", "C3", "settles")):
        m = [agg["types"][t][key]["mean"] for t in types]
        s = [agg["types"][t][key]["se"] or 0.0 for t in types]
        mm = np.array([np.nan if v is None else v for v in m], dtype=float)
        ax.errorbar(mm, y + off, xerr=s, fmt="o", color=col, capsize=3, label=f"{lab} (mean ± s.e.)")
    g = agg["grokking_epoch"]
    if g["mean"] is not None:
        ax.axvline(g["mean"], color=MARKER_COLOR, ls="--", label="test accuracy >= 0.99 (mean)")
    ax.set_yticks(y)
    ax.set_yticklabels(types)
    ax.set_xlabel("epoch")
    ax.set_title(f"block types over training, {agg['runs']} run(s)")
    ax.legend(fontsize=7, loc="lower right")
    return fig


def _figure_key_order(runs: Sequence[dict]):
    """Per irrep family, the epoch its logit similarity first exceeds 0.05 (Chughtai et al.'s order in which the
    key irreps are learned), median and range over runs: ``dynamics_types.png`` of a group with no block types."""
    from matplotlib.figure import Figure  # late: matplotlib

    runs = [r for r in runs if (r.get("progress") or {}).get("chughtai")]
    names = runs[0]["progress"]["chughtai"]["families"] if runs else []
    first: dict = {nm: [] for nm in names}
    for r in runs:
        c = r["progress"]["chughtai"]
        sim = np.asarray([[np.nan if v is None else v for v in row] for row in c["logit_similarity"]], dtype=float)
        for f, nm in enumerate(c["families"]):
            hit = np.flatnonzero(sim[:, f] > CHUGHTAI_KEY_SIMILARITY) if f < sim.shape[1] else []
            if len(hit) and nm in first:
                first[nm].append(r["epochs"][hit[0]])
    shown = [nm for nm in names if first[nm]]
    fig = Figure(figsize=(8, 1.6 + 0.5 * max(len(shown), 1)), layout="constrained")
    ax = fig.subplots()
    for i, nm in enumerate(shown):
        v = np.asarray(first[nm], dtype=float)
        ax.errorbar([np.median(v)], [i], xerr=[[np.median(v) - v.min()], [v.max() - np.median(v)]], fmt="o",
                    color="C0", capsize=3, label="median, range over runs" if i == 0 else None)
    ax.set_yticks(range(len(shown)))
    ax.set_yticklabels(shown)
    ax.set_ylabel("irrep family")
    ax.set_ylim(-0.6, max(len(shown), 1) - 0.4)
    hits = [e for nm in shown for e in first[nm]]
    if hits and max(hits) > 10 * max(min(hits), 1):   # epochs over decades: a log axis
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_xlabel("epoch its logit similarity first exceeds 0.05 (log scale; 0 linear)")
    else:   # a narrow range (one snapshot): a linear axis with several ticks, not one lone decade
        from matplotlib.ticker import MaxNLocator  # late: matplotlib

        lo, hi = (min(hits), max(hits)) if hits else (0, 1)
        pad = max(1.0, 0.25 * (hi - lo))
        ax.set_xlim(max(0.0, lo - pad) if lo >= 0 else lo - pad, hi + pad)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True, min_n_ticks=3))
        ax.set_xlabel("epoch its logit similarity first exceeds 0.05")
    group = group_title(runs[0]["group"]) if runs else "?"
    ax.set_title(f"{group}: when each irrep becomes key (Chughtai et al.), {len(runs)} run(s); "
                 "no block types (the block reading of SPEC 5-8 is for Abelian groups)", fontsize=8)
    if shown:   # outside the axes: it covers no bar
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return fig


def save_png(fig, path: Path) -> str:
    """Write ``fig`` as a PNG (110 dpi) to ``path`` atomically; its path as a string."""
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=110)
    return str(path)



# --------------------------------------------------------------------------- progress measures
def _series(run: dict) -> dict:
    """The scalar series of one run, each a float array over its snapshots (NaN where missing): the run's own
    (epoch, losses, test accuracy) and each measure's (its ``series``)."""
    pr = run["progress"]
    f = lambda xs: np.asarray([np.nan if x is None else x for x in xs], dtype=float)
    snaps = run["snapshots"]
    out = {"epoch": f([s["epoch"] for s in snaps]), "train_loss": f([s.get("train_loss") for s in snaps]),
           "test_loss": f([s.get("test_loss") for s in snaps]), "test_acc": f([s.get("test_acc") for s in snaps])}
    for m in MEASURES:
        if m.series is not None:
            out.update(m.series(pr))
    return out


def _panels() -> list:
    """``(title, [(series, label, style)], logy, ylabel)`` of each panel: the run's lines, then the measures'."""
    return [(p.title, list(p.run_lines) + [(k, lab, ls) for m in MEASURES for (q, k, lab, ls) in m.lines if q is p],
             p.logy, p.ylabel) for p in PANELS]


def _panel_axes(fig, n: int):
    cols = 2
    rows = (n + cols - 1) // cols
    axes = fig.subplots(rows, cols).ravel()   # not shared: every panel keeps its epoch labels
    for ax in axes[n:]:
        ax.set_visible(False)
    return axes[:n]


def _decorate(ax, title: str, ylabel: str, logy: Any, grok: float | None, grok_label: str) -> None:
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_xlabel("epoch (log scale; 0 linear)")
    if logy == "symlog":
        ax.set_yscale("symlog", linthresh=1e-3)
    elif logy:
        ax.set_yscale("log")
    if grok is not None:
        ax.axvline(grok, color=MARKER_COLOR, lw=1.0, ls="--", label=grok_label)
    ax.set_title(title, fontsize=9)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.set_xlim(left=0)
    ax.legend(fontsize=6, loc="best")


def _line(i: int, key: str, ls: str) -> dict:
    """How series ``i`` of a panel is drawn: a palette colour and its line style; the categorical stage (0, 1, 2)
    as black steps with a marker at each snapshot (a value held until the next, never interpolated)."""
    if key == "stage":
        return {"color": "k", "ls": "-", "drawstyle": "steps-post", "marker": "o", "ms": 3}
    return {"color": series_color(i), "ls": ls}


def _on_epochs(x: np.ndarray, xs: np.ndarray, ys: np.ndarray, categorical: bool = False) -> np.ndarray:
    """``ys`` (at log epochs ``xs``) on the log epochs ``x``: linear interpolation, or for a categorical series
    the value of the last snapshot at or before (NaN before the first); NaN everywhere with fewer than 2 points."""
    if len(xs) < 2:
        return np.full(len(x), np.nan)
    if not categorical:
        return np.interp(x, xs, ys)
    i = np.searchsorted(xs, x, side="right") - 1
    return np.where(i >= 0, ys[np.clip(i, 0, None)], np.nan)


def figure_progress(run: dict):
    """The progress measures of one run against log epoch, one panel per measure (a matplotlib Figure).

    The epoch where test accuracy first reaches 0.99 is marked in every panel.
    """
    from matplotlib.figure import Figure  # late: matplotlib

    s = _series(run)
    grok = grok_epoch(run)
    fig = Figure(figsize=(12, 16), layout="constrained")
    kn = run["progress"]["key_names"]
    keys = ", ".join(kn) if len(kn) <= 4 else f"{len(kn)} of {len(run['progress']['families']) - 1} families"
    fig.suptitle(f"{group_title(run['group'])}, q={run['hidden']}, {run_name(run)}: progress measures "
                 f"(cogo's key families: {keys or 'none'})", fontsize=10)
    panels = _panels()
    axes = _panel_axes(fig, len(panels) + 1)
    for ax, (title, lines, logy, ylabel) in zip(axes, panels):
        for i, (k, lab, ls) in enumerate(lines):
            y = s[k]
            ok = np.isfinite(y) & ((y > 0) if logy is True else True)
            ax.plot(s["epoch"][ok], y[ok], **_line(i, k, ls), lw=1.2, label=lab)
        _decorate(ax, title, ylabel, logy, grok, "test acc >= 0.99")
    ax = axes[-1]
    pr = run["progress"]
    A = np.asarray(pr["fve"]["logits"], dtype=float)
    for f, fam in enumerate(pr["families"]):
        if f in pr["key"] or A[:, f].max() > 0.05:
            ax.plot(s["epoch"], A[:, f], lw=1.0, **series_style(f), label=fam["name"] if len(pr["families"]) <= 13
                    else None)
    _decorate(ax, "FVE of the centred logits per irrep family (key and > 0.05)", "fraction of variance", False, grok,
              "test acc >= 0.99")
    return fig


def figure_progress_seeds(runs: Sequence[dict]):
    """The same panels over many runs (seeds): median and range (lowest to highest run) per snapshot.

    Runs are put on the epochs of the first run (linear interpolation in log epoch where they differ);
    the median epoch where test accuracy reaches 0.99 is marked.
    """
    from matplotlib.figure import Figure  # late: matplotlib

    runs = [r for r in runs if r.get("progress")]
    S = [_series(r) for r in runs]
    ep = S[0]["epoch"]
    x = np.log1p(ep)
    groks = [g for g in (grok_epoch(r) for r in runs) if g is not None]
    grok = float(np.median(groks)) if groks else None
    fig = Figure(figsize=(12, 13), layout="constrained")
    fig.suptitle(f"{group_title(runs[0]['group'])}, q={runs[0]['hidden']}: progress measures over {len(runs)} run(s), "
                 f"median and range", fontsize=10)
    panels = _panels()
    for ax, (title, lines, logy, ylabel) in zip(_panel_axes(fig, len(panels)), panels):
        for i, (k, lab, ls) in enumerate(lines):
            Y = []
            for s in S:
                y = s[k]
                ok = np.isfinite(y)
                Y.append(_on_epochs(x, np.log1p(s["epoch"][ok]), y[ok], categorical=k == "stage"))
            Y = np.asarray(Y)
            with np.errstate(all="ignore"):
                med, lo, hi = np.nanmedian(Y, 0), np.nanmin(Y, 0), np.nanmax(Y, 0)
            ok = np.isfinite(med) & ((med > 0) if logy is True else True)
            style = _line(i, k, ls)
            col = style["color"]
            ax.plot(ep[ok], med[ok], **style, lw=1.2, label=f"{lab} (median)")
            if len(runs) > 1:
                ax.fill_between(ep[ok], lo[ok], hi[ok], color=col, alpha=0.15, lw=0,
                                step="post" if k == "stage" else None)
        _decorate(ax, title, ylabel, logy, grok, "test acc >= 0.99 (median)")
    return fig
