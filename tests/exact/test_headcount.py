"""Known head counts, the examples contract, and laws checked by hypothesis."""

import time
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings

from symssm.errors import BudgetExceeded, InputError
from symssm.sources.examples import EXAMPLES
from symssm.exact.headcount import find_witness, head_count, profile
from symssm.sources.system import ssm

from strategies import systems  # noqa: E402


def shift(N):
    return [[1 if i == j + 1 else 0 for j in range(N)] for i in range(N)]


def e(N, i):
    return [[1 if r == i else 0] for r in range(N)]


ROT = ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]])


@pytest.mark.parametrize("method", ["exact", "modular"])
def test_rotation(method):
    assert head_count(ROT, 1, method=method) == 1
    assert [head_count(ROT, n, method=method) for n in range(2, 10)] == [2] * 8


@pytest.mark.parametrize("method", ["exact", "modular"])
def test_shift5_profile_flat_then_rising(method):
    s = ssm(shift(5), e(5, 0), [[0, 1, 0, 0, 0], [0, 0, 0, 1, 0]])
    assert [head_count(s, n, method=method) for n in range(1, 9)] == [0, 1, 1, 2, 2, 2, 2, 2]
    assert profile(s, method=method).values == (0, 1, 1, 2)


@pytest.mark.parametrize("method", ["exact", "modular"])
def test_shift3(method):
    s = ssm(shift(3), e(3, 0), [[0, 0, 1]])
    assert [head_count(s, n, method=method) for n in range(1, 6)] == [0, 0, 1, 1, 1]


def test_identity_and_zero_output():
    assert head_count(ssm([[1, 0], [0, 1]], [[1, 0], [0, 1]], [[1, 0], [0, 1]]), 50) == 1
    assert head_count(ssm([[1, 2], [3, 4]], [[1], [1]], [[0, 0]]), 50) == 0
    assert head_count(ROT, 0) == 0


def test_feedthrough_raises_truncation_to_N_plus_1():
    # N = 1, pm = 2: L_0 = CB + D and L_1 = CB are independent, so k reaches N + 1 = 2.
    s = ssm([[1]], [[1, 0]], [[0], [1]], [[1, 0], [0, 0]])
    assert s.truncation == 2
    assert [head_count(s, n) for n in (1, 2, 3, 10**9)] == [1, 2, 2, 2]
    # Without D the same system stops at N = 1.
    assert head_count(ssm([[1]], [[1, 0]], [[0], [1]]), 10**9) == 1


def test_degenerate_two_rotations_needs_coefficients():
    R = [[0, -1, 0, 0], [1, 0, 0, 0], [0, 0, 0, -1], [0, 0, 1, 0]]
    s = ssm(R, [[1, 0], [0, 1], [1, 0], [0, 1]], [[1, 0, 1, 0], [0, 1, 0, 1]])
    w = find_witness(s, method="modular")
    assert head_count(s, 100) == 2 < min(100, s.N, s.p * s.m)
    assert w.coefficients == {2: (Fraction(-1), Fraction(0)), 3: (Fraction(0), Fraction(-1))}


def test_huge_n_returns_at_once():
    s = ssm(shift(6), e(6, 0), [[0, 0, 0, 0, 0, 1]])
    start = time.perf_counter()
    assert head_count(s, 10**18) == 1
    assert head_count(ROT, 10**30) == 2
    assert time.perf_counter() - start < 5  # generous: it is a handful of lags


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda ex: ex.name)
@pytest.mark.parametrize("method", ["exact", "modular", "auto"])
def test_examples_contract(ex, method):
    w = find_witness(ex.system, method=method)
    for n in range(0, len(ex.profile) + 4):
        assert w.head_count(n) == ex.k(n)


def test_bad_arguments():
    with pytest.raises(InputError, match="n must be a non-negative integer"):
        head_count(ROT, -1)
    with pytest.raises(InputError, match="n must be a non-negative integer"):
        head_count(ROT, 2.0)
    with pytest.raises(InputError, match="method must be one of"):
        head_count(ROT, 2, method="fast")
    with pytest.raises(InputError, match="expected an SSM"):
        head_count([[1]], 2)


def test_budget_stops_cleanly():
    import random

    rng = random.Random(0)
    N = 60
    s = ssm([[rng.randint(-3, 3) for _ in range(N)] for _ in range(N)], [[1] for _ in range(N)], [[1] * N])
    with pytest.raises(BudgetExceeded, match="max-seconds"):
        find_witness(s, method="exact", max_seconds=1e-9)


# ---------------------------------------------------------------- laws

def frac_rank(rows):
    """Rank by plain Fraction Gaussian elimination (independent of symssm)."""
    rows = [list(r) for r in rows]
    rank, col = 0, 0
    width = len(rows[0]) if rows else 0
    while rank < len(rows) and col < width:
        piv = next((i for i in range(rank, len(rows)) if rows[i][col] != 0), None)
        if piv is None:
            col += 1
            continue
        rows[rank], rows[piv] = rows[piv], rows[rank]
        for i in range(len(rows)):
            if i != rank and rows[i][col] != 0:
                f = rows[i][col] / rows[rank][col]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[rank])]
        rank += 1
        col += 1
    return rank


def naive_lags(A, B, C, D, n):
    N = len(A)
    X = [list(r) for r in B]
    out = []
    for d in range(n):
        L = [[sum(C[i][k] * X[k][j] for k in range(N)) for j in range(len(B[0]))] for i in range(len(C))]
        if d == 0 and D is not None:
            L = [[L[i][j] + D[i][j] for j in range(len(L[0]))] for i in range(len(L))]
        out.append([x for row in L for x in row])
        X = [[sum(A[i][k] * X[k][j] for k in range(N)) for j in range(len(X[0]))] for i in range(N)]
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(systems())
def test_k_agrees_with_independent_rank_of_untruncated_stack(sys_):
    A, B, C, D = sys_
    s = ssm(A, B, C, D)
    stack = naive_lags(A, B, C, D, 2 * s.N + 2)
    w_exact = find_witness(s, method="exact")
    w_mod = find_witness(s, method="modular")
    for n in range(0, 2 * s.N + 3):
        expected = frac_rank(stack[:n]) if n else 0
        assert w_exact.head_count(n) == expected
        assert w_mod.head_count(n) == expected


@settings(max_examples=40, deadline=None)
@given(systems())
def test_profile_is_non_decreasing_and_bounded(sys_):
    s = ssm(*sys_)
    pr = profile(s)
    values = [pr(n) for n in range(1, 2 * s.N + 4)]
    assert values == sorted(values)
    assert all(v <= min(n, s.p * s.m, s.truncation) for n, v in enumerate(values, start=1))
