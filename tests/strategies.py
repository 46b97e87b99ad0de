"""Hypothesis strategies shared by the tests."""

from fractions import Fraction

from hypothesis import strategies as st

small = st.fractions(min_value=-3, max_value=3, max_denominator=3)
sparse = st.one_of(st.just(Fraction(0)), st.just(Fraction(0)), small)


@st.composite
def systems(draw):
    N = draw(st.integers(1, 4))
    m = draw(st.integers(1, 3))
    p = draw(st.integers(1, 3))
    mat = lambda r, c: [[draw(sparse) for _ in range(c)] for _ in range(r)]
    D = mat(p, m) if draw(st.booleans()) else None
    return mat(N, N), mat(N, m), mat(p, N), D
