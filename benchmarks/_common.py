"""Shared helpers for the benchmarks: machine facts and atomic JSON output."""
from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path


def machine_info() -> dict:
    import numpy as np
    import torch

    import cogo

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "numpy": np.__version__,
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "cuda": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
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


def write_json(path: str | os.PathLike, obj: dict) -> None:
    from cogo.io.outputs import atomic_write_text

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(obj, indent=2) + "\n")
    print(f"wrote {path}")
