from fractions import Fraction

import pytest

from symssm.errors import InputError, LimitError
from symssm.exact.lags import lag, lag_stack_mod, lags
from symssm.sources.system import ssm


def test_lags_of_rotation_are_powers():
    rot = ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]])
    L = lags(rot, 4)
    assert L[0] == ((1, 0), (0, 1))
    assert L[1] == ((0, -1), (1, 0))
    assert L[2] == ((-1, 0), (0, -1))
    assert L[3] == ((0, 1), (-1, 0))


def test_L0_includes_D_and_rationals_stay_exact():
    s = ssm([["1/3"]], [["1/2"]], [[2]], [["1/7"]])
    L = lags(s, 3)
    assert L[0][0][0] == Fraction(1) + Fraction(1, 7)
    assert L[1][0][0] == Fraction(1, 3)
    assert L[2][0][0] == Fraction(1, 9)


def test_single_lag_by_squaring_matches_iteration():
    s = ssm([[1, 1], [0, 1]], [[0], [1]], [[1, 0]], [[5]])
    assert lag(s, 0) == lags(s, 1)[0]
    assert lag(s, 37) == lags(s, 38)[37]
    assert lag(s, 37)[0][0] == 37


def test_mod_p_lags_are_the_reduction_of_exact_lags():
    s = ssm([["1/3", 2], [1, "-5/4"]], [[1], ["2/5"]], [[1, "1/2"]], [["3/7"]])
    P = 1_000_003
    exact = lags(s, 5)
    mod = lag_stack_mod(s, 5, P)
    for d in range(5):
        x = exact[d][0][0]
        assert mod[d][0] == x.numerator * pow(x.denominator, -1, P) % P


def test_bad_counts():
    s = ssm([[1]], [[1]], [[1]])
    with pytest.raises(InputError):
        lags(s, -1)
    with pytest.raises(LimitError, match="head_count"):
        lags(s, 10**9)
    with pytest.raises(InputError):
        lag(s, True)
