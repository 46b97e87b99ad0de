"""Decay certificates with a factored Lyapunov matrix (``gradient-highway`` format version 2).

Version 1 stated a rational ``P`` and bounded its eigenvalues through characteristic polynomials,
on both sides.  Version 2 states ``P`` through an ``LDL^T`` factorisation of ``P - mu I``:

    P = U^T diag(D) U + mu I,   U unit upper triangular,  D > 0,  mu > 0,

and every obligation is a product and one pass over a matrix:

1. the shape of ``U`` and the signs of ``D`` and ``mu``: then ``P - mu I`` is positive definite, so
   ``P > mu I``, with nothing to test;
2. ``T = r^2 P - A^T P A`` has a strictly dominant positive diagonal: then ``T`` is positive definite
   (Gershgorin), and ``||A x||_P <= r ||x||_P``;
3. a positive vector ``w`` with ``|P| w <= M w``: then ``lambda_max(P) <= rho(|P|) <= M``
   (Collatz-Wielandt), so ``P <= M I``.

As in version 1, ``||A^d||_2 <= sqrt(M / mu) r^d`` and ``||L_d||_F^2 <= K^2 r^(2d)`` for ``d >= 1`` with
``K^2 = ||C||_F^2 ||B||_F^2 M / mu``.  ``P`` solves ``P - (A/r)^T P (A/r) = I`` up to rounding, so ``T``
is close to ``r^2 I``, whose diagonal dominates however ill-conditioned ``P`` is (HiPPO-LegS at
N = 96: eigenvalues from 1 to 10^17).

How the witness is found, with integers only (so the bytes are the same on every machine): ``P``
by the Smith doubling (``A / r`` kept with at least :data:`AR_BITS` bits, more when ``P`` is
large); since ``P >= I`` (up to rounding), the ``LDL^T`` factorisation of ``P - mu0 I`` with
``mu0 = 1 - 2^-16``, in fixed point (Python integers, ``W`` bits below the binary point); when an
inverse iteration with those factors finds ``P``'s least eigenvalue well above 1, ``mu`` just
below it and ``P - mu I`` factored again; ``M`` and ``w`` from exact power steps on ``|P|``.
Each candidate is verified by the same exact test of obligation 2 the checker runs (written
separately there); a failed one is retried with more bits, a smaller ``mu``, then a larger ``r``.

Examples
--------
>>> from symssm.sources.system import ssm
>>> w = decay_witness(ssm([["1/2", 10], [0, "-1/3"]], [[1], [1]], [[1, 0]]))
>>> w.r, w.mu < 2 < w.M, witness_margin(w.U, w.D, w.mu, w.r, [["1/2", 10], [0, "-1/3"]]) > 0
(Fraction(101, 200), True, True)
"""

from dataclasses import dataclass
from fractions import Fraction
from itertools import repeat
from math import isqrt
from operator import add, mul, rshift

import flint

from ..errors import NotStableError
from ..formats.limits import flint_threads
from .decay import _dyadic_of, _integer_form, format_estimate, instability_reason, rate_candidates, spectral_radius_enclosure

__all__ = ["FactoredDecay", "decay_witness", "witness_margin", "dyadic_text", "dyadic_bits", "AR_BITS"]

#: Bits kept in ``A / r`` and its powers by the Smith iteration, at least: ``T``'s rounding error is about
#: ``||P|| 2^-AR_BITS``, so more are used when ``P`` is large.
AR_BITS = 128
#: Bits below the binary point of ``P`` kept by the Smith iteration, at least, and the size below which the rest of
#: the series is dropped (``r^2 P - A^T P A`` is about ``r^2 I``: an error of ``2^-24`` leaves its diagonal dominant).
P_ABSOLUTE_BITS = 40
TAIL_BITS = 16
#: Bits below the binary point of the fixed-point ``LDL^T`` tried, beyond the sizes of ``P`` and of
#: ``1/(lambda_min - mu)``: the first that verifies is written (short numbers).
LDL_GUARD_BITS = (8, 24, 56, 120)
#: The first shift: ``P >= I`` up to rounding, so ``P - MU0 I`` is positive definite.
MU0 = Fraction(2**16 - 1, 2**16)
#: Significant bits of mu and M as written, and of each weight of w.
BOUND_BITS = 24
WEIGHT_BITS = 16
#: Relative gaps below the least eigenvalue's estimate tried for mu.
_MU_GAPS = (Fraction(1, 2**16), Fraction(1, 2**8), Fraction(1, 2), Fraction(7, 8))

@dataclass(frozen=True)
class FactoredDecay:
    """``||L_d||_F^2 <= K2 r^(2d)`` for ``d >= 1``, with ``P = U^T diag(D) U + mu I`` and ``mu I < P <= M I``.

    The factors are kept as the fixed-point integers they were computed in: ``L`` (rows, unit lower
    triangular, ``U = L^T``) and ``d``, both scaled by ``2^W``; :attr:`U` and :attr:`D` give them as Fractions,
    :attr:`U_text` and :attr:`D_text` as canonical texts.  ``weights`` is a tuple of Fractions.
    """

    r: Fraction
    K2: Fraction
    L: tuple
    d: tuple
    W: int
    mu: Fraction
    M: Fraction
    weights: tuple
    spectral_radius_upper: Fraction

    @property
    def U(self):
        """``U`` (unit upper triangular) as a tuple of rows of Fractions."""
        N, scale = len(self.d), 1 << self.W
        return tuple(tuple(Fraction(self.L[j][i], scale) for j in range(N)) for i in range(N))

    @property
    def D(self):
        """``D`` as a tuple of Fractions."""
        return tuple(Fraction(x, 1 << self.W) for x in self.d)

    @property
    def U_text(self):
        """``U`` as rows of canonical rational texts."""
        N = len(self.d)
        return [[dyadic_text(self.L[j][i], self.W) for j in range(N)] for i in range(N)]

    @property
    def D_text(self):
        """``D`` as canonical rational texts."""
        return [dyadic_text(x, self.W) for x in self.d]

    @property
    def spectral_radius_estimate(self):
        """The certified upper end of the spectral radius enclosure, as a float (informative)."""
        return float(self.spectral_radius_upper)


def dyadic_text(p, W):
    """The canonical text of ``p / 2^W`` (lowest terms).

    Examples
    --------
    >>> dyadic_text(12, 4), dyadic_text(-32, 4), dyadic_text(0, 9)
    ('3/4', '-2', '0')
    """
    if p == 0:
        return "0"
    k = min(W, (p & -p).bit_length() - 1)
    return str(p >> k) if k == W else f"{p >> k}/{1 << (W - k)}"


def dyadic_bits(values, W):
    """The bits the checker's size limit counts for rationals ``p / 2^W`` (in lowest terms): the bits of their
    common denominator ``2^W'`` and of the largest numerator over it.

    Examples
    --------
    >>> dyadic_bits([16, 12, 0], 4)  # 1, 3/4, 0 over the denominator 4: 4, 3, 0
    5
    """
    exps = [W - min(W, (p & -p).bit_length() - 1) for p in values if p]
    if not exps:
        return 0
    common = max(exps)
    return common + max(abs(p).bit_length() for p in values) - (W - common)


def _top(entries):
    """Bit length of the largest absolute value among python-flint integers (two comparisons, no new objects)."""
    if not entries:
        return 0
    return int(max(max(entries), -min(entries))).bit_length()


def _shift_round(Z, shift, top=None, entries=None):
    """``(round(Z / 2^shift), top)``: each entry to the nearest integer (ties up) by exact integer shifts, and an
    upper bound, within one, of the bit length of the result's largest entry.  ``shift <= 0`` multiplies."""
    if entries is None:
        entries = Z.entries()
    if top is None:
        top = _top(entries)
    if shift <= 0:
        return (Z * (1 << -shift) if shift else Z), top - shift
    half = flint.fmpz(1 << (shift - 1))
    rounded = list(map(rshift, map(add, entries, repeat(half)), repeat(shift)))
    return flint.fmpz_mat(Z.nrows(), Z.ncols(), rounded), max(0, top - shift + 1)


def _smith(A, r, ak_bits):
    """``(Z, e)`` with ``Z / 2^e`` close to ``P = sum_k (Ar^T)^k Ar^k``, ``Ar = A / r``; None if it diverges.

    The doubling ``P <- P + Ak^T P Ak``, ``Ak <- Ak^2`` on python-flint integers with exact integer roundings:
    ``Ak`` to ``ak_bits`` bits after each squaring; each new term to ``P``'s scale ``2^-e``, which is coarsened
    (P rounded to ``ak_bits - 8`` bits) only when P has grown past ``ak_bits`` bits.  P keeps about as many bits
    as ``A / r`` (a rounding error of P early in the doubling is amplified by the rest of it, up to about as
    much as P itself grows: HiPPO-LegS at N = 96, P about 2^53, needs about 110 bits), and at least
    ``P_ABSOLUTE_BITS`` below its binary point.  It stops once a bound on the rest of the series, from
    ``||Ak||`` and the last term, is below ``2^-TAIL_BITS``, or exactly when a power of ``A / r`` is zero
    (A nilpotent).
    """
    N = len(A)
    Ak, ea = _dyadic_of(A, bits=ak_bits, scale=1 / r)
    ep = ak_bits - 9  # P = I, with ak_bits - 8 bits
    P = flint.fmpz_mat(N, N, [(1 << ep) if i == j else 0 for i in range(N) for j in range(N)])
    ptop = ep + 1
    log_n = max(1, (N - 1).bit_length())
    top = _top(Ak.entries())
    for _ in range(64):
        if top == 0:
            break  # Ak = 0: the series has ended
        term, ttop = _shift_round(Ak.transpose() * (P * Ak), 2 * ea)  # now at P's scale 2^-ep
        P = P + term
        ptop = _top(P.entries())
        if ptop - ep > 4096:  # diverging: A / r is not stable
            return None
        keep = max(ak_bits, ptop - ep + P_ABSOLUTE_BITS)
        if ptop > keep:  # coarsen P by a few bits more than needed: it is rounded again only some steps later
            shift = ptop - keep + 8
            P, ptop = _shift_round(P, shift)
            ep -= shift
        # the next term is Ak^T (term + Ak^T term Ak) Ak, and the later ones shrink faster still: stop once a
        # bound on the rest (from ||Ak|| and this term) is below 2^-TAIL_BITS
        norm = top - ea + log_n  # log2 of N ||Ak||_max, at least ||Ak||
        if norm < -1 and 2 * norm + (ttop - ep) + 2 < -TAIL_BITS:
            break
        Ak, ea = Ak * Ak, 2 * ea
        entries = Ak.entries()
        top = _top(entries)
        if top > ak_bits:
            shift = top - ak_bits
            Ak, top = _shift_round(Ak, shift, top, entries)
            ea -= shift
    else:
        return None
    return P, ep


def _fixed(Z, e, W, mu=None):
    """The symmetric part of ``Z / 2^e`` (minus ``mu I``) as rows of Python integers scaled by ``2^W``."""
    N = Z.nrows()
    rows = [[int(x) for x in row] for row in Z.tolist()]
    shift = W - e - 1
    X = [[a + b for a, b in zip(rows[i], col)] for i, col in enumerate(zip(*rows))]
    if shift >= 0:
        X = [[v << shift for v in row] for row in X]
    else:
        half = 1 << (-shift - 1)
        X = [[(v + half) >> -shift for v in row] for row in X]
    if mu is not None:
        m = (mu.numerator << W) // mu.denominator
        for i in range(N):
            X[i][i] -= m
    return X


def _ldl_fixed(X, W):
    """``(L, d)`` with ``X ~ L diag(d) L^T`` (all scaled by ``2^W``), or None if a pivot is not positive.

    Crout's order, fixed point with ``W`` bits below the binary point; rounding by integer shifts and
    floor divisions, the same on every machine.  ``L`` is unit lower triangular.
    """
    N = len(X)
    L = [[0] * N for _ in range(N)]
    d = [0] * N
    one = 1 << W
    for j in range(N):
        Lj = L[j][:j]
        w = [(x * y) >> W for x, y in zip(Lj, d)]  # L_jk d_k
        dj = X[j][j] - (sum(map(mul, Lj, w)) >> W)
        if dj <= 0:
            return None
        d[j] = dj
        L[j][j] = one
        half = dj >> 1
        for i in range(j + 1, N):
            t = X[i][j] - (sum(map(mul, L[i][:j], w)) >> W)
            L[i][j] = ((t << W) + half) // dj
    return L, d


def _least_eigenvalue(L, d, W, steps=8):
    """An estimate (from above) of the least eigenvalue of ``L diag(d) L^T / 2^W``: inverse iteration in fixed
    point, the least Rayleigh quotient ``x^T x / x^T X^-1 x`` seen."""
    N = len(d)
    LT = [list(col) for col in zip(*L)]
    x = [1 << W] * N
    estimate = None
    for _ in range(steps):
        y = list(x)  # solve L y = x, then z = y / d, then L^T v = z
        for i in range(N):
            y[i] -= sum(map(mul, L[i][:i], y[:i])) >> W
        v = [(yi << W) // di for yi, di in zip(y, d)]
        for i in range(N - 1, -1, -1):
            v[i] -= sum(map(mul, LT[i][i + 1:], v[i + 1:])) >> W
        big = max(map(abs, v))
        xv = sum(map(mul, x, v))
        if big == 0 or xv <= 0:
            return estimate
        quotient = Fraction(sum(t * t for t in x), xv)
        estimate = quotient if estimate is None else min(estimate, quotient)
        shift = big.bit_length() - W - 8
        x = [t >> shift for t in v] if shift > 0 else [t << -shift for t in v]
    return estimate


def _short_below(x, bits=BOUND_BITS):
    """A dyadic rational strictly below ``x > 0`` with ``bits`` significant bits (None if there is none > 0)."""
    if x <= 0:
        return None
    k = bits - (x.numerator.bit_length() - x.denominator.bit_length())
    value = Fraction((x.numerator << k) // x.denominator, 1 << k) if k >= 0 else \
        Fraction((x.numerator // (x.denominator << -k)) << -k)
    if value >= x:
        value -= Fraction(1, 1 << k) if k >= 0 else Fraction(1 << -k)
    return value if value > 0 else None


def _short_above(x, bits=BOUND_BITS):
    """A dyadic rational at least ``x`` with about ``bits`` significant bits (0 for ``x <= 0``)."""
    if x <= 0:
        return Fraction(0)
    k = bits - (x.numerator.bit_length() - x.denominator.bit_length())
    if k >= 0:
        return Fraction(-((-x.numerator << k) // x.denominator), 1 << k)
    return Fraction(-(-x.numerator // (x.denominator << -k)) << -k)


def _exact_P(L, d, W, mu):
    """``(zP, scale)`` with ``zP / scale = U^T diag(D) U + mu I`` exactly, ``U = L^T / 2^W``, ``D = d / 2^W``."""
    N = len(d)
    FL = flint.fmpz_mat(L)
    DLt = flint.fmpz_mat(N, N, [d[i] * L[j][i] for i in range(N) for j in range(N)])
    base = 1 << (3 * W)
    zP = (FL * DLt) * mu.denominator + flint.fmpz_mat(
        N, N, [mu.numerator * base if i == j else 0 for i in range(N) for j in range(N)])
    return zP, base * mu.denominator


def _margin(zP, scale, zA, a, r):
    """``min_i (T_ii - sum_{j != i} |T_ij|)`` for ``T = r^2 P - A^T P A`` (P = zP / scale, A = zA / a), exactly."""
    T = zP * (r.numerator * a) ** 2 - zA.transpose() * (zP * zA) * r.denominator ** 2  # (r_den a)^2 scale T
    n = T.nrows()
    entries = T.entries()
    low = min(2 * entries[i * n + i] - sum(map(abs, entries[i * n:(i + 1) * n])) for i in range(n))
    return Fraction(int(low), (r.denominator * a) ** 2 * scale)


def witness_margin(U, D, mu, r, A):
    """The dominance margin ``min_i (T_ii - sum_{j != i} |T_ij|)`` of ``T = r^2 P - A^T P A`` for
    ``P = U^T diag(D) U + mu I`` (obligation 2 holds when it is positive), exactly.

    Examples
    --------
    >>> F = Fraction
    >>> witness_margin([[F(1)]], [F(1)], F(1), F(3, 4), [[F(1, 2)]])  # P = 2: T = 9/8 - 1/2
    Fraction(5, 8)
    """
    U = [[Fraction(x) for x in row] for row in U]
    D = [Fraction(x) for x in D]
    mu, r = Fraction(mu), Fraction(r)
    zU, u = _integer_form(U)
    zD, delta = _integer_form([D])
    N = len(U)
    rows = zU.tolist()
    dvals = [int(x) for x in zD.entries()]
    zP = (zU.transpose() * flint.fmpz_mat(N, N, [dvals[i] * int(x) for i in range(N) for x in rows[i]])) * \
        mu.denominator + flint.fmpz_mat(N, N, [mu.numerator * u * u * delta if i == j else 0
                                               for i in range(N) for j in range(N)])
    zA, a = _integer_form([[Fraction(x) for x in row] for row in A])
    with flint_threads(flint):
        return _margin(zP, u * u * delta * mu.denominator, zA, a, r)


def _round_weight(x):
    """A positive integer rounded up to :data:`WEIGHT_BITS` significant bits (kept when it has no more)."""
    k = x.bit_length() - WEIGHT_BITS
    if k <= 0 or not x & ((1 << k) - 1):
        return max(1, x)
    return ((x >> k) + 1) << k


def _upper_bound(zP, scale, steps=24):
    """``(M, w)``: a positive vector ``w`` (exact power steps on ``|P|`` from ``sqrt(diag P)``, each rounded to
    :data:`WEIGHT_BITS` bits, the best one kept) and a short ``M >= max_i (|P| w)_i / w_i`` (so
    ``M >= rho(|P|) >= lambda_max(P)``, Collatz-Wielandt)."""
    N = zP.nrows()
    Z = flint.fmpz_mat(N, N, [abs(x) for x in zP.entries()])
    w = [_round_weight(max(1, isqrt(int(zP[i, i]) << 64))) for i in range(N)]
    best = None
    for _ in range(steps):
        values = [int(x) for x in (Z * flint.fmpz_mat(N, 1, w)).entries()]
        ratio = max(Fraction(vi, wi) for vi, wi in zip(values, w))
        if best is None or ratio < best[0]:
            best = (ratio, w)
        shift = max(values).bit_length() - 64
        w = [_round_weight(max(1, x >> shift) if shift > 0 else max(1, x)) for x in values]
    ratio, w = best
    top = max(w).bit_length() - 1  # the largest weight in [1, 2)
    return _short_above(ratio / scale), tuple(Fraction(x, 1 << top) for x in w)


def decay_witness(system, *, deadline=None):
    """Find and exactly verify a version-2 decay certificate (``P - mu I`` factored), ``r`` near the spectral radius.

    Parameters
    ----------
    system : SSM
    deadline : Deadline, optional

    Returns
    -------
    FactoredDecay

    Raises
    ------
    NotStableError
        If the spectral radius is not certified below 1 (no decay certificate exists, or none can be
        given; the message says which), or no certificate was found.
    BudgetExceeded
        If the ``deadline`` passes.
    """
    with flint_threads(flint):
        return _decay_witness(system, deadline)


def _decay_witness(system, deadline):
    lo, rho = spectral_radius_enclosure(system)
    if rho >= 1:
        raise NotStableError(instability_reason(system, (lo, rho)))
    A = system.A
    zA, a = _integer_form(A)
    frob = lambda X: sum((x * x for row in X for x in row), Fraction(0))  # noqa: E731
    for r in rate_candidates(lo, rho):
        if deadline is not None:
            deadline.check("searching for a decay certificate")
        found = _witness_at(A, zA, a, r, deadline)
        if found is not None:
            L, d, W, mu, M, weights = found
            K2 = frob(system.C) * frob(system.B) * M / mu
            return FactoredDecay(r=r, K2=K2, L=tuple(map(tuple, L)), d=tuple(d), W=W, mu=mu, M=M, weights=weights,
                                 spectral_radius_upper=rho)
    raise NotStableError(
        f"no decay certificate found (spectral radius at most {format_estimate(rho)}); "
        "the system may be too ill-conditioned"
    )


def _gap_bits(lam, mu):
    """Bits of ``lambda / (lambda - mu)``: how much ``P - mu I`` is closer to singular than ``P``."""
    return max(0, lam.numerator.bit_length() + (lam - mu).denominator.bit_length()
               - lam.denominator.bit_length() - (lam - mu).numerator.bit_length())


def _witness_at(A, zA, a, r, deadline):
    """``(L, d, W, mu, M, w)`` for the rate ``r``, exactly verified; None if none was found."""
    found = _smith(A, r, AR_BITS)
    if found is None:
        return None
    Z, e = found
    size = max(0, _top(Z.entries()) - e)  # bits of P above its binary point
    if size + 56 > AR_BITS:  # A / r was kept too coarsely for a P this large: again, with more bits
        found = _smith(A, r, size + 96)
        if found is None:
            return None
        Z, e = found
    guards = LDL_GUARD_BITS
    # P >= I up to rounding: factor P - MU0 I, and estimate how far above 1 its least eigenvalue is
    factored = None
    for guard in guards:
        W = size + 16 + guard
        factored = _ldl_fixed(_fixed(Z, e, W, MU0), W)
        if factored is not None:
            break
    if factored is None:
        return None  # P is not positive definite (A / r not stable to this precision)
    first_guard = guard
    excess = _least_eigenvalue(*factored, W) or Fraction(0)
    tries = []
    if excess > MU0 / 2**10:  # the least eigenvalue is well above 1: shift by (nearly) all of it
        lam = MU0 + excess
        for gap in (Fraction(1, 2**16), Fraction(1, 2**8), Fraction(1, 2)):
            mu = _short_below(lam * (1 - gap))
            if mu is not None and mu > MU0:
                tries.append(mu)
    tries.append(MU0)
    for mu in tries:
        start = guards.index(first_guard) if mu == MU0 else 0
        for guard in guards[start:]:
            if deadline is not None:
                deadline.check("factoring the Lyapunov matrix")
            W = size + (16 if mu == MU0 else _gap_bits(MU0 + excess, mu)) + guard
            if mu == MU0 and factored is not None:
                L, d = factored  # the factors found above
                factored = None
            else:
                out = _ldl_fixed(_fixed(Z, e, W, mu), W)
                if out is None:
                    continue  # P - mu I is not positive definite to this precision
                L, d = out
            zP, scale = _exact_P(L, d, W, mu)
            if _margin(zP, scale, zA, a, r) > 0:
                M, weights = _upper_bound(zP, scale)
                return L, d, W, mu, M, weights
    return None
