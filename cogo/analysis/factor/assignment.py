"""The minimum-cost perfect assignment of a square cost matrix (Hungarian algorithm).

Used wherever nodes are matched one to one: the reassignment of nodes to grid cells
(:func:`cogo.analysis.factor.kronecker.fit_grid`) and the stabilizer of a partner factor
(:func:`cogo.analysis.naming.stabilizer`).

References
----------
.. [1] H. W. Kuhn, "The Hungarian method for the assignment problem", Naval Research Logistics Quarterly 2, 1955.
"""
from __future__ import annotations

import numpy as np

__all__ = ["linear_assignment"]


def linear_assignment(cost: np.ndarray) -> np.ndarray:
    """Minimum-cost perfect assignment of a square cost matrix (Hungarian algorithm, ``O(n^3)``).

    Returns ``col`` with ``col[i]`` the column assigned to row ``i``.

    Examples
    --------
    >>> import numpy as np
    >>> cost = np.array([[4.0, 1, 3], [2, 0, 5], [3, 2, 2]])
    >>> col = linear_assignment(cost)
    >>> col.tolist(), float(cost[[0, 1, 2], col].sum())   # 1 + 2 + 2 is the minimum total
    ([1, 0, 2], 5.0)
    """
    cost = np.asarray(cost, dtype=float)
    n = cost.shape[0]
    if cost.shape != (n, n):
        raise ValueError(f"cost matrix must be square, got {cost.shape}")
    if n and np.isfinite(cost).all():
        # every row's minimum strict and in a different column: that assignment is the unique optimum
        # (its cost is the sum of the row minima, which bounds every assignment), so every exact method returns it
        best = np.argmin(cost, axis=1)
        part = np.partition(cost, 1, axis=1) if n > 1 else None
        if n == 1 or (len(set(best.tolist())) == n and (part[:, 0] < part[:, 1]).all()):
            return best.astype(np.int64)
    u = np.zeros(n + 1)
    v = np.zeros(n + 1)
    p = np.zeros(n + 1, dtype=np.int64)  # p[j]: row matched to column j (1-based; 0 = none)
    way = np.zeros(n + 1, dtype=np.int64)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = np.full(n + 1, np.inf)
        used = np.zeros(n + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            free = ~used[1:]
            cur = cost[i0 - 1] - u[i0] - v[1:]
            upd = free & (cur < minv[1:])
            mv = minv[1:]
            mv[upd] = cur[upd]
            w = way[1:]
            w[upd] = j0
            cand = np.where(free, minv[1:], np.inf)
            j1 = int(np.argmin(cand)) + 1
            delta = cand[j1 - 1]
            u[p[used]] += delta
            v[used] -= delta
            minv[~used] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    col = np.empty(n, dtype=np.int64)
    col[p[1:] - 1] = np.arange(n)
    return col
