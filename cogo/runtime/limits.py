"""Resource estimates checked before any large allocation.

Each command asks :func:`require` with an :class:`Estimate` of the peak
memory (and the expected time) of what it was asked to do; a request that
cannot fit in the available memory is refused with a one-line
:class:`cogo.runtime.errors.CogoError` that quotes the estimate, instead of a
``MemoryError`` traceback minutes later.  The public functions whose memory
grows like ``n^3`` or faster check too, so that Python callers get the same
refusal: :func:`cogo.solvers.constructions.z_M` (hence ``construct("z_M", ...)``).

The constants are measured peaks (resident memory above the interpreter's
baseline, float64/complex128 arrays) of the current algorithms, rounded up:

* ``cogo construct z_M`` on a group of order ``n``: z_M has ``n^2`` nodes,
  its Fourier coordinates are ``3 x n x n^2`` complex numbers (``48 n^3``
  bytes) and a few copies live at once: about ``200 n^3`` bytes; the
  real-space loss over all ``n^2`` pairs costs about ``2 n^5`` flops.
* ``cogo verify --numeric`` (and ``both``): about ``3000 n^3`` bytes (measured
  2.5-3.0 kB per ``n^3`` at n = 45, 91); on even groups Theorem 8 takes the
  potentials of ``y * z_M`` with ``2 n^2`` nodes: ``16 (2 n^2)^2 (3 n) = 192 n^5``
  bytes.
* classifying a checkpoint with ``q`` hidden nodes on ``n`` frequencies:
  Fourier coordinates ``3 x n x q`` complex plus the per-node energies:
  about ``200 n q`` bytes (float64 copies of the weights included), plus the
  network verdict (:func:`verdict_bytes`: the potentials ``r[k1, k2, k]``,
  ``16 n^2 q + 48 n^3`` bytes), which ``cogo verify --checkpoint`` needs too.
  Both are checked from the file's header alone, before any array is read, on every path
  (:func:`cogo.io.checkpoint.read_checkpoint` with the command's estimate); nodes that contribute nothing are
  dropped before the Fourier transform, so an all-dead network costs only
  its reading.

* ``cogo dynamics``: :func:`dynamics_estimate` (a chunk of snapshots, the
  progress measures' family basis ``16 n^3`` and feature sub-stacks, the
  workers), checked from the checkpoint's shapes before any snapshot is read.

``COGO_MEMORY_LIMIT`` (bytes, or with a suffix K, M, G) overrides the
available memory, e.g. to keep a shared machine safe.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from cogo.runtime.errors import CogoError

__all__ = ["Estimate", "available_memory", "require", "construct_estimate", "verify_estimate",
           "classify_estimate", "load_estimate", "fmt_bytes", "fmt_seconds", "verdict_bytes",
           "verify_checkpoint_estimate", "dynamics_estimate", "models_per_batch"]

#: Flops per second assumed for the time estimates (a conservative single core).
FLOPS = 1e9


@dataclass
class Estimate:
    """Peak memory (bytes) and time (seconds) of one piece of work, with what it is.

    >>> print(Estimate(2**30, 5.0, "a test job"))
    a test job: about 1.0 GiB of memory and 5 s
    """

    bytes: float
    seconds: float
    what: str

    def __str__(self) -> str:
        return f"{self.what}: about {fmt_bytes(self.bytes)} of memory and {fmt_seconds(self.seconds)}"


def fmt_bytes(n: float) -> str:
    """A byte count for messages, in binary units.

    Returns
    -------
    str
        ``n`` in bytes, KiB, MiB, GiB or TiB (one decimal; three significant digits from 1024 TiB).

    Examples
    --------
    >>> fmt_bytes(512), fmt_bytes(1536), fmt_bytes(2**30)
    ('512 bytes', '1.5 KiB', '1.0 GiB')
    """
    if n >= 2**50:
        return f"{n / 2**40:.3g} TiB"
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} bytes"


def fmt_seconds(s: float) -> str:
    """A duration for messages, rounded to the unit that reads best.

    Returns
    -------
    str
        ``s`` in seconds, minutes, hours or days, or ``'under a second'``.

    Examples
    --------
    >>> fmt_seconds(0.2), fmt_seconds(45), fmt_seconds(3600), fmt_seconds(3 * 86400)
    ('under a second', '45 s', '60 min', '3 days')
    """
    if s < 1:
        return "under a second"
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    if s < 172800:
        return f"{s / 3600:.0f} h"
    return f"{s / 86400:.0f} days"


def _parse_bytes(text: str) -> int:
    t = text.strip().upper().rstrip("B").rstrip("I")
    mult = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}.get(t[-1:], 1)
    if t[-1:] in "KMGT":
        t = t[:-1]
    value = float(t) * mult
    if not value > 0:
        raise ValueError
    return int(value)


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (``MemAvailable``), or ``COGO_MEMORY_LIMIT``; None if unknown.

    Raises
    ------
    cogo.runtime.errors.CogoError
        When ``COGO_MEMORY_LIMIT`` is not a size.

    Examples
    --------
    >>> import os
    >>> saved = os.environ.pop("COGO_MEMORY_LIMIT", None)
    >>> os.environ["COGO_MEMORY_LIMIT"] = "2M"           # the override, with a suffix
    >>> available_memory()
    2097152
    >>> del os.environ["COGO_MEMORY_LIMIT"]
    >>> if saved is not None:
    ...     os.environ["COGO_MEMORY_LIMIT"] = saved
    """
    env = os.environ.get("COGO_MEMORY_LIMIT")
    if env:
        try:
            return _parse_bytes(env)
        except (ValueError, IndexError):
            raise CogoError(f"COGO_MEMORY_LIMIT={env!r} is not a size (use e.g. 8G or 500M)") from None
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return None


def require(est: Estimate) -> Estimate:
    """Raise CogoError (one line, with the estimate) if ``est`` needs more memory than is available, else return it.

    Raises
    ------
    cogo.runtime.errors.CogoError
        When ``est.bytes`` exceeds the available memory (the message quotes the estimate).

    Examples
    --------
    >>> import os
    >>> saved = os.environ.pop("COGO_MEMORY_LIMIT", None)
    >>> os.environ["COGO_MEMORY_LIMIT"] = str(2**20)     # pretend 1 MiB is available
    >>> require(Estimate(2**10, 0.1, "a small job")).what
    'a small job'
    >>> require(Estimate(2**30, 1.0, "a 1 GiB job"))
    Traceback (most recent call last):
    ...
    cogo.runtime.errors.CogoError: a 1 GiB job needs about 1.0 GiB of memory (and 1 s) but only 1.0 MiB are available; choose a smaller size
    >>> del os.environ["COGO_MEMORY_LIMIT"]
    >>> if saved is not None:
    ...     os.environ["COGO_MEMORY_LIMIT"] = saved
    """
    free = available_memory()
    if free is not None and est.bytes > free:
        when = f" (and {fmt_seconds(est.seconds)})" if est.seconds >= 1 else ""
        raise CogoError(f"{est.what} needs about {fmt_bytes(est.bytes)} of memory{when} "
                        f"but only {fmt_bytes(free)} are available; choose a smaller size")
    return est


#: the share of the free memory one batched training program may use (the rest: the process, the data, the OS)
BATCH_SHARE = 0.5


def models_per_batch(per_model: float, free: float | None, what: str, device: str = "cpu") -> int | None:
    """How many models of ``per_model`` bytes of working memory one batched program holds: the decision and its
    message in one place.

    A program may use :data:`BATCH_SHARE` of the ``free`` memory; a model that alone exceeds that
    share is refused with a message that states both figures, so the free memory it names is never
    smaller than what it says is needed.

    Returns
    -------
    int or None
        At least 1; None when the free memory is unknown (no limit from memory).

    Raises
    ------
    cogo.runtime.errors.CogoError
        When one model needs more than the share.

    Examples
    --------
    >>> models_per_batch(2**30, 10 * 2**30, "one model")
    5
    >>> models_per_batch(15 * 2**30, 22 * 2**30, "one model (group order 23)")
    Traceback (most recent call last):
    ...
    cogo.runtime.errors.CogoError: one model (group order 23) needs about 15.00 GiB of working memory; a batched program may use half of the free memory on cpu, 11.00 GiB of the 22.00 GiB free; ...
    """
    if free is None:
        return None
    budget = free * BATCH_SHARE
    if per_model > budget:
        raise CogoError(f"{what} needs about {per_model / 2**30:.2f} GiB of working memory; a batched program may "
                        f"use half of the free memory on {device}, {budget / 2**30:.2f} GiB of the "
                        f"{free / 2**30:.2f} GiB free; choose a smaller --hidden or group, or free memory")
    return max(1, int(budget // per_model))


def construct_estimate(kind: str, n: int, exact: bool = False, loss: bool = True) -> Estimate:
    """Estimate for ``cogo construct NAME`` (``kind``: the construction's name) on a group of order ``n`` (see the module docstring).

    ``exact``: z_M with sympy entries (``z_M(n, exact=True)``): the same memory (the
    ``3 n^3`` entries are references to shared roots of unity; measured 100-200 bytes
    per ``n^3`` at n = 11-31) but about 40 microseconds per ``n^3`` instead of 50 ns.
    ``loss=False``: without the time of the CLI's real-space loss (what
    :func:`cogo.solvers.constructions.z_M` checks).  The catalogue kinds are checked
    only by the CLI (their estimate includes its loss).

    Returns
    -------
    Estimate
        Peak bytes and seconds of building the construction ``kind`` (and, with ``loss``, the CLI's loss).

    Examples
    --------
    >>> e = construct_estimate("z_M", 23)                # z_M: about 200 n^3 bytes
    >>> e.bytes == 200 * 23**3, e.what
    (True, 'z_M on a group of order 23 (529 nodes)')
    >>> construct_estimate("z_M", 23, exact=True).bytes == e.bytes
    True
    >>> construct_estimate("z_M", 64).seconds > 2 > construct_estimate("z_M", 64, loss=False).seconds
    True
    """
    if kind == "z_M":
        # building z_M touches its 3 n^3 coordinates a few dozen times; the CLI's loss costs at most 2e9 flops
        per_entry = 4e4 if exact else 50.0
        return Estimate(200.0 * n**3, (per_entry * n**3 + (min(2.0 * n**5, 2e9) if loss else 0.0)) / FLOPS,
                        f"{'exact ' if exact else ''}z_M on a group of order {n} ({n * n} nodes)")
    # the catalogue solutions have O(n) nodes; the all-pairs loss costs n^2 pairs x q x n
    q = 8 * n
    return Estimate(400.0 * n * q + 64.0 * n * n, 2.0 * n**3 * q / FLOPS, f"construction {kind} of order {n}")


def verify_estimate(n: int, method: str, even: bool) -> Estimate:
    """Estimate for ``cogo verify`` on a group of order ``n`` with ``method`` (exact, numeric, both).

    Returns
    -------
    Estimate
        Peak bytes of the verification (its time is not modelled: 0 seconds).

    Examples
    --------
    >>> verify_estimate(23, "numeric", False).bytes == 3000 * 23**3   # odd n: about 3000 n^3 bytes
    True
    >>> verify_estimate(24, "numeric", True).bytes == 192 * 24**5     # even n: the potentials of y * z_M
    True
    """
    if method == "exact":
        # exact checks work on O(n) blocks symbolically; z_M's certificate is n^2 x n
        return Estimate(2000.0 * n**2, 0.0, f"exact verification on a group of order {n}")
    mem = 3000.0 * n**3
    if even:
        mem = max(mem, 192.0 * n**5)
    return Estimate(mem, 0.0, f"numeric verification on a group of order {n}")  # time: not modelled


#: What the reading commands import beyond numpy and cogo.cli (sympy, networkx, ...; torch for a .pt file is not
#: included: its ~190 MiB are part of the interpreter's baseline when a .pt file is read).
MODULES_BYTES = 48 * 2**20


def _loss_chunk_bytes(n: int, q: int) -> float:
    """Peak of the chunked all-pairs loss (:func:`cogo.algebra.loss.real_loss`): a few ``(P, q)``/``(P, n)`` chunks."""
    pairs = min(n * n, max(1, 2**23 // max(q, n, 1)))
    return 4 * 8.0 * pairs * (q + n)


def verdict_bytes(n: int, q: int) -> float:
    """Peak bytes (above the interpreter) of the network verdict of ``q`` nodes on ``n`` frequencies.

    The SPEC 5 residuals build the whole potential tensor ``r[k1, k2, k]``: the pair products ``(n^2, q)``
    complex (``16 n^2 q``), ``r`` and its copies (``n^3`` complex, about ``48 n^3`` in all); the Fourier
    coordinates ``3 x n x q`` complex and the float64 weights (``72 n q``) and one loss chunk.  Measured by
    ``benchmarks/bench_memory.py`` (benchmarks/results/memory.json): every measured peak is below it.

    Returns
    -------
    float
        Peak bytes of the network verdict (SPEC 5 residuals, Fourier coordinates, one loss chunk), with a 25% margin.

    Examples
    --------
    >>> verdict_bytes(23, 512) > 16 * 23**2 * 512
    True
    """
    return 1.25 * (96.0 * n * q + 16.0 * n * n * q + 48.0 * n**3 + _loss_chunk_bytes(n, q))


def verify_checkpoint_estimate(n: int, q: int) -> Estimate:
    """Estimate for ``cogo verify --checkpoint`` on ``q`` hidden nodes of a group of order ``n``: the verdict.

    Returns
    -------
    Estimate
        Peak bytes (the imported modules, the verdict, the weights) and seconds of the verdict.

    Examples
    --------
    >>> e = verify_checkpoint_estimate(1024, 40000)       # the n^3 potentials alone are 16 GiB
    >>> e.bytes > 48 * 1024**3, e.what
    (True, 'verifying a checkpoint with q=40000 hidden nodes on a group of order 1024')
    """
    return Estimate(MODULES_BYTES + verdict_bytes(n, q) + 3 * 8.0 * n * q, 2.0 * n * n * q / FLOPS,
                    f"verifying a checkpoint with q={q} hidden nodes on a group of order {n}")


def classify_estimate(n: int, q: int, checkpoints: int = 1) -> Estimate:
    """Estimate for classifying one checkpoint of ``q`` hidden nodes on ``n`` frequencies (peak of one).

    Reading and splitting the nodes costs about ``200 n q`` bytes (float64 copies of the weights, the
    Fourier coordinates, the per-node energies), plus the network verdict (:func:`verdict_bytes`), with
    every node assumed live (nodes that contribute nothing are dropped before any of this is allocated,
    so the estimate bounds the peak whatever the file holds).

    Returns
    -------
    Estimate
        Peak bytes of classifying one checkpoint and the seconds for ``checkpoints`` of them.

    Examples
    --------
    >>> classify_estimate(23, 512).bytes == MODULES_BYTES + 200 * 23 * 512 + verdict_bytes(23, 512)
    True
    """
    return Estimate(MODULES_BYTES + 200.0 * n * q + verdict_bytes(n, q), checkpoints * (60.0 * n * q * 3 / FLOPS + 0.1),
                    f"classifying {checkpoints} checkpoint(s) with q={q} hidden nodes on a group of order {n}")


#: Elements of one sub-stack of the progress measures' features and logits (cogo.dynamics.logits.MAX_ELEMENTS).
PROGRESS_ELEMENTS = 1 << 23
#: A worker process of cogo dynamics beyond the work it is given: an interpreter with numpy and cogo's analysis.
WORKER_BYTES = 160 * 2**20


def dynamics_estimate(n: int, q: int, workers: int = 1, chunk: int = 16) -> Estimate:
    """Estimate for ``cogo dynamics`` on a run of ``q`` hidden nodes on a group of order ``n`` (peak, all processes).

    The main process holds a chunk of ``chunk`` snapshots in float64 with the first and last one
    (``(24 chunk + 60) n q``), their Fourier coordinates and potentials (about ``120 chunk n q``), the
    irrep-family basis of the progress measures (the isotypic projectors, ``16 n^3``), one sub-stack of
    features and logits (at most ``max(2^23, n^2 max(q, n))`` elements, about 7 float64 copies) and the
    ``q x q`` kernel of the Li^2 statistics (``32 q^2``); every worker process (with ``workers = 1`` the main
    process itself) classifies one snapshot at a time: ``WORKER_BYTES`` plus about ``224 n q``.  Every node
    is assumed live (checked from the shapes alone, before any array is read); nodes without input weights
    are dropped before the features are formed.  Measured by ``benchmarks/bench_memory.py``.

    Returns
    -------
    Estimate
        Peak bytes of all the processes of ``cogo dynamics`` (its time is not modelled: 0 seconds).

    Examples
    --------
    >>> e = dynamics_estimate(127, 512, workers=2)
    >>> round(e.bytes / 2**20), e.what
    (1030, 'reading the snapshots of a run with q=512 hidden nodes on a group of order 127 (2 workers)')
    >>> dynamics_estimate(1024, 512).bytes > 16 * 1024**3     # the family basis alone is 16 n^3 bytes
    True
    """
    nq = float(n) * q
    sub = max(float(PROGRESS_ELEMENTS), float(n) * n * max(q, n))
    main = MODULES_BYTES + (24.0 * chunk + 60.0) * nq + 120.0 * chunk * nq + 16.0 * float(n) ** 3 + 56.0 * sub \
        + 32.0 * float(q) ** 2
    per_worker = 224.0 * nq
    total = main + (per_worker if workers <= 1 else workers * (WORKER_BYTES + per_worker))
    return Estimate(total, 0.0, f"reading the snapshots of a run with q={q} hidden nodes on a group of order {n}"
                    + (f" ({workers} workers)" if workers > 1 else ""))


def load_estimate(n: int, q: int) -> Estimate:
    """Estimate for reading the weights of one checkpoint into float64 arrays (three copies).

    Returns
    -------
    Estimate
        Bytes of three float64 copies of the weights (time: 0 seconds).

    Examples
    --------
    >>> print(load_estimate(23, 512))
    reading weights of shape (512, 23): about 828.0 KiB of memory and under a second
    """
    return Estimate(3 * 3 * 8.0 * n * q, 0.0, f"reading weights of shape ({q}, {n})")


def progress_callback(total: int, desc: str, unit: str = "check", off: bool = False):
    """A tqdm bar of ``total`` steps as a callback ``tick(result)`` (closed at the last step), or None if ``off``."""
    if off or total <= 0:
        return None
    from tqdm.auto import tqdm  # late: tqdm (start-up)

    bar = tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True, leave=False)

    def tick(result=None) -> None:
        bar.update(1)
        name = getattr(result, "name", None)
        if name:
            bar.set_postfix_str(str(name)[:30], refresh=False)
        if bar.n >= bar.total:
            bar.close()

    return tick
