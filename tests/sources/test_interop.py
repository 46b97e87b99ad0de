"""Conversions to and from the python-control / scipy.signal convention, checked against scipy's simulation."""

from fractions import Fraction

import numpy as np
import pytest

from symssm import lags
from symssm.sources.families import diagonal, random_system
from symssm.sources.interop import from_state_space, to_state_space

signal = pytest.importorskip("scipy.signal")


def _markov(A, B, C, D, count):
    """Markov parameters h_0 = D, h_d = C A^(d-1) B from scipy.signal's impulse response, input by input."""
    A, B, C, D = (np.array([[float(x) for x in row] for row in M]) for M in (A, B, C, D))
    out = np.zeros((count, C.shape[0], B.shape[1]))
    for j in range(B.shape[1]):
        u = np.zeros((count, B.shape[1]))
        u[0, j] = 1.0
        _, y, _ = signal.dlsim((A, B, C, D, 1), u)
        out[:, :, j] = y
    return out


@pytest.mark.parametrize("system", [diagonal(4, 2, 2), random_system(5, 2, 3, seed=4, low=-1, high=1)])
def test_to_state_space_keeps_the_lags(system):
    A, B, C2, D2 = to_state_space(system)
    ours = np.array([[[float(x) for x in row] for row in L] for L in lags(system, 8)])
    assert np.allclose(_markov(A, B, C2, D2, 8), ours, rtol=1e-12, atol=1e-12)


def test_from_state_space_keeps_the_markov_parameters():
    A = [[0, 1], [Fraction(-1, 2), Fraction(1, 3)]]
    B = [[1, 0], [0, 1]]
    C = [[1, 2]]
    D = [[3, Fraction(1, 4)]]
    system = from_state_space(A, B, C, D)
    assert system.N == 4
    theirs = _markov(A, B, C, D, 8)
    ours = np.array([[[float(x) for x in row] for row in L] for L in lags(system, 8)])
    assert np.allclose(theirs, ours, rtol=1e-12, atol=1e-12)
    assert lags(system, 1)[0] == ((Fraction(3), Fraction(1, 4)),)


def test_numeric_path_takes_scipy_state_space_objects():
    from symssm import numeric_head_count

    sys_ = signal.StateSpace(np.array([[0.5, 1.0], [0.0, -0.25]]), np.array([[1.0], [1.0]]),
                             np.array([[1.0, 0.0]]), np.array([[2.0]]), dt=1)
    res = numeric_head_count(sys_, 20)
    assert res.numerical_head_count == 1  # p = m = 1
    markov = _markov(sys_.A, sys_.B, sys_.C, sys_.D, 3)
    assert markov[0, 0, 0] == 2.0  # h_0 = D in that convention, L_0 here
