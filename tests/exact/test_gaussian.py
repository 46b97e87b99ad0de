"""Complex SSMs over Q(i): the grammar, exact head counts, certificates and the checker."""

import copy
import json
import random

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from symssm import certify, check
from symssm.cli import main
from symssm.errors import FloatInExactPathError, ParseError
from symssm.formats.gaussian import Gaussian, format_gaussian, parse_gaussian
from symssm.sources.complex_system import complex_ssm


@pytest.mark.parametrize("text, canonical", [
    ("5", "5"), ("-2i", "-2i"), ("i", "1i"), ("-i", "-1i"), ("1/2+3/4i", "1/2+3/4i"), ("0.5-2.25i", "1/2-9/4i"),
    ("1e-3+2i", "1/1000+2i"), ("3+0i", "3"), ("0+2i", "2i"), ("+i", "1i"),
])
def test_grammar_and_canonical_text(text, canonical):
    assert format_gaussian(parse_gaussian(text)) == canonical


@pytest.mark.parametrize("text", ["1+2", "ii", "1+i+i", "2i3", "1/0i", "i1", ""])
def test_bad_entries(text):
    with pytest.raises(ParseError):
        parse_gaussian(text)


def test_floats_are_refused():
    with pytest.raises(FloatInExactPathError):
        complex_ssm([[0.5j]], [[1]], [[1]])


def test_the_issues_known_answers():
    s = complex_ssm([["1/2i", 0], [0, "-1/2i"]], [[1], [1]], [[1, 0], [0, 1]])
    cert = certify(s, 100)
    assert cert["head_count"] == 2 and cert["field"] == "Q(i)" and check(cert).verified
    pair = complex_ssm([["9/10+3/10i", 0], [0, "9/10-3/10i"]], [[1], [1]], [[1, 1]])  # a real scalar kernel
    assert certify(pair, 100)["head_count"] == 1
    lam = "1/2+1/3i"  # a repeated complex eigenvalue counts once
    rep = complex_ssm([[lam, 0], [0, lam]], [[1, 0], [0, 1]], [[1, 0], [0, 1]])
    cert = certify(rep, 100)
    assert cert["head_count"] == 1 and check(cert).verified


def _sympy_rank(system, T):
    X = sympy.Matrix([[sympy.Rational(z.re) + sympy.I * sympy.Rational(z.im) for z in row] for row in system.B])
    A = sympy.Matrix([[sympy.Rational(z.re) + sympy.I * sympy.Rational(z.im) for z in row] for row in system.A])
    C = sympy.Matrix([[sympy.Rational(z.re) + sympy.I * sympy.Rational(z.im) for z in row] for row in system.C])
    rows = []
    for _ in range(T):
        rows.append(list(sympy.expand(C * X)))
        X = A * X
    return sympy.Matrix(rows).rank(simplify=True)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(1, 2), st.integers(1, 2), st.integers(0, 10**6))
def test_head_count_is_the_rank_over_C_and_certificates_verify(N, p, m, seed):
    rng = random.Random(seed)
    z = lambda: f"{rng.randint(-2, 2)}{rng.choice('+-')}{rng.randint(0, 2)}i" if rng.random() < 0.6 else str(rng.randint(-2, 2))
    s = complex_ssm([[z() for _ in range(N)] for _ in range(N)], [[z() for _ in range(m)] for _ in range(N)],
                    [[z() for _ in range(N)] for _ in range(p)])
    cert = certify(s, 10)
    assert check(cert).verified
    assert cert["head_count"] == _sympy_rank(s, N)


def test_corrupted_complex_certificates_are_rejected():
    good = json.loads(certify(complex_ssm([["1/2i", 1], [0, "-1/2i"]], [[1], [1]], [[1, 0], [0, 1], [1, 1]]), 10)
                      .to_json())
    assert check(good).verified
    cases = [
        (lambda d: d.update(head_count=3), "head_count"),
        (lambda d: d["lower_bound"]["minor"][0].__setitem__(0, "7i"), "lower_bound.minor[0][0]"),
        (lambda d: d["lower_bound"].update(determinant="1"), "lower_bound.determinant"),
        (lambda d: d.update(field="Q"), "field"),
        (lambda d: d["system"]["A"][0].__setitem__(0, "-1/2i"), "input_sha256"),
    ]
    for change, obligation in cases:
        bad = copy.deepcopy(good)
        change(bad)
        result = check(bad)
        assert result.code == 1 and result.message.startswith(obligation), result.message
    # a number written out of its grammar is unreadable (exit 2), its field named
    bad = copy.deepcopy(good)
    bad["system"]["A"][0][0] = "1/2+0i"
    result = check(bad)
    assert result.code == 2 and result.message.startswith("malformed certificate: system.A[0][0]: "), result.message


def test_cli_with_a_decimal_complex_spec(tmp_path, capsys):
    spec = tmp_path / "c.json"
    spec.write_text(json.dumps({"A": [["0.5i", 0], [0, "-0.5i"]], "B": [[1], [1]], "C": [[1, 0], [0, 1]], "n": 10}))
    assert main(["certify", str(spec), "-o", str(tmp_path / "c.cert.json")]) == 0
    assert "over Q(i)" in capsys.readouterr().out
    assert main(["check", str(tmp_path / "c.cert.json"), "--spec", str(spec)]) == 0
    assert main(["latex", str(tmp_path / "c.cert.json"), "-o", str(tmp_path / "c.tex")]) == 0
    assert "\\mathbb{Q}(\\mathrm{i})" in (tmp_path / "c.tex").read_text()
    assert main(["gradient", str(spec)]) == 2


def test_flint_lags_equal_the_pure_gaussian_lags():
    import random

    from symssm.exact.gaussian import gaussian_lags, gaussian_lags_pure
    from symssm.sources.complex_system import complex_ssm

    rng = random.Random(5)

    def g():
        b = rng.randint(-9, 9)
        return f"{rng.randint(-9, 9)}/{rng.randint(1, 9)}{'+' if b >= 0 else '-'}{abs(b)}/{rng.randint(1, 9)}i"

    for N, p, m, with_D in ((1, 1, 1, False), (3, 2, 1, True), (5, 3, 2, True), (4, 1, 3, False)):
        D = [[g() for _ in range(m)] for _ in range(p)] if with_D else None
        s = complex_ssm([[g() for _ in range(N)] for _ in range(N)], [[g() for _ in range(m)] for _ in range(N)],
                        [[g() for _ in range(N)] for _ in range(p)], D)
        assert gaussian_lags(s, N + 2) == gaussian_lags_pure(s, N + 2)
    assert gaussian_lags(s, 0) == []


def _gaussian_integer_system(N, p, m, seed):
    rng = random.Random(seed)
    z = lambda: f"{rng.randint(-9, 9)}{rng.choice('+-')}{rng.randint(1, 9)}i"
    return complex_ssm([[z() for _ in range(N)] for _ in range(N)], [[z() for _ in range(m)] for _ in range(N)],
                       [[z() for _ in range(N)] for _ in range(p)], name=f"gauss{N}")


def test_modular_witnesses_over_q_i_certify_large_complex_systems():
    system = _gaussian_integer_system(80, 2, 2, 1)  # above the exact method's N = 64
    cert = certify(system, 10**9)
    lb = cert["lower_bound"]
    assert lb["method"] == "modular" and lb["prime"] % 4 == 1 and lb["i_mod_p"] ** 2 % lb["prime"] == lb["prime"] - 1
    assert cert["head_count"] == 4 and lb["lags"] == [0, 1, 2, 3]
    assert cert["upper_bound"] == {"coefficients": [], "dimension_from_lag": 4}
    assert check(cert).verified
    cases = [
        (lambda d: d["lower_bound"].update(i_mod_p=d["lower_bound"]["i_mod_p"] + 1), "lower_bound.i_mod_p"),
        (lambda d: d["lower_bound"].update(prime=2097143), "lower_bound.prime"),  # a prime = 3 mod 4
        (lambda d: d["lower_bound"].update(determinant_mod_p=(d["lower_bound"]["determinant_mod_p"] + 1)
                                           % d["lower_bound"]["prime"]), "lower_bound.determinant_mod_p"),
        (lambda d: d["lower_bound"].update(lags=[0, 1, 2, 5]), "lower_bound"),
        (lambda d: d.update(head_count=5), "head_count"),
        (lambda d: d["upper_bound"].update(dimension_from_lag=3), "upper_bound.dimension_from_lag"),
        (lambda d: d["lower_bound"].update(method="exact"), "lower_bound"),
    ]
    for change, obligation in cases:
        bad = copy.deepcopy(cert.data)
        change(bad)
        result = check(bad)
        assert result.code == 1 and result.message.startswith(obligation), (obligation, result.message)


def test_modular_and_exact_witnesses_agree_on_small_systems():
    for seed in range(6):
        system = _gaussian_integer_system(6, 2, 1, seed)
        exact, modular = certify(system, 10), certify(system, 10, method="modular")
        assert modular["lower_bound"]["method"] == "modular" and check(modular).verified
        assert exact["head_count"] == modular["head_count"] == 2


def test_a_large_complex_system_without_a_modular_witness_is_refused_clearly():
    from symssm.errors import LimitError

    N = 70  # a diagonal system with repeated eigenvalues: k = 2 < pm = 4, so the proof needs exact coefficients
    A = [["1/2i" if r == c and r % 2 else ("-1/2i" if r == c else 0) for c in range(N)] for r in range(N)]
    system = complex_ssm(A, [[1, 0] for _ in range(N)], [[1] * N, [1 if r % 2 else 0 for r in range(N)]])
    with pytest.raises(LimitError, match="no modular witness"):
        certify(system, 10)


def test_modular_q_i_verdicts_are_the_same_without_numpy(monkeypatch):
    from symssm.checker import accel, linalg
    from symssm.checker.core import check_data

    cert = certify(_gaussian_integer_system(70, 1, 2, 3), 100)
    assert cert["lower_bound"]["method"] == "modular"
    bad = copy.deepcopy(cert.data)
    bad["lower_bound"]["determinant_mod_p"] = (bad["lower_bound"]["determinant_mod_p"] + 1) % bad["lower_bound"]["prime"]
    verdicts = []
    for np_module in (accel.np, None):  # the leading minors go through accel.np, the rest through linalg._np
        monkeypatch.setattr(linalg, "_np", np_module)
        monkeypatch.setattr(accel, "np", np_module)
        verdicts.append((check_data(cert.data).code, check_data(bad).message))
    assert verdicts[0] == verdicts[1] and verdicts[0][0] == 0


def test_each_distinct_entry_read_once_and_bad_ones_named():
    from symssm.errors import ParseError

    s = complex_ssm([["1/2i", "1/2i"], ["3", "1/2i"]], [[1], [1]], [[1, 0]])
    assert s.A[0][0] is s.A[0][1] is s.A[1][1]  # one value per distinct text
    with pytest.raises(ParseError, match=r"A\[1\]\[0\]"):
        complex_ssm([["1/2i", "1/2i"], ["3x", "1/2i"]], [[1], [1]], [[1, 0]])


def test_residues_by_codes_equal_entry_by_entry():
    import numpy as np

    from symssm.exact.gaussian import gaussian_residue_codes, sqrt_minus_one

    def gaussian_residues(M, prime, j):  # entry by entry
        red = lambda x: x.numerator * pow(x.denominator, -1, prime) % prime  # noqa: E731
        return np.array([[(red(z.re) + j * red(z.im)) % prime for z in row] for row in M])

    system = _gaussian_integer_system(12, 2, 3, 5)
    prime = 2097133
    j = sqrt_minus_one(prime)
    for key in ("A", "B", "C"):
        got = gaussian_residue_codes(*system.entry_codes(key), prime, j)
        assert (got == gaussian_residues(getattr(system, key), prime, j)).all()


def test_a_bad_system_entry_of_a_q_i_certificate_is_named():
    cert = certify(_gaussian_integer_system(70, 1, 2, 3), 100)
    for text in ("1+0i", "2/4i", "x"):
        bad = copy.deepcopy(cert.data)
        bad["system"]["A"][3][5] = text
        result = check(bad)
        assert result.code == 2 and result.message.startswith("malformed certificate: system.A[3][5]: "), (
            text, result.message)
