from fractions import Fraction

import numpy as np
import pytest
import sympy

from symssm.errors import FloatInExactPathError, InputError, LimitError, ShapeError
from symssm.sources.system import canonical_system, ssm, system_sha256


def test_dimensions_and_truncation():
    s = ssm([[1, 0], [0, 1]], [[1], [2]], [[1, 1]], [[3]])
    assert (s.N, s.m, s.p, s.has_D, s.truncation) == (2, 1, 1, True, 3)


def test_zero_D_is_no_D():
    s = ssm([[1]], [[1]], [[1]], [[0]])
    assert not s.has_D and s.truncation == 1


@pytest.mark.parametrize("A, B, C, D, match", [
    ([[1, 0], [0, 1]], [[1], [0]], [[1, 0, 0]], None, "C is 1x3 but A is 2x2"),
    ([[1, 0], [0, 1]], [[1]], [[1, 0]], None, "B is 1x1 but A is 2x2"),
    ([[1, 0]], [[1]], [[1, 0]], None, "A is 1x2 but must be square"),
    ([[1, 0], [0]], [[1], [0]], [[1, 0]], None, "A is ragged"),
    ([[1]], [[1]], [[1]], [[1, 2]], "D is 1x2 but must be p x m = 1x1"),
    ([], [[1]], [[1]], None, "A is empty"),
    ([[1]], [[]], [[1]], None, "m must be at least 1"),
])
def test_shape_errors_name_the_matrices(A, B, C, D, match):
    with pytest.raises(ShapeError, match=match):
        ssm(A, B, C, D)


def test_numpy_and_sympy_inputs():
    s = ssm(np.array([[1, 2], [3, 4]]), sympy.Matrix([[1], [0]]), [[sympy.Rational(1, 2), Fraction(1, 3)]])
    assert s.C[0] == (Fraction(1, 2), Fraction(1, 3))
    assert s.A[1][0] == 3


def test_numpy_float_array_points_to_numeric_path():
    with pytest.raises(FloatInExactPathError, match="symssm.numeric"):
        ssm(np.eye(2), [[1], [0]], [[1, 0]])


def test_not_a_matrix():
    with pytest.raises(InputError, match="A must be a matrix"):
        ssm(5, [[1]], [[1]])


def test_name_limits():
    with pytest.raises(LimitError):
        ssm([[1]], [[1]], [[1]], name="x" * 201)


def test_immutable_and_hashable():
    s = ssm([[1]], [[1]], [[1]])
    with pytest.raises(AttributeError):
        s.A = ()
    assert hash(s) == hash(ssm([[1]], [[1]], [["2/2"]]))


def test_canonical_form_and_hash_ignore_name_and_spelling():
    a = ssm([["0.5"]], [[1]], [[1]], name="a")
    b = ssm([["1/2"]], [[1]], [[1]], name="b")
    assert canonical_system(a) == '{"A":[["1/2"]],"B":[["1"]],"C":[["1"]],"D":null}\n'
    assert system_sha256(a) == system_sha256(b)
