"""Snapshot files (cogo.io.snapshots): equal weights give equal bytes."""
import json

import numpy as np
import pytest

from cogo.io.snapshots import SnapshotWriter, read_snapshot_file, sorted_header

safetensors_numpy = pytest.importorskip("safetensors.numpy")


def _weights(seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(4, 5)), rng.normal(size=(4, 5)), rng.normal(size=(5, 4))


def test_equal_weights_give_equal_snapshot_files(tmp_path):
    # safetensors orders its header from a hash map; two writers of the same run must still agree byte for byte
    files = []
    for run in ("a", "b"):
        w = SnapshotWriter(tmp_path / run, "5", 5, 4, "float64")
        files.append([w.write(epoch, *_weights(epoch)) for epoch in range(12)])
    for fa, fb in zip(*files):
        assert fa.read_bytes() == fb.read_bytes()


def test_sorted_header_keeps_the_file_readable_and_sorts_its_keys():
    arrays = {"layerb.weight": np.arange(6.0).reshape(2, 3), "layera.weight": -np.arange(4.0)}
    meta = {"format": "x", "epoch": "7"}
    blob = sorted_header(safetensors_numpy.save(arrays, metadata=meta))
    n = int.from_bytes(blob[:8], "little")
    head = json.loads(blob[8:8 + n])
    assert list(head) == sorted(head) and list(head["__metadata__"]) == ["epoch", "format"]
    back = safetensors_numpy.load(blob)
    assert set(back) == set(arrays) and all(np.array_equal(back[k], v) for k, v in arrays.items())


def test_snapshots_written_with_sorted_headers_read_back(tmp_path):
    # through cogo's own reader of an untrusted snapshot file (keys, shapes, dtype, finiteness checked)
    w = SnapshotWriter(tmp_path / "run.snapshots", "5", 5, 4, "float64")
    for epoch in (0, 10):
        path = w.write(epoch, *_weights(epoch))
        back = read_snapshot_file(path, 5, 4)
        assert all(np.array_equal(x, y) for x, y in zip(back, _weights(epoch)))
