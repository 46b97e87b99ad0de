"""Families with parameters: grammar, generic head counts, cases, the checker, --at, LaTeX."""

import copy
import json
import os
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symssm import certify
from symssm.checker.core import check_data
from symssm.checker.parametric import parse_point
from symssm.cli import main
from symssm.errors import InputError, LimitError, ParseError
from symssm.formats.expressions import parameter_field, parse_formula, rational_function_text
from symssm.sources.parametric import PARAMETRIC_FAMILIES, parametric_family, parametric_ssm, substitute

from latex_tools import TWO_COLUMN, overfull_boxes, require_tools
from parametric_tools import lift
from paths import FIXTURES


def cert_of(A, B, C, D=None, *, parameters, n=4, name="family"):
    return certify(parametric_ssm(A, B, C, D, parameters=parameters, name=name), n).data


def at(data, text):
    result = check_data(data, at=parse_point(text))
    assert result.verified, result.message
    return result.at["head_count"]


def rejected(data):
    result = check_data(data)
    assert result.code == 1, result.message
    return result.message


# ---------------------------------------------------------------- the grammar

@pytest.mark.parametrize("text, expected", [
    ("(1-t^2)/(1+t^2)", "(-t^2 + 1)/(t^2 + 1)"),
    ("2*t/((t+1)*(t+2))", "(2*t)/(t^2 + 3*t + 2)"),
    ("0.25*t - 1/3", "1/4*t - 1/3"),
    ("-(t-1)^2", "-t^2 + 2*t - 1"),
    ("(t^2-1)/(t-1)", "t + 1"),
    ("1e-3*t + 2.5E1", "1/1000*t + 25"),
    ("3", "3"),
])
def test_formulas_parse_to_reduced_fractions(text, expected):
    assert rational_function_text(parse_formula(text, parameter_field(["t"]))) == expected


@pytest.mark.parametrize("text, error", [
    ("2t", ParseError), ("t^-1", ParseError), ("t**2", ParseError), ("t^2^2", ParseError), ("t^2.0", ParseError),
    ("t^1e1", ParseError), ("1e10001", LimitError),
    ("t^65", LimitError), ("(t", ParseError), ("t/(t-t)", ParseError), ("x", ParseError), ("", ParseError),
    ("__import__('os')", ParseError), ("t" + "+t" * 600, LimitError), ("(" * 60 + "t" + ")" * 60, LimitError),
    ("(t+1)^64*(t+1)^64", LimitError),
])
def test_formulas_outside_the_grammar_are_refused(text, error):
    with pytest.raises(error):
        parse_formula(text, parameter_field(["t"]))


def test_expansion_work_is_bounded_before_it_is_done():
    field = parameter_field(list("abcdefgh"))
    for text in ("(a+b+c+d+e+f+g+h)^64", "(a+b+c+d+e+f+g+h)^8*(a+b+c+d+e+f+g+h)^8"):
        with pytest.raises(LimitError):
            parse_formula(text, field)


def test_json_numbers_and_a_family_without_parameters(tmp_path, capsys):
    spec = tmp_path / "f.json"
    spec.write_text('{"parameters": ["a"], "A": [[0.5, "a"], [0, 1e-3]], "B": [[1], [1]], "C": [[1, 0]], "n": 3}')
    out = tmp_path / "f.cert.json"
    assert main(["certify", str(spec), "-o", str(out)]) == 0
    assert main(["check", str(out), "--spec", str(spec), "--at", "a=2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["head_count"] == 1
    spec.write_text('{"parameters": [], "A": [["1/2"]], "B": [[1]], "C": [[1]]}')
    assert main(["certify", str(spec), "-o", str(out)]) == 0
    assert main(["check", str(out), "--at", "", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["head_count"] == 1


def test_spec_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"parameters": ["a", "a"], "A": [["a"]], "B": [[1]], "C": [[1]]}))
    assert main(["certify", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "distinct" in err
    bad.write_text(json.dumps({"parameters": ["a"], "A": [["b"]], "B": [[1]], "C": [[1]]}))
    assert main(["certify", str(bad)]) == 2
    assert "not a declared parameter" in capsys.readouterr().err
    bad.write_text(json.dumps({"parameters": ["a"], "A": [[True]], "B": [[1]], "C": [[1]]}))
    assert main(["certify", str(bad)]) == 2
    bad.write_text(json.dumps({"parameters": ["a"], "A": [["a"]], "B": [[1]], "C": [[1]]}))
    assert main(["gradient", str(bad)]) == 2
    assert "declares parameters" in capsys.readouterr().err


# ---------------------------------------------------------------- known answers

def test_diagonal_two_parameters():
    d = cert_of([["a", 0], [0, "b"]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], parameters=["a", "b"])
    assert d["head_count"] == 2 and d["complete"] is True
    factors = d["bodies"][0]["factors"]["list"]
    assert [(f["polynomial"], f["status"]) for f in factors] == [("a - b", "case")]
    assert d["bodies"][1]["substitution"] == {"parent": 0, "factor": 0}
    assert factors[0]["cover"] == {"rule": "solve", "parameter": "a", "value": "b"} and factors[0]["case"] == 1
    assert d["bodies"][1]["head_count"] == 1
    assert at(d, "a=1/2,b=3") == 2 and at(d, "a=7,b=7") == 1 and at(d, "a=0,b=0") == 1


def test_rotation_family():
    d = certify(parametric_family("rotation-symbolic"), 4).data
    assert d["head_count"] == 2 and d["complete"] is True
    statuses = {f["polynomial"]: f["status"] for f in d["bodies"][0]["factors"]["list"]}
    assert statuses == {"t": "case", "t^2 + 1": "outside-domain"}
    assert at(d, "t=0") == 1 and at(d, "t=1/3") == 2 and at(d, "t=-5") == 2


def test_diagonal_three_eigenvalues_nested_cases():
    d = cert_of([["l1", 0, 0], [0, "l2", 0], [0, 0, "l3"]], [[1], [1], [1]],
                [[1, 0, 0], [0, 1, 0], [0, 0, 1]], parameters=["l1", "l2", "l3"], n=5)
    assert d["head_count"] == 3 and d["complete"] is True
    assert max(len(b["parameters"]) for b in d["bodies"][1:]) == 2
    assert min(len(b["parameters"]) for b in d["bodies"]) == 1  # two substitutions deep
    for point, distinct in [("l1=1,l2=2,l3=3", 3), ("l1=1,l2=1,l3=3", 2), ("l1=1,l2=3,l3=1", 2),
                            ("l1=5,l2=2,l3=2", 2), ("l1=-1/2,l2=-1/2,l3=-1/2", 1), ("l1=0,l2=0,l3=0", 1)]:
        assert at(d, point) == distinct, point


def test_jordan_block_has_no_exceptions():
    d = certify(parametric_family("jordan-symbolic"), 6).data
    assert d["head_count"] == 2 and d["complete"] is True and len(d["bodies"]) == 1
    assert d["bodies"][0]["factors"]["list"] == []
    assert at(d, "a=0") == 2 and at(d, "a=-3/7") == 2


def test_step_families_need_N_heads_for_every_positive_step():
    for name in ("hippo-legs-step", "hippo-legt-step", "s4d-real-step"):
        d = certify(parametric_family(name, N=3), 5).data
        assert d["head_count"] == 3 and d["complete"] is True, name
        cases = [f for f in d["bodies"][0]["factors"]["list"] if f["status"] == "case"]
        assert [f["polynomial"] for f in cases] == ["h"]  # h = 0: the identity map, no input
        assert at(d, "h=0") == 0
        for h in ("1/100", "1", "7/2", "1000"):
            assert at(d, f"h={h}") == 3


#: A family whose determinant is a ternary cubic no rule decides: a^2 b + b^2 c + c^2 a.
OPEN = dict(A=[["1"]], B=[["a^2*b + b^2*c + c^2*a"]], C=[[1]], parameters=["a", "b", "c"])
OPEN_REASON = "no parameter of degree 1, not a binary form, not a definite quadratic"


def test_generic_system_is_covered_by_solving_for_its_entries():
    """Every factor of the generic 2-state system is linear in an entry: solved (x = value / coefficient) with the
    coefficient's zeros as sibling cases, the theorem covers every parameter value."""
    d = certify(parametric_family("generic-symbolic", N=2), 3).data
    assert d["head_count"] == 1 and d["complete"] is True
    (f,) = d["bodies"][0]["factors"]["list"]
    assert f["polynomial"] == "b11*c11 + b21*c12" and f["status"] == "case"
    assert f["cover"] == {"rule": "solve", "parameter": "c12", "value": "-b11*c11", "denominator": "b21",
                          "denominator_factors": {"constant": "1", "list": [[0, 1]]}}
    assert d["bodies"][0]["factors"]["coefficient_factors"][0]["polynomial"] == "b21"
    assert at(d, "a11=1,a12=2,a21=3,a22=4,b11=2,b21=1,c11=1,c12=-2") == 1  # CB = 0, CAB != 0
    assert at(d, "a11=1,a12=2,a21=3,a22=4,b11=0,b21=0,c11=1,c12=-2") == 0  # B = 0
    assert at(d, "a11=1,a12=0,a21=0,a22=1,b11=5,b21=0,c11=0,c12=1") == 0  # C B = C A B = 0
    assert at(d, "a11=0,a12=1,a21=0,a22=0,b11=0,b21=1,c11=1,c12=0") == 1  # C B = 0, C A B = 1


def test_an_uncovered_factor_says_why():
    d = cert_of(**OPEN)
    assert d["complete"] is False
    (f,) = d["bodies"][0]["factors"]["list"]
    assert f == {"polynomial": "a^2*b + a*c^2 + b^2*c", "multiplicity": 1, "status": "uncovered",
                 "reason": OPEN_REASON}
    answer = check_data(d, at={"a": Fraction(0), "b": Fraction(0), "c": Fraction(0)}).at
    assert answer["head_count"] is None and "does not cover" in answer["reason"] and OPEN_REASON in answer["reason"]
    assert at(d, "a=1,b=1,c=1") == 1


def test_undefined_points_and_uncovered_points_answer_null():
    d = cert_of([["1/(a-1)"]], [[1]], [["a^2+1"]], parameters=["a"])
    result = check_data(d, at={"a": Fraction(1)})
    assert result.verified and result.at["head_count"] is None and "not defined" in result.at["reason"]


def test_substitute_and_family_limits():
    fam = parametric_family("diagonal-symbolic", N=2)
    assert substitute(fam, "l1", "2*l2").formulas["A"] == (("2*l2", "0"), ("0", "l2"))
    with pytest.raises(InputError):
        substitute(fam, "x", "1")
    with pytest.raises(InputError):
        parametric_family("rotation-symbolic", N=3)
    with pytest.raises(InputError):
        parametric_family("generic-symbolic", N=3, p=2, m=2)  # 21 parameters
    with pytest.raises(InputError):
        parametric_family("nope")


def test_certificates_are_deterministic():
    a = certify(parametric_family("diagonal-symbolic"), 5).to_json()
    b = certify(parametric_family("diagonal-symbolic"), 5).to_json()
    assert a == b


# ---------------------------------------------------------------- property: --at equals an independent rank

def _rank(rows):
    rows = [list(r) for r in rows]
    rank, cols = 0, len(rows[0]) if rows else 0
    for c in range(cols):
        pivot = next((i for i in range(rank, len(rows)) if rows[i][c] != 0), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for i in range(len(rows)):
            if i != rank and rows[i][c] != 0:
                f = rows[i][c] / rows[rank][c]
                rows[i] = [x - f * y for x, y in zip(rows[i], rows[rank])]
        rank += 1
    return rank


def _independent_head_count(A, B, C, D, n):
    """k(n) of a concrete Fraction system by plain lags and Gaussian elimination."""
    N = len(A)
    T = N + (1 if D is not None else 0)
    lags, X = [], B
    for d in range(min(n, T)):
        L = [[sum(C[i][t] * X[t][j] for t in range(N)) for j in range(len(B[0]))] for i in range(len(C))]
        if d == 0 and D is not None:
            L = [[L[i][j] + D[i][j] for j in range(len(B[0]))] for i in range(len(C))]
        lags.append([x for row in L for x in row])
        X = [[sum(A[i][t] * X[t][j] for t in range(N)) for j in range(len(B[0]))] for i in range(N)]
    return _rank(lags) if lags else 0


def _evaluate(system, point):
    """Entries at a point (SymPy field, generator side), or None where a reduced denominator vanishes."""
    out = {}
    for key in ("A", "B", "C", "D"):
        mat = getattr(system, key)
        if mat is None:
            out[key] = None
            continue
        rows = []
        for row in mat:
            vals = []
            for x in row:
                vals_num = x.numer(*point) if point else x.numer.LC
                vals_den = x.denom(*point) if point else x.denom.LC
                if vals_den == 0:
                    return None
                vals.append(Fraction(int(vals_num.numerator), int(vals_num.denominator))
                            / Fraction(int(vals_den.numerator), int(vals_den.denominator)))
            rows.append(vals)
        out[key] = rows
    return out


ATOMS = ["0", "1", "-1", "2", "a", "b", "a+1", "a-b", "2*a", "a*b", "a^2", "1/2", "1/(a+1)", "b/(a-2)",
         "(a-1)/(b+3)"]
values = st.fractions(min_value=-3, max_value=3, max_denominator=3)


@st.composite
def families(draw):
    names = ["a", "b"][: draw(st.integers(1, 2))]
    atoms = [x for x in ATOMS if "b" not in x or "b" in names]
    N = draw(st.integers(1, 2))
    p, m = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    mat = lambda r, c: [[draw(st.sampled_from(atoms)) for _ in range(c)] for _ in range(r)]
    D = mat(p, m) if draw(st.booleans()) else None
    return names, mat(N, N), mat(N, m), mat(p, N), D, draw(st.integers(1, 4))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(families(), st.lists(values, min_size=2, max_size=2), st.data())
def test_at_agrees_with_an_independent_rank(family, raw_point, data):
    names, A, B, C, D, n = family
    system = parametric_ssm(A, B, C, D, parameters=names)
    cert = certify(system, n)
    assert cert.check().verified
    d = cert.data
    points = [dict(zip(names, raw_point))]
    for i in range(1, len(d["bodies"])):  # points on each case, the substitutions solved up the first path
        point = lift(d["bodies"], i, {x: data.draw(values) for x in d["bodies"][i]["parameters"]})
        if point is not None:
            points.append({x: point[x] for x in names})
    for point in points:
        answer = check_data(d, at=point).at
        concrete = _evaluate(system, [point[x] for x in names])
        if concrete is None:
            assert answer["head_count"] is None and "not defined" in answer["reason"]
            continue
        if answer["head_count"] is None:
            assert not d["complete"]
            continue
        assert answer["head_count"] == _independent_head_count(concrete["A"], concrete["B"], concrete["C"],
                                                               concrete["D"], n), (point, answer)


# ---------------------------------------------------------------- corrupted certificates

@pytest.fixture(scope="module")
def diag3():
    return certify(parametric_family("diagonal-symbolic", N=3), 5).data


def corrupt(data, change):
    bad = copy.deepcopy(data)
    change(bad)
    return rejected(bad)


def test_the_honest_certificate_verifies(diag3):
    assert check_data(diag3).verified


def test_generic_k_plus_and_minus_one(diag3):
    def plus(d):
        d["head_count"] += 1
        d["bodies"][0]["head_count"] += 1

    def minus(d):
        d["head_count"] -= 1
        d["bodies"][0]["head_count"] -= 1

    assert "bodies[0]" in corrupt(diag3, plus)
    assert "bodies[0]" in corrupt(diag3, minus)
    assert corrupt(diag3, lambda d: d.update(head_count=2)).startswith("head_count")


def test_wrong_delta(diag3):
    def change(d):
        d["bodies"][0]["lower_bound"]["determinant"] = "l1 - l2"

    assert corrupt(diag3, change).startswith("bodies[0].lower_bound.determinant")


def test_wrong_substitution(diag3):
    def change(d):
        d["bodies"][0]["factors"]["list"][0]["cover"]["value"] = "l2 + 1"

    assert corrupt(diag3, change).startswith("bodies[0].factors.list[0].cover.value")


def test_case_whose_system_differs(diag3):
    def change(d):
        d["bodies"][1]["entries"]["A"][0][0] = ["l3", "1"]

    assert corrupt(diag3, change).startswith("bodies[1].entries.A[0][0]")


def test_false_complete():
    d = cert_of(**OPEN)
    bad = copy.deepcopy(d)
    bad["complete"] = True
    bad["bodies"][0]["complete"] = True
    assert rejected(bad).startswith("bodies[0].complete")


def test_more_corruptions(diag3):
    def drop_factor(d):
        d["bodies"][0]["factors"]["list"].pop()

    def factor_status(d):
        f = d["bodies"][0]["factors"]["list"][0]
        f["status"] = "outside-domain"
        del f["case"]

    def system_entry(d):
        d["system"]["A"][0][0] = "l2"

    def coefficient(d):
        body = next(b for b in d["bodies"] if not b["upper_bound"]["dimension"])
        body["upper_bound"]["coefficients"][0]["q"] = "2"

    assert "factors" in corrupt(diag3, drop_factor)
    assert "outside the domain" in corrupt(diag3, factor_status)
    assert corrupt(diag3, system_entry).startswith("input_sha256")
    assert "coefficients" in corrupt(diag3, coefficient) or "upper" in corrupt(diag3, coefficient)


def test_checker_pure_mode_gives_same_verdict(diag3, monkeypatch):
    monkeypatch.setenv("SYMSSM_CHECKER_PURE", "1")
    assert check_data(diag3).verified


# ---------------------------------------------------------------- command line and LaTeX

def test_cli_certify_check_at_json(tmp_path, capsys):
    spec = tmp_path / "rot.json"
    spec.write_text(json.dumps({"name": "rotation", "parameters": ["t"],
                                "A": [["(1-t^2)/(1+t^2)", "-2*t/(1+t^2)"], ["2*t/(1+t^2)", "(1-t^2)/(1+t^2)"]],
                                "B": [[1], [0]], "C": [[1, 0], [0, 1]], "n": 4}))
    out = tmp_path / "rot.cert.json"
    assert main(["certify", str(spec), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "where t = 0" in text and "complete" in text
    assert main(["check", str(out), "--spec", str(spec), "--at", "t=0", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["verdict"] == "verified" and answer["head_count"] == 1 and answer["case"] == ["t = 0"]
    assert main(["check", str(out), "--at", "t=2"]) == 0
    assert "k(4) = 2" in capsys.readouterr().out
    assert main(["check", str(out), "--at", "s=2"]) == 2
    assert main(["check", str(out), "--at", "t=2,t=3"]) == 2
    err = capsys.readouterr().err
    assert "unknown s" in err and "twice" in err
    bad = json.loads(out.read_text())
    bad["bodies"][0]["lower_bound"]["determinant"] = "t"
    out.write_text(json.dumps(bad))
    assert main(["check", str(out), "--at", "t=0", "--json"]) == 1
    answer = json.loads(capsys.readouterr().out)
    assert answer["verdict"] == "rejected" and answer["head_count"] is None


def test_at_refused_for_concrete_certificates(tmp_path, capsys):
    from paths import FIXTURES

    spec = os.path.join(FIXTURES, "specs", "rotation.json")
    out = tmp_path / "c.json"
    assert main(["certify", spec, "-o", str(out)]) == 0
    assert main(["check", str(out), "--at", "t=1"]) == 2
    assert "parametric" in capsys.readouterr().err


def test_cli_family_option(tmp_path, capsys):
    out = tmp_path / "j.json"
    assert main(["certify", "--family", "jordan-symbolic", "-n", "3", "-o", str(out)]) == 0
    assert "k(3) = 2" in capsys.readouterr().out
    assert main(["families"]) == 0
    assert "hippo-legs-step" in capsys.readouterr().out
    assert main(["gradient", "--family", "jordan-symbolic"]) == 2


@pytest.mark.parametrize("name, kwargs", [(name, {}) for name in PARAMETRIC_FAMILIES]
                         + [("generic-symbolic", {"p": 2, "m": 2}), ("diagonal-symbolic", {"N": 4})])
def test_latex_fits_two_columns(tmp_path, name, kwargs):
    require_tools()
    cert = certify(parametric_family(name, **kwargs), 5)
    text = cert.to_latex()
    assert "\\begin{symssmtheorem}" in text
    (tmp_path / "doc.tex").write_text(TWO_COLUMN % text)
    assert overfull_boxes(tmp_path) == []


def test_latex_refuses_a_corrupted_family_certificate(diag3):
    from symssm.errors import CertificateError
    from symssm.render.latex import render

    bad = copy.deepcopy(diag3)
    bad["bodies"][0]["head_count"] = 2
    with pytest.raises(CertificateError):
        render(bad)


def test_generator_and_checker_share_the_family_limits():
    from symssm.checker import parametric as CP
    from symssm.checker import polynomials as CPOLY
    from symssm.formats import limits as L

    assert (L.MAX_PARAMETERS, L.MAX_POLY_TERMS, L.MAX_FORMULA_CHARS, L.MAX_FORMULA_DEGREE, L.MAX_POLY_WORK) == \
        (CPOLY.MAX_PARAMETERS, CPOLY.MAX_POLY_TERMS, CPOLY.MAX_FORMULA_CHARS, CPOLY.MAX_FORMULA_DEGREE,
         CPOLY.MAX_POLY_WORK)
    assert (L.MAX_CASES, L.MAX_PARAMETRIC_DIM) == (CP.MAX_CASES, CP.MAX_PARAMETRIC_DIM)


def test_work_limit_is_a_clean_refusal(monkeypatch):
    from symssm.checker import polynomials as CPOLY

    cert = certify(parametric_family("diagonal-symbolic", N=3), 5).data
    monkeypatch.setattr(CPOLY, "MAX_POLY_WORK", 100)
    result = check_data(cert)
    assert result.code == 2 and "work limit" in result.message


# ---------------------------------------------------------------- mutation fuzzing of the family checker

FUZZ_BASES = [
    cert_of([["a", 0], [0, "b"]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], parameters=["a", "b"]),
    certify(parametric_family("rotation-symbolic"), 3).data,
    cert_of([["a", 1], [0, "b"]], [[1], ["a"]], [["b", "1/(a+b)"]], [["a-b"]], parameters=["a", "b"], n=2),
    # the covering rules: a definite form, a binary form, a rational solution with its sibling
    cert_of([["a", "-b"], ["b", "a"]], [[1, 0], [0, 1]], [["a", "b"]], parameters=["a", "b"]),
    cert_of([["a", "2*b"], ["b", "a"]], [[1, 0], [0, 1]], [["a", "b"]], parameters=["a", "b"]),
    cert_of([["1"]], [["a*b - 1", "a^2 - 2"]], [[1]], parameters=["a", "b"], n=2),
]
FUZZ_POINTS = [{"a": Fraction(x), "b": Fraction(y)} for x, y in [(1, 2), (2, 2), (0, 0), (-1, 1), (3, "1/2"),
                                                                    (0, 5), ("1/3", "1/3")]]


def _paths(obj, prefix=()):
    out = [prefix]
    if isinstance(obj, dict):
        for k in sorted(obj):
            out += _paths(obj[k], prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, prefix + (i,))
    return out


@st.composite
def family_mutants(draw):
    data = copy.deepcopy(draw(st.sampled_from(FUZZ_BASES)))
    for _ in range(draw(st.integers(1, 2))):
        path = draw(st.sampled_from(_paths(data)[1:]))
        parent = data
        for p in path[:-1]:
            parent = parent[p]
        key = path[-1]
        value = parent[key]
        choice = draw(st.sampled_from(["poly", "int", "flip", "drop", "text"]))
        if choice == "poly":
            parent[key] = draw(st.sampled_from(["0", "1", "a", "b", "a - b", "t", "-1", "2*a", "a^2 + 1", "t + 1"]))
        elif choice == "int":
            parent[key] = (value + draw(st.sampled_from([-1, 1, 2]))) if type(value) is int else draw(
                st.integers(-1, 3))
        elif choice == "flip":
            parent[key] = (not value) if isinstance(value, bool) else (list(reversed(value))
                                                                       if isinstance(value, list) else None)
        elif choice == "drop" and isinstance(parent, (dict, list)):
            del parent[key]
        else:
            parent[key] = draw(st.sampled_from(["case", "uncovered", "outside-domain", "no-zero", "solve", "", "x y",
                                                "1/0"]))
    return data


@settings(max_examples=int(os.environ.get("SYMSSM_FUZZ_EXAMPLES", "300")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(family_mutants())
def test_family_checker_never_accepts_a_false_claim(mutant):
    result = check_data(mutant)
    assert result.code in (0, 1, 2)
    assert not result.message.startswith("undecided: malformed certificate, read by no obligation"), result.message
    if not result.verified:
        return
    s = mutant["system"]
    system = parametric_ssm(s["A"], s["B"], s["C"], s["D"], parameters=s["parameters"])
    for point in FUZZ_POINTS:
        point = {x: point.get(x, Fraction(1, 2)) for x in s["parameters"]}
        answer = check_data(mutant, at=point).at
        concrete = _evaluate(system, [point[x] for x in s["parameters"]])
        if answer["head_count"] is None or concrete is None:
            continue
        truth = _independent_head_count(concrete["A"], concrete["B"], concrete["C"], concrete["D"], mutant["n"])
        assert answer["head_count"] == truth, ("FALSE ACCEPTANCE", point, answer)


def test_batch_certifies_families(tmp_path):
    from symssm.batch import run_lines

    line = json.dumps({"name": "d", "parameters": ["a", "b"], "A": [["a", 0], [0, "b"]], "B": [[1, 0], [0, 1]],
                       "C": [[1, 0], [0, 1]], "n": 3})
    rows = run_lines([line], cert_dir=str(tmp_path))
    assert rows[0]["kind"] == "parametric-head-count" and rows[0]["head_count"] == 2
    assert rows[0]["complete"] is True and rows[0]["verified"] is True


def _legacy(name):
    """A certificate written before covers (the first form of the format), as symssm 0.1 wrote it."""
    with open(os.path.join(FIXTURES, "parametric_v1", name)) as fh:
        return json.load(fh)


def test_a_shared_case_must_be_the_substituted_family_of_every_factor_that_names_it(diag3):
    """Two factors may share one case body only when it is the family of both: pointing l1 - l3 at the case of
    l1 - l2 would send the points of one to the other's theorem."""
    bad = copy.deepcopy(diag3)
    factors = bad["bodies"][0]["factors"]["list"]
    factors[1]["case"] = factors[0]["case"]
    message = rejected(bad)
    assert message.startswith(f"bodies[{factors[0]['case']}].") and "substitution of bodies[0].factors.list[1]" in message


def test_a_case_factor_must_lead_to_its_own_body():
    """First format: two factors sharing one case body would send the points of one to the other's theorem."""
    diag3 = _legacy("diagonal-symbolic-N4-n6.json")
    assert check_data(diag3).verified
    bad = copy.deepcopy(diag3)
    bodies = bad["bodies"]
    drop = {bodies[0]["factors"]["list"][1]["case"]}  # the body of l1 - l3 = 0 and its descendants
    changed = True
    while changed:
        changed = False
        for i, b in enumerate(bodies):
            if b["substitution"] is not None and b["substitution"]["parent"] in drop and i not in drop:
                drop.add(i)
                changed = True
    keep = [i for i in range(len(bodies)) if i not in drop]
    new_index = {old: new for new, old in enumerate(keep)}
    bodies[0]["factors"]["list"][1]["case"] = bodies[0]["factors"]["list"][0]["case"]
    for b in (bodies[i] for i in keep):
        if b["substitution"] is not None:
            b["substitution"]["parent"] = new_index[b["substitution"]["parent"]]
        for f in b["factors"]["list"]:
            if "case" in f:
                f["case"] = new_index[f["case"]]
    bad["bodies"] = [bodies[i] for i in keep]
    assert "case of another factor" in rejected(bad)


def _without_memo(monkeypatch, data):
    """The verdict and obligations of the checker with its memo of repeated bodies turned off."""
    from symssm.checker import parametric as checker_parametric

    monkeypatch.setattr(checker_parametric, "_json_key", lambda value: None)
    result = check_data(data)
    monkeypatch.undo()
    return result


def _repeated_bodies(data):
    """Indices of bodies whose parameters and entries equal an earlier body's (the case tree's other paths)."""
    seen, out = {}, []
    for i, b in enumerate(data["bodies"]):
        key = json.dumps([b["parameters"], b["entries"]], sort_keys=True)
        if key in seen:
            out.append(i)
        seen.setdefault(key, i)
    return out


def test_repeated_bodies_are_checked_as_if_alone(monkeypatch):
    """diagonal-4 reaches each partition of its eigenvalues along several paths: the checker remembers a
    verified body's content, and a tampered repeat is rejected with the obligation named without the memo."""
    data = _legacy("diagonal-symbolic-N4-n6.json")  # the first format repeats a body per path; covers share it
    repeats = _repeated_bodies(data)
    assert len(repeats) >= 10
    honest = check_data(data)
    plain = _without_memo(monkeypatch, data)
    assert honest.code == plain.code == 0 and honest.obligations == plain.obligations
    i = repeats[-1]
    cases = [i_ for i_, b in enumerate(data["bodies"]) if any(f["status"] == "case" for f in b["factors"]["list"])
             and i_ in repeats]

    def tamper(edit):
        t = copy.deepcopy(data)
        edit(t)
        return t

    forged = [
        tamper(lambda t: t["bodies"][i]["lower_bound"].__setitem__("determinant",
                                                                   t["bodies"][i]["lower_bound"]["determinant"] + " + 1")),
        tamper(lambda t: t["bodies"][i].__setitem__("head_count", t["bodies"][i]["head_count"] + 1)),
        tamper(lambda t: t["bodies"][i]["entries"]["A"][0].__setitem__(0, ["7", "1"])),
        tamper(lambda t: t["bodies"][i]["substitution"].__setitem__("value", "l4 + 1")),
        tamper(lambda t: t["bodies"][i].__setitem__("complete", not t["bodies"][i]["complete"])),
        tamper(lambda t: t["bodies"][i].__setitem__("holds_for", {"from": 0, "to": None})),
    ]
    if cases:
        j = cases[-1]
        f = next(f for f in data["bodies"][j]["factors"]["list"] if f["status"] == "case")
        k = data["bodies"][j]["factors"]["list"].index(f)
        forged.append(tamper(lambda t: t["bodies"][j]["factors"]["list"][k].__setitem__("case", j)))
    for t in forged:
        fast, slow = check_data(t), _without_memo(monkeypatch, t)
        assert fast.code == slow.code == 1 and fast.message == slow.message, (fast.message, slow.message)


@pytest.mark.parametrize("name", sorted(PARAMETRIC_FAMILIES))
def test_every_builtin_family_certifies_at_its_largest_size(name):
    """The sizes `symssm families` promises: each built-in family at its largest N certifies and verifies.

    (The step families at N >= 5 have determinants of degree 90 to 324 in h: beyond a formula's degree 64,
    within a certificate polynomial's 10,000.)
    """
    _, _, largest = PARAMETRIC_FAMILIES[name]
    kwargs = {"p": 2, "m": 2} if name == "generic-symbolic" else {}
    N = 2 if name == "generic-symbolic" and kwargs else largest
    cert = certify(parametric_family(name, N=N, **kwargs), 16)
    assert check_data(json.loads(cert.to_json())).code == 0
    assert cert["head_count"] >= 1
