"""Shared helpers for the benchmarks: machine facts and atomic JSON output."""
from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path


def machine_info() -> dict:
    import numpy as np

    import cogo

    try:
        import torch
    except ImportError:  # the exact benchmarks need no torch
        torch = None
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "numpy": np.__version__,
        "torch": None if torch is None else torch.__version__,
        "torch_threads": None if torch is None else torch.get_num_threads(),
        "cuda": torch.cuda.get_device_name(0) if torch is not None and torch.cuda.is_available() else None,
        "cogo": cogo.__version__,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def best_of(fn, repeat: int = 5) -> float:
    """Smallest wall time of ``repeat`` calls, in seconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def best_of_each(fns: dict, repeat: int = 2) -> dict:
    """Smallest wall time of ``repeat`` calls of each function of ``fns`` (name: callable), in seconds.

    The calls go round-robin (each function once per round), so a burst of load on a shared machine falls on
    every function alike instead of on whichever was being timed.
    """
    times = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {name: min(ts) for name, ts in times.items()}


def write_json(path: str | os.PathLike, obj: dict) -> None:
    from cogo.io.outputs import atomic_write_text

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(obj, indent=2) + "\n")
    print(f"wrote {path}")
