"""Certificates of the exact claims of ``cogo verify``, written for the independent checker ``cogo-check``.

``cogo verify --group N --exact --certificates DIR`` writes one JSON file per exact claim that the checker
re-derives (row 6, optimality of each construction; each negative control of
:data:`cogo.proofs.controls.broken_constructions.CONTROLS`), and ``DIR/index.json``: every row the run printed, its
status and its certificate (or none).  A certificate holds what the claim is about (the group, the construction
or control and its parameters, the network's exact entries) and what is claimed (the loss of SPEC 5, 0 for a
construction; for a control its loss and the hand-derived closed form).  The format (version
:data:`VERSION`) is documented in docs/verify.md ("Certificates anyone can check").

Networks are written exactly, in one of two encodings:

* ``fourier-cyclotomic``: the Fourier entries gauge-fixed into ``Q(zeta_L)`` by
  :func:`cogo.algebra.cyc_gauge.cyc_network` (per node ``(a / t, b / t, c t^2)``, ``t > 0``, which leaves every
  potential term and hence the loss of SPEC 5 unchanged, SPEC 8.4); each nonzero entry as
  ``[node, k, den, [[e, c], ...]]`` = ``(1/den) sum c zeta_L^e`` at the frequency ``k`` (a group element).
* ``real-rational``: the gauged real weights of z_M and its controls (rational, one-hot), each nonzero weight as
  ``[node, m, "p/q"]``; the checker computes the loss of SPEC 1 from them.

The directory is written to a temporary sibling and renamed into place: an error leaves no partial directory.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from fractions import Fraction
from typing import Any, Iterable

from cogo.runtime.errors import CogoError

__all__ = ["VERSION", "FORMAT", "INDEX_FORMAT", "network_fourier", "network_real", "loss_certificate",
           "certificates_for_results", "write_certificates", "check_target"]

FORMAT, INDEX_FORMAT, VERSION = "cogo-certificate", "cogo-certificates-index", 1


def _elem(G: Any, k: int) -> list:
    return [int(v) for v in G.elements[int(k)]]


def network_fourier(net: Any, extra_scales: tuple = ()) -> dict:
    """The exact network ``net`` (sympy entries) gauge-fixed into ``Q(zeta_L)``, as certificate data."""
    from cogo.algebra.cyc_gauge import cyc_network  # late: sympy

    cz, scales = cyc_network(net, extra_scales=extra_scales)
    G = net.group
    L = None
    entries: dict = {p: [] for p in "abc"}
    for p, name in enumerate("abc"):
        for k in range(cz.n):
            for j in range(cz.q):
                e = cz.z[p, k, j]
                L = e.L if L is None else L
                terms = [[i, int(c)] for i, c in enumerate(e.v.tolist()) if c]
                if terms:
                    entries[name].append([j, _elem(G, k), int(e.D), terms])
    return {"encoding": "fourier-cyclotomic", "L": int(L if L is not None else 1), "nodes": int(cz.q),
            "gauge_scales": list(scales), "entries": entries}


def network_real(G: Any, Wa: Any, Wb: Any, Wc: Any) -> dict:
    """Rational real weights (``Wa``, ``Wb``: (q, n); ``Wc``: (n, q)) as certificate data (nonzero ones only)."""
    def rows(W, transpose):
        out = []
        q, n = (W.shape[1], W.shape[0]) if transpose else W.shape
        for j in range(q):
            for m in range(n):
                w = Fraction(W[m, j] if transpose else W[j, m])
                if w:
                    out.append([j, _elem(G, m), str(w)])
        return out
    return {"encoding": "real-rational", "nodes": int(Wa.shape[0]), "Wa": rows(Wa, False), "Wb": rows(Wb, False),
            "Wc": rows(Wc, True)}


def loss_certificate(claim: str, G: Any, network: dict, loss: Any, subject: dict,
                     control: dict | None = None) -> dict:
    """One certificate: the claim's name (the row as printed), the group, the subject, the network, the loss."""
    return {"format": FORMAT, "version": VERSION, "kind": "loss", "claim": claim,
            "group": {"label": str(G.label), "factors": [int(d) for d in G.orders]},
            "subject": subject, "network": network, "loss": _loss_value(loss), "control": control,
            "checkpoint": None}


def _loss_value(loss: Any) -> dict:
    """A claimed loss: a rational (``Fraction``, int, or its text) or an exact element of ``Q(zeta_L)``."""
    if hasattr(loss, "L") and hasattr(loss, "v"):
        q = loss.to_rational()
        if q is None:
            return {"cyclotomic": {"L": int(loss.L), "den": int(loss.D),
                                   "terms": [[i, int(c)] for i, c in enumerate(loss.v.tolist()) if c]}}
        loss = q
    return {"rational": str(Fraction(str(loss)))}


def _construction_certs(G: Any, r: Any) -> dict | None:
    """Row 6 for a block construction or z_M: its network as the row built it."""
    from cogo.catalogue.constructions import CONSTRUCTIONS, resolve  # late: the records name modules that import sympy

    for rec in CONSTRUCTIONS:
        title = rec.title
        if r.name != f"6. optimality of {rec.short_title}":
            continue
        loss = r.details.get("loss_exact", r.details.get("general_loss", "0"))
        if rec.design is None:  # z_M: its one-hot real weights
            from cogo.proofs.controls.broken_constructions import MemControl  # late: sympy

            W = MemControl("z_M", lambda *w: w).exact_weights(G)
            if W is None:
                return None
            net = network_real(G, *W)
            subject = {"construction": title, "gauge": "t = n^(-1/3) per node: a, b one-hot 1, c one-hot 1/2"}
        else:
            net = network_fourier(resolve(rec.builder)(G, seed=1, exact=True), extra_scales=(G.order,))
            subject = {"construction": title, "parameters": {"seed": 1}}
        return loss_certificate(r.name, G, net, loss, subject)
    return None


def _control_cert(G: Any, r: Any) -> dict | None:
    """A negative control of :data:`CONTROLS`: its broken network, its loss as cogo found it, the closed form."""
    from cogo.proofs.controls.block_route import BLOCK_CONTROLS, _block_control_network  # late: sympy
    from cogo.proofs.controls.broken_constructions import CONTROLS, MemControl  # late: sympy

    if "loss" not in r.details:
        return None
    if r.name in BLOCK_CONTROLS and BLOCK_CONTROLS[r.name][4] is None:  # not the reader controls (no loss claim)
        net = network_fourier(_block_control_network(G, r.name)[1], extra_scales=(G.order,))
        statement = BLOCK_CONTROLS[r.name][0]
        control = {"name": r.name, "expected_loss": r.details.get("expected_loss"), "statement": statement}
        return loss_certificate(r.name, G, net, r.details["loss"], {"control": r.name}, control)
    if r.name not in CONTROLS:
        return None
    obj = CONTROLS[r.name][1](G, True)
    if isinstance(obj, MemControl):
        W = obj.exact_weights(G)
        if W is None:
            return None
        net = network_real(G, *W)
    else:
        net = network_fourier(obj.to_network(), extra_scales=(G.order,))
    control = {"name": r.name, "expected_loss": r.details.get("expected_loss"),
               "statement": CONTROLS[r.name][0]}
    return loss_certificate(r.name, G, net, r.details["loss"], {"control": r.name}, control)


def certificates_for_results(G: Any, results: Iterable[Any]) -> tuple[list, dict]:
    """``(index rows, {file name: certificate})`` for the rows of a ``cogo verify --exact`` run on ``G``."""
    rows, certs = [], {}
    for r in results:
        if r.method == "numeric":  # the exact rows are the claims certified; numeric rows are not listed
            continue
        row = {"name": r.name, "status": r.status, "method": r.method, "certificate": None}
        if r.passed and r.method == "exact":
            cert = _construction_certs(G, r) if r.name.startswith("6. optimality") else _control_cert(G, r)
            if cert is not None:
                fname = f"cert-{len(certs) + 1:03d}.json"
                certs[fname] = cert
                row["certificate"] = fname
        rows.append(row)
    return rows, certs


def check_target(directory: str, force: bool) -> None:
    """Refuse an existing non-empty ``directory`` unless ``force`` (before any work is done)."""
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise CogoError(f"--certificates {directory}: exists and is not a directory")
    if os.path.isdir(directory) and os.listdir(directory) and not force:
        raise CogoError(f"--certificates {directory}: directory exists and is not empty (use --force to replace it)")


def write_certificates(directory: str, command: str, rows: list, certs: dict, copies: dict | None = None) -> None:
    """Write ``index.json``, the certificates and copies of the files ``copies`` (name -> source) into a temporary
    sibling, then rename it to ``directory``."""
    parent = os.path.dirname(os.path.abspath(directory)) or "."
    tmp = tempfile.mkdtemp(prefix=".certificates.", dir=parent)
    try:
        for fname, cert in certs.items():
            with open(os.path.join(tmp, fname), "w", encoding="utf-8") as fh:
                json.dump(cert, fh, separators=(",", ":"))
        for fname, src in (copies or {}).items():
            shutil.copyfile(src, os.path.join(tmp, fname))
        index = {"format": INDEX_FORMAT, "version": VERSION, "command": command, "rows": rows}
        with open(os.path.join(tmp, "index.json"), "w", encoding="utf-8") as fh:
            json.dump(index, fh, indent=1)
        if os.path.isdir(directory):
            shutil.rmtree(directory)
        os.rename(tmp, directory)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def export_run(directory: str, G: Any, results: list, command: str) -> int:
    """Write the certificates of a ``cogo verify`` run on ``G`` (the CLI's ``--certificates``); returns their number."""
    try:
        rows, certs = certificates_for_results(G, results)
    except ValueError as exc:  # e.g. a network with no exact gauge into Q(zeta_L): nothing is written
        raise CogoError(f"--certificates {directory}: cannot write the certificates: {exc}") from None
    write_certificates(directory, command, rows, certs)
    return len(certs)


#: the block constructions (those with a design): the ones a checkpoint certificate can name
_BLOCK_NAMES = ("z_F6", "z_F6_ab", "z_F46")


def _instance(kind: str, d: int, claim: str) -> dict:
    """The actual construction at order ``d`` (seed 1, as row 6 builds it), its loss claimed 0."""
    from cogo.algebra.group_parsing import as_group  # late: start-up
    from cogo.solvers import constructions as C  # late: sympy

    G = as_group(str(d))
    if kind == "z_M":
        from cogo.proofs.controls.broken_constructions import MemControl  # late: sympy

        net = network_real(G, *MemControl("z_M", lambda *w: w).exact_weights(G))
    else:
        net = network_fourier(getattr(C, kind)(G, seed=1, exact=True), extra_scales=(d,))
    return loss_certificate(claim, G, net, 0, {"construction": kind, "order": d, "parameters": {"seed": 1}})


def every_order_certificates(instances: int = 2, max_instance: int = 15) -> tuple[list, dict]:
    """``(index rows, certificates)`` of ``cogo verify --every-order``: per construction its cases (label, the
    orders each contains up to :data:`cogo.proofs.every_order.block_proofs.VERIFY_RANGE`, status, the per-class ``l_k``), and
    per case the actual construction at its first ``instances`` orders ``<= max_instance`` (loss 0)."""
    from cogo.proofs.every_order import models as M  # late: sympy
    from cogo.proofs.every_order.block_proofs import VERIFY_RANGE, prove_block_model  # late: sympy
    from cogo.proofs.every_order.run import MEM_TITLE, _mem_cases  # late: sympy

    models = [(m.title, m.kind, prove_block_model(m)) for m in M.constructions()]
    models.append((MEM_TITLE, "z_M", _mem_cases(MEM_TITLE)))
    rows, certs = [], {}
    for title, kind, cases in models:
        name = f"every order: {title}"
        case_data, proven = [], all(c.status == "PASS" for c in cases)
        for c in cases:
            members = [d for d in range(2, VERIFY_RANGE + 1) if c.member(d)]
            inst = []
            for d in [x for x in members if x <= max_instance][:instances]:
                fname = f"cert-{len(certs) + 1:03d}.json"
                iname = f"every order instance: {title} at d = {d}"
                certs[fname] = _instance(kind, d, iname)
                rows.append({"name": iname, "status": "PASS", "method": "exact", "certificate": fname})
                inst.append(d)
            case_data.append({"case": c.label, "covers": c.covers, "method": c.method, "status": c.status,
                              "members": members, "instances": inst,
                              "l_k per output class": c.details.get("classes", {}) if kind != "z_M"
                              else {"every k != 0": c.details.get("l_k")}})
        fname = f"cert-{len(certs) + 1:03d}.json"
        certs[fname] = {"format": FORMAT, "version": VERSION, "kind": "every-order", "claim": name,
                        "construction": title, "bound": VERIFY_RANGE, "cases": case_data}
        rows.append({"name": name, "status": "PASS" if proven else "FAIL", "method": "exact",
                     "certificate": fname if proven else None})
    return rows, certs


def _gauge(scales: list) -> list:
    """``'m^(p/q)'`` (the scale names of :func:`cogo.algebra.cyc_gauge.gauge_scales`) as ``[m, 'p/q']``."""
    out = []
    for s in scales:
        base, _, ex = s.partition("^(")
        if not ex.endswith(")"):
            raise ValueError(f"unreadable gauge scale {s!r}")
        out.append([int(base), ex[:-1]])
    return out


#: the largest relative difference (to the largest weight) between a construction file and its exact weights
#: that a checkpoint certificate claims; the float64 weights of `cogo construct` are within about 1e-15
CHECKPOINT_TOLERANCE = 1e-13


def checkpoint_certificate(path: str, G: Any, kind: str, seed: Any, claim: str) -> tuple[dict, str]:
    """The certificate that the checkpoint ``path`` holds the construction ``kind`` (``seed``) on ``G``: its exact
    network (loss claimed 0), the per-node gauge, the file's sha256 and the tolerance; returns
    ``(certificate, the file name it names)``.  Block constructions only (z_M: ValueError)."""
    import hashlib

    from cogo.solvers import constructions as C  # late: sympy

    if kind not in _BLOCK_NAMES:
        raise ValueError(f"no checkpoint certificate for construction {kind!r} (block constructions only)")
    net = network_fourier(getattr(C, kind)(G, seed=seed, exact=True), extra_scales=(G.order,))
    net["gauge"] = _gauge(net["gauge_scales"])
    cert = loss_certificate(claim, G, net, 0, {"construction": kind, "parameters": {"seed": seed}})
    with open(path, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    name = os.path.basename(path)
    cert["checkpoint"] = {"file": name, "sha256": digest, "tolerance": CHECKPOINT_TOLERANCE}
    return cert, name


def write_checkpoint_certificates(directory: str, path: str, G: Any, v: Any) -> int:
    """``cogo verify --checkpoint FILE --certificates DIR``: the construction certificate and a copy of FILE."""
    c = v.construction or {}
    claim = f"checkpoint: {os.path.basename(path)} is a certified optimizer"
    row = {"name": claim, "status": "PASS" if v.verdict.startswith("certified") else v.verdict,
           "method": "exact", "certificate": None}
    certs: dict = {}
    if row["status"] == "PASS" and c.get("same_as_file") and c.get("certified") and \
            c.get("construction") in _BLOCK_NAMES:  # z_M files: no certificate (the checker says so)
        cert, _ = checkpoint_certificate(path, G, c["construction"], c.get("seed"), claim)
        certs["cert-001.json"] = cert
        row["certificate"] = "cert-001.json"
    rows = [row] if row["status"] == "PASS" else []
    write_certificates(directory, f"cogo verify --checkpoint {os.path.basename(path)}", rows, certs,
                       {os.path.basename(path): path} if certs else None)
    return len(certs)
