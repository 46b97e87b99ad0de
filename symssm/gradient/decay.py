"""Certified exponential decay of the lags of a stable SSM, computed without floats.

Find rational ``r in (0, 1)``, symmetric ``P`` and ``mu, M > 0`` with ``P - mu I``,
``M I - P`` and ``r^2 P - A^T P A`` positive definite.  Then ``||A^d x||_P <= r^d ||x||_P``
and, for every ``d >= 1``, ``||L_d||_F^2 <= K^2 r^(2d)`` with
``K^2 = ||C||_F^2 ||B||_F^2 M / mu``.

Everything that reaches a certificate is computed with exact integers and rationals
(python-flint) or with ball arithmetic whose bits do not depend on the CPU, so the same
system gives the same certificate bytes on every machine, whatever BLAS or thread count:

* the spectral radius is enclosed from the exact characteristic polynomial of A
  (certified complex root isolation); if its lower end is at least 1, no decay certificate
  exists and the message says so with the enclosure;
* ``P`` is the Smith doubling sum ``sum_k (Ar^T)^k Ar^k`` for ``Ar = A / r``, formed with
  integer matrices and a fixed, explicit rounding to dyadic numbers (64 bits, or 48 bits below
  the binary point of P's largest entry when P is large);
* ``mu`` and ``M`` are rational bounds within 10^-6 (relative) of P's extreme eigenvalues, each
  accepted only by an exact sign-alternation test of P's shifted characteristic polynomial;
* positive definiteness is decided exactly: a symmetric matrix is positive definite if and
  only if the coefficients of its characteristic polynomial strictly alternate in sign; for
  ``r^2 P - A^T P A`` a strictly dominant positive diagonal (Gershgorin) is tried first.

Examples
--------
>>> from symssm.sources.system import ssm
>>> b = decay_bound(ssm([["1/2", 0], [0, "1/3"]], [[1], [1]], [[1, 1]]))
>>> b.r, b.r > b.spectral_radius_upper
(Fraction(101, 200), True)
"""

from dataclasses import dataclass
from fractions import Fraction
from itertools import repeat
from math import ceil, floor, lcm
from operator import add, rshift

import flint

from ..errors import NotStableError
from ..formats.limits import flint_threads
from ..formats.rationals import short_rational

__all__ = ["DecayBound", "decay_bound", "positive_definite", "spectral_radius_enclosure", "instability_reason",
           "format_estimate", "rate_candidates"]

#: Bits kept in the mantissa of the dyadic matrices of the Smith iteration (at least; more when P grows:
#: the iteration keeps ``ABSOLUTE_BITS`` bits below the binary point of P's largest entry).
WORK_BITS = 64
#: Bits below the binary point kept in the iteration, whatever P's size (its absolute precision).
ABSOLUTE_BITS = 48
#: Bits kept in P's entries in the certificate (relative to P's largest entry, at least) ...
P_BITS = 40
#: ... and bits below the binary point kept in them (an absolute grid, so that a large, ill-conditioned
#: P still satisfies ``r^2 P - A^T P A ~ r^2 I`` after rounding).
P_FRACTION_BITS = 24
#: Smith doubling steps before giving up (2^64 terms of the series).
MAX_DOUBLINGS = 64


@dataclass(frozen=True)
class DecayBound:
    """``||L_d||_F^2 <= K2 * r^(2d)`` for all ``d >= 1``, with its Lyapunov witness."""

    r: Fraction
    K2: Fraction
    P: tuple
    mu: Fraction
    M: Fraction
    spectral_radius_upper: Fraction

    @property
    def spectral_radius_estimate(self):
        """The certified upper end of the spectral radius enclosure, as a float (informative)."""
        return float(self.spectral_radius_upper)


def _fmpq_mat(rows):
    n, m = len(rows), len(rows[0]) if rows else 0
    fractions = (x if type(x) is Fraction else Fraction(x) for row in rows for x in row)
    return flint.fmpq_mat(n, m, [flint.fmpq(x.numerator, x.denominator) for x in fractions])


def _to_fraction(q):
    return Fraction(int(q.p), int(q.q))


def _arb_fraction(a):
    """The exact dyadic value of an arb with zero radius (``upper()`` / ``lower()``) as a Fraction."""
    man, exp = a.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def _integer_poly(poly):
    """A flint fmpq_poly times its denominator, as an fmpz_poly (same roots)."""
    d = poly.denom()
    return flint.fmpz_poly([int(c * d) for c in poly.coeffs()])


def _root_moduli(poly):
    """``[(lower, upper)]`` bounds of the moduli of the complex roots of a nonzero polynomial."""
    ip = _integer_poly(poly)
    if ip.degree() < 1:
        return []
    out = []
    for z, _mult in ip.complex_roots():
        a = abs(z)
        out.append((max(Fraction(0), _arb_fraction(a.lower())), _arb_fraction(a.upper())))
    return out


def spectral_radius_enclosure(system):
    """Certified ``(lower, upper)`` bounds of the spectral radius of A (Fractions).

    From the exact characteristic polynomial and certified root isolation (python-flint), so the
    bounds are the same on every machine.

    Examples
    --------
    >>> from symssm.sources.system import ssm
    >>> lo, hi = spectral_radius_enclosure(ssm([[0, -1], [1, 0]], [[1], [0]], [[1, 0]]))
    >>> lo <= 1 <= hi, float(hi - lo) < 1e-12
    (True, True)
    """
    A = system.A
    N = len(A)
    if all(A[i][j] == 0 for i in range(N) for j in range(i + 1, N)) or \
            all(A[i][j] == 0 for i in range(N) for j in range(i)):  # triangular: the eigenvalues are the diagonal
        rho = max(abs(A[i][i]) for i in range(N))
        return rho, rho
    poly = _fmpq_mat(A).charpoly()
    moduli = _root_moduli(poly)
    if not moduli:
        return Fraction(0), Fraction(0)
    return max(lo for lo, _ in moduli), max(hi for _, hi in moduli)


def positive_definite(S):
    """Exact test of strict positive definiteness of a symmetric rational matrix.

    A symmetric matrix has real eigenvalues; they are all positive exactly when the
    coefficients of its characteristic polynomial strictly alternate in sign.

    Examples
    --------
    >>> positive_definite([[Fraction(2), Fraction(1)], [Fraction(1), Fraction(2)]])
    True
    >>> positive_definite([[Fraction(1), Fraction(2)], [Fraction(2), Fraction(1)]])
    False
    """
    if not S:
        return True
    return _alternates(_fmpq_mat(S).charpoly())


def _alternates(poly):
    """Whether the coefficients (highest first) strictly alternate in sign: all real roots positive."""
    coeffs = poly.coeffs()[::-1]
    sign = 1
    for c in coeffs:
        if c == 0 or (c > 0) != (sign > 0):
            return False
        sign = -sign
    return True


def _shift_alternates(poly, shift, reverse=False):
    """Whether every root x of ``poly`` has ``x - shift > 0`` (or ``shift - x > 0`` with ``reverse``)."""
    s = flint.fmpq(shift.numerator, shift.denominator)
    arg = flint.fmpq_poly([s, -1]) if reverse else flint.fmpq_poly([s, 1])
    q = poly(arg)
    if reverse and q.degree() % 2 == 1:
        q = -q
    return _alternates(q)


def _frob2(mat):
    return sum((x * x for row in mat for x in row), Fraction(0))


def _renormalise(Z, e, bits=WORK_BITS, top=None, entries=None):
    """Round the dyadic matrix ``Z / 2**e`` to at most ``bits`` bits per entry: ``(Z', e', top)``.

    Rounding is to nearest with ties upward, ``(v + 2^(s-1)) >> s``: exact integer arithmetic, the
    same on every machine.  ``top`` (in and out) is the bit length of the largest entry; ``entries``,
    if given, are ``Z.entries()``.
    """
    if entries is None:
        entries = Z.entries()
    if top is None:
        top = _top_bits(entries)
    shift = top - bits
    if shift <= 0:
        return Z, e, top
    half = flint.fmpz(1 << (shift - 1))
    # C-level loops on FLINT's integers (>> is a floor, as for Python's ints): exact, and no conversions
    rounded = list(map(rshift, map(add, entries, repeat(half)), repeat(shift)))
    return flint.fmpz_mat(Z.nrows(), Z.ncols(), rounded), e - shift, _top_bits(rounded)


def _top_bits(entries):
    """Bit length of the largest absolute value among integers (fmpz or int)."""
    return int(max(map(abs, entries), default=0).bit_length())


def _dyadic_of(mat, bits=WORK_BITS, scale=Fraction(1)):
    """A rational matrix times ``scale > 0`` rounded to ``(Z, e)`` with ``Z / 2**e`` close to it (``bits`` bits).

    ``e`` puts the leading bit of the largest entry at bit ``bits - 1``; each entry is rounded to the
    nearest integer multiple of ``2**-e``, ties to even.  Integer arithmetic on numerators and
    denominators throughout (the rounding depends on the values only).
    """
    sn, sd = scale.numerator, scale.denominator
    pairs = [(x.numerator * sn, x.denominator * sd) for row in mat for x in row]
    top = None  # floor(log2 |x|) of the largest entry
    for num, den in pairs:
        if num:
            a = abs(num)
            k = a.bit_length() - den.bit_length()  # 2^(k-1) < |x| < 2^(k+1)
            if (a << max(0, -k)) < (den << max(0, k)):
                k -= 1
            if top is None or k > top:
                top = k
    if top is None:
        return flint.fmpz_mat(len(mat), len(mat[0]), [0] * len(pairs)), 0
    e = bits - 1 - top
    vals = []
    for num, den in pairs:
        if not num:
            vals.append(0)
            continue
        num, den = (num << e, den) if e >= 0 else (num, den << -e)
        q, rem = divmod(num, den)  # floor, and 0 <= rem < den
        if 2 * rem > den or (2 * rem == den and q % 2):  # to nearest, ties to even
            q += 1
        vals.append(q)
    return flint.fmpz_mat(len(mat), len(mat[0]), vals), e


def _diagonally_dominant(S):
    """Strictly diagonally dominant with a positive diagonal: a sufficient test of positive definiteness
    for a symmetric matrix (Gershgorin), exact and cheap; ``r^2 P - A^T P A`` is near ``r^2 I``.

    ``S`` is a python-flint integer or rational matrix.
    """
    n = S.nrows()
    entries = S.entries()
    for i in range(n):
        row = entries[i * n:(i + 1) * n]
        if not 2 * row[i] > sum(map(abs, row)):  # S_ii > sum of |S_ij| over j != i (then S_ii > 0)
            return False
    return True


def _integer_form(mat):
    """``(Z, d)``: a python-flint integer matrix and a positive integer with ``mat = Z / d`` (d the lcm of
    the denominators)."""
    d = lcm(1, *(x.denominator for row in mat for x in row))
    return flint.fmpz_mat(len(mat), len(mat[0]), [x.numerator * (d // x.denominator) for row in mat for x in row]), d


def _decrease_definite(zA, a, zP, r):
    """Whether ``r^2 P - A^T P A`` is positive definite, for ``A = zA / a`` and ``P = zP / c`` (any c > 0).

    Tested on the integer matrix ``(r_den a)^2 c`` times it, ``(r_num a)^2 zP - r_den^2 zA^T zP zA``: a positive
    multiple has the same verdict (the dominant-diagonal test, then the sign pattern of the characteristic
    polynomial), and integer products are faster than rational ones.
    """
    S = zP * (r.numerator * a) ** 2 - zA.transpose() * zP * zA * r.denominator ** 2
    return _diagonally_dominant(S) or _alternates(S.charpoly())


def _smith_lyapunov(A, r, *, ak_bits=WORK_BITS, absolute_bits=ABSOLUTE_BITS):
    """Dyadic approximation ``(Z, e)``, ``P ~ Z / 2^e``, of ``P = sum_k (Ar^T)^k Ar^k``, ``Ar = A / r``; None if it
    does not converge.

    ``A / r`` and its powers keep at least ``ak_bits`` bits, ``P`` at least ``absolute_bits`` below its binary
    point.  A nilpotent ``A`` ends the sum exactly, once a power of ``A / r`` is zero.
    """
    N = len(A)
    Ak, ea = _dyadic_of(A, bits=ak_bits, scale=1 / r)  # A / r
    P, ep = flint.fmpz_mat(N, N, [1 if i == j else 0 for i in range(N) for j in range(N)]), 0
    bits = ak_bits
    for _ in range(MAX_DOUBLINGS):
        term = Ak.transpose() * P * Ak  # scale 2^-(2 ea + ep)
        shift = 2 * ea
        if shift >= 0:
            P = P * (1 << shift) + term
            ep = ep + shift
        else:
            P = P + term * (1 << -shift)
        # P only grows: keep ABSOLUTE_BITS below its binary point (relative rounding alone loses an
        # ill-conditioned P's small directions, and r^2 P - A^T P A is then no longer near r^2 I)
        entries = P.entries()
        ptop = _top_bits(entries)
        bits = max(bits, min(ptop - ep + absolute_bits, 4 * max(WORK_BITS, ak_bits)))
        P, ep, ptop = _renormalise(P, ep, bits, ptop, entries)
        Ak, ea, top = _renormalise(Ak * Ak, 2 * ea, bits)
        if top == 0 or top - ea < -(bits + 8):  # Ak = 0 (A nilpotent), or ||Ak|| below 2^-(bits+8): the
            break  # remaining terms are zero or negligible
        if ptop - ep > 4096:  # diverging: A / r is not stable
            return None
    else:
        return None
    return P, ep


def _final_P(Z, e):
    """Symmetric rational P, entries rounded to ``P_BITS`` bits relative to the largest, and at least
    ``P_FRACTION_BITS`` bits below the binary point."""
    top = _top_bits(Z.entries())
    Z, e, _ = _renormalise(Z, e, max(P_BITS, top - e + P_FRACTION_BITS), top)
    N = Z.nrows()
    vals = Z.tolist()
    num, den = (1, 2 << e) if e >= 0 else (1 << -e, 2)  # (v_ij + v_ji) / 2 / 2^e
    return [[Fraction(int(vals[i][j] + vals[j][i]) * num, den) for j in range(N)] for i in range(N)]


#: Relative slack of mu and M against P's extreme eigenvalues (each a verified bound, not an estimate).
_EIG_SLACK = Fraction(1, 10**6)


def _mu_bound(pP):
    """A rational ``mu > 0`` below every root of P's characteristic polynomial, within ``_EIG_SLACK``
    (relative) of the least one; None if some root is not positive.

    Decided by exact sign-alternation tests of the shifted polynomial, about a millisecond each:
    P is near ``I`` plus a positive semidefinite sum, so the search starts just below 1.
    """
    ok = lambda m: _shift_alternates(pP, m)
    lo = 1 - Fraction(1, 2**20)
    if ok(lo):
        hi = 2 * lo
        for _ in range(400):
            if not ok(hi):
                break
            lo, hi = hi, 2 * hi
        else:
            return None
    else:
        if not _alternates(pP):  # P is not positive definite
            return None
        hi = lo
        for _ in range(400):
            lo = hi / 2
            if ok(lo):
                break
            hi = lo
        else:
            return None
    lo, hi = _bisect(ok, lo, hi, good_is_low=True)
    rounded = _rational_below(lo, 2**40)
    return rounded if rounded > 0 and ok(rounded) else lo


def _bisect(ok, lo, hi, *, good_is_low):
    """Narrow ``[lo, hi]`` to ``_EIG_SLACK`` (relative), keeping ``ok`` true at the low end (or the high end)."""
    while hi - lo > lo * _EIG_SLACK:
        mid = (lo + hi) / 2
        if ok(mid) == good_is_low:
            lo = mid
        else:
            hi = mid
    return lo, hi


def _M_bound(pP, P):
    """A rational ``M`` above every root of P's characteristic polynomial, within about ``_EIG_SLACK``.

    The candidate comes from a deterministic power iteration in integer arithmetic (a fixed start
    vector and a fixed rounding); it is accepted only by the exact sign-alternation test, and raised
    until it passes.
    """
    ok = lambda m: _shift_alternates(pP, m, reverse=True)
    estimate = _power_estimate(P)
    M = _rational_above(estimate * (1 + _EIG_SLACK) + Fraction(1, 10**12), 2**20)
    if ok(M):
        return M
    lo, hi = M, 2 * M
    for _ in range(400):
        if ok(hi):
            break
        lo, hi = hi, 2 * hi
    lo, hi = _bisect(ok, lo, hi, good_is_low=False)
    rounded = _rational_above(hi, 2**20)
    return rounded if ok(rounded) else hi


def _power_estimate(P, steps=60):
    """Rayleigh quotient after ``steps`` power iterations on P (integer arithmetic, 64-bit vectors)."""
    N = len(P)
    den = max(x.denominator for row in P for x in row)  # P is dyadic: one power of two clears it
    Z = flint.fmpz_mat(N, N, [x.numerator * (den // x.denominator) for row in P for x in row])
    v = flint.fmpz_mat(N, 1, [1] * N)
    for _ in range(steps):
        w = Z * v
        shift = max(abs(x) for x in w.entries()).bit_length() - 64
        v = flint.fmpz_mat(N, 1, [x >> shift for x in w.entries()]) if shift > 0 else w
        if v.is_zero():
            return Fraction(0)
    Zv = Z * v
    num = sum(int(a) * int(b) for a, b in zip(v.entries(), Zv.entries()))
    vv = sum(int(a) ** 2 for a in v.entries())
    return Fraction(num, vv * den) if vv else Fraction(0)


def _rational_above(x, den=1000):
    return Fraction(ceil(x * den), den)


def _rational_below(x, den):
    return Fraction(floor(x * den), den)


def format_estimate(x):
    """A short decimal text of a rational in [0, 1] (6 significant digits; informative only).

    Examples
    --------
    >>> format_estimate(Fraction(1, 3))
    '0.333333'
    """
    return f"{float(x):.6g}"


def instability_reason(system, enclosure=None):
    """A one-line reason why no decay certificate exists, certified where possible."""
    A = system.A
    q = _fmpq_mat(A)
    poly = q.charpoly()
    for fac, _mult in _integer_poly(poly).factor()[1]:
        if fac.degree() == 1:
            lam = Fraction(-int(fac[0]), int(fac[1]))
            if abs(lam) >= 1:
                return (f"A has the exact eigenvalue {short_rational(lam)} (|{short_rational(lam)}| >= 1), so its lags "
                        "do not decay")
    det = _to_fraction(q.det())
    if abs(det) >= 1:
        return (f"|det A| = {short_rational(abs(det))} >= 1, so some eigenvalue has modulus >= 1 (the product of "
                f"their moduli is |det A|) and the lags do not decay")
    lo, hi = enclosure if enclosure is not None else spectral_radius_enclosure(system)
    if lo >= 1:
        return (f"the spectral radius of A lies in [{format_estimate(lo)}, {format_estimate(hi)}] (certified "
                "enclosure), so it is at least 1 and the lags do not decay")
    return (f"the spectral radius of A is not certified below 1 (certified enclosure [{format_estimate(lo)}, "
            f"{format_estimate(hi)}]), so no decay certificate is given")


def rate_candidates(lo, rho):
    """The decay rates tried, in order, for a spectral radius enclosed in ``[lo, rho]`` (``rho < 1``): points of
    the 1/1000 grid 1 %, 2 %, 5 %, 10 %, ... above it (at least 1/20), each strictly above ``rho`` and below 1;
    within 1/100 of 1, the grid is refined by tens until ten of its steps fit between ``rho`` and 1, and the
    rates step 10 %, 20 %, 50 % of the way from the spectral radius to 1.

    Examples
    --------
    >>> [str(r) for r in rate_candidates(Fraction(1, 2), Fraction(1, 2))][:3]
    ['101/200', '51/100', '21/40']
    >>> str(next(rate_candidates(Fraction(0), Fraction(0))))
    '1/20'
    >>> [r * 10000 for r in rate_candidates(Fraction(997, 1000), Fraction(997, 1000))]
    [Fraction(9973, 1), Fraction(9976, 1), Fraction(9985, 1)]
    """
    seen = set()
    den = 1000  # the grid: 1/1000, finer for a spectral radius within 1/100 of 1 (slow modes of trained layers)
    while (1 - rho) * den < 10:
        den *= 10
    for eps in (Fraction(1, 100), Fraction(2, 100), Fraction(5, 100), Fraction(1, 10), Fraction(1, 5),
                Fraction(35, 100), Fraction(1, 2), Fraction(3, 4)):
        mid = (lo + rho) / 2  # the enclosure is narrow (about 2^-50): aim from its middle
        target = max(mid * (1 + eps), mid + (1 - mid) * eps / 2, Fraction(1, 20))
        if den > 1000:  # near 1, relative steps overshoot: step a share of the gap to 1 instead
            target = mid + (1 - mid) * min(Fraction(1, 2), 10 * eps)
        target = min(target, rho + (1 - rho) * Fraction(9, 10))
        r = Fraction(round(target * den), den)  # the nearest point of the grid ...
        if r <= rho:
            r = _rational_above(target, den)  # ... or the next one up, strictly above the spectral radius
        if not (0 < r < 1) or r <= rho or r in seen:
            continue
        seen.add(r)
        yield r


def decay_bound(system, *, deadline=None):
    """Find and exactly verify a decay certificate, aiming for ``r`` near the spectral radius.

    Raises
    ------
    NotStableError
        If the spectral radius is not certified below 1 (no decay certificate exists, or none
        can be given; the message says which), or no certificate was found.
    BudgetExceeded
        If the ``deadline`` passes.
    """
    with flint_threads(flint):  # integer products and characteristic polynomials on every CPU
        return _decay_bound(system, deadline)


def _decay_bound(system, deadline):
    lo, rho = spectral_radius_enclosure(system)
    if rho >= 1:
        raise NotStableError(instability_reason(system, (lo, rho)))
    A = system.A
    zA, a = _integer_form(A)
    for r in rate_candidates(lo, rho):
        if deadline is not None:
            deadline.check("searching for a decay certificate")
        found = _smith_lyapunov(A, r)
        if found is None:
            continue
        P = _final_P(*found)
        zP, c = _integer_form(P)
        if not _decrease_definite(zA, a, zP, r):
            continue
        pP = (flint.fmpq_mat(zP) / c).charpoly()  # P = zP / c exactly
        mu = _mu_bound(pP)
        if mu is None:  # P is not positive definite
            continue
        M = _M_bound(pP, P)
        K2 = _frob2(system.C) * _frob2(system.B) * M / mu
        return DecayBound(r=r, K2=K2, P=tuple(tuple(row) for row in P), mu=mu, M=M, spectral_radius_upper=rho)
    raise NotStableError(
        f"no decay certificate found (spectral radius at most {format_estimate(rho)}); "
        "the system may be too ill-conditioned"
    )
