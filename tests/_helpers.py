"""Shared test helpers that are not hypothesis strategies (those are in tests/strategies.py).

Checkpoints of the verdict tests (tests/proofs/test_near.py, test_trained.py): a network's real weights saved
as ``.npz`` and ``cogo verify --checkpoint`` read back as its JSON report.  Ctrl-C on a real process
(tests/test_api_install_and_interrupts.py, tests/test_user_contracts.py): ``cogo`` started from this checkout
with SIGINT at its default action, as in a terminal, then interrupted.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------- checkpoints and verdicts
def save_npz(path, W, group: str | None = "23") -> str:
    """``W = [Wa, Wb, Wc]`` saved as ``.npz`` at ``path`` with the group's name (none when ``group`` is None)."""
    extra = {} if group is None else {"group": group}
    np.savez(path, Wa=W[0], Wb=W[1], Wc=W[2], **extra)
    return str(path)


def verify_json(tmp_path, path, *flags) -> tuple:
    """(exit status, JSON report) of ``cogo verify --checkpoint PATH --json ... --force FLAGS``."""
    from cogo.cli import main

    out = tmp_path / "v.json"
    rc = main(["verify", "--checkpoint", str(path), "--json", str(out), "--force", *flags])
    return rc, json.loads(out.read_text())


# ------------------------------------------------------------------------------------- Ctrl-C on a real process
def cogo_env() -> dict:
    """The environment that runs ``python -m cogo.cli`` from this checkout."""
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def start_cogo(*argv) -> subprocess.Popen:
    """``python -m cogo.cli ARGV`` with piped output and SIGINT at its default action (as in a terminal)."""
    return subprocess.Popen([sys.executable, "-m", "cogo.cli", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=cogo_env(),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def ctrl_c(p: subprocess.Popen, err_so_far: bytes = b"") -> tuple:
    """Send ``p`` SIGINT (Ctrl-C) and wait for it: (exit status, its whole stderr as text)."""
    p.send_signal(signal.SIGINT)
    _, rest = p.communicate(timeout=120)
    return p.returncode, (err_so_far + rest).decode()
