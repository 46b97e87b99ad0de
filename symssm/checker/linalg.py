"""Exact linear algebra of the other kinds (gradient highways, eps-head counts, trained layers, Q(i)).

Standard library; numpy and python-flint optional (the same verdicts without them).  Nothing here searches:
it decides definiteness, solves and bounds that a certificate names.  The head-count verdict does not use
this module: its arithmetic is :mod:`.lags` (standard library) and :mod:`.fast` (its accelerated twins,
behind :mod:`.accel`).  The names of those two that other modules and tests import from here
(``exact_lags``, ``lag_bit_bound``, ``combinations``, ``minor_mod``, ...) are re-exported below.
"""

from typing import Any
from fractions import Fraction
from math import lcm

from .accel import flint_threads, optional
from .fast import (FLOAT_LIMIT, _leading_minors_blocked, _leading_minors_mod_np, matmul_mod_np,  # noqa: F401
                   safe_chunk)
from .lags import (MAX_LAG_BITS, _den, capped_lcm, _matmul_int, _reduce, _residue, _scaled_sizes, combinations,  # noqa: F401
                   exact_lags, lag_bit_bound, lags_mod_residues, leading_minors_exact, leading_minors_mod,
                   matmul_mod, minor_mod)

# numpy only speeds up products modulo a prime, python-flint exact rational products and definiteness
# tests; results are identical without them (both are imported on first use); tests set these to None
_np: Any = optional("numpy")
_flint: Any = optional("flint")


def float_residues(prime):
    """Whether residues mod ``prime`` are handled as float64 arrays (numpy present, P below the float limit)."""
    return _np is not None and prime < FLOAT_LIMIT


def residue_array(residue, texts):
    """The float64 array of a matrix given by its entry texts and the residue of each distinct text (numpy)."""
    from .fast import residue_array as array

    return array(residue, texts)


def minor_mod_residues(A, B, C, D, lags, cells, prime):
    """The K x K minor ``M_st = L_(d_s)[r_t, c_t] mod P`` from residue matrices (numpy when ``_np`` is set)."""
    if _np is None or not lags or prime >= 2**31:  # numpy's int64 products need P below 2^31
        modl = lags_mod_residues(A, B, C, D, lags, prime)
        return [[modl[d][r][c] for (r, c) in cells] for d in lags]
    from .fast import minor_mod_residues as minor

    return minor(A, B, C, D, lags, cells, prime)


def accelerators():
    """The optional accelerators in use: a subset of ("numpy", "python-flint")."""
    return tuple(name for name, mod in (("numpy", _np), ("python-flint", _flint)) if mod is not None)


def _fq(M):
    return _flint.fmpq_mat(len(M), len(M[0]) if M else 0,
                           [_flint.fmpq(x.numerator, x.denominator) for row in M for x in row])


def _from_fq(F):
    return [[Fraction(int(F[i, j].p), int(F[i, j].q)) for j in range(F.ncols())] for i in range(F.nrows())]


def matmul_exact(X, Y):
    """Exact product of two rational matrices (python-flint if present, else Fractions)."""
    if _flint is not None and X and Y:
        return _from_fq(_fq(X) * _fq(Y))
    cols = list(zip(*Y))
    return [[sum((a * b for a, b in zip(row, col)), Fraction(0)) for col in cols] for row in X]


def definite_between(P, mu, M):
    """Whether ``P - mu I`` and ``M I - P`` are both positive definite (P symmetric rational).

    With python-flint: one characteristic polynomial p of P, and the sign patterns of p(x + mu) and
    (-1)^N p(M - x) (every eigenvalue lies strictly between mu and M).  Without: leading minors.
    """
    n = len(P)
    if _flint is not None and n:
        with flint_threads(_flint):
            p = _fq(P).charpoly()
        fm = lambda q: _flint.fmpq(q.numerator, q.denominator)
        shifted = p(_flint.fmpq_poly([fm(mu), 1]))
        reflected = p(_flint.fmpq_poly([fm(M), -1])) * (-1 if n % 2 else 1)
        return _alternates(shifted), _alternates(reflected)
    lower = [[P[i][j] - (mu if i == j else 0) for j in range(n)] for i in range(n)]
    upper = [[(M if i == j else 0) - P[i][j] for j in range(n)] for i in range(n)]
    return positive_definite(lower), positive_definite(upper)


def diagonally_dominant(S):
    """Strictly diagonally dominant with a positive diagonal (then a symmetric S is positive definite)."""
    return all(row[i] > sum(abs(x) for j, x in enumerate(row) if j != i) for i, row in enumerate(S))


def _alternates(poly):
    """The coefficients of a (real-rooted) polynomial strictly alternate in sign: every root is positive."""
    return all(c != 0 and ((c > 0) == (k % 2 == 0)) for k, c in enumerate(poly.coeffs()[::-1]))


def _definite_flint(S):
    """Positive definiteness of a symmetric python-flint matrix (integer or rational): the dominant-diagonal
    test, then the sign pattern of its characteristic polynomial."""
    n = S.nrows()
    entries = S.entries()
    if all(2 * entries[i * n + i] > sum(map(abs, entries[i * n:(i + 1) * n])) for i in range(n)):
        return True
    return _alternates(S.charpoly())


def _fz(M):
    """``(Z, d)``: python-flint's integer matrix ``d M`` for d the lcm of the denominators of M."""
    d = lcm(1, *(x.denominator for row in M for x in row))
    return _flint.fmpz_mat(len(M), len(M[0]), [x.numerator * (d // x.denominator) for row in M for x in row]), d


def decrease_definite(A, P, r):
    """Whether ``r^2 P - A^T P A`` is positive definite (P symmetric), exactly.

    With python-flint, on the integer matrix ``(r_den a)^2 c`` times it (A = zA / a, P = zP / c):
    ``(r_num a)^2 zP - r_den^2 zA^T zP zA``, a positive multiple, so the same verdict; else with Fractions.
    """
    if _flint is None or not P:
        At = [list(col) for col in zip(*A)]
        AtPA = matmul_exact(At, matmul_exact(P, A))
        n = len(P)
        return positive_definite([[r * r * P[i][j] - AtPA[i][j] for j in range(n)] for i in range(n)])
    (zP, _), (zA, a) = _fz(P), _fz(A)
    with flint_threads(_flint):
        return _definite_flint(zP * (r.numerator * a) ** 2 - zA.transpose() * zP * zA * r.denominator ** 2)


def _int_form(mat):
    """``(rows of ints, d)`` with ``mat = rows / d`` (d the lcm of the denominators)."""
    d = _den(mat)
    return [[x.numerator * (d // x.denominator) for x in row] for row in mat], d


def _dominant_rows(entries, n):
    """Every row of a square integer matrix (row-major list) has ``2 S_ii > sum_j |S_ij|``: a strictly dominant,
    positive diagonal (then a symmetric S is positive definite: Gershgorin)."""
    return all(2 * entries[i * n + i] > sum(map(abs, entries[i * n:(i + 1) * n])) for i in range(n))


def factored_decay(A, U, D, mu, r, w, M, *, forms=None):
    """The two matrix obligations of a version-2 decay witness, exactly: ``(decreases, bounded)``.

    With ``P = U^T diag(D) U + mu I``: ``decreases`` is whether ``r^2 P - A^T P A`` has a strictly dominant
    positive diagonal, ``bounded`` whether ``(|P| w)_i <= M w_i`` for every i.  Both are decided on integer
    matrices (common denominators cleared: positive multiples, the same verdicts), with python-flint's
    products when present and Python integers otherwise.  ``forms``: the integer forms of ``(A, U, [D], [w])``
    as :func:`capped_integer_form` gives them, when the caller has them already.
    """
    n = len(A)
    if forms is None:
        forms = [_int_form(X) + (None,) for X in (A, U, [D], [w])]
    (zA, a, _), (zU, u, _), ((zD,), delta, _), ((zw,), _, _) = forms
    base = u * u * delta
    scale = base * mu.denominator  # P = zP / scale
    shift = mu.numerator * base
    rn, rd = r.numerator, r.denominator
    if _flint is not None and n:
        with flint_threads(_flint):
            FU = _flint.fmpz_mat(zU)
            DU = _flint.fmpz_mat(n, n, [zD[i] * x for i in range(n) for x in zU[i]])
            FP = (FU.transpose() * DU) * mu.denominator + _flint.fmpz_mat(
                n, n, [shift if i == j else 0 for i in range(n) for j in range(n)])
            FA = _flint.fmpz_mat(zA)
            T = FP * (rn * a) ** 2 - FA.transpose() * FP * FA * rd ** 2
            decreases = _dominant_rows(T.entries(), n)
            absP = _flint.fmpz_mat(n, n, [abs(x) for x in FP.entries()])
            Pw = [int(x) for x in (absP * _flint.fmpz_mat(n, 1, zw)).entries()]
    else:
        DU = [[zD[i] * x for x in zU[i]] for i in range(n)]
        zP = [[v * mu.denominator for v in row] for row in _matmul_int([list(c) for c in zip(*zU)], DU)]
        for i in range(n):
            zP[i][i] += shift
        PA = _matmul_int(zP, zA)
        APA = _matmul_int([list(c) for c in zip(*zA)], PA)
        k1, k2 = (rn * a) ** 2, rd ** 2
        decreases = _dominant_rows([k1 * x - k2 * y for r1, r2 in zip(zP, APA) for x, y in zip(r1, r2)], n)
        Pw = [sum(abs(x) * y for x, y in zip(row, zw)) for row in zP]
    bounded = all(M.denominator * v <= M.numerator * scale * wi for v, wi in zip(Pw, zw))
    return decreases, bounded


def positive_definite_int(M):
    """Whether a symmetric integer matrix is positive definite, exactly: with python-flint, the sign pattern of
    its characteristic polynomial (over the integers); without, its leading principal minors (Bareiss)."""
    n = len(M)
    if n == 0:
        return True
    if diagonally_dominant(M):
        return True
    if _flint is not None:
        return _alternates(_flint.fmpz_mat(M).charpoly())
    minors = leading_minors_exact(M)
    return len(minors) == n and all(x > 0 for x in minors)


def trace_of_solve(A, B):
    """``tr(A^{-1} B)`` for square integer matrices, exactly, or None if A is singular (flint when present)."""
    H = len(A)
    if _flint is not None:
        Aq = _flint.fmpq_mat(_flint.fmpz_mat(A))
        if Aq.rank() < H:
            return None
        X = Aq.solve(_flint.fmpq_mat(_flint.fmpz_mat(B)))
        total = sum((X[i, i] for i in range(H)), _flint.fmpq(0))
        return Fraction(int(total.p), int(total.q))
    # fraction-free Gauss-Jordan (Bareiss): integers only, every division exact; at the end the left block is
    # d I and the right one d A^{-1} B, with d = +-det A (Fractions here would spend their time on gcds)
    M = [list(A[r]) + list(B[r]) for r in range(H)]
    prev = 1
    for k in range(H):
        piv = next((r for r in range(k, H) if M[r][k] != 0), None)
        if piv is None:
            return None
        M[k], M[piv] = M[piv], M[k]
        Mk, p = M[k], M[k][k]
        for r in range(H):
            if r != k:
                Mr, f = M[r], M[r][k]
                M[r] = [(p * x - f * y) // prev for x, y in zip(Mr, Mk)]
        prev = p
    return Fraction(sum(M[h][H + h] for h in range(H)), prev)


def positive_definite(S):
    """Whether a symmetric rational matrix is positive definite, exactly.

    First the sufficient test :func:`diagonally_dominant` (S symmetric); then, with python-flint: its
    characteristic polynomial's coefficients strictly alternate in sign (all eigenvalues, which are
    real, are positive).  Without: every leading principal minor is positive (fraction-free Bareiss).
    All are exact, and the last two characterise definiteness, so the verdicts agree.
    """
    n = len(S)
    if n == 0:
        return True
    if _flint is not None:
        return _definite_flint(_fq(S))
    if diagonally_dominant(S):  # a sufficient condition (Gershgorin), exact and cheap
        return True
    minors = leading_minors_exact(S)
    return len(minors) == n and all(x > 0 for x in minors)


#: Size limits of a gradient certificate's exact definiteness tests (bits of a matrix over its common
#: denominator: denominator plus largest numerator; about 10,000 digits, as for lags).  Honest
#: certificates: P <= 101 bits (HiPPO-LegS N = 96), A <= 329 bits; the generator applies the same limits.
MAX_P_BITS = 33_220
MAX_A_BITS = 33_220


def capped_integer_form(mat, cap):
    """``(rows, d, bits)``: ``mat = rows / d`` with integer rows, d the lcm of the denominators, and
    ``bits = integer_bits(mat, cap)``; None as soon as d alone is past ``cap`` (a capped lcm, as in integer_bits)."""
    den = capped_lcm(mat, cap)
    if den is None:
        return None
    rows = [[x.numerator * (den // x.denominator) for x in row] for row in mat]
    top = max((abs(v).bit_length() for row in rows for v in row), default=0)
    return rows, den, (den - 1).bit_length() + top


def integer_bits(mat, cap):
    """Bits of ``mat`` over its common denominator (denominator + largest numerator); ``cap + 1`` past ``cap``."""
    sizes = _scaled_sizes(mat, cap)
    return cap + 1 if sizes is None else (sizes[1] - 1).bit_length() + sizes[0]


