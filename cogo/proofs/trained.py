"""``cogo verify --checkpoint``: the verdict of one network -- how far it is from the nearest certified optimizer.

A checkpoint is read once (:func:`cogo.io.checkpoint.read_checkpoint`) and read as blocks once
(:func:`cogo.analysis.classify.read_network`, the reading ``cogo classify`` prints); then

1. the nearest certified global optimizer (:func:`cogo.analysis.verdict.snap.snap_network`): every block put on its
   family's exact constraint set, dead nodes dropped; the snapped network is rebuilt with exact rational
   points of the unit circle and certified exactly (the block route of SPEC 6: exact supports, every
   condition residual and the loss exactly 0), and the family certificate of every block type present
   (:func:`cogo.proofs.theorems.optimality.family_certificate`) holds for every value of its free parameters;
2. the distance from the network to it (relative, invariant under node order, signs and the per-node gauge;
   per block and for the network, the worst block named) and both real-space losses;
3. the loss relative to the zero network's, ``1 - 1/n`` (:func:`zero_network_loss`: what the network computes, which
   the weight distance does not bound), and its split by output frequency
   (:func:`cogo.algebra.loss.real_loss_by_frequency`), which says at which blocks the loss is.

Three verdicts, exit status 0, 0, 1:

* ``certified optimizer``: the file records exact parameters (``cogo construct``; or ``--snap``'s exact point,
  :mod:`cogo.analysis.verdict.snap_record`), its weights are the float64 rounding of that exact network (equal to
  ``1e-15`` relative), and it is certified exactly;
* ``near a certified optimizer``: the snapped network is certified, the network and every block are within
  ``max_distance`` (:data:`DEFAULT_MAX_DISTANCE`, ``--max-distance``) and the relative loss is at most
  ``max_relative_loss`` (:data:`DEFAULT_MAX_RELATIVE_LOSS`, ``--max-relative-loss``);
* ``not near one``: what keeps it away, one line per cause, each block named once (no family of a global
  optimizer, a self-conjugate frequency, blocks farther than the maximum with their distances, the relative loss
  above its bound with the frequencies that carry it, a missing frequency).

Each block's conditions and distance are the reading's (one computation: the text, the JSON, ``cogo classify``
and its CSV show the same).

The loss within a numeric tolerance (:func:`cogo.analysis.verdict.network_verdict.network_verdict`) stays as secondary
information; no certificate is printed for any object but the one certified.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cogo.algebra.activations import THEORY
from cogo.runtime.errors import CogoError
from cogo.runtime.limits import verify_checkpoint_estimate
from cogo.runtime.threads import thread_policy as _thread_policy
from cogo.algebra.loss import real_loss, real_loss_by_frequency
from cogo.algebra.group_parsing import as_group
from cogo.io.checkpoint import read_checkpoint
from cogo.io.layouts import DEFAULT_OPTIONS, ReadOptions
from cogo.io.weights import save_checkpoint
from cogo.catalogue.constructions import from_record
from cogo.solvers.constructions import construct
from cogo.analysis.classify import read_network
from cogo.analysis.verdict.network_verdict import network_verdict
from cogo.analysis.verdict.snap import SNAP_TYPES, snap_network, unit_point
from cogo.analysis.verdict.snap_record import exact_design, exact_record, record_design
from cogo.proofs.certificates.block_certificate import block_certificate
from cogo.proofs.certificates.design_reader import design_from_network
from cogo.proofs.theorems.optimality import family_certificate, optimality

__all__ = ["DEFAULT_MAX_DISTANCE", "DEFAULT_MAX_RELATIVE_LOSS", "VERDICTS", "CheckpointVerdict", "checkpoint_report",
           "verify_checkpoint", "write_snapped", "zero_network_loss"]

#: The largest distance (relative, gauge invariant; :mod:`cogo.analysis.verdict.snap`) at which a network is "near"
#: its snapped optimizer.  Measured (docs/verify.md, benchmarks/results/verdict_distances.json): a construction
#: with relative weight noise e is at distance e (1e-5 .. 1e-2), rounded to bfloat16 at 1.8e-3; trained Z_23
#: runs (q = 512, 10000 epochs) whose every block reads as a catalogue form at 0.034 and 0.044, one with a
#: block of no catalogue form at 0.19, runs stopped at 2000 epochs at 0.73 .. 1.
DEFAULT_MAX_DISTANCE = 0.05
#: The largest loss, relative to the zero network's (:func:`zero_network_loss`), at which a network is "near" its
#: snapped optimizer.  Measured (docs/verify.md, "What near is on real runs"): trained Z_23 runs (q = 512, 10000
#: epochs) at 1e-5 .. 1e-4, constructions with relative weight noise e at about 4.5 e^2 (0.011 at e = 0.05, the
#: largest distance that is near); z_F4/6's order-4 block without its hat costs 4/23 / (22/23) = 0.18 on Z_23.
DEFAULT_MAX_RELATIVE_LOSS = 0.01
#: The three verdicts, in order of strength.
VERDICTS = ("certified optimizer", "near a certified optimizer", "not near one")
#: The file's weights are its recorded construction when they agree to this (relative; float64 rounding).
SAME_AS_CONSTRUCTION = 1e-15


@dataclass
class CheckpointVerdict:
    """The verdict of one checkpoint (module docstring); ``to_dict()`` is ``cogo verify --checkpoint --json``."""

    path: str
    group: str
    hidden: int
    layout: str
    activation: str
    dtype: str
    verdict: str
    nearest_optimum: dict
    numeric: dict
    construction: dict | None = None
    blocks: list = field(default_factory=list)
    #: the snap itself (:class:`cogo.analysis.verdict.snap.Snap`; not part of the JSON)
    snap: Any = field(default=None, repr=False)

    @property
    def exit_code(self) -> int:
        """0 for a certified optimizer or a network near one, 1 otherwise."""
        return 0 if self.verdict in VERDICTS[:2] else 1

    @property
    def certified(self) -> bool:
        """The file itself is a certified optimizer (exact input, exact certificate)."""
        return self.verdict == VERDICTS[0]

    @property
    def optimal(self) -> bool:
        """Secondary, numeric: the real-space loss is within the tolerance (never a proof)."""
        return bool(self.numeric.get("optimal"))

    def to_dict(self) -> dict:
        return {"path": self.path, "group": self.group, "hidden": self.hidden, "layout": self.layout,
                "activation": self.activation, "dtype": self.dtype, "verdict": self.verdict,
                "certified": self.certified, "exit_code": self.exit_code, "nearest_optimum": self.nearest_optimum,
                "blocks": self.blocks, "construction": self.construction, "numeric": self.numeric}

    def render_text(self) -> str:
        """What ``cogo verify --checkpoint`` prints."""
        return _render(self)


def _construction(ckpt: Any) -> dict | None:
    """The exact certificate of the construction the file records, and whether the file *is* it."""
    if isinstance(ckpt.meta.get("exact_point"), dict):  # a snapped file (--snap): its recorded exact point
        return _snapped_point(ckpt)
    rec, seed = from_record(ckpt.meta.get("construction")), ckpt.meta.get("seed")
    if rec is None or not (seed is None or isinstance(seed, int)):
        return None
    kind = rec.name   # a file written before the one vocabulary records f6, f6-ab, f46 or mem: read as its name
    G = ckpt.group
    try:
        net, _ = construct(kind, G, seed=seed, exact=True)
        W = net.to_numeric().to_weights(real=True)
    except ValueError as exc:
        return {"construction": kind, "seed": seed, "same_as_file": False, "certified": False,
                "reason": f"cannot rebuild {kind} on {G}: {exc}"}
    drawn = "default parameters" if seed is None else f"seed {seed}"   # never "seed None" (issue #54)
    out = {"construction": kind, "seed": seed, "label": f"{kind}, {drawn}", **_same_weights(W, ckpt)}
    if not out["same_as_file"]:
        out.update(certified=False, reason=f"the weights differ from {kind} rebuilt with seed {seed} "
                                           f"(relative {out['max_difference']:.2g}): the file is not that construction")
        return out
    r = optimality(G, kind, "exact", seed=seed) if rec.design is None else optimality(G, kind, "exact", net=net)
    out.update(certified=bool(r.passed), statement=r.statement, route=r.details.get("route"),
               loss_exact=r.details.get("loss_exact", "0" if r.passed else None))
    return out


def _same_weights(W: Any, ckpt: Any) -> dict:
    """Whether the file's weights are ``W`` (float64 rounding: :data:`SAME_AS_CONSTRUCTION` of the largest entry)."""
    scale = max(1.0, max(float(np.abs(w).max(initial=0.0)) for w in W))
    diff = max((float(np.abs(w - v).max(initial=0.0)) if w.shape == v.shape else np.inf)
               for w, v in zip(W, (ckpt.Wa, ckpt.Wb, ckpt.Wc)))
    return {"max_difference": diff / scale, "same_as_file": bool(diff <= SAME_AS_CONSTRUCTION * scale)}


def _snapped_point(ckpt: Any) -> dict:
    """A snapped file's recorded exact point (:func:`cogo.analysis.verdict.snap_record.record_design`), certified when the file is it."""
    G = ckpt.group
    out: dict = {"construction": "snapped optimizer", "seed": None, "label": "its recorded exact point (--snap)"}
    try:
        design = record_design(G, ckpt.meta["exact_point"])
        W = design.to_network().to_numeric().to_weights(real=True)
    except (ValueError, TypeError, KeyError, ZeroDivisionError) as exc:
        return {**out, "same_as_file": False, "certified": False,
                "reason": f"cannot rebuild the recorded exact point: {' '.join(str(exc).split())}"}
    out.update(_same_weights(W, ckpt))
    if not out["same_as_file"]:
        out.update(certified=False, reason=f"the weights differ from the recorded exact point (relative "
                                           f"{out['max_difference']:.2g}): the file is not that point")
        return out
    kinds = sorted({SNAP_TYPES[b["type"]] for b in ckpt.meta["exact_point"]["blocks"]})  # checked by record_design
    cert = _certify_design(design, kinds)
    out.update(certified=cert["certified"], statement="the recorded exact point is a global optimizer (SPEC 6 block "
                                                      "route)" if cert["certified"] else "NOT certified",
               route=cert["route"], loss_exact=cert["loss_exact"], certificate=cert)
    return out


def _certify_snapped(G: Any, snap: Any) -> dict:
    """The snapped network rebuilt exactly and certified (block route), with the family certificates."""
    if snap.kind == "z_M":  # z_M itself, nodes matched: z_M's exact certificate (character sums, SPEC 7.4)
        r = optimality(G, "z_M", "exact")
        return {"certified": bool(r.passed), "route": f"z_M's certificate: {r.details.get('route')}",
                "loss_exact": str(r.details.get("loss_exact", "0" if r.passed else None)), "failing": [],
                "structure": [], "family_certificates": {"z_M": {r.statement: bool(r.passed)}},
                "families_hold_for_every_parameter_value": bool(r.passed)}
    return _certify_design(exact_design(G, snap), sorted({SNAP_TYPES[b.type] for b in snap.blocks if b.snapped}))


def _certify_design(design: Any, kinds: list) -> dict:
    """An exact block design certified (block route), with the family certificates of ``kinds``."""
    d, problems = design_from_network(design.to_network())
    cert = block_certificate(d)
    fam = {k: family_certificate(k) for k in kinds}
    ok = bool(cert.optimal) and not problems and all(all(v.values()) for v in fam.values())
    return {"certified": ok, "route": "block route on the snapped network (exact rational points of the unit "
                                      "circle): exact supports checked, every condition residual and the loss "
                                      "exactly 0", "loss_exact": str(cert.loss), "failing": list(cert.failing),
            "structure": list(problems) + list(cert.structure),
            "family_certificates": {k: {s: bool(v) for s, v in f.items()} for k, f in fam.items()},
            "families_hold_for_every_parameter_value": all(all(v.values()) for v in fam.values())}


def zero_network_loss(G: Any) -> float:
    """The loss of the zero network on ``G``, computed as every loss is (:func:`cogo.algebra.loss.real_loss`): ``1 - 1/n``.

    >>> round(zero_network_loss(23) * 23, 12)
    22.0
    """
    n = as_group(G).order
    z = np.zeros((1, n))
    return float(real_loss(z, z, z.T, group=G))


def _loss_shares(ck: Any, G: Any, loss0: float) -> dict:
    """Per frequency ``k`` (one of each pair ``{k, -k}``, ``k != 0``): the loss carried at ``+-k``, relative to ``loss0``."""
    by = real_loss_by_frequency(ck.Wa, ck.Wb, ck.Wc, group=G)
    out = {}
    for k in range(1, G.order):
        nk = int(G.neg[k])
        if nk >= k:
            out[k] = float((by[k] + (by[nk] if nk != k else 0.0)) / loss0)
    return out


def _block_rows(report: Any, snap: Any, shares: dict) -> list:
    """Per block: the classifier's reading and the snap (the rows both commands print), one computation each.

    ``failed_conditions`` and ``opt_tol`` are the block report's (what ``cogo classify`` prints), ``distance`` the
    snap's (what ``cogo classify --json`` and ``--csv`` give), ``relative_loss`` the loss at the block's frequencies.
    """
    rows = []
    for b, s in zip(report.blocks, snap.blocks):
        rows.append({"k": int(b.k), "order": int(b.order), "type": b.type, "nearest": s.type,
                     "distance": None if s.distance is None else float(s.distance), "snapped": s.snapped,
                     "reason": s.reason, "parameters_degrees": {k: float(v) for k, v in s.degrees.items()},
                     "failed_conditions": list(b.failed_conditions),
                     "opt_tol": None if b.opt_tol is None else float(b.opt_tol),
                     "relative_loss": shares.get(int(b.k))})
    return rows


def _listed(items: list, most: int = 8) -> str:
    """``a, b, c`` (at most ``most``, then how many more)."""
    return ", ".join(items[:most]) + (f", and {len(items) - most} more" if len(items) > most else "")


def _away(rows: list, snap: Any, max_distance: float, rel: float, max_rel: float, shares: dict) -> list:
    """What keeps the network away from its snapped optimizer: one line per cause, each block named once."""
    out = []
    selfc = [f"k={r['k']}" for r in rows if r["reason"] and r["reason"].startswith("a self-conjugate")]
    other = [f"k={r['k']} (order {r['order']}, {r['type']})" for r in rows
             if r["reason"] and not r["reason"].startswith("a self-conjugate")]
    if other:
        out.append("no family of a global optimizer (SPEC 7.1-7.3: z_nu * z_syn, z_nu=i * z_syn,ab, z_nu=i * z_xi) "
                   "at " + _listed(other))
    if selfc:
        out.append("a self-conjugate frequency (k = -k, where no construction of SPEC 7 has a block) at "
                   + _listed(selfc))
    far = sorted((r for r in rows if not r["reason"] and r["distance"] is not None and r["distance"] > max_distance),
                 key=lambda r: (-float(f"{r['distance']:.6g}"), r["k"]))  # equal to 6 digits: in k order
    if far:
        out.append(f"blocks farther than {max_distance:g} (--max-distance): "
                   + _listed([f"k={r['k']} at {r['distance']:.3g}" for r in far]))
    elif snap.distance > max_distance:
        out.append(f"network distance {snap.distance:.3g} > {max_distance:g} (--max-distance; the nodes of no block "
                   "count in full)")
    if rel > max_rel:
        top = sorted(shares.items(), key=lambda kv: (-float(f"{kv[1]:.6g}"), kv[0]))  # equal to 6 digits: k order
        named, acc = [], 0.0
        for k, v in top:  # the frequencies that carry nine tenths of the loss, largest first
            if acc >= 0.9 * rel or len(named) == 5:
                break
            named.append(f"k={k}: {v:.3g}")
            acc += v
        more = sum(1 for _, v in top[len(named):] if v > 0.01 * rel)
        out.append(f"relative loss {rel:.3g} > {max_rel:g} (--max-relative-loss), at " + ", ".join(named)
                   + (f" and {more} more frequencies" if more else ""))
    out += [x for x in snap.reasons if not x.startswith("k=")]
    return out


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.runtime.threads)
def verify_checkpoint(source: Any, group: Any = None, tol: float | None = None,
                      max_distance: float = DEFAULT_MAX_DISTANCE, settings: Any = None,
                      certify: bool = True, max_relative_loss: float = DEFAULT_MAX_RELATIVE_LOSS,
                      options: ReadOptions = DEFAULT_OPTIONS) -> CheckpointVerdict:
    """The verdict of a checkpoint (module docstring): a path or a :class:`cogo.io.checkpoint.Checkpoint`.

    ``group``: read the file as this group (as ``cogo classify --group``; one that contradicts the group the file
    records is refused unless ``options.force_group``); ``options``: how the file is read
    (:func:`cogo.io.layouts.read_options`); ``tol``: the tolerance of the
    secondary loss line (default :func:`cogo.analysis.verdict.network_verdict.default_loss_tol` of the file's dtype, capped by
    the loss at initialization); ``max_distance``: the largest distance, of the network and of every block, that
    is near; ``max_relative_loss``: the largest loss, relative to the zero network's, that is near;
    ``certify=False`` skips the exact certificate of the snapped network (its ``certified`` is then None and the
    verdict is at most "not near one").

    Returns
    -------
    CheckpointVerdict
        The verdict, its nearest optimum (distance, worst block, relative loss, certificate, name, per-block
        distances, both losses), the per-block rows and the numeric loss line.

    Raises
    ------
    cogo.io.file_formats.CheckpointError
        One line, on a file that cannot be read as a checkpoint, or a ``group`` its order or record contradicts.
    """
    if not (max_distance >= 0):
        raise ValueError(f"max_distance must be a number >= 0, got {max_distance!r}")
    if not (max_relative_loss >= 0):
        raise ValueError(f"max_relative_loss must be a number >= 0, got {max_relative_loss!r}")
    ck = read_checkpoint(source, group=group, estimate=lambda n, q: verify_checkpoint_estimate(n, q), options=options)
    G = ck.group
    if ck.activation != THEORY:
        raise CogoError(f"{ck.path}: activation {ck.activation}: no global-optimality statement exists for it "
                        "(the catalogue and the theorems are for sigma = x^2); read it with cogo classify")
    if G.as_product is None:
        raise CogoError(f"{ck.path}: {G} is not Abelian: the catalogue of SPEC 7 and its certificates are for "
                        "Z_d1 x ... x Z_dn (read it with cogo classify: irreducible representations)")
    if settings is not None and not getattr(settings, "verdict", True):  # a verdict needs what verdict=False skips
        settings = dataclasses.replace(settings, verdict=True)
    report = read_network(ck.Wa, ck.Wb, ck.Wc, G, settings=settings, path=ck.path, dtype=ck.dtype)
    numeric = report.verdict
    if tol is not None:
        numeric = network_verdict(Wa=ck.Wa, Wb=ck.Wb, Wc=ck.Wc, group=G, loss_tol=tol, dtype=ck.dtype)
        numeric.block_failures = {b.k: list(b.failed_conditions) for b in report.blocks if b.failed_conditions}
        numeric.block_tol = {b.k: b.opt_tol for b in report.blocks if b.opt_tol is not None}  # one answer per block
    snap = report.snap if report.snap is not None else snap_network(ck.Wa, ck.Wb, ck.Wc, G, report)
    loss0 = zero_network_loss(G)
    shares = _loss_shares(ck, G, loss0)
    rel = float(numeric.loss) / loss0
    rows = _block_rows(report, snap, shares)
    cert = _certify_snapped(G, snap) if (snap.complete and certify) else None
    snapped_loss = real_loss(*snap.network.to_weights(real=True), group=G) if snap.network is not None else None
    dists = [r for r in rows if r["distance"] is not None]
    worst = max(dists, key=lambda r: r["distance"]) if dists else None
    nearest = {"distance": float(snap.distance), "certified": None if cert is None else cert["certified"],
               "name": _name(snap), "max_distance": float(max_distance),
               "worst_block": None if worst is None else {"k": worst["k"], "distance": worst["distance"]},
               "relative_loss": rel, "max_relative_loss": float(max_relative_loss), "loss_zero": loss0,
               "relative_loss_by_frequency": {str(k): v for k, v in shares.items()}, "blocks_away": [],
               "loss_trained": float(numeric.loss), "loss_snapped": snapped_loss,
               "loss_snapped_exact": None if cert is None else cert["loss_exact"],
               "hat_carriers": sorted(snap.hat), "certificate": cert,
               "block_distances": {str(r["k"]): r["distance"] for r in rows}}
    construction = _construction(ck)
    away = _away(rows, snap, max_distance, rel, max_relative_loss, shares)
    if construction is not None and construction.get("same_as_file") and construction.get("certified"):
        verdict = VERDICTS[0]
    elif cert is not None and cert["certified"] and not away:
        verdict = VERDICTS[1]
    else:
        verdict = VERDICTS[2]
        nearest["blocks_away"] = away or (
            ["the snapped network is not certified"] if cert is not None and not cert["certified"] else
            ["the snapped network was not certified (certify=False)"])
    num = numeric.to_dict()
    num["tolerance_source"] = "--tol" if tol is not None else (
        f"default min(1e4 eps^2 of {ck.dtype}, 1e-6 x the zero network's loss)")
    return CheckpointVerdict(ck.path, str(G), int(ck.hidden), ck.layout, ck.activation, ck.dtype, verdict,
                             nearest, num, construction, rows, snap)


def _name(snap: Any) -> str:
    """The snapped network's name: its block types with their counts (and the hat, if any)."""
    if snap.kind == "z_M":
        return "z_M (SPEC 7.4)"
    c = Counter(b.type for b in snap.blocks if b.snapped)
    parts = [f"{n} x {t}" for t, n in sorted(c.items(), key=lambda x: (-x[1], x[0]))]
    hat = ", ".join(str(k) for k in sorted(snap.hat))
    return " + ".join(parts) + (f" (hat on k={hat}, SPEC 7.3)" if hat else "")


def checkpoint_report(path: Any, group: Any = None, tol: float | None = None,
                      max_distance: float = DEFAULT_MAX_DISTANCE,
                      max_relative_loss: float = DEFAULT_MAX_RELATIVE_LOSS) -> dict:
    """``verify_checkpoint(...).to_dict()`` (:func:`verify_checkpoint`; the former name of ``cogo verify --checkpoint``'s reading)."""
    return verify_checkpoint(path, group=group, tol=tol, max_distance=max_distance,
                             max_relative_loss=max_relative_loss).to_dict()


def _fmt(x: Any) -> str:
    return "none" if x is None else f"{x:.3g}"


def _render(v: CheckpointVerdict) -> str:
    """The text of ``cogo verify --checkpoint`` (one line per fact; the verdict last)."""
    no = v.nearest_optimum
    L = [f"cogo verify --checkpoint {v.path}: {v.group}, {v.hidden} hidden nodes, layout {v.layout}, "
         f"activation {v.activation}, {v.dtype} weights",
         "  blocks: k, order, as classify reads it -> nearest certified form, distance; relative loss at +-k; "
         "conditions the block fails on its own (within its fit and rounding, opt_tol)"]
    for r in v.blocks:
        L.append(f"    k={r['k']:<3d} {r['order']:>3d}  {r['type']} -> {r['nearest'] or '-'}  "
                 + (_fmt(r["distance"]) if r["snapped"] else f"not snapped: {r['reason']}")
                 + f"; loss {_fmt(r['relative_loss'])}; fails {'/'.join(r['failed_conditions']) or 'none'}")
    cert = no["certificate"]
    if cert is None:
        L.append(f"  nearest certified optimizer: none ({'; '.join(no['blocks_away'][:3]) or 'no snapped network'})")
    else:
        fams = ", ".join(f"{k}: {'holds' if all(f.values()) else 'FAILS'}" for k, f in cert["family_certificates"].items())
        L.append(f"  nearest certified optimizer: {no['name']}; "
                 + ("certified exactly" if cert["certified"] else "NOT certified")
                 + f" ({cert['route']}; exact loss {cert['loss_exact']}); family certificates for every value of "
                   f"the free parameters: {fams}")
    wb = no["worst_block"]
    L.append(f"  distance to it: {no['distance']:.3g}, worst block "
             + (f"k={wb['k']} at {wb['distance']:.3g}" if wb else "none")
             + f" (relative, invariant under node order, signs and the per-node gauge; near means the network and "
               f"every block <= {no['max_distance']:g}, --max-distance)")
    L.append(f"  relative loss: {no['relative_loss']:.3g} of the zero network's loss {no['loss_zero']:.3g} (1 - 1/n; "
             f"near means <= {no['max_relative_loss']:g}, --max-relative-loss)")
    L.append(f"  real-space loss: trained {no['loss_trained']:.3g}, snapped {_fmt(no['loss_snapped'])}"
             + (f" (exactly {no['loss_snapped_exact']})" if no["loss_snapped_exact"] is not None else ""))
    num = v.numeric
    L.append(f"  numeric (secondary): {num['statement']}; tolerance {num['tolerance_source']}")
    failing = [f"k={r['k']}: {'/'.join(r['failed_conditions'])}" for r in v.blocks if r["failed_conditions"]]
    L.append("  blocks failing on their own (the whole network can still be optimal, SPEC 7.3): "
             + (", ".join(failing) or "none"))
    c = v.construction
    if c is not None:
        if c.get("same_as_file") and c.get("certified"):
            L.append(f"  exact certificate: certified global optimizer, exact loss {c['loss_exact']} ({c['route']}); "
                     f"the file is the float64 rounding of {c['label']}")
        else:
            L.append(f"  exact certificate of the file: none: NOT certified ({c.get('reason')})")
    if v.verdict == VERDICTS[0]:
        L.append(f"verdict: certified optimizer (certified global optimizer (exact): {c['label']})")
    elif v.verdict == VERDICTS[1]:
        L.append(f"verdict: near a certified optimizer (distance {no['distance']:.3g}, worst block "
                 f"{wb['distance']:.3g} <= {no['max_distance']:g}; relative loss {no['relative_loss']:.3g} <= "
                 f"{no['max_relative_loss']:g}; from {no['name']}, certified exactly)")
    else:
        L.append("verdict: not near one: " + "; ".join(no["blocks_away"]))
    return "\n".join(L) + "\n"


def write_snapped(v: CheckpointVerdict, out: Any) -> None:
    """Write the snapped network of a verdict as a checkpoint (atomically), its exact point in its meta.

    The meta's ``exact_point`` (:func:`cogo.analysis.verdict.snap.exact_record`) records the point losslessly: per block
    the family, the node order and the exact rational points of the unit circle of its parameters and channel
    phases; the hat of SPEC 7.3 as Gaussian rationals (the last carrier's solved exactly).  The weights are the
    float64 rounding of that exact network, so ``cogo verify --checkpoint`` certifies the file
    (:func:`verify_checkpoint`: "certified optimizer").  ``snapped_blocks`` repeats the angles and the exact unit points
    (as text) for reading.

    Raises
    ------
    cogo.runtime.errors.CogoError
        When the network has no certified snapped optimizer (nothing is written).
    """
    no = v.nearest_optimum
    if v.snap is None or v.snap.network is None or not no.get("certified"):
        why = "; ".join(no["blocks_away"][:3]) or "its snap is not a certified optimizer"
        raise CogoError(f"--snap: {v.path} has no certified snapped optimizer ({why}); nothing written")
    G = v.snap.network.group
    meta = {"group": v.group, "name": f"snapped: {no['name']}", "snapped_from": v.path, "distance": no["distance"]}
    if v.snap.kind == "z_M":  # z_M (SPEC 7.4): the file records the construction itself
        net, _ = construct("z_M", G, exact=True)
        W = net.to_numeric().to_weights(real=True)
        meta.update(construction="z_M", seed=None)
    else:
        record = exact_record(v.snap.blocks, v.snap.hat)
        W = record_design(G, record).to_network().to_numeric().to_weights(real=True)
        blocks = [{"k": b.k, "type": b.type, "degrees": {k: float(d) for k, d in b.degrees.items()},
                   "exact": {k: str(unit_point(d, exact=True)) for k, d in b.degrees.items()},
                   "trained_nodes": [int(j) for j in b.nodes], "form_nodes": list(b.perm)}
                  for b in v.snap.blocks if b.snapped]
        meta.update(exact_point=record, snapped_blocks=blocks)
    meta["certificate"] = {"certified": True, "loss_exact": no["loss_snapped_exact"], "route": no["certificate"]["route"]}
    save_checkpoint(out, *W, meta=meta)
