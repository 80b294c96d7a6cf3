"""The thread policy (cogo.runtime.threads) and thread-count independence of training (issue #15)."""
from __future__ import annotations

import os

import pytest
import torch

from cogo.runtime import threads as T
from cogo.solvers import training
from cogo.solvers.training import train
from cogo.solvers.training_config import TrainConfig

TINY = 1.1754944e-38  # smallest normal float32


# ---------------------------------------------------------------- cores: affinity and cgroup quota
def _fake_tree(tmp_path, cgroup_lines: str, files: dict[str, str]):
    proc = tmp_path / "proc"
    (proc / "self").mkdir(parents=True)
    (proc / "self" / "cgroup").write_text(cgroup_lines)
    root = tmp_path / "cg"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    root.mkdir(exist_ok=True)
    return proc, root


def test_cgroup_v2_quota_smallest_along_path(tmp_path):
    proc, root = _fake_tree(tmp_path, "0::/a/b\n", {"cpu.max": "max 100000\n", "a/cpu.max": "150000 100000\n",
                                                    "a/b/cpu.max": "300000 100000\n"})
    assert T.cgroup_cpu_quota(proc, root) == pytest.approx(1.5)
    assert T.available_cores(proc, root) == 1


def test_cgroup_v2_unlimited(tmp_path):
    proc, root = _fake_tree(tmp_path, "0::/a\n", {"a/cpu.max": "max 100000\n"})
    assert T.cgroup_cpu_quota(proc, root) is None
    assert T.available_cores(proc, root) == len(os.sched_getaffinity(0))


def test_cgroup_v1_quota(tmp_path):
    proc, root = _fake_tree(tmp_path, "4:memory:/x\n1:cpu,cpuacct:/job\n",
                            {"cpu,cpuacct/job/cpu.cfs_quota_us": "250000\n", "cpu,cpuacct/job/cpu.cfs_period_us": "100000\n"})
    assert T.cgroup_cpu_quota(proc, root) == pytest.approx(2.5)
    proc2, root2 = _fake_tree(tmp_path / "u", "1:cpu,cpuacct:/\n",
                              {"cpu,cpuacct/cpu.cfs_quota_us": "-1\n", "cpu,cpuacct/cpu.cfs_period_us": "100000\n"})
    assert T.cgroup_cpu_quota(proc2, root2) is None


def test_quota_below_one_core_still_gives_one(tmp_path):
    proc, root = _fake_tree(tmp_path, "0::/\n", {"cpu.max": "20000 100000\n"})
    assert T.cgroup_cpu_quota(proc, root) == pytest.approx(0.2)
    assert T.available_cores(proc, root) == 1


def test_background_load_reads_average_and_runnable(tmp_path):
    (tmp_path / "loadavg").write_text("0.10 0.20 0.30 3/100 12345\n")
    assert T.background_load(samples=2, interval=0.0, proc_root=tmp_path) == pytest.approx(2.0)  # 3 runnable - self
    (tmp_path / "loadavg").write_text("2.50 0.20 0.30 1/100 12345\n")
    assert T.background_load(samples=1, proc_root=tmp_path) == pytest.approx(2.5)


# ---------------------------------------------------------------- the rule
BIG = T.PARALLEL_MIN_ELEMENTS


@pytest.mark.parametrize("kind,elements,cores,load,want", [
    ("classify", 10 * BIG, 8, 0.0, 1),       # BLAS on small matrices: never more than one
    ("train", BIG - 1, 8, 0.0, 1),           # too small to pay for a barrier
    ("train", BIG, 2, 0.0, 2),               # large and 2 idle cores
    ("train", BIG, 2, 0.9, 1),               # one core busy elsewhere: the collapse case
    ("train", BIG, 2, 2.0, 1),
    ("train", BIG, 8, 0.0, T.MAX_THREADS),   # capped
    ("train", BIG, 8, 5.0, 3),
    ("train", BIG, 1, 0.0, 1),
])
def test_choose_threads(kind, elements, cores, load, want):
    assert T.choose_threads(kind, elements, cores=cores, load=load) == want


def test_choose_threads_rejects_unknown_kind():
    with pytest.raises(ValueError):
        T.choose_threads("render", 1)


def test_training_elements():
    assert T.training_elements(23, 512, 5) == 5 * 529 * 512
    assert T.training_elements(23, 512, 5, rows=476) == 5 * 476 * 512


def test_thread_limit_sets_and_restores():
    before = torch.get_num_threads()
    with T.thread_limit(1) as t:
        assert t == 1 and torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(ValueError):
        with T.thread_limit(0):
            pass


# ---------------------------------------------------------------- determinism
def _can_flush_pool() -> bool:
    return T._libgomp() is not None and _flush_supported()


def _flush_supported() -> bool:
    ok = torch.set_flush_denormal(True)
    torch.set_flush_denormal(False)
    return ok


needs_flush = pytest.mark.skipif(not _can_flush_pool(), reason="CPU cannot flush denormals or torch is not on GNU OpenMP")


def _parallel_denormals_survive() -> int:
    """Nonzero elements of (denormals * 1) computed with 2 threads (the pool exists already)."""
    # the bit pattern of 1e-39 (a float32 denormal): filling floats would flush it on this thread already
    x = torch.full((200_000,), 0x000AE398, dtype=torch.int32).view(torch.float32)
    return int(((x * 1.0) != 0).sum())


@needs_flush
def test_flush_reaches_every_pool_thread():
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        (torch.ones(200_000) * 2).sum()          # make sure the pool threads exist
        T.set_flush_denormal_all(False, 2)
        # control: torch's own call flags only this thread, the worker's half keeps its denormals
        torch.set_flush_denormal(True)
        assert _parallel_denormals_survive() > 0
        assert T.set_flush_denormal_all(True, 2) is True
        assert _parallel_denormals_survive() == 0
        assert T.set_flush_denormal_all(False, 2) is True
        assert _parallel_denormals_survive() == 200_000
    finally:
        T.set_flush_denormal_all(False, 2)
        torch.set_num_threads(before)


@needs_flush
def test_training_weights_bit_identical_for_1_and_2_threads():
    """SGD with decay factor 1 - lr wd = 0.1 per step drives every weight into the denormal range by epoch 40.

    Before the fix (flag on the main thread only), the 2-thread run kept the worker
    thread's half of the weights as denormals (30713 of 61440) while the 1-thread
    run flushed them all to zero: different weights for a different thread count.
    """
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        (torch.ones(200_000) * 2).sum()          # a pool created before training, as in any longer session
        T.set_flush_denormal_all(False, 2)
        cfg = TrainConfig(group="5", hidden=1024, epochs=40, optimizer="sgd", lr=0.1, weight_decay=9.0,
                          log_every=50)
        runs = {t: train(cfg, [1, 2, 3, 4], progress=False, threads=t) for t in (1, 2)}
        for r1, r2 in zip(runs[1], runs[2]):
            for a, b in ((r1.Wa, r2.Wa), (r1.Wb, r2.Wb), (r1.Wc, r2.Wc)):
                assert torch.equal(a, b)
                assert not bool(((a != 0) & (a.abs() < TINY)).any())
        assert [r.meta()["threads"] for r in runs[2]] == [2] * 4
        assert runs[1][0].meta()["threads"] == 1
        assert runs[1][0].meta()["denormals"] == "flushed on every thread"
    finally:
        torch.set_num_threads(before)


def test_training_default_threads_follow_policy(monkeypatch):
    seen = []
    real = T.choose_threads

    def spy(kind, elements=0, cores=None, load=None):
        seen.append((kind, elements))
        return real(kind, elements, cores=2, load=2.0)   # a loaded machine: 1 thread

    monkeypatch.setattr(training, "choose_threads", spy)   # the name train() calls
    cfg = TrainConfig(group="5", hidden=8, epochs=2, log_every=1)
    r = train(cfg, [1, 2], progress=False)
    assert seen == [("train", 2 * 25 * 8)]
    assert r[0].threads == 1 and r[0].meta()["threads"] == 1
