"""What training selects, aggregated: the law of key sets with Wilson intervals, the paper's table, the figures.

The input is the tidy per-run table of :mod:`cogo.commands.grid.sweep` (``OUT/runs.csv``: one row per run, read
back as strings or given as Python values).  A *configuration* is a row's values of :data:`CONFIG_COLUMNS` (every
axis of the grid but the seed); its runs are the seeds.  Per configuration:

* the **law of key sets**: for each measure (Chughtai et al.'s key irreps [2]_ for every group, Nanda et al.'s key
  frequencies [3]_ for cyclic groups), how often each key set occurs (the canonical string ``{1,2}``), how often each
  frequency / irrep is among the keys (its multiplicity over runs), and how often the key set has each size; every
  proportion ``x / n`` with its 95% Wilson score interval [4]_ (:func:`wilson`);
* the **paper's table** [1]_ (cyclic groups, activation ``sqr``): each column the mean over runs with its standard
  error (sample standard deviation / sqrt(runs)), as the paper reports its five seeds;
* the figures: the key-set law as bars with the Wilson intervals as error bars, and the histogram of solution order
  per frequency (every block of a final network is one frequency; lines at orders 4 and 6, as the reference's
  ``sol_distri.py`` draws it).

Runs that fail the convergence rule (``converged`` false) are counted apart and left out of every law.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [2] B. Chughtai, L. Chan, N. Nanda, "A toy model of universality: reverse engineering how networks learn group operations", ICML 2023.
.. [3] N. Nanda, L. Chan, T. Lieberum, J. Smith, J. Steinhardt, "Progress measures for grokking via mechanistic interpretability", ICLR 2023.
.. [4] E. B. Wilson, "Probable inference, the law of succession, and statistical inference", JASA 22 (1927) 209-212.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Any, Sequence

from cogo.algebra.activations import THEORY

__all__ = ["CONFIG_COLUMNS", "Z95", "CI_METHOD", "wilson", "keyset_string", "parse_keyset", "keyset_law", "laws",
           "paper_table", "figure_keysets", "figure_orders"]

#: The axes of the grid that make a configuration (everything but the seed).
CONFIG_COLUMNS = ("group", "hidden", "activation", "optimizer", "lr", "weight_decay")
#: The 0.975 quantile of the standard normal distribution (two-sided 95%).
Z95 = 1.959963984540054
CI_METHOD = ("Wilson score interval, 95% (z = 1.959964), for each proportion x/n of converged runs of one "
             "configuration; E. B. Wilson, JASA 22 (1927) 209-212")
#: The paper's table: block types named among the factorable blocks; every other factorable type is 'others'.
PAPER_TYPES = ("z_nu=i * z_xi", "z_nu=i * z_syn,ab", "z_nu * z_syn")
TABLE_COLUMNS = ("frac_not_order_4_6", "nonfact_order4", "nonfact_order6", "error_order4", "error_order6",
                 "type_nu_i_xi", "type_nu_i_synab", "type_nu_syn", "type_others")


def wilson(x: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``x / n`` (``n > 0``).

    ``(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)``, clipped to [0, 1].

    Examples
    --------
    >>> [round(v, 4) for v in wilson(0, 10)]     # no success in 10: [0, z^2/(n+z^2)] = [0, 3.8415/13.8415]
    [0.0, 0.2775]
    >>> [round(v, 4) for v in wilson(5, 10)]
    [0.2366, 0.7634]
    """
    if n <= 0 or not 0 <= x <= n:
        raise ValueError(f"wilson needs 0 <= x <= n and n > 0, got x={x}, n={n}")
    p = x / n
    d = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, mid - half), min(1.0, mid + half)


def keyset_string(keys: Sequence[int] | None) -> str:
    """The canonical key-set string: sorted distinct keys in braces (``{1,2}``; ``{}`` for none); '' when undefined.

    >>> keyset_string([3, 1, 3]), keyset_string([]), keyset_string(None)
    ('{1,3}', '{}', '')
    """
    if keys is None:
        return ""
    return "{" + ",".join(str(k) for k in sorted({int(k) for k in keys})) + "}"


def parse_keyset(text: str) -> tuple[int, ...] | None:
    """Inverse of :func:`keyset_string` (None for '').

    >>> parse_keyset("{1,3}"), parse_keyset("{}"), parse_keyset("")
    ((1, 3), (), None)
    """
    text = (text or "").strip()
    if not text:
        return None
    inner = text.strip("{}").strip()
    return tuple(int(t) for t in inner.split(",")) if inner else ()


def _prop(x: int, n: int) -> dict:
    lo, hi = wilson(x, n)
    return {"count": x, "p": x / n, "ci95": [lo, hi]}


def keyset_law(keysets: Sequence[str]) -> dict:
    """The law of key sets of the runs of one configuration (their canonical strings; '' = undefined, skipped).

    Returns ``{"runs", "sets": {set: {count, p, ci95}}, "keys": {key: ...}, "sizes": {size: ...}}``, each
    proportion over the runs with a defined key set; sets sorted by count (then string), keys and sizes by value.

    Examples
    --------
    >>> law = keyset_law(["{1,2}", "{1,2}", "{2}", "{1,2}"])
    >>> law["runs"], {s: v["count"] for s, v in law["sets"].items()}, {k: v["count"] for k, v in law["keys"].items()}
    (4, {'{1,2}': 3, '{2}': 1}, {'1': 3, '2': 4})
    """
    sets = [s for s in keysets if s]
    n = len(sets)
    out: dict[str, Any] = {"runs": n, "sets": {}, "keys": {}, "sizes": {}}
    if not n:
        return out
    c = Counter(sets)
    for s, x in sorted(c.items(), key=lambda t: (-t[1], t[0])):
        out["sets"][s] = _prop(x, n)
    parsed = [parse_keyset(s) or () for s in sets]
    keys = Counter(k for p in parsed for k in p)
    for k in sorted(keys):
        out["keys"][str(k)] = _prop(keys[k], n)
    sizes = Counter(len(p) for p in parsed)
    for s in sorted(sizes):
        out["sizes"][str(s)] = _prop(sizes[s], n)
    return out


def _config(row: dict) -> tuple:
    return tuple(str(row[c]) for c in CONFIG_COLUMNS)


def _truthy(v: Any) -> bool:
    return v is True or str(v).strip().lower() in ("true", "1", "yes")


def _float(v: Any) -> float | None:
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    x = float(v)
    return None if math.isnan(x) else x


def laws(rows: Sequence[dict]) -> list[dict]:
    """Per configuration (first-seen order): its axes, run counts and the key-set laws of both measures.

    Examples
    --------
    >>> rows = [{"group": "5", "hidden": 8, "activation": "sqr", "optimizer": "adam", "lr": 0.01, "weight_decay": 0,
    ...          "seed": s, "converged": c, "chughtai_keys": k, "nanda_keys": k}
    ...         for s, c, k in [(1, True, "{1}"), (2, True, "{1,2}"), (3, False, "{2}")]]
    >>> [(c["runs"], c["converged"], list(c["chughtai"]["sets"])) for c in laws(rows)]
    [(3, 2, ['{1,2}', '{1}'])]
    """
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault(_config(r), []).append(r)
    out = []
    for cfg, rs in groups.items():
        ok = [r for r in rs if _truthy(r.get("converged", True))]
        entry = dict(zip(CONFIG_COLUMNS, cfg))
        entry.update(runs=len(rs), converged=len(ok),
                     chughtai=keyset_law([str(r.get("chughtai_keys") or "") for r in ok]),
                     nanda=keyset_law([str(r.get("nanda_keys") or "") for r in ok]))
        if not entry["nanda"]["runs"]:
            entry["nanda"] = None  # not a cyclic group: Nanda's key frequencies are not defined
        out.append(entry)
    return out


def _mean_se(vals: Sequence[float]) -> dict:
    n = len(vals)
    if not n:
        return {"mean": None, "se": None, "runs": 0}
    m = sum(vals) / n
    se = math.sqrt(sum((v - m) ** 2 for v in vals) / (n - 1) / n) if n > 1 else None
    return {"mean": m, "se": se, "runs": n}


def paper_table(rows: Sequence[dict]) -> list[dict]:
    """The paper's table per configuration of converged ``sqr`` runs on cyclic groups: mean and standard error.

    Each column is a per-run number of ``runs.csv`` (:data:`TABLE_COLUMNS`, fractions in [0, 1], errors as read);
    a run where the column is undefined (no order-4 block, say) is left out of that column's mean ("runs" says
    how many entered).

    Examples
    --------
    >>> rows = [{"group": "7", "hidden": 8, "activation": "sqr", "optimizer": "adam", "lr": 0.01, "weight_decay": 0,
    ...          "cyclic": True, "converged": True, "frac_not_order_4_6": v} for v in (0.0, 0.5)]
    >>> t = paper_table(rows)[0]["frac_not_order_4_6"]
    >>> t["mean"], t["se"], t["runs"]        # se = sd / sqrt(2) = 0.35355 / 1.41421
    (0.25, 0.25, 2)
    """
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        if str(r.get("activation")) == THEORY and _truthy(r.get("cyclic")) and _truthy(r.get("converged", True)):
            groups.setdefault(_config(r), []).append(r)
    out = []
    for cfg, rs in groups.items():
        entry: dict[str, Any] = dict(zip(CONFIG_COLUMNS, cfg))
        entry["runs"] = len(rs)
        for col in TABLE_COLUMNS:
            entry[col] = _mean_se([v for v in (_float(r.get(col)) for r in rs) if v is not None])
        out.append(entry)
    return out


def _label(c: dict) -> str:
    return (f"{c['group']} q={c['hidden']} {c['activation']} {c['optimizer']} lr={float(c['lr']):g} "
            f"wd={float(c['weight_decay']):g}")


def _grid(n: int) -> tuple[int, int]:
    cols = min(4, max(1, n))
    return math.ceil(n / cols), cols


def figure_keysets(configs: Sequence[dict], measure: str = "chughtai", top: int = 8) -> Any:
    """The law of key sets, one panel per configuration: bars (proportion of runs) with 95% Wilson error bars.

    At most ``top`` sets per panel (the most frequent); returns a matplotlib Figure, or None with nothing to draw.
    """
    from matplotlib.figure import Figure  # late: matplotlib

    cs = [c for c in configs if c.get(measure) and c[measure]["runs"]]
    if not cs:
        return None
    nr, nc = _grid(len(cs))
    fig = Figure(figsize=(3.6 * nc, 2.6 * nr), dpi=100)
    for i, c in enumerate(cs):
        ax = fig.add_subplot(nr, nc, i + 1)
        items = list(c[measure]["sets"].items())[:top]
        ps = [v["p"] for _, v in items]
        err = [[p - v["ci95"][0] for p, (_, v) in zip(ps, items)], [v["ci95"][1] - p for p, (_, v) in zip(ps, items)]]
        ax.bar(range(len(items)), ps, yerr=err, capsize=3, color="tab:blue")
        ax.set_xticks(range(len(items)))
        ax.set_xticklabels([s for s, _ in items], rotation=45, ha="right", fontsize=7)
        ax.set_ylim(0, 1)
        ax.set_title(f"{_label(c)}\n(n={c[measure]['runs']})", fontsize=7)
        ax.tick_params(labelsize=7)
    who = "Chughtai et al.'s key irreps" if measure == "chughtai" else "Nanda et al.'s key frequencies"
    fig.suptitle(f"Law of key sets ({who}); error bars: 95% Wilson intervals", fontsize=9)
    fig.tight_layout()
    return fig


def figure_orders(rows: Sequence[dict]) -> Any:
    """Histogram of solution order per frequency (every block of a final ``sqr`` network on a cyclic group is one
    frequency), one panel per configuration, dashed lines at orders 4 and 6; a Figure, or None with no block."""
    from matplotlib.figure import Figure  # late: matplotlib

    groups: dict[tuple, list[int]] = {}
    for r in rows:
        if str(r.get("activation")) != THEORY or not _truthy(r.get("cyclic")) or not _truthy(r.get("converged", True)):
            continue
        orders = [int(t.split(":")[1]) for t in str(r.get("block_orders") or "").split(";") if ":" in t]
        groups.setdefault(_config(r), []).extend(orders)
    groups = {k: v for k, v in groups.items() if v}
    if not groups:
        return None
    nr, nc = _grid(len(groups))
    fig = Figure(figsize=(3.4 * nc, 2.4 * nr), dpi=100)
    for i, (cfg, orders) in enumerate(groups.items()):
        ax = fig.add_subplot(nr, nc, i + 1)
        hi = max(orders) + 1
        ax.hist(orders, bins=[x - 0.5 for x in range(1, hi + 1)], color="tab:gray")
        for x in (4, 6):
            ax.axvline(x, color="tab:red", ls="--", lw=0.8)
        ax.set_title(_label(dict(zip(CONFIG_COLUMNS, cfg))), fontsize=7)
        ax.set_xlabel("solution order (nodes per frequency)", fontsize=7)
        ax.tick_params(labelsize=7)
    fig.suptitle("Solution order per frequency (final networks, threshold 0.05); lines at 4 and 6", fontsize=9)
    fig.tight_layout()
    return fig
