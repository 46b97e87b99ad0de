"""Exact and modular linear algebra for the checker (standard library; numpy optional).

Nothing here searches: it recomputes lags and determinants the certificate names.
"""

from typing import Any
from fractions import Fraction
from itertools import chain
from math import lcm

from .accel import flint_threads, optional

# numpy only speeds up products modulo a prime, python-flint exact rational products and definiteness
# tests; results are identical without them (both are imported on first use)
_np: Any = optional("numpy")
_flint: Any = optional("flint")


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


#: Size limits of a gradient certificate's exact definiteness tests (bits of a matrix over its common
#: denominator: denominator plus largest numerator; about 10,000 digits, as for lags).  Honest
#: certificates: P <= 101 bits (HiPPO-LegS N = 96), A <= 329 bits; the generator applies the same limits.
MAX_P_BITS = 33_220
MAX_A_BITS = 33_220


def _scaled_sizes(mat, cap):
    """``(bits of the largest numerator over the common denominator, the denominator)``, or None past ``cap``.

    A capped lcm: a hostile matrix of distinct huge denominators costs no more than reading it.
    """
    den = 1
    for row in mat:
        for x in row:
            if den % x.denominator:
                den = lcm(den, x.denominator)
                if den.bit_length() > cap:
                    return None
    return max((abs(x.numerator * (den // x.denominator)).bit_length() for row in mat for x in row), default=0), den


def capped_integer_form(mat, cap):
    """``(rows, d, bits)``: ``mat = rows / d`` with integer rows, d the lcm of the denominators, and
    ``bits = integer_bits(mat, cap)``; None as soon as d alone is past ``cap`` (a capped lcm, as in integer_bits)."""
    den = 1
    for row in mat:
        for x in row:
            if den % x.denominator:
                den = lcm(den, x.denominator)
                if den.bit_length() > cap:
                    return None
    rows = [[x.numerator * (den // x.denominator) for x in row] for row in mat]
    top = max((abs(v).bit_length() for row in rows for v in row), default=0)
    return rows, den, (den - 1).bit_length() + top


def integer_bits(mat, cap):
    """Bits of ``mat`` over its common denominator (denominator + largest numerator); ``cap + 1`` past ``cap``."""
    sizes = _scaled_sizes(mat, cap)
    return cap + 1 if sizes is None else (sizes[1] - 1).bit_length() + sizes[0]


def lag_bit_bound(system, dmax):
    """Upper bound on the bits of ``C' A'^d B'`` entries for d <= dmax (A', B', C': denominators cleared).

    ``bits(C') + bits(B') + dmax * bits(A') + (dmax + 1) * ceil(log2 N)`` for the numerators, plus
    ``lb(c) + lb(b) + dmax * lb(a)`` (``lb = ceil(log2)``) for the denominators the lags carry; the
    generator uses the same formula, written separately.
    """
    sizes, dens = [], []
    for M in (system["C"], system["B"], system["A"]):
        scaled = _scaled_sizes(M, MAX_LAG_BITS)
        if scaled is None:  # the common denominator alone is over the limit
            return MAX_LAG_BITS + 1
        sizes.append(scaled[0])
        dens.append((scaled[1] - 1).bit_length())
    log_n = max(1, (len(system["A"]) - 1).bit_length())
    return sizes[0] + sizes[1] + dmax * sizes[2] + (dmax + 1) * log_n + dens[0] + dens[1] + dmax * dens[2]


def combinations(exact, lags, coefficient_rows, p, m):
    """For each coefficient row c: the matrix sum_h c_h L_(lags[h]) (exact; python-flint if present)."""
    K = max((len(c) for c in coefficient_rows), default=0)
    if _flint is not None and K:
        basis = _fq([[x for row in exact[d] for x in row] for d in lags[:K]])
        coeffs = _fq([list(c) + [Fraction(0)] * (K - len(c)) for c in coefficient_rows])
        flat = _from_fq(coeffs * basis)
        return [[row[r * m:(r + 1) * m] for r in range(p)] for row in flat]
    return [[[sum((c[h] * exact[lags[h]][r][col] for h in range(len(c))), Fraction(0)) for col in range(m)]
             for r in range(p)] for c in coefficient_rows]


def exact_lags(system, count):
    """Exact lags L_0..L_{count-1} as lists of lists of Fraction."""
    A, B, C, D = system["A"], system["B"], system["C"], system["D"]
    if _flint is not None and count:
        return _exact_lags_flint(A, B, C, D, count)
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


def _exact_lags_flint(A, B, C, D, count):
    """The same lags with python-flint's exact integer matrices (denominators cleared once)."""
    a, b, c = _den(A), _den(B), _den(C)
    z = lambda M, s: _flint.fmpz_mat([[int(x * s) for x in row] for row in M])
    Ai, X, Ci = z(A, a), z(B, b), z(C, c)
    out = []
    scale = c * b
    for d in range(count):
        P = Ci * X
        L = [[Fraction(int(P[i, j]), scale) for j in range(P.ncols())] for i in range(P.nrows())]
        if d == 0 and D is not None:
            L = [[x + y for x, y in zip(r1, r2)] for r1, r2 in zip(L, D)]
        out.append(L)
        if d + 1 < count:
            X = Ai * X
            scale *= a
    return out


def _residue(x, prime):
    """A rational u/v as u v^-1 mod P."""
    return x.numerator % prime if x.denominator == 1 else x.numerator * pow(x.denominator, -1, prime) % prime


def _reduce(mat, prime):
    """Every entry u/v as u v^-1 mod P; each distinct entry object once (entries read from one text are one object)."""
    flat = list(chain.from_iterable(mat))
    objects = dict(zip(map(id, flat), flat))
    residue = {key: _residue(x, prime) for key, x in objects.items()}
    return [list(map(residue.__getitem__, map(id, row))) for row in mat]


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


#: Primes below this are handled in float64 products, which are then exact (2^11 products of residues
#: below 2^21 sum to less than 2^53); larger primes use int64 products in safe chunks.
FLOAT_LIMIT = 2**21
_FCHUNK = 2048


def _fmod(X, prime):
    """X mod P in [0, P) for float64 integers with |X| < 2^53 - P, exactly: ``X - P floor(X / P)`` is an exact
    integer in [-P, 2P) even where the floating quotient is off by one (``P floor(X / P)`` is then within P of X,
    so below 2^53), and one correction brings it into range (numpy's own fmod is exact too, but about ten times
    slower). The callers' values are sums of at most 2^11 products of residues below 2^21: below 2^53 - 2^33."""
    R = X * (1.0 / prime)  # one new array, worked in place (a temporary per step costs more than the arithmetic)
    _np.floor(R, out=R)
    R *= prime
    _np.subtract(X, R, out=R)
    _np.add(R, prime, out=R, where=R < 0)
    _np.subtract(R, prime, out=R, where=R >= prime)
    return R


def _fmul(X, Y, prime):
    """(X @ Y) mod P for float64 residue arrays, exactly (P < 2^21)."""
    k = X.shape[1]
    if k <= _FCHUNK:
        return _fmod(X @ Y, prime)
    out = _np.zeros((X.shape[0], Y.shape[1]))
    for s in range(0, k, _FCHUNK):
        out = _fmod(out + _fmod(X[:, s:s + _FCHUNK] @ Y[s:s + _FCHUNK], prime), prime)
    return out


def float_residues(prime):
    """Whether residues mod ``prime`` are handled as float64 arrays (numpy present, P below the float limit)."""
    return _np is not None and prime < FLOAT_LIMIT


def residue_array(residue, texts):
    """The float64 array of a matrix given by its entry texts and the residue of each distinct text."""
    rows, cols = len(texts), len(texts[0])
    flat = _np.fromiter(map(residue.__getitem__, chain.from_iterable(texts)), dtype=_np.float64, count=rows * cols)
    return flat.reshape(rows, cols)


def _reduce_texts(texts, table, prime):
    """A matrix given by its entry texts and ``{text: Fraction}`` reduced mod P, as a float64 array."""
    return residue_array({t: _residue(x, prime) for t, x in table.items()}, texts)


def minor_mod(system, lags, cells, prime):
    """The K x K minor ``M_st = L_(d_s)[r_t, c_t] mod P`` (lists of ints, or an int64 array) of a rational system.

    With numpy and a float prime, a matrix read through its table of distinct texts (``system["texts"]``)
    is reduced by looking each text up once, straight into an array.
    """
    names = ("A", "B", "C", "D") if system["D"] is not None else ("A", "B", "C")
    texts = system.get("texts", {})
    arrays = system.get("arrays", {})
    if float_residues(prime) and lags and all(k in texts or k in arrays for k in names):
        def residues(k):  # an int64 array of the bulk reader, or the table of distinct texts
            return _np.remainder(arrays[k], prime).astype(_np.float64) if k in arrays else _reduce_texts(*texts[k], prime)

        A, B, C, D = (residues(k) if k in names else None for k in ("A", "B", "C", "D"))
    else:
        A, B, C = _reduce(system["A"], prime), _reduce(system["B"], prime), _reduce(system["C"], prime)
        D = _reduce(system["D"], prime) if system["D"] is not None else None
    return minor_mod_residues(A, B, C, D, lags, cells, prime)


def minor_mod_residues(A, B, C, D, lags, cells, prime):
    """The K x K minor ``M_st = L_(d_s)[r_t, c_t] mod P`` from residue matrices, gathered in numpy when it is there."""
    if _np is None or prime >= FLOAT_LIMIT or not lags:
        modl = lags_mod_residues(A, B, C, D, lags, prime)
        return [[modl[d][r][c] for (r, c) in cells] for d in lags]
    stack = _lags_mod_float(A, B, C, D, set(lags), prime, flat=True)
    m = len(B[0])
    rows = _np.array([stack[d] for d in lags])
    minor = _np.ascontiguousarray(rows[:, [r * m + c for r, c in cells]], dtype=_np.int64)  # row-major for the LU
    return minor if len(lags) > 64 else minor.tolist()  # a large one stays an array for the blocked elimination


def _baby_steps(top, n, m, p):
    """The baby-step length s for lags below ``top``: least multiply-adds of s baby products (n^2 m), the squarings
    for A^s (n^3 each), ``top / s`` giant products (p n^2) and the lags themselves (p n m each)."""
    best, cost = 1, None
    for s in range(1, top + 1):
        work = s * n * n * m + (s - 1).bit_length() * n ** 3 + -(-top // s) * p * n * n + top * p * n * m
        if cost is None or work < cost:
            best, cost = s, work
        if s * s > 4 * top:
            break
    return best


def _lags_mod_float(A, B, C, D, wanted, prime, *, flat=False):
    """Lags mod P by baby and giant steps: L_(g s + j) = (C A^(g s)) (A^j B); only the wanted ones."""
    A, B, C = (_np.array(M, dtype=_np.float64) for M in (A, B, C))
    top = max(wanted) + 1
    m = B.shape[1]
    s = _baby_steps(top, A.shape[0], m, C.shape[0])
    babies = [B]
    for _ in range(1, s):
        babies.append(_fmul(A, babies[-1], prime))
    stack = _np.concatenate(babies, axis=1)
    power = None
    base, e = A, s
    while e:
        if e & 1:
            power = base if power is None else _fmul(power, base, prime)  # no product with the identity
        e >>= 1
        if e:
            base = _fmul(base, base, prime)
    out = {}
    G = C
    for start in range(0, top, s):
        needed = [d for d in range(start, min(start + s, top)) if d in wanted]
        if needed:
            block = _fmul(G, stack, prime)
            for d in needed:
                j = d - start
                out[d] = block[:, j * m:(j + 1) * m].reshape(-1) if flat else \
                    block[:, j * m:(j + 1) * m].astype(_np.int64).tolist()
        if start + s < top:
            G = _fmul(G, power, prime)
    if 0 in out and D is not None:
        if flat:
            out[0] = _fmod(out[0] + _np.array(D, dtype=_np.float64).reshape(-1), prime)
        else:
            out[0] = [[(x + y) % prime for x, y in zip(r1, r2)] for r1, r2 in zip(out[0], D)]
    return out


def lags_mod(system, wanted, prime):
    """{d: L_d mod P} for each lag d in ``wanted`` (reduction u/v -> u v^-1 mod P)."""
    if not wanted:
        return {}
    A, B, C = _reduce(system["A"], prime), _reduce(system["B"], prime), _reduce(system["C"], prime)
    D = _reduce(system["D"], prime) if system["D"] is not None else None
    return lags_mod_residues(A, B, C, D, wanted, prime)


def lags_mod_residues(A, B, C, D, wanted, prime):
    """{d: L_d mod P} for each lag d in ``wanted``, from residue matrices (lists of ints in [0, P); D or None)."""
    if not wanted:
        return {}
    wanted = set(wanted)
    if _np is not None and prime < FLOAT_LIMIT:
        return _lags_mod_float(A, B, C, D, wanted, prime)
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
    if _np is not None and prime < FLOAT_LIMIT and len(M) > 64:
        return _leading_minors_blocked(M, prime)
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


def _leading_minors_blocked(M, prime, block=64):
    """Blocked LU without pivoting in exact float64 residues: the minors are products of the pivots.

    Within a panel, updates accumulate without reduction (at most 64 products below 2^42 each, so
    every value stays below 2^53) and are reduced once; the trailing update is one exact product.
    Stops after the first zero pivot (that leading minor is zero).
    """
    W = _fmod(_np.array(M, dtype=_np.float64, order="C"), prime)
    n = W.shape[0]
    minors = []
    det = 1
    for kb in range(0, n, block):
        e = min(kb + block, n)
        for j in range(kb, e):  # the panel: columns kb..e-1, all rows from j down
            W[j:, j] = _fmod(W[j:, j], prime)
            W[j, j:e] = _fmod(W[j, j:e], prime)
            piv = int(W[j, j])
            det = det * piv % prime
            minors.append(det)
            if piv == 0:
                return minors
            W[j + 1:, j] = _fmod(W[j + 1:, j] * pow(piv, -1, prime), prime)
            if j + 1 < e:
                W[j + 1:, j + 1:e] -= _np.outer(W[j + 1:, j], W[j, j + 1:e])
        if e < n:
            W[kb:e, e:] = _fmod(W[kb:e, e:], prime)
            for j in range(kb, e - 1):  # U's block row: forward substitution with the unit lower L11
                W[j, e:] = _fmod(W[j, e:], prime)
                W[j + 1:e, e:] -= _np.outer(W[j + 1:e, j], W[j, e:])
            W[kb:e, e:] = _fmod(W[kb:e, e:], prime)
            W[e:, kb:e] = _fmod(W[e:, kb:e], prime)
            W[e:, e:] = _fmod(W[e:, e:] - _fmul(W[e:, kb:e], W[kb:e, e:], prime), prime)
    return minors
