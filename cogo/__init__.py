"""cogo: exact and numeric verification of the solutions quadratic networks learn.

The mathematics is docs/math.md ("SPEC n" in the docstrings is its section n); start with README.md.

``import cogo`` gives the names a researcher scripts with, grouped by topic (the
rest stays importable from its module, see docs/api/index.md):

- groups: :func:`group` (parse any group spec), :class:`Cyclic`, :class:`FiniteAbelianGroup`,
  :class:`FiniteGroup`;
- the semiring (SPEC 2-3): :class:`Network`;
- the catalogue and the constructions (SPEC 7): :func:`z_syn`, :func:`z_syn_ab`, :func:`z_nu`,
  :func:`z_nu_i`, :func:`z_xi`, :func:`z_F6`, :func:`z_F6_ab`, :func:`z_F46`, :func:`z_M`,
  :func:`construct`;
- the losses (SPEC 1, 5): :func:`fourier_loss` (from Fourier coordinates), :func:`real_loss` (on pairs);
- the workflow: :func:`train`, :func:`load`, :func:`save`, :func:`classify`, :func:`verify`.

Every name is imported on first use (PEP 562), so ``import cogo`` stays as cheap as
``import cogo.cli``: sympy, networkx and torch load only when a name that needs them is used.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [2] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
"""
import importlib as _importlib

from cogo._version import __version__

#: name -> (module, attribute) of the curated API; everything else stays in its module.
_API = {
    # groups (SPEC 1, docs/groups.md)
    "group": ("cogo.algebra.group_parsing", "parse_group"),
    "Cyclic": ("cogo.algebra.groups", "Cyclic"),
    "FiniteAbelianGroup": ("cogo.algebra.groups", "FiniteAbelianGroup"),
    "FiniteGroup": ("cogo.algebra.finite_groups", "FiniteGroup"),
    # the semiring (SPEC 2-3)
    "Network": ("cogo.algebra.network", "Network"),
    # the catalogue (SPEC 7)
    "z_syn": ("cogo.catalogue.partial", "z_syn"),
    "z_syn_ab": ("cogo.catalogue.partial", "z_syn_ab"),
    "z_nu": ("cogo.catalogue.partial", "z_nu"),
    "z_nu_i": ("cogo.catalogue.partial", "z_nu_i"),
    "z_xi": ("cogo.catalogue.partial", "z_xi"),
    "z_F6": ("cogo.solvers.constructions", "z_F6"),
    "z_F6_ab": ("cogo.solvers.constructions", "z_F6_ab"),
    "z_F46": ("cogo.solvers.constructions", "z_F46"),
    "z_M": ("cogo.solvers.constructions", "z_M"),
    "construct": ("cogo.solvers.constructions", "construct"),
    # the losses (SPEC 1, 5)
    "fourier_loss": ("cogo.algebra.loss", "fourier_loss"),
    "real_loss": ("cogo.algebra.loss", "real_loss"),
    # the workflow
    "TrainConfig": ("cogo.solvers.training_config", "TrainConfig"),
    "CogoError": ("cogo.runtime.errors", "CogoError"),
    "train": ("cogo.api", "train"),
    "load": ("cogo.api", "load"),
    "save": ("cogo.api", "save"),
    "classify": ("cogo.api", "classify"),
    "verify": ("cogo.api", "verify"),
}

__all__ = sorted(_API)


def __getattr__(name: str) -> object:
    if name in _API:
        module, attr = _API[name]
        value = getattr(_importlib.import_module(module), attr)
        globals()[name] = value  # cache: the next access is a plain attribute
        return value
    raise AttributeError(f"module 'cogo' has no attribute {name!r}")


def __dir__() -> list:
    # the curated names, the dunders and the submodules imported so far; no helper of this file
    return sorted({*__all__, *(n for n in globals() if not n.startswith("_") or n.startswith("__"))})
