"""Blocks that the classifier used to name falsely (issue #10); each test failed on the code before the fix.

The self-conjugate block on Z_24 and the network-level verdict are in tests/analysis/test_block_extraction.py.
"""
import math

import numpy as np
import pytest

from cogo.analysis.classify import classify_block
from cogo.analysis.naming import name_factor
from cogo.catalogue.partial import z_nu, z_nu_i, z_syn, z_syn_ab, z_xi


def unit_deg(deg):
    return complex(np.exp(1j * math.radians(deg)))


def block(ps, scale=None):
    x = np.stack([ps.a, ps.b, ps.c]) * (scale if scale is not None else ps.q ** (-1 / 3))
    return x[0], x[1], x[2]


def test_sum_of_two_xi_blocks_is_not_a_merged_product():
    """Two z_nu=i * z_xi blocks (xi = 20, 25 degrees) at one frequency: an exact 2x4 grid, not a 2x2x2 with one xi."""
    x1 = 8 ** (-1 / 3) * (z_nu_i() * z_xi(unit_deg(20), 1))
    x2 = 8 ** (-1 / 3) * (z_nu_i() * z_xi(unit_deg(25), 1))
    a, b, c = (np.concatenate([u, v]) for u, v in ((x1.a, x2.a), (x1.b, x2.b), (x1.c, x2.c)))
    rep = classify_block(a, b, c)
    assert rep.shape == (2, 4) and rep.error < 1e-8  # the grid that fits exactly wins
    assert rep.type not in ("z_nu=i * z_nu * z_xi", "z_nu=i * z_nu=i * z_xi", "z_nu=i * z_xi * z_xi")
    assert not any(f["name"] == "z_xi" for f in rep.factors)  # no merged xi reported


def test_syn_ab_off_the_unit_circle_is_refused():
    """|alpha| = 1.5 is not a catalogue z_syn,ab (SPEC 7: |alpha| = |beta| = 1); the modulus is reported."""
    ps = z_syn_ab(1.5 * unit_deg(40), unit_deg(70))
    nf = name_factor(np.stack([ps.a, ps.b, ps.c]))
    assert nf.name != "z_syn,ab"
    assert nf.closest is not None and nf.closest[0] == "z_syn,ab"
    # reported modulus: max(|p|, 1/|p|) over alpha, beta of the best variant (renormalizing moves 1.5 to 1/1.5)
    assert nf.fitted["z_syn,ab"]["modulus"] == pytest.approx(1.5, abs=1e-6)
    # on the circle the same form is named
    ok = z_syn_ab(unit_deg(40), unit_deg(70))
    assert name_factor(np.stack([ok.a, ok.b, ok.c])).name == "z_syn,ab"


def test_xi_off_the_unit_circle_is_refused():
    ps = z_xi(1.5 * unit_deg(30), 1)
    nf = name_factor(np.stack([ps.a, ps.b, ps.c]))
    assert nf.name != "z_xi"
    assert nf.fitted["z_xi"]["modulus"] == pytest.approx(1.5, abs=1e-6)


def test_nu_near_i_keeps_its_fitted_value():
    """nu 0.4 degrees from i: the special name is a flag; the fitted nu is reported."""
    nu = unit_deg(89.6)
    rep = classify_block(*block(z_nu(nu) * z_syn()))
    (f,) = [f for f in rep.factors if f["name"] in ("z_nu", "z_nu=i")]
    assert "nu" in f["params"]
    got = f["params"]["nu"]
    w = np.exp(2j * np.pi / 3)
    orbit = [s * w ** k * nu ** e for s in (1, -1) for k in range(3) for e in (1, -1)]
    assert min(abs(got - o) for o in orbit) < 1e-6  # the fitted value, not i
    assert f.get("special") == "z_nu=i"  # the flag


def test_alpha_beta_near_one_keep_fitted_values():
    al, be = unit_deg(0.3), unit_deg(-0.2)
    rep = classify_block(*block(z_nu_i() * z_syn_ab(al, be)))
    (f,) = [f for f in rep.factors if f["name"] in ("z_syn", "z_syn,ab")]
    assert "alpha" in f["params"] and "beta" in f["params"]
    assert f.get("special") == "z_syn"
    fitted = sorted(abs(math.degrees(np.angle(f["params"][k]))) for k in ("alpha", "beta"))
    # alpha, beta are defined modulo i for z_nu=i * z_syn,ab; the canonical pair is the near-1 one here
    assert fitted[1] < 1.0 and fitted[1] > 0.05
