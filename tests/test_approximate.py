"""Certified eps-head counts (kind approximate-head-count): brackets that contain the truth, tampering rejected."""

import json
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symssm import certify, ssm
from symssm.checker import check_data
from symssm.cli import main
from symssm.errors import InputError, LimitError
from symssm.sources.families import family_system


def _reference_errors(system, n, dps=50):
    """e_H for H = 0..pm by mpmath: the weighted lag stack's singular values, at ``dps`` digits."""
    from symssm.exact.lags import lags

    with mpmath.workdps(dps):
        Ls = lags(system, n)
        rows = [[mpmath.sqrt(n - d) * mpmath.mpf(x.numerator) / x.denominator for row in L for x in row]
                for d, L in enumerate(Ls)]
        pm = len(rows[0])
        G = mpmath.matrix(pm, pm)
        for r in rows:
            for i in range(pm):
                for j in range(pm):
                    G[i, j] += r[i] * r[j]
        lam = sorted((max(x, 0) for x in mpmath.eigsy(G, eigvals_only=True)), reverse=True)
        tr = sum(lam)
        return [mpmath.sqrt(sum(lam[H:]) / tr) if tr else mpmath.mpf(0) for H in range(pm + 1)]


def _F(x):
    """An mpf as an exact Fraction."""
    man, exp = x.man_exp  # no mpf() here: that would round to the current precision
    return Fraction(int(man) * 2 ** exp) if exp >= 0 else Fraction(int(man), 2 ** -exp)


def test_known_answer_of_a_diagonal_system():
    # L_d = diag(1/2^d, (-1/3)^d) as a 2x1 column: two independent directions, e_1 from the smaller one
    s = ssm([["1/2", 0], [0, "-1/3"]], [[1], [1]], [[1, 0], [0, 1]], name="diag")
    cert = certify(s, 16, tolerance="1/100")
    assert cert["kind"] == "approximate-head-count" and cert["head_count"] == 2
    assert check_data(cert.data).code == 0
    ref = _reference_errors(s, 16)
    e = cert["errors"]
    for H in range(3):
        assert Fraction(e[H]["lower"]) <= _F(ref[H]) + Fraction(1, 10**30)
        assert _F(ref[H]) <= Fraction(e[H]["upper"]) + Fraction(1, 10**30)
    assert e[2]["upper"] == "0"  # two heads represent it exactly
    # brackets tight to 1e-6 relative where the error is above 1e-8
    lo, up = Fraction(e[1]["lower"]), Fraction(e[1]["upper"])
    assert up - lo <= up * Fraction(1, 10**6)


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 3), st.integers(1, 2), st.integers(1, 2), st.integers(0, 10**6),
       st.sampled_from(["1/10", "1/1000", "1/100000"]))
def test_brackets_contain_a_high_precision_reference(N, p, m, seed, tol):
    import random

    rng = random.Random(seed)
    A = [[Fraction(rng.randint(-6, 6), 10) for _ in range(N)] for _ in range(N)]
    B = [[rng.randint(-2, 2) for _ in range(m)] for _ in range(N)]
    C = [[rng.randint(-2, 2) for _ in range(N)] for _ in range(p)]
    s = ssm(A, B, C)
    n = rng.randint(1, 40)
    cert = certify(s, n, tolerance=tol)
    assert check_data(cert.data).code == 0
    ref = _reference_errors(s, n)
    for e in cert["errors"]:
        r = _F(ref[e["H"]])
        slack = Fraction(1, 10**25)
        assert Fraction(e["lower"]) - slack <= r <= Fraction(e["upper"]) + slack, (e, float(r))
    k = cert["head_count"]
    if k is not None:
        assert _F(ref[k]) <= Fraction(tol) + Fraction(1, 10**25)
        assert k == 0 or _F(ref[k - 1]) > Fraction(tol)
        # one question on both paths: the numerical count is the certified one where it is decided
        from symssm.numeric.headcount import numeric_head_count

        gap = min(abs(_F(ref[h]) - Fraction(tol)) for h in (k - 1, k) if h >= 0)
        if gap > Fraction(1, 10**12):
            assert numeric_head_count(s, n, tolerance=float(Fraction(tol))).numerical_head_count == k


def _cert():
    return certify(family_system("diagonal", N=6, p=2, m=2), 64, tolerance="1e-3").data


def _tampered(change):
    data = json.loads(json.dumps(_cert()))
    change(data)
    return check_data(data)


def test_tampered_certificates_are_rejected_with_the_obligation_named():
    honest = _cert()
    assert check_data(honest).code == 0 and honest["head_count"] == 2

    r = _tampered(lambda d: d.update(head_count=1))
    assert r.code == 1 and r.message.startswith("head_count")

    def raise_lower(d):
        e = d["errors"][1]
        e["lower"] = e["upper"]
        lo = Fraction(e["upper"]) * Fraction(1000001, 1000000)
        e["lower"] = f"{lo.numerator}/{lo.denominator}"
        e["upper"] = e["lower"]

    r = _tampered(raise_lower)
    assert r.code == 1 and r.message.startswith("errors[1]")

    def lower_upper(d):
        up = Fraction(d["errors"][2]["upper"]) / 2
        d["errors"][2]["upper"] = f"{up.numerator}/{up.denominator}"
        d["errors"][2]["lower"] = "0"

    r = _tampered(lower_upper)
    assert r.code == 1 and r.message.startswith("errors[2].upper")

    r = _tampered(lambda d: d["system"]["A"][0].__setitem__(0, "1/3"))
    assert r.code == 1 and r.message.startswith("input_sha256")

    def bad_witness(d):
        d["errors"][1]["definite"]["zeta"] = "0"

    r = _tampered(bad_witness)
    assert r.code == 1 and r.message.startswith("errors[1].definite")

    r = _tampered(lambda d: d["errors"].pop())
    assert r.code == 1 and r.message.startswith("errors")


def test_straddling_tolerance_claims_nothing():
    s = family_system("diagonal", N=6, p=2, m=2)
    probe = certify(s, 64, tolerance="1e-3")
    e1 = probe["errors"][1]
    lo, up = Fraction(e1["lower"]), Fraction(e1["upper"])
    assert lo < up
    mid = (lo + up) / 2
    cert = certify(s, 64, tolerance=f"{mid.numerator}/{mid.denominator}")
    assert cert["head_count"] is None and cert["undecided_at"] == 1
    assert check_data(cert.data).code == 0
    lying = json.loads(json.dumps(cert.data))
    lying["head_count"], lying["undecided_at"] = 2, None
    assert check_data(lying).code == 1


def test_bad_tolerances_and_limits():
    s = ssm([["1/2"]], [[1]], [[1]])
    for bad in ("0", "1", "2", "-1e-3", "abc", "1/0", "nan"):
        with pytest.raises(InputError):
            certify(s, 8, tolerance=bad)
    with pytest.raises(LimitError, match="certified decay"):  # beyond the exact sum, no decay: refused
        certify(ssm([[1]], [[1]], [[1]]), 5000, tolerance="1e-3")
    with pytest.raises(LimitError, match="10\\*\\*12|1000000000000"):
        certify(s, 10 ** 13, tolerance="1e-3")


@pytest.mark.long  # about 18 s: with the long checks
def test_long_sequences_use_a_certified_decay_tail(monkeypatch):
    s = ssm([["1/2", 0], [0, "-1/3"]], [[1], [1]], [[1, 0], [0, 1]], name="diag")
    cert = certify(s, 10 ** 9, tolerance="1/100")
    tail = cert["tail"]
    assert tail["summed"] == 4096 and cert["head_count"] == 2 and check_data(cert.data).code == 0
    # the brackets contain the numeric path's float curve at n = 10^9 (logarithmic in n), to its rounding
    from symssm.numeric.headcount import numeric_head_count
    import numpy as np

    curve = numeric_head_count((np.diag([0.5, -1 / 3]), np.ones((2, 1)), np.eye(2), None), 10 ** 9).approximation_error
    for e in cert["errors"]:
        assert float(Fraction(e["lower"])) - 1e-9 <= curve[e["H"]] <= float(Fraction(e["upper"])) + 1e-9
    # a float system: its exact lags grow 53 bits a step, so only a few hundred are summed
    f = ssm([["0.9", "0.1"], ["-0.2", "0.7"]], [[1, 0], [0, 1]], [[1, "0.5"], [0, 1]])
    fc = certify(f, 10 ** 6, tolerance="1/100")
    assert fc["tail"]["summed"] < 4096 and check_data(fc.data).code == 0

    def named(mutate, obligation):
        bad = json.loads(json.dumps(cert.data))
        mutate(bad)
        r = check_data(bad)
        assert r.code == 1 and r.message.startswith(obligation), r.message

    slow = certify(ssm([["97/100", 0], [0, "1/2"]], [[1], [1]], [[1, 0], [0, 1]]), 10 ** 6, tolerance="1/100").data
    assert Fraction(slow["tail"]["bound"]) > Fraction(1, 2 ** 900) and check_data(slow).code == 0  # not the floor
    bad = json.loads(json.dumps(slow))
    bad["tail"]["bound"] = str(Fraction(bad["tail"]["bound"]) / 2)
    assert check_data(bad).message.startswith("tail.bound")
    named(lambda d: d["tail"].update(decay_rate="1/4"), "tail.lyapunov.P")
    named(lambda d: d["tail"].update(relative_distance=str(Fraction(d["tail"]["relative_distance"]) / 2)),
          "tail.relative_distance")
    named(lambda d: d["tail"]["lyapunov"].update(mu="1000"), "tail.lyapunov.mu")
    named(lambda d: d.update(head_count=1), "head_count")
    named(lambda d: d["errors"][1].update(lower=d["errors"][1]["upper"]), "errors[1].lower")
    named(lambda d: d["tail"]["summed_errors"][1].update(upper="0"), "tail.summed_errors[1]")
    named(lambda d: d["tail"].update(summed=1), "tail.bound")  # 4095 would still be true: the tail is tiny
    from symssm.checker import linalg

    monkeypatch.setattr(linalg, "_flint", None)  # the pure checker: the same verdict
    assert check_data(cert.data).code == 0


def test_cli_certify_check_latex(tmp_path, capsys):
    spec = tmp_path / "legs.json"
    spec.write_text('{"name": "float-legs", "A": [[-0.5, 0.25], [0.125, -0.75]], "B": [[1.0], [0.5]], '
                    '"C": [[1.0, -1.0], [0.5, 2.0]]}')
    cert = tmp_path / "c.json"
    assert main(["certify", str(spec), "-n", "64", "--tolerance", "1e-3", "-o", str(cert)]) == 0
    out = capsys.readouterr().out
    assert "k_eps = 2: 2 heads represent the SSM on length-64 sequences exactly (relative error 0)" in out
    assert "H = 1: e_H in [0.147359, 0.147359]" in out
    assert main(["check", str(cert)]) == 0
    assert "eps-head count 2" in capsys.readouterr().out
    assert main(["certify", str(spec), "-n", "64", "--tolerance", "2", "-o", str(tmp_path / "x.json")]) == 2
    assert "between 0 and 1" in capsys.readouterr().err
    assert main(["latex", str(cert), "--standalone", "-o", str(tmp_path / "c.tex")]) == 0
    text = (tmp_path / "c.tex").read_text()
    assert "exactly $k_\\varepsilon = 2$ heads are needed" in text
    from latex_tools import compile_tex, require_tools

    require_tools()
    (tmp_path / "doc.tex").write_text(text)
    assert "Approximate head count" in compile_tex(tmp_path)


def test_plot_heads_draws_the_certified_brackets(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "heads.png"
    assert main(["plot", "heads", "--family", "diagonal", "--N", "6", "--p", "2", "--m", "2", "-n", "128",
                 "--tolerance", "1e-3", "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = tmp_path / "again.png"
    assert main(["plot", "heads", "--family", "diagonal", "--N", "6", "--p", "2", "--m", "2", "-n", "128",
                 "--tolerance", "1e-3", "-o", str(again)]) == 0
    assert again.read_bytes() == out.read_bytes()  # same input, same bytes


def test_both_sides_share_the_limits():
    import symssm.checker.approximate as checker
    import symssm.exact.approximate as generator

    for name in ("MAX_APPROX_N", "MAX_GRAM_WORK", "MAX_APPROX_DIM", "MAX_DEFINITE_WORK"):
        assert getattr(checker, name) == getattr(generator, name), name
    from symssm.certificate.approximate import MAX_TAIL_N

    assert checker.MAX_TAIL_N == MAX_TAIL_N


def test_definiteness_work_is_bounded_before_it_starts(monkeypatch):
    import symssm.checker.approximate as checker
    import symssm.exact.approximate as generator

    data = _cert()
    monkeypatch.setattr(checker, "MAX_DEFINITE_WORK", 1000)
    result = check_data(data)
    # over a work limit a (true) certificate is undecided, the limit named: never REJECTED
    assert result.code == 2 and result.message.startswith("undecided: errors: checking 3 brackets"), result.message
    monkeypatch.setattr(generator, "MAX_DEFINITE_WORK", 1000)
    with pytest.raises(LimitError, match="beyond the checker's limit"):
        certify(family_system("diagonal", N=6, p=2, m=2), 64, tolerance="1e-3")


def test_every_command_reads_the_tolerance_with_the_same_message(tmp_path, capsys):
    spec = tmp_path / "s.json"
    spec.write_text('{"A": [["1/2"]], "B": [[1]], "C": [[1]]}')
    for value, message in (("2", "must be a number strictly between 0 and 1, got '2'"),
                           ("abc", "must be a number in (0, 1) such as 1e-3, 0.001 or 1/1000, got 'abc'")):
        errors = set()
        for argv in (["certify", str(spec), "--tolerance", value], ["numeric", str(spec), "--tolerance", value],
                     ["plot", "heads", str(spec), "-o", str(tmp_path / "f.png"), "--tolerance", value]):
            assert main(argv) == 2
            err = capsys.readouterr().err
            errors.add(err[err.index("argument"):err.index(" (see")])
        # certify's option has no --tol spelling; the sentence after the option's name is the same
        assert errors == {f"argument --tolerance: {message}", f"argument --tolerance/--tol: {message}"}
