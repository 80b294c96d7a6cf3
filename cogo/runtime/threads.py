"""How many CPU threads cogo uses, and applying that choice to torch and to BLAS.

Why a policy
------------
cogo's CPU work is thousands of small tensor operations (training: about 20
per epoch; classification: many small SVDs and least-squares solves).  Each
operation split over ``T`` threads ends at a barrier where every thread waits
for the slowest one.  On idle cores that costs microseconds; on cores that
other processes keep busy, a thread that lost its core waits for a scheduler
time slice (milliseconds), at every operation.  Measured on 2 cores with two
competing busy processes (issue #15): ``cogo train --group 23 --seeds 1-5
--epochs 200`` took 9.9 s with 1 thread and 70.9 s with 2.  More than one
thread pays only when an operation is large enough that a slice is small
against it, and only when cores are free.

The rule (:func:`choose_threads`)
---------------------------------
``threads = 1`` unless all of these hold, then ``min(free cores, 4)``:

* the work of one operation, ``elements`` (training: models x rows x hidden,
  rows = ``n^2`` for the grid kernel or the training pairs for the gather
  kernel), is at least :data:`PARALLEL_MIN_ELEMENTS`;
* at least 2 cores are free: ``free = cores - background load`` where
  ``cores`` (:func:`available_cores`) are the CPUs this process may run on
  (``os.sched_getaffinity``) capped by a cgroup CPU quota (v2 ``cpu.max``,
  v1 ``cpu.cfs_quota_us / cpu.cfs_period_us``), and the background load
  (:func:`background_load`) is the larger of the 1-minute load average and
  the number of runnable tasks right now, less this process's own.

Classification (numpy/BLAS on matrices of a few hundred entries) always uses
1 thread.  ``--threads T`` on the command line overrides the rule.

In the library too
------------------
The rule is applied by the library's heavy entry points, not only by the
command line: :func:`cogo.analysis.classify.classify_many` (and
``classify_checkpoint``, ``read_network``), the representation theory
(``character_table``, ``isotypic_projectors``, ``irreps`` of
:mod:`cogo.algebra.representations`), :func:`cogo.proofs.registry.run_all`,
:func:`cogo.proofs.trained.checkpoint_report`,
:func:`cogo.li2.theorems.run_li2` and training
(:func:`cogo.solvers.training.train`) run inside :func:`thread_limit` at the
count the rule gives (decorator :func:`thread_policy`), so a plain Python
session does not run BLAS on every core of a busy machine (issue #21:
``irreps("Q8x16")`` took 11.1 s with the default BLAS threads under load,
0.39 s on one thread).  Override it with :func:`set_threads` (process-wide),
the context manager :func:`threads` (a block), or the environment variable
``COGO_THREADS``; ``--threads`` sets the same override.  A call nested in
another entry point keeps the outer limit.

Determinism
-----------
Training flushes float32 denormals to zero (dead nodes decay below 1.2e-38,
and denormal arithmetic is ~10x slower).  ``torch.set_flush_denormal`` sets
the flag of the *calling* thread only; the threads of torch's OpenMP pool
(and MKL, which runs on the same pool) kept computing denormals.  Which
elements of an operation a worker thread computes depends on the thread
count, so once denormals appeared the weights depended on the number of
threads (issue #15: one run in ten differed under load).
:func:`set_flush_denormal_all` sets the flag on every pool thread too; with
it, training gives bit-identical weights for any thread count (tested:
``tests/runtime/test_threads.py``).  Where that cannot be done (a torch not built
with GNU OpenMP), :func:`cogo.solvers.training.train` trains with 1 thread.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import math
import os
import time
import sys
from pathlib import Path
from typing import Iterator

from cogo.runtime.errors import CogoError

__all__ = [
    "PARALLEL_MIN_ELEMENTS",
    "POLICY_HELP",
    "MAX_THREADS",
    "cgroup_cpu_quota",
    "available_cores",
    "background_load",
    "choose_threads",
    "training_elements",
    "thread_limit",
    "set_flush_denormal_all",
    "flush_denormals",
    "set_threads",
    "threads",
    "threads_override",
    "thread_policy",
    "limit_process",
    "preserved",
]

#: Smallest work of one tensor operation (elements) for which a second thread can pay (benchmarks/bench_threads.py).
PARALLEL_MIN_ELEMENTS = 250_000
#: Never more threads than this: cogo's operations are too small to feed more.
MAX_THREADS = 4


#: The rule in one line, for ``--threads`` help texts.
POLICY_HELP = ("CPU threads (default: the thread policy of cogo.runtime.threads: 1 unless one tensor operation has at "
               "least 2.5e5 elements and at least 2 of the cores this process may use (affinity, cgroup quota) "
               "are free of other load; then up to 4; classification always 1). Results do not depend on it")


# ---------------------------------------------------------------- cores available to this process
def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def cgroup_cpu_quota(proc_root: str | os.PathLike = "/proc", cgroup_root: str | os.PathLike = "/sys/fs/cgroup"
                     ) -> float | None:
    """CPUs allowed by this process's cgroup quota (``quota / period``), or None when unlimited or unknown.

    cgroup v2: the smallest ``cpu.max`` along the process's cgroup path (``max`` = unlimited);
    cgroup v1: ``cpu.cfs_quota_us / cpu.cfs_period_us`` (quota ``-1`` = unlimited).

    Returns
    -------
    float or None
        The smallest quota found, in CPUs (``quota / period``); None when no quota limits this process.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as d:             # a fake /proc and cgroup v2 tree: quota 150000/100000
    ...     (Path(d) / "proc/self").mkdir(parents=True)
    ...     _ = (Path(d) / "proc/self/cgroup").write_text("0::/job")
    ...     (Path(d) / "cg/job").mkdir(parents=True)
    ...     _ = (Path(d) / "cg/job/cpu.max").write_text("150000 100000")
    ...     cgroup_cpu_quota(proc_root=Path(d) / "proc", cgroup_root=Path(d) / "cg")
    1.5
    """
    proc_root, root = Path(proc_root), Path(cgroup_root)
    text = _read(proc_root / "self" / "cgroup") or ""
    limits: list[float] = []
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, rel = parts
        rel = rel.lstrip("/")
        if controllers == "":                                   # v2 unified hierarchy
            d = root / rel if rel else root
            while True:
                v = _read(d / "cpu.max")
                if v:
                    q, _, period = v.partition(" ")
                    if q != "max":
                        try:
                            limits.append(float(q) / float(period or 100000))
                        except ValueError:
                            pass
                if d == root or root not in d.parents:
                    break
                d = d.parent
        elif "cpu" in controllers.split(","):                   # v1
            for base in (root / "cpu,cpuacct", root / "cpu", root / "cpuacct,cpu"):
                for d in ((base / rel) if rel else base, base):
                    q, p = _read(d / "cpu.cfs_quota_us"), _read(d / "cpu.cfs_period_us")
                    try:
                        if q is not None and p is not None and int(q) > 0 and int(p) > 0:
                            limits.append(int(q) / int(p))
                    except ValueError:
                        pass
    return min(limits) if limits else None


def available_cores(proc_root: str | os.PathLike = "/proc", cgroup_root: str | os.PathLike = "/sys/fs/cgroup") -> int:
    """CPUs this process may use: its affinity set, capped by the cgroup quota (rounded down, at least 1).

    Examples
    --------
    >>> import os
    >>> 1 <= available_cores() <= len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else True
    True
    """
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    quota = cgroup_cpu_quota(proc_root, cgroup_root)
    if quota is not None:
        n = min(n, max(1, math.floor(quota + 1e-9)))
    return max(1, n)


def background_load(samples: int = 5, interval: float = 0.01, proc_root: str | os.PathLike = "/proc") -> float:
    """Cores kept busy by other work: max(1-minute load average, runnable tasks now) less this process's.

    ``runnable`` is the 4th field of ``/proc/loadavg`` (``R/total``), averaged over
    ``samples`` reads ``interval`` seconds apart; this process counts for one runnable
    task while it measures.  Returns 0.0 where /proc is unavailable.

    Examples
    --------
    >>> background_load(samples=2, interval=0.001) >= 0.0
    True
    """
    text = _read(Path(proc_root) / "loadavg")
    if text is None:
        try:
            return max(0.0, os.getloadavg()[0])
        except (AttributeError, OSError):
            return 0.0
    load1 = float(text.split()[0])
    running = []
    for i in range(max(1, samples)):
        if i:
            time.sleep(interval)
            text = _read(Path(proc_root) / "loadavg") or text
        try:
            running.append(int(text.split()[3].split("/")[0]) - 1)   # minus this process
        except (IndexError, ValueError):
            pass
    now = sum(running) / len(running) if running else 0.0
    return max(0.0, load1, now)


# ---------------------------------------------------------------- the rule
def training_elements(n: int, hidden: int, models: int, rows: int | None = None) -> int:
    """Work of one batched training operation: ``models * rows * hidden`` (rows default ``n^2``).

    Examples
    --------
    >>> training_elements(23, 512, 4) == 4 * 23**2 * 512, training_elements(23, 512, 4, rows=476)   # grid / gather
    (True, 974848)
    """
    return int(models) * int(n * n if rows is None else rows) * int(hidden)


# ---------------------------------------------------------------- the override (library and command line)
_OVERRIDE: list[int | None] = [None]
_DEPTH = [0]


def _parse_env(text: str | None) -> int | None:
    if text is None or not text.strip():
        return None
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v < 1:
        raise CogoError(f"COGO_THREADS must be a positive integer, got {text!r}")
    return v


def threads_override() -> int | None:
    """The thread count set by :func:`set_threads` / :func:`threads` / ``COGO_THREADS``, or None (the rule).

    Raises
    ------
    cogo.runtime.errors.CogoError
        When ``COGO_THREADS`` is not a positive integer.

    Examples
    --------
    >>> with threads(3):
    ...     threads_override()
    3
    """
    if _OVERRIDE[0] is not None:
        return _OVERRIDE[0]
    return _parse_env(os.environ.get("COGO_THREADS"))


def set_threads(n: int | None) -> None:
    """Make every heavy entry point of cogo use ``n`` CPU threads (None: back to the rule).

    >>> set_threads(2); threads_override()
    2
    >>> set_threads(None)
    """
    if n is not None:
        n = int(n)
        if n < 1:
            raise ValueError(f"thread count must be a positive integer, got {n}")
    _OVERRIDE[0] = n


@contextlib.contextmanager
def threads(n: int | None) -> Iterator[int | None]:
    """Within the block, cogo's entry points use ``n`` threads (None: the rule); the previous override returns after.

    Yields
    ------
    int or None
        ``n``, the override in force inside the block.

    Examples
    --------
    >>> from cogo.algebra.representations import irreps
    >>> with threads(1):
    ...     len(irreps("S3"))
    3
    """
    before = _OVERRIDE[0]
    set_threads(n)
    try:
        yield n
    finally:
        _OVERRIDE[0] = before


@contextlib.contextmanager
def preserved() -> Iterator[None]:
    """After the block, the override, torch's thread count and the BLAS limits are what they were before it.

    ``cogo.cli.main`` runs every command inside it, so ``main([..., "--threads", "1"])`` called from
    Python (a notebook, a test) leaves the caller's thread settings as they were.  torch is restored
    when it was imported before the block (a torch first imported inside keeps its count: this
    function never imports it).

    Yields
    ------
    None

    Examples
    --------
    >>> before = threads_override()
    >>> with preserved():
    ...     set_threads(3)
    >>> threads_override() == before
    True
    """
    before = _OVERRIDE[0]
    torch = sys.modules.get("torch")
    count = torch.get_num_threads() if torch is not None else None
    ctl = None
    try:
        from threadpoolctl import threadpool_limits  # late: threadpoolctl (the code runs without it)

        ctl = threadpool_limits(limits=None)  # records every BLAS library's limit; changes nothing
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        pass
    try:
        yield
    finally:
        _OVERRIDE[0] = before
        if count is not None and torch.get_num_threads() != count:
            torch.set_num_threads(count)
        if ctl is not None:
            ctl.restore_original_limits()


def thread_policy(kind: str = "classify"):
    """Decorator: run the function inside :func:`thread_limit` at the override or :func:`choose_threads` (``kind``).

    A call made while another decorated call runs keeps the outer limit (no
    second threadpoolctl round trip).  ``kind='classify'`` is 1 thread by the
    rule: the small-matrix work of classification, representations,
    verification and the SPEC 9 energy checks.

    Returns
    -------
    callable
        A decorator; the function it wraps runs inside :func:`thread_limit` and carries the attribute
        ``__cogo_thread_policy__ = kind``.

    Examples
    --------
    >>> @thread_policy("classify")
    ... def work():
    ...     import torch
    ...     return torch.get_num_threads()
    >>> work()
    1
    """
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if _DEPTH[0] > 0:
                return fn(*args, **kwargs)
            n = threads_override() or choose_threads(kind)
            with thread_limit(n):
                _DEPTH[0] += 1
                try:
                    return fn(*args, **kwargs)
                finally:
                    _DEPTH[0] -= 1
        wrapper.__cogo_thread_policy__ = kind
        return wrapper
    return deco


def limit_process(n: int | None = None) -> int:
    """Limit torch and BLAS to ``n`` threads (default: the override, else 1) for the rest of the process.

    For scripts that call many small library functions outside the entry points
    (the benchmarks do, through ``benchmarks/_common.py``).  Returns the count.
    """
    n = int(n or threads_override() or 1)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(n)
    try:
        from threadpoolctl import threadpool_limits  # late: threadpoolctl (the code runs without it)

        threadpool_limits(limits=n, user_api="blas")
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        pass
    return n


def choose_threads(kind: str = "train", elements: int = 0, cores: int | None = None,
                   load: float | None = None) -> int:
    """The default thread count (the rule in the module docstring).

    ``kind``: ``'train'`` (uses ``elements``, see :func:`training_elements`) or
    ``'classify'`` (always 1).  ``cores`` defaults to :func:`available_cores`,
    ``load`` to :func:`background_load` (measured only when the size would allow
    more than one thread).

    Returns
    -------
    int
        1, or ``min(free cores, MAX_THREADS)`` for training operations of at least
        :data:`PARALLEL_MIN_ELEMENTS` elements with at least 2 free cores.

    Raises
    ------
    ValueError
        For a ``kind`` other than ``'train'`` and ``'classify'``.

    Examples
    --------
    >>> choose_threads("classify", cores=8, load=0.0)                       # always 1
    1
    >>> choose_threads("train", elements=10_000, cores=8, load=0.0)         # small operations: 1
    1
    >>> big = PARALLEL_MIN_ELEMENTS
    >>> choose_threads("train", elements=big, cores=8, load=0.0), choose_threads("train", elements=big, cores=8, load=6.0)
    (4, 2)
    """
    if kind not in ("train", "classify"):
        raise ValueError(f"unknown kind of work {kind!r}; use train or classify")
    if kind == "classify" or elements < PARALLEL_MIN_ELEMENTS:
        return 1
    cores = available_cores() if cores is None else int(cores)
    if cores < 2:
        return 1
    load = background_load() if load is None else float(load)
    free = int(math.floor(cores - load + 0.25))     # a quarter core of noise still counts as free
    return max(1, min(free, MAX_THREADS)) if free >= 2 else 1


# ---------------------------------------------------------------- applying it
@contextlib.contextmanager
def thread_limit(threads: int) -> Iterator[int]:
    """Within the block, torch and the BLAS libraries loaded (via threadpoolctl, if installed) use ``threads``.

    Restores the previous torch thread count and BLAS limits on exit.  torch is
    limited only when it is already imported (this function never imports it:
    reading an ``.npz`` checkpoint needs no torch); a torch imported inside the
    block keeps its own default.

    Yields
    ------
    int
        ``threads``, the limit in force inside the block.

    Raises
    ------
    ValueError
        When ``threads < 1``.

    Examples
    --------
    >>> import torch
    >>> before = torch.get_num_threads()
    >>> with thread_limit(1):
    ...     torch.get_num_threads()
    1
    >>> torch.get_num_threads() == before
    True
    """
    threads = int(threads)
    if threads < 1:
        raise ValueError(f"thread count must be a positive integer, got {threads}")
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    ctl = None
    try:
        from threadpoolctl import threadpool_limits  # late: threadpoolctl (the code runs without it)
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        threadpool_limits = None
    if torch is not None:
        torch.set_num_threads(threads)
    try:
        if threadpool_limits is not None:
            ctl = threadpool_limits(limits=threads, user_api="blas")
        yield threads
    finally:
        if ctl is not None:
            ctl.restore_original_limits()
        if torch is not None:
            torch.set_num_threads(before)


_FLUSH_CB = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _libgomp() -> ctypes.CDLL | None:
    """The GNU OpenMP runtime torch runs on (already loaded in this process), or None."""
    try:
        with open("/proc/self/maps") as fh:
            paths = {line.split()[-1] for line in fh if "libgomp" in line and line.rstrip().endswith(".so.1")}
    except OSError:
        return None
    for p in sorted(paths):
        try:
            lib = ctypes.CDLL(p)
            lib.GOMP_parallel
            return lib
        except (OSError, AttributeError):
            continue
    return None


def set_flush_denormal_all(mode: bool, threads: int | None = None) -> bool:
    """Set float denormal flushing (FTZ/DAZ) on this thread AND on the ``threads`` threads of torch's pool.

    ``torch.set_flush_denormal`` changes the calling thread only; worker threads keep
    their own flag, so elements a worker computes would round differently.  This runs a
    parallel region of ``threads`` (default ``torch.get_num_threads()``) threads in
    torch's GNU OpenMP runtime, each calling ``torch.set_flush_denormal(mode)``.
    Returns True if every thread got the flag (always for ``threads == 1``), False if the
    CPU does not support flushing or the runtime is not GNU OpenMP.

    Returns
    -------
    bool
        True if this thread and every pool thread now flush denormals as ``mode`` says; False otherwise.

    Examples
    --------
    >>> set_flush_denormal_all(False, threads=1) in (True, False)   # True where the CPU supports flushing
    True
    """
    import torch  # late: torch

    threads = torch.get_num_threads() if threads is None else int(threads)
    ok = torch.set_flush_denormal(mode)
    if not ok:
        return False
    if threads <= 1:
        return True
    lib = _libgomp()
    if lib is None:
        return False
    results: list[bool] = []

    def _each(_data):  # runs on every thread of the team, holding the GIL
        results.append(bool(torch.set_flush_denormal(mode)))

    cb = _FLUSH_CB(_each)
    lib.GOMP_parallel.argtypes = [_FLUSH_CB, ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint]
    lib.GOMP_parallel.restype = None
    lib.GOMP_parallel(cb, None, threads, 0)
    return len(results) == threads and all(results)


def flush_denormals(threads: int) -> tuple[int, str]:
    """Flush float denormals to zero on every thread that will compute; return ``(threads, mode)``.

    ``mode`` (recorded in checkpoints): ``'flushed on every thread'``; ``'not flushed'``
    when the CPU cannot flush (then no thread flushes, which is consistent too); or, when
    the pool threads cannot be reached, ``threads`` becomes 1 (and torch is set to 1 thread)
    so that no element is ever computed with another thread's rounding.
    Undo with ``set_flush_denormal_all(False, threads)``.

    Returns
    -------
    tuple of (int, str)
        ``(threads, mode)``: the thread count to train with and how denormals are treated.

    Examples
    --------
    >>> import torch
    >>> threads, mode = flush_denormals(1)
    >>> threads, mode in ("flushed on every thread", "not flushed")
    (1, True)
    >>> (torch.tensor([1e-30]) * torch.tensor([1e-10])).item() == 0.0 or mode == "not flushed"   # 1e-40 is a denormal
    True
    >>> _ = set_flush_denormal_all(False, 1)                 # undo
    """
    import torch  # late: torch

    threads = int(threads)
    if not torch.set_flush_denormal(True):
        return threads, "not flushed"
    if set_flush_denormal_all(True, threads):
        return threads, "flushed on every thread"
    torch.set_num_threads(1)
    return 1, "flushed on every thread"
