"""Fuzz (issue 16): hypothesis-generated checkpoints fed to ``cogo classify`` and ``cogo verify --checkpoint``.

Random shapes, dtypes, keys, metadata and values (1e300, 1e200, NaN, inf, zeros, normal weights), in
.pt and .npz files, and .npz files whose .npy headers declare huge shapes.  Each run must either
succeed (exit 0) or exit 2 with exactly one line ``cogo: error: ...``: never a traceback, never more
memory than a bound.  In the suite: ``COGO_FUZZ_EXAMPLES`` examples (default 25, a few seconds);
a longer run: ``COGO_FUZZ_EXAMPLES=2000 python -m pytest tests/test_fuzz.py``.
"""
import io
import os
import resource
import zipfile

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogo.cli import main

EXAMPLES = int(os.environ.get("COGO_FUZZ_EXAMPLES", "25"))
#: Peak resident memory may grow by at most this much over the whole fuzz run.
MEMORY_BOUND = 512 * 2**20
#: What the commands believe is available (cogo.runtime.limits), so a refusal comes long before the bound.
LIMIT = "256M"

DTYPES = ["float32", "float64", "float16", "int32", "int64", "uint8", "bool", "complex64"]
VALUES = ["normal", "zeros", "1e300", "1e200", "1e30", "nan", "inf", "mixed"]
KEYS = ("layera.weight", "layerb.weight", "layerc.weight")


#: the commands that read an untrusted checkpoint (each fuzzed with every file)
COMMANDS = [["classify", "--no-progress"], ["verify", "--checkpoint"]]


def _values(kind: str, shape, dtype: str, rng: np.random.Generator) -> np.ndarray:
    x = rng.standard_normal(shape)
    if kind == "zeros":
        x = np.zeros(shape)
    elif kind in ("1e300", "1e200", "1e30"):
        x = x * float(kind)
    elif kind in ("nan", "inf"):
        x = x.copy()
        if x.size:
            x.flat[rng.integers(x.size)] = np.nan if kind == "nan" else np.inf
    elif kind == "mixed" and x.size:
        x.flat[:: max(1, x.size // 3)] = 1e300
    with np.errstate(all="ignore"):
        return x.astype(dtype)


@st.composite
def checkpoints(draw):
    n = draw(st.integers(0, 12))
    q = draw(st.integers(0, 24))
    consistent = draw(st.booleans())
    shapes = [(q, n), (q, n), (n, q)]
    if not consistent:
        shapes = [tuple(draw(st.lists(st.integers(0, 16), min_size=0, max_size=3))) for _ in range(3)]
    dtype = draw(st.sampled_from(DTYPES))
    kind = draw(st.sampled_from(VALUES))
    keys = list(KEYS)
    if draw(st.integers(0, 5)) == 0:  # a missing or renamed key
        keys[draw(st.integers(0, 2))] = draw(st.sampled_from(["", "layerd.weight", "Wa", "model"]))
    fmt = draw(st.sampled_from(["pt", "pt-bare", "npz", "npz-liar"]))
    group = draw(st.sampled_from([None, "7", "3x3", "abc", 0, 10**9, -5, [2, 2], "S3"]))
    seed = draw(st.integers(0, 2**31 - 1))
    huge = draw(st.sampled_from([(10**6, 10**6), (2**40, 1), (10**9, 10**9, 10**9)]))
    return dict(shapes=shapes, dtype=dtype, kind=kind, keys=keys, fmt=fmt, group=group, seed=seed, huge=huge)


def _npy(shape, data: bytes, descr="<f8") -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False, "shape": shape})
    return buf.getvalue() + data


def _write(spec: dict, path) -> None:
    rng = np.random.default_rng(spec["seed"])
    arrays = [_values(spec["kind"], s, spec["dtype"], rng) for s in spec["shapes"]]
    if spec["fmt"].startswith("npz"):
        names = ["Wa", "Wb", "Wc"]
        if spec["keys"] != list(KEYS):
            names[spec["keys"].index(next(k for k in spec["keys"] if k not in KEYS))] = "Wx"
        if spec["fmt"] == "npz-liar":  # headers declare huge arrays; a few bytes of data
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
                for nm in names:
                    zf.writestr(f"{nm}.npy", _npy(spec["huge"], b"\0" * 64))
            return
        extra = {} if spec["group"] is None else {"group": np.asarray(str(spec["group"]))}
        np.savez(path, **dict(zip(names, arrays)), **extra)
        return
    tensors = {k: torch.from_numpy(np.ascontiguousarray(a)) for k, a in zip(spec["keys"], arrays)}
    obj = tensors if spec["fmt"] == "pt-bare" else {"model": tensors, "meta": {"group": spec["group"]}}
    torch.save(obj, path)


_peak = {"start": None}


@pytest.fixture(autouse=True)
def _memory_limit(monkeypatch):
    monkeypatch.setenv("COGO_MEMORY_LIMIT", LIMIT)
    if _peak["start"] is None:
        _peak["start"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@pytest.mark.parametrize("command", COMMANDS, ids=[c[0] for c in COMMANDS])
@settings(max_examples=EXAMPLES, deadline=None, derandomize=bool(os.environ.get("CI")),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(spec=checkpoints())
def test_hostile_checkpoints_succeed_or_fail_in_one_line(tmp_path, capsys, command, spec):
    path = tmp_path / ("ck.npz" if spec["fmt"].startswith("npz") else "ck.pt")
    _write(spec, path)
    rc = main([*command, str(path)])
    cap = capsys.readouterr()
    err = cap.err.strip().splitlines()
    assert rc in (0, 1, 2), (rc, spec)
    if rc == 2:
        assert len(err) == 1 and err[0].startswith("cogo: error:"), (err, spec)
    else:
        assert cap.out.strip(), spec  # a result, printed
        assert not any(line.startswith("Traceback") for line in err), (err, spec)
    if rc == 0 and command[0] == "classify":
        # only real, finite weights small enough for float64 arithmetic may be read
        from cogo.io.file_formats import max_weight_magnitude

        assert spec["dtype"] not in ("complex64", "bool") and spec["fmt"] != "npz-liar", spec
        rng = np.random.default_rng(spec["seed"])
        arrays = [_values(spec["kind"], s, spec["dtype"], rng).astype(np.float64) for s in spec["shapes"]]
        q, n = arrays[0].shape
        assert all(np.isfinite(a).all() for a in arrays), spec
        assert max(np.abs(a).max(initial=0) for a in arrays) <= max_weight_magnitude(q, n), spec
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - _peak["start"]
    assert grown < MEMORY_BOUND, (grown, spec)
