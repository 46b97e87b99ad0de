"""Exact and modular linear algebra for the checker (standard library; numpy optional).

Nothing here searches: it recomputes lags and determinants the certificate names.
"""

from fractions import Fraction
from math import lcm

try:  # numpy only speeds up products modulo a prime; results are identical without it
    import numpy as _np
except ImportError:  # pragma: no cover - exercised by the pure-Python test
    _np = None

INT64_MAX = 2**63 - 1


def safe_chunk(prime):
    """How many products ``(P-1)^2`` can be added in int64 without overflow."""
    return max(1, INT64_MAX // ((prime - 1) ** 2))


def _den(mat):
    out = 1
    for row in mat:
        for x in row:
            out = lcm(out, x.denominator)
    return out


def _matmul_int(A, X):
    cols = list(zip(*X))
    return [[sum(a * x for a, x in zip(row, col)) for col in cols] for row in A]


#: Largest bound on the bits of the integer lag entries the checker computes exactly (about 10,000
#: digits, the same limit the generator applies; docs/robustness.md).
MAX_LAG_BITS = 33_220


def lag_bit_bound(system, dmax):
    """Upper bound on the bits of ``C' A'^d B'`` entries for d <= dmax (A', B', C': denominators cleared).

    ``bits(C') + bits(B') + dmax * bits(A') + (dmax + 1) * ceil(log2 N)``; the generator uses the same
    formula, written separately.
    """
    sizes = []
    for M in (system["C"], system["B"], system["A"]):
        scale = 1
        for row in M:
            for x in row:
                if scale % x.denominator:
                    scale = lcm(scale, x.denominator)
                    if scale.bit_length() > MAX_LAG_BITS:
                        return MAX_LAG_BITS + 1
        sizes.append(max((abs(x.numerator * (scale // x.denominator)).bit_length() for row in M for x in row),
                         default=0))
    log_n = max(1, (len(system["A"]) - 1).bit_length())
    return sizes[0] + sizes[1] + dmax * sizes[2] + (dmax + 1) * log_n


def exact_lags(system, count):
    """Exact lags L_0..L_{count-1} as lists of lists of Fraction."""
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


def _reduce(mat, prime):
    return [[x.numerator * pow(x.denominator, -1, prime) % prime for x in row] for row in mat]


def matmul_mod(A, X, prime):
    """(A X) mod P for residue matrices (lists of lists of ints in [0, P))."""
    if _np is not None and prime < 2**31:
        return matmul_mod_np(_np.array(A, dtype=_np.int64), _np.array(X, dtype=_np.int64), prime).tolist()
    cols = list(zip(*X))
    return [[sum(a * x for a, x in zip(row, col)) % prime for col in cols] for row in A]


def matmul_mod_np(A, X, prime):
    """int64 product modulo P, summing at most :func:`safe_chunk` products at a time."""
    step = safe_chunk(prime)
    out = _np.zeros((A.shape[0], X.shape[1]), dtype=_np.int64)
    for start in range(0, A.shape[1], step):
        out = (out + (A[:, start:start + step] @ X[start:start + step]) % prime) % prime
    return out


def lags_mod(system, wanted, prime):
    """{d: L_d mod P} for each lag d in ``wanted`` (reduction u/v -> u v^-1 mod P)."""
    if not wanted:
        return {}
    A, B, C = _reduce(system["A"], prime), _reduce(system["B"], prime), _reduce(system["C"], prime)
    D = _reduce(system["D"], prime) if system["D"] is not None else None
    wanted = set(wanted)
    out = {}
    use_np = _np is not None and prime < 2**31
    if use_np:
        A, X, C = (_np.array(M, dtype=_np.int64) for M in (A, B, C))
    else:
        X = B
    for d in range(max(wanted) + 1):
        if d in wanted:
            L = matmul_mod_np(C, X, prime).tolist() if use_np else matmul_mod(C, X, prime)
            if d == 0 and D is not None:
                L = [[(x + y) % prime for x, y in zip(r1, r2)] for r1, r2 in zip(L, D)]
            out[d] = L
        if d < max(wanted):
            X = matmul_mod_np(A, X, prime) if use_np else matmul_mod(A, X, prime)
    return out


def leading_minors_exact(M):
    """All leading principal minors of a rational matrix (fraction-free Bareiss, no pivoting).

    Stops after the first zero minor.
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


def leading_minors_mod(M, prime):
    """Leading principal minors modulo P (Gaussian elimination, no pivoting)."""
    if _np is not None and prime < 2**31 and len(M) > 8:
        return _leading_minors_mod_np(M, prime)
    W = [row[:] for row in M]
    n = len(W)
    minors = []
    det = 1
    for j in range(n):
        piv = W[j][j] % prime
        det = det * piv % prime
        minors.append(det)
        if piv == 0:
            return minors
        inv = pow(piv, -1, prime)
        for i in range(j + 1, n):
            f = W[i][j] * inv % prime
            if f:
                W[i] = [(x - f * y) % prime for x, y in zip(W[i], W[j])]
    return minors


def _leading_minors_mod_np(M, prime):
    """numpy version: one product of two residues < 2**31 stays below 2**62."""
    W = _np.array(M, dtype=_np.int64) % prime
    n = W.shape[0]
    minors = []
    det = 1
    for j in range(n):
        piv = int(W[j, j])
        det = det * piv % prime
        minors.append(det)
        if piv == 0:
            return minors
        if j + 1 < n:
            f = (W[j + 1:, j] * pow(piv, -1, prime)) % prime
            W[j + 1:, j:] = (W[j + 1:, j:] - (f[:, None] * W[j, j:][None, :]) % prime) % prime
    return minors
