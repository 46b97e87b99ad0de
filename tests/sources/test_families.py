"""Each family against its defining formula."""

from fractions import Fraction

import pytest
import sympy

from symssm import head_count
from symssm.errors import InputError
from symssm.sources.families import (
    FAMILIES, bilinear, companion, diagonal, family_system, hippo_legs, hippo_legs_continuous, hippo_legt,
    hippo_legt_continuous, jordan, random_system, rotation, s4d_real, s4d_real_continuous, shift,
)


def M(rows):
    return sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else x
                          for x in row] for row in rows])


def test_shift_definition_and_lags():
    s = shift(5, p=2, m=1)
    assert all(s.A[i][j] == (1 if i == j + 1 else 0) for i in range(5) for j in range(5))
    assert [head_count(s, n) for n in range(1, 7)] == [0, 0, 0, 1, 2, 2]


def test_rotation_blocks_are_exact_rotations():
    s = rotation(5)
    A = M(s.A)
    for b in range(2):
        block = A[2 * b:2 * b + 2, 2 * b:2 * b + 2]
        assert block.T * block == sympy.eye(2)
        assert block.det() == 1
    assert A[0, 0] == sympy.Rational(3, 5) and A[1, 0] == sympy.Rational(4, 5)
    assert A[4, 4] == 1


def test_diagonal_entries():
    s = diagonal(4, p=2, m=2)
    assert [s.A[i][i] for i in range(4)] == [Fraction(1, 2), Fraction(-1, 3), Fraction(1, 4), Fraction(-1, 5)]
    assert s.B[2] == (1, 3) and s.C[1] == (1, 2, 3, 4)


def test_companion_characteristic_polynomial():
    coeffs = [5, -2, 0, 7]
    A = M(companion(coefficients=coeffs).A)
    x = sympy.Symbol("x")
    assert sympy.expand(A.charpoly(x).as_expr()) == sympy.expand(x**4 + 7 * x**3 - 2 * x + 5)
    with pytest.raises(InputError, match="integers"):
        companion(coefficients=["1/2", 1])


def test_jordan_structure():
    A = M(jordan(5, eigenvalue="1/3", block=2).A)
    J = A - sympy.Rational(1, 3) * sympy.eye(5)
    assert J**2 == sympy.zeros(5) and J != sympy.zeros(5)


@pytest.mark.parametrize("continuous, original", [
    (hippo_legs_continuous, lambda n, k: -sympy.sqrt(2 * n + 1) * sympy.sqrt(2 * k + 1) if n > k else (-(n + 1) if n == k else 0)),
    (hippo_legt_continuous, lambda n, k: -sympy.sqrt(2 * n + 1) * sympy.sqrt(2 * k + 1) * ((-1) ** (n - k) if n < k else 1)),
])
def test_hippo_rational_forms_are_similar_to_the_sqrt_forms(continuous, original):
    N = 5
    A_orig = sympy.Matrix(N, N, lambda n, k: original(n, k))
    B_orig = sympy.Matrix(N, 1, lambda n, _: sympy.sqrt(2 * n + 1))
    T = sympy.diag(*[sympy.sqrt(2 * n + 1) for n in range(N)])
    A_rat, B_rat = continuous(N)
    assert sympy.simplify(T.inv() * A_orig * T - sympy.Matrix(A_rat)) == sympy.zeros(N)
    assert sympy.simplify(T.inv() * B_orig - sympy.Matrix(B_rat)) == sympy.zeros(N, 1)


def test_s4d_real_continuous():
    A, B = s4d_real_continuous(3)
    assert A == [[-1, 0, 0], [0, -2, 0], [0, 0, -3]] and B == [[1], [1], [1]]


@pytest.mark.parametrize("family, continuous", [
    (hippo_legs, hippo_legs_continuous), (hippo_legt, hippo_legt_continuous), (s4d_real, s4d_real_continuous)])
def test_bilinear_discretisation_identity(family, continuous):
    N, step = 4, Fraction(1, 10)
    s = family(N)
    A, B = continuous(N)
    h = sympy.Rational(1, 20)
    I = sympy.eye(N)
    Ac, Abar, Bbar = sympy.Matrix(A), M(s.A), M(s.B)
    assert (I - h * Ac) * Abar == I + h * Ac
    assert (I - h * Ac) * Bbar == sympy.Rational(1, 10) * sympy.Matrix(B)
    assert s.C[0] == (1, 0, 0, 0)
    assert step == Fraction(1, 10)


def test_bilinear_refuses_bad_step():
    with pytest.raises(InputError, match="positive"):
        bilinear([[1]], [[1]], step=0)


def test_random_is_reproducible_and_bounded():
    a, b = random_system(6, 2, 3, seed=7), random_system(6, 2, 3, seed=7)
    assert a == b and a != random_system(6, 2, 3, seed=8)
    assert all(-3 <= x <= 3 for row in a.A for x in row)


def test_every_family_by_name():
    for name in FAMILIES:
        s = family_system(name, N=4, p=2, m=2)
        assert s.N == 4 and s.p == 2 and s.m == 2 and s.name.startswith(name)


@pytest.mark.parametrize("kwargs, match", [
    ({"name": "nope", "N": 3}, "unknown family"),
    ({"name": "shift"}, "needs --N"),
    ({"name": "shift", "N": 2, "p": 3}, "at most N"),
    ({"name": "shift", "N": 3, "seed": 2}, "random family only"),
    ({"name": "shift", "N": 10**6}, "up to N = 512"),
])
def test_family_errors(kwargs, match):
    with pytest.raises(InputError, match=match):
        family_system(kwargs.pop("name"), **kwargs)


def test_cli_family(tmp_path, capsys):
    from symssm.cli import main

    assert main(["certify", "--family", "shift", "--N", "5", "--p", "2", "-o", str(tmp_path / "c.json")]) == 0
    assert "k(5) = 2" in capsys.readouterr().out
