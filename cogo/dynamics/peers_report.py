"""The peers' measures of a run (:mod:`cogo.dynamics.peers`) as JSON, text and figures, under their names.

``run["progress"]`` gains ``nanda`` (Nanda et al. 2023; ``Z_p`` only, else
None), ``chughtai`` (Chughtai et al. 2023) and ``gromov_doshi`` (Gromov 2023,
Doshi et al. 2024; ``Z_M`` only, else None), each with its ``definition`` in
words; :func:`summary_lines` gives the lines ``cogo dynamics`` prints and
:func:`figure_peers` the picture ``peers_<run>.png``: the losses, Chughtai et
al.'s logit similarity, weight FVE and hidden activations' FVE per irrep, the
IPR per layer, and the neuron x frequency (irrep) maps of ``W_a``, ``W_b``,
``W_c`` at the last snapshot (Nanda et al.'s figure).
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from cogo.dynamics.figures import group_title, run_name, series_color
from cogo.dynamics.peers import PEER_ARRAYS, peer_keys, peer_measures

__all__ = ["NANDA_DEFINITION", "CHUGHTAI_DEFINITION", "DOSHI_DEFINITION", "peers_result", "summary_lines",
           "figure_peers", "PEERS"]

NANDA_DEFINITION = (
    "Nanda et al. 2023: key frequencies = the frequencies k in 1..(p-1)/2 that are some live neuron's best frequency "
    "(largest share of its centred activations' 2-D Fourier energy in the {1, cos w_k, sin w_k}^2 block; the paper's "
    "range: the authors' code loops over range(1, p//2) and never considers (p-1)/2); restricted loss = each "
    "output's logits projected on cos w_k(a+b), sin w_k(a+b) of the key frequencies, each output's mean over the "
    "pairs added back, loss over all pairs; excluded loss = the logits minus those projections, over the training "
    "pairs")
CHUGHTAI_DEFINITION = (
    "Chughtai et al. 2023: logit similarity of irrep f = cos(L - mean_c L, chi_f(a b c^-1)) over all (a, b, c); "
    "logit FVE = sum of its squares over the non-trivial irreps; key irreps: similarity > 0.05 at the last "
    "snapshot; restricted loss = the hidden activations projected on the functions g(ab) of the key irreps' matrix "
    "coefficients, through W_c, over all pairs (no mean added); excluded loss = the rest, over the training pairs; "
    "FVE of W_a, W_b, W_c = ||Q_f^T w||^2 summed over nodes / the layer's squared norm; FVE of the hidden "
    "activations (their percent_hidden) = the activations over all pairs, centred per neuron, their share of squared "
    "norm in the functions g(ab) of irrep f (fve_hidden.ab, their 'MLP rho(ab) FVE') and in g(ab), g(a), g(b) "
    "together (fve_hidden.total, their 'MLP FVE')")
DOSHI_DEFINITION = (
    "Gromov 2023 / Doshi et al. 2024: IPR of a node's weight vector over its full DFT, sum_k |F_k|^4 / "
    "(sum_k |F_k|^2)^2 (one frequency pair: 1/2; spread evenly: 1/M), mean over the live nodes, per layer; cogo's "
    "ipr (irrep families, layers together, constant left out) is twice it for a node in one pair")
COGO_RESTRICTED = ("cogo's restricted loss (progress.restricted_loss): the logits projected on the key families' "
                   "functions of a b c^-1 alone (the target's own subspace, smaller than Nanda et al.'s functions "
                   "of a+b for each output), no mean added back")


#: The JSON keys of ``chughtai.fve_hidden`` and their arrays of :func:`cogo.dynamics.peers.peer_measures`.
_HIDDEN = {"ab": "chughtai_fve_hidden_ab", "total": "chughtai_fve_hidden"}


def _clean(a: Any) -> Any:
    """Nested lists of floats with NaN as None (JSON)."""
    x = np.asarray(a, dtype=float)
    return [None if not math.isfinite(v) else float(v) for v in x] if x.ndim == 1 else [_clean(r) for r in x]


def peers_result(arr: dict, keys: dict, basis: Any, run_loss: str) -> dict:
    """The JSON sections ``nanda``, ``chughtai``, ``gromov_doshi`` of a run's ``progress`` (module docstring).

    Returns
    -------
    dict
        ``{"nanda": dict or None, "chughtai": dict, "gromov_doshi": dict or None, "cogo_restricted_definition"}``.
    """
    names = list(basis.names)
    nt = np.arange(len(names)) != basis.trivial
    sim = np.asarray(arr["chughtai_similarity"], dtype=float)
    ck = list(keys["chughtai"])
    chughtai = {
        "definition": CHUGHTAI_DEFINITION, "families": names, "logit_similarity": _clean(sim),
        "key_irreps": ck, "key_names": [names[f] for f in ck], "key_rule": "logit similarity > 0.05 at the last snapshot",
        "logit_fve": _clean((sim[:, nt] ** 2).sum(1)),
        "restricted_loss": {"mse": _clean(arr["chughtai_restricted_mse"]), "ce": _clean(arr["chughtai_restricted_ce"])},
        "excluded_loss": {"mse": _clean(arr["chughtai_excluded_mse"]), "ce": _clean(arr["chughtai_excluded_ce"])},
        "fve": {w: _clean(arr[f"chughtai_fve_{w}"]) for w in ("Wa", "Wb", "Wc")},
        "fve_key": {w: _clean(np.asarray(arr[f"chughtai_fve_{w}"])[:, ck].sum(1)) for w in ("Wa", "Wb", "Wc")},
        "fve_hidden": {k: _clean(arr[n]) for k, n in _HIDDEN.items()},
        "fve_hidden_key": {k: _clean(np.asarray(arr[n])[:, ck].sum(1)) for k, n in _HIDDEN.items()},
        "run_loss": run_loss, "node_energy": keys.get("node_energy")}
    nanda = None
    if keys.get("nanda") is not None:
        nanda = {"definition": NANDA_DEFINITION, "key_frequencies": keys["nanda"],
                 "neurons_per_frequency": keys["nanda_neurons"], "run_loss": run_loss,
                 "restricted_loss": {"mse": _clean(arr["nanda_restricted_mse"]), "ce": _clean(arr["nanda_restricted_ce"])},
                 "excluded_loss": {"mse": _clean(arr["nanda_excluded_mse"]), "ce": _clean(arr["nanda_excluded_ce"])}}
    gd = None
    if keys.get("nanda") is not None:
        gd = {"definition": DOSHI_DEFINITION, "ipr": {w: _clean(arr[f"doshi_ipr_{w}"]) for w in ("Wa", "Wb", "Wc")}}
    return {"nanda": nanda, "chughtai": chughtai, "gromov_doshi": gd, "cogo_restricted_definition": COGO_RESTRICTED}


def _fmt(v: Any) -> str:
    return "-" if v is None else f"{v:.3g}"


def summary_lines(run: dict) -> list:
    """The lines ``cogo dynamics`` prints for one run, one per measure family present: the peers' key
    frequencies / irreps and losses at the end, and cogo's restricted and excluded loss."""
    pr = run.get("progress") or {}
    seed = run.get("seed")
    name = f"{group_title(run.get('group'))} " + (f"seed {seed}" if seed is not None else str(run.get("path", "")))
    lines = []
    n = pr.get("nanda")
    if n:
        r, e = n["restricted_loss"], n["excluded_loss"]
        lines.append(f"  {name}: Nanda et al. key frequencies {n['key_frequencies']}; at the last snapshot restricted "
                     f"loss {_fmt(r['mse'][-1])} (MSE) / {_fmt(r['ce'][-1])} (CE), excluded {_fmt(e['mse'][-1])} / "
                     f"{_fmt(e['ce'][-1])}")
    c = pr.get("chughtai")
    if c:
        r, e = c["restricted_loss"], c["excluded_loss"]
        hk = c.get("fve_hidden_key") or {}
        hidden = f"; MLP FVE {_fmt(hk['total'][-1])} (rho(ab) {_fmt(hk['ab'][-1])})" if hk else ""
        lines.append(f"  {name}: Chughtai et al. key irreps {', '.join(c['key_names']) or 'none'}; logit FVE "
                     f"{_fmt(c['logit_fve'][-1])}{hidden}; restricted loss {_fmt(r['mse'][-1])} (MSE) / "
                     f"{_fmt(r['ce'][-1])} (CE), excluded {_fmt(e['mse'][-1])} / {_fmt(e['ce'][-1])}")
    g = pr.get("gromov_doshi")
    if g:
        ip = g["ipr"]
        lines.append(f"  {name}: Gromov / Doshi et al. IPR (one frequency pair: 1/2) W_a {_fmt(ip['Wa'][-1])}, "
                     f"W_b {_fmt(ip['Wb'][-1])}, W_c {_fmt(ip['Wc'][-1])}")
    if pr.get("restricted_loss"):
        lines.append(f"  {name}: cogo restricted loss (target subspace, {pr.get('loss', 'mse')}) "
                     f"{_fmt(pr['restricted_loss'][-1])}, excluded {_fmt(pr['excluded_loss'][-1])}")
    return lines


def _y(xs: Sequence) -> np.ndarray:
    return np.asarray([np.nan if v is None else v for v in xs], dtype=float)


def _panel_losses(ax, run: dict, ep: np.ndarray) -> None:
    pr = run["progress"]
    snaps = run["snapshots"]
    lines = [(_y([s.get("train_loss") for s in snaps]), "train", "k", "-"),
             (_y([s.get("test_loss") for s in snaps]), "test", "0.5", "-")]
    if pr.get("nanda"):
        lines += [(_y(pr["nanda"]["restricted_loss"]["mse"]), "Nanda restricted", "C0", "-"),
                  (_y(pr["nanda"]["excluded_loss"]["mse"]), "Nanda excluded", "C0", ":")]
    lines += [(_y(pr["chughtai"]["restricted_loss"]["mse"]), "Chughtai restricted", "C1", "-"),
              (_y(pr["chughtai"]["excluded_loss"]["mse"]), "Chughtai excluded", "C1", ":"),
              (_y(pr["restricted_loss"]), "cogo restricted (abc^-1)", "C2", "--")]
    for y, lab, col, ls in lines:
        ok = np.isfinite(y) & (y > 0)
        ax.plot(ep[ok], y[ok], color=col, ls=ls, lw=1.2, label=lab)
    ax.set_yscale("log")
    ax.set_ylabel(f"loss ({pr.get('loss', 'mse').upper()}, the run's)")
    ax.set_title("losses: run, restricted to / excluding the key frequencies (irreps)", fontsize=9)


def _panel_per_family(ax, ep: np.ndarray, A: np.ndarray, names: list, key: list, ylabel: str, title: str) -> None:
    for f, nm in enumerate(names):
        if f in key or np.nanmax(np.abs(A[:, f])) > 0.05:
            ax.plot(ep, A[:, f], lw=1.5 if f in key else 0.8, ls="-" if f in key else ":", color=series_color(f),
                    label=nm if len(names) <= 14 else None)     # one colour per irrep in every panel (18 kept apart)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)


def _panel_map(fig, ax, run: dict, layer: str, cyclic: bool) -> None:
    c = run["progress"]["chughtai"]
    ne = c.get("node_energy") or {}
    E = np.asarray(ne.get(layer) or np.zeros((0, len(c["families"]))), dtype=float)
    tot = E.sum(1, keepdims=True)
    share = E / np.where(tot > 0, tot, 1.0)
    im = ax.imshow(share.T if len(share) else np.zeros((len(c["families"]), 1)), aspect="auto", cmap="Blues",
                   vmin=0, vmax=1, interpolation="nearest")
    fams = c["families"]
    step = max(1, len(fams) // 12)
    ax.set_yticks(range(0, len(fams), step))
    ax.set_yticklabels([(str(i) if cyclic else fams[i]) for i in range(0, len(fams), step)], fontsize=6)
    ax.set_ylabel("frequency k" if cyclic else "irrep family")
    ax.set_xlabel(f"live node (grouped by main {'frequency' if cyclic else 'irrep'}), last snapshot")
    ax.set_title(f"{layer}: share of each node's weight energy per {'frequency' if cyclic else 'irrep'}", fontsize=9)
    fig.colorbar(im, ax=ax, label="share of ||w||^2")


def figure_peers(run: dict):
    """The peers' pictures of one run (module docstring): a matplotlib Figure of 8 panels (7 for a run without the
    hidden activations' FVE).

    Returns
    -------
    matplotlib.figure.Figure
        Losses; Chughtai et al.'s logit similarity and W_a FVE per irrep; the IPR per layer; the node x frequency
        maps of W_a, W_b, W_c; Chughtai et al.'s FVE of the hidden activations by ``g(ab)`` per irrep.
    """
    from matplotlib.figure import Figure  # late: matplotlib

    pr = run["progress"]
    c = pr["chughtai"]
    ep = np.asarray([s["epoch"] for s in run["snapshots"]], dtype=float)
    cyclic = pr.get("nanda") is not None
    fig = Figure(figsize=(13, 17), layout="constrained")
    keys = f"key frequencies {pr['nanda']['key_frequencies']}" if cyclic else f"key irreps {', '.join(c['key_names'])}"
    fig.suptitle(f"{group_title(run['group'])}, q={run['hidden']}, {run_name(run)}: the peers' measures "
                 f"({keys})", fontsize=10)
    axes = fig.subplots(4, 2).ravel()
    _panel_losses(axes[0], run, ep)
    names = c["families"]
    _panel_per_family(axes[1], ep, np.asarray(c["logit_similarity"], dtype=float), names, c["key_irreps"],
                      "cos(L - mean_c L, chi_f(a b c^-1))", "Chughtai et al.: logit similarity per irrep")
    _panel_per_family(axes[2], ep, np.asarray(c["fve"]["Wa"], dtype=float), names, c["key_irreps"],
                      "share of ||W_a||^2", "Chughtai et al.: FVE of W_a per irrep")
    ax = axes[3]
    g = pr.get("gromov_doshi")
    if g:
        for w, ls in (("Wa", "-"), ("Wb", "--"), ("Wc", ":")):
            ax.plot(ep, _y(g["ipr"][w]), ls=ls, label=f"{w} (Gromov / Doshi)")
    ax.plot(ep, _y(pr["ipr"]["mean"]) / 2.0, color="k", lw=0.8, label="cogo family IPR / 2")
    ax.set_ylabel("mean IPR over live nodes")
    ax.set_title("IPR (one frequency pair: 1/2)" if g else
                 "IPR: cogo's family IPR / 2 (Gromov / Doshi et al.'s is defined for Z_M only)", fontsize=9)
    timed = list(axes[:4])
    if c.get("fve_hidden"):
        _panel_per_family(axes[7], ep, np.asarray(c["fve_hidden"]["ab"], dtype=float), names, c["key_irreps"],
                          "share of ||H - mean H||^2", "Chughtai et al.: FVE of the hidden activations by g(ab) per irrep")
        timed.append(axes[7])
    else:
        axes[7].set_visible(False)
    for ax in timed:
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_xlim(left=0)
        ax.set_xlabel("epoch (log scale; 0 linear)")
        ax.legend(fontsize=6, loc="best")
    for ax, layer in zip(axes[4:7], ("Wa", "Wb", "Wc")):
        _panel_map(fig, ax, run, layer, cyclic)
    return fig


class _Peers:
    """The peers' measures as :class:`cogo.dynamics.progress_reader.ProgressReader` takes them (its ``extra``)."""

    names = PEER_ARRAYS

    @staticmethod
    def keys(last: Sequence, G: Any, activation: str) -> dict:
        return peer_keys(*last, G, activation=activation)

    @staticmethod
    def measures(Wa: Any, Wb: Any, Wc: Any, G: Any, keys: dict, train_idx: Any, activation: str) -> dict:
        return peer_measures(Wa, Wb, Wc, G, keys, train_idx=train_idx, activation=activation)

    @staticmethod
    def result(arr: dict, keys: dict, basis: Any, run_loss: str) -> dict:
        return peers_result(arr, keys, basis, run_loss)


#: Passed by :func:`cogo.dynamics.runs.analyse_run` to the progress reader: the peers' measures of every run.
PEERS = _Peers()
