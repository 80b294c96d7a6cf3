"""``cogo verify --every-order``: the every-order proofs, their coverage argument, the controls, table and JSON.

Runs :func:`cogo.proofs.every_order.block_proofs.prove_block_model` on z_F6, its SPEC 7.2
variant and z_F4/6 (hat), and :func:`cogo.proofs.every_order.memorization.mem_loss` on
z_M; checks that the cases of each construction cover every admissible order
(odd ``d >= 3`` for the block constructions, ``d >= 2`` for z_M) exactly once;
and runs the controls, each CAUGHT only when the orders where it fails are
exactly the hand-derived ones and its loss there is the hand-derived closed
form in ``d``.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import time
from typing import Any

import sympy

from cogo.catalogue.constructions import construction
from cogo.io.tables import dumps_json, render_table
from cogo.io.outputs import atomic_write_text, check_output_file
from cogo.proofs.every_order import models as M
from cogo.proofs.every_order.collisions import form, relation_set
from cogo.proofs.every_order.block_proofs import Case, VERIFY_RANGE, prove_block_model
from cogo.proofs.every_order.self_checks import recount, run_self_checks
from cogo.proofs.every_order.memorization import MEM_CONTROLS, mem_exponents, mem_loss

__all__ = ["run_every_order", "format_every_order", "cli_every_order", "MEM_TITLE"]

MEM_TITLE = construction("z_M").title


def _admissible(kind: str):
    return (lambda d: d >= 2) if kind == "z_M" else (lambda d: d >= 3 and d % 2 == 1)


def _coverage(cases: list, kind: str) -> dict:
    """Every admissible ``d <= VERIFY_RANGE`` lies in exactly one case (the cases are residue classes above a
    threshold and finite sets, so this is the statement for every ``d``)."""
    adm = _admissible(kind)
    bad = [d for d in range(2, VERIFY_RANGE + 1) if adm(d) and sum(1 for c in cases if c.member(d)) != 1]
    extra = [d for d in range(2, VERIFY_RANGE + 1) if not adm(d) and any(c.member(d) for c in cases)]
    orders = "every d >= 2" if kind == "z_M" else "every odd d >= 3"
    parts = " + ".join(f"[{c.covers}]" for c in cases)
    return {"covers": orders, "ok": not bad and not extra,
            "argument": f"{parts} = {orders}, each order in exactly one case" + ("" if not bad and not extra
                                                                                 else " -- FALSE"),
            "uncovered or twice": bad[:10], "inadmissible": extra[:10]}


def _mem_cases(title: str, scale=1, drop: bool = False) -> list:
    alpha, beta, problems = mem_exponents()
    res = mem_loss(scale, drop, (alpha, beta))
    if "error" in res:
        status, loss = "UNPROVEN", None
    else:
        loss = res["loss"]
        status = "PASS" if loss == 0 and not problems else "FAIL"
    details = {"exponents": {"U_a": alpha, "U_b": beta}, "l_k": str(res.get("l_k")),
               "brackets": res.get("brackets left by the sums", []), "model = library z_M":
               "yes" if not problems else problems, **({"error": res["error"]} if "error" in res else {})}
    return [Case(title, "every k != 0 (character sums)", "every d >= 2", lambda d: d >= 2,
                 "character sums, sum_j zeta^(jL) = d [L = 0], d symbolic", status, loss, details)]


def _caught(cases: list, kind: str, expect_fail, expect_loss, expect_conds: list | None = None) -> dict:
    """CAUGHT iff the cases cover each admissible order once, the failing orders are exactly ``expect_fail`` (on
    every d up to VERIFY_RANGE), every failing case with a closed-form loss has ``expect_loss``, the conditions
    that fail are ``expect_conds`` (block controls; z_M's route computes the loss only), none is unproven."""
    adm = _admissible(kind)
    failing = {d for d in range(2, VERIFY_RANGE + 1) if adm(d)
               and any(c.member(d) and c.status == "FAIL" for c in cases)}
    want = {d for d in range(2, VERIFY_RANGE + 1) if adm(d) and expect_fail(d)}
    losses = [c.loss for c in cases if c.status == "FAIL" and c.loss is not None]
    loss_ok = bool(losses) and all(sympy.simplify(x - expect_loss) == 0 for x in losses)
    unproven = [c.label for c in cases if c.status == "UNPROVEN"]
    covered = _coverage(cases, kind)["ok"]
    conds = sorted({x for c in cases if c.status == "FAIL" for x in c.details.get("failing", [])})
    conds_ok = expect_conds is None or conds == sorted(expect_conds)
    both = _both_signs(cases)   # a collision case judged at +k and -k (two l_k), never one sign only
    ok = failing == want and loss_ok and not unproven and covered and conds_ok and both and recount(cases, kind)[
        "twice"] == []
    return {"caught": ok, "collisions judged at both signs": both, "fails on": sorted(failing)[:8], "expected": sorted(want)[:8],
            "same orders": failing == want, "loss": [str(x) for x in losses], "expected loss": str(expect_loss),
            "unproven": unproven, "cases cover each order once": covered, "failing conditions": conds,
            "expected conditions": expect_conds}


def control_reading(status: str, expected_to_fail: bool) -> str:
    """What one case of a negative control says, for a first reader: ``CAUGHT`` (the defect breaks optimality
    on these orders, as predicted), ``unaffected`` (it does not touch them, as predicted), else ``MISSED: ...``.

    >>> control_reading("FAIL", True), control_reading("PASS", False), control_reading("PASS", True)
    ('CAUGHT', 'unaffected', 'MISSED: optimal, predicted to fail')
    """
    if status == "FAIL" and expected_to_fail:
        return "CAUGHT"
    if status == "PASS" and not expected_to_fail:
        return "unaffected"
    if status == "UNPROVEN":
        return "MISSED: unproven"
    return "MISSED: " + ("fails, predicted optimal" if status == "FAIL" else "optimal, predicted to fail")


def _control_rows(cases: list, kind: str, expect_fail) -> list[dict]:
    """The rows of a control's cases, each with its ``reading`` (:func:`control_reading`): a case is predicted to
    fail when the control fails on one of its admissible orders up to VERIFY_RANGE."""
    adm = _admissible(kind)
    rows = []
    for c in cases:
        predicted = any(adm(d) and c.member(d) and expect_fail(d) for d in range(2, VERIFY_RANGE + 1))
        rows.append({**c.row(), "reading": control_reading(c.status, predicted)})
    return rows


def run_every_order() -> dict:
    """The every-order proofs and controls.

    Returns
    -------
    dict
        ``theorems``: per construction its cases (rows), coverage and ``proven``; ``controls``: per control its
        cases and the CAUGHT verdict; ``ok`` (every construction proven, every control caught); ``seconds``.
    """
    t0 = time.perf_counter()
    theorems, controls = [], []
    for model in M.constructions():
        cases = prove_block_model(model)
        theorems.append(_theorem(model.title, model.kind, model.parameters, cases))
    theorems.append(_theorem(MEM_TITLE, "z_M", "none", _mem_cases(MEM_TITLE)))
    for model in M.controls():
        fail, loss, conds = M.CONTROL_EXPECT[model.title]
        cases = prove_block_model(model)
        controls.append({"control": model.title, "cases": _control_rows(cases, model.kind, fail),
                         **_caught(cases, model.kind, fail, loss, conds)})
    for name, (scale, drop, loss) in MEM_CONTROLS.items():
        cases = _mem_cases(name, scale, drop)
        controls.append({"control": name, "cases": _control_rows(cases, "z_M", lambda d: d >= 2),
                         **_caught(cases, "z_M", lambda d: d >= 2, loss)})
    controls += run_self_checks(_coverage, _theorem)   # the coverage argument tried on covers built by hand
    ok = all(t["proven"] for t in theorems) and all(c["caught"] for c in controls)
    return {"theorems": theorems, "controls": controls, "ok": ok, "seconds": time.perf_counter() - t0}


def _both_signs(cases: list) -> bool:
    """Every collision case with the relation imposed holds the ``l_k`` of both outputs ``+k`` and ``-k``."""
    return all(len(c.details.get("l_k", [])) == 2 for c in cases
               if c.method == "symbolic block certificate with the relation imposed")


def _theorem(title: str, kind: str, parameters: str, cases: list) -> dict:
    cov = _coverage(cases, kind)
    if kind != "z_M":
        even = relation_set(form(k=2), odd=False)
        cov["argument"] += (f"; even d are not admissible: a block's two frequencies meet (2k = 0) iff "
                            f"{even.describe()}")
    mine = recount(cases, kind)   # the cover counted afresh (cogo.proofs.every_order.self_checks): both must hold
    cov["recount"] = mine
    both_signs = _both_signs(cases)
    cov["collisions judged at both signs"] = both_signs
    proven = cov["ok"] and all(c.status == "PASS" for c in cases) and mine["proven"] and both_signs
    what = "every d >= 2" if kind == "z_M" else "every odd d >= 3"
    stmt = f"{title} is a global optimizer (loss exactly 0) for {what}" + \
        (f", parameters: {parameters}" if parameters != "none" else "")
    return {"construction": title, "statement": stmt, "proven": proven, "coverage": cov,
            "cases": [c.row() for c in cases]}


def format_every_order(out: dict) -> str:
    """The table (one row per construction and case), the coverage argument, the controls and a summary."""
    head = ["construction", "case", "d covered", "method", "status"]
    rows = [[t["construction"], c["case"], c["d"], c["method"], c["status"]] for t in out["theorems"]
            for c in t["cases"]]
    lines = [render_table(head, rows), ""]
    for t in out["theorems"]:
        lines.append(f"{'PROVEN' if t['proven'] else 'NOT PROVEN'}: {t['statement']}")
        lines.append(f"  cases: {t['coverage']['argument']}")
        for case in t["cases"]:
            if "classes" in case:
                lines.append("  l_k at the outputs of each family: " + ", ".join(
                    f"{k}: {v}" for k, v in case["classes"].items()))
            if case.get("l_k") and case["d"] == "every d >= 2":
                lines.append(f"  l_k = {case['l_k']} at every k != 0, exponents {case['exponents']} of k j1, k j2; "
                             f"brackets the sums leave: {', '.join(case['brackets']) or 'none'}")
            for where, forms in case.get("relations by where they hold", {}).items():
                lines.append(f"  relations L = 0 (mod d) the loss meets, {where}: {', '.join(forms)}")
    lines += ["", "negative controls (must fail exactly on the orders predicted, with the predicted loss): each case "
              "reads CAUGHT (the defect breaks optimality there, as predicted) or unaffected (it leaves those orders "
              "optimal, as predicted); MISSED otherwise"]
    crow = [[c["control"], r["case"], r["d"],   # a self-check's rows are the cases of its hand-built cover
             ("cover case" if r["status"] == "PASS" else f"cover case, {r['status']}") if c.get("self_check")
             else r.get("reading", r["status"]), r["loss"] or "-"]
            for c in out["controls"] for r in c["cases"]]
    lines.append(render_table(["control", "case", "d covered", "reading", "loss"], crow))
    for c in out["controls"]:
        if c.get("self_check"):
            lines.append(f"  {c['control']}: {'CAUGHT' if c['caught'] else 'MISSED'} ({c['loss'][0]}; expected "
                         f"{c['expected loss']})")
            continue
        fails = (f"fails {', '.join(c['failing conditions'])} (expected {', '.join(c['expected conditions'])}); "
                 if c["expected conditions"] is not None else "")
        lines.append(f"  {c['control']}: {'CAUGHT' if c['caught'] else 'MISSED'} ({fails}fails at d = "
                     f"{_orders(c['fails on'])} (expected {_orders(c['expected'])}); loss {', '.join(c['loss']) or '-'}"
                     f" (expected {c['expected loss']}))")
    n_ok = sum(t["proven"] for t in out["theorems"])
    n_c = sum(c["caught"] for c in out["controls"])
    lines.append(f"\nevery order: {n_ok}/{len(out['theorems'])} constructions proven for every admissible d, "
                 f"{n_c}/{len(out['controls'])} negative controls caught, {out['seconds']:.1f} s")
    return "\n".join(lines)


def _orders(ds: list) -> str:
    return ", ".join(map(str, ds)) + ", ..." if ds else "none"


def cli_every_order(args: Any) -> int:
    """``cogo verify --every-order [--json FILE]``: print the proof, write the JSON atomically; 0 iff all ok."""
    if args.json:
        check_output_file(args.json, force=args.force, label="--json")
    print("cogo verify --every-order: z_F6, z_F6 (7.2), z_F4/6 (hat), z_M for every admissible group order d",
          flush=True)
    out = run_every_order()
    print(format_every_order(out))
    if args.json:
        atomic_write_text(args.json, dumps_json(out))
        print(f"wrote {args.json}")
    return 0 if out["ok"] else 1
