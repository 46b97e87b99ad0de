"""Formulas parsed on python-flint (the path from a spec to a certificate) against SymPy's field (the reference)."""

import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symssm.errors import InputError
from symssm.formats.expressions import (flint_rational_text, formula_field, parameter_field, parse_formula,
                                        rational_function_text)
from symssm.formats.ratfunc import RationalFunctionField
from symssm.sources.parametric import parametric_family

NAMES = ["a", "b", "c"]


def _both(text, names=NAMES):
    """(flint text or error, sympy text or error) for one formula."""
    out = []
    for field, show in ((formula_field(names), lambda v: flint_rational_text(v.numer, v.denom)),
                        (parameter_field(names), rational_function_text)):
        try:
            out.append(show(parse_formula(text, field)))
        except InputError as exc:
            out.append((type(exc).__name__, str(exc)))
    return out


_atom = st.one_of(st.sampled_from(NAMES), st.integers(0, 30).map(str),
                  st.sampled_from(["1.5", "0.25", "2e3", "3E-2", "7/3"]))


def _grow(inner):
    return st.one_of(
        st.tuples(inner, st.sampled_from([" + ", " - ", "*", "/"]), inner).map(lambda t: f"({t[0]}{t[1]}{t[2]})"),
        st.tuples(inner, st.integers(0, 4)).map(lambda t: f"({t[0]})^{t[1]}"),
        inner.map(lambda x: f"-{x}"))


_formula = st.recursive(_atom, _grow, max_leaves=12)


@settings(max_examples=300)
@given(_formula)
def test_flint_and_sympy_fields_read_every_formula_alike(text):
    """The same canonical text (or the same error: division by zero, a limit) from both fields."""
    flint_side, sympy_side = _both(text)
    assert flint_side == sympy_side, text


@pytest.mark.parametrize("text, expected", [
    ("(1-t^2)/(1+t^2)", "(-t^2 + 1)/(t^2 + 1)"),
    ("2*t/((t+1)*(t+2))", "(2*t)/(t^2 + 3*t + 2)"),
    ("(t^2 - 1)/(2*t - 2)", "1/2*t + 1/2"),
    ("1/(1/(t+1) - 1/(t+2))", "t^2 + 3*t + 2"),
    ("-3/(6*t + 9)", "(-1)/(2*t + 3)"),
    ("1.5e-3", "3/2000"),
    ("t/t", "1"),
    ("0*t/(t+1)", "0"),
])
def test_known_canonical_texts(text, expected):
    assert _both(text, ["t"]) == [expected, expected]


@pytest.mark.parametrize("text, error", [
    ("1/(t - t)", "division by zero"),
    ("(t+1)^64*(t+1)", "degree 65 is above the limit 64"),
    ("2t", "write products with '*'"),
    ("s + 1", "'s' is not a declared parameter"),
])
def test_errors_are_the_same(text, error):
    flint_side, sympy_side = _both(text, ["t"])
    assert flint_side == sympy_side
    assert flint_side[0] in ("ParseError", "LimitError") and error in flint_side[1]


def test_rational_functions_stay_reduced_with_a_monic_denominator():
    t, = RationalFunctionField(["t"]).gens
    x = (2 * t * t - 2) / (4 * t + 4)
    assert (str(x.numer), str(x.denom)) == ("1/2*t - 1/2", "1")
    y = (t + 1) / (3 * t * t + 3 * t)
    assert (str(y.numer), str(y.denom)) == ("1/3", "t")
    assert y * (3 * t) == 1 and (y - y) == 0 and (1 - y) + y == 1
    with pytest.raises(ZeroDivisionError):
        y / (t - t)
    assert str(RationalFunctionField([]).constant(Fraction(-3, 4)).numer) == "-3/4"


def test_guard_limits_hold_on_the_flint_field():
    """A short formula whose expansion alone costs 30 million term products is refused by both fields alike."""
    flint_side, sympy_side = _both("(a+b+c+1)^30*(a+b+c+2)^30")
    assert flint_side == sympy_side and flint_side[0] == "LimitError" and "term products" in flint_side[1]


def _sympy_bilinear(A, N):
    """The step families' reference: Abar, Bbar by SymPy's DomainMatrix over QQ(h) (B = ones)."""
    from sympy.polys.matrices import DomainMatrix

    field = parameter_field(["h"])
    h = field.gens[0]
    dom = field.to_domain()
    left = DomainMatrix([[field((1 if i == j else 0) - h / 2 * A[i][j]) for j in range(N)] for i in range(N)],
                        (N, N), dom)
    right = DomainMatrix([[field((1 if i == j else 0) + h / 2 * A[i][j]) for j in range(N)] for i in range(N)],
                         (N, N), dom)
    inv = left.inv()
    abar, bbar = inv * right, inv * DomainMatrix([[field(h)] for _ in range(N)], (N, 1), dom)
    return ([[rational_function_text(abar[i, j].element) for j in range(N)] for i in range(N)],
            [[rational_function_text(bbar[i, 0].element)] for i in range(N)])


@pytest.mark.parametrize("N", [1, 2, 3, 5])
def test_step_families_equal_the_sympy_reference(N):
    legs = [[-(2 * k + 1) if n > k else (-(n + 1) if n == k else 0) for k in range(N)] for n in range(N)]
    legt = [[-(2 * k + 1) * ((-1) ** (k - n) if n < k else 1) for k in range(N)] for n in range(N)]
    real = [[-(n + 1) if n == k else 0 for k in range(N)] for n in range(N)]
    for name, A in (("hippo-legs-step", legs), ("hippo-legt-step", legt), ("s4d-real-step", real)):
        fam = parametric_family(name, N=N)
        abar, bbar = _sympy_bilinear(A, N)
        assert [list(r) for r in fam.formulas["A"]] == abar and [list(r) for r in fam.formulas["B"]] == bbar, name


def test_sympy_entries_are_built_on_first_use():
    fam = parametric_family("rotation-symbolic")
    assert "A" not in fam.__dict__
    assert rational_function_text(fam.A[0][1]) == "(-2*t)/(t^2 + 1)" and fam.D is None
    assert [[str(x) for x in pair] for pair in fam.pairs["A"][0]] == [["-t^2 + 1", "t^2 + 1"], ["-2*t", "t^2 + 1"]]


def test_certifying_a_family_does_not_import_sympy(tmp_path):
    """SymPy costs a third of a second to import; a family's certificate (and its check) does not need it."""
    spec = tmp_path / "fam.json"
    spec.write_text('{"name": "d", "parameters": ["a", "b"], "A": [["a", 0], [0, "b"]], "B": [[1], [1]], '
                    '"C": [[1, 0], [0, 1]], "D": [["a"], [0]], "n": 4}')  # with D: the summary says "D present"
    code = ("import sys\nfrom symssm.cli import main\n"
            f"rc = main(['certify', {str(spec)!r}, '-o', {str(tmp_path / 'c.json')!r}])\n"
            "rc2 = main(['certify', '--family', 'hippo-legs-step', '--N', '3', '-n', '4', '-o', "
            f"{str(tmp_path / 'h.json')!r}])\n"
            "print(rc, rc2, 'sympy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.splitlines()[-1].split() == ["0", "0", "False"], out.stderr


def test_checking_a_small_family_loads_no_accelerator(tmp_path):
    """A small family's check is standard library only: python-flint (25 ms to load) waits for large products."""
    from symssm import certify

    cert = tmp_path / "d.json"
    cert.write_text(certify(parametric_family("diagonal-symbolic", N=3), 6).to_json())
    code = ("import sys\nfrom symssm.checker.cli import main\n"
            f"rc = main([{str(cert)!r}, '-q'])\n"
            "print(rc, sorted(m for m in ('flint', 'numpy', 'sympy', 'mpmath') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["0", "[]"], out.stderr
