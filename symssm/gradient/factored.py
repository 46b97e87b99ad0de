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
large; ``P`` with :data:`P_ABSOLUTE_BITS` bits below its binary point); ``mu`` just below an
estimate of ``P``'s least eigenvalue (inverse iteration with the factors of ``P``); the ``LDL^T``
factorisation of ``P - mu I`` in fixed point (Python integers, ``W`` bits below the binary point);
``M`` and ``w`` from exact power steps on ``|P|``.  Each candidate is verified by the same exact
tests the checker runs (written separately there); a failed one is retried with a smaller ``mu``,
more bits, then a larger ``r``.

Examples
--------
>>> from symssm.sources.system import ssm
>>> w = decay_witness(ssm([["1/2", 10], [0, "-1/3"]], [[1], [1]], [[1, 0]]))
>>> w.r, w.mu < 2 < w.M, witness_margin(w.U, w.D, w.mu, w.r, [["1/2", 10], [0, "-1/3"]]) > 0
(Fraction(101, 200), True, True)
"""

from dataclasses import dataclass
from fractions import Fraction
from math import isqrt
from operator import mul

import flint

from ..errors import NotStableError
from ..formats.limits import flint_threads
from .decay import (_dyadic_of, _integer_form, _renormalise, _top_bits, format_estimate, instability_reason,
                    rate_candidates, spectral_radius_enclosure)

__all__ = ["FactoredDecay", "decay_witness", "witness_margin", "AR_BITS"]

#: Bits kept in ``A / r`` and its powers by the Smith iteration, at least: ``T``'s rounding error is about
#: ``||P|| 2^-AR_BITS``, so more are used when ``P`` is large.
AR_BITS = 128
#: Bits below the binary point of ``P`` kept by the Smith iteration (its absolute precision).
P_ABSOLUTE_BITS = 40
#: Bits below the binary point of the fixed-point ``LDL^T`` tried, beyond the sizes of ``P``, of ``1/(lambda_min - mu)``
#: and of ``N^2``: the first that verifies is written (short numbers for the LaTeX of small systems; a system of
#: more than 16 states starts at the third).
LDL_GUARD_BITS = (8, 24, 48, 96)
#: Significant bits of mu and M as written, and of each weight of w.
BOUND_BITS = 24
WEIGHT_BITS = 16
#: Relative gaps below the least eigenvalue's estimate tried for mu.
_MU_GAPS = (Fraction(1, 2**16), Fraction(1, 2**8), Fraction(1, 2), Fraction(7, 8))

@dataclass(frozen=True)
class FactoredDecay:
    """``||L_d||_F^2 <= K2 r^(2d)`` for ``d >= 1``, with ``P = U^T diag(D) U + mu I`` and ``mu I < P <= M I``.

    ``U`` is a tuple of rows (unit upper triangular), ``D`` and ``weights`` tuples; all Fractions.
    """

    r: Fraction
    K2: Fraction
    U: tuple
    D: tuple
    mu: Fraction
    M: Fraction
    weights: tuple
    spectral_radius_upper: Fraction

    @property
    def spectral_radius_estimate(self):
        """The certified upper end of the spectral radius enclosure, as a float (informative)."""
        return float(self.spectral_radius_upper)


def _smith(A, r, ak_bits):
    """``(Z, e)`` with ``Z / 2^e`` close to ``P = sum_k (Ar^T)^k Ar^k``, ``Ar = A / r``; None if it diverges.

    The doubling ``P <- P + Ak^T P Ak``, ``Ak <- Ak^2`` on python-flint integers, each matrix rounded after
    each step (exact integer shifts) to ``ak_bits`` bits, ``P`` to at least ``P_ABSOLUTE_BITS`` below its binary
    point (a rounding error of P is amplified by the rest of the doubling about as much as P itself grows,
    so P keeps as many bits as ``A / r``).  It stops once the rest of the series, about ``||Ak||^2 ||P||``, is
    below ``2^-P_ABSOLUTE_BITS``, or exactly when a power of ``A / r`` is zero (A nilpotent).
    """
    N = len(A)
    Ak, ea = _dyadic_of(A, bits=ak_bits, scale=1 / r)
    P, ep = flint.fmpz_mat(N, N, [1 if i == j else 0 for i in range(N) for j in range(N)]), 0
    log_n = max(1, (N - 1).bit_length())
    top = _top_bits(Ak.entries())
    for _ in range(64):
        if top == 0:
            break  # Ak = 0: the series has ended
        term = Ak.transpose() * P * Ak  # scale 2^-(2 ea + ep)
        shift = 2 * ea
        if shift >= 0:
            P, ep = P * (1 << shift) + term, ep + shift
        else:
            P = P + term * (1 << -shift)
        entries = P.entries()
        ptop = _top_bits(entries)
        if ptop - ep > 4096:  # diverging: A / r is not stable
            return None
        P, ep, ptop = _renormalise(P, ep, max(ak_bits, ptop - ep + P_ABSOLUTE_BITS), ptop, entries)
        Ak, ea, top = _renormalise(Ak * Ak, 2 * ea, ak_bits)
        if top and 2 * (top - ea + log_n) + (ptop - ep) < -(P_ABSOLUTE_BITS + 8):
            break  # the rest of the series is below P's precision
    else:
        return None
    return P, ep


def _fixed(Z, e, W, shift_mu=None):
    """The symmetric part of ``Z / 2^e`` (minus ``mu I``) as rows of Python integers scaled by ``2^W``."""
    N = Z.nrows()
    rows = Z.tolist()
    shift = W - e - 1
    X = [[int(rows[i][j]) + int(rows[j][i]) for j in range(N)] for i in range(N)]
    if shift >= 0:
        X = [[v << shift for v in row] for row in X]
    else:
        half = 1 << (-shift - 1)
        X = [[(v + half) >> -shift for v in row] for row in X]
    if shift_mu is not None:
        m = (shift_mu.numerator << W) // shift_mu.denominator
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
    """An estimate of the least eigenvalue of ``L diag(d) L^T / 2^W`` by inverse iteration (fixed point)."""
    N = len(d)
    x = [1 << W] * N
    estimate = None
    for _ in range(steps):
        y = list(x)  # solve L y = x, then z = y / d, then L^T v = z
        for i in range(N):
            y[i] -= sum(map(mul, L[i][:i], y[:i])) >> W
        z = [(yi << W) // di for yi, di in zip(y, d)]
        v = list(z)
        for i in range(N - 1, -1, -1):
            v[i] -= sum(L[k][i] * v[k] for k in range(i + 1, N)) >> W
        big = max(map(abs, v))
        if big == 0:
            return None
        xx = sum(t * t for t in x)
        xv = sum(map(mul, x, v))
        if xv > 0:  # Rayleigh quotient of the inverse: x^T x / x^T P^-1 x >= lambda_min
            estimate = Fraction(xx, xv) if estimate is None else min(estimate, Fraction(xx, xv))
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


def _scaled(mat):
    """``(Z, den)``: a python-flint integer matrix with ``mat = Z / den`` (den the lcm of the denominators)."""
    return _integer_form(mat)


def _exact_P(U, D, mu):
    """``(zP, scale)`` with ``zP / scale = U^T diag(D) U + mu I`` exactly (python-flint integers)."""
    zU, u = _scaled(U)
    zD, delta = _scaled([list(D)])
    dvals = [int(x) for x in zD.entries()]
    N = zU.nrows()
    rows = zU.tolist()
    DU = flint.fmpz_mat(N, N, [dvals[i] * int(x) for i in range(N) for x in rows[i]])
    base = u * u * delta
    zP = (zU.transpose() * DU) * mu.denominator + flint.fmpz_mat(
        N, N, [mu.numerator * base if i == j else 0 for i in range(N) for j in range(N)])
    return zP, base * mu.denominator


def _margin(zP, scale, zA, a, r):
    """``min_i (T_ii - sum_{j != i} |T_ij|)`` for ``T = r^2 P - A^T P A`` (P = zP / scale, A = zA / a), exactly."""
    T = zP * (r.numerator * a) ** 2 - zA.transpose() * zP * zA * r.denominator ** 2  # (r_den a)^2 scale T
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
    A = [[Fraction(x) for x in row] for row in A]
    zP, scale = _exact_P(U, D, Fraction(mu))
    zA, a = _scaled(A)
    with flint_threads(flint):
        return _margin(zP, scale, zA, a, Fraction(r))


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


def _factors(X, W):
    """``(U, D)`` as Fractions from the fixed-point ``LDL^T`` of ``X / 2^W`` (None if a pivot fails)."""
    out = _ldl_fixed(X, W)
    if out is None:
        return None
    L, d = out
    N = len(d)
    scale = 1 << W
    U = tuple(tuple(Fraction(L[j][i], scale) if j >= i else Fraction(0) for j in range(N)) for i in range(N))
    return U, tuple(Fraction(x, scale) for x in d)


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
    zA, a = _scaled(A)
    frob = lambda X: sum((x * x for row in X for x in row), Fraction(0))  # noqa: E731
    for r in rate_candidates(lo, rho):
        if deadline is not None:
            deadline.check("searching for a decay certificate")
        found = _witness_at(A, zA, a, r, deadline)
        if found is not None:
            U, D, mu, M, weights = found
            K2 = frob(system.C) * frob(system.B) * M / mu
            return FactoredDecay(r=r, K2=K2, U=U, D=D, mu=mu, M=M, weights=weights, spectral_radius_upper=rho)
    raise NotStableError(
        f"no decay certificate found (spectral radius at most {format_estimate(rho)}); "
        "the system may be too ill-conditioned"
    )


def _witness_at(A, zA, a, r, deadline):
    """``(U, D, mu, M, w)`` for the rate ``r``, exactly verified; None if none was found."""
    found = _smith(A, r, AR_BITS)
    if found is None:
        return None
    Z, e = found
    size = max(0, _top_bits(Z.entries()) - e)  # bits of P above its binary point
    if size + 48 > AR_BITS:  # A / r was kept too coarsely for a P this large: again, with more bits
        found = _smith(A, r, size + 96)
        if found is None:
            return None
        Z, e = found
    N = len(A)
    base = size + 2 * max(1, (N - 1).bit_length())
    W = base + 40
    plain = _ldl_fixed(_fixed(Z, e, W), W)
    if plain is None:
        return None  # P is not positive definite to this precision
    lam = _least_eigenvalue(*plain, W)
    if lam is None or lam <= 0:
        return None
    guards = LDL_GUARD_BITS if N <= 16 else LDL_GUARD_BITS[2:]
    for gap in _MU_GAPS:
        mu = _short_below(lam * (1 - gap))
        if mu is None:
            continue
        gap_bits = max(0, gap.denominator.bit_length() - gap.numerator.bit_length())
        for guard in guards:
            if deadline is not None:
                deadline.check("factoring the Lyapunov matrix")
            W = base + gap_bits + guard
            factors = _factors(_fixed(Z, e, W, mu), W)
            if factors is None:
                continue  # P - mu I is not positive definite to this precision
            U, D = factors
            zP, scale = _exact_P(U, D, mu)
            if _margin(zP, scale, zA, a, r) > 0:
                M, weights = _upper_bound(zP, scale)
                return U, D, mu, M, weights
    return None
    for gap in _MU_GAPS:
        mu = _short_below(lam * (1 - gap))
        if mu is None:
            continue
        W_mu = W + max(0, -(gap.numerator.bit_length() - gap.denominator.bit_length()))
        for extra in (0, 32):
            if deadline is not None:
                deadline.check("factoring the Lyapunov matrix")
            factors = _factors(_fixed(Z, e, W_mu + extra, mu), W_mu + extra)
            if factors is None:
                break  # P - mu I is not positive definite: a smaller mu
            U, D = factors
            zP, scale = _exact_P(U, D, mu)
            if _margin(zP, scale, zA, a, r) > 0:
                M, weights = _upper_bound(zP, scale)
                return U, D, mu, M, weights
    return None
