"""cogo.io.arrays.as_array: the one conversion of weights to numpy, and the readers that go through it.

bfloat16 is the case that tells a shared conversion from the ones it replaced: numpy has no bfloat16, so
``tensor.numpy()`` raises, and every reader that converted on its own failed on a bfloat16 checkpoint.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cogo.analysis.irreps import read_irreps  # noqa: E402
from cogo.dynamics.progress import progress_measures  # noqa: E402
from cogo.io.arrays import as_array  # noqa: E402
from cogo.io.weights import inert_nodes  # noqa: E402


def test_numpy_cannot_hold_bfloat16():
    """Why the shared conversion exists: the direct route fails (if torch ever changes this, the test says so)."""
    with pytest.raises(TypeError):
        torch.zeros(2, dtype=torch.bfloat16).numpy()


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32, torch.float64])
def test_a_floating_tensor_is_widened_exactly(dtype):
    t = (torch.arange(-8, 8, dtype=torch.float64) / 3).to(dtype)
    a = as_array(t, dtype=np.float64)
    assert a.dtype == np.float64 and a.tolist() == [float(x) for x in t.double()]   # each value exact


def test_dtype_kept_or_given():
    assert as_array(torch.ones(2, dtype=torch.bfloat16)).dtype == np.float32
    assert as_array(torch.arange(3)).dtype == np.int64
    assert as_array(torch.arange(3), dtype=np.int64).tolist() == [0, 1, 2]
    assert as_array([[1, 2]], dtype=np.float64).tolist() == [[1.0, 2.0]]
    w = torch.ones(2, requires_grad=True)
    assert isinstance(as_array(w * 2), np.ndarray)   # detached from the graph


def _weights(q=6, n=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    Wa, Wb, Wc = (torch.randn(*s, generator=g) for s in ((q, n), (q, n), (n, q)))
    Wa[0] = 0
    Wb[0] = 0   # node 0 has no input: inert
    return Wa, Wb, Wc


def test_readers_read_bfloat16_as_its_float64_values():
    """read_irreps, the progress measures and inert_nodes read a bfloat16 network as the same network in float64."""
    bf = [w.to(torch.bfloat16) for w in _weights()]
    f64 = [w.double().numpy() for w in bf]
    assert inert_nodes(*bf).tolist() == inert_nodes(*f64).tolist() == [True] + [False] * 5
    r_bf, r_64 = read_irreps(*bf, group=5), read_irreps(*f64, group=5)
    assert r_bf.node_family.tolist() == r_64.node_family.tolist() and r_bf.counts == r_64.counts
    assert np.array_equal(r_bf.energy, r_64.energy)
    m_bf, m_64 = progress_measures(*bf, group=5), progress_measures(*f64, group=5)
    assert m_bf.keys() == m_64.keys()
    for k, v in m_64.items():
        if isinstance(v, np.ndarray):
            assert np.array_equal(m_bf[k], v, equal_nan=v.dtype.kind == "f"), k
        else:
            assert m_bf[k] == v, k
