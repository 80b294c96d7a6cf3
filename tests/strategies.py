"""Shared test helpers: hypothesis strategies (small groups, random networks) and scrambled catalogue blocks."""
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from cogo.algebra import FiniteAbelianGroup, Network

#: Cyclic and product groups, odd and even orders, order <= 15.
GROUP_ORDERS = [(2,), (3,), (4,), (5,), (6,), (7,), (8,), (9,), (11,), (2, 2), (2, 3), (3, 3), (2, 4), (3, 5), (2, 2, 2)]
groups = st.sampled_from(GROUP_ORDERS).map(FiniteAbelianGroup)
odd_groups = st.sampled_from([o for o in GROUP_ORDERS if np.prod(o) % 2]).map(FiniteAbelianGroup)


def random_network(G, q, seed, real=False, scale=1.0):
    """A seeded random network, for the deterministic (non-hypothesis) tests."""
    rng = np.random.default_rng(seed)
    if real:
        n = G.order
        Wa, Wb, Wc = rng.normal(size=(q, n)), rng.normal(size=(q, n)), rng.normal(size=(n, q))
        return Network.from_weights(scale * Wa, scale * Wb, scale * Wc, G)
    z = rng.normal(size=(3, G.order, q)) + 1j * rng.normal(size=(3, G.order, q))
    return Network(G, scale * z)


#: Entries: special values (0, +-1, 1/2, so zeros and repeats are common) or floats in [-2, 2]; drawn by
#: hypothesis itself (hypothesis.extra.numpy), so a failing network shrinks towards small, simple entries.
entries = st.one_of(st.sampled_from([0.0, 1.0, -1.0, 0.5]),
                    st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False, allow_subnormal=False))


def _array(draw, shape):
    return draw(hnp.arrays(np.float64, shape, elements=entries))


def _zero_and_repeated_nodes(draw, nodes):
    """Let hypothesis zero one hidden node and/or repeat one: ``nodes`` are arrays whose LAST axis is the node."""
    q = nodes[0].shape[-1]
    if q >= 1 and draw(st.booleans()):
        j = draw(st.integers(0, q - 1))
        for x in nodes:
            x[..., j] = 0
    if q >= 2 and draw(st.booleans()):
        i, j = draw(st.lists(st.integers(0, q - 1), min_size=2, max_size=2, unique=True))
        for x in nodes:
            x[..., j] = x[..., i]


@st.composite
def networks(draw, group=None, max_q=3, real=False):
    """A network on ``group`` (or a drawn small group) with 0..max_q nodes; ``real``: from real weights."""
    G = draw(groups) if group is None else group
    q = draw(st.integers(0, max_q))
    n = G.order
    if real:
        WaT, WbT, Wc = _array(draw, (n, q)), _array(draw, (n, q)), _array(draw, (n, q))
        _zero_and_repeated_nodes(draw, [WaT, WbT, Wc])
        return Network.from_weights(WaT.T, WbT.T, Wc, G)
    z = _array(draw, (3, n, q)) + 1j * _array(draw, (3, n, q))
    _zero_and_repeated_nodes(draw, [z])
    return Network(G, z)


@st.composite
def network_triples(draw, max_q=3, real=False):
    G = draw(groups)
    return tuple(draw(networks(group=G, max_q=max_q, real=real)) for _ in range(3))

#: Angles, seeds and signs for the catalogue parameters (factorization and classification tests).
angles = st.floats(0.0, 2 * np.pi, allow_nan=False, allow_infinity=False)
seeds = st.integers(0, 2**32 - 1)
signs = st.sampled_from([1, -1])


def unit_deg(deg):
    """The unit complex number at ``deg`` degrees."""
    return complex(np.exp(1j * np.deg2rad(deg)))


def scrambled_block(ps, seed, noise):
    """The block of a catalogue product ``ps`` (3, q), normalized to ``abc = 1``, as a trained network scrambles it:
    random node order, per-node gauge ``(t a, t b, c / t^2)`` with random signs, complex noise of size ``noise``."""
    rng = np.random.default_rng(seed)
    q = ps.q
    x = np.stack([ps.a, ps.b, ps.c]) * q ** (-1 / 3)
    x = x[:, rng.permutation(q)]
    t = np.exp(rng.normal(size=q) * 0.4) * rng.choice([-1.0, 1.0], size=q)
    x = x * np.stack([t, t, t ** -2.0])
    return x + noise * (rng.normal(size=(3, q)) + 1j * rng.normal(size=(3, q))) / np.sqrt(2)
