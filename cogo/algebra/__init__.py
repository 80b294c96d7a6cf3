"""The semiring of networks, Fourier coordinates, sum potentials and the exact loss (SPEC 1-6)."""
from cogo.algebra.groups import Cyclic, FiniteAbelianGroup, root_of_unity
from cogo.algebra.group_parsing import parse_group
from cogo.algebra.loss import (
    Conditions,
    condition_residuals,
    fourier_loss,
    per_frequency_loss,
    published_loss,
    real_loss,
)
from cogo.algebra.network import Network, is_zero_exact
from cogo.algebra.potentials import (
    MONOMIALS,
    block_sums,
    block_sums_many,
    potential,
    potentials,
    self_potential_sums,
    self_potentials,
)

__all__ = [
    "Cyclic", "FiniteAbelianGroup", "parse_group", "root_of_unity",
    "Network", "is_zero_exact",
    "potential", "potentials", "self_potentials", "self_potential_sums", "block_sums", "block_sums_many", "MONOMIALS",
    "fourier_loss", "published_loss", "real_loss", "per_frequency_loss", "Conditions", "condition_residuals",
]
