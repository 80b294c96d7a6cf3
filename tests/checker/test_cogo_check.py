"""cogo-check (the independent checker) against the certificates cogo writes: sound ones pass, tampered ones
and those written by a defective cogo (mutations injected with monkeypatch) are rejected, naming the claim.

Expected losses here are literals or closed forms derived by hand (docs/verify.md, "Negative controls"), never
values computed by the code under test.
"""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from cogo_check.arith import Field, Group, cyclotomic_poly
from cogo_check.check import check_dir

ROOT = Path(__file__).resolve().parents[2]


def _check(d) -> tuple[int, str]:
    buf = io.StringIO()
    rc = check_dir(str(d), out=buf)
    return rc, buf.getvalue()


def _export(tmp_path, G, results, name="d"):
    from cogo.proofs.export import certificates_for_results, write_certificates

    rows, certs = certificates_for_results(G, results)
    d = tmp_path / name
    write_certificates(str(d), "test", rows, certs)
    return d


def _results(n: int) -> list:
    """Row 6 of every construction and every control with a closed-form loss, exact, on Z_n (or a product)."""
    from cogo.proofs.controls.block_route import BLOCK_CONTROLS, run_block_control
    from cogo.proofs.controls.broken_constructions import CONTROLS, run_control
    from cogo.proofs.theorems.optimality import optimality

    out = [optimality(n, kind, "exact") for kind in ("z_F6", "z_F6_ab", "z_F46", "z_M")]
    out += [run_control(name, n, "exact") for name in CONTROLS]
    out += [run_block_control(name, n, "exact") for name, v in BLOCK_CONTROLS.items() if v[4] is None]
    return out


@pytest.fixture(scope="module")
def certs7(tmp_path_factory):  # on Z_5 (the smallest order with every control): the fixture takes seconds
    from cogo.algebra.group_parsing import parse_group

    G = parse_group("5")
    res = _results(5)
    assert all(r.passed for r in res)
    return _export(tmp_path_factory.mktemp("c7"), G, res)


def _cert_of(d, claim: str) -> Path:
    index = json.loads((d / "index.json").read_text())
    return d / next(r["certificate"] for r in index["rows"] if r["name"] == claim)


def _copy(src, tmp_path) -> Path:
    import shutil

    dst = tmp_path / "copy"
    shutil.copytree(src, dst)
    return dst


# ----------------------------------------------------------------------------------------------- the arithmetic
def test_cyclotomic_polynomials_by_hand():
    # Phi_1 = x - 1, Phi_4 = x^2 + 1, Phi_6 = x^2 - x + 1, Phi_12 = x^4 - x^2 + 1, Phi_9 = x^6 + x^3 + 1
    assert cyclotomic_poly(1) == (-1, 1)
    assert cyclotomic_poly(4) == (1, 0, 1)
    assert cyclotomic_poly(6) == (1, -1, 1)
    assert cyclotomic_poly(12) == (1, 0, -1, 0, 1)
    assert cyclotomic_poly(9) == (1, 0, 0, 1, 0, 0, 1)


def test_field_identities_by_hand():
    F = Field(12)
    w = F.sparse(1, [[4, 1]])  # zeta_12^4 = exp(2 pi i / 3)
    assert F.is_zero(F.add(F.add(F.one, w), F.mul(w, w)))  # 1 + w + w^2 = 0
    i = F.sparse(1, [[3, 1]])
    assert F.mul(i, i) == F.rational(-1)  # i^2 = -1
    assert F.conj(i) == F.scale(i, -1)
    assert F.abs2(F.sparse(5, [[0, 3], [3, 4]])) == F.rational(1)  # |(3 + 4i)/5|^2 = 1
    assert not F.is_zero(F.sparse(1, [[1, 1]]))


def test_group_pairs():
    assert Group([7]).pairs() == 3 and Group([8]).pairs() == 3 and Group([3, 5]).pairs() == 7
    assert Group([2, 2]).pairs() == 0


# ------------------------------------------------------------------------------------------- sound certificates
def test_every_construction_and_control_checks(certs7):
    rc, out = _check(certs7)
    assert rc == 0, out
    # P = 2 on Z_5: z_nu blocks (4P + n - 1)/n = 12/5, perturbed z_F6 1/(200 n) = 1/1000,
    # z_M without node (0, 0): (n - 1)(n + 7)/(2 n^3) = 4 * 12 / 250 = 24/125
    for line in ("control loss = (4P + n - 1)/n = 12/5", "1/(200 n) = 1/1000", "= 24/125",
                 "6. optimality of z_F6: loss = 0", "6. optimality of z_M memorization: loss = 0"):
        assert line in out
    assert "15 claim(s) hold, 0 fail" in out  # 4 constructions, 6 + 5 controls


def test_product_group(tmp_path):
    from cogo.algebra.group_parsing import parse_group
    from cogo.proofs.theorems.optimality import optimality

    G = parse_group("3x5")
    d = _export(tmp_path, G, [optimality(G, "z_F6", "exact"), optimality(G, "z_M", "exact")])
    rc, out = _check(d)
    assert rc == 0 and "2 claim(s) hold" in out, out


def test_no_certificate_written_on_error(tmp_path, monkeypatch):
    from cogo.proofs import export

    monkeypatch.setattr(export.json, "dump", lambda *a, **k: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        export.write_certificates(str(tmp_path / "out"), "t", [], {"a.json": {}})
    assert os.listdir(tmp_path) == []  # neither the directory nor its temporary sibling


# --------------------------------------------------------------------------------------------------- tampering
def _tamper(d, claim, edit):
    p = _cert_of(d, claim)
    cert = json.loads(p.read_text())
    edit(cert)
    p.write_text(json.dumps(cert))


def test_one_integer_of_the_network_altered(certs7, tmp_path):
    d = _copy(certs7, tmp_path)

    def edit(cert):
        e = cert["network"]["entries"]["c"][0]
        e[3][0][1] += 1  # one coefficient of one output entry

    _tamper(d, "6. optimality of z_F6", edit)
    rc, out = _check(d)
    assert rc == 1
    assert re.search(r"^FAIL  6\. optimality of z_F6: recomputed loss .* != claimed", out, re.M), out
    assert "1 fail" in out


def test_claimed_loss_altered(certs7, tmp_path):
    d = _copy(certs7, tmp_path)
    _tamper(d, "z_nu blocks", lambda c: c["loss"].update(rational="13/5"))
    rc, out = _check(d)
    assert rc == 1 and "FAIL  z_nu blocks: recomputed loss 12/5 != claimed" in out, out


def test_expected_control_loss_altered(certs7, tmp_path):
    d = _copy(certs7, tmp_path)
    _tamper(d, "perturbed z_F6", lambda c: c["control"].update(expected_loss="1/1500"))
    rc, out = _check(d)
    assert rc == 1 and "the certificate's expected loss 1/1500 != 1/(200 n) = 1/1000" in out, out


def test_real_space_weight_altered(certs7, tmp_path):
    d = _copy(certs7, tmp_path)
    _tamper(d, "6. optimality of z_M memorization", lambda c: c["network"]["Wc"][0].__setitem__(2, "1"))
    rc, out = _check(d)
    assert rc == 1 and "FAIL  6. optimality of z_M memorization" in out, out


def test_missing_certificate_reported(certs7, tmp_path):
    d = _copy(certs7, tmp_path)
    _cert_of(d, "z_nu blocks").unlink()
    index = json.loads((d / "index.json").read_text())
    for r in index["rows"]:
        if r["name"] == "6. optimality of z_F6":
            r["certificate"] = None
    (d / "index.json").write_text(json.dumps(index))
    rc, out = _check(d)
    assert rc == 1
    assert "FAIL  z_nu blocks: certificate" in out and "missing" in out
    assert "FAIL  6. optimality of z_F6: claimed PASS but no certificate" in out


def test_certificate_swapped_between_claims(certs7, tmp_path):
    d = _copy(certs7, tmp_path)
    index = json.loads((d / "index.json").read_text())
    a, b = (next(r for r in index["rows"] if r["name"] == n) for n in ("z_nu blocks", "6. optimality of z_F6"))
    a["certificate"], b["certificate"] = b["certificate"], a["certificate"]
    (d / "index.json").write_text(json.dumps(index))
    rc, out = _check(d)
    assert rc == 1 and "certifies another claim" in out


# ----------------------------------------------------------------------------------------------- the checkpoint
@pytest.fixture
def checkpoint_dir(tmp_path):
    from cogo.algebra.group_parsing import parse_group
    from cogo.proofs.export import checkpoint_certificate, write_certificates
    from cogo.solvers.constructions import z_F6

    G = parse_group("7")
    Wa, Wb, Wc = z_F6(G, seed=1, exact=True).to_numeric().to_weights(real=True)
    f = tmp_path / "f6.npz"
    np.savez(f, Wa=Wa, Wb=Wb, Wc=Wc)
    claim = "checkpoint: f6.npz is a certified optimizer"
    cert, name = checkpoint_certificate(str(f), G, "z_F6", 1, claim)
    d = tmp_path / "d"
    write_certificates(str(d), "t", [{"name": claim, "status": "PASS", "method": "exact", "certificate": "c.json"}],
                       {"c.json": cert}, {name: str(f)})
    return d, (Wa, Wb, Wc)


def test_checkpoint_file_checked(checkpoint_dir):
    d, _ = checkpoint_dir
    rc, out = _check(d)
    assert rc == 0 and "f6.npz (sha256 ok) holds the exact weights" in out, out


def test_checkpoint_hash_altered(checkpoint_dir):
    d, _ = checkpoint_dir
    p = d / "c.json"
    cert = json.loads(p.read_text())
    cert["checkpoint"]["sha256"] = "0" * 64
    p.write_text(json.dumps(cert))
    rc, out = _check(d)
    assert rc == 1 and "sha256 differs" in out


def test_checkpoint_off_by_1e_10(checkpoint_dir):
    # the file rewritten with one weight moved by 1e-10 and the hash updated to match: the weights are checked
    import hashlib

    d, (Wa, Wb, Wc) = checkpoint_dir
    Wa = Wa.copy()
    Wa[0, 0] += 1e-10
    np.savez(d / "f6.npz", Wa=Wa, Wb=Wb, Wc=Wc)
    p = d / "c.json"
    cert = json.loads(p.read_text())
    cert["checkpoint"]["sha256"] = hashlib.sha256((d / "f6.npz").read_bytes()).hexdigest()
    p.write_text(json.dumps(cert))
    rc, out = _check(d)
    assert rc == 1 and "differs from the exact one" in out, out


# ------------------------------------------------------------------------ defects injected into cogo's machinery
def _row6_under_defect(tmp_path, kind: str) -> str:
    from cogo.algebra.group_parsing import parse_group
    from cogo.proofs.theorems.optimality import optimality

    G = parse_group("7")
    r = optimality(G, kind, "exact")
    assert r.passed  # the defect makes cogo claim a PASS ...
    rc, out = _check(_export(tmp_path, G, [r]))
    assert rc == 1  # ... which the checker refuses
    return out


def test_mutation_false_zero_test(tmp_path, monkeypatch):
    # a construction missing its last node, and a zero test that calls every loss 0
    from cogo.algebra.network import Network
    from cogo.solvers import constructions as C
    from cogo.proofs.theorems import optimality as T

    orig = C.z_F6
    monkeypatch.setattr(C, "z_F6", lambda G, seed=None, exact=False: Network(
        orig(G, seed=seed, exact=exact).group, orig(G, seed=seed, exact=exact).z[:, :, :-1], exact=exact))
    real = T.general_loss_certificate
    monkeypatch.setattr(T, "general_loss_certificate",
                        lambda net, extra_scales=(): {**real(net, extra_scales), "loss": Fraction(0)})
    monkeypatch.setattr(T, "format_exact", lambda x: "0")
    out = _row6_under_defect(tmp_path, "z_F6")
    assert "FAIL  6. optimality of z_F6: recomputed loss" in out


def test_mutation_dropped_condition(tmp_path, monkeypatch):
    # z_F4/6 without its hat, and the loss of SPEC 5 without its R_n / R_* sums (C_p = 0): cogo computes 0;
    # the true loss is 2 (n - 3)/n = 8/7
    from cogo.algebra import loss as Lmod
    from cogo.solvers import constructions as C

    orig = C.z_F46
    monkeypatch.setattr(C, "z_F46", lambda G, seed=None, exact=False: orig(G, seed=seed, exact=exact, corrected=False))
    monkeypatch.setattr(Lmod, "self_potential_sums",
                        lambda z, p, rows=None: (lambda m: np.full((m, z.n), 0, dtype=object) if z.exact
                                                 else np.zeros((m, z.n)))(z.n if rows is None else len(rows)))
    out = _row6_under_defect(tmp_path, "z_F46")
    assert "recomputed loss 8/7 != claimed 0" in out.replace("{'rational': '0'}", "0"), out


def test_mutation_wrong_expected_loss(tmp_path, monkeypatch):
    # the closed form of the z_nu control changed, and cogo's loss made to agree with it: cogo reports CAUGHT
    from cogo.algebra.group_parsing import parse_group
    from cogo.proofs.controls import broken_constructions as K

    name = "z_nu blocks"
    wrong = Fraction(19, 7)
    entry = list(K.CONTROLS[name])
    entry[2] = lambda G: (wrong, ["R_c"])
    monkeypatch.setitem(K.CONTROLS, name, tuple(entry))
    real = K.general_loss_certificate
    monkeypatch.setattr(K, "general_loss_certificate", lambda net, extra_scales=(): {**real(net), "loss": wrong})
    G = parse_group("7")
    r = K.run_control(name, G, "exact")
    assert r.passed
    rc, out = _check(_export(tmp_path, G, [r]))
    assert rc == 1 and "FAIL  z_nu blocks: recomputed loss 18/7 != claimed" in out, out


def test_missed_row_is_not_a_claim(tmp_path, monkeypatch):
    from cogo.algebra.group_parsing import parse_group
    from cogo.proofs.controls import broken_constructions as K

    entry = list(K.CONTROLS["z_nu blocks"])
    entry[2] = lambda G: (Fraction(19, 7), ["R_c"])
    monkeypatch.setitem(K.CONTROLS, "z_nu blocks", tuple(entry))
    G = parse_group("7")
    rc, out = _check(_export(tmp_path, G, [K.run_control("z_nu blocks", G, "exact")]))
    assert rc == 1 and "FAIL  z_nu blocks: the run itself reports MISSED" in out


# -------------------------------------------------------------------------------------------- the checker itself
def test_checker_small_and_independent():
    files = sorted((ROOT / "cogo_check").glob("*.py"))
    lines = sum(len(f.read_text().splitlines()) for f in files)
    assert 0 < lines <= 1000, lines
    for f in files:
        src = f.read_text()
        assert not re.search(r"^\s*(import cogo\b|from cogo(\.| import))", src, re.M), f
        for mod in re.findall(r"^\s*(?:import|from) (\w+)", src, re.M):
            assert mod in {"__future__", "ast", "decimal", "fractions", "functools", "hashlib", "itertools", "json",
                           "math", "os", "pickle", "struct", "sys", "zipfile", "cogo_check"}, (f, mod)


# ------------------------------------------------------------------------------------ the command line, end to end
def _cogo(*args):
    return subprocess.run([sys.executable, "-c", "import sys; from cogo.cli import main; sys.exit(main(sys.argv[1:]))",
                           *args], cwd=ROOT, capture_output=True, text=True)


def _cogo_check(d):
    return subprocess.run([sys.executable, "-m", "cogo_check", str(d)], cwd=ROOT, capture_output=True, text=True)


@pytest.mark.slow
@pytest.mark.parametrize("group", ["23", "33"])
def test_cli_group(tmp_path, group):
    d = tmp_path / "certs"
    r = _cogo("verify", "--group", group, "--exact", "--no-progress", "--certificates", str(d))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr
    c = _cogo_check(d)
    assert c.returncode == 0, c.stdout
    assert re.search(r"cogo-check: 1[0-9] claim\(s\) hold, 0 fail", c.stdout), c.stdout
    _tamper(d, "6. optimality of z_F4/6 with the hat correction",
            lambda cert: cert["network"]["entries"]["a"][0][3][0].__setitem__(
                1, cert["network"]["entries"]["a"][0][3][0][1] + 1))  # one integer, plus 1
    c = _cogo_check(d)
    assert c.returncode == 1 and "FAIL  6. optimality of z_F4/6 with the hat correction" in c.stdout


@pytest.mark.slow
def test_cli_every_order(tmp_path):
    d = tmp_path / "certs"
    r = _cogo("verify", "--every-order", "--certificates", str(d))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr
    c = _cogo_check(d)
    assert c.returncode == 0 and "every order: z_M memorization (SPEC 7.4): each admissible d <= 1000" in c.stdout
    # a case dropped from the cover: the orders it held are then in no case
    _tamper(d, "every order: z_F4/6 with the hat correction (SPEC 7.3)", lambda cert: cert["cases"].pop())
    c = _cogo_check(d)
    assert c.returncode == 1 and "orders not in exactly one case: [3]" in c.stdout, c.stdout


def test_cli_refuses_existing_directory(tmp_path, capsys):
    from cogo.cli import main

    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "f").write_text("")
    assert main(["verify", "--group", "3", "--exact", "--certificates", str(tmp_path / "x")]) != 0
    assert "not empty" in capsys.readouterr().err
    assert os.listdir(tmp_path / "x") == ["f"]
    assert main(["verify", "--theory", "li2", "--group", "S3", "--certificates", str(tmp_path / "y")]) != 0
    assert not (tmp_path / "y").exists()


def test_cli_checkpoint(tmp_path):
    pytest.importorskip("torch")
    f, d = tmp_path / "f6.pt", tmp_path / "certs"
    r = _cogo("construct", "z_F6", "--group", "11", "--out", str(f))
    assert r.returncode == 0, r.stderr
    r = _cogo("verify", "--checkpoint", str(f), "--certificates", str(d))
    assert r.returncode == 0, r.stdout + r.stderr
    c = _cogo_check(d)
    assert c.returncode == 0 and "f6.pt (sha256 ok) holds the exact weights" in c.stdout, c.stdout


@pytest.mark.slow
def test_python_api(tmp_path):
    import cogo

    d = tmp_path / "c"
    results = cogo.verify(3, method="exact", certificates=str(d))
    assert all(r.passed for r in results)
    rc, out = _check(d)
    # Z_3: row 6 for z_F6, its 7.2 variant, z_F4/6 (d = 3) and z_M; the controls that apply on Z_3
    assert rc == 0 and "6. optimality of z_M memorization: loss = 0 (3 elements, 9 nodes)" in out, out


def _pt_like(path, arrays: dict) -> None:
    """A zip laid out as torch.save writes it (archive/data.pkl, archive/data/<key>), pickled with the names torch
    uses (torch._utils._rebuild_tensor_v2, torch.DoubleStorage, persistent ids ('storage', type, key, 'cpu', numel)),
    written without torch: stand-in modules are registered only while pickling."""
    import collections
    import pickle
    import types
    import zipfile

    torch_mod, utils = types.ModuleType("torch"), types.ModuleType("torch._utils")

    class DoubleStorage:
        pass

    def _rebuild_tensor_v2(*args):
        raise AssertionError("never called while writing")

    DoubleStorage.__module__, DoubleStorage.__qualname__ = "torch", "DoubleStorage"
    _rebuild_tensor_v2.__module__, _rebuild_tensor_v2.__qualname__ = "torch._utils", "_rebuild_tensor_v2"
    torch_mod.DoubleStorage, utils._rebuild_tensor_v2, torch_mod._utils = DoubleStorage, _rebuild_tensor_v2, utils

    class Storage:
        def __init__(self, key, numel):
            self.key, self.numel = key, numel

    class Tensor:
        def __init__(self, storage, shape):
            self.storage, self.shape = storage, shape

        def __reduce__(self):
            return _rebuild_tensor_v2, (self.storage, 0, self.shape, (self.shape[1], 1), False,
                                        collections.OrderedDict())

    class P(pickle.Pickler):
        def persistent_id(self, obj):
            return ("storage", DoubleStorage, obj.key, "cpu", obj.numel) if isinstance(obj, Storage) else None

    saved = {m: sys.modules.get(m) for m in ("torch", "torch._utils")}
    sys.modules["torch"], sys.modules["torch._utils"] = torch_mod, utils
    try:
        buf = io.BytesIO()
        state = {k: Tensor(Storage(str(i), a.size), a.shape) for i, (k, a) in enumerate(arrays.items())}
        P(buf, protocol=2).dump({"model": state, "meta": {"group": "7"}})
    finally:
        for m, v in saved.items():
            if v is None:
                sys.modules.pop(m, None)
            else:
                sys.modules[m] = v
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("archive/data.pkl", buf.getvalue())
        for i, a in enumerate(arrays.values()):
            zf.writestr(f"archive/data/{i}", np.ascontiguousarray(a, dtype="<f8").tobytes())


def _safetensors(path, arrays: dict) -> None:
    import struct

    head, off, blobs = {}, 0, []
    for k, a in arrays.items():
        b = np.ascontiguousarray(a, dtype="<f8").tobytes()
        head[k] = {"dtype": "F64", "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    h = json.dumps(head).encode()
    Path(path).write_bytes(struct.pack("<Q", len(h)) + h + b"".join(blobs))


@pytest.mark.parametrize("suffix", [".pt", ".safetensors"])
def test_checkpoint_formats_read_without_torch(tmp_path, suffix):
    from cogo.algebra.group_parsing import parse_group
    from cogo.proofs.export import checkpoint_certificate, write_certificates
    from cogo.solvers.constructions import z_F46

    G = parse_group("7")
    W = z_F46(G, seed=1, exact=True).to_numeric().to_weights(real=True)
    arrays = dict(zip(("layera.weight", "layerb.weight", "layerc.weight"), W))
    f = tmp_path / f"f46{suffix}"
    (_pt_like if suffix == ".pt" else _safetensors)(f, arrays)
    claim = f"checkpoint: f46{suffix} is a certified optimizer"
    cert, name = checkpoint_certificate(str(f), G, "z_F46", 1, claim)
    d = tmp_path / "d"
    write_certificates(str(d), "t", [{"name": claim, "status": "PASS", "method": "exact", "certificate": "c.json"}],
                       {"c.json": cert}, {name: str(f)})
    rc, out = _check(d)
    assert rc == 0 and f"f46{suffix} (sha256 ok) holds the exact weights" in out, out
    # the same file with the first output weight negated (the hash updated to match): refused
    Wc = W[2].copy()
    Wc[0, 0] = -Wc[0, 0] if Wc[0, 0] else 1.0
    (_pt_like if suffix == ".pt" else _safetensors)(d / name, dict(zip(arrays, (W[0], W[1], Wc))))
    import hashlib

    cert["checkpoint"]["sha256"] = hashlib.sha256((d / name).read_bytes()).hexdigest()
    (d / "c.json").write_text(json.dumps(cert))
    rc, out = _check(d)
    assert rc == 1 and "differs from the exact one" in out, out


def test_pt_reader_refuses_other_names(tmp_path, checkpoint_dir):
    # a .pt whose pickle names os.system: refused by the restricted unpickler, never called
    import pickle
    import zipfile
    import hashlib

    d, _ = checkpoint_dir
    cert = json.loads((d / "c.json").read_text())
    f = d / "evil.pt"
    with zipfile.ZipFile(f, "w") as zf:
        zf.writestr("archive/data.pkl", pickle.dumps(os.system, protocol=2))
    cert["checkpoint"].update(file="evil.pt", sha256=hashlib.sha256(f.read_bytes()).hexdigest())
    (d / "c.json").write_text(json.dumps(cert))
    rc, out = _check(d)
    assert rc == 1 and "evil.pt unreadable: UnpicklingError: refused posix.system" in out, out


def test_even_group_conditions(tmp_path):
    # Z_8: P = 3 pairs and s = 1 self-conjugate frequency (k = 4) carrying no block, so R_g fails there too:
    # z_nu blocks (4P + n - 1)/n = 19/8 failing R_c and R_g; block route R_* only (n - 1 - P)/n = 4/8
    from cogo.algebra.group_parsing import parse_group
    from cogo.proofs.controls.block_route import run_block_control
    from cogo.proofs.controls.broken_constructions import run_control

    G = parse_group("8")
    res = [run_control("z_nu blocks", G, "exact"), run_block_control("block route: R_* only", G, "exact")]
    rc, out = _check(_export(tmp_path, G, res))
    assert rc == 0, out
    assert "z_nu blocks: control loss = (4P + n - 1)/n = 19/8, failing R_c, R_g" in out
    assert "block route: R_* only: control loss = (n - 1 - P)/n = 1/2, failing R_*, R_g" in out


def test_conditions_checked_not_only_the_loss(certs7, tmp_path):
    # the R_c-only network relabelled as the R_g-only control: both have loss (n - 1)/n = 4/5, but R_c fails, not R_g
    d = _copy(certs7, tmp_path)
    p = _cert_of(d, "block route: R_c only")
    cert = json.loads(p.read_text())
    cert["claim"] = cert["control"]["name"] = "block route: R_g only"
    p.write_text(json.dumps(cert))
    index = json.loads((d / "index.json").read_text())
    for r in index["rows"]:
        if r["name"] == "block route: R_g only":
            r["certificate"] = p.name
    (d / "index.json").write_text(json.dumps(index))
    rc, out = _check(d)
    assert rc == 1 and "FAIL  block route: R_g only: control 'block route: R_g only': conditions failing ['R_c'], " \
                       "expected ['R_g']" in out, out
