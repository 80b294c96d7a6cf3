"""Memory guards in the Python API: z_M (SPEC 7.4) refuses a group too large *before* allocating.

``COGO_MEMORY_LIMIT`` stands for the available memory, so these tests refuse modest sizes and
allocate nothing big.  z_M takes about 200 n^3 bytes (docs/safety.md, cogo.runtime.limits).
"""
import tracemalloc

import pytest

from cogo.cli import main
from cogo.runtime.errors import CogoError
from cogo.solvers.constructions import construct, z_M


def _refusal(fn, *args, **kw) -> tuple[str, int]:
    """The CogoError message of ``fn(*args, **kw)`` and the peak bytes traced while it ran."""
    tracemalloc.start()
    try:
        with pytest.raises(CogoError) as info:
            fn(*args, **kw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return str(info.value), peak


@pytest.mark.parametrize("exact", [False, True])
def test_z_M_refused_before_allocating(monkeypatch, exact):
    monkeypatch.setenv("COGO_MEMORY_LIMIT", "1M")
    msg, peak = _refusal(z_M, 64, exact=exact)  # 200 * 64^3 bytes = 50 MiB > 1 MiB
    assert "\n" not in msg
    assert "z_M on a group of order 64 (4096 nodes)" in msg and "50.0 MiB" in msg
    assert "only 1.0 MiB are available" in msg and msg.endswith("choose a smaller size")
    assert msg.startswith("exact z_M") == exact
    assert peak < 4 * 2**20  # the 3 x 64 x 4096 complex coordinates (12 MiB) were never allocated


def test_construct_mem_refused(monkeypatch):
    monkeypatch.setenv("COGO_MEMORY_LIMIT", "1M")
    msg, peak = _refusal(construct, "z_M", 64)
    assert "z_M on a group of order 64" in msg and peak < 4 * 2**20
    with pytest.raises(ValueError):  # CogoError is a ValueError: callers catching ValueError keep working
        construct("z_M", "8x8", exact=True)


def test_threshold_is_the_estimate(monkeypatch):
    """200 n^3 bytes at n = 10 is 200000: one byte less is refused, exactly that much is built."""
    monkeypatch.setenv("COGO_MEMORY_LIMIT", "199999")
    with pytest.raises(CogoError, match="order 10"):
        z_M(10)
    monkeypatch.setenv("COGO_MEMORY_LIMIT", "200000")
    assert z_M(10).q == 100


def test_small_groups_still_built_under_a_small_limit(monkeypatch):
    monkeypatch.setenv("COGO_MEMORY_LIMIT", "1M")
    assert z_M(7).q == 49 and z_M(4, exact=True).q == 16
    net, meta = construct("z_M", 5)
    assert net.q == 25 and meta["name"] == "z_M"
    # the catalogue constructions have O(n) nodes: no guard in the Python API
    assert construct("z_F6", 31)[0].q == 6 * 15


def test_order_4096_refused_at_once_without_override(monkeypatch):
    """The issue: z_M on a group of order 4096 used to end in a MemoryError after a long time."""
    monkeypatch.delenv("COGO_MEMORY_LIMIT", raising=False)
    msg, peak = _refusal(z_M, 4096)
    assert "TiB of memory" in msg and peak < 4 * 2**20


def test_cli_message_unchanged(monkeypatch, tmp_path, capsys):
    """The CLI checks first, with its own message (its time includes the real-space loss): one line, no file."""
    monkeypatch.setenv("COGO_MEMORY_LIMIT", "1M")
    rc = main(["construct", "z_M", "--group", "64", "--out", str(tmp_path / "m.pt")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err == ["cogo: error: z_M on a group of order 64 (4096 nodes) needs about 50.0 MiB of memory "
                               "(and 2 s) but only 1.0 MiB are available; choose a smaller size"]
    assert not (tmp_path / "m.pt").exists()
    msg, _ = _refusal(z_M, 64)  # the Python API builds only the network: no loss, no time quoted
    assert msg == err[0].removeprefix("cogo: error: ").replace(" (and 2 s)", "")


def test_bad_override_is_one_line(monkeypatch):
    monkeypatch.setenv("COGO_MEMORY_LIMIT", "lots")
    with pytest.raises(CogoError, match="COGO_MEMORY_LIMIT='lots' is not a size"):
        z_M(3)
