"""Reading and classifying networks (SPEC 8): cogo.analysis.classify, cogo.analysis.report.render, ``cogo classify``."""
import json
import math
import os

import numpy as np
import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

from cogo.algebra import Network
from cogo.io.weights import save_checkpoint
from cogo.cli import main
from cogo.catalogue.partial import z_nu, z_nu_i, z_syn, z_syn_ab, z_xi
from cogo.catalogue import block_types, factor_names
from cogo.analysis.classify import (
    Settings,
    classify_block,
    classify_checkpoint,
    classify_many,
    read_network,
)
from cogo.analysis.naming import name_factor, stabilizer
from cogo.analysis.report.summary import paper_column, summarize
from cogo.analysis.report.render import angle_histograms, render_json, render_markdown, render_text, to_json_dict

from strategies import angles, seeds, signs  # noqa: E402

BLOCK_TYPES, FACTOR_NAMES = block_types(), factor_names()  # the catalogue registry (cogo.catalogue)
W = np.exp(2j * np.pi / 3)


def unit(t):
    return complex(np.exp(1j * t))


def scrambled(ps, rng, noise=1e-3):
    """q^(-1/3) ps with random node order, per-node real gauge (t a, t b, c/t^2) with random signs, noise."""
    q = ps.q
    x = np.stack([ps.a, ps.b, ps.c]) * q ** (-1 / 3)
    x = x[:, rng.permutation(q)]
    t = np.exp(rng.normal(size=q) * 0.4) * rng.choice([-1.0, 1.0], size=q)
    x = x * np.stack([t, t, t ** -2.0])
    nz = rng.uniform(-1, 1, size=(3, q)) + 1j * rng.uniform(-1, 1, size=(3, q))
    return x + noise * nz / np.sqrt(2)


def in_orbit(z, orbit, tol=0.02):
    return min(abs(z - o) for o in orbit) < tol


def nu_orbit_syn(nu):
    """nu of z_nu * z_syn: nu ~ -nu ~ 1/nu ~ w nu."""
    return [s * W ** k * nu ** e for s in (1, -1) for k in range(3) for e in (1, -1)]


def xi_orbit_nu_i(xi, s):
    """xi of z_nu=i * z_xi(xi, s), reported with s = +1: i^k xi (s = +1) or i^k conj(xi) (s = -1)."""
    base = xi if s == 1 else np.conj(xi)
    return [1j ** k * base for k in range(4)]


def ab_orbit_nu_i(al, be):
    """(alpha^4, beta^4) of z_nu=i * z_syn,ab: the three cyclic renormalizations (alpha, beta defined mod i)."""
    return [(al ** 4, be ** 4), ((be / al) ** 4, al ** -4), (be ** -4, (al / be) ** 4)]


def params(rep, name):
    return [f["params"] for f in rep.factors if f["name"] == name]


# --------------------------------------------------------------------------- blocks
@given(angles, signs, seeds)
def test_order4_nu_i_xi_recovered(t, s, seed):
    xi = unit(t)
    assume(abs(xi ** 4 + 1) > 0.3)  # xi^2 = +-i: z_xi is then also a z_nu (documented intersection)
    rep = classify_block(*scrambled(z_nu_i() * z_xi(xi, s), np.random.default_rng(seed)))
    assert rep.type == "z_nu=i * z_xi"
    assert sorted(f["name"] for f in rep.factors) == ["z_nu=i", "z_xi"]
    (p,) = params(rep, "z_xi")
    assert p["s"] == 1
    assert in_orbit(p["xi"], xi_orbit_nu_i(xi, s))
    deg = math.degrees(np.angle(p["xi"])) % 360  # canonical representative: documented range [0, 90)
    assert deg < 90 + 0.6 or deg > 360 - 0.6, deg  # 0.6 degrees of fitting noise at either end
    assert rep.error < 5e-3 and rep.shape == (2, 2)
    assert rep.failed_conditions == ["R_n"] and not rep.optimal  # SPEC 7.3: order 4 misses R_n alone
    assert rep.r_kkk == pytest.approx(1, abs=0.02)


@given(angles, seeds)
def test_order6_nu_syn_recovered(t, seed):
    nu = unit(t)
    assume(abs(nu ** 12 - 1) > 0.5)  # nu = i w^k is z_nu=i (covered by a deterministic test)
    rep = classify_block(*scrambled(z_nu(nu) * z_syn(), np.random.default_rng(seed)))
    assert rep.type == "z_nu * z_syn"
    (p,) = params(rep, "z_nu")
    assert in_orbit(p["nu"], nu_orbit_syn(nu))
    assert -0.6 <= math.degrees(np.angle(p["nu"])) <= 30.6  # canonical representative
    (ps,) = params(rep, "z_syn")  # the special name is a flag; the fitted z_syn,ab values are kept
    assert abs(ps["alpha"] ** 3 - 1) < 0.02 and abs(ps["beta"] ** 3 - 1) < 0.02
    assert [f.get("special") for f in rep.factors if f["name"] == "z_syn"] == ["z_syn"]
    assert rep.optimal and rep.failed_conditions == []


@given(angles, angles, seeds)
def test_order6_nu_i_syn_ab_recovered(t1, t2, seed):
    al, be = unit(t1), unit(t2)
    assume(all(abs(x - 1) > 0.3 or abs(y - 1) > 0.3 for x, y in ab_orbit_nu_i(al, be)))  # not z_syn
    rep = classify_block(*scrambled(z_nu_i() * z_syn_ab(al, be), np.random.default_rng(seed)))
    assert rep.type == "z_nu=i * z_syn,ab"
    (p,) = params(rep, "z_syn,ab")
    got = (p["alpha"] ** 4, p["beta"] ** 4)
    assert min(abs(got[0] - x) + abs(got[1] - y) for x, y in ab_orbit_nu_i(al, be)) < 0.05
    assert rep.optimal


@given(angles, angles, signs, seeds)
def test_order8_product_recovered(t1, t2, s, seed):
    xi, nu = unit(t1), unit(t2)
    assume(abs(nu ** 4 - 1) > 0.3 and abs(xi ** 4 + 1) > 0.3)
    rep = classify_block(*scrambled(z_nu_i() * z_xi(xi, s) * z_nu(nu), np.random.default_rng(seed)))
    assert rep.type == "z_nu=i * z_nu * z_xi" and rep.shape == (2, 2, 2)
    (p,) = params(rep, "z_xi")
    assert in_orbit(p["xi"], xi_orbit_nu_i(xi, s))


@given(angles, seeds)
def test_order12_product_recovered(t, seed):
    nu = unit(t)
    assume(abs(nu ** 12 - 1) > 0.5)
    rep = classify_block(*scrambled(z_nu_i() * z_nu(nu) * z_syn(), np.random.default_rng(seed)))
    assert rep.shape == (2, 2, 3) and rep.error < 5e-3 and rep.optimal
    # An order-12 product has several catalogue readings: z_syn is a group, so regridding nodes
    # "diagonally" trades phases between the factors (z_nu(nu) * z_syn = z_nu(w nu) * z_syn, and
    # likewise with the z_nu=i factor). Every reading must name each factor as a catalogue member
    # that fits it (residual = rms distance to the named form with the fitted parameters).
    assert all(f["name"] != "unknown" and f["residual"] < 0.01 for f in rep.factors)
    assert rep.type.count(" * ") == 2 and "z_syn" in rep.type
    if rep.type == "z_nu=i * z_nu * z_syn":  # the canonical reading: nu up to the symmetries
        (p,) = params(rep, "z_nu")
        orbit = [1j ** k * o for o in nu_orbit_syn(nu) for k in range(4)]  # the z_nu=i partner adds nu ~ i nu
        assert in_orbit(p["nu"], orbit)


@given(st.sampled_from([4, 6, 8, 12]), seeds)
def test_random_block_is_non_factorable(q, seed):
    rng = np.random.default_rng(seed)
    a, b, c = (rng.normal(size=q) + 1j * rng.normal(size=q) for _ in range(3))
    rep = classify_block(a, b, c)
    assert rep.type == "non-factorable" and not rep.factorable and rep.factors == []
    assert rep.error > 0.05


def test_intersections_follow_the_documented_precedence():
    rng = np.random.default_rng(0)
    # z_nu=i * z_syn lies in both order-6 families: typed as z_F6 (SPEC 7.1), names most specific
    rep = classify_block(*scrambled(z_nu_i() * z_syn(), rng))
    assert rep.type == "z_nu * z_syn"
    assert sorted(f["name"] for f in rep.factors) == ["z_nu=i", "z_syn"]
    # z_syn * z_nu(i w) is the same block up to node order
    rep = classify_block(*scrambled(z_syn() * z_nu(1j * W), rng))
    assert rep.type == "z_nu * z_syn" and sorted(f["name"] for f in rep.factors) == ["z_nu=i", "z_syn"]
    # z_nu=i * z_syn,ab(i, -1) is z_nu=i * z_syn (alpha, beta defined mod i)
    rep = classify_block(*scrambled(z_nu_i() * z_syn_ab(1j, -1), rng))
    assert rep.type == "z_nu * z_syn"


def test_single_catalogue_factors_and_unknowns():
    rng = np.random.default_rng(1)
    assert classify_block(*scrambled(z_syn(), rng)).type == "z_syn"
    rep = classify_block(*scrambled(z_nu(unit(0.5)), rng))
    assert rep.type == "z_nu" and in_orbit(params(rep, "z_nu")[0]["nu"], [s * unit(0.5) ** e for s in (1, -1)
                                                                           for e in (1, -1)])
    rep = classify_block(*scrambled(z_xi(unit(2.0), -1), rng))
    assert rep.type == "z_xi" and params(rep, "z_xi")[0]["s"] == 1
    assert in_orbit(params(rep, "z_xi")[0]["xi"], [unit(-2.0), -unit(-2.0)])
    rep = classify_block(rng.normal(size=3) + 0j, rng.normal(size=3) + 0j, rng.normal(size=3) + 0j)
    assert rep.type == "non-factorable"
    assert classify_block([1.0], [1.0], [1.0]).type == "non-factorable"
    nf = name_factor(np.array([[1, 2.0], [1, 0.3], [1, 5.0]]))
    assert nf.name == "unknown" and nf.closest is not None


def test_stabilizers_of_the_catalogue():
    assert len(stabilizer(np.stack([z_syn().a, z_syn().b, z_syn().c]))) == 3
    assert len(stabilizer(np.stack([z_nu_i().a, z_nu_i().b, z_nu_i().c]))) == 2
    v = z_nu(unit(0.7))
    assert len(stabilizer(np.stack([v.a, v.b, v.c]))) == 1


def test_other_factorable_block():
    rng = np.random.default_rng(2)
    from cogo.catalogue.partial import PartialSolution

    r4 = PartialSolution("r", *(np.exp(2j * np.pi * rng.random(4)) for _ in range(3)))
    rep = classify_block(*scrambled(z_syn() * r4, rng))
    assert rep.type == "other factorable" and rep.shape == (3, 4)
    assert sorted(f["name"] for f in rep.factors) == ["unknown", "z_syn"]


# --------------------------------------------------------------------------- networks
BLOCK_KINDS = ("4", "6", "6ab")


def make_block(kind, rng):
    if kind == "4":
        xi, s = unit(rng.uniform(0, 2 * np.pi)), int(rng.choice([1, -1]))
        return z_nu_i() * z_xi(xi, s), "z_nu=i * z_xi"
    if kind == "6":
        return z_nu(unit(rng.uniform(0.1, 0.4))) * z_syn(), "z_nu * z_syn"
    return z_nu_i() * z_syn_ab(unit(rng.uniform(0.3, 1.2)), unit(rng.uniform(0.3, 1.2))), "z_nu=i * z_syn,ab"


def build_network(d, kinds, rng, dead=5, noise=1e-3):
    """Blocks of the given kinds at k = 1..len(kinds), each scrambled, plus dead nodes; real weights + noise."""
    nets, expected = [], {}
    for k, kind in enumerate(kinds, start=1):
        ps, typ = make_block(kind, rng)
        x = scrambled(ps, rng, noise=0.0)
        nets.append(Network.block(d, k, *x))
        expected[k] = (typ, ps.q)
    net = Network.sum(nets)
    Wa, Wb, Wc = net.to_weights()
    q = Wa.shape[0]
    Wa, Wb, Wc = np.vstack([Wa, np.zeros((dead, d))]), np.vstack([Wb, np.zeros((dead, d))]), \
        np.hstack([Wc, np.zeros((d, dead))])
    perm = rng.permutation(q + dead)
    Wa, Wb, Wc = Wa[perm], Wb[perm], Wc[:, perm]
    Wa, Wb, Wc = (W + noise * rng.uniform(-1, 1, size=W.shape) for W in (Wa, Wb, Wc))
    return (Wa, Wb, Wc), expected, q


@given(st.lists(st.sampled_from(BLOCK_KINDS), min_size=1, max_size=5), seeds)
def test_network_blocks_recovered(kinds, seed):
    rng = np.random.default_rng(seed)
    (Wa, Wb, Wc), expected, live = build_network(11, kinds, rng)
    rep = read_network(Wa, Wb, Wc, 11)
    assert rep.live_nodes == live and rep.dead_nodes == 5
    assert rep.mixed_nodes == 0
    got = {b.k: (b.type, b.order) for b in rep.blocks}
    assert got == expected
    for b in rep.blocks:
        assert b.r_kkk == pytest.approx(1, abs=0.02)


def test_f46_network_from_constructions():
    import cogo.solvers.constructions as cons
    net = cons.z_F46(13, seed=4)
    rep = read_network(*net.to_weights(), 13)
    types = [b.type for b in rep.blocks]
    assert types.count("z_nu * z_syn") == 1 and types.count("z_nu=i * z_xi") == 5
    # the hat correction gives the six order-6 nodes output weights at every other frequency
    assert rep.mixed_nodes == 6
    six = [b for b in rep.blocks if b.order == 6][0]
    assert six.optimal and six.mixed_nodes == 6


def test_even_and_product_groups_are_handled():
    rng = np.random.default_rng(3)
    for g in ("8", "2x4", "3x5", "2"):
        from cogo.algebra import parse_group

        n = parse_group(g).order
        rep = read_network(rng.normal(size=(12, n)), rng.normal(size=(12, n)), rng.normal(size=(n, 12)), g)
        assert rep.live_nodes + rep.dead_nodes == 12
        for b in rep.blocks:
            assert b.type == "non-factorable" and not b.optimal  # random weights match no catalogue form
            if b.self_conjugate:
                # SPEC 6: only abc = 1 and the R_n sum apply at k = -k; random weights fail one of them
                assert not b.optimal and b.failed_conditions and set(b.failed_conditions) <= {"R_g", "R_n"}


def test_dead_threshold_setting():
    rng = np.random.default_rng(4)
    (Wa, Wb, Wc), _, live = build_network(11, ["4", "6"], rng, dead=3, noise=0.0)
    assert read_network(Wa, Wb, Wc, 11, settings=Settings(dead_threshold=0.5)).live_nodes == live
    j = int(np.flatnonzero(np.abs(Wa).max(1) > 0)[0])  # a live node becomes 10x weaker: dead only at 0.5
    Wa[j] *= 0.1
    Wb[j] *= 0.1
    assert read_network(Wa, Wb, Wc, 11).live_nodes == live  # default threshold 0.01
    assert read_network(Wa, Wb, Wc, 11, settings=Settings(dead_threshold=0.05)).live_nodes == live
    assert read_network(Wa, Wb, Wc, 11, settings=Settings(dead_threshold=0.5)).live_nodes == live - 1
    with pytest.raises(ValueError, match="between 0 and 1"):
        read_network(Wa, Wb, Wc, 11, settings=Settings(dead_threshold=2.0))


# --------------------------------------------------------------------------- aggregation
def test_summary_mean_and_standard_error(tmp_path):
    rng = np.random.default_rng(5)
    paths = []
    for i, kinds in enumerate((["4", "4", "6"], ["4", "6", "6"])):
        (Wa, Wb, Wc), _, _ = build_network(11, kinds, rng)
        p = tmp_path / f"c{i}.pt"
        save_checkpoint(p, Wa, Wb, Wc, {"group": "11", "seed": i})
        paths.append(p)
    res = classify_many(paths)
    s = res.summary
    assert s["checkpoints"] == 2 and s["blocks"] == 6
    assert s["frac_blocks_not_order_4_or_6"] == {"mean": 0.0, "se": 0.0, "n": 2}
    assert s["frac_nonfactorable_order_4"]["mean"] == 0.0
    td = s["type_distribution"]
    assert td["z_nu=i * z_xi"]["mean"] == pytest.approx(0.5)
    assert td["z_nu=i * z_xi"]["se"] == pytest.approx(np.std([2 / 3, 1 / 3], ddof=1) / np.sqrt(2))
    assert s["mean_relative_error_order_4"]["mean"] < 5e-3
    # rendering
    text = render_text(res)
    assert "z_nu=i * z_xi" in text and "mean +- s.e." in text
    md = render_markdown(res)
    assert md.startswith("# Classification") and "| type |" in md
    pngs = angle_histograms(res)
    assert set(pngs) == {"angles_xi.png", "angles_nu.png", "angles_alpha.png", "angles_beta.png"}
    assert all(v.startswith(b"\x89PNG") for v in pngs.values())
    assert summarize([])["checkpoints"] == 0


# --------------------------------------------------------------------------- CLI and files
def good_checkpoint(path, kinds=("4", "6"), seed=0):
    (Wa, Wb, Wc), _, _ = build_network(11, list(kinds), np.random.default_rng(seed))
    save_checkpoint(path, Wa, Wb, Wc, {"group": "11", "seed": seed})
    return Wa, Wb, Wc


def run_cli(argv, capsys):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def outputs(tmp_path):
    return ["--json", tmp_path / "o.json", "--markdown", tmp_path / "o.md", "--plots", tmp_path / "plots"]


def assert_no_outputs(tmp_path):
    assert not (tmp_path / "o.json").exists()
    assert not (tmp_path / "o.md").exists()
    assert not (tmp_path / "plots").exists()
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def check_schema(doc):
    assert set(doc) >= {"checkpoints", "summary"}
    for cp in doc["checkpoints"]:
        assert set(cp) >= {"path", "group", "live_nodes", "blocks"}
        for b in cp["blocks"]:
            assert set(b) >= {"k", "order", "type", "factors", "error", "optimal"}
            assert b["type"] in BLOCK_TYPES or all(t in FACTOR_NAMES for t in b["type"].split(" * "))
            assert isinstance(b["optimal"], bool)
            for f in b["factors"]:
                assert f["name"] in FACTOR_NAMES
                for k, v in f["params"].items():
                    assert k in ("nu", "xi", "s", "alpha", "beta", "|xi|", "|alpha|", "|beta|")
                    if k == "s":
                        assert v in (1, -1)
                    elif k.startswith("|"):
                        assert isinstance(v, float) and v > 0  # the modulus of the free fit
                    else:
                        assert isinstance(v, list) and len(v) == 2 and all(isinstance(x, float) for x in v)


def test_cli_classify_writes_everything(tmp_path, capsys):
    good_checkpoint(tmp_path / "a.pt", seed=0)
    Wa, Wb, Wc = good_checkpoint(tmp_path / "b.pt", kinds=("6ab", "4", "4"), seed=1)
    np.savez(tmp_path / "c.npz", Wa=Wa, Wb=Wb, Wc=Wc, group="11")
    rc, out, err = run_cli(["classify", tmp_path / "a.pt", tmp_path / "b.pt", tmp_path / "c.npz",
                            *outputs(tmp_path)], capsys)
    assert rc == 0, err
    assert "z_nu * z_syn" in out and "z_nu=i * z_syn,ab" in out and "Summary over 3 checkpoint(s)" in out
    doc = json.loads((tmp_path / "o.json").read_text())
    check_schema(doc)
    assert [len(c["blocks"]) for c in doc["checkpoints"]] == [2, 3, 3]
    assert doc["checkpoints"][0]["group"] == "11"
    assert (tmp_path / "o.md").read_text().startswith("# Classification")
    assert sorted(os.listdir(tmp_path / "plots")) == ["angles_alpha.png", "angles_beta.png", "angles_nu.png",
                                                      "angles_xi.png", "tolerance.png"]
    curve = doc["tolerance_curve"]
    assert curve["tolerances"][0] < 0.05 < curve["tolerances"][-1]
    assert set(curve["paper_columns"]) == {"nu=i*xi", "nu=i*syn_ab", "nu*syn", "others"}
    assert "Columns of the reference table" in out and "preset default" in out
    mask = os.umask(0o022)
    os.umask(mask)
    assert os.stat(tmp_path / "o.json").st_mode & 0o777 == 0o666 & ~mask  # not mkstemp's 0600
    with pytest.raises(ValueError, match="no checkpoint"):
        classify_many([])


def test_no_verdict_reads_the_same_blocks_and_says_what_it_left_out(tmp_path, capsys):
    """--no-verdict: the same block reading, no verdict and no distances, and the report says so."""
    good_checkpoint(tmp_path / "a.pt", kinds=("6ab", "4", "4"), seed=1)
    docs, outs = [], []
    for flag in ([], ["--no-verdict"]):
        out_json = tmp_path / f"o{len(flag)}.json"
        rc, out, err = run_cli(["classify", tmp_path / "a.pt", "--json", out_json, "--no-progress", *flag], capsys)
        assert rc == 0, err
        docs.append(json.loads(out_json.read_text())["checkpoints"][0])
        outs.append(out)
    full, fast = docs
    assert full["verdict"] is not None and full["distance"] is not None
    assert fast["verdict"] is None and fast["distance"] is None
    assert all(b["distance"] is None for b in fast["blocks"])
    for key in ("type", "order", "k", "optimal", "error", "nearest"):
        assert [b[key] for b in fast["blocks"]] == [b[key] for b in full["blocks"]], key
    assert "network verdict: not computed (--no-verdict" in outs[1]
    assert "not computed" not in outs[0]
    with pytest.raises(ValueError, match="verdict must be True or False"):
        Settings(verdict="no").validate()


class Evil:
    def __reduce__(self):
        return (os.system, (f"touch {MARKER}",))


MARKER = "/tmp/cogo_classify_pwned_marker"


def test_cli_rejects_a_malicious_pickle(tmp_path, capsys):
    if os.path.exists(MARKER):
        os.unlink(MARKER)
    evil = tmp_path / "evil.pt"
    torch.save({"model": {"layera.weight": Evil()}}, evil)
    good_checkpoint(tmp_path / "good.pt")
    rc, out, err = run_cli(["classify", tmp_path / "good.pt", evil, *outputs(tmp_path)], capsys)
    assert rc == 2
    assert err.startswith("cogo: error:") and err.count("\n") == 1 and "evil.pt" in err
    assert not os.path.exists(MARKER)
    assert_no_outputs(tmp_path)


def _bad_files(tmp_path):
    good = tmp_path / "good.pt"
    Wa, Wb, Wc = good_checkpoint(good)
    data = good.read_bytes()
    (tmp_path / "trunc.pt").write_bytes(data[: len(data) // 2])
    t = lambda x: torch.as_tensor(x)
    torch.save({"model": {"layera.weight": t(Wa), "layerb.weight": t(Wb), "layerc.weight": t(Wc[:, :-1])}},
               tmp_path / "shape.pt")
    Wn = Wa.copy()
    Wn[0, 0] = np.nan
    torch.save({"model": {"layera.weight": t(Wn), "layerb.weight": t(Wb), "layerc.weight": t(Wc)}},
               tmp_path / "nan.pt")
    torch.save({"model": {"layera.weight": Wa.tolist(), "layerb.weight": t(Wb), "layerc.weight": t(Wc)}},
               tmp_path / "list.pt")
    torch.save({"model": {"layera.weight": t(Wa), "layerb.weight": t(Wb), "layerc.weight": t(Wc)},
                "meta": {"group": "3x5"}}, tmp_path / "group.pt")
    torch.save({"layera.weight": t(Wa), "layerb.weight": t(Wb)}, tmp_path / "missing.pt")
    np.savez(tmp_path / "bad.npz", Wa=Wa, Wb=Wb)
    (tmp_path / "empty.pt").write_bytes(b"")
    return ["trunc.pt", "shape.pt", "nan.pt", "list.pt", "group.pt", "missing.pt", "bad.npz", "empty.pt",
            "nonexistent.pt"]


def test_cli_rejects_malformed_files_without_output(tmp_path, capsys):
    for name in _bad_files(tmp_path):
        rc, out, err = run_cli(["classify", tmp_path / "good.pt", tmp_path / name, *outputs(tmp_path)], capsys)
        assert rc == 2, name
        assert err.startswith("cogo: error:") and err.count("\n") == 1, (name, err)
        assert name in err
        assert out == ""
        assert_no_outputs(tmp_path)


def test_cli_bad_arguments(tmp_path, capsys):
    good_checkpoint(tmp_path / "good.pt")
    for extra in (["--group", "3x5"], ["--group", "banana"], ["--dead-threshold", "x"],
                  ["--dead-threshold", "1.5"], ["--json", tmp_path / "nodir" / "o.json"],
                  ["--plots", tmp_path / "nodir" / "sub"], ["--markdown", tmp_path]):
        rc, out, err = run_cli(["classify", tmp_path / "good.pt", *extra], capsys)
        assert rc == 2, extra
        assert err.startswith("cogo: error:") and err.count("\n") == 1, (extra, err)
    rc, out, err = run_cli(["classify", tmp_path / "good.pt", "--group", "11", "--dead-threshold", "0.02"], capsys)
    assert rc == 0


def test_json_is_strict_and_complete(tmp_path):
    good_checkpoint(tmp_path / "g.pt")
    res = classify_many([tmp_path / "g.pt"])
    text = render_json(res)
    doc = json.loads(text)
    check_schema(doc)
    assert doc["summary"]["frac_nonfactorable_order_4"]["se"] is None  # one checkpoint: no standard error
    b = doc["checkpoints"][0]["blocks"][0]
    assert set(b["sums"]) >= {"abc", "|a|^2 c + |b|^2 c", "conj(b)^2 c"}
    assert to_json_dict(res)["format"] == "cogo-classify/1"
    rep = classify_checkpoint(tmp_path / "g.pt")
    assert rep.meta["seed"] == 0


# --------------------------------------------------------------------------- end to end
@pytest.mark.slow
def test_end_to_end_train_classify(tmp_path, capsys):
    import cogo.solvers.training as training
    import cogo.solvers.training_config as training_config
    import cogo.solvers.training_results as training_results
    cfg = training_config.TrainConfig(group="11", hidden=48, epochs=1500, lr=0.01, weight_decay=1e-3, log_every=500,
                                      dtype="float64")
    results = training.train(cfg, seeds=[0], progress=False)
    paths = [p for p in training_results.save_run(results, tmp_path) if p.endswith(".pt")]
    rc, out, err = run_cli(["classify", *paths, "--json", tmp_path / "o.json"], capsys)
    assert rc == 0, err
    doc = json.loads((tmp_path / "o.json").read_text())
    check_schema(doc)
    blocks = doc["checkpoints"][0]["blocks"]
    assert blocks and doc["checkpoints"][0]["live_nodes"] > 0
    for b in blocks:  # every block gets a name
        assert b["type"] in BLOCK_TYPES or all(t in FACTOR_NAMES for t in b["type"].split(" * "))


def test_paper_columns_and_preset(tmp_path, capsys):
    """z_nu=i * z_syn counts under the reference's nu=i*syn_ab column; the paper preset widens both tolerances."""

    rng = np.random.default_rng(5)
    rep = classify_block(*scrambled(z_nu_i() * z_syn(), rng))
    assert rep.type == "z_nu * z_syn" and paper_column(rep) == "nu=i*syn_ab"
    rep = classify_block(*scrambled(z_nu(unit(0.3)) * z_syn(), rng))
    assert paper_column(rep) == "nu*syn"
    rep = classify_block(*scrambled(z_nu_i() * z_xi(unit(0.3), 1), rng))
    assert paper_column(rep) == "nu=i*xi"
    # a block 7% off a product: other at the default tolerance, named with the paper preset
    x = np.stack(scrambled(z_nu(unit(0.3)) * z_syn(), rng, noise=0.0))
    x = x * (1 + 0.07 * rng.choice([-1.0, 1.0], size=(3, 6)))
    d = classify_block(*x)
    p = classify_block(*x, settings=Settings.preset_named("paper"))
    assert d.type in ("non-factorable", "other factorable") and p.type == "z_nu * z_syn"
    # the near miss says what it is near and how far
    assert d.nearest["type"] == "z_nu * z_syn" and 0.05 < d.nearest["distance"] < 0.4
    assert p.nearest == d.nearest  # a direct fit: the same whatever the tolerances
    assert d.nearest["params"][0]["degrees"]["nu"] == pytest.approx(np.rad2deg(0.3), abs=2.0)
    assert d.amplitude_spread is not None and d.amplitude_spread > 0.01
    assert Settings.preset_named("paper").factor_tol == 0.1
    with pytest.raises(ValueError, match="preset"):
        Settings.preset_named("loose")
    good_checkpoint(tmp_path / "a.pt", seed=0)
    rc, out, err = run_cli(["classify", tmp_path / "a.pt", "--preset", "paper"], capsys)
    assert rc == 0 and "preset paper" in out and "nu*syn" in out


@pytest.mark.parametrize("deg", [17.0, 8.0])
def test_nearest_is_a_direct_fit_of_the_family(deg):
    """Node amplitudes unequal by 4%: nearest is z_nu * z_syn at the right nu, a small distance (issue 10).

    The earlier re-reading at a loose tolerance labelled a 17-degree nu as the special case z_nu=i.
    """
    rng = np.random.default_rng(3)
    x = np.stack(scrambled(z_nu(np.exp(1j * np.deg2rad(deg))) * z_syn(), rng, noise=0.0))
    x[0] *= 1 + 0.04 * np.array([1, -1, 1, -1, 1, -1])  # unequal amplitudes |a b c| (not a gauge)
    n = classify_block(*x).nearest
    assert n["type"] == "z_nu * z_syn" and n["method"] == "direct fit"
    assert 0.005 < n["distance"] < 0.06
    assert n["params"][0]["degrees"]["nu"] == pytest.approx(deg, abs=0.3)
    # far from every family: a random 6-node block is far
    r = classify_block(*(rng.normal(size=(3, 6)) + 1j * rng.normal(size=(3, 6)))).nearest
    assert r["distance"] > 0.2


def test_paper_preset_divides_nodes_by_their_amplitude():
    """The reference divides each node by (a_j b_j c_j)^(1/3) (SPEC 8.4): 30% unequal amplitudes are named there only."""
    rng = np.random.default_rng(11)
    x = np.stack(scrambled(z_nu(unit(0.3)) * z_syn(), rng, noise=0.0))
    amp = 1 + 0.3 * np.array([1, -1, 0.5, -0.5, 0.2, -0.8])
    x = x * amp[None, :]  # every entry of node j times amp_j: |a b c| changes by amp_j^3
    assert classify_block(*x).type in ("non-factorable", "other factorable")
    assert classify_block(*x, settings=Settings.preset_named("paper")).type == "z_nu * z_syn"


def test_a_rescaled_block_is_not_optimal_in_any_disguise():
    """Issue 27: z_nu * z_syn scaled by 1.01 (|abc - 1| = 0.0303, by hand: 1.01^3 - 1) is an exact Kronecker product
    (fit error ~1e-16), so its own tolerance is ~1e-14 and it is not optimal; node order, signs and the per-node gauge
    (s a, s b, c / s^2) change nothing.  The same block unscaled is optimal in every disguise."""
    from cogo.catalogue.partial import z_nu, z_syn

    rng = np.random.default_rng(27)
    x = 6 ** (-1 / 3) * (z_nu(np.exp(0.4j)) * z_syn())
    for scale, want in ((1.01, False), (1.0, True)):
        for _ in range(6):
            p = rng.permutation(6)
            s = rng.choice([-1.0, 1.0], 6) * rng.uniform(0.5, 2.0, 6)
            a, b, c = scale * x.a[p] * s, scale * x.b[p] * s, scale * x.c[p] / s ** 2
            rep = classify_block(a, b, c, k=1)
            assert rep.type == "z_nu * z_syn"
            assert rep.optimal is want, (scale, rep.failed_conditions, rep.opt_tol)
            assert rep.opt_tol < 1e-9
            if not want:
                assert rep.failed_conditions == ["R_g"] and abs(rep.residuals["R_g"] - (1.01 ** 3 - 1)) < 1e-9


def test_a_fixed_optimality_tolerance_is_still_available():
    """Settings(opt_tol=0.05): the rule before (one tolerance for every block) accepts the 1.01-scaled block."""
    from cogo.catalogue.partial import z_nu, z_syn

    x = 1.01 * 6 ** (-1 / 3) * (z_nu(np.exp(0.4j)) * z_syn())
    assert classify_block(x.a, x.b, x.c, k=1, settings=Settings(opt_tol=0.05)).optimal
    assert not classify_block(x.a, x.b, x.c, k=1).optimal


def test_one_check_covers_every_output_of_classify(tmp_path):
    """check_output_paths checks --json, --markdown, --csv and --plots together, and writes nothing."""
    from cogo.analysis.report.render import check_output_paths
    from cogo.runtime.errors import CogoError

    ckpt = tmp_path / "in.pt"
    ckpt.write_bytes(b"weights")
    check_output_paths(tmp_path / "r.json", tmp_path / "r.md", csv_path=tmp_path / "r.csv", inputs=[ckpt])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.pt"]
    with pytest.raises(CogoError, match="--csv .*directory"):
        check_output_paths(csv_path=tmp_path)
    with pytest.raises(CogoError, match="--csv"):
        check_output_paths(csv_path=ckpt, inputs=[ckpt])
    with pytest.raises(CogoError, match="--markdown and --csv name the same file"):
        check_output_paths(markdown_path=tmp_path / "a", csv_path=tmp_path / "a")
