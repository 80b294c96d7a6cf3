"""Every ValueError path of cogo.algebra names the problem."""
import numpy as np
import pytest
import sympy
import torch

from cogo.algebra import Cyclic, Network, parse_group, real_loss
from cogo.algebra.network import to_exact_array


def test_shape_errors():
    with pytest.raises(ValueError, match=r"shape \(3, n_G=5, q\)"):
        Network(5, np.zeros((3, 4, 2)))
    with pytest.raises(ValueError, match="shape"):
        Network(5, np.zeros((2, 5, 2)))
    with pytest.raises(ValueError, match="shapes"):
        Network.from_weights(np.zeros((2, 5)), np.zeros((2, 5)), np.zeros((2, 5)))
    with pytest.raises(ValueError, match="order"):
        Network.from_weights(np.zeros((2, 5)), np.zeros((2, 5)), np.zeros((5, 2)), group="2x2")
    with pytest.raises(ValueError, match="equal lengths"):
        Network.block(5, 1, [1, 2], [1], [1, 2])


def test_non_finite_values():
    z = np.zeros((3, 5, 1), dtype=complex)
    z[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Network(5, z)
    with pytest.raises(ValueError, match="NaN"):
        Network.from_weights(np.full((1, 5), np.inf), np.zeros((1, 5)), np.zeros((5, 1)))
    with pytest.raises(ValueError, match="too large"):  # finite weights whose Fourier sums overflow
        Network.from_weights(np.full((1, 5), 1e308), np.zeros((1, 5)), np.zeros((5, 1)))
    with pytest.raises(ValueError, match="NaN"):
        real_loss(np.full((1, 5), np.nan), np.zeros((1, 5)), np.zeros((5, 1)))
    with pytest.raises(ValueError, match="not finite"):
        float("inf") * Network.one(5)


def test_mixing_groups_and_kinds():
    x, y = Network.one(5), Network.one(7)
    with pytest.raises(ValueError, match="different groups"):
        x + y
    with pytest.raises(ValueError, match="different groups"):
        x * y
    with pytest.raises(ValueError, match="exact and a numeric"):
        x + Network.one(5, exact=True)
    with pytest.raises(ValueError, match="different groups"):
        x.equals(y)
    with pytest.raises(ValueError, match="cannot compare"):
        x.equals(3)


def test_exact_rejects_floats():
    with pytest.raises(ValueError, match="float"):
        to_exact_array([0.5])
    with pytest.raises(ValueError, match="lose exactness"):
        0.5 * Network.one(3, exact=True)
    with pytest.raises(ValueError, match="to_numeric"):
        Network.one(3, exact=True).to_torch()


def test_block_needs_k_distinct_from_minus_k():
    with pytest.raises(ValueError, match="k != -k"):
        Network.block(8, 4, [1], [1], [1])
    with pytest.raises(ValueError, match="k != -k"):
        Network.block(7, 0, [1], [1], [1])


def test_misc_errors():
    with pytest.raises(ValueError, match="not a permutation"):
        Network.one(3).permute([1])
    with pytest.raises(ValueError, match="non-negative integer"):
        Network.one(3) ** -1
    with pytest.raises(ValueError, match="at least one"):
        Network.sum([])
    with pytest.raises(ValueError, match="dtype"):
        Network(3, np.array([["a"] * 3] * 3)[..., None])
    with pytest.raises(ValueError, match="pair indices"):
        real_loss(np.zeros((1, 3)), np.zeros((1, 3)), np.zeros((3, 1)), pairs=np.array([9]))
    with pytest.raises(ValueError, match="real numeric"):
        real_loss(np.zeros((1, 3), complex), np.zeros((1, 3)), np.zeros((3, 1)))
    with pytest.raises(ValueError, match="group"):
        parse_group([1.5])


def test_torch_inputs_accepted():
    Wa, Wb, Wc = torch.randn(4, 5), torch.randn(4, 5), torch.randn(5, 4)
    x = Network.from_weights(Wa, Wb, Wc)
    y = Network.from_weights(Wa.numpy(), Wb.numpy(), Wc.numpy())
    assert x.equals(y, 0.0)
    assert torch.allclose(x.to_torch(), torch.as_tensor(x.z))
    z = Network(5, torch.complex(torch.randn(3, 5, 2), torch.randn(3, 5, 2)))
    assert z.z.dtype == np.complex128
    assert (Network.one(3) ** 2).q == 1
    assert (sympy.Rational(1, 2) * Network.one(3)).z[0, 0, 0] == 0.5
