"""The accelerated twins of :mod:`.lags` (numpy, python-flint), reached only through :mod:`.accel`.

Each function computes exactly the value of the standard-library function it stands for: python-flint's
integer and rational matrices are exact, and numpy's products of residues modulo a prime are kept below
2^53 (float64) or 2^63 (int64), so no rounding or overflow can occur.  A reader checking a verdict may skip
this module: ``SYMSSM_CHECKER_PURE=1`` gives the same verdicts without it.  It imports numpy and python-flint
itself, inside the functions that use them: :mod:`.accel` calls a function here only when its library is there
(and a prime below 2^31, so that a product of two residues fits an int64).  It imports no checker module.
"""

from fractions import Fraction
from itertools import chain
from math import lcm

__all__ = ["exact_lags_flint", "combinations_flint", "minor_mod_np", "leading_minors_mod_np", "FLOAT_LIMIT",
           "float_residues", "residue_array", "minor_mod_residues", "lags_mod_residues", "matmul_mod_np",
           "safe_chunk"]

INT64_MAX = 2**63 - 1


def _den(mat):
    return lcm(1, *(x.denominator for row in mat for x in row))


def _reduce(mat, prime):
    """Every entry u/v as u v^-1 mod P (P divides no denominator), each distinct value once."""
    objects = {id(x): x for row in mat for x in row}  # entries read from one text are one object
    residue = {key: x.numerator * pow(x.denominator, -1, prime) % prime for key, x in objects.items()}
    return [[residue[id(x)] for x in row] for row in mat]


def _fq(M):
    import flint

    return flint.fmpq_mat(len(M), len(M[0]) if M else 0, [flint.fmpq(x.numerator, x.denominator) for row in M for x in row])


def _from_fq(F):
    return [[Fraction(int(F[i, j].p), int(F[i, j].q)) for j in range(F.ncols())] for i in range(F.nrows())]


def exact_lags_flint(system, count):
    """The lags of :func:`.lags.exact_lags` with python-flint's exact integer matrices (denominators cleared once)."""
    import flint

    A, B, C, D = system["A"], system["B"], system["C"], system["D"]
    a, b, c = _den(A), _den(B), _den(C)
    z = lambda M, s: flint.fmpz_mat([[int(x * s) for x in row] for row in M])  # noqa: E731
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


def combinations_flint(exact, lags, coefficient_rows, p, m):
    """The combinations of :func:`.lags.combinations` as one python-flint rational product."""
    K = max(len(c) for c in coefficient_rows)
    basis = _fq([[x for row in exact[d] for x in row] for d in lags[:K]])
    coeffs = _fq([list(c) + [Fraction(0)] * (K - len(c)) for c in coefficient_rows])
    flat = _from_fq(coeffs * basis)
    return [[row[r * m:(r + 1) * m] for r in range(p)] for row in flat]


def safe_chunk(prime):
    """How many products ``(P-1)^2`` can be added in int64 without overflow."""
    return max(1, INT64_MAX // ((prime - 1) ** 2))


def matmul_mod_np(A, X, prime):
    """int64 product modulo P, summing at most :func:`safe_chunk` products at a time."""
    import numpy as np

    step = safe_chunk(prime)
    out = np.zeros((A.shape[0], X.shape[1]), dtype=np.int64)
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
    import numpy as np

    R = X * (1.0 / prime)  # one new array, worked in place (a temporary per step costs more than the arithmetic)
    np.floor(R, out=R)
    R *= prime
    np.subtract(X, R, out=R)
    np.add(R, prime, out=R, where=R < 0)
    np.subtract(R, prime, out=R, where=R >= prime)
    return R


def _fmul(X, Y, prime):
    """(X @ Y) mod P for float64 residue arrays, exactly (P < 2^21)."""
    import numpy as np

    k = X.shape[1]
    if k <= _FCHUNK:
        return _fmod(X @ Y, prime)
    out = np.zeros((X.shape[0], Y.shape[1]))
    for s in range(0, k, _FCHUNK):
        out = _fmod(out + _fmod(X[:, s:s + _FCHUNK] @ Y[s:s + _FCHUNK], prime), prime)
    return out


def float_residues(prime):
    """Whether residues mod ``prime`` are handled as float64 arrays (P below the float limit)."""
    return prime < FLOAT_LIMIT


def residue_array(residue, texts):
    """The float64 array of a matrix given by its entry texts and the residue of each distinct text."""
    import numpy as np

    rows, cols = len(texts), len(texts[0])
    flat = np.fromiter(map(residue.__getitem__, chain.from_iterable(texts)), dtype=np.float64, count=rows * cols)
    return flat.reshape(rows, cols)


def _reduce_texts(texts, table, prime):
    """A matrix given by its entry texts and ``{text: Fraction}`` reduced mod P, as a float64 array."""
    return residue_array({t: x.numerator * pow(x.denominator, -1, prime) % prime for t, x in table.items()}, texts)


def minor_mod_np(system, lags, cells, prime):
    """The minor of :func:`.lags.minor_mod` with numpy.

    With a float prime, a matrix read through its table of distinct texts (``system["texts"]``) or by the
    bulk reader (``system["arrays"]``) is reduced by looking each text up once, straight into an array.
    """
    import numpy as np

    names = ("A", "B", "C", "D") if system["D"] is not None else ("A", "B", "C")
    texts = system.get("texts", {})
    arrays = system.get("arrays", {})
    if float_residues(prime) and lags and all(k in texts or k in arrays for k in names):
        def residues(k):  # an int64 array of the bulk reader, or the table of distinct texts
            return np.remainder(arrays[k], prime).astype(np.float64) if k in arrays else _reduce_texts(*texts[k], prime)

        A, B, C, D = (residues(k) if k in names else None for k in ("A", "B", "C", "D"))
    else:
        A, B, C = _reduce(system["A"], prime), _reduce(system["B"], prime), _reduce(system["C"], prime)
        D = _reduce(system["D"], prime) if system["D"] is not None else None
    return minor_mod_residues(A, B, C, D, lags, cells, prime)


def minor_mod_residues(A, B, C, D, lags, cells, prime):
    """The K x K minor ``M_st = L_(d_s)[r_t, c_t] mod P`` from residue matrices, gathered in numpy."""
    import numpy as np

    if prime >= FLOAT_LIMIT or not lags:
        modl = lags_mod_residues(A, B, C, D, lags, prime)
        return [[modl[d][r][c] for (r, c) in cells] for d in lags]
    stack = _lags_mod_float(A, B, C, D, set(lags), prime, flat=True)
    m = len(B[0])
    rows = np.array([stack[d] for d in lags])
    minor = np.ascontiguousarray(rows[:, [r * m + c for r, c in cells]], dtype=np.int64)  # row-major for the LU
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
    import numpy as np

    A, B, C = (np.array(M, dtype=np.float64) for M in (A, B, C))
    top = max(wanted) + 1
    m = B.shape[1]
    s = _baby_steps(top, A.shape[0], m, C.shape[0])
    babies = [B]
    for _ in range(1, s):
        babies.append(_fmul(A, babies[-1], prime))
    stack = np.concatenate(babies, axis=1)
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
                    block[:, j * m:(j + 1) * m].astype(np.int64).tolist()
        if start + s < top:
            G = _fmul(G, power, prime)
    if 0 in out and D is not None:
        if flat:
            out[0] = _fmod(out[0] + np.array(D, dtype=np.float64).reshape(-1), prime)
        else:
            out[0] = [[(x + y) % prime for x, y in zip(r1, r2)] for r1, r2 in zip(out[0], D)]
    return out


def lags_mod_residues(A, B, C, D, wanted, prime):
    """{d: L_d mod P} for each lag d in ``wanted``, from residue matrices (lists of ints in [0, P); D or None)."""
    import numpy as np

    if not wanted:
        return {}
    wanted = set(wanted)
    if prime < FLOAT_LIMIT:
        return _lags_mod_float(A, B, C, D, wanted, prime)
    out = {}
    A, X, C = (np.array(M, dtype=np.int64) for M in (A, B, C))
    for d in range(max(wanted) + 1):
        if d in wanted:
            L = matmul_mod_np(C, X, prime).tolist()
            if d == 0 and D is not None:
                L = [[(x + y) % prime for x, y in zip(r1, r2)] for r1, r2 in zip(L, D)]
            out[d] = L
        if d < max(wanted):
            X = matmul_mod_np(A, X, prime)
    return out


def leading_minors_mod_np(M, prime):
    """The minors of :func:`.lags.leading_minors_mod`: blocked float64 LU past K = 64 (a float prime), else int64."""
    if prime < FLOAT_LIMIT and len(M) > 64:
        return _leading_minors_blocked(M, prime)
    return _leading_minors_mod_np(M, prime)


def _leading_minors_mod_np(M, prime):
    """numpy version: one product of two residues < 2**31 stays below 2**62."""
    import numpy as np

    W = np.array(M, dtype=np.int64) % prime
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
    import numpy as np

    W = _fmod(np.array(M, dtype=np.float64, order="C"), prime)
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
                W[j + 1:, j + 1:e] -= np.outer(W[j + 1:, j], W[j, j + 1:e])
        if e < n:
            W[kb:e, e:] = _fmod(W[kb:e, e:], prime)
            for j in range(kb, e - 1):  # U's block row: forward substitution with the unit lower L11
                W[j, e:] = _fmod(W[j, e:], prime)
                W[j + 1:e, e:] -= np.outer(W[j + 1:e, j], W[j, e:])
            W[kb:e, e:] = _fmod(W[kb:e, e:], prime)
            W[e:, kb:e] = _fmod(W[e:, kb:e], prime)
            W[e:, e:] = _fmod(W[e:, e:] - _fmul(W[e:, kb:e], W[kb:e, e:], prime), prime)
    return minors
