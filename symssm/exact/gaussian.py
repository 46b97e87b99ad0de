"""Exact head counts of complex SSMs over Q(i): lags, the greedy elimination and its witness.

One pass of elimination over the field Q(i), lag by lag in order, gives everything at once: lag d is
a witness lag when it is independent of the witness lags before it (its reduced row is nonzero, and
its first nonzero entry is its position); otherwise the elimination has written it as a combination
of the witness lags before it (its coefficients).  Every leading principal minor of the witness minor
is then nonzero.

Examples
--------
>>> from symssm.sources.complex_system import complex_ssm
>>> w = gaussian_witness(complex_ssm([["1/2i", 0], [0, "-1/2i"]], [[1], [1]], [[1, 0], [0, 1]]))
>>> w["lags"], w["positions"]
([0, 1], [(0, 0), (1, 0)])
"""

from fractions import Fraction
from math import lcm

from ..formats.gaussian import Gaussian

__all__ = ["gaussian_lags", "gaussian_lags_pure", "gaussian_witness", "gaussian_modular_witness", "sqrt_minus_one",
           "gaussian_residue_codes", "witness_lags", "MAX_EXACT_N"]

#: Largest N of the exact elimination over Q(i); larger systems take a modular witness.
MAX_EXACT_N = 64

_ZERO = Gaussian(0)


def _mul(X, Y):
    cols = list(zip(*Y))
    return [[sum((a * b for a, b in zip(row, col)), _ZERO) for col in cols] for row in X]


def _split(M):
    """python-flint integer matrices of the real and imaginary parts over one common denominator."""
    import flint

    den = 1
    for row in M:
        for z in row:
            den = lcm(den, z.re.denominator, z.im.denominator)
    return (flint.fmpz_mat([[int(z.re * den) for z in row] for row in M]),
            flint.fmpz_mat([[int(z.im * den) for z in row] for row in M]), den)


def gaussian_lags(system, count):
    """``L_0 .. L_{count-1}`` over Q(i) (lists of lists of Gaussian).

    The products run on python-flint integer matrices of the real and imaginary parts (one common
    denominator each): 64 lags of a 64-state system take milliseconds instead of seconds.

    Parameters
    ----------
    system : ComplexSSM
        A system over Q(i).
    count : int
        How many lags.

    Returns
    -------
    list
        The lags, each a list of rows of Gaussian rationals.
    """
    if count == 0:
        return []
    Ar, Ai, a = _split(system.A)
    Xr, Xi, scale = _split(system.B)
    Cr, Ci, c = _split(system.C)
    out = []
    for d in range(count):
        Lr, Li, s = Cr * Xr - Ci * Xi, Cr * Xi + Ci * Xr, c * scale
        L = [[Gaussian(Fraction(int(Lr[i, j]), s), Fraction(int(Li[i, j]), s)) for j in range(Lr.ncols())]
             for i in range(Lr.nrows())]
        if d == 0 and system.D is not None:
            L = [[x + y for x, y in zip(r1, r2)] for r1, r2 in zip(L, system.D)]
        out.append(L)
        if d + 1 < count:
            Xr, Xi, scale = Ar * Xr - Ai * Xi, Ar * Xi + Ai * Xr, scale * a
    return out


def gaussian_lags_pure(system, count):
    """The same lags with symssm's own Gaussian arithmetic (the reference the fast path is tested against).

    Parameters
    ----------
    system : ComplexSSM
        A system over Q(i).
    count : int
        How many lags.

    Returns
    -------
    list
    """
    X = [list(row) for row in system.B]
    out = []
    for d in range(count):
        L = _mul(system.C, X)
        if d == 0 and system.D is not None:
            L = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(L, system.D)]
        out.append(L)
        if d + 1 < count:
            X = _mul(system.A, X)
    return out


def gaussian_witness(system):
    """The witness of the head-count profile over Q(i): lags, positions, coefficients, minor, determinant.

    Parameters
    ----------
    system : ComplexSSM
        A system over Q(i).

    Returns
    -------
    dict
        ``lags``, ``positions``, ``coefficients``, ``minor``, ``determinant`` and ``value_maps``.
    """
    T = system.truncation
    lags = gaussian_lags(system, T)
    rows = [[x for row in L for x in row] for L in lags]
    width = len(rows[0])
    pivots, positions, reduced, combos = [], [], [], []  # reduced pivot rows and their combinations
    coefficients = {}
    for d, row in enumerate(rows):
        r = list(row)
        combo = [_ZERO] * len(pivots)  # row = sum combo_s * original pivot row s + r
        for s, (t, u, cu) in enumerate(zip(positions, reduced, combos)):
            f = r[t]
            if f:
                r = [a - f * b for a, b in zip(r, u)]
                combo = [c + f * e for c, e in zip(combo, cu)]
        nz = next((t for t in range(width) if r[t]), None)
        if nz is None:
            coefficients[d] = tuple(combo)
            continue
        inv = Gaussian(1) / r[nz]
        u = [x * inv for x in r]
        cu = [-(c * inv) for c in combo] + [inv]  # u = (row - sum combo_s pivot_s) * inv
        for s in range(len(reduced)):  # keep earlier reduced rows zero at the new position
            f = reduced[s][nz]
            if f:
                reduced[s] = [a - f * b for a, b in zip(reduced[s], u)]
                combos[s] = [a - f * b for a, b in zip(combos[s] + [_ZERO], cu)]
        combos = [c + [_ZERO] * (len(cu) - len(c)) for c in combos]
        pivots.append(d)
        positions.append(nz)
        reduced.append(u)
        combos.append(cu)
    m = system.m
    minor = [[rows[d][t] for t in positions] for d in pivots]
    det = Gaussian(1)
    work = [list(r) for r in minor]
    for j in range(len(work)):  # elimination without pivoting: the leading minors are the pivot products
        det = det * work[j][j]
        for i in range(j + 1, len(work)):
            f = work[i][j] / work[j][j]
            work[i] = [a - f * b for a, b in zip(work[i], work[j])]
    return {"lags": pivots, "positions": [divmod(t, m) for t in positions], "coefficients": coefficients,
            "minor": minor, "determinant": det, "value_maps": [lags[d] for d in pivots]}


# ---------------------------------------------------------------- modular witnesses over Q(i)

#: Primes tried for a modular witness before giving up (an unlucky prime drops the rank).
_MODULAR_TRIES = 6


def sqrt_minus_one(prime):
    """The least ``j`` in ``[1, P)`` with ``j^2 = -1 mod P``, for a prime ``P = 1 mod 4``.

    Parameters
    ----------
    prime : int
        A prime congruent to 1 mod 4.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``prime`` is not such a prime.

    Examples
    --------
    >>> sqrt_minus_one(13), 5 * 5 % 13
    (5, 12)
    """
    for g in range(2, prime):
        j = pow(g, (prime - 1) // 4, prime)
        if j * j % prime == prime - 1:
            return min(j, prime - j)
    raise ValueError(f"{prime} is not a prime congruent to 1 mod 4")  # pragma: no cover - callers pass such primes


def _gaussian_residue(z, prime, j):
    red = lambda x: x.numerator * pow(x.denominator, -1, prime) % prime  # noqa: E731
    return (red(z.re) + j * red(z.im)) % prime


def gaussian_residue_codes(values, codes, prime, j):
    """A matrix of Gaussian rationals under ``a + b i -> a + b j mod P``, as a float64 array (a ring map on Z[1/d][i]
    when P divides no denominator and ``j^2 = -1 mod P``), from its distinct values and entry codes
    (``StateSpaceForm.entry_codes``): each distinct value is reduced once.

    Parameters
    ----------
    values : sequence
        The matrix's distinct Gaussian values.
    codes : numpy.ndarray
        Each entry's index into ``values``.
    prime : int
        The modulus.
    j : int
        A square root of -1 modulo ``prime``.

    Returns
    -------
    numpy.ndarray
        float64 residues in ``[0, P)``.
    """
    import numpy as np

    return np.array([_gaussian_residue(z, prime, j) for z in values], dtype=np.float64)[codes]


def _denominators(system):
    names = ("A", "B", "C") + (("D",) if system.D is not None else ())
    return {x.denominator for name in names for z in system.entry_codes(name)[0] for x in (z.re, z.im)}


def gaussian_modular_witness(system):
    """A modular witness of the head count over Q(i), or None when the proof needs exact coefficients.

    For primes ``P = 1 mod 4`` (below the float64 product limit) that divide no denominator, the
    system is mapped to GF(P) with ``i -> j``, ``j^2 = -1``; the lags mod P, their row rank profile and
    pivot positions give a minor whose determinant is nonzero mod P, hence over Q(i).  That proves the
    head count by itself when the witness lags are ``0, 1, ..., K-1`` with ``K = pm`` (every lag after
    them is covered by the dimension argument); otherwise None (the exact method lists coefficients).

    Parameters
    ----------
    system : ComplexSSM
        A system over Q(i).

    Returns
    -------
    dict or None
        ``prime``, ``i_mod_p``, ``lags``, ``positions`` ((row, column) pairs), ``determinant_mod_p``.
    """
    from .modfloat import FLOAT_PRIME_LIMIT, greedy_profile, lags_mod
    from .primes import witness_primes

    T, pm = system.truncation, system.p * system.m
    if min(T, pm) < pm:
        return None  # fewer lags than pm: the dimension argument cannot cover them
    dens = _denominators(system)
    tries = 0
    for prime in witness_primes(FLOAT_PRIME_LIMIT):
        if prime % 4 != 1 or any(d % prime == 0 for d in dens):
            continue
        tries += 1
        if tries > _MODULAR_TRIES:
            return None
        j = sqrt_minus_one(prime)
        res = lambda name: gaussian_residue_codes(*system.entry_codes(name), prime, j)
        stack = lags_mod(res("A"), res("B"), res("C"), res("D") if system.D is not None else None, pm, prime)
        pivots, positions, det = greedy_profile(stack, prime)
        if pivots != list(range(pm)):
            continue  # an unlucky prime, or a profile with gaps that needs exact coefficients
        return {"prime": prime, "i_mod_p": j, "lags": pivots, "positions": [divmod(t, system.m) for t in positions],
                "determinant_mod_p": det}
    return None  # pragma: no cover - the prime list is long


def witness_lags(system, method="auto"):
    """The witness lags of a complex system's head-count profile, as ``symssm certify`` finds them.

    ``k(n)`` is the number of witness lags below ``n``.  ``"exact"``: elimination over Q(i)
    (``N <= 64``); ``"modular"``: a witness modulo a prime ``P = 1 mod 4``, which exists when the
    first ``p m`` lags are independent; ``"auto"``: exact up to ``N = 64``, modular above (and
    exact where no modular witness exists, within the exact limit).

    Parameters
    ----------
    system : ComplexSSM
    method : {"auto", "exact", "modular"}

    Returns
    -------
    tuple of int

    Raises
    ------
    InputError
        If ``method`` is ``"modular"`` and no modular witness exists.
    LimitError
        If ``N > 64`` and no modular witness exists, or ``method`` is ``"exact"`` with ``N > 64``.

    Examples
    --------
    >>> from symssm.sources.complex_system import complex_ssm
    >>> witness_lags(complex_ssm([["i", 0], [0, "-i"]], [[1], [1]], [[1, 0], [0, 1]]))
    (0, 1)
    """
    w = modular_witness_or_none(system, method)
    return tuple((w if w is not None else gaussian_witness(system))["lags"])


def modular_witness_or_none(system, method="auto"):
    """The modular witness ``method`` takes for a complex system, or None where the exact route is to be taken.

    The one place the exact-or-modular choice of complex head counts is made (:func:`witness_lags` and the
    certificate builder): ``"modular"``, or ``"auto"`` above ``N = 64``, takes a witness modulo a prime if the
    first ``p m`` lags give one; otherwise the exact route, within its limit.

    Raises
    ------
    LimitError
        If the exact route is needed and ``N`` is over its limit.
    InputError
        If ``method`` is ``"modular"`` and no modular witness exists.
    """
    from ..errors import InputError, LimitError

    if method == "modular" or (method == "auto" and system.N > MAX_EXACT_N):
        w = gaussian_modular_witness(system)
        if w is not None:
            return w
        if system.N > MAX_EXACT_N:
            raise LimitError(f"this complex system (N = {system.N}) has no modular witness: its first p*m = "
                             f"{system.p * system.m} lags are not independent, so its proof needs exact coefficients "
                             f"over Q(i), which symssm computes up to N = {MAX_EXACT_N}")
        if method == "modular":
            raise InputError("this complex system has no modular witness (its first p*m lags are not independent); "
                             "use method 'exact'")
    if system.N > MAX_EXACT_N:
        raise LimitError(f"exact elimination over Q(i) is limited to N = {MAX_EXACT_N}; got N = {system.N} "
                         "(method 'modular' or 'auto')")
    return None
