"""Reading the progress measures of a run, snapshot chunk by chunk, into ``run["progress"]`` (``cogo dynamics``).

:class:`ProgressReader` takes the chunks of a run's snapshots as
:func:`cogo.dynamics.runs.analyse_run` loads them, computes the measures of
:data:`cogo.dynamics.progress.MEASURES` (and the peers', its ``extra``) or reads
them from the cache (:mod:`cogo.dynamics.progress_cache`), and gives the
JSON-ready ``run["progress"]``; :func:`recorded_li2` reads the Li^2 statistics
the trainer recorded; :func:`aggregate_progress` summarizes many runs.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from cogo.algebra.activations import ACTIVATIONS, THEORY
from cogo.algebra.group_parsing import as_group
from cogo.dynamics.families import KEY_FRACTION, family_basis, key_epochs
from cogo.dynamics.progress import MEASURES, SECTIONS, fall_epoch, progress_measures
from cogo.dynamics.progress_cache import ProgressCache
from cogo.io.arrays import as_array
from cogo.solvers.li2_record import LI2_STATS

__all__ = ["recorded_li2", "ProgressReader", "aggregate_progress"]


def recorded_li2(meta: dict, epochs: Sequence[int]) -> dict | None:
    """The Li^2 statistics a checkpoint recorded at its snapshot epochs (``meta["snapshots"]["li2"]``), checked.

    The record must hold every :data:`cogo.solvers.li2_record.LI2_STATS` entry at exactly ``epochs``; a
    malformed record raises ValueError (one line): a checkpoint is untrusted input.

    Returns
    -------
    dict or None
        ``{stat: float64 array (S,), "eta": float}``, or None when the checkpoint recorded none.

    Raises
    ------
    ValueError
        One line, when the record does not match ``epochs`` or holds values that are not numbers.
    """
    snaps = meta.get("snapshots") if isinstance(meta, dict) else None
    rec = snaps.get("li2") if isinstance(snaps, dict) else None
    if rec is None:
        return None
    S = len(epochs)
    ok = isinstance(rec, dict) and [int(e) for e in rec.get("epoch", [])] == [int(e) for e in epochs] \
        and isinstance(rec.get("eta"), (int, float)) and math.isfinite(rec["eta"]) and rec["eta"] >= 0
    out: dict = {}
    for k in LI2_STATS if ok else ():
        v = rec.get(k)
        if not isinstance(v, (list, tuple)) or len(v) != S or not all(isinstance(x, (int, float)) for x in v):
            ok = False
            break
        out[k] = np.asarray(v, dtype=np.float64)
    if not ok:
        raise ValueError("the checkpoint's recorded Li^2 statistics (meta['snapshots']['li2']) do not match its "
                         f"{S} snapshot epochs; the file is damaged")
    out["eta"] = float(rec["eta"])
    return out


class ProgressReader:
    """Accumulates :func:`cogo.dynamics.progress.progress_measures` over the chunks of a run's snapshots (:mod:`cogo.dynamics.runs`).

    The key families are fixed first, from the last snapshot; the feature
    movement is measured from the first snapshot (epoch 0 when the run kept it).
    ``result(run)`` gives the JSON-ready ``run["progress"]``.  With
    ``cache_dir`` every snapshot's measures are kept there
    (:class:`cogo.dynamics.progress_cache.ProgressCache`), so reading a run again
    computes nothing it has read before; ``hits`` counts the snapshots read from it.  ``extra``: more measures read
    alongside (:data:`cogo.dynamics.peers_report.PEERS`, the peers' measures):
    ``keys(last, G, activation)`` once, ``measures(...)`` per chunk (arrays named
    ``extra.names``, cached with the rest), ``result(...)`` merged into the result.
    """

    def __init__(self, snaps: Any, group: Any, cache_dir: Any = None, extra: Any = None):
        self.G = as_group(group)
        self.basis = family_basis(self.G)
        meta = snaps.meta if isinstance(snaps.meta, dict) else {}
        tr = meta.get("train_idx")
        self.train_idx = None if tr is None else as_array(tr, dtype=np.int64).reshape(-1)
        self.loss = meta.get("loss") if meta.get("loss") in ("mse", "ce") else "mse"
        self.weight_decay = meta.get("weight_decay") if isinstance(meta.get("weight_decay"), (int, float)) else 0.0
        act = meta.get("activation", THEORY)
        self.activation = act if act in ACTIVATIONS else THEORY
        self.epochs = [int(e) for e in snaps.epochs]
        self.recorded = recorded_li2(meta, self.epochs)
        self.eta = self.recorded["eta"] if self.recorded is not None else None
        self.W0 = snaps.load(0)
        self.cache = None if cache_dir is None else ProgressCache(cache_dir, self)
        last = snaps.load(len(snaps) - 1)
        tail = None if self.recorded is None else {k: self.recorded[k][-1:] for k in LI2_STATS}
        self.key = self.cache.key(last, tail) if self.cache is not None else None
        if self.key is None:
            self.key = progress_measures(*last, self.G, train_idx=self.train_idx, loss=self.loss, eta=self.eta,
                                         weight_decay=self.weight_decay, W0=self.W0, activation=self.activation,
                                         li2=tail)["key"]
            if self.cache is not None:
                self.cache.save_key(last, tail, self.key)
        self.extra = extra
        self.peer_keys = extra.keys(last, self.G, self.activation) if extra is not None else {}
        # the per-snapshot arrays (the snapshot on the first axis), then the lists of labels, of every measure
        self._names = tuple(m.name for m in MEASURES if not m.labels) + \
            (tuple(extra.names) if extra is not None else ())
        self._labels = tuple(m.name for m in MEASURES if m.labels)
        self.parts: list = []
        self._pos = 0
        self.hits = 0

    def add(self, Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray) -> None:
        S = len(Wa)
        li2 = None if self.recorded is None else {k: self.recorded[k][self._pos:self._pos + S] for k in LI2_STATS}
        self._pos += S
        names = [self.cache.name(Wa[i], Wb[i], Wc[i], None if li2 is None else {k: v[i] for k, v in li2.items()})
                 for i in range(S)] if self.cache is not None else None
        got = [self.cache.load(nm) for nm in names] if names is not None else None
        # a snapshot cached before a measure was added lacks its array: a miss (computed again), not an error
        if got is not None and all(g is not None and all(k in g for k in self._names + self._labels) for g in got):
            self.hits += S
            part = {k: np.stack([g[k] for g in got]) for k in self._names}
            part.update({k: [str(g[k]) for g in got] for k in self._labels}, eta=float(got[0]["eta"]), key=list(self.key))
        else:
            part = progress_measures(Wa, Wb, Wc, self.G, train_idx=self.train_idx, loss=self.loss, key=self.key,
                                     eta=self.eta, weight_decay=self.weight_decay, W0=self.W0,
                                     activation=self.activation, li2=li2)
            if self.extra is not None:
                part.update(self.extra.measures(Wa, Wb, Wc, self.G, self.peer_keys, self.train_idx, self.activation))
            for i, nm in enumerate(names or []):
                self.cache.save(nm, {**{k: np.asarray(part[k][i]) for k in self._names + self._labels},
                                     "eta": np.asarray(part["eta"])})
        self.parts.append(part)

    @property
    def eta_used(self) -> float | None:
        """The ridge constant of the Li^2 statistics (recorded, or computed from the weight decay)."""
        return float(self.parts[0]["eta"]) if self.parts else None

    def result(self, run: dict | None = None) -> dict:
        """The JSON-ready ``run["progress"]``: the families and the key, then each measure's part (its ``json``),
        the ``extra`` measures' and, given the run, the :func:`fall_epoch` of the measures that report one and of
        the run's test and train loss."""
        B = self.basis
        values = {m.name: [s for p in self.parts for s in p[m.name]] if m.labels
                  else np.concatenate([np.asarray(p[m.name]) for p in self.parts]) for m in MEASURES}
        out = {
            "families": [{"name": nm, "irreps": fam, "dim": d, "kind": kd, "share": float(sh)}
                         for nm, fam, d, kd, sh in zip(B.names, B.families, B.irrep_dims, B.kinds, B.share)],
            "key": list(self.key), "key_names": [B.names[f] for f in self.key],
            "key_rule": f"fve_logits >= {KEY_FRACTION} x share at the last snapshot",
            "key_epoch": key_epochs(values["key_at"], self.epochs),
            "loss": self.loss, "activation": self.activation,
        }
        for m in MEASURES:
            for k, v in (m.json(values, self) if m.json is not None else {}).items():
                if k not in out and k in SECTIONS:
                    out[k] = SECTIONS[k](self)
                if isinstance(v, dict) and isinstance(out.get(k), dict):
                    out[k].update(v)
                else:
                    out[k] = v
        if self.extra is not None:
            cat = lambda k: np.concatenate([np.asarray(p[k]) for p in self.parts])
            out.update(self.extra.result({k: cat(k) for k in self.extra.names}, self.peer_keys, B, self.loss))
        if run is not None:
            snaps = run["snapshots"]
            out["fall_epoch"] = {**{m.name: fall_epoch(self.epochs, values[m.name]) for m in MEASURES if m.falls},
                                 "test_loss": fall_epoch(self.epochs, [r.get("test_loss") for r in snaps]),
                                 "train_loss": fall_epoch(self.epochs, [r.get("train_loss") for r in snaps])}
        return out


def aggregate_progress(runs: Sequence[dict]) -> dict:
    """Over runs: when the restricted and the test loss fall (:func:`fall_epoch`), median and range, and in how
    many runs the restricted loss falls first; per key family, when it becomes key.

    >>> run = {"progress": {"fall_epoch": {"restricted_loss": 20, "test_loss": 50, "train_loss": 10},
    ...                     "families": [{"name": "rho0"}, {"name": "rho1+rho4"}], "key_epoch": [None, 30]}}
    >>> agg = aggregate_progress([run, run])
    >>> agg["restricted_before_test"], agg["fall_epoch"]["test_loss"]["median"], agg["key_epoch"]["rho1+rho4"]["n"]
    (2, 50.0, 2)
    """
    runs = [r for r in runs if r.get("progress")]

    def stats(vals):
        v = np.asarray([x for x in vals if x is not None], dtype=float)
        return {"median": float(np.median(v)) if len(v) else None, "min": float(v.min()) if len(v) else None,
                "max": float(v.max()) if len(v) else None, "n": int(len(v))}

    fe = {k: stats([r["progress"].get("fall_epoch", {}).get(k) for r in runs])
          for k in (*(m.name for m in MEASURES if m.falls), "test_loss", "train_loss")}
    before = sum(1 for r in runs if None not in (r["progress"].get("fall_epoch", {}).get("restricted_loss"),
                                                r["progress"].get("fall_epoch", {}).get("test_loss"))
                 and r["progress"]["fall_epoch"]["restricted_loss"] < r["progress"]["fall_epoch"]["test_loss"])
    names: list = []
    for r in runs:
        for f in r["progress"]["families"]:
            if f["name"] not in names:
                names.append(f["name"])
    ke = {}
    for nm in names:
        vals = []
        for r in runs:
            fams = [f["name"] for f in r["progress"]["families"]]
            if nm in fams:
                vals.append(r["progress"]["key_epoch"][fams.index(nm)])
        ke[nm] = stats(vals)
    return {"runs": len(runs), "fall_epoch": fe, "restricted_before_test": before, "key_epoch": ke}

