"""The catalogue registry (cogo.catalogue): one record per family, and everything else loops over it.

The toy family below is added in one place -- a `Family` and a `Product` registered for the duration of a
test -- without touching classify.py, report.py or theorems_zero_sets.py, and is then fitted, named, nearest-fitted and
reported through the path a user takes (a real-weight checkpoint read by `classify_checkpoint`, the text and
JSON reports, the angle histograms).  Expected values are written by hand from the toy's definition.
"""
import json
import math

import numpy as np
import pytest

from cogo import catalogue
from cogo.algebra import Network
from cogo.analysis.classify import classify_block, classify_checkpoint, read_network
from cogo.analysis.naming import name_factor
from cogo.analysis.report.render import angle_histograms, collect_angles, render_json, render_text
from cogo.catalogue import Family, NearestForm, Param, Product, registered
from cogo.io.weights import save_checkpoint
from cogo.catalogue.partial import PartialSolution, z_nu, z_syn


def toy(t, exact=None):
    """z_toy(t): 2 nodes (1, t); (1, t); (1, -t^-2), |t| = 1 -- not a form of SPEC 7 (a = b on node 2)."""
    t = complex(t)
    return PartialSolution("z_toy", np.array([1, t]), np.array([1, t]), np.array([1, -t ** -2]), params={"t": t})


def _fit_toy(V):
    t = (V[:, 0] + V[:, 1]) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        t = t / np.abs(t)
        pred = np.stack([t, t, -t ** -2], axis=1)
    res = np.nan_to_num(np.sqrt(np.mean(np.abs(V - pred) ** 2, axis=1)), nan=np.inf)
    return res, [{"t": complex(v)} for v in t]


def _smallest_t(cands):
    return cands[int(np.argmin(catalogue.angle(np.array([p["t"] for p in cands]))))]


def _u(deg):
    return complex(np.exp(1j * np.deg2rad(deg)))


def _fold(t):
    # t ~ -t (sign gauge), 1/t (node swap) and w t (z_syn's stabilizer): period 60 degrees, mirrored
    d = float(np.mod(t[0], 60.0))
    return (min(d, 60.0 - d),)


TOY = Family("z_toy", 2, (Param("t"),), build=toy, fit=_fit_toy, canonical=_smallest_t, angle_params=("t",))
TOY_SYN = Product("z_toy * z_syn", ("z_toy", "z_syn"), section="test",
                  nearest=NearestForm(lambda d: toy(_u(d[0])) * z_syn(), ("t",), 2.0, (60.0,), _fold))


def _block_network(ps, d=7, k=1):
    x = len(ps.a) ** (-1 / 3) * ps
    return Network.block(d, k, x.a, x.b, x.c).to_weights(real=True)


def test_a_toy_family_is_registered_fitted_named_and_reported(tmp_path):
    t_deg = 25.0  # canonical: in [0, 30] after t ~ -t ~ 1/t ~ w t
    with registered(TOY, TOY_SYN):
        assert "z_toy" in catalogue.factor_names() and "z_toy * z_syn" in catalogue.block_types()
        # fitted and named on its own, with the canonical parameter (smallest angle of the orbit t ~ -t ~ 1/t)
        f = name_factor(np.stack([toy(_u(200.0)).a, toy(_u(200.0)).b, toy(_u(200.0)).c]))
        assert f.name == "z_toy" and f.residual < 1e-12
        assert math.isclose(math.degrees(np.angle(f.params["t"])), 20.0, abs_tol=1e-9)  # 200 - 180
        # a block z_toy * z_syn in a real-weight checkpoint, read by the user's path
        path = tmp_path / "toy.pt"
        Wa, Wb, Wc = _block_network(toy(_u(t_deg)) * z_syn())
        save_checkpoint(path, Wa, Wb, Wc, meta={"group": "7"})
        rep = classify_checkpoint(path)
        (b,) = rep.blocks
        assert b.type == "z_toy * z_syn" and b.shape == (2, 3) and b.error < 1e-9
        assert sorted(fc["name"] for fc in b.factors) == ["z_syn", "z_toy"]
        (ft,) = [fc for fc in b.factors if fc["name"] == "z_toy"]
        assert math.isclose(math.degrees(np.angle(ft["params"]["t"])), t_deg, abs_tol=1e-6)
        assert b.nearest["type"] == "z_toy * z_syn" and b.nearest["distance"] < 1e-6
        assert b.nearest["params"][0]["degrees"]["t"] == pytest.approx(t_deg, abs=0.05)
        # reported: text, JSON and the angle histograms know the new family without being edited
        from cogo.analysis.classify import ClassifyResult, Settings
        from cogo.analysis.report.summary import summarize

        res = ClassifyResult([rep], summarize([rep]), Settings())
        assert "z_toy * z_syn" in render_text(res)
        js = json.loads(render_json(res))
        assert [b["type"] for b in js["checkpoints"][0]["blocks"]] == ["z_toy * z_syn"]
        assert collect_angles(res)["t"] == pytest.approx([t_deg], abs=1e-6)
        assert "angles_t.png" in angle_histograms(res)
        assert res.summary["type_distribution"]["z_toy * z_syn"]["mean"] == 1.0
    # unregistered again: the same block is no catalogue form any more
    assert "z_toy" not in catalogue.factor_names()
    rep = read_network(*_block_network(toy(_u(t_deg)) * z_syn()), group=7, with_verdict=False)
    assert rep.blocks[0].type != "z_toy * z_syn" and "z_toy" not in rep.blocks[0].type


def test_without_the_registry_entry_the_toy_is_not_named():
    """The negative case: the toy factor fits none of the five families of SPEC 7."""
    f = name_factor(np.stack([toy(_u(40.0)).a, toy(_u(40.0)).b, toy(_u(40.0)).c]))
    assert f.name == "unknown"


def test_registration_errors_are_one_line():
    with pytest.raises(ValueError, match="already registered"):
        catalogue.register_family(catalogue.family("z_nu"))
    with pytest.raises(ValueError, match="2 or 3"):
        catalogue.register_family(Family("z_four", 4, (), build=None, fit=_fit_toy))
    with pytest.raises(ValueError, match="not two or more registered families"):
        catalogue.register_product(Product("z_nu * z_nope", ("z_nu", "z_nope")))
    with pytest.raises(KeyError, match="known"):
        catalogue.family("z_nope")


def test_the_registry_holds_spec7_as_written():
    """The five families and three products of SPEC 7, their node counts and special cases (from SPEC 7's text)."""
    nodes = {f.name: f.nodes for f in catalogue.families()}
    assert nodes == {"z_nu=i": 2, "z_nu": 2, "z_xi": 2, "z_syn": 3, "z_syn,ab": 3}
    assert {f.name: f.special_of for f in catalogue.families() if f.special_of} == {"z_nu=i": "z_nu",
                                                                                      "z_syn": "z_syn,ab"}
    assert {p.name: (p.roles, p.section) for p in catalogue.products()} == {
        "z_nu * z_syn": (("z_nu", "z_syn"), "7.1"), "z_nu=i * z_syn,ab": (("z_nu=i", "z_syn,ab"), "7.2"),
        "z_nu=i * z_xi": (("z_nu=i", "z_xi"), "7.3")}
    # every family's constructor gives its own name and node count, and its fit recovers it exactly
    for f in catalogue.families():
        args = [_u(37.0) if p.domain != "sign" else -1 for p in f.params]
        ps = f.build(*args)
        assert ps.name == f.name and len(ps.a) == f.nodes
        named = name_factor(np.stack([ps.a, ps.b, ps.c]))
        assert named.name == f.name, (f.name, named.name)


def test_the_tables_come_from_the_catalogue_only():
    """The old module-level tables (classify.FACTOR_NAMES, report.ANGLE_PARAMS, ...) are gone: one registry."""
    import cogo.analysis.classify as C
    import cogo.analysis.report.render as R
    import cogo.proofs.theorems.zero_sets as TZ
    from cogo import catalogue

    assert catalogue.factor_names() == ("z_nu=i", "z_nu", "z_xi", "z_syn", "z_syn,ab", "unknown")
    assert catalogue.block_types()[:3] == ("z_nu * z_syn", "z_nu=i * z_syn,ab", "z_nu=i * z_xi")
    assert catalogue.angle_params() == {"nu": "z_nu", "xi": "z_xi", "alpha": "z_syn,ab", "beta": "z_syn,ab"}
    assert len(TZ.construction_blocks()) == 3
    for mod, name in ((C, "FACTOR_NAMES"), (C, "BLOCK_TYPES"), (R, "ANGLE_PARAMS"), (TZ, "CONSTRUCTION_BLOCKS")):
        assert not hasattr(mod, name), f"{mod.__name__}.{name}"


def test_a_lone_family_block_is_typed_by_the_family():
    """An order-2 block of the toy is typed z_toy while registered (classify_block's order-2 path)."""
    x = 2 ** (-1 / 3) * toy(_u(10.0))
    with registered(TOY):
        assert classify_block(x.a, x.b, x.c, k=1).type == "z_toy"
    assert classify_block(x.a, x.b, x.c, k=1).type == "non-factorable"
    y = 2 ** (-1 / 3) * z_nu(_u(10.0))
    assert classify_block(y.a, y.b, y.c, k=1).type == "z_nu"
