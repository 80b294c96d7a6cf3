"""Benchmark: fourier_loss and every potential tensor at d=127, q=512 (issue: target < 1 s on 2 cores).

    python benchmarks/bench_algebra.py [--d 127] [--q 512] [--out benchmarks/results/algebra.json]

Records best-of-5 wall times of: Fourier transform, fourier_loss, the three
potential tensors r, r_a, r_b, the condition residuals, and real_loss on the
same weights (all n^2 pairs), and the ratio fourier_loss / real_loss.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import best_of, machine_info, write_json  # noqa: E402

from cogo.algebra import (  # noqa: E402
    Cyclic,
    Network,
    condition_residuals,
    fourier_loss,
    potentials,
    real_loss,
    self_potentials,
)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=127)
    ap.add_argument("--q", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default="benchmarks/results/algebra.json")
    ap.add_argument("--threads", type=int, default=None,
                    help="CPU threads (default: cogo's thread policy, 1 for these small operations; issue 21)")
    args = ap.parse_args(argv)
    from cogo.runtime.threads import limit_process

    limit_process(args.threads)  # these functions are not entry points: the policy applies to the whole script
    G = Cyclic(args.d)
    rng = np.random.default_rng(0)
    Wa = rng.normal(size=(args.q, args.d)) + 0.1
    Wb = rng.normal(size=(args.q, args.d)) - 0.1
    Wc = rng.normal(size=(args.d, args.q))
    z = Network.from_weights(Wa, Wb, Wc, G)

    t = {}
    t["fourier_transform"] = best_of(lambda: Network.from_weights(Wa, Wb, Wc, G), args.repeat)
    t["fourier_loss"] = best_of(lambda: fourier_loss(z), args.repeat)
    t["potentials_r"] = best_of(lambda: potentials(z), args.repeat)
    t["potentials_r_a_r_b"] = best_of(lambda: (self_potentials(z, "a"), self_potentials(z, "b")), args.repeat)
    t["fourier_loss_and_all_potentials"] = best_of(
        lambda: (fourier_loss(z), potentials(z), self_potentials(z, "a"), self_potentials(z, "b")), args.repeat)
    t["condition_residuals"] = best_of(lambda: condition_residuals(z), args.repeat)
    t["real_loss_all_pairs"] = best_of(lambda: real_loss(Wa, Wb, Wc, group=G), args.repeat)
    fl, rl = fourier_loss(z), real_loss(Wa, Wb, Wc, group=G)
    result = {
        "benchmark": "algebra",
        "command": "python benchmarks/bench_algebra.py " + " ".join(argv or sys.argv[1:]),
        "d": args.d,
        "q": args.q,
        "seconds": t,
        "ratio_fourier_loss_to_real_loss": t["fourier_loss"] / t["real_loss_all_pairs"],
        "target_seconds_loss_and_potentials": 1.0,
        "meets_target": t["fourier_loss_and_all_potentials"] < 1.0,
        "loss_agreement_relative": abs(fl - rl) / abs(rl),
        "machine": machine_info(),
    }
    for k, v in t.items():
        print(f"{k:36s} {v * 1e3:9.1f} ms")
    print(f"fourier_loss / real_loss time ratio: {result['ratio_fourier_loss_to_real_loss']:.3f}")
    print(f"relative loss agreement: {result['loss_agreement_relative']:.2e}")
    write_json(args.out, result)
    return result


if __name__ == "__main__":
    main()
