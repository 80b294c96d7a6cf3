"""The verdict for trained networks (issue 33): the distance to the nearest certified optimizer, one reading.

Expected values are by hand: a network built as a construction times ``1 + e`` noise is at distance ~e from it;
permutations, sign flips and the per-node gauge are exact symmetries of the function (SPEC 8.4).
"""
import json
import sys
import zipfile

import numpy as np
import pytest

import cogo
from cogo.cli import main
from cogo.solvers.constructions import z_F6, z_F46
from cogo.solvers.designs import f46_design

from _helpers import save_npz as _save, verify_json as _verify_json

N = 23


def _noisy(net, noise: float, seed: int = 0, dead: int = 0, dtype=np.float64):
    """Real weights of ``net`` with relative noise ``noise`` per entry and ``dead`` zero nodes appended."""
    rng = np.random.default_rng(seed)
    Wa, Wb, Wc = (w * (1 + noise * rng.standard_normal(w.shape)) for w in net.to_weights(real=True))
    if dead:
        Wa = np.vstack([Wa, np.zeros((dead, Wa.shape[1]))])
        Wb = np.vstack([Wb, np.zeros((dead, Wb.shape[1]))])
        Wc = np.hstack([Wc, np.zeros((Wc.shape[0], dead))])
    return [w.astype(dtype) for w in (Wa, Wb, Wc)]


@pytest.fixture(scope="module")
def f6_noisy(tmp_path_factory):
    d = tmp_path_factory.mktemp("f6")
    W = _noisy(z_F6(N, seed=1), 1e-4, dead=5, dtype=np.float32)
    return d, W, _save(d / "f6.npz", W)


def test_noisy_z_F6_is_near_a_certified_optimizer(f6_noisy, tmp_path, capsys):
    _, W, path = f6_noisy
    rc, rep = _verify_json(tmp_path, path)
    no = rep["nearest_optimum"]
    assert rc == 0 and rep["verdict"] == "near a certified optimizer"
    assert no["certified"] is True and 0 < no["distance"] < 1e-2
    assert no["certificate"]["families_hold_for_every_parameter_value"]
    assert no["name"] == "11 x z_nu * z_syn" and no["loss_snapped_exact"] == "0"
    assert no["loss_trained"] > 1e-10 > no["loss_snapped"]         # both losses: the trained one is not 0
    assert "family certificates for every value of the free parameters: z_F6: holds" in capsys.readouterr().out


def test_a_checkpoint_verdict_is_computed_even_with_settings_that_skip_it(f6_noisy):
    """Settings(verdict=False) is classify's reading-only mode; verify_checkpoint must still judge the network."""
    from cogo.analysis.classify import Settings
    from cogo.proofs.trained import verify_checkpoint

    _, _, path = f6_noisy
    full = verify_checkpoint(path, certify=False)
    fast = verify_checkpoint(path, settings=Settings(verdict=False), certify=False)
    assert fast.to_dict()["nearest_optimum"]["distance"] == full.to_dict()["nearest_optimum"]["distance"] > 0
    assert fast.verdict == full.verdict


def test_distance_is_the_same_after_permutation_and_sign_flips(f6_noisy, tmp_path):
    d, W, path = f6_noisy
    _, rep = _verify_json(tmp_path, path)
    rng = np.random.default_rng(5)
    perm = rng.permutation(W[0].shape[0])
    sign = np.where(rng.random(W[0].shape[0]) < 0.5, -1, 1).astype(np.float32)
    Wd = [W[0][perm] * sign[perm, None], W[1][perm] * sign[perm, None], W[2][:, perm]]   # exact in float32
    _, rep2 = _verify_json(tmp_path, _save(d / "disguised.npz", Wd))
    a, b = rep["nearest_optimum"]["distance"], rep2["nearest_optimum"]["distance"]
    assert b == pytest.approx(a, rel=1e-6)
    assert sorted(rep["nearest_optimum"]["block_distances"].values()) == pytest.approx(
        sorted(rep2["nearest_optimum"]["block_distances"].values()), rel=1e-6)


def test_distance_is_gauge_invariant_and_shrinks_linearly_with_the_noise():
    from cogo.analysis.classify import read_network

    def dist(W):
        return read_network(*W, group=N).snap.distance

    ds = {e: dist(_noisy(z_F6(N, seed=2), e, seed=3)) for e in (1e-3, 1e-4, 1e-5)}
    for e, v in ds.items():  # noise e per entry: the distance is e times a constant of order 1
        assert 0.3 * e < v < 3 * e, ds
    assert ds[1e-3] / ds[1e-4] == pytest.approx(10, rel=0.1) and ds[1e-4] / ds[1e-5] == pytest.approx(10, rel=0.1)
    W = _noisy(z_F6(N, seed=2), 1e-4, seed=3)
    t = np.exp(np.random.default_rng(1).normal(size=W[0].shape[0]))       # per node (t a, t b, c / t^2)
    Wg = [W[0] * t[:, None], W[1] * t[:, None], W[2] / t[None, :] ** 2]
    assert dist(Wg) == pytest.approx(ds[1e-4], rel=1e-6)


def test_a_far_network_is_not_near_and_names_its_blocks(tmp_path):
    W = _noisy(z_F46(N, seed=1), 0.0)
    W[0][:6] *= 1.2            # one block of z_F4/6 pushed away (its nodes are the first ones)
    rc, rep = _verify_json(tmp_path, _save(tmp_path / "far.npz", W), "--max-distance", "1e-3")
    assert rc == 1 and rep["verdict"] == "not near one"
    assert "blocks farther than 0.001 (--max-distance): k=6 at 0.0" in rep["nearest_optimum"]["blocks_away"][0]
    rc, rep = _verify_json(tmp_path, _save(tmp_path / "rand.npz", [np.random.default_rng(0).normal(size=s)
                                                                    for s in ((40, N), (40, N), (N, 40))]))
    assert rc == 1 and rep["verdict"] == "not near one" and rep["nearest_optimum"]["certified"] is None


def test_z_F46_snaps_with_its_hat(tmp_path):
    W = _noisy(z_F46(N, seed=4), 1e-5, seed=1)
    rc, rep = _verify_json(tmp_path, _save(tmp_path / "f46.npz", W))
    no = rep["nearest_optimum"]
    k0 = f46_design(N, seed=4).params["k0"]               # the construction's own order-6 block carries the hat
    assert rc == 0 and no["certified"] and no["hat_carriers"] == [k0] and 0 < no["distance"] < 1e-4
    assert "z_nu=i * z_xi" in no["name"] and "hat on k=" in no["name"]


@pytest.fixture(scope="module")
def early_bf16(tmp_path_factory):
    import torch

    from cogo.io.weights import save_checkpoint

    r = cogo.train(group=N, seeds=(1,), hidden=128, epochs=100, progress=False)[0]
    path = tmp_path_factory.mktemp("bf16") / "early_bf16.pt"
    save_checkpoint(path, *(w.to(torch.bfloat16) for w in (r.Wa, r.Wb, r.Wc)), meta={"group": str(N)})
    return str(path)


def test_early_bf16_network_is_not_near(early_bf16, tmp_path, capsys):
    rc, rep = _verify_json(tmp_path, early_bf16)
    assert rc == 1 and rep["verdict"] == "not near one" and rep["dtype"] == "bfloat16"
    num = rep["numeric"]
    assert num["loss_tol"] <= 1e-6 * (1 - 1 / N)      # never the bfloat16 1e4 eps^2 = 0.61 above the initial loss
    assert not num["optimal"]


def test_classify_and_verify_agree_on_every_block(early_bf16, f6_noisy, tmp_path):
    for path in (early_bf16, f6_noisy[2]):
        out = tmp_path / "c.json"
        assert main(["classify", path, "--json", str(out), "--force", "--no-progress"]) == 0
        cl = json.loads(out.read_text())["checkpoints"][0]
        _, rep = _verify_json(tmp_path, path)
        assert {str(b["k"]): b["distance"] for b in cl["blocks"]} == rep["nearest_optimum"]["block_distances"]
        assert [b["type"] for b in cl["blocks"]] == [b["type"] for b in rep["blocks"]]
        assert cl["distance"] == rep["nearest_optimum"]["distance"]


def test_python_api_gives_the_cli_json(f6_noisy, tmp_path):
    _, rep = _verify_json(tmp_path, f6_noisy[2])
    v = cogo.verify(checkpoint=f6_noisy[2])
    assert v.to_dict()["nearest_optimum"]["distance"] == rep["nearest_optimum"]["distance"]
    assert json.loads(json.dumps(v.to_dict(), default=str))["verdict"] == rep["verdict"] and v.exit_code == 0
    ck = cogo.load(f6_noisy[2])
    assert cogo.verify(checkpoint=ck).to_dict()["nearest_optimum"] == v.to_dict()["nearest_optimum"]


def test_snap_writes_the_certified_network(f6_noisy, tmp_path, capsys):
    out = tmp_path / "snapped.pt"
    assert main(["verify", "--checkpoint", f6_noisy[2], "--snap", str(out)]) == 0
    w = cogo.load(str(out))
    blocks = w.meta["snapped_blocks"]
    assert len(blocks) == 11 and all("nu" in b["exact"] for b in blocks) and w.meta["certificate"]["certified"]
    rc, rep = _verify_json(tmp_path, out)
    assert rc == 0 and rep["nearest_optimum"]["distance"] < 1e-12     # the snapped network is its own snap
    far = tmp_path / "far.pt"
    rnd = _save(tmp_path / "r.npz", [np.random.default_rng(1).normal(size=s) for s in ((40, N), (40, N), (N, 40))])
    assert main(["verify", "--checkpoint", rnd, "--snap", str(far)]) == 2 and not far.exists()  # nothing written
    assert "--snap" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------- one reading
def _bomb(path, rows=40000, cols=1024):
    """An .npz of three zero arrays of (rows, cols) float64, written in chunks (deflated to well under a MB)."""
    from numpy.lib import format as npf

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, shape in (("Wa", (rows, cols)), ("Wb", (rows, cols)), ("Wc", (cols, rows))):
            with zf.open(f"{name}.npy", "w", force_zip64=True) as fh:
                npf.write_array_header_1_0(fh, {"descr": "<f8", "fortran_order": False, "shape": shape})
                chunk = bytes(8 << 20)
                left = rows * cols * 8
                while left:
                    fh.write(chunk[:min(left, len(chunk))])
                    left -= min(left, len(chunk))
    return str(path)


@pytest.fixture(scope="module")
def bomb(tmp_path_factory):
    return _bomb(tmp_path_factory.mktemp("bomb") / "bomb.npz")


@pytest.mark.parametrize("argv", [["classify"], ["classify", "--activation", "relu"], ["verify", "--checkpoint"],
                                  ["dynamics", "--out", "DIR"]])
def test_the_bomb_is_refused_before_any_array_is_read(bomb, argv, tmp_path, monkeypatch, capsys):
    import cogo.io.file_formats as F

    def no_read(*a, **k):
        raise AssertionError("an array was read")

    monkeypatch.setenv("COGO_MEMORY_LIMIT", "8G")   # the archive (1 GB uncompressed) passes; the work does not
    monkeypatch.setattr(F, "read_raw", no_read)
    monkeypatch.setattr(np, "load", no_read)
    args = [a if a != "DIR" else str(tmp_path / "dyn") for a in argv]
    args = args[:1] + [bomb] + args[1:] if argv[0] != "verify" else args + [bomb]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "q=40000" in err[0] and "1024" in err[0]


def test_each_command_reads_a_checkpoint_once(tmp_path, monkeypatch, capsys):
    import torch

    from cogo.solvers.constructions import to_checkpoint

    pt = tmp_path / "f6.pt"
    to_checkpoint(z_F6(7), str(pt))
    npz = _save(tmp_path / "f6.npz", _noisy(z_F6(7), 1e-6), group="7")
    import cogo.io.file_formats as formats

    calls = {"torch": 0, "numpy": 0, "ptzip": 0}
    t_load, n_load, p_load = torch.load, np.load, formats.read_pt_arrays

    def counting(kind, f):
        def wrapped(*a, **k):
            calls[kind] += 1
            return f(*a, **k)
        return wrapped

    monkeypatch.setattr(torch, "load", counting("torch", t_load))
    monkeypatch.setattr(np, "load", counting("numpy", n_load))
    monkeypatch.setattr(formats, "read_pt_arrays", counting("ptzip", p_load))  # a .pt read without torch
    for argv in (["classify", str(pt), "--no-progress"], ["verify", "--checkpoint", str(pt)],
                 ["classify", npz, "--no-progress"], ["verify", "--checkpoint", npz]):
        calls.update(torch=0, numpy=0, ptzip=0)
        assert main(argv) == 0
        assert sum(calls.values()) == 1, (argv, calls)
    capsys.readouterr()


def test_reading_npz_does_not_import_torch(tmp_path):
    import subprocess

    npz = _save(tmp_path / "f6.npz", _noisy(z_F6(7), 1e-6), group="7")
    code = ("import sys; from cogo.io.checkpoint import read_checkpoint; w = read_checkpoint(sys.argv[1]); "
            "print(w.Wa.shape, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, npz], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "(18, 7) False"


def test_keys_without_shared_embedding_read_two_embeddings(tmp_path, capsys):
    Wa, Wb, Wc = z_F6(7).to_weights(real=True)
    path = tmp_path / "f.npz"
    np.savez(path, emb_a=Wa, emb_b=Wb, unembed=Wc)
    # issue 36: refused with "--shared-embedding: Wb must be the same key as Wa" though that flag was not given
    argv = ["classify", str(path), "--keys", "Wa=emb_a,Wb=emb_b,Wc=unembed", "--no-progress"]
    assert main(argv) == 0            # (18, 7) as stored; transposed, 7 hidden nodes on 18 elements: not taken
    assert "z_nu * z_syn" in capsys.readouterr().out
    assert main(argv + ["--group", "7"]) == 0
    assert "z_nu * z_syn" in capsys.readouterr().out
    transposed = tmp_path / "t.npz"
    np.savez(transposed, emb_a=Wa.T, emb_b=Wb.T, unembed=Wc.T)
    assert main(["classify", str(transposed), "--keys", "Wa=emb_a,Wb=emb_b,Wc=unembed", "--no-progress"]) == 0
    assert "z_nu * z_syn" in capsys.readouterr().out


def test_a_fully_transposed_file_is_not_read_without_a_word(tmp_path, capsys):
    Wa, Wb, Wc = z_F6(N).to_weights(real=True)          # 66 nodes on Z_23
    path = tmp_path / "t.npz"
    np.savez(path, Wa=Wa.T, Wb=Wb.T, Wc=Wc.T)
    assert main(["classify", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "transposed" in err and "66" in err and "--group" in err and "Z_66" not in capsys.readouterr().out
    assert main(["classify", str(path), "--no-progress", "--group", "23", "--keys", "Wa=Wa:T,Wb=Wb:T,Wc=Wc:T"]) == 0
    assert "z_nu * z_syn" in capsys.readouterr().out
