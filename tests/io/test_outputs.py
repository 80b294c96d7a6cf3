"""Issue 16: nothing lost, nothing crashes.

Output policy (cogo.io.outputs), resource limits (cogo.runtime.limits), bounded checkpoint reading
(cogo.io.weights), honest failures of classify and train.  Every user error must be one line
``cogo: error: ...`` with exit status 2, before any output is written.
"""
import io
import os
import zipfile

import numpy as np
import pytest
import torch

from cogo.io.file_formats import CheckpointError
from cogo.io.weights import read_checkpoint, save_checkpoint
from cogo.cli import main

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _run(capsys, *args):
    rc = main([str(a) for a in args])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err.strip().splitlines()


def _one_line_error(rc, err, needle=None):
    assert rc == 2, (rc, err)
    assert len(err) == 1 and err[0].startswith("cogo: error:"), err
    if needle is not None:
        assert needle.lower() in err[0].lower(), err


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    """A z_F6 construction on Z_7 (18 nodes): a valid checkpoint."""
    d = tmp_path_factory.mktemp("ck")
    path = d / "in.pt"
    assert main(["construct", "z_F6", "--group", "7", "--out", str(path)]) == 0
    return path


# ------------------------------------------------------------------ data loss
@pytest.mark.parametrize("flag", ["--json", "--markdown"])
def test_classify_never_overwrites_its_input(ckpt, tmp_path, capsys, flag):
    src = tmp_path / "in.pt"
    src.write_bytes(ckpt.read_bytes())
    before = src.read_bytes()
    rc, out, err = _run(capsys, "classify", src, flag, src, "--no-progress")
    _one_line_error(rc, err, "input")
    assert src.read_bytes() == before
    # the same file under another spelling, and through a symbolic link
    link = tmp_path / "link.json"
    link.symlink_to(src)
    for target in (tmp_path / "." / "in.pt", link):
        rc, out, err = _run(capsys, "classify", src, flag, target, "--no-progress", "--force")
        _one_line_error(rc, err, "input")
        assert src.read_bytes() == before


@pytest.mark.parametrize("cmd", [["classify", "CKPT", "--no-progress", "--json"], ["construct", "z_F6", "--group", "7",
                                                                                 "--out"]])
def test_special_outputs_are_refused(ckpt, tmp_path, capsys, cmd):
    args = [str(ckpt) if a == "CKPT" else a for a in cmd]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    rc, _, err = _run(capsys, *args, fifo)
    _one_line_error(rc, err, "FIFO")
    assert fifo.is_fifo()
    rc, _, err = _run(capsys, *args, "/dev/null")
    _one_line_error(rc, err, "device")
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    link = tmp_path / "out.link"
    link.symlink_to(target)
    rc, _, err = _run(capsys, *args, link)
    _one_line_error(rc, err, "symbolic link")
    assert link.is_symlink() and target.read_text() == "keep me"
    rc, _, err = _run(capsys, *args, tmp_path)
    _one_line_error(rc, err, "directory")
    # --force: the link itself is replaced by a regular file, its target is never written through
    rc, _, err = _run(capsys, *args, link, "--force")
    assert rc == 0, err
    assert not link.is_symlink() and link.is_file() and target.read_text() == "keep me"


def test_read_only_folder_is_one_line_before_the_work(tmp_path, capsys, monkeypatch):
    import tempfile

    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    if IS_ROOT:  # root writes into read-only folders: make file creation there fail as it would for a user
        real = tempfile.mkstemp

        def mkstemp(*a, dir=None, **k):
            if dir is not None and os.path.abspath(dir) == str(ro):
                raise PermissionError(13, "Permission denied")
            return real(*a, dir=dir, **k)

        monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    try:
        rc, out, err = _run(capsys, "construct", "z_F6", "--group", "7", "--out", ro / "x.pt")
        _one_line_error(rc, err, "not writable")
        rc, out, err = _run(capsys, "verify", "--group", "5", "--numeric", "--json", ro / "v.json", "--no-progress")
        _one_line_error(rc, err, "not writable")
        assert "cogo verify:" not in out  # refused before any check ran
        assert list(ro.iterdir()) == []
    finally:
        ro.chmod(0o755)


def test_train_refuses_to_overwrite_a_checkpoint(tmp_path, capsys):
    args = ["train", "--group", "5", "--hidden", "8", "--epochs", "3", "--seeds", "1-2", "--threads", "1",
            "--no-progress", "--out", tmp_path]
    rc, _, err = _run(capsys, *args)
    assert rc == 0, err
    ck = sorted(tmp_path.glob("*.pt"))
    assert len(ck) == 2
    before = {p: p.read_bytes() for p in ck}
    summary = (tmp_path / "summary.json").read_text()
    rc, _, err = _run(capsys, *args[:-3], "--seeds", "2-3", "--no-progress", "--out", tmp_path)
    _one_line_error(rc, err, "--force")
    assert {p: p.read_bytes() for p in ck} == before
    assert (tmp_path / "summary.json").read_text() == summary
    assert not (tmp_path / "d5_q8_wd5e-05_seed3.pt").exists()
    rc, _, err = _run(capsys, *args, "--force")
    assert rc == 0, err


@pytest.mark.parametrize("bad,needle", [(["--epochs", "0"], "epochs"), (["--seeds", "5-1"], "seed")])
def test_train_bad_values_one_line(tmp_path, capsys, bad, needle):
    rc, _, err = _run(capsys, "train", "--group", "5", "--hidden", "8", "--out", tmp_path / "o", *bad)
    _one_line_error(rc, err, needle)
    assert not (tmp_path / "o").exists()


# ------------------------------------------------------------------ resource limits
def test_construct_mem_refused_with_estimate(tmp_path, capsys):
    rc, _, err = _run(capsys, "construct", "z_M", "--group", "4096", "--out", tmp_path / "m.pt")
    _one_line_error(rc, err, "memory")
    assert "TiB" in err[0] and not (tmp_path / "m.pt").exists()


def test_verify_numeric_refused_with_estimate(tmp_path, capsys):
    rc, out, err = _run(capsys, "verify", "--group", "4096", "--numeric", "--no-progress")
    _one_line_error(rc, err, "memory")
    assert "TiB" in err[0]


def test_memory_limit_env(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("COGO_MEMORY_LIMIT", "1M")
    rc, _, err = _run(capsys, "construct", "z_M", "--group", "64", "--out", tmp_path / "m.pt")
    _one_line_error(rc, err, "1.0 MiB are available")
    monkeypatch.setenv("COGO_MEMORY_LIMIT", "lots")
    rc, _, err = _run(capsys, "construct", "z_M", "--group", "8", "--out", tmp_path / "m.pt")
    _one_line_error(rc, err, "COGO_MEMORY_LIMIT")


def _zeros(n, q, dtype=np.float64):
    return np.zeros((q, n), dtype), np.zeros((q, n), dtype), np.zeros((n, q), dtype)


def test_compressed_npz_bounded_by_uncompressed_size(tmp_path, monkeypatch):
    path = tmp_path / "bomb.npz"
    Wa, Wb, Wc = _zeros(1024, 4000)  # 98 MB of zeros, about 100 kB compressed
    np.savez_compressed(path, Wa=Wa, Wb=Wb, Wc=Wc)
    assert path.stat().st_size < 1_000_000
    monkeypatch.setenv("COGO_MEMORY_LIMIT", "64M")
    with pytest.raises(CheckpointError, match="uncompress"):
        read_checkpoint(path)


def test_deflated_pt_bounded_by_uncompressed_size(tmp_path, monkeypatch):
    plain = tmp_path / "plain.pt"
    save_checkpoint(plain, *_zeros(1024, 4000, np.float32))
    bomb = tmp_path / "bomb.pt"
    with zipfile.ZipFile(plain) as zi, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zo:
        for info in zi.infolist():
            zo.writestr(info.filename, zi.read(info.filename))
    assert bomb.stat().st_size < 1_000_000
    monkeypatch.setenv("COGO_MEMORY_LIMIT", "64M")
    with pytest.raises(CheckpointError, match="uncompress"):
        read_checkpoint(bomb)


def _npy_bytes(shape, data: bytes, dtype="<f8") -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buf.getvalue() + data


def test_npz_with_huge_declared_shape_is_refused_before_reading(tmp_path):
    path = tmp_path / "liar.npz"
    huge = (10**6, 10**6)
    with zipfile.ZipFile(path, "w") as zf:
        for k, shape in (("Wa", huge), ("Wb", huge), ("Wc", huge[::-1])):
            zf.writestr(f"{k}.npy", _npy_bytes(shape, b"\0" * 64))
    with pytest.raises(CheckpointError, match="declares shape"):
        read_checkpoint(path)


def test_classify_refuses_work_that_cannot_fit(tmp_path, monkeypatch, capsys):
    path = tmp_path / "wide.npz"
    Wa, Wb, Wc = _zeros(64, 2000)
    np.savez(path, Wa=Wa, Wb=Wb, Wc=Wc)  # 3 MB; its analysis needs about 25 MB
    monkeypatch.setenv("COGO_MEMORY_LIMIT", "16M")
    rc, _, err = _run(capsys, "classify", path, "--no-progress")
    _one_line_error(rc, err, "memory")


@pytest.mark.parametrize("scale", [1e200, 1e300])
def test_overflowing_finite_weights_are_an_error(ckpt, tmp_path, capsys, scale):
    w = read_checkpoint(ckpt)
    path = tmp_path / "big.npz"
    np.savez(path, Wa=w.Wa * scale, Wb=w.Wb * scale, Wc=w.Wc * scale)
    rc, out, err = _run(capsys, "classify", path, "--no-progress")
    _one_line_error(rc, err, "overflow")
    assert "live" not in out


def test_large_finite_weights_print_short_numbers(ckpt, tmp_path, capsys):
    w = read_checkpoint(ckpt)
    path = tmp_path / "big.npz"
    np.savez(path, Wa=w.Wa * 1e30, Wb=w.Wb * 1e30, Wc=w.Wc * 1e30)
    rc, out, err = _run(capsys, "classify", path, "--no-progress")
    assert rc == 0, err
    import re

    longest = max(len(d) for d in re.findall(r"\d+", out))
    assert longest < 20, longest  # 1e30 weights once printed a 91-digit r_kkk


# ------------------------------------------------------------------ duplicated and mixed inputs
def test_same_checkpoint_twice_is_refused(ckpt, tmp_path, capsys):
    hard = tmp_path / "hard.pt"
    os.link(ckpt, hard)
    for other in (ckpt, ckpt.parent / "." / ckpt.name, hard):
        rc, _, err = _run(capsys, "classify", ckpt, other, "--no-progress")
        _one_line_error(rc, err, "twice")


def test_checkpoints_of_different_groups_are_not_averaged(ckpt, tmp_path, capsys):
    other = tmp_path / "z11.pt"
    assert main(["construct", "z_F6", "--group", "11", "--out", str(other)]) == 0
    capsys.readouterr()
    rc, out, err = _run(capsys, "classify", ckpt, other, "--no-progress", "--json", tmp_path / "r.json")
    _one_line_error(rc, err, "different groups")
    assert "Z_7" in err[0] and "Z_11" in err[0]
    assert not (tmp_path / "r.json").exists()


# ------------------------------------------------------------------ figure
def test_training_curves_are_readable(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    from cogo.solvers.training import train
    from cogo.solvers.training_config import TrainConfig
    from cogo.solvers.training_results import plot_history

    cfg = TrainConfig(group="5", hidden=8, epochs=20, log_every=2)
    results = train(cfg, [1, 2, 3], weight_decays=[1e-4, 1e-3], progress=False)
    seen = []
    orig = Figure.savefig

    def spy(self, *a, **k):
        seen.append(self)
        return orig(self, *a, **k)

    monkeypatch.setattr(Figure, "savefig", spy)
    path = plot_history(results, tmp_path / "c.png")
    assert os.path.getsize(path) > 1000
    (fig,) = seen
    axes = fig.get_axes()
    assert [ax.get_xscale() for ax in axes] == ["log", "log"]
    acc = axes[1]
    assert acc.get_title() and acc.get_xlabel() and acc.get_ylabel()
    labels = [t.get_text() for t in acc.get_legend().get_texts()]
    assert len(labels) == 2 and all("3 seed" in t for t in labels)  # one entry per seed group
    assert len(acc.collections) == 4  # a band per seed group for train and test


def test_file_identities_share_a_key_exactly_when_same_file_says_so(tmp_path):
    """The duplicate check of a sweep keys each path once (linear in the paths); it must agree with same_file."""
    import os

    from cogo.io.outputs import file_identities, same_file

    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    a.write_text("x")
    b.write_text("x")
    os.link(a, tmp_path / "hard.npz")
    os.symlink(a, tmp_path / "soft.npz")
    names = [a, b, tmp_path / "." / "a.npz", tmp_path / "hard.npz", tmp_path / "soft.npz",
             tmp_path / "missing.npz", tmp_path / "sub" / ".." / "missing.npz"]
    for p in names:
        for r in names:
            shared = bool(set(file_identities(p)) & set(file_identities(r)))
            assert shared == same_file(p, r), (p, r)
    assert not set(file_identities(a)) & set(file_identities(b))
