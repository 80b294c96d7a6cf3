"""The report of an experiment: figures, ``report.md``, ``report.json`` and the terminal digest."""
from __future__ import annotations

import io
import math
import os
import time
from dataclasses import asdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from cogo._version import __version__
from cogo.algebra.group_parsing import display_name
from cogo.commands.grid.config import OPTION_DEFAULTS, ExperimentConfig
from cogo.io.tables import dumps_json, render_table
from cogo.io.outputs import atomic_write_text
from cogo.solvers.training_results import plot_history


# --------------------------------------------------------------------------- figures
def order_histogram(reports, label: str) -> bytes | None:
    """PNG of the block-order histogram (SPEC 8.3), or None when there is no block to draw."""
    from matplotlib.figure import Figure  # late: matplotlib; a Figure of its own: the caller's backend is untouched
    from matplotlib.patches import Patch  # late: matplotlib

    counts = order_counts(reports)
    if not counts:
        return None
    fig = Figure(figsize=(5, 3.2), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    keys = sorted(counts)
    ax.bar([str(k) for k in keys], [counts[k] for k in keys], color=["C0" if k in (4, 6) else "C3" for k in keys])
    ax.set_xlabel("block order (live nodes per frequency)")
    ax.set_ylabel("blocks (all frequencies, all seeds)")
    total = sum(counts.values())
    ax.set_title(f"{display_name(label)}: {total} blocks in {len(reports)} model(s)")
    if any(k in (4, 6) for k in keys) and any(k not in (4, 6) for k in keys):  # two colours: say which is which
        ax.legend(handles=[Patch(color="C0", label="order 4 or 6"), Patch(color="C3", label="other orders")],
                  fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def order_counts(reports) -> dict[int, int]:
    counts: dict[int, int] = {}
    for r in reports:
        for b in r.blocks:
            counts[b.order] = counts.get(b.order, 0) + 1
    return counts


def curves(metas: list[dict], tc, path: Path) -> None:
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


def md_table(head: list[str], rows: list[list[str]]) -> str:
    return render_table(head, rows, markdown=True)


def _training_rows(training: list[dict]) -> list[list[str]]:
    return [[f"{display_name(t['group'])}", str(t["seed"]), f"{t['weight_decay']:g}", _fmt(t["train_loss"], ".3e"),
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
               + "".join(f" {k.replace('_', ' ')} {cfg[k]};" for k, v in OPTION_DEFAULTS.items()
                         if k in cfg and cfg[k] != v).rstrip(";"))
    out.append("")
    out.append("## Training")
    out.append("")
    out.append(md_table(["group", "seed", "wd", "train loss", "test loss", "train acc", "test acc", "wall s"],
                         _training_rows(report["training"])))
    for g in report["groups"]:
        out.append("")
        out.append(f"![training curves {display_name(g['group'])}]({g['figures']['curves']})")
    out.append("")
    out.append("## Classification (SPEC 8)")
    for g in report["groups"]:
        if g.get("nodes"):  # another activation: the per-node reading
            out += ["", f"### {display_name(g['group'])}", "", class_md[g["group"]], "",
                    f"Per-node tables: [`{g['classification_markdown']}`]({g['classification_markdown']})."]
            continue
        s = g["classification"]["summary"]
        out.append("")
        out.append(f"### {display_name(g['group'])}")
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
            out.append(f"![block orders {display_name(g['group'])}]({g['figures']['orders']})")
        for name, fig in g["figures"]["angles"].items():
            out.append(f"![{name} {display_name(g['group'])}]({fig})")
        out.append("")
        out.append(f"Per-block tables: [`{g['classification_markdown']}`]({g['classification_markdown']}).")
    if report["verification"]:
        out.append("")
        out.append("## Verification of the constructions (SPEC 3-7)")
        for g, res in report["verification"].items():
            out.append("")
            out.append(f"### {display_name(g)}")
            out.append("")
            out.append(md_table(["theorem", "method", "status", "residual", "seconds"], _verification_rows(res)))
            ok = all(r["passed"] for r in res)
            out.append("")
            out.append("Every theorem holds and every negative control is caught." if ok else
                       "**Some checks failed** (see the rows above).")
    return "\n".join(out) + "\n"


#: The reference's error columns (cogo.analysis.report.paper_measures), unscaled fractions and ``err``.
_REFERENCE_LABELS = (("1nonfact_4", "reference (factorize_sol.py): non-factorable, order 4 [1nonfact_4]"),
                     ("1nonfact_6", "reference (factorize_sol.py): non-factorable, order 6 [1nonfact_6]"),
                     ("err_4", "reference (factorize_sol.py): mean factorization error, order 4 [err_4]"),
                     ("err_6", "reference (factorize_sol.py): mean factorization error, order 6 [err_6]"))


def summary_md(summary: dict) -> str:
    """The aggregate classification table (mean +- standard error over models) as Markdown."""
    rows = []
    labels = [("frac_blocks_not_order_4_or_6", "blocks not of order 4 or 6 (fraction)", ".3f"),
              ("frac_nonfactorable_order_4", "cogo: non-factorable among order-4 blocks (factor-tol)", ".3f"),
              ("frac_nonfactorable_order_6", "cogo: non-factorable among order-6 blocks (factor-tol)", ".3f"),
              ("mean_relative_error_order_4", "cogo: mean relative reconstruction error, order 4", ".1e"),
              ("mean_relative_error_order_6", "cogo: mean relative reconstruction error, order 6", ".1e"),
              ("frac_blocks_optimal", "blocks optimal on their own (fraction)", ".3f")]
    for key, label, fmt in labels:
        d = summary[key]
        rows.append([label, f"{_fmt(d['mean'], fmt)} ± {_fmt(d['se'], fmt)}", str(d["n"])])
    for key, label in _REFERENCE_LABELS:  # the paper table's, by the reference's definitions (unscaled)
        d = (summary.get("reference_table") or {}).get(key)
        if d is not None:
            rows.append([label, f"{_fmt(d['mean'], '.2e')} ± {_fmt(d['se'], '.2e')}", str(d["n"])])
    for t, d in summary["type_distribution"].items():
        rows.append([f"type `{t}` (fraction of factorable)", f"{_fmt(d['mean'], '.3f')} ± {_fmt(d['se'], '.3f')}",
                     str(d["n"])])
    return md_table(["statistic", "mean ± s.e. over models", "n"], rows)

def write_report(cfg: ExperimentConfig, out: Path, labels: list[str], command: str, training: list,
                  groups_out: list, verification: dict, class_md: dict, t0: float) -> dict:
    """Assemble the report dict, write ``report.json`` and ``report.md`` (atomically); return the dict."""
    report = {
        "format": "cogo-experiment/1",
        "cogo_version": __version__,
        "command": command or "cogo.commands.grid.run.run_experiment",
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



def summary_text(report: dict) -> str:
    """A short plain-text digest of a report for the terminal."""
    lines = []
    rows = _training_rows(report["training"])
    head = ["group", "seed", "wd", "train loss", "test loss", "train acc", "test acc", "wall s"]
    lines += _plain_table(head, rows)
    for g in report["groups"]:
        if g.get("nodes"):  # another activation: no catalogue name, the per-node reading
            lines += ["", f"{display_name(g['group'])}: {g['nodes']['note']}"]
            lines += _plain_table(["checkpoint", "live", "single-frequency", "accuracy"],
                                  [[os.path.basename(d["path"]), str(d["live"]),
                                    f"{d['single_frequency_fraction']:.3f}", f"{d['accuracy']:.4f}"]
                                   for d in g["nodes"]["checkpoints"]])
            continue
        s = g["classification"]["summary"]
        lines.append("")
        lines.append(f"{display_name(g['group'])}: {s['blocks']} blocks, orders "
                     + ", ".join(f"{k}: {v}" for k, v in g["order_histogram"].items()))
        trows = []
        for key, label, fmt in (("frac_blocks_not_order_4_or_6", "not order 4 or 6", ".3f"),
                                ("frac_nonfactorable_order_4", "cogo: non-factorable, order 4", ".3f"),
                                ("frac_nonfactorable_order_6", "cogo: non-factorable, order 6", ".3f"),
                                ("mean_relative_error_order_4", "cogo: mean relative error, order 4", ".1e"),
                                ("mean_relative_error_order_6", "cogo: mean relative error, order 6", ".1e")):
            d = s[key]
            trows.append([label, f"{_fmt(d['mean'], fmt)} +- {_fmt(d['se'], fmt)}", str(d["n"])])
        for t, d in s["type_distribution"].items():
            trows.append([t, f"{_fmt(d['mean'], '.3f')} +- {_fmt(d['se'], '.3f')}", str(d["n"])])
        lines += _plain_table(["statistic / block type", "mean +- s.e.", "n"], trows)
    for g, res in report["verification"].items():
        lines.append("")
        lines.append(f"Verification, {display_name(g)}:")
        lines += _plain_table(["theorem", "method", "status", "residual", "seconds"], _verification_rows(res))
    return "\n".join(lines) + "\n"


def _plain_table(head: list[str], rows: list[list[str]]) -> list[str]:
    return render_table(head, rows).splitlines()


def verification_ok(report: dict) -> bool:
    """True when every theorem passed and every negative control was caught (or nothing was verified)."""
    return all(r["passed"] for res in report["verification"].values() for r in res)
