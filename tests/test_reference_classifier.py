"""benchmarks/reference_classifier.py: the reference classifier's algorithm, re-implemented (issue 35).

Expected names are argued from the constructions and the reference's rules (the module docstring's
steps), never computed by cogo's classifier.  With w = exp(2 pi i / 3): a block is read from its
output values c only to pair nodes (step 4); a pairing whose c-ratios are constant gives the
order-2 factor as the ratio of paired nodes and the other factor as the first half (step 6).
"""
import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from cogo.algebra import Network
from cogo.solvers.constructions import z_F6, z_F6_ab, z_F46
from cogo.catalogue.partial import z_nu, z_nu_i, z_syn, z_syn_ab, z_xi

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "reference_classifier.py"
_spec = importlib.util.spec_from_file_location("reference_classifier", _PATH)
R = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(R)

D = 23
W = np.exp(2j * np.pi / 3)
#: nu at 22.5 degrees: 7.5 degrees from the angles (15 + 30 j) where -w^m nu^-2 = +-i (factor read as xi)
#: and from (30 j) where it is z_nu=i up to the relabelling nu -> w nu; nu^4 is no cube root of 1, so
#: every pairing with constant c-ratios takes all ``nu``-nodes into one half (see test_f6).
NU = complex(np.exp(1j * np.pi / 8))
CATALOGUE = {"nu=i*xi", "nu=i*syn_ab", "nu*syn"}


def weights(*placed):
    """Real weights of partial solutions placed at frequencies: ``weights((part, k), ...)`` (nodes in order)."""
    Ws = [Network.block(D, k, p.a, p.b, p.c).to_weights(real=True) for p, k in placed]
    return (np.vstack([w[0] for w in Ws]), np.vstack([w[1] for w in Ws]), np.hstack([w[2] for w in Ws]))


def block(part):
    """The reference's (A; B; C) rows of one partial solution at frequency 1 (through real weights)."""
    A, B, C = R.fourier(*weights((part, 1)), dtype=np.complex128)
    return np.stack([A[1], B[1], C[1]])


# --------------------------------------------------------------------------- steps 1-3
def test_fourier_convention_has_opposite_signs_for_inputs_and_outputs():
    x = np.arange(D)
    wave_cos = np.cos(2 * np.pi * 3 * x / D)[None, :]
    wave_sin = np.sin(2 * np.pi * 3 * x / D)
    A, B, C = R.fourier(wave_cos, 2 * wave_cos, wave_sin[:, None], dtype=np.complex128)
    # mean of cos(t) e^{-it} = 1/2; mean of sin(t) e^{+it} = i/2 (with e^{-it} it would be -i/2)
    assert A[3, 0] == pytest.approx(0.5, abs=1e-12) and B[3, 0] == pytest.approx(1.0, abs=1e-12)
    assert C[3, 0] == pytest.approx(0.5j, abs=1e-12)
    assert abs(A[D - 3, 0] - 0.5) < 1e-12 and abs(C[D - 3, 0] + 0.5j) < 1e-12


def test_frequency_of_a_node_is_decided_by_a_alone_with_absolute_dead_threshold():
    x = np.arange(D)
    cos = lambda k, s: s * np.cos(2 * np.pi * k * x / D)  # noqa: E731   |A[k]| = s / 2
    Wa = np.stack([cos(2, 0.2), cos(2, 0.09), cos(0, 0.08) + cos(5, 0.15), cos(4, 0.11), cos(7, 0.3)])
    Wb = np.stack([cos(2, 1.0), cos(2, 1.0), cos(5, 1.0), cos(4, 1.0), cos(9, 5.0)])
    Wc = np.ones((D, 5))
    A = R.fourier(Wa, Wb, Wc, np.complex128)[0]
    got = R.frequencies(A)
    # node 1: |A| = 0.045 <= 0.05, dead; node 2: |A[0]| = 0.08 beats |A[5]| = 0.075, so frequency 0 (dropped);
    # node 4: A says 7 although B is far larger at 9
    assert {k: v for k, v in got.items() if v} == {2: [0], 4: [3], 7: [4]}


_AL, _BE = complex(np.exp(0.6j)), complex(np.exp(-0.9j))
_AB = [1, _AL * W, _BE * W**2]


@pytest.mark.parametrize("factor, expected", [
    ([[1, 1j], [1, -1j], [1, 1]], "order-2-4c"),                    # z_nu=i
    ([[1, 2j], [1, -2j], [1, 2]], "order-2-4c"),                    # 2 z_nu=i: a b c = 8, divided by 2
    ([[1, 1j], [1, W], [1, -1j / W]], "order-2-unknown"),           # a = i but c = -i conj(w): neither 1 nor +-i
    ([[1, NU], [1, -NU], [1, -NU**-2]], "order-2-nu"),              # z_nu
    ([[1, -1j], [1, 1j], [1, -1]], "order-2-nu"),                   # a b c = -1: principal root e^{i pi/3}, c -> w
    ([[1, np.exp(0.3j)], [1, -1j * np.exp(-0.3j)], [1, 1j]], "order-2-xi"),   # z_xi(e^{0.3i}, 1)
    ([[1, W, W**2]] * 3, "order-3-syn"),
    ([[1, -W, W**2], [1, -W, W**2], [1, W, W**2]], "order-3-syn"),  # column 1 in the sign gauge
    ([[1, W**2, W]] * 3, "order-3-syn"),                            # conjugate: column 1 has Im c < 0
    ([_AB, [1 / (x * y) for x, y in zip(_AB, [1, W, W**2])], [1, W, W**2]], "order-3-syn-ab"),
    ([[1, W, W], [1, W, W], [1, W, W]], "order-3-unknown"),
])
def test_factor_labels(factor, expected):
    assert R.label(np.array(factor, dtype=np.complex128)) == expected


# --------------------------------------------------------------------------- constructions (steps 4-8)
def test_f6_blocks_are_nu_syn():
    # pairings with constant c-ratio pair each 1-node of z_nu with a nu-node (ratio -w^m nu^-2): the
    # order-2 factor is (w^m nu, -w^m nu, -w^m nu^-2), a + b = 0, c neither 1 nor +-i -> nu; the first
    # half is the 1-nodes (1, w, w^2) in some order -> syn (or all nu-nodes: 1/that, the same labels)
    names = R.reference_names(*z_F6(D, nu=NU).to_weights(real=True))
    assert names == {k: "nu*syn" for k in range(1, 12)}


def test_f46_blocks():
    z = z_F46(D, k0=4, nu=NU, xi=complex(np.exp(0.3j)), s=-1)
    names = R.reference_names(*z.to_weights(real=True))
    # order 4: c = (1, s i, 1, s i); pairing equal c (ratio 1) gives z_nu=i (a ~ i, c = 1: 4c) and z_xi
    # (c = s i: xi); pairing ratio s i gives them the other way round; either way (4c, xi)
    assert names == {k: ("nu*syn" if k == 4 else "nu=i*xi") for k in range(1, 12)}


def test_f6_ab_blocks_are_nu_i_syn_ab():
    # c = (1, w, w^2, 1, w, w^2): nodes j and j + 3 have identical output weights, so the identity
    # order has error exactly 0 and is the first: factor (i, -i, 1) -> 4c; first half z_syn,ab:
    # c = (1, w, w^2) -> syn-ab (alpha, beta != 1: a is not (1, w, w^2))
    z = z_F6_ab(D, alpha=complex(np.exp(0.7j)), beta=complex(np.exp(-1.1j)))
    names = R.reference_names(*z.to_weights(real=True))
    assert names == {k: "nu=i*syn_ab" for k in range(1, 12)}


def test_partial_products_at_frequencies():
    xi = complex(np.exp(0.4j))
    placed = [(z_nu_i() * z_xi(xi, 1), 2), (z_nu_i() * z_xi(xi, -1), 3), (z_syn() * z_nu(NU), 5),
              (z_nu_i() * z_syn_ab(complex(np.exp(0.5j)), complex(np.exp(2.0j))), 7)]
    names = R.reference_names(*weights(*placed))
    assert names == {2: "nu=i*xi", 3: "nu=i*xi", 5: "nu*syn", 7: "nu=i*syn_ab"}


def test_nu_i_times_syn_depends_on_the_pairing_as_in_the_reference():
    # z_nu=i * z_syn (nodes j1 * 2 + j2 of z_syn x z_nu=i): c = (1, 1, w, w, w^2, w^2).  Pairing the two
    # nodes of z_nu=i (order 0,2,4,1,3,5) gives the factor (i, -i, 1): 4c -> nu=i*syn_ab (the reference's
    # column for z_nu=i * z_syn); pairing node 0 with node 3 (ratio w) gives (w i, -w i, w): nu -> nu*syn.
    F = block(z_syn() * z_nu_i())
    assert R.read_block(F, perm=(0, 2, 4, 1, 3, 5))["name"] == "nu=i*syn_ab"
    assert R.read_block(F, perm=(0, 2, 4, 3, 5, 1))["name"] == "nu*syn"
    # both have error ~0; the search keeps the first (the identical c of nodes 0, 1 make it exactly 0)
    assert R.read_block(F)["name"] == "nu=i*syn_ab"


def test_a_pairing_consistent_in_c_only_is_not_factorable():
    # z_nu=i * z_syn,ab: pairing (0,1), (2,3), (4,5) has c-ratio w everywhere, but a-ratios
    # (alpha w, i conj(beta) w, beta conj(alpha) w) differ: step 6 finds the block non-factorable
    F = block(z_nu_i() * z_syn_ab(complex(np.exp(0.5j)), complex(np.exp(2.0j))))
    rec = R.read_block(F, perm=(0, 2, 4, 1, 3, 5))
    assert rec["err"] > math.sqrt(18) * 0.1 and rec["name"] == "non-factorable"


def test_sign_gauge_of_a_node_does_not_change_the_name():
    # (a, b, c) -> (-a, -b, c) leaves the network's function unchanged (x^2 activation).  Node 2 alone:
    # its a-ratio to its partner changes sign, step 5 flips it back.  Nodes 2 and 3 (a pair): the ratios
    # agree, the first half holds a column (-w, -w, w) (or its pair's), step 7 flips it to (w, w, w)
    for flipped in ([2], [2, 3]):
        part = z_syn() * z_nu(NU)
        part.a, part.b = part.a.copy(), part.b.copy()
        part.a[flipped] *= -1
        part.b[flipped] *= -1
        assert R.reference_names(*weights((part, 6))) == {6: "nu*syn"}, flipped


# --------------------------------------------------------------------------- not catalogue names
def test_xi_times_xi_is_others():
    # both factors have c = +-i: labels (xi, xi)
    names = R.reference_names(*weights((z_xi(complex(np.exp(0.3j)), 1) * z_xi(complex(np.exp(1.2j)), -1), 4)))
    assert names == {4: "others"}


def test_broken_blocks_get_no_catalogue_name():
    rng = np.random.default_rng(0)
    good = z_syn() * z_nu(NU)
    bent = z_syn() * z_nu(NU)
    bent.c = bent.c.copy()
    bent.c[3] *= 1.3 * np.exp(0.5j)                  # one node's output off by 30% and 0.5 rad
    rand = type(good)("random", *(rng.normal(size=4) + 1j * rng.normal(size=4) for _ in range(3)))
    half = z_nu_i() * z_xi(complex(np.exp(0.4j)), 1)
    half.a = half.a.copy()
    half.a[1] *= -1j                                  # a node's input turned by 90 degrees
    names = R.reference_names(*weights((good, 2), (bent, 3), (rand, 4), (half, 5)))
    assert names[2] == "nu*syn"                        # the same block unbroken: the control
    for k in (3, 4, 5):
        assert names[k] not in CATALOGUE, (k, names[k])


def test_orders_other_than_4_and_6_are_not_read():
    names = R.reference_names(*weights((z_nu(NU), 2), (z_syn(), 3), (z_syn() * z_syn(), 4)))
    assert names == {2: "order-2", 3: "order-3", 4: "order-9"}


def test_columns_count_factorable_blocks_only():
    cols = R.columns(["nu=i*xi", "nu=i*xi", "nu*syn", "non-factorable", "order-2", "others"])
    assert cols == {"nu=i*xi": 0.5, "nu=i*syn_ab": 0.0, "nu*syn": 0.25, "others": 0.25}
    assert R.columns(["non-factorable", "order-8"]) is None


@pytest.mark.parametrize("q", [4, 6])
def test_the_looped_search_timed_by_the_benchmark_finds_the_same_order(q):
    """bench_classify times node_order_looped (one order at a time, as the reference's code); it must agree."""
    pytest.importorskip("torch")
    def err(c, perm):
        r = c[list(perm)][: q // 2] / c[list(perm)][q // 2:]
        return float(np.linalg.norm(r - r.mean()))

    rng = np.random.default_rng(q)
    for _ in range(5):       # orders that pair the same halves tie exactly; rounding may pick another of them
        c = rng.normal(size=q) + 1j * rng.normal(size=q)
        assert err(c, R.node_order_looped(c)) == pytest.approx(err(c, R.node_order(c)), rel=1e-9)
    paired = np.array([1, 2j, 3, 2, 4j, 6][:q], dtype=np.complex128)   # halves with a constant ratio of 2
    paired[q // 2:] = paired[: q // 2] / 2
    assert R.node_order_looped(paired) == R.node_order(paired) == tuple(range(q))
