"""Constructions of SPEC 7 and training (SPEC 1)."""
from cogo.solvers.constructions import construct, to_checkpoint, z_F6, z_F6_ab, z_F46, z_M
from cogo.catalogue.partial import PartialSolution, unit_conjugate, z_nu, z_nu_i, z_syn, z_syn_ab, z_xi

__all__ = [
    "PartialSolution", "unit_conjugate", "z_syn", "z_syn_ab", "z_nu", "z_nu_i", "z_xi",
    "z_F6", "z_F6_ab", "z_F46", "z_M", "construct", "to_checkpoint",
]
