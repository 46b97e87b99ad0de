"""Certified exponential decay of the lags of a stable SSM.

Find rational ``r in (0, 1)``, symmetric ``P`` and ``mu, M > 0`` with ``P - mu I``,
``M I - P`` and ``r^2 P - A^T P A`` positive definite.  Then ``||A^d x||_P <= r^d ||x||_P``
and, for every ``d >= 1``, ``||L_d||_F^2 <= K^2 r^(2d)`` with
``K^2 = ||C||_F^2 ||B||_F^2 M / mu``.

``P`` comes from a float Lyapunov solve for ``A / r``, is rounded to dyadic rationals and
then verified exactly; floats never reach the claim.

Examples
--------
>>> from symssm import ssm
>>> b = decay_bound(ssm([["1/2", 0], [0, "1/3"]], [[1], [1]], [[1, 1]]))
>>> b.r < 1, b.r >= b.spectral_radius_estimate
(True, True)
"""

from dataclasses import dataclass
from fractions import Fraction
from math import ceil

import numpy as np

from ..errors import NotStableError

__all__ = ["DecayBound", "decay_bound", "positive_definite", "spectral_radius_estimate", "instability_reason"]


@dataclass(frozen=True)
class DecayBound:
    """``||L_d||_F^2 <= K2 * r^(2d)`` for all ``d >= 1``, with its Lyapunov witness."""

    r: Fraction
    K2: Fraction
    P: tuple
    mu: Fraction
    M: Fraction
    spectral_radius_estimate: float


def positive_definite(S):
    """Exact test of strict positive definiteness: LDL^T pivots (no pivoting) all > 0.

    Examples
    --------
    >>> positive_definite([[Fraction(2), Fraction(1)], [Fraction(1), Fraction(2)]])
    True
    >>> positive_definite([[Fraction(1), Fraction(2)], [Fraction(2), Fraction(1)]])
    False
    """
    W = [list(row) for row in S]
    n = len(W)
    for j in range(n):
        piv = W[j][j]
        if piv <= 0:
            return False
        for i in range(j + 1, n):
            f = W[i][j] / piv
            if f:
                Wi, Wj = W[i], W[j]
                for l in range(j + 1, n):
                    Wi[l] -= f * Wj[l]
    return True


def _matmul(X, Y):
    cols = list(zip(*Y))
    return [[sum((a * b for a, b in zip(row, col)), Fraction(0)) for col in cols] for row in X]


def _float(mat):
    return np.array([[float(x) for x in row] for row in mat], dtype=np.float64)


def spectral_radius_estimate(system):
    """Numerical spectral radius of A (float64; an estimate, never a claim)."""
    A = _float(system.A)
    if not np.all(np.isfinite(A)):
        raise NotStableError("A has entries too large for a float estimate of its spectral radius")
    return float(max(abs(np.linalg.eigvals(A)))) if A.size else 0.0


def instability_reason(system, rho):
    """A one-line reason why no decay certificate exists, certified where possible."""
    import flint

    A = system.A
    N = system.N
    q = flint.fmpq_mat(N, N, [flint.fmpq(x.numerator, x.denominator) for row in A for x in row])
    poly = q.charpoly()
    # Exact rational eigenvalues (linear factors of the characteristic polynomial).
    num = flint.fmpq_poly(poly).numer()
    for fac, _mult in flint.fmpz_poly(num).factor()[1]:
        if fac.degree() == 1:
            c1, c0 = int(fac[1]), int(fac[0])
            lam = Fraction(-c0, c1)
            if abs(lam) >= 1:
                return f"A has the exact eigenvalue {lam} (|{lam}| >= 1), so its lags do not decay"
    det = Fraction(int(q.det().p), int(q.det().q))
    if abs(det) >= 1:
        return (f"|det A| = {abs(det)} >= 1, so some eigenvalue has modulus >= 1 (the product of their "
                f"moduli is |det A|) and the lags do not decay")
    return f"the spectral radius of A is about {rho:.6g} (numerical estimate) >= 1, so the lags do not decay"


def _smith_lyapunov(Ar):
    """P = sum_k (Ar^T)^k Ar^k by doubling, for spectral radius of Ar < 1."""
    N = Ar.shape[0]
    P = np.eye(N)
    Ak = Ar.copy()
    for _ in range(64):
        P = P + Ak.T @ P @ Ak
        Ak = Ak @ Ak
        if not np.all(np.isfinite(P)):
            return None
        if np.max(np.abs(Ak)) < 1e-18:
            break
    return (P + P.T) / 2


def _dyadic(P, bits=40):
    top = float(np.max(np.abs(P)))
    if top == 0 or not np.isfinite(top):
        return None
    exp = bits - int(np.ceil(np.log2(top)))
    scale = Fraction(2) ** exp
    rows = [[Fraction(int(round(x * 2.0**exp))) / scale for x in row] for row in P]
    n = len(rows)
    return [[(rows[i][j] + rows[j][i]) / 2 for j in range(n)] for i in range(n)]


def _frob2(mat):
    return sum((x * x for row in mat for x in row), Fraction(0))


def _rational_above(x, den=1000):
    return Fraction(ceil(x * den), den)


def _rational_below(x, den=10**6):
    return Fraction(int(np.floor(x * den)), den)


def decay_bound(system, *, deadline=None):
    """Find and exactly verify a decay certificate, aiming for ``r`` near the spectral radius.

    Raises
    ------
    NotStableError
        If the spectral radius is >= 1 (no decay certificate exists), or none was found.
    """
    rho = spectral_radius_estimate(system)
    if rho >= 1 - 1e-12:
        raise NotStableError(instability_reason(system, rho))
    A = system.A
    N = system.N
    At = [list(col) for col in zip(*A)]
    Af = _float(A)
    for eps in (0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75):
        if deadline is not None:
            deadline.check("searching for a decay certificate")
        target = max(rho * (1 + eps), rho + (1 - rho) * eps / 2, 0.05)
        r = _rational_above(min(target, rho + (1 - rho) * 0.9))
        if not (0 < r < 1) or float(r) <= rho:
            continue
        Pf = _smith_lyapunov(Af / float(r))
        if Pf is None:
            continue
        P = _dyadic(Pf)
        if P is None:
            continue
        AtPA = _matmul(_matmul(At, P), [list(row) for row in A])
        S = [[r * r * P[i][j] - AtPA[i][j] for j in range(N)] for i in range(N)]
        if not positive_definite(S):
            continue
        eig = np.linalg.eigvalsh(_float(P))
        mu = _rational_below(float(eig[0]) * (1 - 1e-6), den=2**40)
        M = _rational_above(float(eig[-1]) * (1 + 1e-6) + 1e-12, den=2**20)
        if mu <= 0:
            continue
        lower = [[P[i][j] - (mu if i == j else 0) for j in range(N)] for i in range(N)]
        upper = [[(M if i == j else 0) - P[i][j] for j in range(N)] for i in range(N)]
        if not (positive_definite(lower) and positive_definite(upper)):
            continue
        K2 = _frob2(system.C) * _frob2(system.B) * M / mu
        return DecayBound(r=r, K2=K2, P=tuple(tuple(row) for row in P), mu=mu, M=M, spectral_radius_estimate=rho)
    raise NotStableError(
        f"no decay certificate found (spectral radius about {rho:.6g}); the system may be too ill-conditioned"
    )
