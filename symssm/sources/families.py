"""Built-in SSM families, each an exact discrete-time system.

Conventions shared by every family (see docs/families.md):

* discrete time, ``h_i = A h_{i-1} + B x_i``, ``y_i = C h_i`` (no D), indices from 0;
* unless a family says otherwise, ``B``'s columns are the unit vectors ``e_0, ..., e_{m-1}``
  and ``C``'s rows are ``e_{N-p}^T, ..., e_{N-1}^T`` (the last p coordinates);
* continuous-time families (HiPPO-LegS, HiPPO-LegT, S4D-Real) are given in an exactly
  rational similarity form and discretised with the bilinear (Tustin) rule at a rational
  step ``Delta`` (default 1/10): ``Abar = (I - Delta/2 A)^-1 (I + Delta/2 A)``,
  ``Bbar = (I - Delta/2 A)^-1 Delta B``.  Their canonical input column is the all-ones
  vector; extra input columns are ``e_1, ..., e_{m-1}``, and ``C``'s rows are
  ``e_0^T, ..., e_{p-1}^T`` (the first p Legendre / modal coordinates).

Examples
--------
>>> from symssm import head_count
>>> head_count(shift(5, p=2), 10)
2
>>> hippo_legs_continuous(3)[0]
[[-1, 0, 0], [-1, -2, 0], [-1, -3, -3]]
"""

import random as _random
from fractions import Fraction

from ..errors import InputError
from ..formats.rationals import to_fraction
from .system import ssm

__all__ = [
    "FAMILIES",
    "FAMILY_NOTES",
    "family_system",
    "shift",
    "rotation",
    "diagonal",
    "companion",
    "jordan",
    "hippo_legs",
    "hippo_legt",
    "s4d_real",
    "random_system",
    "bilinear",
    "hippo_legs_continuous",
    "hippo_legt_continuous",
    "s4d_real_continuous",
]

DEFAULT_STEP = Fraction(1, 10)


def _dims(N, p, m, *, min_N=1):
    for name, v in (("N", N), ("p", p), ("m", m)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise InputError(f"{name} must be a positive integer, got {v!r}")
    if N < min_N:
        raise InputError(f"N must be at least {min_N}, got {N}")
    if p > N or m > N:
        raise InputError(f"p and m must be at most N = {N} (got p = {p}, m = {m})")
    if N > 512:
        raise InputError(f"families are built up to N = 512, got {N}")


def _unit_cols(N, m, first=None):
    """N x m: column 0 is ``first`` (or e_0), column j is e_j."""
    cols = [[1 if i == j else 0 for i in range(N)] for j in range(m)]
    if first is not None:
        cols[0] = list(first)
    return [[cols[j][i] for j in range(m)] for i in range(N)]


def _last_rows(N, p):
    return [[1 if i == N - p + r else 0 for i in range(N)] for r in range(p)]


def _first_rows(N, p):
    return [[1 if i == r else 0 for i in range(N)] for r in range(p)]


def shift(N, p=1, m=1):
    """Nilpotent down-shift: ``A[i+1][i] = 1``; B = [e_0..e_{m-1}], C = last p coordinates.

    ``L_d[r][c] = 1`` exactly when ``c + d = N - p + r``.

    Parameters
    ----------
    N : int
        The state dimension.
    p, m : int
        The output and input dimensions (default 1).

    Returns
    -------
    SSM
        The family member, named after the family and its sizes.

    Examples
    --------
    >>> shift(3).A
    ((Fraction(0, 1), Fraction(0, 1), Fraction(0, 1)), (Fraction(1, 1), Fraction(0, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(1, 1), Fraction(0, 1)))
    """
    _dims(N, p, m)
    A = [[1 if i == j + 1 else 0 for j in range(N)] for i in range(N)]
    return ssm(A, _unit_cols(N, m), _last_rows(N, p), name=f"shift-N{N}-p{p}-m{m}")


def _pythagorean(b):
    """(cos, sin) of a rational rotation: t = 1/(b+2), ((1-t^2)/(1+t^2), 2t/(1+t^2))."""
    t = Fraction(1, b + 2)
    return (1 - t * t) / (1 + t * t), 2 * t / (1 + t * t)


def rotation(N, p=1, m=1):
    """Block-diagonal rotations by distinct rational (Pythagorean) angles.

    Block b (rows 2b, 2b+1) is ``[[c, -s], [s, c]]`` with ``t = 1/(b+2)``,
    ``c = (1-t^2)/(1+t^2)``, ``s = 2t/(1+t^2)`` (so ``c^2 + s^2 = 1`` exactly; block 0 is the
    3-4-5 rotation, c = 3/5, s = 4/5).  For odd N a final 1x1 block ``[1]``.
    B has column 0 = all ones and columns j >= 1 = e_j; C = last p coordinates.

    Parameters
    ----------
    N : int
        The state dimension.
    p, m : int
        The output and input dimensions (default 1).

    Returns
    -------
    SSM
        The family member, named after the family and its sizes.
    """
    _dims(N, p, m)
    A = [[Fraction(0)] * N for _ in range(N)]
    for b in range(N // 2):
        c, s = _pythagorean(b)
        i = 2 * b
        A[i][i], A[i][i + 1], A[i + 1][i], A[i + 1][i + 1] = c, -s, s, c
    if N % 2:
        A[N - 1][N - 1] = Fraction(1)
    return ssm(A, _unit_cols(N, m, first=[1] * N), _last_rows(N, p), name=f"rotation-N{N}-p{p}-m{m}")


def diagonal(N, p=1, m=1):
    """Diagonal, distinct rationals ``A = diag(1/2, -1/3, 1/4, -1/5, ...)`` (stable).

    ``A[i][i] = (-1)^i / (i + 2)``; ``B[i][j] = (i+1)^j`` and ``C[r][i] = (i+1)^r`` (Vandermonde
    patterns, so the system is generic).

    Parameters
    ----------
    N : int
        The state dimension.
    p, m : int
        The output and input dimensions (default 1).

    Returns
    -------
    SSM
        The family member, named after the family and its sizes.
    """
    _dims(N, p, m)
    A = [[Fraction((-1) ** i, i + 2) if i == j else 0 for j in range(N)] for i in range(N)]
    B = [[(i + 1) ** j for j in range(m)] for i in range(N)]
    C = [[(i + 1) ** r for i in range(N)] for r in range(p)]
    return ssm(A, B, C, name=f"diagonal-N{N}-p{p}-m{m}")


def companion(N=None, p=1, m=1, *, coefficients=None):
    """Companion matrix of the monic polynomial ``x^N + c_{N-1} x^{N-1} + ... + c_0``.

    ``A[i+1][i] = 1`` and the last column is ``-c_0, ..., -c_{N-1}``.  ``coefficients`` lists
    ``c_0, ..., c_{N-1}`` (integers); the default is ``c_i = (-1)^i (i + 1)``.
    B = [e_0..e_{m-1}], C = last p coordinates.

    Parameters
    ----------
    N : int, optional
        The state dimension (default: the number of ``coefficients``).
    p, m : int
        The output and input dimensions (default 1).
    coefficients : sequence of int, optional
        ``c_0, ..., c_{N-1}``.

    Returns
    -------
    SSM
        The family member, named after the family and its sizes.

    Raises
    ------
    InputError
        If neither ``N`` nor ``coefficients`` is given, a coefficient is not an integer, or their number is not N.

    Examples
    --------
    >>> companion(coefficients=[2, 3]).A
    ((Fraction(0, 1), Fraction(-2, 1)), (Fraction(1, 1), Fraction(-3, 1)))
    """
    if coefficients is None:
        if N is None:
            raise InputError("companion needs N or coefficients")
        coefficients = [(-1) ** i * (i + 1) for i in range(N)]
    coefficients = [to_fraction(c, what="companion coefficient") for c in coefficients]
    if any(c.denominator != 1 for c in coefficients):
        raise InputError("companion coefficients must be integers")
    if N is not None and N != len(coefficients):
        raise InputError(f"N = {N} but {len(coefficients)} coefficients were given")
    N = len(coefficients)
    _dims(N, p, m)
    A = [[Fraction(1) if i == j + 1 else Fraction(0) for j in range(N)] for i in range(N)]
    for i in range(N):
        A[i][N - 1] = -coefficients[i]
    return ssm(A, _unit_cols(N, m), _last_rows(N, p), name=f"companion-N{N}-p{p}-m{m}")


def jordan(N, p=1, m=1, *, eigenvalue=Fraction(1, 2), block=2):
    """Jordan blocks of size ``block`` (the last one shorter if needed), all with one eigenvalue.

    ``A[i][i] = eigenvalue`` and ``A[i][i+1] = 1`` inside each block.  Equal eigenvalues across
    blocks make the system degenerate (its head count stays below min(N, pm)).
    B has column 0 = all ones and columns j >= 1 = e_j; C = last p coordinates.

    Parameters
    ----------
    N : int
        The state dimension.
    p, m : int
        The output and input dimensions (default 1).
    eigenvalue : Fraction
        The eigenvalue of every block (default 1/2).
    block : int
        The size of the blocks.

    Returns
    -------
    SSM
        The family member, named after the family and its sizes.

    Raises
    ------
    InputError
        If ``block`` is not a positive integer.
    """
    _dims(N, p, m)
    lam = to_fraction(eigenvalue, what="eigenvalue")
    if isinstance(block, bool) or not isinstance(block, int) or block < 1:
        raise InputError(f"block must be a positive integer, got {block!r}")
    A = [[Fraction(0)] * N for _ in range(N)]
    for i in range(N):
        A[i][i] = lam
        if (i + 1) % block and i + 1 < N:
            A[i][i + 1] = Fraction(1)
    return ssm(A, _unit_cols(N, m, first=[1] * N), _last_rows(N, p), name=f"jordan-N{N}-p{p}-m{m}")


def bilinear(A, B, step=DEFAULT_STEP):
    """Bilinear (Tustin) discretisation, exactly: ``(Abar, Bbar)`` as lists of Fractions.

    ``Abar = (I - step/2 A)^-1 (I + step/2 A)``, ``Bbar = (I - step/2 A)^-1 step B``.

    Parameters
    ----------
    A : list of list
        The continuous-time state matrix (exact entries).
    B : list of list
        The continuous-time input matrix.
    step : Fraction
        The step, positive.

    Returns
    -------
    tuple
        ``(Abar, Bbar)``, lists of rows of Fractions.

    Raises
    ------
    InputError
        If ``step`` is not positive.

    Examples
    --------
    >>> bilinear([[-1]], [[1]], step=Fraction(1, 2))
    ([[Fraction(3, 5)]], [[Fraction(2, 5)]])
    """
    step = to_fraction(step, what="step")
    if step <= 0:
        raise InputError(f"step must be positive, got {step}")
    exact = lambda x, what: x if type(x) is int else to_fraction(x, what=what)  # noqa: E731  (ints as they are)
    A = [[exact(x, "A entry") for x in row] for row in A]
    B = [[exact(x, "B entry") for x in row] for row in B]
    import flint  # exact rational inverse (python-flint), no SymPy on the families' path

    N, m = len(A), len(B[0])
    q = lambda x: flint.fmpq(x) if type(x) is int else flint.fmpq(x.numerator, x.denominator)  # noqa: E731
    h = q(step / 2)
    Aq = flint.fmpq_mat(N, N, [q(x) for row in A for x in row])
    eye = flint.fmpq_mat(N, N, [int(i == j) for i in range(N) for j in range(N)])
    Minv = (eye - Aq * h).inv()
    Bq = flint.fmpq_mat(N, m, [q(x) for row in B for x in row]) * q(step)

    def back(D):
        flat = [Fraction(int(x.p), int(x.q)) for x in D.entries()]
        return [flat[i * D.ncols():(i + 1) * D.ncols()] for i in range(D.nrows())]

    return back(Minv * (eye + Aq * h)), back(Minv * Bq)


def hippo_legs_continuous(N):
    """HiPPO-LegS in rational form: ``A'_nk = -(2k+1)`` (n > k), ``-(n+1)`` (n = k), 0 (n < k); B' = ones.

    This is ``T^-1 A T`` with ``T = diag(sqrt(2n+1))`` for the usual
    ``A_nk = -sqrt(2n+1) sqrt(2k+1)`` (n > k), and ``B' = T^-1 B`` for ``B_n = sqrt(2n+1)``.

    Parameters
    ----------
    N : int
        The state dimension.

    Returns
    -------
    tuple
        ``(A', B')``: lists of rows of integers.
    """
    A = [[-(2 * k + 1) if n > k else (-(n + 1) if n == k else 0) for k in range(N)] for n in range(N)]
    return A, [[1] for _ in range(N)]


def hippo_legt_continuous(N):
    """HiPPO-LegT in rational form: ``A'_nk = -(2k+1) ((-1)^(n-k) if n < k else 1)``; B' = ones.

    Parameters
    ----------
    N : int
        The state dimension.

    Returns
    -------
    tuple
        ``(A', B')``: lists of rows of integers.
    """
    A = [[-(2 * k + 1) * ((-1) ** (k - n) if n < k else 1) for k in range(N)] for n in range(N)]
    return A, [[1] for _ in range(N)]


def s4d_real_continuous(N):
    """S4D-Real: ``A = diag(-(n+1))``, B = ones.

    Parameters
    ----------
    N : int
        The state dimension.

    Returns
    -------
    tuple
        ``(A, B)``: lists of rows of integers.
    """
    return [[-(n + 1) if n == k else 0 for k in range(N)] for n in range(N)], [[1] for _ in range(N)]


def _hippo_like(label, continuous, N, p, m, step):
    _dims(N, p, m)
    A, b = continuous(N)
    B = [[b[i][0]] + [1 if i == j else 0 for j in range(1, m)] for i in range(N)]
    Abar, Bbar = bilinear(A, B, step)
    step = to_fraction(step, what="step")
    tag = "" if step == DEFAULT_STEP else f"-step{step.numerator}_{step.denominator}"
    return ssm(Abar, Bbar, _first_rows(N, p), name=f"{label}-N{N}-p{p}-m{m}{tag}")


def hippo_legs(N, p=1, m=1, *, step=DEFAULT_STEP):
    """HiPPO-LegS (rational similarity form, :func:`hippo_legs_continuous`), bilinear at ``step``.

    Parameters
    ----------
    N : int
        The state dimension.
    p, m : int
        The output and input dimensions (default 1).
    step : Fraction
        The bilinear step (default 1/10).

    Returns
    -------
    SSM
        The family member, named after the family and its sizes.
    """
    return _hippo_like("hippo-legs", hippo_legs_continuous, N, p, m, step)


def hippo_legt(N, p=1, m=1, *, step=DEFAULT_STEP):
    """HiPPO-LegT (rational similarity form, :func:`hippo_legt_continuous`), bilinear at ``step``.

    Parameters
    ----------
    N : int
        The state dimension.
    p, m : int
        The output and input dimensions (default 1).
    step : Fraction
        The bilinear step (default 1/10).

    Returns
    -------
    SSM
        The family member, named after the family and its sizes.
    """
    return _hippo_like("hippo-legt", hippo_legt_continuous, N, p, m, step)


def s4d_real(N, p=1, m=1, *, step=DEFAULT_STEP):
    """S4D-Real (:func:`s4d_real_continuous`), bilinear at ``step``.

    Parameters
    ----------
    N : int
        The state dimension.
    p, m : int
        The output and input dimensions (default 1).
    step : Fraction
        The bilinear step (default 1/10).

    Returns
    -------
    SSM
        The family member, named after the family and its sizes.
    """
    return _hippo_like("s4d-real", s4d_real_continuous, N, p, m, step)


def random_system(N, p=1, m=1, *, seed=0, low=-3, high=3):
    """Random integer entries in ``[low, high]`` from ``random.Random(seed)`` (reproducible).

    Parameters
    ----------
    N : int
        The state dimension.
    p, m : int
        The output and input dimensions (default 1).
    seed : int
        The seed of ``random.Random``.
    low, high : int
        The range of the entries.

    Returns
    -------
    SSM
        The family member, named after the family and its sizes.

    Raises
    ------
    InputError
        If ``seed`` is not a non-negative integer.

    Examples
    --------
    >>> random_system(2, seed=1).A == random_system(2, seed=1).A
    True
    """
    _dims(N, p, m)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    rng = _random.Random(seed)
    mat = lambda r, c: [[rng.randint(low, high) for _ in range(c)] for _ in range(r)]
    return ssm(mat(N, N), mat(N, m), mat(p, N), name=f"random-N{N}-p{p}-m{m}-seed{seed}")


FAMILIES = {
    "shift": shift,
    "rotation": rotation,
    "diagonal": diagonal,
    "companion": companion,
    "jordan": jordan,
    "hippo-legs": hippo_legs,
    "hippo-legt": hippo_legt,
    "s4d-real": s4d_real,
    "random": random_system,
}


#: One line per family: its parameters and conventions (``symssm families`` prints them).
FAMILY_NOTES = {
    "shift": "N x N down-shift (nilpotent); B = [e_0..e_(m-1)], C = last p coordinates",
    "rotation": "2x2 rotation blocks by distinct Pythagorean angles (spectral radius 1; a final [1] for odd N); "
                "B = [ones, e_1..], C = last p coordinates",
    "diagonal": "A = diag(1/2, -1/3, 1/4, ...) (stable, distinct); Vandermonde B and C",
    "companion": "companion matrix of x^N + sum c_i x^i with c_i = (-1)^i (i+1); B = [e_0..], C = last p coordinates",
    "jordan": "Jordan blocks of size 2 at eigenvalue 1/2; B = [ones, e_1..], C = last p coordinates",
    "hippo-legs": "HiPPO-LegS in rational similarity form, bilinear at Delta = 1/10; B = ones, C = first p coordinates",
    "hippo-legt": "HiPPO-LegT in rational similarity form (S4's LegT at dt = 2 Delta), bilinear at Delta = 1/10; "
                  "B = ones, C = first p coordinates",
    "s4d-real": "S4D-Real A = diag(-(n+1)), bilinear at Delta = 1/10 (S4 itself uses zero-order hold); B = ones, "
                "C = first p coordinates",
    "random": "integer entries uniform in [-3, 3] from a seeded generator; options N, p, m, seed",
}


def family_system(name, *, N=None, p=None, m=None, seed=None):
    """Build a family member by name (the ``--family`` option of the command line).

    Parameters
    ----------
    name : str
        A family of :data:`FAMILIES` (``symssm families`` lists them).
    N : int
        The state dimension (required, at most 512).
    p, m : int, optional
        The output and input dimensions (default 1).
    seed : int, optional
        The seed of the ``random`` family (no other family takes one).

    Returns
    -------
    SSM
        The family member, named after the family and its sizes.

    Raises
    ------
    InputError
        If the family is unknown, ``N`` is missing or above 512, or ``seed`` is given to a
        family other than ``random``.

    Examples
    --------
    >>> system = family_system("rotation", N=4, p=2)
    >>> system.name, system.N, system.p
    ('rotation-N4-p2-m1', 4, 2)
    """
    if name not in FAMILIES:
        raise InputError(f"unknown family {name!r}; choose one of {', '.join(FAMILIES)}")
    if N is None:
        raise InputError(f"family {name} needs --N")
    kwargs = {"p": p or 1, "m": m or 1}
    if seed is not None:
        if name != "random":
            raise InputError("--seed applies to the random family only")
        kwargs["seed"] = seed
    if N > 512:
        raise InputError(f"families are built up to N = 512, got {N}")
    return FAMILIES[name](N, **kwargs)
