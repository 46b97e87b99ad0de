"""Certified eps-head counts of trained S4D, S5 and LRU layers (kind trained-head-count)."""

import copy
import json
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checkpoint_tools import write_safetensors
from symssm import certify
from symssm.api import certify_checkpoint, load_certificate
from symssm.checker import check_data
from symssm.checker import enclosure as E
from symssm.checker.trained import read_trained_layer
from symssm.cli import main
from symssm.errors import InputError, LimitError
from symssm.sources.checkpoints import CheckpointLayer
from symssm.sources.trained import trained_layer


def s4d_tensors(seed, H, P, *, shared, dt=(0.001, 0.1)):
    """An S4D layer as state-spaces/s4's S4D initialises it (S4D-Lin), stored in float32."""
    rng = np.random.default_rng(seed)
    lo, hi = np.log(dt[0]), np.log(dt[1])
    log_dt = np.full(H, (lo + hi) / 2) if shared else lo + rng.random(H) * (hi - lo)
    return {"kernel.log_dt": log_dt.astype(np.float32),
            "kernel.log_A_real": np.log(np.full((H, P), 0.5)).astype(np.float32),
            "kernel.A_imag": np.tile(np.pi * np.arange(P), (H, 1)).astype(np.float32),
            "kernel.C": (rng.standard_normal((H, P, 2)) * 0.5 ** 0.5).astype(np.float32),
            "D": rng.standard_normal(H).astype(np.float32)}


def s5_tensors(seed, P, H):
    rng = np.random.default_rng(seed)
    return {"Lambda_re": -rng.uniform(0.1, 1, P).astype(np.float32), "Lambda_im": rng.uniform(0, 3, P).astype(np.float32),
            "B": rng.standard_normal((P, H, 2)).astype(np.float32), "C": rng.standard_normal((H, P, 2)).astype(np.float32),
            "D": rng.standard_normal(H).astype(np.float32), "log_step": np.log(np.full((P, 1), 0.1, np.float32))}


def lru_tensors(seed, P, H):
    rng = np.random.default_rng(seed)
    f = lambda a: np.asarray(a, np.float32)  # noqa: E731
    return {"nu_log": f(np.log(rng.uniform(0.05, 0.5, P))), "theta_log": f(np.log(rng.uniform(0.1, 3, P))),
            "gamma_log": f(rng.uniform(-1, 0, P)), "B_re": f(rng.standard_normal((P, H))),
            "B_im": f(rng.standard_normal((P, H))), "C_re": f(rng.standard_normal((H, P))),
            "C_im": f(rng.standard_normal((H, P))), "D": f(rng.standard_normal(H))}


def reference_errors(kind, t, n, dps=40):
    """e_H for H = 0..E by mpmath from the reference formulas (written out here, independently of symssm)."""
    with mpmath.workdps(dps):
        x = lambda v: mpmath.mpf(float(v))  # noqa: E731  (float32 -> float64 is exact)
        rows = [[] for _ in range(n)]
        if kind == "s4d":
            H, P = t["kernel.A_imag"].shape
            for h in range(H):
                dt = mpmath.exp(x(t["kernel.log_dt"][h]))
                K = [mpmath.mpf(0)] * n
                for p in range(P):
                    A = mpmath.mpc(-mpmath.exp(x(t["kernel.log_A_real"][h][p])), x(t["kernel.A_imag"][h][p]))
                    lam = mpmath.exp(dt * A)
                    c = mpmath.mpc(x(t["kernel.C"][h][p][0]), x(t["kernel.C"][h][p][1])) * (lam - 1) / A
                    for d in range(n):
                        K[d] += 2 * (c * lam ** d).real
                K[0] += x(t["D"][h])
                for d in range(n):
                    rows[d].append(K[d])
        else:
            if kind == "s5":
                Lam = [mpmath.mpc(x(a), x(b)) for a, b in zip(t["Lambda_re"], t["Lambda_im"])]
                step = [mpmath.exp(x(v)) for v in np.reshape(t["log_step"], -1)]
                lam = [mpmath.exp(L * s) for L, s in zip(Lam, step)]
                H = t["B"].shape[1]
                B = [[(lm - 1) / L * mpmath.mpc(x(b[0]), x(b[1])) for b in Bp] for lm, L, Bp in zip(lam, Lam, t["B"])]
                C = [[mpmath.mpc(x(c[0]), x(c[1])) for c in Ci] for Ci in t["C"]]
                scale = 2
            else:
                lam = [mpmath.exp(mpmath.mpc(-mpmath.exp(x(a)), mpmath.exp(x(b))))
                       for a, b in zip(t["nu_log"], t["theta_log"])]
                H = t["B_re"].shape[1]
                B = [[mpmath.exp(x(g)) * mpmath.mpc(x(a), x(b)) for a, b in zip(ra, rb)]
                     for g, ra, rb in zip(t["gamma_log"], t["B_re"], t["B_im"])]
                C = [[mpmath.mpc(x(a), x(b)) for a, b in zip(ra, rb)] for ra, rb in zip(t["C_re"], t["C_im"])]
                scale = 1
            for d in range(n):
                for i in range(H):
                    for j in range(H):
                        v = scale * sum(C[i][p] * lam[p] ** d * B[p][j] for p in range(len(lam))).real
                        rows[d].append(v + (x(t["D"][i]) if d == 0 and i == j else 0))
        E_ = len(rows[0])
        G = mpmath.matrix(E_, E_)
        for d, r in enumerate(rows):
            for i in range(E_):
                for j in range(E_):
                    G[i, j] += (n - d) * r[i] * r[j]
        lam = sorted((max(v, 0) for v in mpmath.eigsy(G, eigvals_only=True)), reverse=True)
        tr = sum(lam)
        return [mpmath.sqrt(sum(lam[H:]) / tr) for H in range(E_ + 1)]


def _contains(cert, ref, slack=Fraction(1, 10 ** 25)):
    for e in cert["errors"]:
        r = Fraction(mpmath.nstr(ref[e["H"]], 35))
        assert Fraction(e["lower"]) - slack <= r <= Fraction(e["upper"]) + slack, (e["H"], float(r))


def _save(path, fmt, tensors):
    if fmt == "npz":
        np.savez(path, **tensors)
    elif fmt == "safetensors":
        write_safetensors(path, tensors, 'F32')
    else:
        torch = pytest.importorskip("torch")
        torch.save({k: torch.tensor(v) for k, v in tensors.items()}, path)


@pytest.mark.parametrize("fmt", ["npz", "safetensors", "pt"])
def test_s4d_checkpoint_is_certified_per_layer(tmp_path, fmt, capsys):
    shared, per_channel = s4d_tensors(1, 3, 8, shared=True), s4d_tensors(2, 4, 8, shared=False)
    tensors = {**{f"layers.0.{k}": v for k, v in shared.items()}, **{f"layers.1.{k}": v for k, v in per_channel.items()},
               "encoder.weight": np.ones((4, 3), np.float32)}
    path = tmp_path / f"model.{fmt}"
    _save(path, fmt, tensors)
    n = 96
    assert main(["model", str(path), "-n", str(n), "--tolerance", "1e-3", "--certificates", str(tmp_path / "c"),
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["certified_tolerance"] == "1/1000"
    for layer, t in zip(report["layers"], (shared, per_channel)):
        cert = load_certificate(layer["certificate"])
        assert cert.check().verified and cert["kind"] == "trained-head-count"
        assert layer["certified_head_count"] == cert["head_count"] is not None
        _contains(cert, reference_errors("s4d", t, n))
        # the certified count agrees with the numerical curve
        curve = layer["approximation_error"]
        k = cert["head_count"]
        assert curve[k] <= 1e-3 < curve[k - 1]
    # the same file again: the same bytes (no float BLAS reaches a certificate)
    first = (tmp_path / "c" / "layers.0.cert.json").read_bytes()
    assert main(["model", str(path), "-n", str(n), "--tolerance", "1e-3", "--certificates", str(tmp_path / "c")]) == 0
    out = capsys.readouterr().out
    assert "certified eps-head count" in out and "verified by the independent checker" in out
    assert (tmp_path / "c" / "layers.0.cert.json").read_bytes() == first


def test_s5_and_lru_brackets_contain_the_reference(tmp_path):
    tensors = {**{f"enc.s5.{k}": v for k, v in s5_tensors(3, 3, 2).items()},
               **{f"enc.lru.{k}": v for k, v in lru_tensors(4, 3, 2).items()}}
    np.savez(tmp_path / "m.npz", **tensors)
    results = {name: cert for name, cert, _ in certify_checkpoint(tmp_path / "m.npz", 40, "1/100")}
    assert set(results) == {"enc.s5", "enc.lru"}
    for name, kind, t in (("enc.s5", "s5", s5_tensors(3, 3, 2)), ("enc.lru", "lru", lru_tensors(4, 3, 2))):
        cert = results[name]
        assert cert is not None and cert.check().verified
        _contains(cert, reference_errors(kind, t, 40))
        lo, up = Fraction(cert["errors"][1]["lower"]), Fraction(cert["errors"][1]["upper"])
        assert up - lo <= up * Fraction(1, 10 ** 6)  # tight to 1e-6 relative


@settings(max_examples=8, deadline=None, derandomize=True)
@given(st.integers(0, 10 ** 6), st.integers(1, 3), st.integers(1, 4), st.integers(1, 30),
       st.sampled_from(["1/10", "1/1000"]))
def test_s4d_brackets_contain_a_high_precision_reference(seed, H, P, n, tol):
    t = s4d_tensors(seed, H, P, shared=seed % 2 == 0, dt=(0.01, 1.0))
    cert = certify(trained_layer(CheckpointLayer("l", "s4d", t), "x.npz"), n, tolerance=tol)
    assert check_data(cert.data).code == 0
    _contains(cert, reference_errors("s4d", t, n))


def test_long_sequences_use_the_certified_tail():
    # fast decay (dt = 1, Re A = -1/2): the lags beyond 4096 are bounded by M^d, M = exp(-1/2)
    t = s4d_tensors(5, 2, 4, shared=True, dt=(1.0, 1.0))
    layer = trained_layer(CheckpointLayer("l", "s4d", t), "x.npz")
    cert = certify(layer, 10 ** 6, tolerance="1/100")
    sur = cert["surrogate"]
    assert sur["lags"] == 4096 and Fraction(sur["tail"]) > 0
    assert cert.check().verified
    # the bracket contains the float64 curve of the numeric path at n = 10^6 (to its rounding)
    from symssm.numeric.models import analyse_layer

    curve = analyse_layer(CheckpointLayer("l", "s4d", t), 10 ** 6)["approximation_error"]
    for e in cert["errors"]:
        assert float(Fraction(e["lower"])) - 1e-9 <= curve[e["H"]] <= float(Fraction(e["upper"])) + 1e-9
    # slow decay: refused in one line rather than a useless bracket
    slow = trained_layer(CheckpointLayer("l", "s4d", s4d_tensors(5, 2, 4, shared=True, dt=(1e-4, 1e-4))), "x.npz")
    with pytest.raises(LimitError, match="decay too slowly"):
        certify(slow, 10 ** 6, tolerance="1/100")


def _tampered(data, path, value):
    bad = copy.deepcopy(data)
    target = bad
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value(target[path[-1]]) if callable(value) else value
    return check_data(bad)


def test_tampered_certificates_are_rejected_with_the_obligation_named():
    t = s4d_tensors(6, 3, 4, shared=False, dt=(0.05, 0.5))
    data = certify(trained_layer(CheckpointLayer("l", "s4d", t), "x.npz"), 64, tolerance="1/100").data
    k = data["head_count"]
    assert k >= 2 and check_data(data).code == 0

    def named(result, obligation):
        assert result.code == 1 and result.message.startswith(obligation), result.message

    named(_tampered(data, ["head_count"], k - 1), "head_count")
    named(_tampered(data, ["errors", 1, "lower"], lambda x: str(Fraction(x) * 2)), "errors[1].lower")
    mid = str((Fraction(data["errors"][1]["lower"]) + Fraction(data["errors"][1]["upper"])) / 2)
    named(_tampered(data, ["errors", 1, "upper"], mid), "errors[1].upper")
    named(_tampered(data, ["surrogate", "kernel", 3, 1], lambda x: str(int(x) + 2 ** 20)), "surrogate.kernel[3][1]")
    named(_tampered(data, ["surrogate", "radius"], lambda x: str(Fraction(x) / 2 ** 100)), "surrogate.radius")
    named(_tampered(data, ["surrogate", "relative_distance"], lambda x: str(Fraction(x) / 4)),
          "surrogate.relative_distance")
    named(_tampered(data, ["system", "parameters", "D", 0], "1/2"), "input_sha256")
    # a changed parameter with its hash recomputed: the lags no longer match the surrogate
    bad = copy.deepcopy(data)
    bad["system"]["parameters"]["log_dt"][0] = "-1"
    from symssm.checker.reading import Ledger

    bad["input_sha256"] = read_trained_layer(Ledger(), bad["system"])["sha256"]
    named(check_data(bad), "surrogate.kernel[")
    sur = data["surrogate_errors"][1]
    named(_tampered(data, ["surrogate_errors", 1, "upper"], str((Fraction(sur["lower"]) + Fraction(sur["upper"])) / 2)),
          "surrogate_errors[1].upper")


def test_tail_tampering_and_the_pure_checker_agree(monkeypatch):
    t = s4d_tensors(7, 1, 2, shared=True, dt=(1.0, 1.0))
    data = certify(trained_layer(CheckpointLayer("l", "s4d", t), "x.npz"), 5000, tolerance="1/10").data
    assert data["surrogate"]["lags"] == 4096
    assert _tampered(data, ["surrogate", "tail"], lambda x: str(Fraction(x) / 2)).message.startswith("surrogate.tail")
    from symssm.checker import linalg

    monkeypatch.setattr(linalg, "_flint", None)
    assert check_data(data).code == 0


def test_mamba_and_bad_options(tmp_path, capsys):
    rng = np.random.default_rng(0)
    mamba = {"A_log": rng.standard_normal((4, 2)), "x_proj.weight": rng.standard_normal((1 + 4, 4)),
             "dt_proj.weight": rng.standard_normal((4, 1)), "dt_proj.bias": rng.standard_normal(4), "D": np.ones(4)}
    np.savez(tmp_path / "m.npz", **{f"mixer.{k}": v for k, v in mamba.items()},
             **{f"s4.{k}": v for k, v in s4d_tensors(0, 2, 2, shared=True).items()})
    assert main(["model", str(tmp_path / "m.npz"), "-n", "32", "--tolerance", "1/100", "--certificates",
                 str(tmp_path / "c"), "--json"]) == 0
    layers = {x["name"]: x for x in json.loads(capsys.readouterr().out)["layers"]}
    assert layers["mixer"]["certified_head_count"] is None and "Mamba" in layers["mixer"]["certificate_note"]
    assert layers["s4"]["certified_head_count"] is not None
    for argv, message in ((["--certificates", "c"], "needs --tolerance"),
                          (["--tolerance", "2", "--certificates", "c"], "between 0 and 1"),
                          (["--tolerance", "x", "--certificates", "c"], "must be a number")):
        assert main(["model", str(tmp_path / "m.npz")] + argv) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    (tmp_path / "file").write_text("x")
    assert main(["model", str(tmp_path / "m.npz"), "--tolerance", "1e-2", "--certificates", str(tmp_path / "file")]) == 2
    with pytest.raises(InputError, match="tolerance"):
        certify(trained_layer(CheckpointLayer("l", "s4d", s4d_tensors(0, 1, 1, shared=True)), "x"), 8)
    huge = s4d_tensors(0, 1, 1, shared=True)
    huge["kernel.log_A_real"][0, 0] = 40.0  # exp(40): beyond the checker's enclosures; refused before writing
    with pytest.raises(LimitError, match="enclosures' range"):
        certify(trained_layer(CheckpointLayer("l", "s4d", huge), "x"), 8, tolerance="1/10")
    bad = s4d_tensors(0, 1, 1, shared=True)
    bad["kernel.C"][0, 0, 0] = np.nan
    with pytest.raises(InputError, match="NaN"):
        trained_layer(CheckpointLayer("l", "s4d", bad), "x")


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.fractions(-40, 40, max_denominator=2 ** 30), st.fractions(-40, 40, max_denominator=2 ** 30),
       st.fractions(-3, 3, max_denominator=2 ** 20), st.fractions(-3, 3, max_denominator=2 ** 20))
def test_enclosures_contain_the_true_values(a, b, c, d):
    with mpmath.workdps(90):
        q = lambda x: mpmath.mpf(x.numerator) / x.denominator  # noqa: E731
        z = mpmath.mpc(q(a), q(b))
        for got, want in ((E.exp(E.ball(a, b)), mpmath.exp(z)),
                          (E.mul(E.ball(a, b), E.ball(c, d)), z * mpmath.mpc(q(c), q(d)))):
            re, im = E.midpoint(got)
            dist = abs(mpmath.mpc(q(re), q(im)) - want)
            assert dist <= q(E.radius(got)), (a, b, c, d)
        if c or d:
            got, want = E.div(E.ball(a, b), E.ball(c, d)), z / mpmath.mpc(q(c), q(d))
            re, im = E.midpoint(got)
            assert abs(mpmath.mpc(q(re), q(im)) - want) <= q(E.radius(got))
    with pytest.raises(E.EnclosureError):
        E.div(E.ball(1), E.ball(0))
    with pytest.raises(E.EnclosureError):
        E.exp(E.ball(10 ** 6))


def test_latex_of_a_trained_layer_compiles_in_two_columns(tmp_path):
    from latex_tools import TWO_COLUMN, colliding_words, overfull_boxes, require_tools

    require_tools()
    tensors = {**{f"enc.s4d.{k}": v for k, v in s4d_tensors(1, 3, 4, shared=False, dt=(0.5, 1.0)).items()},
               **{f"enc.s5.{k}": v for k, v in s5_tensors(3, 2, 2).items()},
               **{f"enc.lru.{k}": v for k, v in lru_tensors(4, 2, 2).items()}}
    np.savez(tmp_path / "m_%.npz", **tensors)  # a file name LaTeX must escape
    body = ""
    for name, cert, reason in certify_checkpoint(tmp_path / "m_%.npz", 5000, "1/100"):
        assert cert is not None, reason
        tex = cert.to_latex()
        assert "m\\char95{}\\char37{}.npz" in tex and "[d = 0]" not in tex
        body += tex
    (tmp_path / "doc.tex").write_text(TWO_COLUMN % body)
    assert [b for b in overfull_boxes(tmp_path) if b > 1] == []
    assert colliding_words(tmp_path / "doc.pdf") == []


def test_both_sides_share_the_limits():
    from symssm.checker import trained as checker
    from symssm.exact import trained as generator
    from symssm.sources import trained as source

    for name in ("MAX_SURROGATE_LAGS", "MAX_RECURRENCE_WORK", "MAX_TRAINED_N", "MAX_GRAM_WORK"):
        assert getattr(checker, name) == getattr(generator, name), name
    assert checker.MAX_MODES == source.MAX_TRAINED_MODES
    assert checker.recurrence_work(7, 5, 3, 11) == 7 * (4 * 5 + 2 * 3) + 600 * 11 + 40 * (5 + 3)
    assert (checker.EXP_WORK, checker.BALL_WORK) == (generator.EXP_WORK, generator.BALL_WORK)
    # a layer whose lags have more than 64 entries is refused on both sides, before any work
    wide = trained_layer(CheckpointLayer("w", "s5", s5_tensors(0, 1, 9)), "x")
    with pytest.raises(LimitError, match="64"):
        certify(wide, 8, tolerance="1/10")
    data = certify(trained_layer(CheckpointLayer("s", "s5", s5_tensors(0, 1, 2)), "x"), 8, tolerance="1/10").data
    data["system"]["channels"] = 9
    assert check_data(data).message.startswith("system")
    # the surrogate's length is capped by the work of the recurrence
    many = trained_layer(CheckpointLayer("m", "s4d", s4d_tensors(0, 64, 100, shared=True, dt=(0.5, 0.5))), "x")
    modes = 64 * 100
    exps = checker.mode_exps("s4d", 64, modes)
    n0 = (generator.MAX_RECURRENCE_WORK - 600 * exps - 40 * 2 * modes) // (6 * modes)
    assert 1 <= n0 < 4096
    assert checker.recurrence_work(n0, modes, modes, exps) <= checker.MAX_RECURRENCE_WORK < checker.recurrence_work(
        n0 + 1, modes, modes, exps)
    assert many.channels == 64


def test_model_plot_draws_the_certified_brackets(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    np.savez(tmp_path / "m.npz", **{f"a.{k}": v for k, v in s4d_tensors(0, 2, 2, shared=True).items()},
             **{f"b.{k}": v for k, v in lru_tensors(1, 2, 2).items()})
    args = ["model", str(tmp_path / "m.npz"), "-n", "32", "--tolerance", "1/100", "--certificates", str(tmp_path / "c")]
    assert main(args + ["--plot", str(tmp_path / "a.svg")]) == 0
    assert main(args + ["--plot", str(tmp_path / "b.svg")]) == 0
    svg = (tmp_path / "a.svg").read_text()
    assert "certified bracket" in svg and "tolerance 0.01" in svg
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()  # deterministic
    capsys.readouterr()


@settings(max_examples=6, deadline=None, derandomize=True)
@given(st.integers(0, 10 ** 6), st.sampled_from(["s4d", "s5", "lru"]), st.sampled_from(["slow", "fast"]),
       st.sampled_from(["1/1000", "1/1000000"]))
def test_the_numeric_count_equals_the_certified_count_where_the_brackets_decide(seed, kind, speed, tol):
    """One question on both paths: the least H with e_H <= tau."""
    from symssm.numeric.models import analyse_layer

    if kind == "s4d":
        t = s4d_tensors(seed, 2, 3, shared=seed % 2 == 0, dt=(0.001, 0.01) if speed == "slow" else (0.5, 1.0))
    elif kind == "s5":
        t = s5_tensors(seed, 3, 2)
        t["log_step"] = np.log(np.full((3, 1), 0.01 if speed == "slow" else 1.0, np.float32))
    else:
        t = lru_tensors(seed, 3, 2)
        if speed == "slow":
            t["nu_log"] = np.log(np.full(3, 1e-3, np.float32) * (1 + np.arange(3, dtype=np.float32)))
    layer = CheckpointLayer("l", kind, t)
    cert = certify(trained_layer(layer, "x.npz"), 300, tolerance=tol)
    numeric = analyse_layer(layer, 300, tolerance=float(Fraction(tol)))
    if cert["head_count"] is not None:
        assert numeric["numerical_head_count"] == cert["head_count"]
        for e in cert["errors"]:  # the numeric curve lies in the certified brackets (to its precision)
            if e["H"] < len(numeric["approximation_error"]):
                assert float(Fraction(e["lower"])) - 1e-12 <= numeric["approximation_error"][e["H"]] \
                    <= float(Fraction(e["upper"])) + 1e-12


def test_an_ssm_kernel_diag_layer_is_certified_as_the_s4d_layer_with_its_kernel(tmp_path, capsys):
    """state-spaces/s4's SSMKernelDiag (exp transforms, zoh): the certified kernel is the reference one."""
    rng = np.random.default_rng(3)
    H, P = 3, 2
    t = {"kernel.inv_dt": np.log(rng.uniform(0.1, 0.5, (H, 1))).astype(np.float32),
         "kernel.A_real": np.log(np.full((1, P), 0.5, np.float32)),
         "kernel.A_imag": np.tile(np.pi * np.arange(P), (1, 1)).astype(np.float32),
         "kernel.B": rng.standard_normal((1, 1, P, 2)).astype(np.float32),
         "kernel.C": rng.standard_normal((1, H, P, 2)).astype(np.float32),
         "D": rng.standard_normal((1, H)).astype(np.float32)}
    np.savez(tmp_path / "s4.npz", **{f"model.layers.0.layer.layer.{k}": v for k, v in t.items()})
    assert main(["model", str(tmp_path / "s4.npz"), "-n", "200", "--tolerance", "1e-4", "--certificates",
                 str(tmp_path / "c"), "--json"]) == 0
    (layer,) = json.loads(capsys.readouterr().out)["layers"]
    assert layer["kind"] == "s4-diag" and layer["certified_head_count"] == layer["numerical_head_count"]
    cert = load_certificate(layer["certificate"])
    assert cert.check().verified and cert["system"]["architecture"] == "s4d"
    from layer_references import dense_curve, s4_diag_lags

    ref = dense_curve(s4_diag_lags(t, 200))
    for e in cert["errors"]:
        assert float(Fraction(e["lower"])) - 1e-12 <= ref[e["H"]] <= float(Fraction(e["upper"])) + 1e-12
    # conventions the certificate cannot state are refused with the reason; the numerical count stays
    assert main(["model", str(tmp_path / "s4.npz"), "-n", "200", "--tolerance", "1e-4", "--certificates",
                 str(tmp_path / "c"), "--dt-transform", "softplus", "--json"]) == 0
    (layer,) = json.loads(capsys.readouterr().out)["layers"]
    assert layer["certificate"] is None and "dt_transform softplus" in layer["certificate_note"]
    assert layer["numerical_head_count"] >= 1
