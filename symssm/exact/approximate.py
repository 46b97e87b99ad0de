"""Certified eps-head counts: rigorous brackets on the best H-head relative error of the length-n operator.

The numeric path's error (docs/numeric.md) is ``e_H = sqrt(S_H / tr G)``, where ``G`` is the Gram
matrix ``sum_{d<n} (n - d) vec(L_d) vec(L_d)^T`` (p m x p m) and ``S_H`` the sum of its eigenvalues
after the ``H`` largest (Eckart-Young on the lag matrix with rows weighted by ``sqrt(n - d)``).
Here ``G`` is formed exactly (an integer multiple of it, which changes no ratio), mpmath's
high-precision eigenvectors only *find* the witnesses (in pure Python, so the bytes are the same on
every machine), and every bound is proven by exact arithmetic the checker repeats:

- upper: an integer basis ``V`` of an H-dimensional subspace (rounded eigenvectors) gives
  ``S_H <= tr G - tr((V^T V)^{-1} V^T G V)`` (Ky Fan: no H-dimensional projection captures more than
  the top H eigenvalues);
- lower: rationals ``zeta`` and ``gamma_i >= 0`` and an integer ``R`` with
  ``M = zeta tr(G) I + R diag(gamma tr(G)) R^T - G`` positive definite give, for the top-H sum,
  ``lambda_1 + ... + lambda_H <= H zeta tr G + tr(R diag(gamma tr G) R^T)`` (Weyl, then trace), hence
  ``S_H / tr G >= 1 - H zeta - sum_i gamma_i |r_i|^2``.

Examples
--------
>>> from symssm.sources.system import ssm
>>> G, tr = gram_matrix(ssm([["1/2"]], [[1]], [[1]]), 3)
>>> G, tr  # 16 * (3 + 2/4 + 1/16)
([[57]], 57)
"""

import math
from fractions import Fraction

from ..errors import LimitError
from ..formats.limits import check_n
from ..formats.rationals import parse_tolerance
from .lags import lag_bit_bound, scaled_lag_stack

__all__ = ["gram_matrix", "error_brackets", "gram_brackets", "gram_of_rows", "sqrt_bounds", "summed_lags",
           "truncated_gram", "sqrt_up", "dyadic_below", "widening", "widened_errors", "MAX_APPROX_N", "MAX_GRAM_WORK", "MAX_APPROX_DIM"]

#: Longest sequence whose Gram matrix is summed exactly.
MAX_APPROX_N = 4096
#: Most multiply-adds to form the Gram matrix (n (p m)^2), both sides.
MAX_GRAM_WORK = 20_000_000
#: Largest p m (the Gram matrix's size), both sides.
MAX_APPROX_DIM = 64
#: Most word operations of the definiteness tests (:func:`definite_work`, the checker's measure; both sides).
MAX_DEFINITE_WORK = 300_000_000


def definite_work(brackets, pm, trace):
    """The checker's cost measure of ``brackets`` definiteness tests of a ``pm x pm`` Gram matrix of trace
    ``trace`` (checker/approximate.py states the same formula): ``brackets 2 pm^3 x^1.5``, ``x = pm words(tr)``."""
    from math import isqrt

    grown = pm * (1 + trace.bit_length() // 64)
    return brackets * 2 * pm ** 3 * grown * isqrt(grown)
#: Largest p m whose witnesses come from 60-digit eigenvectors (30 digits beyond: the cost grows as (p m)^3).
MP_MAX_DIM = 24
#: The lags' entries may have at most this many bits (as for exact head counts).
MAX_BITS = 33_220


def gram_matrix(system, n):
    """``(G, tr G)``: an integer multiple of ``sum_{d<n} (n - d) vec(L_d) vec(L_d)^T`` and its trace.

    Parameters
    ----------
    system : SSM
        A real system with rational entries.
    n : int
        The sequence length.

    Returns
    -------
    tuple
        ``(G, tr)``: the integer Gram matrix (a list of rows) and its trace.

    Raises
    ------
    LimitError
        If ``n``, ``p m`` or the work exceeds the limits shared with the checker.

    Examples
    --------
    >>> from symssm.sources.system import ssm
    >>> gram_matrix(ssm([["1/2"]], [[1]], [[1]]), 3)  # 3 (1)^2 + 2 (1/2)^2 + 1 (1/4)^2, times 16
    ([[57]], 57)
    """
    n = check_n(n, maximum=MAX_APPROX_N)
    pm = system.p * system.m
    if pm > MAX_APPROX_DIM:
        raise LimitError(f"certified eps-head counts are made for p*m <= {MAX_APPROX_DIM}, got {pm}")
    if n * pm * pm > MAX_GRAM_WORK:
        raise LimitError(f"forming the Gram matrix takes n (p m)^2 = {n * pm * pm} multiply-adds; the limit is "
                         f"{MAX_GRAM_WORK} (a shorter n)")
    if n and lag_bit_bound(system, n - 1) > MAX_BITS:
        raise LimitError(f"the exact lags up to L_{n - 1} may need more than {MAX_BITS} bits per entry; certified "
                         "eps-head counts sum them exactly (a shorter n, or smaller denominators)")
    G, tr, _ = truncated_gram(system, n, n)
    return G, tr


def summed_lags(system, n):
    """How many lags (at most n) are summed exactly within the limits: the n0 of a certificate with a tail (0 if
    even L_0 is beyond them).

    Parameters
    ----------
    system : SSM
        A real system.
    n : int
        The sequence length.

    Returns
    -------
    int
        ``n0``, at most ``n``.
    """
    pm = system.p * system.m
    hi = min(n, MAX_APPROX_N, MAX_GRAM_WORK // (pm * pm))
    lo = 0
    while lo < hi:  # the largest count whose lags fit in MAX_BITS (the bound grows with d)
        mid = (lo + hi + 1) // 2
        if lag_bit_bound(system, mid - 1) <= MAX_BITS:
            lo = mid
        else:
            hi = mid - 1
    return lo


def truncated_gram(system, n, n0):
    """``(G, tr G, S2)`` with ``G = S2 sum_{d<n0} (n - d) vec(L_d) vec(L_d)^T`` an integer matrix (S2 a square).

    Parameters
    ----------
    system : SSM
        A real system.
    n : int
        The sequence length (the weights ``n - d``).
    n0 : int
        The lags summed.

    Returns
    -------
    tuple
        ``(G, tr G, S2)``.
    """
    pm = system.p * system.m
    stack = scaled_lag_stack(system, n0)
    S = 1
    for s in stack.scales:
        S = math.lcm(S, s)
    weights = [(n - d) * (S // s) ** 2 for d, s in enumerate(stack.scales)]
    G, tr = gram_of_rows(stack.rows, weights, pm)
    return G, tr, S * S


def sqrt_up(x):
    """A short dyadic at least ``sqrt(x)`` (x >= 0 rational).

    Parameters
    ----------
    x : Fraction
        A rational, at least 0.

    Returns
    -------
    Fraction
    """
    x = Fraction(x)
    if x <= 0:
        return Fraction(0)
    bits = max(64, 64 - (x.numerator.bit_length() - x.denominator.bit_length()) // 2)
    scale = 4 ** bits
    s = math.isqrt(-((-x.numerator * scale) // x.denominator))
    return _dyadic(Fraction(s + 1, 2 ** bits), 64)


def dyadic_below(x, bits=64):
    """A short dyadic at most the rational x >= 0 (``bits`` significant bits).

    Parameters
    ----------
    x : Fraction
        A rational, at least 0.
    bits : int
        Significant bits.

    Returns
    -------
    Fraction
    """
    return _dyadic(x, bits, up=False)


def widening(t):
    """The brackets of an operator within relative distance t of one whose brackets are known:
    ``(H, lower, upper) -> ((lower - t)/(1 + t), (upper + t)/(1 - t))`` clipped to [0, 1]; ``e_0 = 1``.

    Parameters
    ----------
    t : Fraction
        The relative distance, in [0, 1).

    Returns
    -------
    callable
        ``widen(H, lower, upper) -> (lower', upper')``.
    """
    def widen(H, lo, hi):
        if H == 0:
            return Fraction(1), Fraction(1)
        return max(Fraction(0), (lo - t) / (1 + t)), min(Fraction(1), (hi + t) / (1 - t))
    return widen


def widened_errors(errors, t):
    """The widened brackets as short dyadics rounded outward: ``[{"H", "lower", "upper"}]``.

    Parameters
    ----------
    errors : list of dict
        Brackets ``{"H", "lower", "upper"}`` (Fractions).
    t : Fraction
        The relative distance.

    Returns
    -------
    list of dict
    """
    widen = widening(t)
    out = []
    for e in errors:
        lo, hi = widen(e["H"], e["lower"], e["upper"])
        out.append({"H": e["H"], "lower": dyadic_below(lo), "upper": min(_dyadic(hi, 64), Fraction(1))})
    return out


def gram_of_rows(rows, weights, pm):
    """``(G, tr G)`` with ``G = sum_d weights[d] rows[d] rows[d]^T`` for integer rows of length pm (exact).

    Parameters
    ----------
    rows : sequence of sequence of int
        Integer rows of length ``pm``.
    weights : sequence of int
        One weight per row.
    pm : int
        The rows' length.

    Returns
    -------
    tuple
        ``(G, tr G)``.
    """
    n = len(rows)
    try:
        import flint

        Y = flint.fmpz_mat(n, pm, [v for row in rows for v in row]) if n else None
        Yw = flint.fmpz_mat(n, pm, [v * w for row, w in zip(rows, weights) for v in row]) if n else None
        G = [[int(x) for x in row] for row in (Y.transpose() * Yw).tolist()] if n else [[0] * pm for _ in range(pm)]
    except ImportError:  # pragma: no cover - python-flint is a dependency
        G = [[sum(w * r[i] * r[j] for r, w in zip(rows, weights)) for j in range(pm)] for i in range(pm)]
    return G, sum(G[i][i] for i in range(pm))


def _eigh_mp(G, tr, dps):
    """Eigenvalues (descending) and eigenvectors of ``G / tr G`` at ``dps`` decimal digits, as Fractions.

    mpmath, in pure Python: the witnesses (hence the certificate's bytes) are the same on every
    machine, which float64 LAPACK kernels would not guarantee. They only guide: every bound is then
    proven exactly.
    """
    import mpmath

    with mpmath.workdps(dps):
        M = mpmath.matrix([[mpmath.mpf(x) / tr for x in row] for row in G])
        lam, Q = mpmath.eigsy(M)
        order = sorted(range(len(G)), key=lambda i: -lam[i])
        frac = lambda v: Fraction(int(mpmath.nint(v * mpmath.mpf(2) ** 200)), 2 ** 200)  # noqa: E731
        return [frac(lam[i]) for i in order], [[frac(Q[r, i]) for i in order] for r in range(len(G))]


def _dyadic(x, bits=96, *, up=True):
    """A short dyadic rational at least (``up``) or at most the rational ``x`` (x >= 0), ``bits`` significant bits."""
    x = Fraction(x)
    if x <= 0:
        return Fraction(0)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    scale = Fraction(2) ** (bits - e)
    return Fraction((math.ceil if up else math.floor)(x * scale)) / scale


def _positive_definite(M):
    """Whether the symmetric integer matrix M is positive definite: its characteristic polynomial's
    coefficients strictly alternate in sign (all its eigenvalues, which are real, are positive)."""
    import flint

    coeffs = flint.fmpz_mat(M).charpoly().coeffs()[::-1]
    return all(c != 0 and ((c > 0) == (k % 2 == 0)) for k, c in enumerate(coeffs))


def _likely_definite(G, tr, zeta, gammas, R, dps=50):
    """A 50-digit Cholesky of ``M / (q tr)``: cheap screening, so the exact test runs about once per H."""
    import mpmath

    pm, H = len(G), len(gammas)
    with mpmath.workdps(dps):
        z = mpmath.mpf(zeta.numerator) / zeta.denominator
        g = [mpmath.mpf(x.numerator) / x.denominator for x in gammas]
        t = mpmath.mpf(tr)
        M = mpmath.matrix(pm, pm)
        for i in range(pm):
            for j in range(i, pm):
                v = (z if i == j else 0) + sum(g[h] * R[i][h] * R[j][h] for h in range(H)) - mpmath.mpf(G[i][j]) / t
                M[i, j] = M[j, i] = v
        try:
            mpmath.cholesky(M)
        except ZeroDivisionError:
            return False
        except ValueError:
            return False
    return True


def _upper(G, tr, V):
    """Exact ``S / tr`` for the subspace spanned by the columns of the integer matrix V (pm x H)."""
    H = len(V[0]) if V and V[0] else 0
    if H == 0:
        return Fraction(1)
    import flint

    Vm = flint.fmpq_mat(flint.fmpz_mat(V))
    Gm = flint.fmpq_mat(flint.fmpz_mat(G))
    gram = Vm.transpose() * Vm
    inner = Vm.transpose() * Gm * Vm
    captured = (gram.inv() * inner)
    total = sum((captured[i, i] for i in range(H)), flint.fmpq(0))
    rest = Fraction(tr) - Fraction(int(total.p), int(total.q))
    return rest / tr


def _lower_matrix(G, tr, zeta, gammas, R):
    """The integer matrix ``q M`` (q clears zeta's and gamma's denominators) whose definiteness is the proof."""
    pm = len(G)
    q = 1
    for x in [zeta] + list(gammas):
        q = math.lcm(q, x.denominator)
    z = int(zeta * q) * tr
    g = [int(x * q) * tr for x in gammas]
    H = len(gammas)
    return [[(z if i == j else 0) + sum(g[h] * R[i][h] * R[j][h] for h in range(H)) - q * G[i][j]
             for j in range(pm)] for i in range(pm)]


def _basis(Q, H, bits):
    return [[round(Q[i][h] * 2 ** bits) for h in range(H)] for i in range(len(Q))]


def _lower(G, tr, lam, Q, H, margins, bits):
    """(zeta, gammas, R, S/tr lower bound) or None when no margin tried makes M positive definite."""
    pm = len(G)
    R = _basis(Q, H, bits)
    norms = [sum(R[i][h] ** 2 for i in range(pm)) for h in range(H)]
    nxt = max(lam[H], Fraction(0)) if H < pm else Fraction(0)
    for margin in margins:
        zeta = _dyadic(nxt + margin)
        gammas = [_dyadic((max(lam[h] - nxt, Fraction(0)) + margin) / norms[h]) if norms[h] else Fraction(0)
                  for h in range(H)]  # dyadic: q M stays small, so its definiteness test is cheap
        if _likely_definite(G, tr, zeta, gammas, R) and _positive_definite(_lower_matrix(G, tr, zeta, gammas, R)):
            bound = 1 - H * zeta - sum((gm * nm for gm, nm in zip(gammas, norms)), Fraction(0))
            return zeta, gammas, R, bound
    return None


def sqrt_bounds(x, bits=64):
    """Rationals ``lo <= sqrt(x) <= hi`` (x >= 0 rational), dyadic with ``bits`` fractional bits.

    Parameters
    ----------
    x : Fraction
        A rational, at least 0.
    bits : int
        Fractional bits of the bounds.

    Returns
    -------
    tuple of Fraction
        ``(lo, hi)``.
    """
    x = Fraction(x)
    if x <= 0:
        return Fraction(0), Fraction(0)
    scale = 4 ** bits
    lo = math.isqrt(x.numerator * scale // x.denominator)
    hi_sq = -((-x.numerator * scale) // x.denominator)
    hi = math.isqrt(hi_sq)
    if hi * hi < hi_sq:
        hi += 1
    return Fraction(lo, 2 ** bits), Fraction(hi, 2 ** bits)


def error_brackets(system, n, tolerance, *, extra=0):
    """Certified brackets ``[lower_H, upper_H]`` on ``e_H`` and the eps-head count they prove.

    Returns a dict: ``trace`` (of the integer Gram matrix), ``errors`` (a list of dicts for
    H = 0, 1, ..., each with the witnesses), ``head_count`` (``k_eps`` or None when a bracket
    straddles the tolerance) and ``undecided`` (the H whose bracket straddles it, or None).

    Parameters
    ----------
    system : SSM
        A real system with rational entries.
    n : int
        The sequence length.
    tolerance : Tolerance, Fraction or str
        The relative error, exact, in (0, 1).
    extra : int
        Not used (accepted for compatibility).

    Returns
    -------
    dict
        ``trace``, ``errors``, ``head_count`` and ``undecided`` (see above).

    Raises
    ------
    InputError
        If the tolerance is not a rational in (0, 1).
    FloatInExactPathError
        If the tolerance is a binary float (``error_brackets(s, 8, 0.001)``): exact code takes it exactly.
    LimitError
        As :func:`gram_matrix`.
    """
    tolerance = parse_tolerance(tolerance, floats=False)  # a binary float is refused, never converted
    G, tr = gram_matrix(system, n)
    return gram_brackets(G, tr, tolerance)


def gram_brackets(G, tr, tolerance, widen=None):
    """Brackets on ``e_H`` for the integer Gram matrix ``G`` of trace ``tr`` (see :func:`error_brackets`).

    ``widen(H, lower, upper) -> (lower', upper')`` (default: the identity) turns a bracket into the one
    the stop rule and the claim use: the brackets stop at the first H whose widened upper bound is within
    the tolerance. When none is, ``head_count`` and ``undecided`` are both None.

    Parameters
    ----------
    G : list of list of int
        The integer Gram matrix.
    tr : int
        Its trace.
    tolerance : Fraction
        The relative error, exact.
    widen : callable, optional
        ``widen(H, lower, upper) -> (lower', upper')``.

    Returns
    -------
    dict
        ``trace``, ``errors`` (each bracket with its witnesses), ``head_count`` and ``undecided``.

    Raises
    ------
    LimitError
        If the definiteness tests would exceed the checker's work limit.
    """
    widen = widen or (lambda H, lo, hi: (lo, hi))
    pm = len(G)
    if tr == 0:
        return {"trace": 0, "errors": [], "head_count": 0, "undecided": None}
    dps, bits = (60, 120) if pm <= MP_MAX_DIM else (30, 80)
    lam, Q = _eigh_mp(G, tr, dps)
    margins = [Fraction(1, 10 ** k) for k in range(dps * 2 // 3, 2, -3)]
    errors, head_count, undecided = [], None, None
    from ..formats.progress import report

    for H in range(pm + 1):
        report(H, pm + 1, f"bracket on e_{H}")
        work = definite_work(H + 1, pm, tr)
        if work > MAX_DEFINITE_WORK:
            raise LimitError(f"certifying {H + 1} brackets of a {pm} x {pm} Gram matrix of {tr.bit_length()}-bit entries "
                             f"costs {work} word operations, beyond the checker's limit {MAX_DEFINITE_WORK} (a shorter n, "
                             "or a larger tolerance)")
        if H == 0:
            errors.append({"H": 0, "lower": Fraction(1), "upper": Fraction(1)})
        else:
            V = _basis(Q, H, bits)
            up_sq = _upper(G, tr, V)
            low = _lower(G, tr, lam, Q, H, margins, bits)
            if low is not None and low[3] <= 0:
                low = None  # a witness that proves nothing is not written
            lo = sqrt_bounds(max(low[3], Fraction(0)))[0] if low else Fraction(0)
            hi = sqrt_bounds(max(up_sq, Fraction(0)))[1]
            item = {"H": H, "lower": lo, "upper": hi, "basis": V}
            if low:
                item.update(zeta=low[0], gammas=low[1], factor=low[2])
            errors.append(item)
        cur = widen(H, errors[-1]["lower"], errors[-1]["upper"])
        if cur[1] <= tolerance:
            prev = widen(H - 1, errors[-2]["lower"], errors[-2]["upper"]) if H else None
            if prev is None or prev[0] > tolerance:
                head_count = H
            else:
                undecided = H - 1
            break
    return {"trace": tr, "errors": errors, "head_count": head_count, "undecided": undecided}
