"""Training options beyond the reference setting: activations, Muon, minibatches, label noise, ridge top.

The reference setting of :mod:`cogo.solvers.training` (``sigma(x) = x^2``, full
batch, Adam/AdamW/SGD, trained output layer) keeps its hand-written batched
program.  Any of the options below selects :class:`OptionsBatch`, the same
batched program (the ``grid`` kernel: all ``n^2`` pairs by broadcasting, the
residual of pairs outside the step's batch multiplied by 0) with:

``activation``
    ``sigma`` in ``o(a, b) = W_c sigma(W_a[:, a] + W_b[:, b])`` (SPEC 1):
    ``sqr`` (x^2), ``relu``, ``silu`` (x sigmoid(x)), ``relusqr`` (relu(x)^2);
    the backward pass multiplies by ``sigma'(h)``.
``optimizer='muon'``
    ``torch.optim.Muon`` on each model's hidden layer ``W = [W_a W_b]`` of
    shape (q, 2n) (as ``nn.Linear(2n, q)`` stores it; momentum 0.95, Nesterov,
    torch's defaults; decoupled weight decay), ``torch.optim.Adam`` (L2 weight
    decay, as the reference setting) on the output layer ``W_c``; same ``lr``.
``batch_size`` (0 = full batch)
    every epoch each model's training pairs are shuffled (``torch.randperm``
    from a generator seeded by ``SeedSequence([seed, 4])``) and cut into
    minibatches of ``batch_size`` pairs (the last one shorter), one update
    each; the loss of a minibatch is its mean.
``label_noise`` (p in [0, 1))
    ``round(p N)`` of a model's ``N`` training pairs, drawn from a generator
    seeded by ``SeedSequence([seed, 3])``, get a label drawn uniformly from
    the ``n - 1`` wrong ones; the model trains on those labels.  The pairs and
    labels are recorded (``meta['label_noise']``); the history reports the
    true labels, and ``final`` adds the accuracy on clean training pairs, on
    corrupted pairs against the true label and against the corrupted one.
``top='ridge'`` with ``ridge`` (eta > 0; MSE only)
    before every update and at the end the output layer is replaced by the
    ridge solution on the current features of the training pairs,
    ``W_c^T = (F^T F + eta I)^{-1} F^T Y``, ``F = sigma(h)`` (N, q), ``Y`` the
    targets ``P(e_c)`` (N, n): the Li^2 setting (docs/li2.md) and the
    reference code's ``set_weight_reg``.  One batched Cholesky solve (float64)
    for all models; only ``W_a``, ``W_b`` are trained.

The ridge top layer is that of Li^2 [1]_, the Muon optimizer that of [2]_; quadratic
networks without ReLU follow [3]_.

References
----------
.. [1] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
.. [2] K. Jordan et al., "Muon: an optimizer for hidden layers in neural networks", 2024.
.. [3] A. Gromov, "Grokking modular arithmetic", arXiv:2301.02679, 2023.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from cogo.algebra.activations import THEORY, activation
from cogo.solvers.batch import _Batch, _derived_seed, _loss_and_correct

__all__ = ["TOPS", "uses_options", "validate_options", "OptionsBatch", "ridge_readout",
           "sigma", "corrupt_labels", "minibatch_order"]

TOPS = ("trained", "ridge")


def uses_options(cfg: Any) -> bool:
    """True when ``cfg`` asks for anything beyond the reference setting (then :class:`OptionsBatch` trains).

    Returns
    -------
    bool
        True when the activation is not ``sqr``, the optimizer is ``muon``, or a batch size, label
        noise or the ridge top layer is asked for.
    """
    return (getattr(cfg, "activation", THEORY) != THEORY or cfg.optimizer == "muon"
            or bool(getattr(cfg, "batch_size", 0)) or bool(getattr(cfg, "label_noise", 0.0))
            or getattr(cfg, "top", "trained") != "trained")


def validate_options(cfg: Any, n_train: int) -> None:
    """One-line ValueError on a bad option value (called by :meth:`TrainConfig.validate`)."""
    activation(cfg.activation)
    bs = cfg.batch_size
    if isinstance(bs, bool) or not isinstance(bs, (int, np.integer)) or bs < 0:
        raise ValueError(f"batch size must be a non-negative integer (0 = full batch), got {bs!r}")
    if bs > n_train:
        raise ValueError(f"batch size {bs} exceeds the {n_train} training pairs")
    p = cfg.label_noise
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p) or not 0.0 <= p < 1.0:
        raise ValueError(f"label noise must lie in [0, 1), got {p!r}")
    if cfg.top not in TOPS:
        raise ValueError(f"unknown top layer {cfg.top!r}; choose one of {', '.join(TOPS)}")
    eta = cfg.ridge
    if isinstance(eta, bool) or not isinstance(eta, (int, float)) or not math.isfinite(eta) or eta <= 0:
        raise ValueError(f"ridge must be a positive finite number, got {eta!r}")
    if cfg.top == "ridge" and cfg.loss != "mse":
        raise ValueError("--top ridge is the least-squares solution of the MSE loss; use --loss mse")


def sigma(h: torch.Tensor, activation_name: str) -> torch.Tensor:
    """``sigma(h)`` elementwise (a new tensor) for the activation named (:data:`cogo.algebra.activations.ACTIVATIONS`)."""
    return activation(activation_name).torch_(h)


def _dsigma_mul_(dh: torch.Tensor, h: torch.Tensor, activation_name: str) -> torch.Tensor:
    """In place ``dh *= sigma'(h)``."""
    return activation(activation_name).grad_mul_(dh, h)


def corrupt_labels(c_train: torch.Tensor, n: int, p: float, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``(positions, labels)``: which of the training pairs get a wrong label, and the label each gets.

    ``positions`` index ``c_train`` (sorted); each label differs from the true one.

    Returns
    -------
    positions : torch.Tensor
        int64, sorted: the ``round(p N)`` indices into ``c_train`` whose label is corrupted.
    labels : torch.Tensor
        int64, the wrong label of each of those pairs, ``(c + randint(1, n)) mod n``.

    Examples
    --------
    >>> pos, lab = corrupt_labels(torch.arange(20) % 5, 5, 0.25, seed=1)
    >>> len(pos), bool((lab != (torch.arange(20) % 5)[pos]).all())
    (5, True)
    """
    N = int(c_train.numel())
    k = int(round(p * N))
    gen = torch.Generator(device="cpu").manual_seed(_derived_seed(seed, 3))
    pos = torch.randperm(N, generator=gen)[:k].sort().values
    shift = torch.randint(1, n, (k,), generator=gen)
    return pos, (c_train[pos] + shift) % n


def minibatch_order(N: int, seed: int) -> torch.Generator:
    """The generator whose ``torch.randperm(N)`` each epoch orders a model's training pairs.

    Returns
    -------
    torch.Generator
        A CPU generator seeded by ``SeedSequence([seed, 4])``.
    """
    return torch.Generator(device="cpu").manual_seed(_derived_seed(seed, 4))


def ridge_readout(F: torch.Tensor, Y: torch.Tensor, eta: float) -> torch.Tensor:
    """``W_c = ((F^T F + eta I)^{-1} F^T Y)^T`` batched: ``F`` (M, N, q), ``Y`` (M, N, n) -> (M, n, q), float64.

    Examples
    --------
    >>> F = torch.eye(3, dtype=torch.float64)[None]
    >>> [round(x, 12) for x in ridge_readout(F, 2 * F, 1.0)[0].diagonal().tolist()]   # 2 / (1 + 1)
    [1.0, 1.0, 1.0]
    """
    F = F.to(torch.float64)
    K = torch.bmm(F.transpose(1, 2), F)
    K.diagonal(dim1=1, dim2=2).add_(float(eta))
    R = torch.bmm(F.transpose(1, 2), Y.to(torch.float64))
    L = torch.linalg.cholesky(K)
    return torch.cholesky_solve(R, L).transpose(1, 2)


class OptionsBatch(_Batch):
    """The options' batched program (see the module docstring): the trainer's ``_Batch`` on the grid kernel.

    Its ``optimizer`` wraps the Adam/AdamW/SGD state, Muon's and the minibatch generators
    (what :mod:`cogo.solvers.resume` saves).
    """

    def __init__(self, cfg, models, device, kernel):
        super().__init__(cfg, models, device, "grid")
        self.act = cfg.activation
        self.ridge = cfg.top == "ridge"
        self.tmask = self.train_mask.to(self.dtype).unsqueeze(-1)                  # (M, n^2, 1)
        self._init_targets(cfg, models, device)
        self._init_minibatches(cfg, models)
        self._init_muon(cfg, models, device)
        self.optimizer = _Optimizers(self, self.optimizer)

    def _init_targets(self, cfg, models, device) -> None:
        """Targets: the true ones (``self.T = None``), or each model's with its corrupted training labels."""
        M, n, dt = self.M, self.n, self.dtype
        self.noise: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        self.T = None
        if cfg.label_noise:
            c = self.c_all.cpu().expand(M, -1).clone()                              # (M, n^2)
            for m, (_, seed) in enumerate(models):
                tr = self.splits[seed][0]
                if seed not in self.noise:
                    pos, lab = corrupt_labels(c[m, tr], n, cfg.label_noise, seed)
                    self.noise[seed] = (tr[pos], lab)
                idx, lab = self.noise[seed]
                c[m, idx] = lab
            T = torch.nn.functional.one_hot(c, n).to(torch.float64)
            if cfg.loss == "mse":
                T -= 1.0 / n
            self.T = T.to(dt).to(device)                                            # (M, n^2, n)
            self.c_target = c.to(device)

    def _init_minibatches(self, cfg, models) -> None:
        """Minibatches: the batch size, the loss scale and each seed's order generator."""
        self.bs = int(cfg.batch_size or 0)
        self.muon = None
        self.loss_scale = (2.0 if cfg.loss == "mse" else 1.0)
        if self.bs:
            self.gens = {s: minibatch_order(self.n_train, s) for _, s in models}
            self.queue: list[torch.Tensor] = []

    def _init_muon(self, cfg, models, device) -> None:
        """Optimizers for ``optimizer='muon'``: Muon on ``[W_a W_b]`` (q, 2n) of each model, Adam on ``W_c``."""
        if cfg.optimizer != "muon":
            return
        M, n, q, dt = self.M, self.n, self.q, self.dtype
        self.H = torch.empty(M, q, 2 * n, dtype=dt, device=device)
        self.Hgrad = torch.zeros_like(self.H)
        hs = [self.H[m] for m in range(M)]
        for m, h in enumerate(hs):
            h.grad = self.Hgrad[m]
        self._hs = hs
        self.muon = torch.optim.Muon([{"params": [h], "weight_decay": float(wd)}
                                     for h, (wd, _) in zip(hs, models)], lr=cfg.lr)
        self.Wc_view = self.P[2]
        self.Wc_view.grad = self.grad[2]
        self.optimizer = torch.optim.Adam([self.Wc_view], lr=cfg.lr, betas=cfg.betas, eps=cfg.eps,
                                          weight_decay=0.0, foreach=True)

    # -- forward with sigma (the trainer's ``_forward_rows`` calls this) ------
    def _activate_(self, h: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        """``out = sigma(h)`` for the run's activation."""
        return out.copy_(sigma(h, self.act))

    def _targets(self):
        """The training targets: the true ``T_all``, or the corrupted labels' ``T``."""
        return self.T_all if self.T is None else self.T

    @torch.no_grad()
    def _ridge_(self) -> None:
        """Replace ``W_c`` by the ridge solution on the current features of the training pairs."""
        M, n, q = self.M, self.n, self.q
        _, F, _ = self._forward_rows(0, n)
        F = F.view(M, n * n, q)
        # only the training pairs: zero rows elsewhere (a zero row adds nothing to F^T F, F^T Y)
        Fm = F * self.tmask
        Y = self._targets()
        Y = Y.expand(M, -1, -1) if Y.dim() == 2 else Y
        self.P[2].copy_(ridge_readout(Fm, Y, self.cfg.ridge).to(self.dtype))

    @torch.no_grad()
    def evaluate(self):
        """The trainer's metrics (after the ridge readout with ``top='ridge'``)."""
        if self.ridge:
            self._ridge_()
        return super().evaluate()

    def _next_minibatch(self) -> None:
        """Set ``self.gscale`` to the next minibatch of every model (a new epoch's order when needed)."""
        if not self.queue:
            N, B = self.n_train, self.bs
            orders = []
            for _, s in self.models:
                tr = self.splits[s][0]
                orders.append(tr[torch.randperm(N, generator=self.gens[s])])
            order = torch.stack(orders)                                             # (M, N) pair indices
            self.queue = [order[:, i:i + B] for i in range(0, N, B)]
        idx = self.queue.pop(0)
        g = torch.zeros(self.M, self.n * self.n, dtype=torch.float64)
        g.scatter_(1, idx, self.loss_scale / idx.shape[1])
        self.gscale = g.to(self.dtype).view(self.M, -1, 1).to(self.device)

    @torch.no_grad()
    def gradient(self, metrics: bool = False):
        """The gradient of the (first) minibatch in ``self.grad``; metrics as the trainer's."""
        if self.bs:
            self._next_minibatch()
        return self._gradient_options(metrics)

    def _gradient_options(self, metrics: bool):
        """The grid kernel's gradient with ``sigma'``, the step's batch and targets (``W_c`` fixed if ridge)."""
        M, n, q = self.M, self.n, self.q
        if self.ridge:
            self._ridge_()
        h, h2, o = self._forward_rows(0, n)
        vals = None
        if metrics:
            vals = self._metrics(*_loss_and_correct(o, self.T_all, self.c_all, self.cfg.loss))
        g = self._residual_(o, self._targets()).mul_(self.gscale)
        h2f = h2.view(M, n * n, q)
        if self.ridge:
            self.grad[2].zero_()
        else:
            torch.bmm(g.transpose(1, 2), h2f, out=self.grad[2])
        dh = self.tmp.view(M, n, n, q)
        torch.bmm(g, self.P[2], out=dh.view(M, n * n, q))
        _dsigma_mul_(dh, h, self.act)
        torch.sum(dh, 2, out=self.grad[0])
        torch.sum(dh, 1, out=self.grad[1])
        return vals

    @torch.no_grad()
    def _update(self) -> None:
        """One update: the trainer's step, or Muon on ``[W_a W_b]`` and Adam on ``W_c``."""
        if self.cfg.optimizer != "muon":
            return super().step()
        n = self.n
        if self.any_wd:
            self.grad[2].addcmul_(self.P[2], self.wd[0])                            # Adam on W_c: L2
        self.H.copy_(torch.cat([self.P[0], self.P[1]], 1).transpose(1, 2))
        self.Hgrad.copy_(torch.cat([self.grad[0], self.grad[1]], 1).transpose(1, 2))
        self.muon.step()
        self.optimizer.step()
        self.P[0].copy_(self.H[:, :, :n].transpose(1, 2))
        self.P[1].copy_(self.H[:, :, n:].transpose(1, 2))

    @torch.no_grad()
    def step(self) -> None:
        """One update, then (minibatches) the rest of the epoch's minibatches."""
        self._update()
        while self.bs and self.queue:
            self._next_minibatch()
            self._gradient_options(False)
            self._update()

    @torch.no_grad()
    def finish(self, results: list) -> None:
        """Record the options' outputs in each result (label noise: pairs, labels, split accuracies)."""
        if not self.noise:
            return
        _, _, o = self._forward_rows(0, self.n)
        pred = o.argmax(-1).cpu()                                                   # (M, n^2)
        c_true = self.c_all.cpu()
        for m, r in enumerate(results):
            idx, lab = self.noise[r.seed]
            tr = self.splits[r.seed][0]
            clean = tr[~torch.isin(tr, idx)]
            r.final["clean_train_acc"] = float((pred[m, clean] == c_true[clean]).double().mean()) \
                if len(clean) else None
            ok = len(idx) > 0
            r.final["corrupted_acc_true_label"] = float((pred[m, idx] == c_true[idx]).double().mean()) \
                if ok else None
            r.final["corrupted_acc_noisy_label"] = float((pred[m, idx] == lab).double().mean()) if ok else None
            r.extra = {**(getattr(r, "extra", None) or {}),
                       "label_noise": {"pairs": idx.clone(), "labels": lab.clone(),
                                       "draw": "round(p N) training pairs by torch.randperm, labels "
                                               "(c + randint(1, n)) mod n, generator seeded by "
                                               "SeedSequence([seed, 3])"}}


class _Optimizers:
    """The options' optimizers as one object with ``step`` / ``state_dict`` / ``load_state_dict``.

    What resumable training (:mod:`cogo.solvers.resume`) saves as ``batch.optimizer``: the
    Adam (or AdamW/SGD) state, Muon's momentum buffers, and the minibatch generators (a
    state is saved between epochs, when no minibatch of the epoch is left).
    """

    def __init__(self, batch: Any, inner: Any):
        self.batch, self.inner = batch, inner

    def step(self) -> None:
        self.inner.step()

    def state_dict(self) -> dict:
        b = self.batch
        d = {"inner": self.inner.state_dict()}
        if getattr(b, "muon", None) is not None:
            d["muon"] = b.muon.state_dict()
        if b.bs:
            d["generators"] = {str(s): g.get_state() for s, g in sorted(b.gens.items())}
        return d

    def load_state_dict(self, d: dict) -> None:
        b = self.batch
        self.inner.load_state_dict(d["inner"])
        if getattr(b, "muon", None) is not None:
            b.muon.load_state_dict(d["muon"])
        if b.bs:
            for s, g in b.gens.items():
                g.set_state(d["generators"][str(s)])
            b.queue = []
