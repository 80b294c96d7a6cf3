"""File names of training runs: one model's checkpoint, ``d<group>_q<hidden>_wd<wd>_seed<seed>.pt``.

One place for the naming rule, read by :mod:`cogo.solvers.training` (``save_run``),
:mod:`cogo.solvers.resume` (the state beside the run) and :mod:`cogo.commands.grid.run`.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import re
from typing import Any

from cogo.algebra.group_parsing import as_group

__all__ = ["checkpoint_name", "file_label"]


def _fmt_wd(wd: float) -> str:
    return f"{wd:.6g}"


def checkpoint_name(group: Any, hidden: int, weight_decay: float, seed: int) -> str:
    """File name of one model's checkpoint, e.g. ``d23_q512_wd5e-05_seed1.pt``.

    Returns
    -------
    str
        ``d{label}_q{hidden}_wd{weight_decay}_seed{seed}.pt``: the group label, the width, the weight
        decay to 6 significant digits and the seed.

    Examples
    --------
    >>> checkpoint_name(23, 512, 5e-5, 1)
    'd23_q512_wd5e-05_seed1.pt'
    """
    return f"d{file_label(as_group(group).label)}_q{hidden}_wd{_fmt_wd(weight_decay)}_seed{seed}.pt"


def file_label(label: str) -> str:
    """A group's label as a shell-safe piece of a file name: every run of characters a shell would need quoted
    (the parentheses and comma of ``SmallGroup(n,i)``) becomes one ``-``; the other labels are unchanged.

    >>> file_label("SmallGroup(24,12)"), file_label("3x5"), file_label("S3x3")
    ('SmallGroup-24-12', '3x5', 'S3x3')
    """
    return re.sub(r"[^A-Za-z0-9._+-]+", "-", str(label)).strip("-")
