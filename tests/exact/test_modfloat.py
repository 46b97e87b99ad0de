"""Exact modular arithmetic through float64 products, against the plain modular paths."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from symssm.exact.lags import lag_stack_mod
from symssm.exact.modfloat import baby_step, fmod, greedy_positions, greedy_profile, lags_mod, mulmod, residue_codes
from symssm.exact.rankprofile import det_mod, greedy_positions_mod, row_rank_profile_mod
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
    res = lambda name: residue_codes(*s.entry_codes(name), P)
    fast = lags_mod(res("A"), res("B"), res("C"), res("D") if s.has_D else None, T, P)
    assert fast.tolist() == lag_stack_mod(s, T, P)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 150), st.integers(0, 40), st.integers(0, 10**6), st.integers(2, 4))
def test_blocked_positions_equal_the_greedy_ones(K, extra, seed, values):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, values, (K, K + extra))
    assert greedy_positions(rows, P) == greedy_positions_mod(rows.tolist(), P)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 150), st.integers(1, 40), st.integers(0, 10**6), st.integers(2, 4), st.integers(0, 3))
def test_one_elimination_gives_the_profile_positions_and_determinant(K, width, seed, values, repeats):
    """greedy_profile against the separate FLINT rank profile, greedy positions and FLINT determinant it replaced."""
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, values, (K, width))
    if repeats and K > 1:  # dependent rows: copies and sums of earlier ones
        for i in rng.integers(1, K, repeats):
            rows[i] = (rows[i - 1] + rows[0]) % values
    pivots, cols, det = greedy_profile(rows, P)
    assert pivots == row_rank_profile_mod(rows.astype(np.float64), P)
    assert cols == (greedy_positions_mod(rows[pivots].tolist(), P) if pivots else [])
    assert det == det_mod(rows[np.ix_(pivots, cols)].tolist(), P)


def test_exact_residues_near_multiples_of_the_prime():
    """Exact on its documented domain |X| < 2^53 - P, at multiples of P (where the float quotient may round) and
    at the ends; the mulmod and elimination values all lie inside it."""
    top = 2**53 - P - 1
    X = np.array([float(s * (k * P + e)) for k in range(0, top // P, (top // P) // 997) for e in (-1, 0, 1)
                  for s in (1, -1)] + [float(top), float(-top)])
    assert fmod(X, P).tolist() == [float(int(x) % P) for x in X]


def test_baby_step_balances_the_work():
    assert baby_step(1, 4, 1, 1) == 1
    s = baby_step(1024, 1024, 32, 32)
    assert 8 <= s <= 128
