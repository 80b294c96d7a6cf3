"""``cogo verify --checkpoint``: the verdict of one network -- how far it is from the nearest certified optimizer.

A checkpoint is read once (:func:`cogo.io.checkpoint.read_checkpoint`) and read as blocks once
(:func:`cogo.analysis.classify.read_network`, the reading ``cogo classify`` prints); then

1. the nearest certified global optimizer (:func:`cogo.analysis.snap.snap_network`): every block put on its
   family's exact constraint set, dead nodes dropped; the snapped network is rebuilt with exact rational
   points of the unit circle and certified exactly (the block route of SPEC 6: exact supports, every
   condition residual and the loss exactly 0), and the family certificate of every block type present
   (:func:`cogo.proofs.theorems_optimality.family_certificate`) holds for every value of its free parameters;
2. the distance from the network to it (relative, invariant under node order, signs and the per-node gauge;
   per block and for the network) and both real-space losses.

Three verdicts, exit status 0, 0, 1:

* ``certified optimizer``: the file records exact parameters (``cogo construct``), its weights are the
  float64 rounding of that construction (equal to ``1e-15`` relative), and the construction is certified
  exactly;
* ``near a certified optimizer``: the snapped network is certified and the distance is at most
  ``max_distance`` (:data:`DEFAULT_MAX_DISTANCE`, ``--max-distance``);
* ``not near one``: the blocks that keep it away are named (not factorable, not in the catalogue, a missing
  frequency, or far from their nearest form).

The loss within a numeric tolerance (:func:`cogo.analysis.optimality.network_verdict`) stays as secondary
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

from cogo.runtime.errors import CogoError
from cogo.runtime.limits import verify_checkpoint_estimate
from cogo.runtime.threads import thread_policy as _thread_policy
from cogo.algebra.loss import real_loss
from cogo.io.checkpoint import as_checkpoint
from cogo.io.weights import save_checkpoint
from cogo.solvers.constructions import KINDS, KIND_OF, construct
from cogo.analysis.classify import read_network
from cogo.analysis.optimality import network_verdict
from cogo.analysis.snap import SNAP_TYPES, snap_network, unit_point
from cogo.proofs.certificates import block_certificate
from cogo.proofs.design_reader import design_from_network
from cogo.proofs.theorems_optimality import family_certificate, optimality

__all__ = ["DEFAULT_MAX_DISTANCE", "VERDICTS", "CheckpointVerdict", "checkpoint_report", "verify_checkpoint",
           "write_snapped"]

#: The largest distance (relative, gauge invariant; :mod:`cogo.analysis.snap`) at which a network is "near"
#: its snapped optimizer.  Measured (docs/verify.md, benchmarks/results/verdict_distances.json): a construction
#: with relative weight noise e is at distance e (1e-5 .. 1e-2), rounded to bfloat16 at 1.8e-3; trained Z_23
#: runs (q = 512, 10000 epochs) whose every block reads as a catalogue form at 0.034 and 0.044, one with a
#: block of no catalogue form at 0.19, runs stopped at 2000 epochs at 0.73 .. 1.
DEFAULT_MAX_DISTANCE = 0.05
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
    #: the snap itself (:class:`cogo.analysis.snap.Snap`; not part of the JSON)
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
                "exit_code": self.exit_code, "nearest_optimum": self.nearest_optimum, "blocks": self.blocks,
                "construction": self.construction, "numeric": self.numeric}

    def render_text(self) -> str:
        """What ``cogo verify --checkpoint`` prints."""
        return _render(self)


def _construction(ckpt: Any) -> dict | None:
    """The exact certificate of the construction the file records, and whether the file *is* it."""
    kind, seed = ckpt.meta.get("construction"), ckpt.meta.get("seed")
    if kind not in KINDS or not (seed is None or isinstance(seed, int)):
        return None
    G = ckpt.group
    try:
        name = {k: n for n, k in KIND_OF.items()}[kind]  # the recorded kind -> the construction's name
        net, _ = construct(name, G, seed=seed, exact=True)
        W = net.to_numeric().to_weights(real=True)
    except ValueError as exc:
        return {"construction": kind, "seed": seed, "same_as_file": False, "certified": False,
                "reason": f"cannot rebuild {kind} on {G}: {exc}"}
    scale = max(1.0, max(float(np.abs(w).max(initial=0.0)) for w in W))
    diff = max((float(np.abs(w - v).max(initial=0.0)) if w.shape == v.shape else np.inf)
               for w, v in zip(W, (ckpt.Wa, ckpt.Wb, ckpt.Wc)))
    out = {"construction": kind, "seed": seed, "max_difference": diff / scale,
           "same_as_file": bool(diff <= SAME_AS_CONSTRUCTION * scale)}
    if not out["same_as_file"]:
        out.update(certified=False, reason=f"the weights differ from {kind} rebuilt with seed {seed} "
                                           f"(relative {diff / scale:.2g}): the file is not that construction")
        return out
    r = optimality(G, kind, "exact", seed=seed) if kind == "mem" else optimality(G, kind, "exact", net=net)
    out.update(certified=bool(r.passed), statement=r.statement, route=r.details.get("route"),
               loss_exact=r.details.get("loss_exact", "0" if r.passed else None))
    return out


def _certify_snapped(G: Any, snap: Any) -> dict:
    """The snapped network rebuilt exactly and certified (block route), with the family certificates."""
    if snap.kind == "mem":  # z_M itself, nodes matched: z_M's exact certificate (character sums, SPEC 7.4)
        r = optimality(G, "mem", "exact")
        return {"certified": bool(r.passed), "route": f"z_M's certificate: {r.details.get('route')}",
                "loss_exact": str(r.details.get("loss_exact", "0" if r.passed else None)), "failing": [],
                "structure": [], "family_certificates": {"mem": {r.statement: bool(r.passed)}},
                "families_hold_for_every_parameter_value": bool(r.passed)}
    design = snap.design(G, exact=True)
    d, problems = design_from_network(design.to_network())
    cert = block_certificate(d)
    kinds = sorted({SNAP_TYPES[b.type] for b in snap.blocks if b.snapped})
    fam = {k: family_certificate(k) for k in kinds}
    ok = bool(cert.optimal) and not problems and all(all(v.values()) for v in fam.values())
    return {"certified": ok, "route": "block route on the snapped network (exact rational points of the unit "
                                      "circle): exact supports checked, every condition residual and the loss "
                                      "exactly 0", "loss_exact": str(cert.loss), "failing": list(cert.failing),
            "structure": list(problems) + list(cert.structure),
            "family_certificates": {k: {s: bool(v) for s, v in f.items()} for k, f in fam.items()},
            "families_hold_for_every_parameter_value": all(all(v.values()) for v in fam.values())}


def _block_rows(report: Any, snap: Any) -> list:
    """Per block: the classifier's reading and the snap (the rows both commands print)."""
    rows = []
    for b, s in zip(report.blocks, snap.blocks):
        rows.append({"k": int(b.k), "order": int(b.order), "type": b.type, "nearest": s.type,
                     "distance": None if s.distance is None else float(s.distance), "snapped": s.snapped,
                     "reason": s.reason, "parameters_degrees": {k: float(v) for k, v in s.degrees.items()},
                     "failed_conditions": list(b.failed_conditions)})
    return rows


def _away(rows: list, snap: Any, max_distance: float) -> list:
    """The blocks (and other causes) that keep the network away from its snapped optimizer."""
    out = [f"k={r['k']}: {r['reason']}" for r in rows if r["reason"]]
    out += [f"k={r['k']}: {r['nearest']} at distance {r['distance']:.3g} > {max_distance:g}"
            for r in rows if not r["reason"] and r["distance"] is not None and r["distance"] > max_distance]
    out += [x for x in snap.reasons if not x.startswith("k=")]
    return out


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.runtime.threads)
def verify_checkpoint(source: Any, group: Any = None, tol: float | None = None,
                      max_distance: float = DEFAULT_MAX_DISTANCE, settings: Any = None,
                      certify: bool = True) -> CheckpointVerdict:
    """The verdict of a checkpoint (module docstring): a path or a :class:`cogo.io.checkpoint.Checkpoint`.

    ``tol``: the tolerance of the secondary loss line (default
    :func:`cogo.analysis.optimality.default_loss_tol` of the file's dtype, capped by the loss at
    initialization); ``max_distance``: what "near" means; ``certify=False`` skips the exact certificate of
    the snapped network (its ``certified`` is then None and the verdict is at most "not near one").

    Returns
    -------
    CheckpointVerdict
        The verdict, its nearest optimum (distance, certificate, name, per-block distances, both losses),
        the per-block rows and the numeric loss line.

    Raises
    ------
    cogo.io.formats.CheckpointError
        One line, on a file that cannot be read as a checkpoint.
    """
    if not (max_distance >= 0):
        raise ValueError(f"max_distance must be a number >= 0, got {max_distance!r}")
    ck = as_checkpoint(source, group=group, estimate=lambda n, q: verify_checkpoint_estimate(n, q))
    G = ck.group
    if ck.activation != "sqr":
        raise CogoError(f"{ck.path}: activation {ck.activation}: no global-optimality statement exists for it "
                        "(the catalogue and the theorems are for sigma = x^2); read it with cogo classify")
    if G.abelian is None:
        raise CogoError(f"{ck.path}: {G} is not Abelian: the catalogue of SPEC 7 and its certificates are for "
                        "Z_d1 x ... x Z_dn (read it with cogo classify: irreducible representations)")
    if settings is not None and not getattr(settings, "verdict", True):  # a verdict needs what verdict=False skips
        settings = dataclasses.replace(settings, verdict=True)
    report = read_network(ck.Wa, ck.Wb, ck.Wc, G, settings=settings, path=ck.path, dtype=ck.dtype)
    numeric = report.verdict
    if tol is not None:
        numeric = network_verdict(Wa=ck.Wa, Wb=ck.Wb, Wc=ck.Wc, group=G, loss_tol=tol, dtype=ck.dtype)
    snap = report.snap if report.snap is not None else snap_network(ck.Wa, ck.Wb, ck.Wc, G, report)
    rows = _block_rows(report, snap)
    cert = _certify_snapped(G, snap) if (snap.complete and certify) else None
    snapped_loss = real_loss(*snap.network.to_weights(real=True), group=G) if snap.network is not None else None
    nearest = {"distance": float(snap.distance), "certified": None if cert is None else cert["certified"],
               "name": _name(snap), "max_distance": float(max_distance), "blocks_away": [],
               "loss_trained": float(numeric.loss), "loss_snapped": snapped_loss,
               "loss_snapped_exact": None if cert is None else cert["loss_exact"],
               "hat_carriers": sorted(snap.hat), "certificate": cert,
               "block_distances": {str(r["k"]): r["distance"] for r in rows}}
    construction = _construction(ck)
    if construction is not None and construction.get("same_as_file") and construction.get("certified"):
        verdict = VERDICTS[0]
    elif cert is not None and cert["certified"] and snap.distance <= max_distance:
        verdict = VERDICTS[1]
    else:
        verdict = VERDICTS[2]
        nearest["blocks_away"] = _away(rows, snap, max_distance) or (
            ["the snapped network is not certified"] if cert is not None and not cert["certified"] else
            [f"distance {snap.distance:.3g} > {max_distance:g}"])
    num = numeric.to_dict()
    num["tolerance_source"] = "--tol" if tol is not None else (
        f"default min(1e4 eps^2 of {ck.dtype}, 1e-6 x the zero network's loss)")
    return CheckpointVerdict(ck.path, str(G), int(ck.hidden), ck.layout, ck.activation, ck.dtype, verdict,
                             nearest, num, construction, rows, snap)


def _name(snap: Any) -> str:
    """The snapped network's name: its block types with their counts (and the hat, if any)."""
    if snap.kind == "mem":
        return "z_M (SPEC 7.4)"
    c = Counter(b.type for b in snap.blocks if b.snapped)
    parts = [f"{n} x {t}" for t, n in sorted(c.items(), key=lambda x: (-x[1], x[0]))]
    hat = ", ".join(str(k) for k in sorted(snap.hat))
    return " + ".join(parts) + (f" (hat on k={hat}, SPEC 7.3)" if hat else "")


def checkpoint_report(path: Any, group: Any = None, tol: float | None = None,
                      max_distance: float = DEFAULT_MAX_DISTANCE) -> dict:
    """``verify_checkpoint(...).to_dict()`` (:func:`verify_checkpoint`; the former name of ``cogo verify --checkpoint``'s reading)."""
    return verify_checkpoint(path, group=group, tol=tol, max_distance=max_distance).to_dict()


def _fmt(x: Any) -> str:
    return "none" if x is None else f"{x:.3g}"


def _render(v: CheckpointVerdict) -> str:
    """The text of ``cogo verify --checkpoint`` (one line per fact; the verdict last)."""
    no = v.nearest_optimum
    L = [f"cogo verify --checkpoint {v.path}: {v.group}, {v.hidden} hidden nodes, layout {v.layout}, "
         f"activation {v.activation}, {v.dtype} weights",
         "  blocks: k, order, as classify reads it -> nearest certified form, distance"]
    for r in v.blocks:
        L.append(f"    k={r['k']:<3d} {r['order']:>3d}  {r['type']} -> {r['nearest'] or '-'}  "
                 + (_fmt(r["distance"]) if r["snapped"] else f"not snapped: {r['reason']}"))
    cert = no["certificate"]
    if cert is None:
        L.append(f"  nearest certified optimizer: none ({'; '.join(no['blocks_away'][:3]) or 'no snapped network'})")
    else:
        fams = ", ".join(f"{k}: {'holds' if all(f.values()) else 'FAILS'}" for k, f in cert["family_certificates"].items())
        L.append(f"  nearest certified optimizer: {no['name']}; "
                 + ("certified exactly" if cert["certified"] else "NOT certified")
                 + f" ({cert['route']}; exact loss {cert['loss_exact']}); family certificates for every value of "
                   f"the free parameters: {fams}")
    L.append(f"  distance to it: {no['distance']:.3g} (relative, invariant under node order, signs and the per-node "
             f"gauge; near means <= {no['max_distance']:g}, --max-distance)")
    L.append(f"  real-space loss: trained {no['loss_trained']:.3g}, snapped {_fmt(no['loss_snapped'])}"
             + (f" (exactly {no['loss_snapped_exact']})" if no["loss_snapped_exact"] is not None else ""))
    num = v.numeric
    L.append(f"  numeric (secondary): {num['statement']}; tolerance {num['tolerance_source']}")
    bf = num.get("block_failures") or {}
    L.append("  blocks failing on their own (the whole network can still be optimal, SPEC 7.3): "
             + (", ".join(f"k={k}: {'/'.join(cs)}" for k, cs in bf.items()) or "none"))
    c = v.construction
    if c is not None:
        if c.get("same_as_file") and c.get("certified"):
            L.append(f"  exact certificate: certified global optimizer, exact loss {c['loss_exact']} ({c['route']}); "
                     f"the file is the float64 rounding of {c['construction']} ({_drawn(c['seed'])})")
        else:
            L.append(f"  exact certificate of the file: none: NOT certified ({c.get('reason')})")
    if v.verdict == VERDICTS[0]:
        L.append(f"verdict: certified optimizer (certified global optimizer (exact): {c['construction']}, "
                 f"{_drawn(c['seed'])})")
    elif v.verdict == VERDICTS[1]:
        L.append(f"verdict: near a certified optimizer (distance {no['distance']:.3g} <= {no['max_distance']:g} from "
                 f"{no['name']}, certified exactly)")
    else:
        L.append("verdict: not near one (" + "; ".join(no["blocks_away"][:6])
                 + (f"; ... {len(no['blocks_away']) - 6} more" if len(no["blocks_away"]) > 6 else "") + ")")
    return "\n".join(L) + "\n"


def _drawn(seed: Any) -> str:
    """How a construction's free parameters were chosen: ``seed N``, or its documented default values."""
    return "default parameters" if seed is None else f"seed {seed}"


def write_snapped(v: CheckpointVerdict, out: Any) -> None:
    """Write the snapped network of a verdict as a checkpoint (atomically), its exact parameters in its meta.

    The meta records, per block, the family, the exact rational points of the unit circle of its parameters
    and channel phases (``t`` of ``((1 - t^2) + 2 t i) / (1 + t^2)``, with the sign) and the hat's carrier,
    so the network can be rebuilt exactly (:func:`cogo.analysis.snap.unit_point`).

    Raises
    ------
    cogo.runtime.errors.CogoError
        When the network has no certified snapped optimizer (nothing is written).
    """
    no = v.nearest_optimum
    if v.snap is None or v.snap.network is None or not no.get("certified"):
        raise CogoError(f"--snap: {v.path} has no certified snapped optimizer ({'; '.join(no['blocks_away'][:3])}); "
                        "nothing written")
    blocks = []
    for b in v.snap.blocks:
        exact = {k: str(unit_point(d, exact=True)) for k, d in b.degrees.items()}
        blocks.append({"k": b.k, "type": b.type, "degrees": {k: float(d) for k, d in b.degrees.items()},
                       "exact": exact, "trained_nodes": [int(j) for j in b.nodes], "form_nodes": list(b.perm)})
    meta = {"group": v.group, "name": f"snapped: {no['name']}", "snapped_from": v.path,
            "distance": no["distance"],
            "hat": {str(kb): {str(k): [g.real, g.imag] for k, g in v.items()} for kb, v in v.snap.hat.items()}, "snapped_blocks": blocks,
            "certificate": {"certified": True, "loss_exact": no["loss_snapped_exact"],
                            "route": no["certificate"]["route"]}}
    save_checkpoint(out, *v.snap.network.to_weights(real=True), meta=meta)
