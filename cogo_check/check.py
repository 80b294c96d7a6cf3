"""``cogo-check DIR``: re-check every certificate that ``cogo verify --certificates DIR`` wrote.

Exit status 0 only when every claim holds; each claim that does not is named on its own line.  The format
is documented in docs/verify.md ("Certificates anyone can check"); this module trusts only the standard
library, its own arithmetic (:mod:`cogo_check.arith`), its own statement of the losses
(:mod:`cogo_check.loss`) and its own table of the negative controls' closed forms (:data:`CLOSED_FORMS`).
"""
from __future__ import annotations

import json
import os
import sys
from fractions import Fraction

from cogo_check.arith import Field, Group
from cogo_check.base import Bad, sha256
from cogo_check.loss import fourier_loss, real_loss

FORMAT, INDEX_FORMAT, VERSION = "cogo-certificate", "cogo-certificates-index", 1

#: control name -> (closed form as printed, the loss as a function of n = |G| and P = #pairs {k, -k}, k != -k).
#: Derived by hand (docs/verify.md, "Negative controls"), never read from a certificate.
CLOSED_FORMS = {
    "z_nu blocks": ("(4P + n - 1)/n", lambda n, P: Fraction(4 * P + n - 1, n)),
    "order-4 blocks without hat": ("(2P + n - 1)/n", lambda n, P: Fraction(2 * P + n - 1, n)),
    "z_F4/6 without hat correction": ("2(n - 3)/n", lambda n, P: Fraction(2 * (n - 3), n)),
    "perturbed z_F6": ("1/(200 n)", lambda n, P: Fraction(1, 200 * n)),
    "z_M, output weights doubled": ("(n - 1)/n", lambda n, P: Fraction(n - 1, n)),
    "z_M without node (0, 0)": ("(n - 1)(n + 7)/(2 n^3)", lambda n, P: Fraction((n - 1) * (n + 7), 2 * n ** 3)),
    "block route: R_g only": ("(n - 1)/n", lambda n, P: Fraction(n - 1, n)),
    "block route: R_c only": ("(n - 1)/n", lambda n, P: Fraction(n - 1, n)),
    "block route: R_n only": ("(2P + n - 1)/n", lambda n, P: Fraction(2 * P + n - 1, n)),
    "block route: R_* only": ("(n - 1 - P)/n", lambda n, P: Fraction(n - 1 - P, n)),
    "block route: hat gamma tripled": ("8(n - 3)/n", lambda n, P: Fraction(8 * (n - 3), n)),
}


def _int(x, what: str) -> int:
    if not isinstance(x, int) or isinstance(x, bool):
        raise Bad(f"{what}: expected an integer, got {x!r}")
    return x


def _frac(x, what: str) -> Fraction:
    if not isinstance(x, str):
        raise Bad(f"{what}: expected a rational as a string 'p/q', got {x!r}")
    try:
        return Fraction(x)
    except (ValueError, ZeroDivisionError):
        raise Bad(f"{what}: bad rational {x!r}") from None


#: control name -> the conditions of SPEC 5 that fail (s: the number of k = -k != 0), derived by hand (docs/verify.md)
FAILING = {
    "z_nu blocks": lambda s: {"R_c"} | ({"R_g"} if s else set()),
    "order-4 blocks without hat": lambda s: {"R_n"} | ({"R_g"} if s else set()),
    "z_F4/6 without hat correction": lambda s: {"R_n"},
    "perturbed z_F6": lambda s: {"R_g", "R_c", "R_n", "R_*"},
    "block route: R_g only": lambda s: {"R_g"},
    "block route: R_c only": lambda s: {"R_c"} | ({"R_g"} if s else set()),
    "block route: R_n only": lambda s: {"R_n"} | ({"R_g"} if s else set()),
    "block route: R_* only": lambda s: {"R_*"} | ({"R_g"} if s else set()),
    "block route: hat gamma tripled": lambda s: {"R_n"},
}


def _network_loss(G: Group, net: dict, failing: set):
    """(the loss, its field or None for real weights); ``failing`` receives the failing conditions (Fourier)."""
    enc = net.get("encoding")
    if enc == "fourier-cyclotomic":
        F = Field(_int(net.get("L"), "network.L"))
        entries = {p: {} for p in "abc"}
        for p in "abc":
            for item in net["entries"][p]:
                j, k, den, terms = item
                entries[p].setdefault(_int(j, "node"), []).append((G.elem(k), F.sparse(den, terms)))
        return fourier_loss(G, F, entries, failing), F
    if enc == "real-rational":
        W = []
        for key in ("Wa", "Wb", "Wc"):
            d: dict = {}
            for j, m, w in net[key]:
                d.setdefault(_int(j, "node"), {})[G.elem(m)] = _frac(w, key)
            W.append(d)
        return real_loss(G, *W), None
    raise Bad(f"unknown network encoding {enc!r}")


def _claimed(claim: dict, F):
    if "rational" in claim:
        return _frac(claim["rational"], "claimed loss")
    if "cyclotomic" in claim and F is not None:
        c = claim["cyclotomic"]
        if c.get("L") != F.L:
            raise Bad("claimed loss lies in another field than the network")
        return F.sparse(c["den"], c["terms"])
    raise Bad(f"unreadable claimed loss {claim!r}")


def check_loss(cert: dict) -> str:
    """A loss claim: the loss of SPEC 5 (or SPEC 1) of the network equals the claimed value (and, for a
    control, the checker's own closed form)."""
    g = cert.get("group", {})
    G = Group(g.get("factors"))
    failing: set = set()
    value, F = _network_loss(G, cert["network"], failing)
    claimed = _claimed(cert["loss"], F)
    if F is not None:
        got = F.as_rational(value)
        same = F.is_zero(F.sub(value, claimed if isinstance(claimed, tuple) else F.rational(claimed)))
        text = F.text(value)
    else:
        got, same, text = value, value == claimed, str(value)
    if not same:
        raise Bad(f"recomputed loss {text} != claimed {cert['loss']}")
    ctl = cert.get("control")
    if ctl is None:
        if got != 0:
            raise Bad(f"a construction's loss must be 0, recomputed {text}")
        if failing:
            raise Bad(f"loss 0 but the conditions {sorted(failing)} fail")
        conds = ", R_g R_c R_n R_* hold" if F is not None else ""
        return f"loss = 0{conds} ({G.order} elements, {cert['network'].get('nodes')} nodes)"
    name = ctl.get("name")
    if name not in CLOSED_FORMS:
        raise Bad(f"control {name!r}: no hand-derived closed form known to the checker")
    form, f = CLOSED_FORMS[name]
    want = f(G.order, G.pairs())
    if got != want:
        raise Bad(f"control {name!r}: recomputed loss {text} != the closed form {form} = {want}")
    if _frac(ctl.get("expected_loss"), "expected_loss") != want:
        raise Bad(f"control {name!r}: the certificate's expected loss {ctl.get('expected_loss')} != {form} = {want}")
    if F is not None and name in FAILING:
        s = sum(1 for k in G.elements if k != G.zero and k == G.neg(k))
        if failing != FAILING[name](s):
            raise Bad(f"control {name!r}: conditions failing {sorted(failing)}, expected {sorted(FAILING[name](s))}")
        return f"control loss = {form} = {want}, failing {', '.join(sorted(failing))}"
    return f"control loss = {form} = {want}"


def check_certificate(path: str, passed: set = frozenset()) -> str:
    with open(path, encoding="utf-8") as fh:
        cert = json.load(fh)
    if cert.get("format") != FORMAT or cert.get("version") != VERSION:
        raise Bad(f"not a {FORMAT} version {VERSION} file")
    kind = cert.get("kind")
    if kind == "loss":
        out = check_loss(cert)
        if cert.get("checkpoint") is not None:
            from cogo_check.files import check_checkpoint  # late: only for --checkpoint certificates
            out += "; " + check_checkpoint(cert, os.path.dirname(path))
        return out
    if kind == "every-order":
        from cogo_check.coverage import check_every_order  # late: only for --every-order certificates
        return check_every_order(cert, passed)
    raise Bad(f"unknown certificate kind {kind!r}")


def must_certify(name: str) -> bool:
    """The PASS lines this checker requires a certificate for (its own rule, not the index's)."""
    return name.startswith("6. optimality") or name in CLOSED_FORMS or name.startswith("every order:") \
        or name.startswith("checkpoint:")


def check_dir(d: str, out=sys.stdout) -> int:
    """Check the directory: 0 when every claim holds, 1 otherwise (each failing claim named)."""
    try:
        with open(os.path.join(d, "index.json"), encoding="utf-8") as fh:
            index = json.load(fh)
    except (OSError, ValueError) as exc:
        print(f"cogo-check: {d}: no readable index.json ({exc})", file=out)
        return 2
    if index.get("format") != INDEX_FORMAT or index.get("version") != VERSION:
        print(f"cogo-check: {d}/index.json: not a {INDEX_FORMAT} version {VERSION} file", file=out)
        return 2
    failed, ok, skipped, passed = [], 0, [], set()
    rows = sorted(index.get("rows", []), key=lambda r: str(r.get("name", "")).startswith("every order:"))
    for row in rows:  # the coverage claims last: they need their instances
        name, cfile = row.get("name", "?"), row.get("certificate")
        if row.get("status") not in ("PASS", "CAUGHT"):
            failed.append(name)
            print(f"FAIL  {name}: the run itself reports {row.get('status')}", file=out)
            continue
        if cfile is None:
            if must_certify(name):
                failed.append(name)
                print(f"FAIL  {name}: claimed {row.get('status')} but no certificate", file=out)
            else:
                skipped.append(name)
            continue
        p = os.path.join(d, os.path.basename(cfile))
        try:
            with open(p, encoding="utf-8") as fh:
                if json.load(fh).get("claim") != name:
                    raise Bad(f"{cfile} certifies another claim")
            msg = check_certificate(p, passed)
            ok += 1
            passed.add(name)
            print(f"ok    {name}: {msg}", file=out)
        except FileNotFoundError:
            failed.append(name)
            print(f"FAIL  {name}: certificate {cfile} missing", file=out)
        except (Bad, ValueError, KeyError, TypeError, ArithmeticError) as exc:
            failed.append(name)
            print(f"FAIL  {name}: {exc}", file=out)
    for name in skipped:
        print(f"trust {name}: not covered by certificates (re-checked by cogo only)", file=out)
    print(f"cogo-check: {ok} claim(s) hold, {len(failed)} fail, {len(skipped)} not covered", file=out)
    return 1 if failed or ok == 0 else 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print("usage: cogo-check DIR  (a directory written by `cogo verify ... --certificates DIR`)")
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    if not os.path.isdir(argv[0]):
        print(f"cogo-check: {argv[0]}: not a directory", file=sys.stderr)
        return 2
    return check_dir(argv[0])
