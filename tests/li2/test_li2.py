"""Tests of cogo.li2 (SPEC 9): the energy, its maxima, the Li^2 theorem rows and `cogo verify --theory li2`.

Expected values are SPEC 9's (E* = M/16 for a complex pair, M/8 for a real irrep,
with unit-norm inputs) or derived by hand in the comments, never by the code under test.
"""
import importlib
import json
import math

import numpy as np
import pytest
import sympy

from cogo.cli import main
from cogo.li2 import theorems as T
from cogo.li2.energy import (ascend, energy, energy_and_gradient, energy_literal, li2_group, random_sphere,
                             riemannian_gradient)


def _cos_node(M, k, phase_u=0.0, phase_v=0.0):
    g = np.arange(M)
    u = np.cos(2 * np.pi * k * g / M + phase_u)
    v = np.cos(2 * np.pi * k * g / M + phase_v)
    w = np.concatenate([u, v])
    return w / np.linalg.norm(w)


# --------------------------------------------------------------------------- the energy
@pytest.mark.parametrize("spec", ["7", "8", "3x3"])
def test_fast_energy_is_the_literal_definition(spec):
    G = li2_group(spec)
    W = random_sphere(4, G.order, 3)
    fast = energy(W, G)
    for w, e in zip(W, fast):
        assert e == pytest.approx(energy_literal(w, G), rel=1e-12)
        # raw one-hot pairs (no 1/sqrt 2): E has degree 4 in the input, so 4 times larger
        assert energy_literal(w, G, input_scale=1.0) == pytest.approx(4 * e, rel=1e-12)


def test_gradient_matches_finite_differences():
    G = li2_group("9")
    W = random_sphere(3, 9, 1)
    E, g = energy_and_gradient(W, G)
    D = np.random.default_rng(2).standard_normal(W.shape)
    h = 1e-6
    fd = (energy(W + h * D, G) - energy(W - h * D, G)) / (2 * h)
    assert np.allclose(fd, (g * D).sum(1), rtol=1e-6, atol=1e-9)
    # Euler: E homogeneous of degree 4, so <grad E, w> = 4 E
    assert np.allclose((g * W).sum(1), 4 * E, rtol=1e-12)
    _, gr = riemannian_gradient(W, G)
    assert np.allclose((gr * W).sum(1), 0, atol=1e-12)


@pytest.mark.parametrize("spec", ["7", "12", "3x5", "2x2x3"])
def test_fft_path_equals_the_cayley_table_sums(spec):
    G = li2_group(spec)
    W = random_sphere(5, G.order, 4)
    E_t, g_t = energy_and_gradient(W, G, method="table")
    E_f, g_f = energy_and_gradient(W, G, method="fft")
    assert np.allclose(E_f, E_t, rtol=1e-12, atol=0) and np.allclose(g_f, g_t, rtol=0, atol=1e-12)
    assert energy(W[0], G, method="fft") == pytest.approx(energy_literal(W[0], G), rel=1e-12)


def test_fft_path_with_elements_out_of_row_major_order():
    # Z_3 x Z_5 with its elements relabelled by a permutation: the FFT path must undo it
    from types import SimpleNamespace

    from cogo.li2.energy import Li2Group

    A = li2_group("3x5").as_product
    p = np.random.default_rng(0).permutation(15)  # new index j is old element p[j]
    inv = np.argsort(p)
    table = inv[np.asarray(A.add_table)[np.ix_(p, p)]]
    fake = SimpleNamespace(orders=A.orders, elements=np.asarray(A.elements)[p])
    G = Li2Group(label="3x5'", name="3x5 relabelled", order=15, table=table, as_product=fake)
    assert G.fft_layout[1] is not None
    W = random_sphere(4, 15, 2)
    E_t, g_t = energy_and_gradient(W, G, method="table")
    E_f, g_f = energy_and_gradient(W, G, method="fft")
    assert np.allclose(E_f, E_t, rtol=1e-12) and np.allclose(g_f, g_t, atol=1e-12)
    # without undoing the permutation the energies differ (the check can fail)
    G_wrong = Li2Group(label="x", name="x", order=15, table=table, as_product=A)
    assert not np.allclose(energy(W, G_wrong, method="fft"), E_t, rtol=1e-6)


def test_fft_path_refused_for_nonabelian():
    with pytest.raises(ValueError, match="Abelian"):
        energy(random_sphere(1, 6, 0), "S3", method="fft")
    with pytest.raises(ValueError, match="method"):
        energy(random_sphere(1, 7, 0), "7", method="fourier")


@pytest.mark.parametrize("M", [7, 11, 13])
def test_spec_values_hold_only_with_unit_norm_inputs(M):
    # u, v single cosines at one frequency, |u| = |v|: SPEC 9's E* = M / 16 (odd M)
    w = _cos_node(M, 2, 0.3, 1.1)
    assert energy(w, str(M)) == pytest.approx(M / 16, rel=1e-12)
    # with the raw one-hot pairs the same point has E = M / 4: SPEC's value is for unit-norm inputs
    assert energy_literal(w, str(M), input_scale=1.0) == pytest.approx(M / 4, rel=1e-12)
    assert energy_literal(w, str(M), input_scale=1.0) != pytest.approx(M / 16, rel=1e-3)


def test_real_irrep_even_order():
    M = 10
    g = np.arange(M)
    u = (-1.0) ** g
    w = np.concatenate([u, u]) / math.sqrt(2 * M)
    assert energy(w, "10") == pytest.approx(M / 8, rel=1e-12)  # SPEC 9: M/8 at k = M/2


def test_unequal_halves_are_not_maxima():
    # |u|^2 = 0.8, |v|^2 = 0.2: E scales by 4 * 0.8 * 0.2 = 0.64 of the maximum
    M = 11
    w = _cos_node(M, 1)
    u, v = w[:M] * math.sqrt(1.6), w[M:] * math.sqrt(0.4)
    assert energy(np.concatenate([u, v]), "11") == pytest.approx(0.64 * M / 16, rel=1e-12)


def test_ascent_reaches_predicted_maxima_only():
    run = ascend(random_sphere(40, 13, 5), "13")
    assert run.converged.all()
    assert np.allclose(run.E, 13 / 16, rtol=1e-9)


def test_components_and_predictions():
    G = li2_group("12")
    kinds = sorted(c.kind for c in G.components)
    assert kinds == ["complex"] * 5 + ["real", "trivial"]
    assert sum(c.rank for c in G.components) == 12
    assert {c.kind: c.predicted for c in G.components}["real"] == 12 / 8


# --------------------------------------------------------------------------- exact
def test_exact_energy_values():
    # single frequency, any phase of v: 7/16; Z_8 at k = 4 (real): 8/8 = 1
    assert T.exact_energy_abelian("7", [(1, 1, 0)], [(1, 1, 3)]) == sympy.Rational(7, 16)
    assert T.exact_energy_abelian("8", [(1, 4, 0)], [(1, 4, 0)]) == 1
    # u at frequency 1, v at frequency 2: u * v = 0 exactly
    assert T.exact_energy_abelian("7", [(1, 1, 0)], [(1, 2, 0)]) == 0
    # a real character with a shifted v: |u| != |v|, so below M/8
    assert T.exact_energy_abelian("8", [(1, 4, 0)], [(1, 4, 1)]) != 1


def test_exact_row_fails_on_a_mutated_theory(monkeypatch):
    assert T.theorem2_exact("9").passed
    real = T.exact_energy_abelian
    monkeypatch.setattr(T, "exact_energy_abelian", lambda G, u, v: 2 * real(G, u, v))
    r = T.theorem2_exact("9")
    assert not r.passed and r.details["failing"]


# --------------------------------------------------------------------------- the rows
@pytest.fixture(scope="module")
def rows11():
    return T.run_li2("11")


def test_run_li2_all_pass(rows11):
    assert all(r.passed for r in rows11), [r.name for r in rows11 if not r.passed]
    controls = [r for r in rows11 if r.negative_control]
    assert len(controls) == 4
    assert {r.method for r in rows11} == {"exact", "numeric"}
    names = " ".join(r.name for r in rows11)
    for key in ("2. E at", "3. maxima", "Lemma 1. eta = 0", "width large", "mixture"):
        assert key in names


def test_missing_component_residual_matches_hand_value(rows11):
    r = next(r for r in rows11 if r.name.startswith("nodes missing"))
    assert r.residual == pytest.approx(math.sqrt(2 / 10), rel=1e-9)  # one pair of 10 non-zero frequencies


def test_wrong_prediction_fails_the_convergence_row():
    G = li2_group("9")
    run = ascend(random_sphere(100, 9, 0), G)
    assert T.theorem2_numeric(G, run=run)[0].passed
    bad = T.theorem2_numeric(G, run=run, predict=lambda c: 9 / 8 if c.kind != "trivial" else 0.0)[0]
    assert not bad.passed and bad.details["failed_starts"] == 100


def test_too_few_starts_misses_components():
    r = T.theorem2_numeric("23", starts=3)
    assert not r[1].passed and r[1].details["missing"]


def test_gradient_ridge_is_residual_times_coefficients():
    rng = np.random.default_rng(0)
    F = rng.standard_normal((30, 8))
    Y = rng.standard_normal((30, 4))
    Y -= Y.mean(0)
    eta = 0.3
    Ft = F - F.mean(0)
    C = np.linalg.solve(Ft.T @ Ft + eta * np.eye(8), Ft.T @ Y)
    R = Y - Ft @ C
    assert np.allclose(T.gradient_ridge(F, Y, eta), R @ C.T, atol=1e-12)


def test_nonabelian_s3():
    G = li2_group("S3")
    preds = sorted((c.kind, c.dim, c.predicted) for c in G.components)
    # sign (real, d=1): 6/8; standard (real, d=2): 6/16; trivial: 0
    assert preds == [("real", 1, 0.75), ("real", 2, 0.375), ("trivial", 1, 0.0)]
    rows = T.run_li2("S3")
    assert all(r.passed for r in rows)
    assert any(r.negative_control for r in rows)


# --------------------------------------------------------------------------- the registry
@pytest.mark.parametrize("group, method", [("2", "both"), ("3", "both"), ("5", "exact"), ("S3", "both"),
                                           ("Q8", "numeric"), ("37", "numeric")])
def test_each_row_runs_or_is_skipped_with_its_reason(group, method, monkeypatch):
    """run_li2 and skipped_li2 are two queries over LI2_THEOREMS: every row of the method is run or listed, not both."""
    calls = []
    for row in T.LI2_THEOREMS:   # stub bodies: which rows run is the registry's answer, not the maths'
        monkeypatch.setattr(importlib.import_module(row.module), row.body,
                            lambda G, *a, _b=row.body, **k: calls.append(_b) or T.TheoremResult(
                                name=_b, method="numeric", statement="", passed=True, residual=0.0, seconds=0.0))
    monkeypatch.setattr(T, "_ascent_run", lambda G, starts, seed: "a run")
    rows = T.run_li2(group, method)
    assert [r.name for r in rows] == calls
    wanted = {"both": {"exact", "numeric"}}.get(method, {method})
    skipped = T.skipped_li2(group, method)
    for row in T.LI2_THEOREMS:
        listed = any(line.startswith(f"{row.label}, {'/'.join(row.methods)} (") for line in skipped)
        if not set(row.methods) & wanted:
            assert row.body not in calls and not listed
        else:
            assert (row.body in calls) != listed, (row.body, calls, skipped)
    G = li2_group(group)
    by_hand = {   # when each row applies, written out from SPEC 9's conditions
        "theorem2_exact": G.as_product is not None, "theorem2_numeric": True, "theorem3": True,
        "lemma1": G.order ** 2 <= 1024,
        "control_mixture_exact": G.as_product is not None and sum(c.kind != "trivial" for c in G.components) >= 2,
        "control_mixture_numeric": sum(c.kind != "trivial" for c in G.components) >= 2,
        "control_wrong_prediction": sum(c.kind != "trivial" for c in G.components) >= 2}
    assert calls == [r.body for r in T.LI2_THEOREMS if set(r.methods) & wanted and by_hand[r.body]]


def test_a_new_row_is_one_registry_entry(monkeypatch):
    """A row added to LI2_THEOREMS alone is run, with the shared ascent run, and skipped with its reason."""
    from cogo.proofs.registry import Row

    seen = {}

    def toy(G, run, seed):
        seen["run"] = run
        return T.TheoremResult(name="toy", method="numeric", statement="", passed=True, residual=0.0, seconds=0.0)

    monkeypatch.setattr(T, "toy_row", toy, raising=False)
    odd = (lambda G: G.order % 2 == 1, "needs odd order")
    row = Row("toy", "a toy row", "SPEC 9", "toy_row", requires=(odd,), module=T.__name__, methods=("numeric",),
              shared=("run", "seed"))
    monkeypatch.setattr(T, "LI2_THEOREMS", (*T.LI2_THEOREMS, row))
    assert [r.name for r in T.run_li2("5", "numeric", starts=8)][-1] == "toy"
    assert seen["run"].W.shape == (8, 10)   # the ascent run the other numeric rows used: 8 starts on R^(2M)
    assert "toy" not in [r.name for r in T.run_li2("2", "numeric", starts=8)]
    assert T.skipped_li2("2", "numeric")[-1] == "toy: a toy row, numeric (needs odd order)"
    assert not any("toy" in line for line in T.skipped_li2("2", "exact"))   # a numeric row: not an exact skip


def test_z2_runs_with_its_one_control():
    """Z_2 has one non-trivial irrep: without its node nothing is left, and the residual is sqrt(1/(M-1)) = 1 by hand
    (this crashed on an empty node array before)."""
    rows = T.run_li2("2", starts=8)
    assert all(r.passed for r in rows)
    (control,) = [r for r in rows if r.negative_control]
    assert control.details["nodes"] == 0 and control.residual == pytest.approx(1.0, abs=1e-12)


def test_a_bad_method_is_refused():
    with pytest.raises(ValueError, match="method must be"):
        T.run_li2("5", "symbolic")
    with pytest.raises(ValueError, match="method must be"):
        T.skipped_li2("5", "symbolic")


# --------------------------------------------------------------------------- CLI
def test_cli_li2(tmp_path, capsys):
    out = tmp_path / "li2.json"
    assert main(["verify", "--theory", "li2", "--group", "7", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data and all(row["passed"] for row in data)
    assert "cogo verify --theory li2: Z_7" in capsys.readouterr().out


def test_cli_li2_bad_group(tmp_path, capsys):
    out = tmp_path / "x.json"
    assert main(["verify", "--theory", "li2", "--group", "NotAGroup", "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cogo: error:") and len(err.strip().splitlines()) == 1
    assert not out.exists()


# --------------------------------------------------------------------------- Theorem 4 sweep
def test_fit_constant_reads_the_crossing():
    from cogo.li2.boundary import fit_constant

    rows = [{"M": M, "x": x, "lr": 0.01, "seed": 1, "test_acc": a}
            for M in (11, 17) for x, a in ((1.0, 0.0), (2.0, 0.25), (3.0, 0.75), (4.0, 1.0))]
    f = fit_constant(rows)
    assert f["per_group"] == {"11": 2.5, "17": 2.5} and f["constant"] == 2.5  # halfway between 0.25 and 0.75
    rows_never = [dict(r, test_acc=0.1) for r in rows]
    assert fit_constant(rows_never)["constant"] is None
    # a group with d_max = 2 crossing at x = 10: not in the d = 1 constant; 10 / 2^2 = 2.5 in the scaled median
    rows_s3 = rows + [{"group": "S3", "M": 6, "d_max": 2, "x": x, "lr": 0.01, "seed": 1, "test_acc": a}
                      for x, a in ((8.0, 0.0), (12.0, 1.0))]
    f = fit_constant(rows_s3)
    assert f["per_group"]["S3"] == 10.0 and f["constant"] == 2.5 and f["scaled"] == 2.5
    assert f["theory"] == {"11": 2.7482, "17": 2.7482, "S3": 4 * 2.7482}


def test_group_info_irrep_dimensions():
    from cogo.li2.boundary import group_info, theory_boundary

    assert group_info("23") == {"group": "23", "name": "Z_23", "M": 23, "d_max": 1}
    assert group_info("3x5")["d_max"] == 1
    # S3, D5: largest irrep of dimension 2; A4: 3 (the sum of d_k^2 is the order: 1+1+4, 1+1+4+4, 1+1+1+9)
    assert [group_info(g)["d_max"] for g in ("S3", "D5", "A4")] == [2, 2, 3]
    assert theory_boundary(3) == pytest.approx(9 * 2.7482)


def test_cli_li2_sweep_tiny_and_resume(tmp_path, capsys):
    out = tmp_path / "sw"
    argv = ["li2-sweep", "--groups", "5", "--x", "1", "2", "--seeds", "1", "--epochs", "5", "--hidden", "8",
            "--threads", "1", "--out", str(out)]
    assert main(argv) == 0
    data = json.loads((out / "sweep.json").read_text())
    assert len(data["rows"]) == 2 and (out / "phase_diagram_lr0.01.png").stat().st_size > 0
    capsys.readouterr()
    assert main(argv) == 0  # resumed: nothing retrained
    assert "Z_5 x=" not in capsys.readouterr().out
    assert main(argv[:-1] + [str(out)] + ["--hidden", "9"]) == 2  # other settings: refused


def test_cli_li2_sweep_nonabelian_group(tmp_path, capsys):
    out = tmp_path / "sw"
    argv = ["li2-sweep", "--groups", "S3", "5", "--x", "2", "--seeds", "1", "--epochs", "3", "--hidden", "8",
            "--threads", "1", "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    rows = json.loads((out / "sweep.json").read_text())["rows"]
    assert [(r["group"], r["M"], r["d_max"]) for r in rows] == [("S3", 6, 2), ("5", 5, 1)]
    # S3: floor(train fraction * 36) pairs with train fraction 2 log 6 / 6 (21.5 -> 21)
    assert rows[0]["n_train"] == 21
    assert "S3: - (theory 11)" in text  # no crossing on one x; theory 2.7482 * 2^2
    assert main(["li2-sweep", "--groups", "NotAGroup", "--out", str(tmp_path / "x")]) == 2
