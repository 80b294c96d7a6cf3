"""cogo.io.ptzip: a .pt file read without torch gives torch's arrays, and refuses what weights_only refuses.

The hostile files are written by hand (a zip holding a crafted ``data.pkl``), so these tests need no torch;
the comparisons with ``torch.load(weights_only=True)`` import torch only to write and read the reference.
"""
import json
import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from cogo.io.file_formats import CheckpointError
from cogo.io.ptzip import NeedsTorch, PtFileError, read_pt_arrays, write_pt_bytes
from cogo.io.weights import read_checkpoint

ROOT = Path(__file__).resolve().parents[2]


def _zip(path: Path, pkl: bytes, members: dict | None = None, prefix: str = "archive") -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"{prefix}/data.pkl", pkl)
        z.writestr(f"{prefix}/byteorder", b"little")
        for k, v in (members or {}).items():
            z.writestr(f"{prefix}/data/{k}", v)
    return path


def _g(module: str, name: str) -> bytes:
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def _s(text: str) -> bytes:
    return b"X" + len(text).to_bytes(4, "little") + text.encode()


def _ints(xs) -> bytes:
    return b"(" + b"".join(b"J" + int(x).to_bytes(4, "little", signed=True) for x in xs) + b"t"


def _state_pickle(*tensors) -> bytes:
    """The pickle ``torch.save`` writes for a dict of tensors (protocol 2), written by hand.

    Each tensor: ``(name, storage type, storage key, numel, size, stride, offset)``."""
    items = b""
    for name, storage, key, numel, size, stride, offset in tensors:
        items += (_s(name) + _g("torch._utils", "_rebuild_tensor_v2") + b"((" + _s("storage") + _g("torch", storage)
                  + _s(key) + _s("cpu") + b"J" + numel.to_bytes(4, "little") + b"tQJ" + offset.to_bytes(4, "little")
                  + _ints(size) + _ints(stride) + b"\x89" + _g("collections", "OrderedDict") + b")RtRs")
    return b"\x80\x02}" + items + b"."


def _tensor_pickle(storage: str, numel: int, size: tuple, stride: tuple, offset: int = 0) -> bytes:
    """``{"layera.weight": tensor}``: one tensor on storage ``0``."""
    return _state_pickle(("layera.weight", storage, "0", numel, size, stride, offset))


def test_hand_written_tensor_reads_with_its_strides_and_offset(tmp_path):
    data = np.arange(12, dtype="<f4")
    path = _zip(tmp_path / "t.pt", _tensor_pickle("FloatStorage", 12, (3, 2), (1, 4), offset=2),
                {"0": data.tobytes()})
    got = read_pt_arrays(path, str(path))["layera.weight"]
    # element [i, j] is data[2 + i + 4 j]: rows (2, 6), (3, 7), (4, 8)
    assert got.dtype == np.float32 and got.tolist() == [[2.0, 6.0], [3.0, 7.0], [4.0, 8.0]]
    assert got.flags.writeable and not np.shares_memory(got, data)


@pytest.mark.parametrize("module,name", [("os", "system"), ("builtins", "open"), ("builtins", "eval"),
                                         ("numpy", "load"), ("subprocess", "Popen")])
def test_a_hostile_global_is_refused_in_one_line_without_running_it(tmp_path, module, name):
    marker = tmp_path / "PWNED"
    pkl = b"c" + f"{module}\n{name}\n".encode() + b"(S'" + str(marker).encode() + b"'\ntR."
    path = _zip(tmp_path / "evil.pt", pkl)
    with pytest.raises(CheckpointError) as err:
        read_checkpoint(path)
    msg = str(err.value)
    assert msg.startswith(str(path)) and "refused" in msg and f"{module}.{name}" in msg and "\n" not in msg
    assert not marker.exists()


def test_a_hostile_file_is_refused_without_importing_torch(tmp_path):
    path = _zip(tmp_path / "evil.pt", b"cos\nsystem\n(S'true'\ntR.")
    code = ("import sys\nfrom cogo.io.weights import read_checkpoint\ntry:\n    read_checkpoint(sys.argv[1])\n"
            "except ValueError as e:\n    print('ERR', e)\nprint('TORCH', 'torch' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    assert "refused" in out.stdout and "TORCH False" in out.stdout, out.stdout + out.stderr


def test_a_tensor_outside_its_storage_is_refused(tmp_path):
    # 3 x 2 with strides (1, 4) from offset 5 reaches element 5 + 2 + 4 = 11 of a storage of 10
    path = _zip(tmp_path / "oob.pt", _tensor_pickle("FloatStorage", 10, (3, 2), (1, 4), offset=5),
                {"0": np.zeros(10, dtype="<f4").tobytes()})
    with pytest.raises(CheckpointError, match="reaches beyond its storage of 10 elements"):
        read_checkpoint(path)


def test_an_expanded_view_is_never_copied_here(tmp_path):
    """A 10^6 x 10^6 tensor of strides (0, 0) on one element: left to torch (which keeps it a view), not copied."""
    path = _zip(tmp_path / "big.pt", _tensor_pickle("FloatStorage", 1, (10**6, 10**6), (0, 0)),
                {"0": np.zeros(1, dtype="<f4").tobytes()})
    with pytest.raises(NeedsTorch):
        read_pt_arrays(path, str(path))


def test_many_overlapping_views_are_never_copied_here(tmp_path):
    """Three full views of one storage of 12 elements: 36 elements to copy, more than twice the 12 read: torch's."""
    pkl = _state_pickle(*((f"w{i}", "FloatStorage", "0", 12, (3, 4), (4, 1), 0) for i in range(3)))
    path = _zip(tmp_path / "views.pt", pkl, {"0": np.zeros(12, dtype="<f4").tobytes()})
    with pytest.raises(NeedsTorch):
        read_pt_arrays(path, str(path))
    two = _zip(tmp_path / "halves.pt", _state_pickle(("a", "FloatStorage", "0", 12, (2, 3), (3, 1), 0),
                                                     ("b", "FloatStorage", "0", 12, (2, 3), (3, 1), 6)),
               {"0": np.arange(12, dtype="<f4").tobytes()})
    got = read_pt_arrays(two, str(two))  # two disjoint halves of one storage: read here
    assert got["a"].tolist() == [[0, 1, 2], [3, 4, 5]] and got["b"].tolist() == [[6, 7, 8], [9, 10, 11]]


def test_a_storage_of_the_wrong_size_is_refused(tmp_path):
    # declared 12 float64 elements (96 bytes), the member holds 12 float32 (48 bytes)
    path = _zip(tmp_path / "short.pt", _tensor_pickle("DoubleStorage", 12, (3, 4), (4, 1)),
                {"0": np.zeros(12, dtype="<f4").tobytes()})
    with pytest.raises(CheckpointError, match="holds 48 bytes, not the 12 x 8"):
        read_checkpoint(path)


def test_a_truncated_zip_is_one_line_without_torch(tmp_path):
    good = _zip(tmp_path / "good.pt", _tensor_pickle("FloatStorage", 12, (3, 4), (4, 1)),
                {"0": np.zeros(12, dtype="<f4").tobytes()})
    for cut in (10, 100, len(good.read_bytes()) - 10):
        bad = tmp_path / "bad.pt"
        bad.write_bytes(good.read_bytes()[:cut])
        with pytest.raises(PtFileError, match="truncated or corrupt checkpoint") as err:
            read_pt_arrays(bad, str(bad))
        assert "\n" not in str(err.value)


def test_a_corrupt_member_is_one_line(tmp_path):
    good = _zip(tmp_path / "good.pt", _tensor_pickle("FloatStorage", 12, (3, 4), (4, 1)),
                {"0": np.arange(12, dtype="<f4").tobytes()})
    data = bytearray(good.read_bytes())
    i = data.find(np.arange(12, dtype="<f4").tobytes()[8:16])
    data[i] ^= 0xFF  # the CRC of member data/0 no longer matches
    bad = tmp_path / "bad.pt"
    bad.write_bytes(bytes(data))
    with pytest.raises(PtFileError, match="truncated or corrupt checkpoint"):
        read_pt_arrays(bad, str(bad))


@pytest.mark.parametrize("storage,dtype,message", [("BoolStorage", "?", "unsupported dtype bool"),
                                                   ("ComplexDoubleStorage", "<c16", "is complex")])
def test_weights_of_a_wrong_dtype_are_refused(tmp_path, storage, dtype, message):
    pkl = _state_pickle(("layera.weight", storage, "0", 12, (4, 3), (3, 1), 0),
                        ("layerb.weight", storage, "1", 12, (4, 3), (3, 1), 0),
                        ("layerc.weight", storage, "2", 12, (3, 4), (4, 1), 0))
    members = {str(i): np.zeros(12, dtype=dtype).tobytes() for i in range(3)}
    path = _zip(tmp_path / "w.pt", pkl, members)
    with pytest.raises(CheckpointError, match=message):
        read_checkpoint(path, group=3)


def test_what_only_torch_reads_is_left_to_torch(tmp_path):
    path = _zip(tmp_path / "bf.pt", _tensor_pickle("BFloat16Storage", 12, (3, 4), (4, 1)),
                {"0": np.zeros(12, dtype="<u2").tobytes()})
    with pytest.raises(NeedsTorch):
        read_pt_arrays(path, str(path))
    legacy = tmp_path / "legacy.pt"
    legacy.write_bytes(pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2))
    with pytest.raises(NeedsTorch):
        read_pt_arrays(legacy, str(legacy))


def test_arrays_equal_torch_load_for_every_dtype_and_view(tmp_path):
    """Against torch.load(weights_only=True): dtypes, transposed and sliced views, a shared storage, metadata."""
    torch = pytest.importorskip("torch")
    base = torch.arange(60, dtype=torch.float64).reshape(6, 10) / 7
    obj = {"model": {"a": base.t(), "b": base[1:4, 2:9:3], "c": base.clone(), "i": torch.arange(5, dtype=torch.int32),
                     "h": base.half(), "f": base.float().t()[3:], "u": torch.tensor([1, 255], dtype=torch.uint8),
                     "e": torch.zeros(0, 3)},
           "meta": {"group": "23", "list": [1, 2.5, None, True], "t": torch.tensor([[1, 2], [3, 4]])}}
    path = tmp_path / "x.pt"
    torch.save(obj, path)
    ref = torch.load(path, weights_only=True)
    got = read_pt_arrays(path, str(path))
    for k, t in ref["model"].items():
        assert got["model"][k].dtype == t.numpy().dtype and np.array_equal(got["model"][k], t.numpy()), k
    assert got["meta"]["list"] == [1, 2.5, None, True] and got["meta"]["group"] == "23"
    assert got["meta"]["t"].tolist() == [[1, 2], [3, 4]]


def test_bfloat16_checkpoints_still_read_through_torch(tmp_path):
    torch = pytest.importorskip("torch")
    from cogo.io.weights import save_checkpoint

    W = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], dtype=torch.bfloat16)
    path = tmp_path / "bf.pt"
    save_checkpoint(path, W, W, W.t(), meta={"group": "3"})
    w = read_checkpoint(path)
    assert w.dtype == "bfloat16" and w.Wa[0, 0] == 0.10009765625  # bfloat16(0.1), exactly


def test_classify_and_verify_of_a_pt_do_not_import_torch(tmp_path):
    """The command line reads a plain .pt without torch (the answers are those of torch.load: test above)."""
    pytest.importorskip("torch")
    from cogo.cli import main

    ckpt = tmp_path / "f6.pt"
    assert main(["construct", "z_F6", "--group", "7", "--out", str(ckpt)]) == 0
    code = ("import sys, json, contextlib, io\nfrom cogo.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    rc = main(sys.argv[1:])\n"
            "print(json.dumps({'rc': rc, 'torch': 'torch' in sys.modules}))\n")
    for argv in (["classify", str(ckpt), "--no-progress"], ["verify", "--checkpoint", str(ckpt)]):
        out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT,
                             timeout=300, env={**os.environ, "OMP_NUM_THREADS": "1"})
        assert json.loads(out.stdout.splitlines()[-1]) == {"rc": 0, "torch": False}, out.stdout + out.stderr


# --------------------------------------------------------------------------- the writer (write_pt_bytes)
def test_written_files_read_back_equal_through_torch_and_here(tmp_path):
    """write_pt_bytes writes what torch.save would: torch.load(weights_only=True) and read_pt_arrays both read it."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    obj = {"model": {"a": rng.normal(size=(12, 23)), "b": rng.normal(size=(12, 23)).astype(np.float32),
                     "c": rng.normal(size=(23, 12))[:, ::2], "i": np.arange(5, dtype=np.int32),
                     "z": np.zeros((0, 3)), "x": np.array([1 + 2j, 3j])},
           "meta": {"group": "23", "exact_point": [{"k": 1, "p": ["3/5", "4/5"]}], "d": 1e-3, "n": None,
                    "b": True, "t": (1, 2)}}
    path = tmp_path / "w.pt"
    path.write_bytes(write_pt_bytes(obj))
    ref = torch.load(path, weights_only=True)
    got = read_pt_arrays(path, str(path))
    for k, a in obj["model"].items():
        assert ref["model"][k].numpy().dtype == a.dtype and np.array_equal(ref["model"][k].numpy(), a), k
        assert got["model"][k].dtype == a.dtype and np.array_equal(got["model"][k], a), k
    assert ref["meta"] == obj["meta"] and got["meta"] == obj["meta"]


@pytest.mark.parametrize("bad", [{"f": lambda: 0}, {"s": {1, 2}}, {"o": object()}, {"u": np.array(["a"])},
                                 {"n": np.float64(1.0)}])
def test_the_writer_refuses_what_it_cannot_write_plainly(bad):
    with pytest.raises(TypeError):
        write_pt_bytes({"meta": bad})


def test_numpy_checkpoints_are_written_and_read_without_torch(tmp_path):
    """save_checkpoint of numpy weights (the files cogo verify's controls write) never imports torch."""
    code = ("import sys, json, numpy as np\nfrom cogo.io.weights import save_checkpoint, read_checkpoint\n"
            "W = np.arange(15.0).reshape(5, 3)\n"
            f"save_checkpoint({str(tmp_path / 'n.pt')!r}, W, W, W.T, meta={{'group': '3', 'x': [1, '2/3']}})\n"
            f"w = read_checkpoint({str(tmp_path / 'n.pt')!r})\n"
            "print(json.dumps({'ok': bool((w.Wc == W.T).all()), 'meta': w.meta.get('x'), 'torch': 'torch' in sys.modules}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert json.loads(out.stdout.splitlines()[-1]) == {"ok": True, "meta": [1, "2/3"], "torch": False}, out.stderr


def test_a_zero_dimensional_array_keeps_its_shape(tmp_path):
    """A 0-d array (a scalar tensor in a meta) is written 0-d: numpy's ascontiguousarray would make it 1-d."""
    path = tmp_path / "s.pt"
    path.write_bytes(write_pt_bytes({"meta": {"s": np.array(2.5)}}))
    got = read_pt_arrays(path, str(path))["meta"]["s"]
    assert got.shape == () and float(got) == 2.5
