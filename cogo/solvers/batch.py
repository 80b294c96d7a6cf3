"""The batched full-batch program of :mod:`cogo.solvers.training`: data, initialization, gradients (SPEC 1).

:mod:`cogo.solvers.training_options` subclasses :class:`_Batch`; the trainer's entry points
(:func:`cogo.solvers.training.train`) build one per batch of models.  The model is
``o(a, b) = W_c sigma(W_a[:, a] + W_b[:, b])`` with ``sigma(x) = x^2`` (SPEC 1).

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from cogo.algebra.group_parsing import as_group


# ---------------------------------------------------------------- data and initialization
def split_sizes(n: int, test_fraction: float) -> tuple[int, int]:
    """``(n_train, n_test)`` for all ``n^2`` pairs: ``n_train = floor((1 - f) n^2)``.

    >>> split_sizes(23, 0.1)
    (476, 53)
    """
    total = n * n
    n_train = int(math.floor((1.0 - float(test_fraction)) * total + 1e-9))
    n_train = min(max(n_train, 0), total)
    return n_train, total - n_train


def _derived_seed(seed: int, stream: int) -> int:
    """A 63-bit seed for an independent random stream of ``seed`` (numpy SeedSequence)."""
    state = np.random.SeedSequence([int(seed), int(stream)]).generate_state(2, dtype=np.uint32)
    return (int(state[0]) << 31 | int(state[1]) >> 1) & (2**63 - 1)


def split_pairs(group: Any, test_fraction: float, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Split the ``n^2`` pairs (index ``a * n + b``, SPEC 1) into train and test sets.

    A random permutation drawn from a ``torch.Generator`` seeded with a value
    derived from ``seed`` alone (``numpy.random.SeedSequence([seed, 1])``, so
    the split stream is independent of the initialization stream); the first
    ``floor((1 - test_fraction) n^2)`` pairs are for training.  Both index
    tensors are int64 and sorted; together they partition ``0 .. n^2-1``.

    >>> train_idx, test_idx = split_pairs(5, 0.2, seed=1)
    >>> len(train_idx), len(test_idx)
    (20, 5)
    >>> sorted(train_idx.tolist() + test_idx.tolist()) == list(range(25))
    True
    >>> bool((split_pairs(5, 0.2, seed=1)[1] == test_idx).all())   # the seed alone fixes the split
    True
    """
    G = as_group(group)
    n_train, _ = split_sizes(G.order, test_fraction)
    gen = torch.Generator(device="cpu").manual_seed(_derived_seed(seed, 1))
    perm = torch.randperm(G.order * G.order, generator=gen)
    return perm[:n_train].sort().values, perm[n_train:].sort().values


def init_weights(q: int, n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Default PyTorch ``nn.Linear`` initialization of the three layers (float32).

    ``layera = Linear(n, q, bias=False)``, ``layerb`` likewise,
    ``layerc = Linear(q, n, bias=False)``, created in that order with
    ``kaiming_uniform_(a=sqrt(5))`` (= ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``)
    from a ``torch.Generator`` seeded with ``seed``: bit-for-bit the weights
    that ``torch.manual_seed(seed)`` followed by building those three layers
    gives.  Returns ``Wa (q, n)``, ``Wb (q, n)``, ``Wc (n, q)``.

    >>> import torch
    >>> Wa, Wb, Wc = init_weights(8, 5, seed=0)
    >>> Wa.shape, Wc.shape
    (torch.Size([8, 5]), torch.Size([5, 8]))
    >>> _ = torch.manual_seed(0)
    >>> torch.equal(Wa, torch.nn.Linear(5, 8, bias=False).weight.detach())
    True
    """
    gen = torch.Generator(device="cpu").manual_seed(int(seed))
    out = []
    for shape in ((q, n), (q, n), (n, q)):
        w = torch.empty(shape, dtype=torch.float32)
        torch.nn.init.kaiming_uniform_(w, a=math.sqrt(5), generator=gen)
        out.append(w)
    return tuple(out)  # type: ignore[return-value]


def pair_targets(group: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(a, b, c)`` int64 tensors over all pairs ``p = a * n + b`` with ``c = a + b`` (SPEC 1).

    For a non-Abelian :class:`cogo.algebra.finite_groups.FiniteGroup` ``c = a * b``: its ``add_table``
    is the Cayley table (SPEC 9).
    """
    G = as_group(group)
    n = G.order
    p = torch.arange(n * n)
    a, b = p // n, p % n
    c = torch.from_numpy(np.array(G.add_table, dtype=np.int64).reshape(-1))
    return a, b, c


# ---------------------------------------------------------------- the batched program
KERNELS = ("auto", "grid", "gather")

#: ``kernel='auto'`` uses the all-pairs grid when at least this fraction of the pairs trains.
GRID_MIN_TRAIN_FRACTION = 0.65


def choose_kernel(n: int, n_train: int, kernel: str = "auto") -> str:
    """``'grid'`` (all n^2 pairs, test pairs masked) or ``'gather'`` (training pairs only).

    Both compute the same gradient (SPEC 1); they differ only in cost: the
    grid replaces the row gathers and scatter-adds by broadcasting and sums
    and gives the full-data metrics for free, but does the work of all
    ``n^2`` pairs, so it wins when most pairs train.

    >>> choose_kernel(23, 476), choose_kernel(23, 100), choose_kernel(23, 100, "grid")
    ('grid', 'gather', 'grid')
    """
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; choose one of {', '.join(KERNELS)}")
    if kernel != "auto":
        return kernel
    return "grid" if n_train >= GRID_MIN_TRAIN_FRACTION * n * n else "gather"


def _work_elements(n: int, q: int, n_train: int, kernel: str) -> int:
    """Elements of working memory per model (buffers, weights, optimizer state)."""
    rows = n * n if kernel == "grid" else n_train
    eval_o = 0 if kernel == "grid" else max(1, n_train // n) * n * n
    return 3 * rows * q + 2 * rows * n + eval_o + 6 * 3 * n * q + 4 * n * n


def _available_bytes(device: torch.device) -> int | None:
    """Free memory on ``device`` (CUDA: free device memory; CPU: MemAvailable), or None if unknown."""
    if device.type == "cuda":
        try:
            return int(torch.cuda.mem_get_info(device)[0])
        except Exception:  # pragma: no cover - depends on the driver
            return None
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    return None


def _loss_and_correct(o: torch.Tensor, T: torch.Tensor, c: torch.Tensor, loss: str
                      ) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-pair loss and ``argmax o == c`` for outputs ``o`` (M, P, n), targets ``T`` and answers ``c``.

    ``T`` is ``P(e_c) = e_c - 1/n`` for the MSE (SPEC 1), ``e_c`` for the cross-entropy;
    ``T`` and ``c`` broadcast against ``o`` and ``o.argmax(-1)``.
    """
    if loss == "mse":
        r = o - o.mean(-1, keepdim=True) - T
        per = (r * r).sum(-1)
    else:
        per = torch.logsumexp(o, -1) - (o * T).sum(-1)
    return per, o.argmax(-1) == c


def _per_pair(Wt_a: torch.Tensor, Wt_b: torch.Tensor, Wc: torch.Tensor, a: torch.Tensor, b: torch.Tensor,
              c: torch.Tensor, loss: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-pair loss and correctness for stacked weights ``Wt_a, Wt_b, Wc`` of shape (M, n, q)."""
    n = Wc.shape[1]
    h = Wt_a[:, a] + Wt_b[:, b]                      # (M, P, q)  column lookup, SPEC 1
    o = torch.bmm(h * h, Wc.transpose(1, 2))         # (M, P, n)
    T = torch.nn.functional.one_hot(c, n).to(o.dtype)
    if loss == "mse":
        T = T - 1.0 / n
    return _loss_and_correct(o, T, c, loss)


class _Batch:
    """Weights, buffers and optimizer state of ``M`` models trained as one program.

    The weights live in one tensor ``P`` of shape ``(3, M, n, q)``: ``P[0] = W_a^T``,
    ``P[1] = W_b^T``, ``P[2] = W_c``.  Two kernels compute the same gradient:

    * ``grid``: ``h[m, a, b] = W_a^T[m, a] + W_b^T[m, b]`` for all ``n^2`` pairs
      by broadcasting; the residual of test pairs is multiplied by 0, and
      ``dL/dW_a``, ``dL/dW_b`` are sums of ``dL/dh`` over ``b`` and over ``a``;
    * ``gather``: ``h`` only for each model's own training pairs, by
      ``index_select`` of rows; ``dL/dW_a``, ``dL/dW_b`` by ``index_add_``.

    All work buffers are allocated once; the epoch loop allocates only small tensors.
    """

    def __init__(self, cfg: Any, models: list[tuple[float, int]], device: torch.device, kernel: str):
        G = as_group(cfg.group)
        self.cfg, self.models, self.device = cfg, models, device
        self.n = n = G.order
        self.q = q = cfg.hidden
        self.M = M = len(models)
        self.dtype = dt = cfg.torch_dtype
        self.n_train, self.n_test = split_sizes(n, cfg.test_fraction)
        N = self.n_train
        self.kernel = kernel = choose_kernel(n, N, kernel)
        total = n * n

        # weights and per-model splits, each from the model's own seed
        P = torch.empty(3, M, n, q, dtype=dt)
        self.splits: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        inits: dict[int, tuple[torch.Tensor, ...]] = {}
        for m, (_, seed) in enumerate(models):
            if seed not in inits:
                inits[seed] = init_weights(q, n, seed)
                self.splits[seed] = split_pairs(G, cfg.test_fraction, seed)
            Wa, Wb, Wc = inits[seed]
            P[0, m], P[1, m], P[2, m] = Wa.t(), Wb.t(), Wc
        self.P = P.to(device).contiguous()
        self.grad = torch.zeros_like(self.P)
        train_idx = torch.stack([self.splits[s][0] for _, s in models])            # (M, N)

        a_all, b_all, c_all = pair_targets(G)
        T_all = torch.nn.functional.one_hot(c_all, n).to(torch.float64)
        if cfg.loss == "mse":
            T_all -= 1.0 / n                                                       # P(e_c)
        self.T_all = T_all.to(dt).to(device)                                       # (n^2, n)
        self.c_all = c_all.to(device)
        mask = torch.zeros(M, total, dtype=torch.bool).scatter_(1, train_idx, True)
        self.train_mask = mask.to(device)
        # d loss / d o = scale * residual; residual = P(o) - P(e_c) (MSE) or softmax(o) - e_c (CE)
        scale = (2.0 if cfg.loss == "mse" else 1.0) / N

        if kernel == "grid":
            rows = total
            self.gscale = (mask.to(torch.float64) * scale).to(dt).view(M, total, 1).to(device)
        else:
            rows = N
            self.scale = scale
            offs = (torch.arange(M) * n).view(M, 1)
            self.ia = (a_all[train_idx] + offs).reshape(-1).to(device)            # rows of P[0].view(M n, q)
            self.ib = (b_all[train_idx] + offs).reshape(-1).to(device)
            self.c_train = c_all[train_idx].to(device)                             # (M, N)
            self.T_train = self.T_all[self.c_train.reshape(-1)].view(M, N, n)     # (M, N, n)
            self.eval_rows = max(1, N // n)                                        # values of a per eval chunk
        # work buffers (flat, viewed as needed)
        self.h = torch.empty(M * rows * q, dtype=dt, device=device)
        self.h2 = torch.empty(M * rows * q, dtype=dt, device=device)
        self.tmp = torch.empty(M * rows * q, dtype=dt, device=device)
        o_rows = rows if kernel == "grid" else max(rows, self.eval_rows * n)
        self.o = torch.empty(M * o_rows * n, dtype=dt, device=device)

        # optimizer state
        wds = torch.tensor([wd for wd, _ in models], dtype=torch.float64)
        self.any_wd = bool((wds != 0).any())
        self.wd = wds.to(dt).view(1, M, 1, 1).to(device)
        self.decay = torch.tensor([1.0 - cfg.lr * wd for wd, _ in models], dtype=torch.float64) \
            .to(dt).view(1, M, 1, 1).to(device)
        # torch.optim on the whole stack (elementwise, so every model's update is its own); the
        # per-model weight decay is applied in step(), as torch.optim would apply a scalar one
        # (foreach: measured 7% faster per step than the default single-tensor path on CPU, same bits)
        self.P.grad = self.grad
        if cfg.optimizer == "sgd":
            self.optimizer = torch.optim.SGD([self.P], lr=cfg.lr, momentum=cfg.momentum, foreach=True)
        else:
            opt = torch.optim.Adam if cfg.optimizer == "adam" else torch.optim.AdamW
            self.optimizer = opt([self.P], lr=cfg.lr, betas=cfg.betas, eps=cfg.eps, weight_decay=0.0, foreach=True)

    # -- views ------------------------------------------------------------
    def weights(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Current ``Wa, Wb`` (M, q, n) and ``Wc`` (M, n, q): copies on the CPU, reference layout."""
        P = self.P.detach()
        # copy=True: on the CPU, ``.contiguous().cpu()`` of the contiguous P[2] would be a view of the
        # live weights, and every snapshot would then show the final W_c (issue 10)
        return tuple(x.to("cpu", copy=True, memory_format=torch.contiguous_format)
                     for x in (P[0].transpose(1, 2), P[1].transpose(1, 2), P[2]))  # type: ignore[return-value]

    def _forward_rows(self, a0: int, a1: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``h``, ``h**2`` (M, k, n, q) and ``o`` (M, k n, n) for the pairs with ``a0 <= a < a1``."""
        M, n, q = self.M, self.n, self.q
        k = a1 - a0
        size = M * k * n * q
        h = self.h[:size].view(M, k, n, q)
        h2 = self.h2[:size].view(M, k, n, q)
        o = self.o[:M * k * n * n].view(M, k * n, n)
        torch.add(self.P[0, :, a0:a1].unsqueeze(2), self.P[1].unsqueeze(1), out=h)   # W_a[:, a] + W_b[:, b]
        self._activate_(h, h2)
        torch.bmm(h2.view(M, k * n, q), self.P[2].transpose(1, 2), out=o)            # o = W_c h^2
        return h, h2, o

    def _activate_(self, h: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        """``out = sigma(h) = h**2`` (SPEC 1); the options' subclass applies its own ``sigma``."""
        return torch.mul(h, h, out=out)

    def _metrics(self, per: torch.Tensor, correct: torch.Tensor) -> torch.Tensor:
        """``(4, M)`` float64 on the CPU: train loss, test loss, train accuracy, test accuracy."""
        per = per.to(torch.float64)
        correct = correct.to(torch.float64)
        tm = self.train_mask.to(torch.float64)
        te = 1.0 - tm
        out = torch.stack([(per * tm).sum(1) / self.n_train, (per * te).sum(1) / self.n_test,
                           (correct * tm).sum(1) / self.n_train, (correct * te).sum(1) / self.n_test])
        return out.cpu()

    @torch.no_grad()
    def evaluate(self) -> torch.Tensor:
        """Metrics of the current weights on all ``n^2`` pairs, see :meth:`_metrics`."""
        n, loss = self.n, self.cfg.loss
        k = n if self.kernel == "grid" else self.eval_rows
        per, corr = [], []
        for a0 in range(0, n, k):
            a1 = min(n, a0 + k)
            _, _, o = self._forward_rows(a0, a1)
            sl = slice(a0 * n, a1 * n)
            pl, cr = _loss_and_correct(o, self.T_all[sl], self.c_all[sl], loss)
            per.append(pl)
            corr.append(cr)
        return self._metrics(torch.cat(per, 1), torch.cat(corr, 1))

    # -- one full-batch gradient (hand-written backward of SPEC 1) ---------
    @torch.no_grad()
    def gradient(self, metrics: bool = False) -> torch.Tensor | None:
        """Put the gradient of every model's mean training loss in ``self.grad``.

        With ``metrics=True`` also return the metrics of the current weights
        (:meth:`_metrics`), computed before the gradient.
        """
        if self.kernel == "grid":
            return self._gradient_grid(metrics)
        vals = self.evaluate() if metrics else None
        self._gradient_gather()
        return vals

    def _residual_(self, o: torch.Tensor, T: torch.Tensor) -> torch.Tensor:
        """In place: ``P(o) - P(e_c)`` (MSE) or ``softmax(o) - e_c`` (CE)."""
        if self.cfg.loss == "mse":
            return o.sub_(o.mean(-1, keepdim=True)).sub_(T)
        return o.copy_(torch.softmax(o, -1)).sub_(T)

    def _gradient_grid(self, metrics: bool) -> torch.Tensor | None:
        M, n, q = self.M, self.n, self.q
        h, h2, o = self._forward_rows(0, n)
        vals = None
        if metrics:
            vals = self._metrics(*_loss_and_correct(o, self.T_all, self.c_all, self.cfg.loss))
        g = self._residual_(o, self.T_all).mul_(self.gscale)           # dL/do, zero on test pairs
        h2f = h2.view(M, n * n, q)
        torch.bmm(g.transpose(1, 2), h2f, out=self.grad[2])            # dL/dW_c = g^T h^2
        dh = self.tmp.view(M, n, n, q)
        torch.bmm(g, self.P[2], out=dh.view(M, n * n, q))              # dL/d(h^2) = g W_c
        dh.mul_(h)                                                     # dL/dh = 2 h (g W_c), 2 below
        torch.sum(dh, 2, out=self.grad[0])                             # sum over b
        torch.sum(dh, 1, out=self.grad[1])                             # sum over a
        self.grad[:2].mul_(2.0)
        return vals

    def _gradient_gather(self) -> None:
        M, n, q, N = self.M, self.n, self.q, self.n_train
        A = self.P[0].view(M * n, q)
        B = self.P[1].view(M * n, q)
        C = self.P[2]
        h = self.h.view(M * N, q)
        h2 = self.h2.view(M, N, q)
        tmp = self.tmp.view(M * N, q)
        o = self.o[:M * N * n].view(M, N, n)
        torch.index_select(A, 0, self.ia, out=h)                       # W_a[:, a] as rows
        torch.index_select(B, 0, self.ib, out=tmp)                     # W_b[:, b]
        h.add_(tmp)
        torch.mul(h, h, out=h2.view(M * N, q))
        torch.bmm(h2, C.transpose(1, 2), out=o)                        # o = W_c h^2
        g = self._residual_(o, self.T_train).mul_(self.scale)
        torch.bmm(g.transpose(1, 2), h2, out=self.grad[2])
        torch.bmm(g, C, out=tmp.view(M, N, q))
        tmp.mul_(h)
        self.grad[0].view(M * n, q).zero_().index_add_(0, self.ia, tmp, alpha=2.0)
        self.grad[1].view(M * n, q).zero_().index_add_(0, self.ib, tmp, alpha=2.0)

    # -- optimizers (elementwise, per-model weight decay) -------------------
    @torch.no_grad()
    def step(self) -> None:
        """One update by ``torch.optim.Adam`` / ``AdamW`` / ``SGD`` on the stacked weights ``P``.

        ``torch.optim`` takes one weight decay per parameter group, while the models of a batch
        share one tensor; so each model's decay is applied here exactly as ``torch.optim`` applies
        its own (``tests/solvers/test_training.py`` checks the trajectories bit for bit): L2 for Adam and
        SGD (``grad += wd W`` before the update), decoupled for AdamW (``W *= 1 - lr wd``).
        """
        if self.any_wd:
            if self.cfg.optimizer == "adamw":
                self.P.mul_(self.decay)                                # AdamW: W *= 1 - lr wd
            else:
                self.grad.addcmul_(self.P, self.wd)                    # L2: grad + wd W
        self.optimizer.step()
