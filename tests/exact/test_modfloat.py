"""Exact modular arithmetic through float64 products, against the plain modular paths."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from symssm.exact.lags import lag_stack_mod
from symssm.exact.modfloat import baby_step, greedy_positions, lags_mod, mulmod, residue_array
from symssm.exact.rankprofile import greedy_positions_mod
from symssm.sources.families import random_system
from symssm.sources.system import ssm

P = 2097143  # a prime below 2^21


def test_products_are_exact_beyond_one_chunk():
    rng = np.random.default_rng(0)
    X = rng.integers(0, P, (3, 5000)).astype(np.float64)
    Y = rng.integers(0, P, (5000, 2)).astype(np.float64)
    exact = (X.astype(object) @ Y.astype(object)) % P
    assert (mulmod(X, Y, P) == exact.astype(np.float64)).all()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 24), st.integers(1, 3), st.integers(1, 3), st.integers(0, 10**6), st.booleans())
def test_baby_giant_lags_equal_the_sequential_ones(N, p, m, seed, with_D):
    s = random_system(max(N, p, m), p, m, seed=seed)
    if with_D:
        s = ssm(s.A, s.B, s.C, [[(i + j) % 3 - 1 for j in range(m)] for i in range(p)])
    T = s.truncation
    res = lambda M: residue_array(M, P)
    fast = lags_mod(res(s.A), res(s.B), res(s.C), res(s.D) if s.has_D else None, T, P)
    assert fast.tolist() == lag_stack_mod(s, T, P)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 150), st.integers(0, 40), st.integers(0, 10**6), st.integers(2, 4))
def test_blocked_positions_equal_the_greedy_ones(K, extra, seed, values):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, values, (K, K + extra))
    assert greedy_positions(rows, P) == greedy_positions_mod(rows.tolist(), P)


def test_baby_step_balances_the_work():
    assert baby_step(1, 4, 1, 1) == 1
    s = baby_step(1024, 1024, 32, 32)
    assert 8 <= s <= 128
