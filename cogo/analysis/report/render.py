"""Rendering classification results (SPEC 8): text table, Markdown, JSON and angle histograms.

Everything is rendered in memory first; :func:`write_outputs` then writes
each file atomically (:func:`cogo.io.outputs.atomic_write`), after checking
every destination, so a failure leaves no partial output.

JSON layout (``format: "cogo-classify/1"``)::

    {"format", "settings": {...},
     "checkpoints": [{"path", "group", "n", "hidden", "live_nodes", "dead_nodes",
                      "zero_frequency_nodes", "mixed_nodes", "meta", "seconds",
                      "verdict": {"loss", "optimal", "residuals", "failed", "block_failures",
                                  "cross_frequency", ...},
                      "blocks": [{"k", "k_coords", "order", "type",
                                  "factors": [{"name", "params", "residual", "vectors"}],
                                  "error", "reference_err", "shape", "factorable", "optimal",
                                  "failed_conditions", "r_kkk", "sums", "abc_scale",
                                  "mixed_nodes", "self_conjugate", "kind", "residuals", "nodes",
                                  "grid"}]}],
     "summary": {...}}

Complex numbers are ``[re, im]`` pairs (parameters ``nu``, ``xi``, ``alpha``,
``beta``; ``r_kkk``; the eleven ``sums``; factor ``vectors`` as
``{"a": [[re, im], ...], "b": ..., "c": ...}``); ``s`` is the integer +-1;
undefined numbers (a standard error over one checkpoint) are ``null``.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from cogo import catalogue as _cat
from cogo.algebra.group_parsing import display_name
from cogo.io.tables import RenderedJSON, dumps_json, dumps_json_at, render_table, to_plain
from cogo.io.outputs import atomic_write, atomic_write_text, check_output_dir, check_outputs

# ClassifyResult / NetworkReport (cogo.analysis.classify) appear in annotations only: the renderer never imports
# the reading, whose results call it (the one contract, cogo.analysis.reading)

__all__ = [
    "to_json_dict",
    "render_json",
    "render_json_entry",
    "render_text",
    "render_markdown",
    "angle_histograms",
    "check_output_paths",
    "write_outputs",
    "tolerance_figure",
]



_SUMMARY_ROWS = (
    ("frac_blocks_not_order_4_or_6", "blocks not of order 4 or 6 (fraction)"),
    ("frac_nonfactorable_order_4", "cogo: non-factorable among order-4 blocks (factor-tol)"),
    ("frac_nonfactorable_order_6", "cogo: non-factorable among order-6 blocks (factor-tol)"),
    ("mean_relative_error_order_4", "cogo: mean relative reconstruction error, order 4"),
    ("mean_relative_error_order_6", "cogo: mean relative reconstruction error, order 6"),
    ("frac_blocks_optimal", "blocks optimal on their own (fraction)"),
    ("live_nodes", "live nodes"),
)


# --------------------------------------------------------------------------- JSON
def _c(z: Any) -> list:
    z = complex(z)  # to_plain of a complex, without its type dispatch (a sweep's report holds millions)
    return [z.real if math.isfinite(z.real) else None, z.imag if math.isfinite(z.imag) else None]


def _f(x: Any) -> float | None:
    return None if x is None else to_plain(float(x))


_plain = to_plain


def _factor_json(f: dict) -> dict:
    v = np.asarray(f["vectors"], dtype=np.complex128)
    d = {"name": str(f["name"]), "params": _plain(f["params"]), "residual": _f(f["residual"]),
         "vectors": {p: _plain(v[i]) for i, p in enumerate("abc")}}  # [re, im] per entry, as _c
    if "closest" in f:
        d["closest"] = _plain(f["closest"])
    return d


def report_json(r: NetworkReport) -> dict:
    """One checkpoint's block reading as plain JSON values (:meth:`NetworkReport.to_dict`)."""
    return {
        "path": str(r.path),
        "group": str(r.group.label),
        "n": int(r.group.order),
        "hidden": int(r.hidden),
        "live_nodes": int(r.live_nodes),
        "dead_nodes": int(r.dead_nodes),
        "zero_frequency_nodes": int(r.zero_frequency_nodes),
        "mixed_nodes": int(r.mixed_nodes),
        "meta": _plain(r.meta),
        "seconds": _f(r.seconds),
        "verdict": _plain(r.verdict.to_dict()) if r.verdict is not None else None,
        "distance": _f(r.snap.distance) if getattr(r, "snap", None) is not None else None,
        "blocks": [{
            "k": int(b.k),
            "k_coords": [int(v) for v in b.k_coords],
            "order": int(b.order),
            "type": str(b.type),
            "factors": [_factor_json(f) for f in b.factors],
            "error": _f(b.error),
            "shape": [int(m) for m in b.shape] if b.shape else None,
            "factorable": bool(b.factorable),
            "optimal": bool(b.optimal),
            "opt_tol": _f(b.opt_tol),
            "failed_conditions": [str(c) for c in b.failed_conditions],
            "r_kkk": _c(b.r_kkk),
            "sums": {str(k): _c(v) for k, v in b.sums.items()},
            "abc_scale": _c(b.abc_scale) if b.abc_scale is not None else None,
            "mixed_nodes": int(b.mixed_nodes),
            "self_conjugate": bool(b.self_conjugate),
            "kind": str(b.kind),
            "residuals": _plain(b.residuals),
            "nearest": _plain(b.nearest),
            "distance": _f(getattr(b, "distance", None)),  # to the snapped certified form (cogo.analysis.verdict.snap)
            "reference_err": _f(b.reference_err),  # the paper table's error (cogo.analysis.report.paper_measures)
            "amplitude_spread": _f(b.amplitude_spread),
            "search_note": None if b.search_note is None else str(b.search_note),
            "nodes": [int(j) for j in b.nodes],
            "grid": _plain(b.grid),
        } for b in r.blocks],
    }


def to_json_dict(result: ClassifyResult) -> dict:
    """The whole result as plain JSON-able Python values (layout in the module docstring).

    Returns
    -------
    dict
        ``format`` (``cogo-classify/1``), ``settings``, ``checkpoints`` (one reading each), ``summary`` and
        ``tolerance_curve`` (None unless computed), as plain JSON values.

    Examples
    --------
    >>> from cogo.analysis.classify import ClassifyResult, Settings, read_network, summarize
    >>> from cogo.solvers.constructions import z_F46
    >>> rep = read_network(*z_F46(7).to_weights(real=True), group=7)
    >>> d = to_json_dict(ClassifyResult([rep], summarize([rep]), Settings()))
    >>> sorted(d), [b["order"] for b in d["checkpoints"][0]["blocks"]]
    (['checkpoints', 'format', 'settings', 'summary', 'tolerance_curve'], [6, 4, 4])
    """
    return _json_dict(result, [report_json(r) for r in result.reports])


def _json_dict(result: ClassifyResult, checkpoints: list) -> dict:
    return {
        "format": "cogo-classify/1",
        "settings": _plain(result.settings.__dict__),
        "checkpoints": checkpoints,
        "summary": _plain(result.summary),
        "tolerance_curve": _plain(result.tolerance) if result.tolerance is not None else None,
    }


#: How deep a checkpoint's entry sits in the classify JSON (top dict, ``checkpoints`` list, the entry), and the
#: depth written one line per value (``checkpoints[i].blocks[j]``: one line per block).
ENTRY_DEPTH, COMPACT_DEPTH = 2, 4


def render_json_entry(r: NetworkReport) -> RenderedJSON:
    """One checkpoint's entry of :func:`render_json`, rendered at its place (what a sweep's workers do, so the
    parent only splices: ``classify_many(..., render_json=True)``)."""
    return dumps_json_at(report_json(r), ENTRY_DEPTH, COMPACT_DEPTH)


def render_json(result: ClassifyResult) -> str:
    """Strict JSON text (no NaN) of :func:`to_json_dict`, ending in a newline.

    The entries rendered when the checkpoints were read (``result.json_entries``, one per report) are
    spliced in as they are; the reports are final once read.

    Examples
    --------
    >>> import json
    >>> from cogo.analysis.classify import ClassifyResult, Settings, read_network, summarize
    >>> from cogo.solvers.constructions import z_F46
    >>> rep = read_network(*z_F46(7).to_weights(real=True), group=7)
    >>> result = ClassifyResult([rep], summarize([rep]), Settings())
    >>> json.loads(render_json(result)) == to_json_dict(result)
    True
    """
    entries = getattr(result, "json_entries", None)
    if entries is not None and len(entries) == len(result.reports):
        d = _json_dict(result, list(entries))
    else:
        d = to_json_dict(result)
    # plain values already (to_json_dict); one line per block: checkpoints[i].blocks[j]
    return dumps_json(d, compact_depth=COMPACT_DEPTH, plain=True)


# --------------------------------------------------------------------------- text / Markdown
def _fmt_param(k: str, v: Any) -> str:
    if isinstance(v, (complex, np.complexfloating)):
        ang = math.degrees(math.atan2(v.imag, v.real))
        mod = abs(v)
        return f"{k}={ang:.2f}deg" if abs(mod - 1) < 0.01 else f"{k}={mod:.3f}@{ang:.2f}deg"
    if k == "s":
        return f"s={int(v):+d}"
    if isinstance(v, float):
        return f"{k}={v:.3f}"
    return f"{k}={v}"


def _params_text(b) -> str:
    parts = []
    for f in b.factors:
        ps = [_fmt_param(k, v) for k, v in f["params"].items()]
        if ps:
            parts.append(f"{f['name']}(" + ", ".join(ps) + ")")
        elif "closest" in f:
            parts.append(f"unknown {f['vectors'].shape[1]}-node factor (closest {f['closest']['name']}, "
                         f"rms {f['closest']['residual']:.2f})")
        elif f["name"] == "unknown":
            parts.append(f"unknown {np.asarray(f['vectors']).shape[1]}-node factor")
    return "; ".join(parts)


def _num(x: float | None, fmt: str) -> str:
    return "-" if x is None or not math.isfinite(x) else format(x, fmt)


def _ms(d: dict, fmt: str = ".3f") -> tuple[str, str]:
    mean = _num(d.get("mean"), fmt)
    se = _num(d.get("se"), fmt)
    return f"{mean} +- {se}", str(d.get("n", 0))


def _block_rows(r: NetworkReport) -> list[list[str]]:
    rows = []
    for b in r.blocks:
        k = str(b.k) if len(b.k_coords) <= 1 else f"{b.k} {tuple(b.k_coords)}"
        rows.append([
            k, str(b.order), b.type, "x".join(map(str, b.shape)) if b.shape else "-",
            _num(b.error, ".1e"), _num(b.r_kkk.real, ".4f" if abs(b.r_kkk.real) < 1e6 else ".4g"), "yes" if b.optimal else "no",
            ",".join(b.failed_conditions) or "-", _num(getattr(b, "distance", None), ".3g"),
            str(b.mixed_nodes) if b.mixed_nodes else "-", _params_text(b),
        ])
    return rows


_BLOCK_HEAD = ["k", "order", "type", "shape", "error", "Re r_kkk", "optimal", "fails", "distance", "mixed", "parameters"]


def _table(head: list[str], rows: list[list[str]], indent: str = "  ") -> str:
    return render_table(head, rows, indent=indent)


def _md_table(head: list[str], rows: list[list[str]]) -> str:
    return render_table(head, rows, markdown=True)


#: The paper table's error columns by the reference's definitions (:mod:`cogo.analysis.report.paper_measures`): key, label,
#: scale (the reference prints 100 x all but the ``0_`` key), format.
_REFERENCE_ROWS = (
    ("0_non_4_6_0", "not order-4/6, blocks per network [0_non_4_6_0]", 1, ".2f"),
    ("1nonfact_4", "% non-factorable, order-4 [1nonfact_4 x 100]", 100, ".2f"),
    ("1nonfact_6", "% non-factorable, order-6 [1nonfact_6 x 100]", 100, ".2f"),
    ("err_4", "error, order-4 (1e-2) [err_4 x 100]", 100, ".2f"),
    ("err_6", "error, order-6 (1e-2) [err_6 x 100]", 100, ".2f"),
)

_REFERENCE_NOTE = ("The paper table's error columns by the reference's definitions (factorize_sol.py: err = spread of the "
                   "2 x q/2 ratios, factorable when err <= 0.1 sqrt(3 q); not cogo's errors above):")


def _reference_rows(summary: dict) -> list[list[str]]:
    rt = summary.get("reference_table") or {}
    out = []
    for key, label, scale, fmt in _REFERENCE_ROWS:
        if key in rt:
            d = rt[key]
            scaled = {"mean": None if d["mean"] is None else scale * d["mean"],
                      "se": None if d["se"] is None else scale * d["se"], "n": d["n"]}
            out.append([label, *_ms(scaled, fmt)])
    return out


#: What a report read with ``Settings(verdict=False)`` (``cogo classify --no-verdict``) says in place of its verdict.
NO_VERDICT = ("not computed (--no-verdict: the block reading only; no loss on all pairs, network R_c, network "
              "optimal flag or distances; each block's own conditions are read)")


def _header(r: NetworkReport, verdict: bool = True) -> str:
    meta = ", ".join(f"{k}={v}" for k, v in r.meta.items() if k != "final")
    s = (f"{r.path or '(network)'}  [{display_name(r.group.label)}, {r.hidden} hidden nodes: {r.live_nodes} live, "
         f"{r.dead_nodes} dead, {r.mixed_nodes} mixed-frequency, {r.zero_frequency_nodes} zero-frequency; "
         f"{len(r.blocks)} blocks]")
    s = s + (f"  {meta}" if meta else "")
    if verdict and r.verdict is not None:
        s += f"\n  network verdict: {r.verdict.summary_line()}"
    elif verdict and not getattr(r.settings, "verdict", True):
        s += f"\n  network verdict: {NO_VERDICT}"
    return s


def _summary_rows(summary: dict) -> tuple[list[list[str]], list[list[str]]]:
    rows = []
    for key, label in _SUMMARY_ROWS:
        fmt = ".1e" if key.startswith("mean_relative_error") else (".1f" if key == "live_nodes" else ".3f")
        rows.append([label, *_ms(summary[key], fmt)])
    types = [[t, *_ms(d)] for t, d in summary["type_distribution"].items()]
    return rows, types


def _paper_rows(summary: dict) -> list[list[str]]:
    pc = summary.get("paper_columns") or {}
    return [[c, *_ms(pc[c])] for c in _cat.PAPER_COLUMNS if c in pc]


_PAPER_NOTE = ("Columns of the reference table (fractions of the factorable order-4 and order-6 blocks; "
               "nu=i*syn_ab includes z_nu=i * z_syn):")


def render_text(result: ClassifyResult) -> str:
    """The per-block tables of every checkpoint and the summary, as plain text ending in a newline.

    Examples
    --------
    >>> from cogo.analysis.classify import ClassifyResult, Settings, read_network, summarize
    >>> from cogo.solvers.constructions import z_F46
    >>> rep = read_network(*z_F46(7).to_weights(real=True), group=7)
    >>> print(render_text(ClassifyResult([rep], summarize([rep]), Settings())).splitlines()[0])
    (network)  [Z_7, 14 hidden nodes: 14 live, 0 dead, 6 mixed-frequency, 0 zero-frequency; 3 blocks]
    """
    out = []
    for r in result.reports:
        out.append(_header(r))
        out.append(_table(_BLOCK_HEAD, _block_rows(r)) if r.blocks else
                   f"  (no live node: all {r.hidden} hidden nodes are dead)" if r.live_nodes == 0 and r.hidden
                   else "  (no live blocks)")
        out.append("")
    s = result.summary
    rows, types = _summary_rows(s)
    orders = ", ".join(f"{k}: {v}" for k, v in s["order_counts"].items()) or "none"
    out.append(f"Summary over {s['checkpoints']} checkpoint(s), {s['blocks']} blocks (block orders {orders}).")
    out.append("Each statistic is computed per checkpoint, then mean +- standard error over the n checkpoints "
               "where it is defined.")
    out.append(_table(["statistic", "mean +- s.e.", "n"], rows))
    out.append("")
    out.append("Factorable blocks by type (fraction per checkpoint):")
    out.append(_table(["type", "mean +- s.e.", "n"], types) if types else "  (no factorable blocks)")
    out.append("")
    out.append(f"{_PAPER_NOTE} [preset {result.settings.preset}: factor-tol {result.settings.factor_tol:g}, "
               f"name-tol {result.settings.name_tol:g}]")
    out.append(_table(["column", "mean +- s.e.", "n"], _paper_rows(s)))
    out.append("")
    out.append(_REFERENCE_NOTE)
    out.append(_table(["column", "mean +- s.e.", "n"], _reference_rows(s)))
    return "\n".join(out) + "\n"


def render_markdown(result: ClassifyResult) -> str:
    """The same content as :func:`render_text`, as Markdown.

    Returns
    -------
    str
        A Markdown document: the settings, the summary tables, then one section per checkpoint.

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F46
    >>> from cogo.analysis.classify import ClassifyResult, Settings, read_network, summarize
    >>> rep = read_network(*z_F46(7).to_weights(real=True), group=7)
    >>> print(render_markdown(ClassifyResult([rep], summarize([rep]), Settings())).splitlines()[0])
    # Classification of trained networks (SPEC 8)
    """
    st = result.settings
    s = result.summary
    out = ["# Classification of trained networks (SPEC 8)", ""]
    out.append(f"Settings: dead threshold {st.dead_threshold:g} (relative node strength), mixed-frequency "
               f"threshold {st.mix_threshold:g}, factorization tolerance {st.factor_tol:g} (relative error), "
               f"naming tolerance {st.name_tol:g}, optimality tolerance "
               + (f"{st.opt_tol:g}." if st.opt_tol is not None else "per block, 3 max(fit error, 64 eps) sum_j (|a_j|^2 + |b_j|^2)|c_j|."))
    out.append("")
    rows, types = _summary_rows(s)
    orders = ", ".join(f"{k}: {v}" for k, v in s["order_counts"].items()) or "none"
    out.append(f"## Summary over {s['checkpoints']} checkpoint(s)")
    out.append("")
    out.append(f"{s['blocks']} blocks; block orders {orders}. Each statistic is computed per checkpoint, then "
               "mean ± standard error over the n checkpoints where it is defined.")
    out.append("")
    out.append(_md_table(["statistic", "mean ± s.e.", "n"], [[a, b.replace("+-", "±"), c] for a, b, c in rows]))
    out.append("")
    out.append("### Factorable blocks by type")
    out.append("")
    out.append(_md_table(["type", "fraction (mean ± s.e.)", "n"], [[a, b.replace("+-", "±"), c] for a, b, c in types])
               if types else "No factorable blocks.")
    out.append("")
    out.append(f"### {_PAPER_NOTE.rstrip(':')}")
    out.append("")
    out.append(_md_table(["column", "fraction (mean ± s.e.)", "n"],
                         [[a, b.replace("+-", "±"), c] for a, b, c in _paper_rows(s)]))
    out.append("")
    out.append(f"### {_REFERENCE_NOTE.rstrip(':')}")
    out.append("")
    out.append(_md_table(["column", "mean ± s.e.", "n"],
                         [[a, b.replace("+-", "±"), c] for a, b, c in _reference_rows(s)]))
    out.append("")
    out.append("## Checkpoints")
    for r in result.reports:
        out.append("")
        out.append(f"### `{r.path or '(network)'}`")
        out.append("")
        out.append(_header(r, verdict=False).split("  [", 1)[-1].rstrip("]").replace("]  ", "; "))
        if r.verdict is not None or not getattr(r.settings, "verdict", True):
            out.append("")
            out.append(f"Network verdict: {r.verdict.summary_line() if r.verdict is not None else NO_VERDICT}")
        out.append("")
        out.append(_md_table(_BLOCK_HEAD, _block_rows(r)) if r.blocks else "No live blocks.")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- histograms
def collect_angles(result: ClassifyResult) -> dict[str, list[float]]:
    """Canonical angles (degrees) of every named factor's parameters, per parameter name."""
    params = _cat.angle_params()
    out: dict[str, list[float]] = {k: [] for k in params}
    for r in result.reports:
        for b in r.blocks:
            for f in b.factors:
                for k, v in f["params"].items():
                    if k in out and f["name"] == params[k] and isinstance(v, (complex, np.complexfloating)):
                        out[k].append(math.degrees(math.atan2(v.imag, v.real)))
    return out


def angle_histograms(result: ClassifyResult) -> dict[str, bytes]:
    """PNG bytes of one histogram per parameter (``angles_xi.png`` ...), rendered with matplotlib Agg.

    Examples
    --------
    >>> from cogo.analysis.classify import ClassifyResult, Settings, read_network, summarize
    >>> from cogo.solvers.constructions import z_F46
    >>> rep = read_network(*z_F46(7).to_weights(real=True), group=7, with_verdict=False)
    >>> pngs = angle_histograms(ClassifyResult([rep], summarize([rep]), Settings()))
    >>> sorted(pngs), all(v.startswith(b"\\x89PNG") for v in pngs.values())
    (['angles_alpha.png', 'angles_beta.png', 'angles_nu.png', 'angles_xi.png'], True)
    """
    from matplotlib.figure import Figure  # late: matplotlib (object API: no pyplot, no backend switch)

    out = {}
    params = _cat.angle_params()
    for k, vals in collect_angles(result).items():
        fig = Figure(figsize=(5, 3.2), dpi=100)
        ax = fig.add_subplot(1, 1, 1)
        if vals:
            ax.hist(vals, bins=36, range=(min(-1.0, min(vals)), max(91.0, max(vals))), color="C0")
        else:
            ax.text(0.5, 0.5, "no factors with this parameter", ha="center", va="center", transform=ax.transAxes)
        ax.set_xlabel(f"angle of {k} (degrees, canonical representative)")
        ax.set_ylabel("factors")
        ax.set_title(f"{k} of {params[k]} ({len(vals)} factors)")
        fig.tight_layout()
        out[f"angles_{k}.png"] = _png(fig)
    return out


def _family_key(name: str) -> str:
    """One key per block family, whether written as a block type (``z_nu=i * z_syn,ab``) or a reference column
    (``nu=i*syn_ab``)."""
    return name.replace("z_", "").replace(" ", "").replace(",ab", "_ab")


def _family_colours(names: Sequence[str]) -> dict:
    """One colour per block family across both panels of :func:`tolerance_figure` (``C0``, ``C1``, ... in order)."""
    keys: list = []
    for nm in names:
        if _family_key(nm) not in keys:
            keys.append(_family_key(nm))
    return {nm: f"C{keys.index(_family_key(nm)) % 10}" for nm in names}


def tolerance_figure(curve: dict):
    """A matplotlib Figure: fraction of each block type (and reference column) against the tolerance.

    ``curve`` is :func:`cogo.analysis.classify.tolerance_curve`'s output.  The
    Figure is built with the object API (no pyplot, no backend change).

    Returns
    -------
    matplotlib.figure.Figure
        Two panels: the fraction of each block type, and of each reference column, against the tolerance.

    Examples
    --------
    >>> from cogo.analysis.classify import tolerance_curve
    >>> from cogo.solvers.constructions import z_F46
    >>> curve = tolerance_curve([(*z_F46(7).to_weights(real=True), 7)], tolerances=(0.05, 0.1))
    >>> fig = tolerance_figure(curve)
    >>> type(fig).__name__, len(fig.axes)
    ('Figure', 2)
    """

    from matplotlib.figure import Figure  # late: matplotlib

    fig = Figure(figsize=(9, 3.6), dpi=100)
    t = curve["tolerances"]
    colour = _family_colours([*curve["types"], *curve["paper_columns"]])
    ax1 = fig.add_subplot(1, 2, 1)
    for name, ys in curve["types"].items():
        ax1.plot(t, ys, marker="o", label=name, color=colour[name])
    ax1.set_xlabel("tolerance (name-tol = factor-tol)")
    ax1.set_ylabel("fraction of factorable blocks")
    ax1.set_title("block types")
    ax1.legend(fontsize=7)
    ax2 = fig.add_subplot(1, 2, 2)
    for name, ys in curve["paper_columns"].items():
        ax2.plot(t, [y if y is not None else float("nan") for y in ys], marker="o", label=name, color=colour[name])
    ax2.set_xlabel("tolerance (name-tol = factor-tol)")
    ax2.set_ylabel("fraction of factorable order-4/6 blocks")
    ax2.set_title("reference columns")
    ax2.legend(fontsize=7)
    for ax in (ax1, ax2):
        ax.axvline(0.05, color="0.6", ls="--", lw=0.8)
        ax.axvline(0.1, color="0.6", ls=":", lw=0.8)
    fig.tight_layout()
    return fig


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


# --------------------------------------------------------------------------- writing
def check_output_paths(json_path: Any = None, markdown_path: Any = None, plots_dir: Any = None,
                       inputs: Any = (), force: bool = False, csv_path: Any = None) -> None:
    """Raise CogoError (one line) unless every requested output can be written (policy: :mod:`cogo.io.outputs`).

    The one check of every output of ``cogo classify`` (``--json``, ``--markdown``, ``--csv``,
    ``--plots``), made once before any checkpoint is read.
    Files: never an input, never a directory, a FIFO/device/symlink only with
    ``force``, a writable existing parent; no two the same.  Plots:
    ``plots_dir`` must be a directory or a new name in an existing writable
    directory (it is created on writing), and each histogram file in it passes
    the same checks.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     check_output_paths(json_path=os.path.join(d, "r.json"))   # fine: nothing raised
    ...     check_output_paths(json_path=d)
    Traceback (most recent call last):
    ...
    cogo.runtime.errors.CogoError: cannot write --json ...: it is a directory
    >>> with tempfile.TemporaryDirectory() as d:
    ...     check_output_paths(json_path=os.path.join(d, "r"), csv_path=os.path.join(d, "r"))
    Traceback (most recent call last):
    ...
    cogo.runtime.errors.CogoError: --json and --csv name the same file .../r
    """
    outs = [("--json", json_path), ("--markdown", markdown_path), ("--csv", csv_path)]
    if plots_dir is not None:
        check_output_dir(plots_dir, create=False, label="--plots")
        if Path(plots_dir).is_dir():
            outs += [("--plots", Path(plots_dir) / f"angles_{k}.png") for k in _cat.angle_params()]
    check_outputs(outs, inputs=inputs, force=force)


def write_outputs(result: ClassifyResult, json_path: Any = None, markdown_path: Any = None,
                  plots_dir: Any = None, force: bool = False) -> list[str]:
    """Render everything in memory, then write each requested output atomically; returns the paths written (JSON, Markdown, histograms, figure).

    Raises
    ------
    cogo.runtime.errors.CogoError
        One line, before anything is written, when an output cannot be written (:func:`check_output_paths`).

    Examples
    --------
    >>> import os, tempfile
    >>> from cogo.analysis.classify import ClassifyResult, Settings, read_network, summarize
    >>> from cogo.solvers.constructions import z_F46
    >>> rep = read_network(*z_F46(7).to_weights(real=True), group=7)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     written = write_outputs(ClassifyResult([rep], summarize([rep]), Settings()),
    ...                             json_path=os.path.join(d, "r.json"), markdown_path=os.path.join(d, "r.md"))
    ...     [os.path.basename(p) for p in written]
    ['r.json', 'r.md']
    """
    check_output_paths(json_path, markdown_path, plots_dir, force=force)
    if plots_dir is not None:
        result.compute_tolerance_curve()
    files: list[tuple[Path, Any]] = []
    if json_path is not None:
        files.append((Path(json_path), render_json(result)))
    if markdown_path is not None:
        files.append((Path(markdown_path), render_markdown(result)))
    if plots_dir is not None:
        for name, data in angle_histograms(result).items():
            files.append((Path(plots_dir) / name, data))
        if result.tolerance is not None:
            files.append((Path(plots_dir) / "tolerance.png", _png(tolerance_figure(result.tolerance))))
        Path(plots_dir).mkdir(exist_ok=True)
    written = []
    for path, data in files:
        if isinstance(data, bytes):
            with atomic_write(path, "wb") as fh:
                fh.write(data)
        else:
            atomic_write_text(path, data)
        written.append(str(path))
    return written
