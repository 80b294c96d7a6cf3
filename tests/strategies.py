"""Hypothesis strategies shared by the tests: small groups and random networks."""
import numpy as np
from hypothesis import strategies as st

from cogo.algebra import FiniteAbelianGroup, Network

#: Cyclic and product groups, odd and even orders, order <= 15.
GROUP_ORDERS = [(2,), (3,), (4,), (5,), (6,), (7,), (8,), (9,), (11,), (2, 2), (2, 3), (3, 3), (2, 4), (3, 5), (2, 2, 2)]
groups = st.sampled_from(GROUP_ORDERS).map(FiniteAbelianGroup)
odd_groups = st.sampled_from([o for o in GROUP_ORDERS if np.prod(o) % 2]).map(FiniteAbelianGroup)


def random_network(G, q, seed, real=False, scale=1.0):
    rng = np.random.default_rng(seed)
    if real:
        n = G.order
        Wa, Wb, Wc = rng.normal(size=(q, n)), rng.normal(size=(q, n)), rng.normal(size=(n, q))
        return Network.from_weights(scale * Wa, scale * Wb, scale * Wc, G)
    z = rng.normal(size=(3, G.order, q)) + 1j * rng.normal(size=(3, G.order, q))
    return Network(G, scale * z)


@st.composite
def networks(draw, group=None, max_q=3, real=False):
    G = draw(groups) if group is None else group
    q = draw(st.integers(0, max_q))
    seed = draw(st.integers(0, 2**32 - 1))
    return random_network(G, q, seed, real=real)


@st.composite
def network_triples(draw, max_q=3, real=False):
    G = draw(groups)
    return tuple(draw(networks(group=G, max_q=max_q, real=real)) for _ in range(3))

#: Angles, seeds and signs for the catalogue parameters (factorization and classification tests).
angles = st.floats(0.0, 2 * np.pi, allow_nan=False, allow_infinity=False)
seeds = st.integers(0, 2**32 - 1)
signs = st.sampled_from([1, -1])
