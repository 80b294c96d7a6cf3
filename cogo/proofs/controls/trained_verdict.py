"""Controls of the trained-network verdict (``cogo verify --checkpoint``) run by ``cogo verify`` (SPEC 5-7.3).

Each control writes one checkpoint file built by hand from z_F6 (SPEC 7.1) or z_F4/6 (SPEC 7.3) into a
temporary directory, reads it back through :func:`cogo.proofs.trained.verify_checkpoint` (the file reader, the
block reading, the snap and its exact certificate, the construction record) and compares the public outcome
(``certified optimizer`` / ``near a certified optimizer`` / ``not near one``), the distance and the real-space
loss with values stored below as data, each derived by hand here (never computed by the code under test).

Notation: ``n`` the odd group order, ``z`` z_F6's float64 real weights (``3 (n - 1)`` nodes, loss 0; every
block ``6^(-1/3) z_syn * z_nu`` has ``abc = 1`` and ``l_k = -1`` at every ``k != 0``), the zero network's loss
``(n - 1)/n`` (every ``l_k = 0``).  Scaling every weight by ``s`` scales every potential by ``s^3``:
``l_k = -2 s^3 + s^6``, so the loss is ``(n - 1)/n (s^3 - 1)^2``; and a node's balanced Fourier vector
(:mod:`cogo.analysis.verdict.snap`) scales by ``s`` while its snapped node (the family's normalization ``abc = 1``) is
``z``'s own, so the distance is ``|s - 1| / s``.

* **construction file**: ``z`` with ``{"construction": "z_F6"}`` recorded: the file is the float64 rounding of
  the exact construction, certified exactly (row 6): ``certified optimizer``, distance 0 (to 1e-12), loss 0.
* **construction off by 1e-10**: ``z`` times ``s = 1 + 1e-10`` with the same record: the weights differ from
  the construction by ``1e-10`` relative, far above float64 rounding, so the file is *not* the construction:
  ``near a certified optimizer`` at distance ``1e-10 / (1 + 1e-10)`` (must never read ``certified optimizer``),
  loss ``(n - 1)/n (3e-10)^2`` to first order (below 1e-18).
* **one block removed**: ``z`` without the 6 nodes of its block at the first frequency ``k1``: ``l = 0`` at
  ``+-k1`` instead of ``-1``, loss ``2/n`` (2/23 at ``n = 23``): a missing block certificate, ``not near one``.
* **order-4 blocks without their hat**: z_F4/6 with ``corrected=False`` (SPEC 7.3): the order-6 block at
  ``k0`` has ``l = -1``, each order-4 block ``l = 1`` (R_n fails without the hat): loss ``2 (n - 3)/n``, above
  the zero network's ``(n - 1)/n``: ``not near one``.
* **noisy construction, 1%**: ``z`` times ``s = 1.01``, no record: distance ``0.01/1.01 = 1/101`` (below the
  default 0.05), loss ``(n - 1)/n (1.01^3 - 1)^2`` (relative to the zero network's ``9.2e-4``): ``near``.
* **noisy construction, 10%**: ``z`` times ``s = 1.1``: distance ``1/11 > 0.05``: ``not near one``, loss
  ``(n - 1)/n (1.1^3 - 1)^2``.
* **snapped file**: the file ``--snap`` writes for the 1% noisy construction: its weights are the snapped
  optimizer itself (distance 0 to 1e-12, loss 0 to 1e-20), and it records that optimizer's exact point
  (``"exact_point"`` in its meta), so it is certified as that point: ``certified optimizer``.  The expectation
  is this literal, never read from the file: a ``--snap`` that dropped the exact point would read ``near`` and
  be MISSED.

A control is CAUGHT iff the verdict is the expected one, the distance is within 1e-12 of the expected one
(where one is stated) and the loss within ``1e-9 max(1, loss)``.  They need odd order (z_F6 is their base) and
two frequency pairs (z_F4/6), and run up to order :data:`TRAINED_CONTROL_MAX_ORDER`.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import os
import tempfile
from typing import Any, Callable

import numpy as np

from cogo.algebra.group_parsing import as_group
from cogo.proofs.controls.broken_constructions import control_name
from cogo.proofs.results import TheoremResult, Timer, check_method, make_result
from cogo.solvers import designs
from cogo.solvers.constructions import z_F6

__all__ = ["TRAINED_CONTROLS", "TRAINED_CONTROL_MAX_ORDER", "run_trained_control", "trained_applies",
           "TRAINED_WHY"]

#: The verdict's controls run up to this order (each reads one z_F6-sized checkpoint: 3 (n - 1) nodes).
TRAINED_CONTROL_MAX_ORDER = 127   # the largest order of the paper's table (and of `cogo verify`'s benchmark)
TRAINED_WHY = (f"needs odd order with two frequency pairs, at most {TRAINED_CONTROL_MAX_ORDER}: "
               "z_F6 and z_F4/6 are their base")
CERTIFIED, NEAR, NOT_NEAR = "certified optimizer", "near a certified optimizer", "not near one"


def trained_applies(G: Any) -> bool:
    return bool(G.is_odd) and len(G.positive_frequencies) >= 2 and G.order <= TRAINED_CONTROL_MAX_ORDER


def _f6(G) -> list:
    return list(z_F6(G).to_weights(real=True))


def _scaled(s: float, record: bool) -> Callable:
    def build(G):
        return [w * s for w in _f6(G)], ({"construction": "z_F6", "seed": None} if record else {})
    return build


def _removed(G):
    Wa, Wb, Wc = _f6(G)
    d = designs.f6_design(G, exact=False)
    q0 = d.blocks[0].part.q                  # the block at the first frequency: its nodes come first
    return [Wa[q0:], Wb[q0:], Wc[:, q0:]], {}


def _no_hat(G):
    return list(designs.f46_design(G, exact=False, corrected=False).to_network().to_weights(real=True)), {}


def _loss_scaled(s: float) -> Callable:
    return lambda n: (n - 1) / n * (s ** 3 - 1) ** 2


#: name -> (statement, build(G) -> (weights, meta), expected verdict, expected distance (None: not stated),
#: expected loss as a function of n).  Derivations: the module docstring.
TRAINED_CONTROLS: dict = {
    "verdict: z_F6 construction file": (
        "z_F6's float64 weights with its construction recorded: certified optimizer, distance 0, loss 0",
        _scaled(1.0, True), CERTIFIED, 0.0, lambda n: 0.0),
    "verdict: z_F6 construction file off by 1e-10": (
        "z_F6's weights times 1 + 1e-10 with the construction recorded: not the construction (1e-10 relative "
        "is far above float64 rounding): near at distance 1e-10/(1 + 1e-10), never certified optimizer",
        _scaled(1.0 + 1e-10, True), NEAR, 1e-10 / (1.0 + 1e-10), _loss_scaled(1.0 + 1e-10)),
    "verdict: z_F6 with one block removed": (
        "z_F6 without its block at the first frequency: l = 0 at +-k1, loss 2/n, a missing block: not near one",
        _removed, NOT_NEAR, None, lambda n: 2 / n),
    "verdict: order-4 blocks without their hat": (
        "z_F4/6 without the hat correction: loss 2(n-3)/n, above the zero network's (n-1)/n: not near one",
        _no_hat, NOT_NEAR, None, lambda n: 2 * (n - 3) / n),
    "verdict: z_F6 with 1% noise": (
        "z_F6's weights times 1.01: distance 1/101 <= 0.05, loss (n-1)/n (1.01^3 - 1)^2: near",
        _scaled(1.01, False), NEAR, 0.01 / 1.01, _loss_scaled(1.01)),
    "verdict: z_F6 with 10% noise": (
        "z_F6's weights times 1.1: distance 1/11 > 0.05, loss (n-1)/n (1.1^3 - 1)^2: not near one",
        _scaled(1.1, False), NOT_NEAR, 0.1 / 1.1, _loss_scaled(1.1)),
    "verdict: a snapped file": (
        "the file --snap writes for z_F6 with 1% noise: it records its exact point, so it is that point: "
        "certified optimizer, distance 0, loss 0", None, CERTIFIED, 0.0, lambda n: 0.0),
}


def _read(path: str, G: Any):
    from cogo.proofs.trained import verify_checkpoint  # late: torch, the classifier (only these controls)

    return verify_checkpoint(path, group=G)


def run_trained_control(name: str, group: Any, method: str = "exact", files: Callable | None = None
                        ) -> TheoremResult:
    """Run one control of :data:`TRAINED_CONTROLS` (module docstring).

    ``files(G, directory)`` (testing the control) replaces the hand-built file: it returns the path to read.

    Returns
    -------
    TheoremResult
        A negative control of the verdict route (its exact certificate included; the row runs once, under
        ``"exact"``, the distance and loss it compares being float64): CAUGHT iff the verdict, the distance (to
        1e-12) and the loss (to 1e-9 relative) are the hand-derived ones.

    Examples
    --------
    >>> r = run_trained_control("verdict: z_F6 with one block removed", 7)
    >>> r.status, r.details["verdict"], r.details["expected_verdict"]
    ('CAUGHT', 'not near one', 'not near one')
    """
    from cogo.io.weights import save_checkpoint  # late: torch

    method = check_method(method)
    G = as_group(group)
    statement, build, want, want_dist, want_loss = TRAINED_CONTROLS[name]
    n = G.order
    with Timer() as t, tempfile.TemporaryDirectory(prefix="cogo-verdict-") as tmp:
        meta: dict = {}
        if files is not None:
            path = files(G, tmp)
        elif build is None:  # the snapped file: --snap's output for z_F6 with 1% noise
            src = os.path.join(tmp, "noisy.pt")
            W, _ = _scaled(1.01, False)(G)
            save_checkpoint(src, *W, meta={"group": str(G)})
            from cogo.proofs.trained import write_snapped  # late: torch

            path = os.path.join(tmp, "snapped.pt")
            write_snapped(_read(src, G), path)
        else:
            W, meta = build(G)
            path = os.path.join(tmp, "control.pt")
            save_checkpoint(path, *W, meta={"group": str(G), **meta})
        v = _read(path, G)
        dist = float(v.nearest_optimum["distance"])
        loss = float(v.nearest_optimum["loss_trained"])
        el = float(want_loss(n))
        dist_ok = want_dist is None or (np.isfinite(dist) and abs(dist - want_dist) <= 1e-12)
        loss_ok = abs(loss - el) <= 1e-9 * max(1.0, el)
        caught = v.verdict == want and dist_ok and loss_ok and v.exit_code == (1 if want == NOT_NEAR else 0)
    return make_result(name, statement + "; CAUGHT iff the verdict is the one derived by hand, the distance within "
                       "1e-12 and the real-space loss within 1e-9 of their closed forms (float64)", method, caught,
                       abs(loss - el), t, negative_control=True, verdict=v.verdict, expected_verdict=want,
                       distance=dist, expected_distance=want_dist, loss=loss, expected_loss=el,
                       blocks_away=list(v.nearest_optimum.get("blocks_away", []))[:3],
                       failing_conditions=[f"verdict '{v.verdict}', distance {dist:.3g}"],
                       expected_failing=[f"verdict '{want}'" + ("" if want_dist is None else f", distance {want_dist:.3g}")])


def _control(name: str) -> Callable:
    def control(group: Any, method: str = "exact", files: Callable | None = None) -> TheoremResult:
        return run_trained_control(name, group, method, files)

    control.__name__ = control_name(name)
    control.__doc__ = f"Control {name!r} of the trained verdict: {TRAINED_CONTROLS[name][0]} (module docstring)."
    return control


for _name in TRAINED_CONTROLS:
    globals()[control_name(_name)] = _control(_name)
    __all__.append(control_name(_name))
