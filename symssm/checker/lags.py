"""The head-count verdict's arithmetic: exact lags ``L_d = C A^d B``, their bit bound, minors, combinations.

Standard library only, and nothing here searches: it recomputes what a certificate names.  Each function that
an accelerator can speed up asks :mod:`.accel` first (one line, marked ``# accelerated``); the answer, when
there is one, is the value the standard-library code after it computes (a reader may skip :mod:`.accel`).
Read in this order: :func:`lag_bit_bound` (the cost, charged before any lag is formed), :func:`exact_lags`,
:func:`leading_minors_exact` (the exact witness), :func:`minor_mod` and :func:`leading_minors_mod` (the
modular witness), :func:`combinations` (the upper bound).

Examples
--------
>>> from fractions import Fraction as F
>>> rotation = {"A": [[F(0), F(-1)], [F(1), F(0)]], "B": [[F(1)], [F(0)]], "C": [[F(1), F(0)]], "D": None}
>>> [L[0][0] for L in exact_lags(rotation, 4)]  # C A^d B: the (0, 0) entry of A^d
[Fraction(1, 1), Fraction(0, 1), Fraction(-1, 1), Fraction(0, 1)]
>>> leading_minors_exact([[F(1), F(0)], [F(0), F(-1)]])
[Fraction(1, 1), Fraction(-1, 1)]
"""

from fractions import Fraction
from math import lcm

from . import accel

__all__ = ["MAX_LAG_BITS", "lag_bit_bound", "exact_lags", "leading_minors_exact", "minor_mod", "leading_minors_mod",
           "combinations", "lags_mod_residues", "matmul_mod"]

#: Largest bound on the bits of the integer lag entries the checker computes exactly (about 10,000
#: digits, the same limit the generator applies; docs/robustness.md).
MAX_LAG_BITS = 33_220


def _den(mat):
    """The lcm of the denominators of a rational matrix."""
    out = 1
    for row in mat:
        for x in row:
            out = lcm(out, x.denominator)
    return out


def _matmul_int(A, X):
    """The product of two integer matrices (lists of rows)."""
    cols = list(zip(*X))
    return [[sum(a * x for a, x in zip(row, col)) for col in cols] for row in A]


def _scaled_sizes(mat, cap):
    """``(bits of the largest numerator over the common denominator, the denominator)``, or None past ``cap``.

    A capped lcm: a hostile matrix of distinct huge denominators costs no more than reading it.
    """
    den = capped_lcm(mat, cap)
    if den is None:
        return None
    return max((abs(x.numerator * (den // x.denominator)).bit_length() for row in mat for x in row), default=0), den


def capped_lcm(mat, cap):
    """The lcm of the denominators of ``mat``, or None as soon as it passes ``cap`` bits."""
    den = 1
    for row in mat:
        for x in row:
            if den % x.denominator:
                den = lcm(den, x.denominator)
                if den.bit_length() > cap:
                    return None
    return den


def lag_bit_bound(system, dmax):
    """Upper bound on the bits of ``C' A'^d B'`` entries for d <= dmax (A', B', C': denominators cleared).

    ``bits(C') + bits(B') + dmax * bits(A') + (dmax + 1) * ceil(log2 N)`` for the numerators, plus
    ``lb(c) + lb(b) + dmax * lb(a)`` (``lb = ceil(log2)``) for the denominators the lags carry; the
    generator uses the same formula, written separately.  ``MAX_LAG_BITS + 1`` when a common denominator
    alone is over the limit (found without forming the whole lcm).
    """
    sizes, dens = [], []
    for M in (system["C"], system["B"], system["A"]):
        scaled = _scaled_sizes(M, MAX_LAG_BITS)
        if scaled is None:
            return MAX_LAG_BITS + 1
        sizes.append(scaled[0])
        dens.append((scaled[1] - 1).bit_length())
    log_n = max(1, (len(system["A"]) - 1).bit_length())
    return sizes[0] + sizes[1] + dmax * sizes[2] + (dmax + 1) * log_n + dens[0] + dens[1] + dmax * dens[2]


def exact_lags(system, count):
    """Exact lags ``L_0..L_(count-1)`` (``L_0 = C B + D``) as lists of lists of Fraction.

    The denominators are cleared once (``A = A'/a``, ``B = B'/b``, ``C = C'/c``); then
    ``L_d = C' A'^d B' / (c b a^d)`` with integer products only.
    """
    fast = accel.exact_lags(system, count)  # accelerated
    if fast is not None:
        return fast
    A, B, C, D = system["A"], system["B"], system["C"], system["D"]
    a, b, c = _den(A), _den(B), _den(C)
    Ai = [[int(x * a) for x in row] for row in A]
    X = [[int(x * b) for x in row] for row in B]
    Ci = [[int(x * c) for x in row] for row in C]
    out = []
    scale = c * b
    for d in range(count):
        L = [[Fraction(v, scale) for v in row] for row in _matmul_int(Ci, X)]
        if d == 0 and D is not None:
            L = [[x + y for x, y in zip(r1, r2)] for r1, r2 in zip(L, D)]
        out.append(L)
        if d + 1 < count:
            X = _matmul_int(Ai, X)
            scale *= a
    return out


def leading_minors_exact(M):
    """All leading principal minors of a rational matrix (fraction-free Bareiss, no pivoting).

    Each row is scaled to integers by its denominators' lcm; Bareiss's divisions are exact, and the j-th
    pivot over the product of the first j scales is the j-th leading minor.  Stops after the first zero minor.
    """
    n = len(M)
    if n == 0:
        return []
    scales = [_den([row]) for row in M]
    W = [[int(x * s) for x in row] for row, s in zip(M, scales)]
    minors = []
    prev = 1
    scale = 1
    for j in range(n):
        scale *= scales[j]
        piv = W[j][j]
        minors.append(Fraction(piv, scale))
        if piv == 0:
            return minors
        for i in range(j + 1, n):
            for l in range(j + 1, n):
                W[i][l] = (W[i][l] * piv - W[i][j] * W[j][l]) // prev
        prev = piv
    return minors


def _residue(x, prime):
    """A rational u/v as u v^-1 mod P (P divides no denominator: checked before)."""
    return x.numerator % prime if x.denominator == 1 else x.numerator * pow(x.denominator, -1, prime) % prime


def _reduce(mat, prime):
    """Every entry u/v as u v^-1 mod P; each distinct entry object once (entries read from one text are one object)."""
    objects = {id(x): x for row in mat for x in row}
    residue = {key: _residue(x, prime) for key, x in objects.items()}
    return [[residue[id(x)] for x in row] for row in mat]


def matmul_mod(A, X, prime):
    """(A X) mod P for residue matrices (lists of lists of ints in [0, P))."""
    cols = list(zip(*X))
    return [[sum(a * x for a, x in zip(row, col)) % prime for col in cols] for row in A]


def lags_mod_residues(A, B, C, D, wanted, prime):
    """{d: L_d mod P} for each lag d in ``wanted``, from residue matrices (D or None): ``X = A^d B`` step by step."""
    out, X, wanted = {}, B, set(wanted)
    top = max(wanted, default=-1)
    for d in range(top + 1):
        if d in wanted:
            L = matmul_mod(C, X, prime)
            if d == 0 and D is not None:
                L = [[(x + y) % prime for x, y in zip(r1, r2)] for r1, r2 in zip(L, D)]
            out[d] = L
        if d < top:
            X = matmul_mod(A, X, prime)
    return out


def minor_mod(system, lags, cells, prime):
    """The K x K minor ``M_st = L_(d_s)[r_t, c_t] mod P`` of a rational system (lists of ints; an int64 array
    from the accelerator when K > 64)."""
    fast = accel.minor_mod(system, lags, cells, prime)  # accelerated
    if fast is not None:
        return fast
    A, B, C = _reduce(system["A"], prime), _reduce(system["B"], prime), _reduce(system["C"], prime)
    D = _reduce(system["D"], prime) if system["D"] is not None else None
    modl = lags_mod_residues(A, B, C, D, set(lags), prime)
    return [[modl[d][r][c] for (r, c) in cells] for d in lags]


def leading_minors_mod(M, prime):
    """Leading principal minors modulo P (Gaussian elimination, no pivoting); stops after the first zero one."""
    fast = accel.leading_minors_mod(M, prime)  # accelerated
    if fast is not None:
        return fast
    return leading_minors_mod_pure(M, prime)


def leading_minors_mod_pure(M, prime):
    """:func:`leading_minors_mod` with the standard library: the j-th minor is the product of the first j pivots."""
    W = [list(row) for row in M]
    minors = []
    det = 1
    for j in range(len(W)):
        piv = W[j][j] % prime
        det = det * piv % prime
        minors.append(det)
        if piv == 0:
            return minors
        inv = pow(piv, -1, prime)
        for i in range(j + 1, len(W)):
            f = W[i][j] * inv % prime
            if f:
                W[i] = [(x - f * y) % prime for x, y in zip(W[i], W[j])]
    return minors


def combinations(exact, lags, coefficient_rows, p, m):
    """For each coefficient row c (one rational per witness lag below the listed lag): ``sum_h c_h L_(lags[h])``."""
    fast = accel.combinations(exact, lags, coefficient_rows, p, m)  # accelerated
    if fast is not None:
        return fast
    return [[[sum((c[h] * exact[lags[h]][r][col] for h in range(len(c))), Fraction(0)) for col in range(m)]
             for r in range(p)] for c in coefficient_rows]
